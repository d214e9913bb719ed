#!/bin/sh
# SPDX-License-Identifier: MIT
# Dynamic processes under MPICH's Hydra (mpiexec.mpich), which cannot
# start processes for Michi: MPI_Comm_spawn returns MPI_ERR_SPAWN (42)
# at once, with a message that names the reason and the way out, and
# never waits; the name service calls are answered by Hydra (a lookup of
# a name nobody published: MPI_ERR_NAME, 33; a publish: success, or
# MPI_ERR_SERVICE, 41, when Hydra has no name server).
. "$(dirname "$0")/common.sh"

HYDRA=${MPIEXEC_MPICH:-$(command -v mpiexec.mpich)}
[ -n "$HYDRA" ] && [ -x "$HYDRA" ] || skip "mpiexec.mpich (MPICH's Hydra) is not installed"
: "${top_srcdir:=$(dirname "$0")/../..}"
PROG=$WORK/${UNIQ}_dyn
build_prog "$PROG" "$top_srcdir/test/launch/dynjobs_prog.c"

T0=$(now_ms)
timeout 60 "$HYDRA" -n 2 "$PROG" nospawn >"$WORK/out" 2>"$WORK/err" ||
	fail "hydra: exit $?: $(cat "$WORK/out" "$WORK/err")"
T1=$(now_ms)
grep -q "^spawn class 42: .*other than Michi's mpirun" "$WORK/out" ||
	fail "spawn under hydra: $(cat "$WORK/out")"
grep -q "^lookup class 33$" "$WORK/out" || fail "lookup under hydra: $(cat "$WORK/out")"
grep -Eq "^publish class (0|41)$" "$WORK/out" || fail "publish under hydra: $(cat "$WORK/out")"
[ $((T1 - T0)) -lt 30000 ] || fail "the failing spawn took $((T1 - T0)) ms"
gone "$UNIQ" 20 || fail "processes left"
echo "PASS: spawn under Hydra fails with MPI_ERR_SPAWN in $((T1 - T0)) ms"
