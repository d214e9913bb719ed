# SPDX-License-Identifier: MIT
# test/net/grid_common.sh: sourced by the tests that run MPI programs on the
# emulated grid (test/net/grid, test/net/grid-mpi). Takes the launcher
# tests' setup (test/launch/common.sh: mpirun, fail/skip, a work dir),
# skips (77) where the grid cannot be made (not root, no namespaces, no
# link emulator) or an MPI is missing (GRID_PEERS=0: a test of Michi alone,
# without MPICH and Open MPI), builds test/net/gridprog.c with each
# MPI's compiler as $WORK/<uniq>.michi, .mpich, .openmpi (a unique name, so
# pgrep finds every rank of this test), and gives this run its own grid
# instance (MICHI_GRID_PREFIX gt<pid>), removed by a trap whatever happens.
#
# grid_up SPEC [VAR=VAL...]  brings it up (skips on 77; `up` sets
#                            net.ipv4.tcp_slow_start_after_idle=0 on every host,
#                            so a ping-pong that idles between messages times
#                            the path, not slow start), and records its
#                            namespaces' inodes for grid_leftovers
# grid_down                  test/net/grid down, then grid_leftovers must be empty
# grid_leftovers             what of this instance is left: namespaces (by
#                            name, and processes still in them by inode),
#                            the root's link, mounts, state, /etc/netns,
#                            processes of this test
# wan_bytes LINK DIR         bytes the emulator carried on LINK in DIR (ab, ba)
# rails_mpirun OUT ARGS...   Michi's mpirun on the grid's hosts with data on
#                            eth0 and eth1 (MICHI_TCP_IF), 150 s at most,
#                            stdout in OUT, stderr in OUT.err
# nic_rx_bytes HOST IF       bytes HOST's interface IF received so far
# run_mpi OUT MPI ARGS...    test/net/grid-mpi MPI --run ARGS with a time
#                            limit (120 s), stdout in OUT, stderr in OUT.err;
#                            MPICH_HUNG counts MPICH jobs stopped after their
#                            results (see there)
. "$(dirname "$0")/../launch/common.sh"

NET=$(cd "$(dirname "$0")" && pwd)
GRID=$NET/grid
GRID_MPI=$NET/grid-mpi
export MICHI_GRID_PREFIX=gt$$
GRID_STATE=/run/michi-grid/$MICHI_GRID_PREFIX
unset MICHI_GRID_DIR

grid_cleanup() {
	"$GRID" down >/dev/null 2>&1
	cleanup
}
trap grid_cleanup EXIT
trap 'exit 130' INT TERM HUP

[ "$(id -u)" -eq 0 ] || skip "the grid needs root (network namespaces, TAP devices)"
for t in python3 ip unshare nsenter; do
	command -v $t >/dev/null 2>&1 || skip "$t is missing"
done
# the link emulator of this build tree
if [ -z "${MICHI_LINKEMU:-}" ] && [ -x "$top_builddir/test/net/linkemu" ]; then
	MICHI_LINKEMU=$(cd "$top_builddir/test/net" && pwd)/linkemu
	export MICHI_LINKEMU
fi
# GRID_PEERS=0: a test of Michi alone, which needs neither
if [ "${GRID_PEERS:-1}" = 1 ]; then
	for t in mpiexec.mpich mpicc.mpich mpirun.openmpi mpicc.openmpi; do
		command -v $t >/dev/null 2>&1 ||
			skip "$t is missing (Debian's mpich and openmpi-bin, libopenmpi-dev: scripts/install-deps)"
	done
fi

# each MPI's build of the program, under one unique name
PROGSRC=$NET/gridprog.c
PROG=$WORK/$UNIQ
build_prog "$PROG.michi" "$PROGSRC"
if [ "${GRID_PEERS:-1}" = 1 ]; then
	mpicc.mpich -o "$PROG.mpich" "$PROGSRC" 2>"$WORK/err" || fail "mpicc.mpich: $(cat "$WORK/err")"
	mpicc.openmpi -o "$PROG.openmpi" "$PROGSRC" 2>"$WORK/err" || fail "mpicc.openmpi: $(cat "$WORK/err")"
fi
MICHI_MPIRUN=$(cd "$(dirname "$MPIRUN")" && pwd)/$(basename "$MPIRUN")
export MICHI_MPIRUN

GRID_INODES=
grid_up() {
	"$GRID" up "$@" >"$WORK/up.out" 2>"$WORK/up.err"
	rc=$?
	[ $rc -eq 77 ] && skip "grid up $*: $(cat "$WORK/up.err")"
	[ $rc -eq 0 ] || fail "grid up $*: exit $rc: $(cat "$WORK/up.err")"
	HOSTS=$("$GRID" hosts | cut -d' ' -f1 | tr '\n' ' ')
	[ -n "$HOSTS" ] || fail "grid up $*: no hosts"
	GRID_INODES=$(for n in /run/netns/"$MICHI_GRID_PREFIX"-*; do stat -L -c %i "$n"; done | tr '\n' ' ')
}

grid_leftovers() {
	ip netns list 2>/dev/null | grep "^$MICHI_GRID_PREFIX-" | sed 's/^/namespace /'
	ip link show "$MICHI_GRID_PREFIX-mgmt" >/dev/null 2>&1 && echo "link $MICHI_GRID_PREFIX-mgmt"
	grep -F " $GRID_STATE" /proc/self/mountinfo | awk '{print "mount " $5}'
	[ -e "$GRID_STATE" ] && echo "state $GRID_STATE"
	ls -d /etc/netns/"$MICHI_GRID_PREFIX"-* 2>/dev/null | sed 's/^/etc /'
	# a process keeps a deleted namespace alive: look for one by inode
	for p in /proc/[0-9]*; do
		i=$(stat -L -c %i "$p/ns/net" 2>/dev/null) || continue
		case " $GRID_INODES " in *" $i "*) echo "process ${p#/proc/} in a grid namespace: $(tr '\0' ' ' <"$p/cmdline")" ;; esac
	done
	for p in $(pgrep -f "$WORK/"); do echo "process $p: $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)"; done
	for p in $(pgrep -f "$GRID_STATE/"); do echo "process $p: $(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null)"; done
	return 0
}

grid_down() {
	"$GRID" down >"$WORK/down.out" 2>&1 || fail "grid down: $(cat "$WORK/down.out")"
	i=0
	while [ -n "$(grid_leftovers)" ] && [ $i -lt 30 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	left=$(grid_leftovers)
	[ -z "$left" ] || fail "left after grid down: $left"
}

wan_bytes() {
	"$GRID" stats "$1" | awk -F, -v d="$2" 'NR > 1 && $3 == d { print $4 }'
}

run_mpi() {
	out=$1 mpi=$2
	shift 2
	"$GRID_MPI" "$mpi" --run "$@" >"$out" 2>"$out.err" &
	pid=$!
	t=0 done_t=
	while kill -0 $pid 2>/dev/null; do
		# MPICH 4.0.2 over UCX 1.13's tcp (Debian's) hangs now and then in
		# MPI_Finalize: one rank spins in ucp_worker_progress closing an
		# endpoint while its peers wait in the PMI barrier, with or without
		# a WAN, 2 to 8 hosts. Its results are in by then: 5 s after the
		# program's last line the job is stopped and the hang counted
		if [ "$mpi" = mpich ] && grep -q '^gridprog \(ring ok\|pingpong\) ' "$out"; then
			done_t=${done_t:-$t}
			if [ $((t - done_t)) -ge 50 ]; then
				kill -INT $pid 2>/dev/null
				sleep 1
				kill -KILL $pid 2>/dev/null
				wait $pid
				MPICH_HUNG=$((MPICH_HUNG + 1))
				echo "note: mpich hung in MPI_Finalize after its results (known MPICH 4.0.2/UCX 1.13 tcp problem); stopped"
				return 0
			fi
		fi
		t=$((t + 1))
		if [ $t -ge 1200 ]; then
			kill -TERM $pid 2>/dev/null
			sleep 1
			kill -KILL $pid 2>/dev/null
			wait $pid
			return 124
		fi
		sleep 0.1
	done
	wait $pid
}
MPICH_HUNG=0

rails_mpirun() {
	out=$1
	shift
	timeout 180 "$MICHI_MPIRUN" --timeout 150 --launcher exec --launcher-exec "$GRID exec {host}" \
		-genv MICHI_TCP_IF eth0,eth1 "$@" >"$out" 2>"$out.err"
}

nic_rx_bytes() {
	"$GRID" exec "$1" ip -j -s link show dev "$2" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["bytes"])'
}
