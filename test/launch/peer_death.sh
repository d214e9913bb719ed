#!/bin/sh
# SPDX-License-Identifier: MIT
# A rank on the same host that dies is noticed by the library itself, not
# only by mpirun (which ends the job first): under MPICH's Hydra with
# -disable-auto-cleanup the other ranks keep running, and rank 0, idle in
# a receive from the dead rank, must get an error naming it within a few
# seconds (shm looks at its idle peers at most once a second). Four ranks,
# which outnumber the processors of a 2-processor machine (a liveness look
# every 64 idle polls), then three: one rank released besides rank 0.
. "$(dirname "$0")/common.sh"

: "${top_srcdir:=$(dirname "$0")/../..}"
HYDRA=${MPIEXEC_MPICH:-$(command -v mpiexec.mpich)}
[ -n "$HYDRA" ] && [ -x "$HYDRA" ] || skip "mpiexec.mpich (MPICH's Hydra) is not installed"
unset MICHI_WAIT_POLICY MICHI_WAIT_SPIN MICHI_WAIT_YIELD MICHI_DEVICE MICHI_HOST_CPUS
EXE=$WORK/${UNIQ}_prog
build_prog "$EXE" "$top_srcdir/test/launch/peer_death_prog.c"
# Hydra ends the whole job when one of its processes dies of a signal,
# -disable-auto-cleanup or not; from behind a shell the death is an exit
# status, after which the other ranks run on. Hydra then tells them with
# SIGUSR1, which the shell must ignore as the program does.
cat >"$WORK/wrap" <<'WRAP'
#!/bin/sh
trap '' USR1
"$@"
exit $?
WRAP
chmod +x "$WORK/wrap"

for n in 4 3; do
	rm -f "$WORK"/res.*
	timeout -k 5 60 "$HYDRA" -disable-auto-cleanup -n $n "$WORK/wrap" "$EXE" "$WORK/res" \
		>"$WORK/out" 2>"$WORK/err"
	cat "$WORK"/res.* >"$WORK/out" 2>/dev/null
	line=$(grep '^rank 0:' "$WORK/out")
	case $line in
	"rank 0: failed after "*" s: "*"rank 2"*"exited or was killed"*) ;;
	*) fail "$n ranks: rank 0 said '$line': $(tail -5 "$WORK/err")" ;;
	esac
	secs=$(echo "$line" | sed 's/^rank 0: failed after \([0-9.]*\) s.*/\1/')
	awk "BEGIN { exit !($secs < 10) }" || fail "$n ranks: noticed only after $secs s"
	[ "$(grep -c 'released$' "$WORK/out")" = $((n - 2)) ] ||
		fail "$n ranks: not $((n - 2)) other ranks released: $(cat "$WORK/out")"
	gone "$UNIQ" 50 || fail "$n ranks: processes left"
done
exit 0
