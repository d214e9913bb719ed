# SPDX-License-Identifier: MIT
# test/net/common.sh: sourced by the multi-host tests. Takes the launcher
# tests' setup (test/launch/common.sh: mpirun, fail/skip, a work dir),
# builds netcheck.c (against the build tree, or with $MICHI_MPICC), makes
# $NET_N test hosts (hosts.sh) and removes them from a trap, whatever happens.
# run_job OUT ARGS... runs mpirun with a time limit; check_netcheck OUT N
# HOST_OF_RANK... asserts each rank's host and that every rank of N found
# shm to its own host's peers and tcp to the others (netcheck checks that
# per peer; here the counts are checked too); check_cards OUT asserts
# each rank advertised only its own host's address; check_quiet asserts no
# process of the job is left, on the hosts or here.
. "$(dirname "$0")/../launch/common.sh"
. "$(dirname "$0")/hosts.sh"

trap 'net_down; cleanup' EXIT
trap 'exit 130' INT TERM HUP

SRC=$(dirname "$0")/netcheck.c
EXE=$WORK/${UNIQ}_netcheck
if [ -n "${MICHI_MPICC:-}" ]; then
	$MICHI_MPICC -o "$EXE" "$SRC" 2>"$WORK/err" || fail "cannot build: $(cat "$WORK/err")"
else
	: "${top_srcdir:=$(dirname "$0")/../..}"
	[ -e "$top_builddir/.libs/libmpi.so" ] || fail "no libmpi.so in $top_builddir/.libs"
	LIBDIR=$(cd "$top_builddir/.libs" && pwd)
	${CC:-cc} -I"$top_srcdir/mpi/include" -o "$EXE" "$SRC" -L"$LIBDIR" \
		-Wl,-rpath,"$LIBDIR" -lmpi 2>"$WORK/err" || fail "cannot build: $(cat "$WORK/err")"
fi
# the proxy runs on the test hosts by absolute path
MPIRUN=$(cd "$(dirname "$MPIRUN")" && pwd)/$(basename "$MPIRUN")

net_up "$NET_N"
rc=$?
[ $rc -eq 77 ] && skip "$NET_WHY"
[ $rc -eq 0 ] || fail "cannot make $NET_N test hosts: $NET_WHY"
set -- $NET_HOSTS
H1=$1 H2=$2 H3=${3:-} H4=${4:-}

# run_job OUT mpirun-args...: the job's stdout in OUT, stderr in OUT.err
run_job() {
	out=$1
	shift
	timeout 90 "$MPIRUN" --timeout 60 "$@" >"$out" 2>"$out.err"
}

# check_netcheck OUT N HOST... (the host of rank 0, 1, ...)
check_netcheck() {
	out=$1 n=$2
	shift 2
	[ "$(grep -c '^netcheck rank [0-9]* ok$' "$out")" -eq "$n" ] ||
		fail "not $n ranks ok: $(grep -v ' via ' "$out") $(cat "$out.err")"
	r=0
	for h in "$@"; do
		grep -qx "netcheck rank $r host $h" "$out" ||
			fail "rank $r is not on $h: $(grep "^netcheck rank $r host" "$out")"
		r=$((r + 1))
	done
	[ $r -eq "$n" ] || fail "check_netcheck: $r hosts given for $n ranks"
	for r in $(seq 0 $((n - 1))); do
		hr=$(sed -n "s/^netcheck rank $r host //p" "$out")
		same=$(grep -c "^netcheck rank [0-9]* host $hr\$" "$out")
		[ "$(grep -c "^netcheck rank $r peer .* via shm\$" "$out")" -eq $((same - 1)) ] ||
			fail "rank $r: not $((same - 1)) peers over shm"
		[ "$(grep -c "^netcheck rank $r peer .* via tcp\$" "$out")" -eq $((n - same)) ] ||
			fail "rank $r: not $((n - same)) peers over tcp"
	done
}

# check_cards OUT: with MICHI_LOG=debug each rank logs its tcp card, which
# must hold its own host's address (with its prefix length) and nothing
# else (no loopback).
check_cards() {
	[ "$(grep -c 'debug: tcp: rank [0-9]* card ' "$1.err")" -gt 0 ] || fail "no tcp cards logged"
	grep 'debug: tcp: rank [0-9]* card ' "$1.err" | while read -r line; do
		h=$(echo "$line" | sed -n 's/^\[rank [0-9]* on \([^]]*\)\].*/\1/p')
		card=${line##* card }
		i=${h##*-h}
		echo "$card" | grep -Eqx "$(net_addr "$i" | sed 's/\./\\./g')/[0-9]+:[0-9]+" ||
			{ echo "rank on $h advertises '$card', not $(net_addr "$i")/len:port"; exit 1; }
	done || fail "$(grep 'card' "$1.err" | head -3)"
}

# check_quiet [ALLOWED_PIDS]: within 3 s no process runs on a test host
# (but the pids given, sshd) and none of this test's programs here.
check_quiet() {
	i=0
	while :; do
		left=
		for h in $NET_HOSTS; do
			for p in $(net_pids "$h"); do
				case " $1 " in *" $p "*) ;; *) left="$left $p($(cat /proc/$p/comm 2>/dev/null))" ;; esac
			done
		done
		[ -z "$left" ] && gone "$UNIQ" 1 && return 0
		i=$((i + 1))
		[ $i -gt 30 ] && fail "processes left: ${left:-$(pgrep -af "$UNIQ")}"
		sleep 0.1
	done
}

# at the end: remove the hosts, and prove nothing of them is left
finish() {
	net_down
	left=$(net_leftovers)
	[ -z "$left" ] || fail "left after removing the test hosts: $left"
	gone "$UNIQ" 20 || fail "processes left: $(pgrep -af "$UNIQ")"
	exit 0
}
