#!/bin/sh
# SPDX-License-Identifier: MIT
# Scale on one machine (issue 8): 256 ranks, oversubscribed, over shm
# (the default on one host) and 64 over tcp start, pass a ring and an
# allreduce (scale_prog.c, compiled here against the build tree or with
# MICHI_MPICC), and end within the time limit. Each rank counts its open
# fds before MPI_Finalize: the maximum must stay within what a rank of a
# 2-rank job holds plus its partners here (2 ring neighbours and about
# log2(n) partners each for the allreduce's and the reduce's trees), far
# below one per rank of the job: shm keeps a pidfd per local peer it
# talked to, tcp a socket per connected peer (plus epoll, listener, PMI).
. "$(dirname "$0")/common.sh"

: "${top_srcdir:=$(dirname "$0")/../..}"
SRC=$top_srcdir/test/launch/scale_prog.c
EXE=$WORK/${UNIQ}_prog
LIMIT=${SCALE_LIMIT:-120}

[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge 2048 ] ||
	skip "ulimit -n is $(ulimit -n): the proxy of 256 ranks needs about 800 fds"
if [ -n "${MICHI_MPICC:-}" ]; then
	$MICHI_MPICC -o "$EXE" "$SRC" 2>"$WORK/err" || fail "cannot build: $(cat "$WORK/err")"
else
	[ -e "$top_builddir/.libs/libmpi.so" ] || fail "no libmpi.so in $top_builddir/.libs"
	LIBDIR=$(cd "$top_builddir/.libs" && pwd)
	${CC:-cc} -I"$top_srcdir/mpi/include" -o "$EXE" "$SRC" -L"$LIBDIR" \
		-Wl,-rpath,"$LIBDIR" -lmpi 2>"$WORK/err" || fail "cannot build: $(cat "$WORK/err")"
fi

log2() { l=0; v=1; while [ $v -lt "$1" ]; do v=$((v * 2)); l=$((l + 1)); done; echo $l; }

# run N DEVICE: prints the fd maximum
run() {
	t0=$(now_ms)
	MICHI_DEVICE=$2 timeout -k 5 "$LIMIT" "$MPIRUN" -n "$1" "$EXE" >"$WORK/out" 2>"$WORK/err" ||
		fail "$1 ranks over $2: exit $? after $(( $(now_ms) - t0 )) ms: $(tail -5 "$WORK/err")"
	grep -qx "ok $1" "$WORK/out" || fail "$1 ranks over $2: $(cat "$WORK/out" "$WORK/err")"
	echo "$1 ranks over $2: $(( $(now_ms) - t0 )) ms, $(grep '^fds' "$WORK/out")" >&2
	sed -n 's/^fds max \([0-9]*\) .*/\1/p' "$WORK/out"
}

for dev in shm tcp; do
	base=$(run 2 $dev) || exit 1
	n=256
	[ $dev = tcp ] && n=64
	max=$(run $n $dev) || exit 1
	bound=$((base + 2 + 2 * $(log2 $n)))
	[ "$max" -le "$bound" ] ||
		fail "$n ranks over $dev: a rank holds $max fds, more than $bound ($base at 2 ranks, plus its partners)"
done
gone "$WORK/" 30 || fail "ranks left running"
exit 0
