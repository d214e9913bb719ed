#!/bin/sh
# SPDX-License-Identifier: MIT
# mpirun's exit code: 0 when all ranks exit 0, else the failing rank's
# code, with one line naming the rank; a rank that exits 0 after PMI init
# without finalize also ends the job (it would leave the others hanging).
. "$(dirname "$0")/common.sh"

timeout 60 "$MPIRUN" -n 3 "$PROG" >/dev/null 2>"$WORK/err" || fail "clean job exited $?"
timeout 60 "$MPIRUN" -n 3 "$PROG" --exit-rank 1 --exit-code 3 --sleep 30 >/dev/null 2>"$WORK/err"
rc=$?
[ $rc -eq 3 ] || fail "expected exit code 3, got $rc"
grep -q 'rank 1 (pid [0-9]* on host .*) exited with code 3; job aborted' "$WORK/err" ||
	fail "no message naming rank 1: $(cat "$WORK/err")"
timeout 60 "$MPIRUN" -n 2 "$PROG" --exit-rank 0 --exit-code 0 --no-finalize --sleep 30 >/dev/null 2>"$WORK/err"
rc=$?
[ $rc -ne 0 ] || fail "exit without finalize was not an error"
grep -q 'rank 0 .*without calling finalize' "$WORK/err" || fail "no finalize message: $(cat "$WORK/err")"
# a program that is not there: 127 as a shell would say
timeout 60 "$MPIRUN" -n 2 "$WORK/does-not-exist" >/dev/null 2>"$WORK/err"
rc=$?
[ $rc -eq 127 ] || fail "missing program: expected 127, got $rc"
grep -q "cannot run" "$WORK/err" || fail "no 'cannot run' message"
exit 0
