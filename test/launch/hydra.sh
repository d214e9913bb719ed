#!/bin/sh
# SPDX-License-Identifier: MIT
# Interoperability: Michi's PMI client under MPICH's Hydra (mpiexec.mpich),
# both through an inherited PMI_FD and through -pmi-port (PMI_PORT+PMI_ID).
. "$(dirname "$0")/common.sh"

HYDRA=${MPIEXEC_MPICH:-$(command -v mpiexec.mpich)}
[ -n "$HYDRA" ] && [ -x "$HYDRA" ] || skip "mpiexec.mpich (MPICH's Hydra) is not installed"

for mode in "" -pmi-port; do
	timeout 60 "$HYDRA" $mode -n 4 "$PROG" --bigval --info >"$WORK/out" 2>"$WORK/err" ||
		fail "hydra $mode: exit $?: $(cat "$WORK/err")"
	[ "$(grep -c ' ok$' "$WORK/out")" -eq 4 ] || fail "hydra $mode: not 4 ranks ok"
	for r in 0 1 2 3; do
		grep -q "^info rank=$r size=4 " "$WORK/out" || fail "hydra $mode: rank $r info"
	done
done
timeout 60 "$HYDRA" -n 3 "$PROG" --abort-rank 1 --abort-code 17 --sleep 60 >/dev/null 2>&1
rc=$?
[ $rc -eq 17 ] || fail "hydra abort: expected 17, got $rc"
gone "$UNIQ" 20 || fail "hydra abort: processes left"
exit 0
