#!/bin/sh
# SPDX-License-Identifier: MIT
# --bind-to and --report-bindings: each rank's Cpus_allowed_list (what the
# kernel enforces) must be the cpus the report names, ranks go round robin
# over the cores in local rank order, --bind-to none leaves every cpu
# mpirun has, MICHI_BIND_TO does what the option does, and a bad level is
# an error. Without hwloc only the errors are checked (then 77).
. "$(dirname "$0")/common.sh"

# each rank prints: aff RANK CPULIST (of the shell it runs in, bound as the rank)
SHOW='echo "aff $PMI_RANK $(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/self/status)"'
MINE=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
[ -n "$MINE" ] || skip "no Cpus_allowed_list in /proc/self/status"

# a bad level, or none at all, is a clear error that starts nothing
timeout 30 "$MPIRUN" --bind-to bogus -n 2 "$PROG" >"$WORK/out" 2>"$WORK/err" &&
	fail "--bind-to bogus was accepted"
grep -q "expected none, hwthread, core" "$WORK/err" || fail "--bind-to bogus: $(cat "$WORK/err")"
[ ! -s "$WORK/out" ] || fail "--bind-to bogus started ranks: $(cat "$WORK/out")"
timeout 30 "$MPIRUN" -n 1 --bind-to 2>"$WORK/err" && fail "--bind-to without a level was accepted"
MICHI_BIND_TO=bogus timeout 30 "$MPIRUN" -n 1 "$PROG" >/dev/null 2>"$WORK/err" &&
	fail "MICHI_BIND_TO=bogus was accepted"
grep -q "MICHI_BIND_TO" "$WORK/err" || fail "MICHI_BIND_TO=bogus: $(cat "$WORK/err")"

# --bind-to none (the default) leaves the ranks every cpu we have
for opt in "--bind-to none" ""; do
	# shellcheck disable=SC2086 # opt is two words or none
	timeout 30 "$MPIRUN" $opt --report-bindings -n 2 sh -c "$SHOW" >"$WORK/out" 2>"$WORK/err" ||
		fail "mpirun $opt: $(cat "$WORK/err")"
	for r in 0 1; do
		grep -qx "aff $r $MINE" "$WORK/out" || fail "$opt: rank $r: $(cat "$WORK/out"), want $MINE"
		grep -q "^\[.*\] rank $r not bound (cpus $MINE)\$" "$WORK/err" ||
			fail "$opt: report of rank $r: $(cat "$WORK/err")"
	done
done

if ! timeout 30 "$MPIRUN" --bind-to core -n 1 true 2>"$WORK/err"; then
	grep -q "needs hwloc" "$WORK/err" || fail "--bind-to core: $(cat "$WORK/err")"
	skip "built without hwloc: --bind-to core is refused, as it should be"
fi

# checks one run's report against what the ranks saw: $1 ranks, $2 level
check_bound() {
	[ "$(grep -c '^aff ' "$WORK/out")" = "$1" ] || fail "$2 -n $1: output $(cat "$WORK/out")"
	[ "$(grep -c " bound to $2 " "$WORK/err")" = "$1" ] || fail "$2 -n $1: report $(cat "$WORK/err")"
	# m: the objects the ranks went round; rank r must be on object r mod m
	m=$(sed -n "s/.* bound to $2 \([0-9]*\) .*/\1/p" "$WORK/err" | sort -u | wc -l)
	r=0
	while [ $r -lt "$1" ]; do
		line=$(grep "^\[.*\] rank $r bound to $2 " "$WORK/err") ||
			fail "$2 -n $1: no report for rank $r: $(cat "$WORK/err")"
		obj=$(echo "$line" | sed -n "s/.* bound to $2 \([0-9]*\) (cpus \(.*\))\$/\1/p")
		cpus=$(echo "$line" | sed -n "s/.* bound to $2 \([0-9]*\) (cpus \(.*\))\$/\2/p")
		[ "$obj" = $((r % m)) ] || fail "$2 -n $1: rank $r on $2 $obj, want $((r % m))"
		grep -qx "aff $r $cpus" "$WORK/out" ||
			fail "$2 -n $1: rank $r reported on cpus $cpus, runs on $(grep "^aff $r " "$WORK/out")"
		r=$((r + 1))
	done
}

for n in 2 4; do
	timeout 30 "$MPIRUN" --bind-to core --report-bindings -n $n sh -c "$SHOW" \
		>"$WORK/out" 2>"$WORK/err" || fail "--bind-to core -n $n: $(cat "$WORK/err")"
	check_bound $n core
done
# a core holds one or a few hwthreads, never more cpus than a socket
grep -q "bound to core 0 (cpus [0-9,-]*)" "$WORK/err" || fail "core report: $(cat "$WORK/err")"

# the variable, the MPICH spelling and other levels
MICHI_BIND_TO=core MICHI_REPORT_BINDINGS=1 timeout 30 "$MPIRUN" -n 2 sh -c "$SHOW" \
	>"$WORK/out" 2>"$WORK/err" || fail "MICHI_BIND_TO=core: $(cat "$WORK/err")"
check_bound 2 core
timeout 30 "$MPIRUN" -bind-to hwthread -report-bindings -n 3 sh -c "$SHOW" \
	>"$WORK/out" 2>"$WORK/err" || fail "-bind-to hwthread: $(cat "$WORK/err")"
check_bound 3 hwthread
for lv in socket numa; do
	timeout 30 "$MPIRUN" --bind-to $lv --report-bindings -n 2 sh -c "$SHOW" \
		>"$WORK/out" 2>"$WORK/err" || fail "--bind-to $lv: $(cat "$WORK/err")"
	check_bound 2 $lv
done
# two "hosts" here: each proxy binds its own ranks from its first core
timeout 30 "$MPIRUN" --launcher fork --host ha,hb --bind-to core --report-bindings -n 4 \
	sh -c "$SHOW" >"$WORK/out" 2>"$WORK/err" || fail "two hosts: $(cat "$WORK/err")"
grep -q '^\[ha\] rank 0 bound to core 0 ' "$WORK/err" && grep -q '^\[hb\] rank 2 bound to core 0 ' "$WORK/err" ||
	fail "two hosts: $(cat "$WORK/err")"

# an MPI-level rank bound by the launcher: the PMI test program runs bound
timeout 30 "$MPIRUN" --bind-to core -n 2 "$PROG" >"$WORK/out" 2>"$WORK/err" ||
	fail "bound PMI ranks: $(cat "$WORK/err")"
exit 0
