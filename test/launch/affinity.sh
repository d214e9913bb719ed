#!/bin/sh
# SPDX-License-Identifier: MIT
# The processors a job may use are those of mpirun's affinity: under
# `taskset -c 0 mpirun -n 2` both ranks share one processor, so they wait
# as oversubscribed ranks do (a few polls, then yield), not as ranks with
# a processor each (a long spin that starves the peer they wait for: 65
# us per message instead of about 2). Each rank's debug log names the
# count it took. Needs taskset (util-linux).
. "$(dirname "$0")/common.sh"

: "${top_srcdir:=$(dirname "$0")/../..}"
command -v taskset >/dev/null || skip "taskset(1) is missing"
# the wait policy's own variables would change the line checked below
unset MICHI_WAIT_POLICY MICHI_WAIT_SPIN MICHI_WAIT_YIELD MICHI_HOST_CPUS
# this test's processors: the first one it may use, and all of them
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
first=${cpus%%[-,]*}
[ -n "$first" ] || skip "no Cpus_allowed_list in /proc/self/status"
all=$(nproc)
SRC=$top_srcdir/test/mpi/msgsizes.c
EXE=$WORK/${UNIQ}_msgsizes
build_prog "$EXE" "$SRC" -I"$top_srcdir/test/mpi"

# run CPU-LIST: msgsizes on 2 ranks under taskset, must pass
run() {
	env MICHI_LOG=debug timeout 120 taskset -c "$1" "$MPIRUN" -n 2 "$EXE" \
		>"$WORK/out" 2>"$WORK/err" || fail "taskset -c $1: exit $?: $(tail -5 "$WORK/err")"
	grep -q " No Errors" "$WORK/out" || fail "taskset -c $1: no ' No Errors': $(tail -5 "$WORK/out")"
}

run "$first"
n=$(grep -c "wait policy auto: 2 ranks here on 1 processors, 2 polls" "$WORK/err")
[ "$n" = 2 ] || fail "taskset -c $first: $n of 2 ranks counted 1 processor: $(grep 'wait policy' "$WORK/err")"

if [ "$all" -ge 2 ]; then
	run "$cpus"
	n=$(grep -c "wait policy auto: 2 ranks here on $all processors, 2000 polls" "$WORK/err")
	[ "$n" = 2 ] || fail "taskset -c $cpus: $n of 2 ranks counted $all processors: $(grep 'wait policy' "$WORK/err")"
fi
# The proxy passes "count,its pid": a program that inherits the variable
# from elsewhere (started by another launcher, or by hand as here) keeps
# hwloc's count; one whose parent the pid names takes the count.
# single EXPECTED-PID: the program alone, as this shell's child
cat >"$WORK/one.c" <<'ONE'
#include <mpi.h>
int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Barrier(MPI_COMM_WORLD);
	return MPI_Finalize();
}
ONE
build_prog "$WORK/${UNIQ}_one" "$WORK/one.c"
single() {
	env MICHI_LOG=debug MICHI_HOST_CPUS="1,$1" "$WORK/${UNIQ}_one" >"$WORK/out" 2>"$WORK/err" &
	pid=$!
	(sleep 60; kill -KILL "$pid" 2>/dev/null) &
	dog=$!
	wait "$pid" || fail "singleton (MICHI_HOST_CPUS=1,$1): exit $?: $(tail -3 "$WORK/err")"
	kill "$dog" 2>/dev/null
}
if [ "$all" -ge 2 ]; then
	single 1
	grep -q "1 ranks here on $all processors" "$WORK/err" ||
		fail "a variable naming another parent was taken: $(grep 'wait policy' "$WORK/err")"
	single $$
	grep -q "1 ranks here on 1 processors" "$WORK/err" ||
		fail "a variable naming this parent was not taken: $(grep 'wait policy' "$WORK/err")"
fi
echo "PASS"
