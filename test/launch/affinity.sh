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
echo "PASS"
