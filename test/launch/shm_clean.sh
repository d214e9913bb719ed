#!/bin/sh
# SPDX-License-Identifier: MIT
# No shared-memory segment outlives a job (issue 3). A 4-rank MPI program
# (shm_clean_prog.c, compiled here against the build tree) ends by a normal
# exit, MPI_Abort, a rank killed by SIGKILL (after its traffic, right after
# MPI_Init, and before MPI_Init while the others wait inside it), or mpirun
# itself killed by SIGKILL (ranks running, and ranks inside MPI_Init).
# After each, within a 3 s grace, no /dev/shm/michi-* entry made during the
# run may be left (entries that a live process maps belong to another job
# and are ignored) and no process of the job's session may remain; every
# segment a rank saw mapped must have mode 0600. Over tcp there are no
# segments, and only the processes and the exit codes are checked.
. "$(dirname "$0")/common.sh"

[ -d /dev/shm ] && [ -w /dev/shm ] || skip "/dev/shm is missing or not writable"
command -v setsid >/dev/null || skip "setsid(1) is missing"
command -v ps >/dev/null || skip "ps(1) is missing"

SRC=$(dirname "$0")/shm_clean_prog.c
EXE=$WORK/${UNIQ}_prog
FAKE=/dev/shm/michi-selftest-$$
trap 'rm -f "$FAKE"; cleanup' EXIT

# MICHI_MPICC builds against an installed Michi; by default the program
# links the build tree's library, the one this mpirun belongs to.
if [ -n "${MICHI_MPICC:-}" ]; then
	$MICHI_MPICC -o "$EXE" "$SRC" 2>"$WORK/err" || fail "cannot build: $(cat "$WORK/err")"
else
	: "${top_srcdir:=$(dirname "$0")/../..}"
	[ -e "$top_builddir/.libs/libmpi.so" ] || fail "no libmpi.so in $top_builddir/.libs"
	LIBDIR=$(cd "$top_builddir/.libs" && pwd)
	${CC:-cc} -I"$top_srcdir/mpi/include" -o "$EXE" "$SRC" -L"$LIBDIR" \
		-Wl,-rpath,"$LIBDIR" -lmpi 2>"$WORK/err" || fail "cannot build: $(cat "$WORK/err")"
fi

shm_list() { ls -1A /dev/shm 2>/dev/null | grep '^michi-' | LC_ALL=C sort; }

# michi-* entries made since the snapshot that no live process maps
shm_new() {
	shm_list >"$WORK/shm.now"
	LC_ALL=C comm -13 "$WORK/shm.before" "$WORK/shm.now" | while read -r n; do
		grep -Eqs "/dev/shm/$n( |\$)" /proc/[0-9]*/maps && continue
		echo "$n"
	done
}

# Starts mpirun in a session of its own, whose id is mpirun's pid (PID),
# so that every process of the job can be found; the exit status lands
# in $WORK/job.rc.
start_job() {
	rm -f "$WORK/job.pid" "$WORK/job.rc"
	shm_list >"$WORK/shm.before"
	(
		sh -c 'echo $$ >"$0.pid"; exec setsid -w "$@"' "$WORK/job" \
			"$MPIRUN" -n 4 "$EXE" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
		echo $? >"$WORK/job.rc"
	) &
	i=0
	until [ -s "$WORK/job.pid" ] && p=$(cat "$WORK/job.pid") &&
		[ "$(ps -o sid= -p "$p" | tr -d ' ')" = "$p" ]; do
		[ -s "$WORK/job.rc" ] && break
		i=$((i + 1))
		[ $i -gt 100 ] && fail "$*: mpirun did not start in a session of its own"
		sleep 0.05
	done
	PID=$(cat "$WORK/job.pid")
}

kill_session() {
	for p in $(pgrep -s "$PID"); do kill -KILL "$p" 2>/dev/null; done
}

# waits at most $1 s for mpirun to end; sets RC
wait_job() {
	i=0
	while [ ! -s "$WORK/job.rc" ]; do
		i=$((i + 1))
		if [ $i -gt $(($1 * 10)) ]; then
			kill_session
			fail "$CASE: job did not end within $1 s: $(cat "$WORK/err")"
		fi
		sleep 0.1
	done
	RC=$(cat "$WORK/job.rc")
}

# waits at most $2 s until the job's output has $1 lines matching $3
wait_lines() {
	i=0
	while [ "$(cat "$WORK/out" 2>/dev/null | grep -c "$3")" -lt "$1" ]; do
		i=$((i + 1))
		if [ $i -gt $(($2 * 10)) ] || [ -s "$WORK/job.rc" ]; then
			kill_session
			fail "$CASE: no $1 lines '$3' within $2 s: $(cat "$WORK/out" "$WORK/err")"
		fi
		sleep 0.1
	done
}

NSEG=0
# After a job: nothing of it may remain once a 3 s grace has passed.
check_clean() {
	i=0
	while :; do
		procs=$(pgrep -s "$PID" | tr '\n' ' ')
		left=$(shm_new | tr '\n' ' ')
		[ -z "$procs" ] && [ -z "$left" ] && break
		i=$((i + 1))
		if [ $i -gt 30 ]; then
			[ -z "$procs" ] || {
				ps -o pid=,args= -s "$PID" >"$WORK/ps"
				kill_session
				fail "$CASE: processes of the job left after 3 s: $(cat "$WORK/ps")"
			}
			fail "$CASE: left in /dev/shm after 3 s: $left"
		fi
		sleep 0.1
	done
	bad=$(grep '^segment ' "$WORK/out" | grep -v ' mode 600 ')
	[ -z "$bad" ] || fail "$CASE: segment not private (mode 0600): $bad"
	NSEG=$((NSEG + $(grep -c '^segment ' "$WORK/out")))
}

# expects exit status $1 (or any but 0 for "nonzero") from a job that
# ends by itself
run_case() {
	want=$1
	shift
	CASE="$*"
	start_job "$@"
	wait_job 60
	if [ "$want" = nonzero ]; then
		[ "$RC" -ne 0 ] || fail "$CASE: expected a failure, got exit 0"
	else
		[ "$RC" -eq "$want" ] ||
			fail "$CASE: expected exit $want, got $RC: $(cat "$WORK/err")"
	fi
	check_clean
}

# The check must be able to fire: an unmapped michi-* entry made after the
# snapshot is reported.
CASE=selftest
shm_list >"$WORK/shm.before"
: >"$FAKE" || skip "cannot create $FAKE"
[ "$(shm_new)" = "michi-selftest-$$" ] || fail "selftest: the leftover check missed $FAKE"
rm -f "$FAKE"
[ -z "$(shm_new)" ] || fail "selftest: the leftover check reports entries nobody made"

run_case 0 normal
[ "$(grep -c '^done [0-3]$' "$WORK/out")" -eq 4 ] ||
	fail "normal: not 4 ranks done: $(cat "$WORK/out")"
run_case 7 abort 1
# A dead rank may be seen by a peer (which then aborts) before the
# launcher reaps it, so the exit status is only known to be non-zero.
run_case nonzero kill 2
# Right after MPI_Init the others may still be attaching: the name must
# go anyway. A race, so three tries with different victims.
run_case nonzero kill-early 2
run_case nonzero kill-early 0
run_case nonzero kill-early 3
run_case nonzero kill-init 2

# mpirun killed while the ranks run
CASE="mpirun killed"
start_job sleep
wait_lines 4 30 '^ready '
kill -KILL "$PID"
wait_job 10
check_clean

# mpirun killed while rank 2 has not reached MPI_Init and the others wait
# in it, past the point where a segment is created (if one appears)
CASE="mpirun killed during MPI_Init"
start_job sleep-init 2
wait_lines 1 30 '^delaying 2$'
i=0
while [ $i -lt 15 ] && [ -z "$(shm_list | LC_ALL=C comm -13 "$WORK/shm.before" -)" ]; do
	i=$((i + 1))
	sleep 0.1
done
sleep 0.3
kill -KILL "$PID"
wait_job 10
check_clean

if [ $NSEG -gt 0 ]; then
	echo "all endings clean; $NSEG segment mappings seen, all mode 0600"
else
	echo "all endings clean; no rank mapped a segment (no shm device in use)"
fi
exit 0
