#!/bin/sh
# SPDX-License-Identifier: MIT
# --timeout and MPIEXEC_TIMEOUT kill a job that runs too long, with a
# message and a non-zero exit code, leaving no process.
. "$(dirname "$0")/common.sh"

t0=$(now_ms)
timeout 60 "$MPIRUN" --timeout 1 -n 2 "$PROG" --sleep 60 >/dev/null 2>"$WORK/err"
rc=$?
t1=$(now_ms)
[ $rc -ne 0 ] || fail "timed out job exited 0"
[ $((t1 - t0)) -lt 8000 ] || fail "took $((t1 - t0)) ms"
grep -q 'timeout of 1 s' "$WORK/err" || fail "no timeout message: $(cat "$WORK/err")"
gone "$UNIQ" 20 || fail "processes left"
MPIEXEC_TIMEOUT=1 timeout 60 "$MPIRUN" -n 2 "$PROG" --sleep 60 >/dev/null 2>"$WORK/err"
[ $? -ne 0 ] || fail "MPIEXEC_TIMEOUT ignored"
grep -q 'timeout of 1 s' "$WORK/err" || fail "no MPIEXEC_TIMEOUT message"
# a job that ends in time is not affected
timeout 60 "$MPIRUN" --timeout 30 -n 2 "$PROG" >/dev/null 2>&1 || fail "short job failed under --timeout"
exit 0
