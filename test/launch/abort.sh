#!/bin/sh
# SPDX-License-Identifier: MIT
# PMI abort with code 17 ends the job: mpirun exits 17, prints the abort
# message, and the other ranks (sleeping) are gone; abort code 256 still
# gives a non-zero exit status.
. "$(dirname "$0")/common.sh"

timeout 60 "$MPIRUN" -n 4 "$PROG" --abort-rank 1 --abort-code 17 --sleep 60 >/dev/null 2>"$WORK/err"
rc=$?
[ $rc -eq 17 ] || fail "expected 17, got $rc"
grep -q 'rank 1 .*abort with exit code 17: test abort from pmi_client_test' "$WORK/err" ||
	fail "no abort message: $(cat "$WORK/err")"
gone "$UNIQ" 10 || fail "processes left: $(pgrep -af "$UNIQ")"

# An abort code that is a multiple of 256 must not become exit status 0.
timeout 60 "$MPIRUN" -n 2 "$PROG" --abort-rank 1 --abort-code 256 --sleep 60 >/dev/null 2>&1
rc=$?
[ $rc -ne 0 ] || fail "abort code 256 gave exit status 0"
gone "$UNIQ" 10 || fail "processes left: $(pgrep -af "$UNIQ")"
exit 0
