#!/bin/sh
# SPDX-License-Identifier: MIT
# A rank killed by SIGKILL ends the whole job within 5 s, mpirun exits
# 128+9 with one line naming the rank and the signal, and no process of
# the job is left.
. "$(dirname "$0")/common.sh"

t0=$(now_ms)
timeout 60 "$MPIRUN" -n 4 "$PROG" --kill-rank 2 --sleep 60 >/dev/null 2>"$WORK/err"
rc=$?
t1=$(now_ms)
[ $rc -eq 137 ] || fail "expected 137, got $rc"
[ $((t1 - t0)) -lt 5000 ] || fail "job took $((t1 - t0)) ms to end"
grep -q 'rank 2 (pid [0-9]* on host .*) killed by signal 9 (Killed); job aborted' "$WORK/err" ||
	fail "message does not name rank 2: $(cat "$WORK/err")"
[ "$(grep -c 'job aborted' "$WORK/err")" -eq 1 ] || fail "more than one abort line"
gone "$UNIQ" 10 || fail "processes left: $(pgrep -af "$UNIQ")"

# a rank that ignores SIGTERM gets SIGKILL after the grace
cat >"$WORK/${UNIQ}_stubborn.sh" <<'EOS'
#!/bin/sh
trap "" TERM
while :; do sleep 1; done
EOS
chmod +x "$WORK/${UNIQ}_stubborn.sh"
t0=$(now_ms)
timeout 60 "$MPIRUN" -n 2 "$WORK/${UNIQ}_stubborn.sh" : -n 1 sh -c 'sleep 0.5; exit 5' >/dev/null 2>"$WORK/err"
rc=$?
t1=$(now_ms)
[ $rc -eq 5 ] || fail "stubborn: expected 5, got $rc"
[ $((t1 - t0)) -lt 4000 ] || fail "stubborn ranks took $((t1 - t0)) ms to die"
gone "$UNIQ" 10 || fail "stubborn processes left: $(pgrep -af "$UNIQ")"
exit 0
