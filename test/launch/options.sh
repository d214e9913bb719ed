#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line handling: --help and --version exit 0, unknown options and
# missing arguments are clear errors, an oversubscribed run prints nothing
# but the program's output (as MPICH and Open MPI: test drivers fail a test
# on any other line) while -v, --verbose and MICHI_LOG=info print one note,
# the working directory is kept or set by -wdir.
. "$(dirname "$0")/common.sh"

timeout 10 "$MPIRUN" --help | grep -q 'usage: mpirun' || fail "--help"
timeout 10 "$MPIRUN" -h >/dev/null || fail "-h"
timeout 10 "$MPIRUN" --version | grep -q 'Michi' || fail "--version"
timeout 10 "$MPIRUN" --bogus -n 1 true 2>"$WORK/err"
[ $? -ne 0 ] || fail "unknown option accepted"
grep -q "unknown option '--bogus'" "$WORK/err" || fail "unclear message: $(cat "$WORK/err")"
timeout 10 "$MPIRUN" -n 2>"$WORK/err"; [ $? -ne 0 ] || fail "-n without count accepted"
timeout 10 "$MPIRUN" -n 0 true 2>"$WORK/err"; [ $? -ne 0 ] || fail "-n 0 accepted"
timeout 10 "$MPIRUN" -n 1 2>"$WORK/err"; [ $? -ne 0 ] || fail "no program accepted"
timeout 10 "$MPIRUN" -n 1 true : 2>"$WORK/err"; [ $? -ne 0 ] || fail "trailing ':' accepted"
cores=$(nproc)
n=$((cores + 1))
# a caller's MICHI_LOG=info would rightly print the note: not here
env -u MICHI_LOG timeout 60 "$MPIRUN" -np $n echo out >"$WORK/out" 2>"$WORK/err" ||
	fail "oversubscribed job failed: $(cat "$WORK/err")"
[ ! -s "$WORK/err" ] || fail "oversubscribed run printed on stderr: $(cat "$WORK/err")"
[ "$(grep -cx out "$WORK/out")" -eq $n ] && [ "$(wc -l <"$WORK/out")" -eq $n ] ||
	fail "oversubscribed run: stdout is not $n lines 'out': $(cat "$WORK/out")"
note="note: $n ranks on $cores cores (oversubscribed)"
for v in -v --verbose; do
	env -u MICHI_LOG timeout 60 "$MPIRUN" $v -np $n echo out >"$WORK/out" 2>"$WORK/err" ||
		fail "$v: oversubscribed job failed: $(cat "$WORK/err")"
	[ "$(grep -c "^\[mpirun\] info: $note\$" "$WORK/err")" -eq 1 ] && [ "$(wc -l <"$WORK/err")" -eq 1 ] ||
		fail "$v: not the one note on stderr: $(cat "$WORK/err")"
	[ "$(grep -cx out "$WORK/out")" -eq $n ] || fail "$v: stdout: $(cat "$WORK/out")"
done
MICHI_LOG=info timeout 60 "$MPIRUN" -np $n true 2>"$WORK/err" || fail "MICHI_LOG=info: job failed"
[ "$(grep -c "\[mpirun\] info: $note" "$WORK/err")" -eq 1 ] ||
	fail "MICHI_LOG=info: no note: $(cat "$WORK/err")"
timeout 60 "$MPIRUN" -np 1 true 2>"$WORK/err" || fail "1-rank job failed"
[ ! -s "$WORK/err" ] || fail "unexpected stderr: $(cat "$WORK/err")"
# ranks start in mpirun's directory, or -wdir's (relative to it); a
# missing -wdir fails the job with the directory named
mkdir -p "$WORK/sub" || fail "mkdir"
[ "$(cd "$WORK/sub" && timeout 20 "$MPIRUN" -n 1 pwd)" = "$WORK/sub" ] || fail "cwd not kept"
[ "$(cd "$WORK/sub" && timeout 20 "$MPIRUN" -wdir .. -n 1 pwd)" = "$WORK" ] ||
	fail "-wdir .. not honoured"
[ "$(timeout 20 "$MPIRUN" --wdir "$WORK/sub" -n 1 pwd)" = "$WORK/sub" ] || fail "--wdir"
timeout 20 "$MPIRUN" -wdir "$WORK/none" -n 2 true 2>"$WORK/err"
[ $? -ne 0 ] || fail "missing -wdir accepted"
grep -q "proxy on host .*: cannot enter the working directory $WORK/none" "$WORK/err" ||
	fail "unclear -wdir failure: $(cat "$WORK/err")"
timeout 10 "$MPIRUN" -genvlist 2>"$WORK/err"; [ $? -ne 0 ] || fail "-genvlist without names"
exit 0
