#!/bin/sh
# SPDX-License-Identifier: MIT
# MPI_Comm_split_type(MPI_COMM_TYPE_HW_GUIDED) follows the bindings that
# mpirun --bind-to gives: test/mpi/hwguided.c (compiled here against the
# build tree, or with MICHI_MPICC) compares every level's communicators
# with its own view of its cpus from sysfs, strictly (MTEST_HW_STRICT=1:
# every level must be supported), unbound and bound to cores, hwthreads
# and sockets. Without hwloc (mpirun refuses --bind-to core) it skips.
. "$(dirname "$0")/common.sh"

: "${top_srcdir:=$(dirname "$0")/../..}"
SRC=$top_srcdir/test/mpi/hwguided.c
EXE=$WORK/${UNIQ}_prog

timeout 30 "$MPIRUN" --bind-to core -n 1 true 2>"$WORK/err" ||
	skip "no --bind-to here: $(cat "$WORK/err")"
[ -d /sys/devices/system/cpu/cpu0/topology ] || skip "no cpu topology in sysfs"

if [ -n "${MICHI_MPICC:-}" ]; then
	$MICHI_MPICC -o "$EXE" "$SRC" 2>"$WORK/err" || fail "cannot build: $(cat "$WORK/err")"
else
	[ -e "$top_builddir/.libs/libmpi.so" ] || fail "no libmpi.so in $top_builddir/.libs"
	LIBDIR=$(cd "$top_builddir/.libs" && pwd)
	${CC:-cc} -I"$top_srcdir/test/mpi" -I"$top_srcdir/mpi/include" -o "$EXE" "$SRC" \
		-L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lmpi 2>"$WORK/err" ||
		fail "cannot build: $(cat "$WORK/err")"
fi

run() {
	MTEST_HW_STRICT=1 timeout 60 "$MPIRUN" "$@" "$EXE" >"$WORK/out" 2>"$WORK/err" ||
		fail "mpirun $*: exit $?: $(cat "$WORK/out" "$WORK/err")"
	grep -q '^ No Errors$' "$WORK/out" || fail "mpirun $*: $(cat "$WORK/out" "$WORK/err")"
}
run -n 1
run -n 3
run --bind-to core -n 2
run --bind-to core -n 4
run --bind-to hwthread -n 3
run --bind-to socket -n 2
# two "hosts" here: each host's objects make their own communicators
run --launcher fork --host ha,hb --bind-to core -n 4
exit 0
