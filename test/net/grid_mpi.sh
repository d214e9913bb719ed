#!/bin/sh
# SPDX-License-Identifier: MIT
# Michi, MPICH and Open MPI on the emulated grid `two-sites` (test/net/grid:
# 2 sites of 4 hosts, 100 Mb/s NICs, one 100 Mb/s WAN path with 5 ms one
# way), each started by test/net/grid-mpi the same way: a ring over all 8
# hosts and a ping-pong between the first host of each site. Every rank
# reports its host's name as its processor name (8 distinct names, rank i
# on the i-th host), the ring's sums are right, and the emulator's counters
# show the WAN path carried at least what crossed the sites in each
# direction (no MPI took a shortcut through shared memory between hosts).
# Then, on `two-sites lanes=none` (one flow may fill the WAN path), a
# 4 MiB ping-pong between the sites under Michi takes what the path
# predicts within 10%: both messages serialized at the WAN rate (TCP/IP
# and Ethernet headers counted, as the emulator counts frames) plus the
# round trip, 2 x delay (Michi's rendezvous handshake for a message this
# large adds one more round trip a message, 2.8% here, within the margin).
# The fastest of 8 round trips is compared: the
# machine is shared, and a late round trip measures the load, not the path.
# Under `make check` other tests run beside this one (a 1 Gbit/s emulator
# check among them), so the test fails only outside -10%..+50% (faster
# than the path allows, or a path gone wrong: slow start, a detour); with
# GRID_MPI_STRICT=1, on a quiet machine, it holds the issue's 10%: that
# run is the figure (bench/results/*-grid-pingpong), as timed claims are
# benchmarks, not tests.
# At the end `grid down` leaves nothing. Root only; skips (77) without
# namespaces, the link emulator, MPICH or Open MPI.
. "$(dirname "$0")/grid_common.sh"

grid_up two-sites
N=$(echo $HOSTS | wc -w)
# the first host of each of the two sites
HA=$("$GRID" hosts | awk 'NR == 1 { print $1 }')
SA=$("$GRID" hosts | awk 'NR == 1 { print $2 }')
HB=$("$GRID" hosts | awk -v s="$SA" '$2 != s { print $1; exit }')
[ -n "$HB" ] || fail "two-sites has one site only: $("$GRID" hosts)"

RING=262144 ROUNDS=2 PP=1048576 ITERS=3
for mpi in michi mpich openmpi; do
	ab0=$(wan_bytes wan ab) ba0=$(wan_bytes wan ba)
	[ -n "$ab0" ] && [ -n "$ba0" ] || fail "no counters of the WAN path: $("$GRID" stats wan 2>&1)"
	run_mpi "$WORK/ring.$mpi" $mpi "$PROG.{mpi}" ring $RING $ROUNDS ||
		fail "$mpi ring: exit $?: $(tail -5 "$WORK/ring.$mpi.err")"
	grep -qx "gridprog ring ok $N $RING $ROUNDS" "$WORK/ring.$mpi" ||
		fail "$mpi ring: $(cat "$WORK/ring.$mpi" "$WORK/ring.$mpi.err")"
	r=0
	for h in $HOSTS; do
		grep -qx "gridprog rank $r of $N on $h" "$WORK/ring.$mpi" ||
			fail "$mpi: rank $r is not named $h: $(grep "^gridprog rank $r " "$WORK/ring.$mpi")"
		r=$((r + 1))
	done
	run_mpi "$WORK/pp.$mpi" $mpi --hosts "$HA,$HB" "$PROG.{mpi}" pingpong $PP $ITERS ||
		fail "$mpi ping-pong: exit $?: $(tail -5 "$WORK/pp.$mpi.err")"
	grep -qx "gridprog rank 0 of 2 on $HA" "$WORK/pp.$mpi" && grep -qx "gridprog rank 1 of 2 on $HB" "$WORK/pp.$mpi" ||
		fail "$mpi ping-pong not on $HA and $HB: $(cat "$WORK/pp.$mpi")"
	pp=$(sed -n "s/^gridprog pingpong $PP $ITERS //p" "$WORK/pp.$mpi")
	[ -n "$pp" ] || fail "$mpi ping-pong: $(cat "$WORK/pp.$mpi" "$WORK/pp.$mpi.err")"
	# each direction: the ring crosses once a round, the ping-pong once an
	# exchange (one untimed)
	need=$((ROUNDS * RING + (ITERS + 1) * PP))
	ab=$(($(wan_bytes wan ab) - ab0)) ba=$(($(wan_bytes wan ba) - ba0))
	[ $ab -ge $need ] && [ $ba -ge $need ] ||
		fail "$mpi: the WAN path carried $ab and $ba bytes (ab, ba), not at least $need each"
	echo "$mpi: ring over $N hosts and ping-pong $HA-$HB ok, distinct names; WAN carried $ab/$ba bytes (>= $need); $PP B round trip min/median $pp s"
done
grid_down

# the 4 MiB ping-pong against the path's prediction
grid_up two-sites lanes=none
M=4194304
delay=$("$GRID" vars | sed -n 's/^delay=//p')
rate=$("$GRID" vars | sed -n 's/^wan=//p')
mtu=$("$GRID" exec "$HA" cat /sys/class/net/eth0/mtu)
ts=$("$GRID" exec "$HA" sysctl -n net.ipv4.tcp_timestamps)
run_mpi "$WORK/pp4" michi --hosts "$HA,$HB" "$PROG.{mpi}" pingpong $M 8 ||
	fail "michi 4 MiB ping-pong: exit $?: $(tail -5 "$WORK/pp4.err")"
t=$(sed -n "s/^gridprog pingpong $M 8 \([0-9.]*\) .*/\1/p" "$WORK/pp4")
[ -n "$t" ] || fail "michi 4 MiB ping-pong: $(cat "$WORK/pp4" "$WORK/pp4.err")"
if [ "${GRID_MPI_STRICT:-0}" = 1 ]; then HI_PCT=10; else HI_PCT=50; fi
awk -v m=$M -v t="$t" -v d="$delay" -v r="$rate" -v mtu="$mtu" -v ts="$ts" \
	-v hi="0.$(printf %02d $HI_PCT)" 'BEGIN {
	# delay: 5ms, 250us, 1500ns, 1s; rate: 100mbit, 1gbit, 64kbit, bit
	dn = d + 0; du = d; sub(/^[0-9.]+/, "", du)
	ds = du == "ms" ? dn / 1e3 : du == "us" ? dn / 1e6 : du == "ns" ? dn / 1e9 : dn
	rn = r + 0; ru = tolower(r); sub(/^[0-9.]+/, "", ru)
	bps = ru == "gbit" ? rn * 1e9 : ru == "mbit" ? rn * 1e6 : ru == "kbit" ? rn * 1e3 : rn
	if (ds <= 0 || bps <= 0) { printf "cannot read delay %s or rate %s\n", d, r; exit 1 }
	# a frame: Ethernet 14 + IP 20 + TCP 20 (+12 of timestamps) + payload
	hdr = 40 + (ts == 1 ? 12 : 0); mss = mtu - hdr
	frames = int((m + mss - 1) / mss)
	ser = (m + frames * (hdr + 14)) * 8 / bps
	pred = 2 * ser + 2 * ds
	dev = (t - pred) / pred
	printf "michi 4 MiB ping-pong between sites: %.4f s per round trip, predicted %.4f s (2 x %.4f s serialization at %s + 2 x %s), %+.1f%%\n", t, pred, ser, r, d, dev * 100
	exit (dev < -0.10 || dev > hi) ? 2 : 0
}' || fail "the 4 MiB ping-pong is not within -10%..+$HI_PCT% of the path's prediction"
grid_down
[ "$MPICH_HUNG" -eq 0 ] || echo "note: $MPICH_HUNG MPICH job(s) hung in MPI_Finalize after their results"
exit 0
