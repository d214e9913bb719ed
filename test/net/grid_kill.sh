#!/bin/sh
# SPDX-License-Identifier: MIT
# Killing things mid-run on the emulated grid leaves nothing once
# `test/net/grid down` has run. For each of Michi, MPICH and Open MPI and
# each of three victims (the launcher: mpirun or mpiexec; one rank; the
# link emulator), on a fresh `two-sites`: a long ring over all 8 hosts is
# started with test/net/grid-mpi, the victim gets SIGKILL once every rank
# has printed its name, then `grid down` must leave no namespace (and no
# process still inside one, found by the namespaces' inodes), no root link,
# mount, state directory, /etc/netns entry or process of this test, and
# the launcher must be gone within 15 s. Root only; skips (77) without
# namespaces, the link emulator, MPICH or Open MPI.
. "$(dirname "$0")/grid_common.sh"

# exe_pids EXE: pids whose executable is EXE (not the wrappers naming it)
exe_pids() {
	for p in $(pgrep -f "$1"); do
		[ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$1" ] && echo "$p"
	done
}

for mpi in michi mpich openmpi; do
	for victim in launcher rank emulator; do
		grid_up two-sites
		N=$(echo $HOSTS | wc -w)
		out=$WORK/kill.$mpi.$victim
		: >"$out"
		"$GRID_MPI" "$mpi" --run "$PROG.{mpi}" ring 65536 10000 >"$out" 2>"$out.err" &
		launcher=$!
		i=0
		until [ "$(grep -c '^gridprog rank ' "$out")" -eq "$N" ]; do
			i=$((i + 1))
			[ $i -gt 300 ] && fail "$mpi: not every rank started in 30 s: $(cat "$out" "$out.err")"
			kill -0 $launcher 2>/dev/null || fail "$mpi: the job ended early: $(cat "$out" "$out.err")"
			sleep 0.1
		done
		sleep 1
		case $victim in
		launcher) pid=$launcher ;;
		rank) pid=$(exe_pids "$PROG.$mpi" | head -n 1) ;;
		emulator) pid=$(pgrep -f "$GRID_STATE/" | while read -r p; do
			case $(readlink "/proc/$p/exe") in */linkemu) echo "$p" ;; esac
		done | head -n 1) ;;
		esac
		[ -n "$pid" ] || fail "$mpi: no $victim process to kill"
		kill -KILL "$pid" || fail "$mpi: cannot kill the $victim ($pid)"
		sleep 1
		grid_down
		i=0
		while kill -0 $launcher 2>/dev/null; do
			i=$((i + 1))
			if [ $i -gt 150 ]; then
				kill -KILL $launcher
				fail "$mpi: the launcher ($launcher) still runs 15 s after the $victim was killed and the grid removed"
			fi
			sleep 0.1
		done
		wait $launcher
		echo "$mpi: $victim killed mid-run (launcher exit $?), grid down left nothing"
	done
done
exit 0
