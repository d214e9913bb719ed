#!/bin/sh
# SPDX-License-Identifier: MIT
# Standard streams: stdin reaches rank 0 only (the others read EOF), -l
# and --tag-output label every line with [rank], and large outputs from
# several ranks arrive complete, line by line, even to a slow reader.
. "$(dirname "$0")/common.sh"

printf 'hello\nworld\n' | timeout 60 "$MPIRUN" -n 3 "$PROG" --stdin >"$WORK/out" 2>"$WORK/err" ||
	fail "stdin job failed: $(cat "$WORK/err")"
[ "$(grep -c '^stdin: hello$' "$WORK/out")" -eq 1 ] || fail "hello not seen exactly once"
[ "$(grep -c '^stdin: world$' "$WORK/out")" -eq 1 ] || fail "world not seen exactly once"

for opt in -l --tag-output; do
	timeout 60 "$MPIRUN" $opt -n 3 "$PROG" >"$WORK/out" 2>"$WORK/err" || fail "$opt job failed"
	for r in 0 1 2; do
		grep -qx "\[$r\] rank $r of 3 ok" "$WORK/out" || fail "$opt: rank $r line not labelled"
	done
done

cat >"$WORK/lines.sh" <<'EOS'
#!/bin/sh
i=0
seq 1 50000 | sed "s/^/r$PMI_RANK-line-/"
EOS
chmod +x "$WORK/lines.sh"
timeout 120 "$MPIRUN" -l -n 3 "$WORK/lines.sh" 2>"$WORK/err" | (sleep 1; cat) >"$WORK/out" ||
	fail "output job failed"
[ "$(wc -l <"$WORK/out")" -eq 150000 ] || fail "expected 150000 lines, got $(wc -l <"$WORK/out")"
for r in 0 1 2; do
	[ "$(grep -c "^\[$r\] r$r-line-[0-9]*$" "$WORK/out")" -eq 50000 ] || fail "rank $r lines garbled"
done
exit 0
