#!/bin/sh
# SPDX-License-Identifier: MIT
# MPMD colon syntax: two programs share one job (one size, one key-value
# space); each program's ranks get their own appnum and environment
# (-env per program, -genv and -x for all).
. "$(dirname "$0")/common.sh"

timeout 60 "$MPIRUN" -genv MICHI_T_G g -x MICHI_T_X=x -n 1 "$PROG" --info : \
	-n 3 -env MICHI_T_L l "$PROG" --info >"$WORK/out" 2>"$WORK/err" ||
	fail "mpmd job failed: $(cat "$WORK/err")"
grep -q '^info rank=0 size=4 appnum=0 ' "$WORK/out" || fail "rank 0 appnum"
for r in 1 2 3; do
	grep -q "^info rank=$r size=4 appnum=1 " "$WORK/out" || fail "rank $r appnum"
done
[ "$(grep -c ' ok$' "$WORK/out")" -eq 4 ] || fail "not 4 ranks ok"
out=$(timeout 60 "$MPIRUN" -genv MICHI_T_G g -x MICHI_T_X=x -n 1 sh -c 'echo "a:$MICHI_T_G$MICHI_T_X$MICHI_T_L"' : \
	-n 2 -env MICHI_T_L l sh -c 'echo "b:$MICHI_T_G$MICHI_T_X$MICHI_T_L"' 2>/dev/null | sort | tr '\n' ' ')
[ "$out" = "a:gx b:gxl b:gxl " ] || fail "environment per program wrong: '$out'"
exit 0
