#!/bin/sh
# SPDX-License-Identifier: MIT
# Rails (devices/tcp/tcp_stripe.c) on the emulated grid `multirail`
# (test/net/grid: paper B's two data networks, Switch-0 and Switch-1, NICs
# of 100 Mb/s; host A on both, the clients per configuration). Michi alone,
# data on eth0 and eth1 (MICHI_TCP_IF), one rank a host, rank i on the
# i-th host named.
#  b: A and B both dual. 4 MiB messages from B to A are striped over both
#     networks: B's log names its two rails, A's two NICs each take at
#     least a fifth of the bytes (the feedback rule), with round-robin
#     each 40-60%; the last message is checked word by word. A stream of
#     mixed sizes, eight in flight, from 8 B to 4 MiB, comes in whole and
#     in order. With MICHI_TCP_STRIPE_MIN=0 nothing is striped: no rail
#     connection, Network-1 carries (almost) nothing. MPTCP mode
#     (MICHI_TCP_MPTCP=1, the grid's hosts with MPTCP endpoints, the
#     ranks' cards on Network-0 only): the kernel's subflows carry a
#     tenth or more on each NIC, every word checked (skipped where the
#     kernel has no MPTCP).
#  b with delay1=30ms (Network-1, the rail connection's rail, 30 ms each
#    way and nothing lost): a rail that only delays. A stream of mixed
#    sizes comes in whole and in order, with no connection taken for lost
#    (60 ms round trips against the 0.3 s stall timeout, with
#    heartbeats), and both NICs of A carry a part of it.
#  d: A dual, B single (Network-0), C dual: B and C stream to A at once,
#     A receiving with MPI_ANY_SOURCE and MPI_ANY_TAG; B has one rail to A
#     (two connections on it), C two; every message whole, in order.
# Times are printed, never judged (bench/rails.sh measures). At the end
# `grid down` leaves nothing. Root only; skips (77) as grid_common.sh says.
GRID_PEERS=0
. "$(dirname "$0")/grid_common.sh"

RPROG=$WORK/rails_$UNIQ
build_prog "$RPROG" "$NET/railprog.c"

# share A_IF0_BEFORE A_IF1_BEFORE: percent of A's received bytes on eth0, eth1
shares() {
	d0=$(($(nic_rx_bytes A eth0) - $1)) d1=$(($(nic_rx_bytes A eth1) - $2))
	echo "$((d0 * 100 / (d0 + d1 + 1))) $((d1 * 100 / (d0 + d1 + 1))) $((d0 + d1))"
}

# ---- b: both dual --------------------------------------------------------
grid_up multirail cfg=b mptcp=on
BW="bw 4194304 6"
for rule in feedback round-robin; do
	a0=$(nic_rx_bytes A eth0) a1=$(nic_rx_bytes A eth1)
	rails_mpirun "$WORK/b_$rule" -genv MICHI_LOG info -genv MICHI_TCP_RAIL_WEIGHTS $rule \
		--host A,B -n 2 "$RPROG" $BW || fail "b, $rule: exit $?: $(tail -5 "$WORK/b_$rule.err")"
	line=$(grep '^railprog bw ' "$WORK/b_$rule") || fail "b, $rule: $(cat "$WORK/b_$rule" "$WORK/b_$rule.err")"
	grep -q "rank 1 has 2 rails to rank 0, 1 connection each: 10\.80\.[0-9.]* -> 10\.80\.[0-9.]*.*, 10\.81\.[0-9.]* -> 10\.81\.[0-9.]*" \
		"$WORK/b_$rule.err" || fail "b, $rule: rank 1 does not name two rails: $(grep rail "$WORK/b_$rule.err")"
	set -- $(shares "$a0" "$a1")
	[ "$3" -ge $((4 * 4194304 * 6)) ] || fail "b, $rule: A's NICs took $3 bytes"
	case $rule in
	feedback) [ "$1" -ge 20 ] && [ "$2" -ge 20 ] ||
		fail "b, feedback: A's eth0 took $1%, eth1 $2% (each at least 20%)" ;;
	*) [ "$1" -ge 40 ] && [ "$1" -le 60 ] ||
		fail "b, round-robin: A's eth0 took $1%, eth1 $2% (40-60% each)" ;;
	esac
	echo "b, $rule: ${line#railprog bw } (bytes s Mb/s); A's eth0 $1%, eth1 $2%"
done

rails_mpirun "$WORK/b_stream" --host A,B -n 2 "$RPROG" stream 4 ||
	fail "b, stream: exit $?: $(tail -5 "$WORK/b_stream.err")"
grep -q '^railprog stream ok ' "$WORK/b_stream" || fail "b, stream: $(cat "$WORK/b_stream" "$WORK/b_stream.err")"
echo "b, stream: $(grep '^railprog stream ok ' "$WORK/b_stream")"

a0=$(nic_rx_bytes A eth0) a1=$(nic_rx_bytes A eth1)
rails_mpirun "$WORK/b_off" -genv MICHI_LOG debug -genv MICHI_TCP_STRIPE_MIN 0 --host A,B -n 2 "$RPROG" $BW ||
	fail "b, striping off: exit $?: $(tail -5 "$WORK/b_off.err")"
# the pair still knows its rails (for failover), but opens no rail connection
! grep -q "has rail connection" "$WORK/b_off.err" ||
	fail "b, striping off: $(grep "rail connection" "$WORK/b_off.err")"
set -- $(shares "$a0" "$a1")
[ "$2" -le 2 ] || fail "b, striping off: A's eth1 took $2% of the bytes"
echo "b, striping off: $(grep '^railprog bw ' "$WORK/b_off" | cut -d' ' -f3-); A's eth1 $2%"

a0=$(nic_rx_bytes A eth0) a1=$(nic_rx_bytes A eth1)
timeout 180 "$MICHI_MPIRUN" --timeout 150 --launcher exec --launcher-exec "$GRID exec {host}" \
	-genv MICHI_TCP_IF eth0 -genv MICHI_TCP_MPTCP 1 --host A,B -n 2 "$RPROG" $BW \
	>"$WORK/b_mptcp" 2>"$WORK/b_mptcp.err" || fail "b, MPTCP: exit $?: $(tail -5 "$WORK/b_mptcp.err")"
if grep -q "no MPTCP socket" "$WORK/b_mptcp.err"; then
	echo "b, MPTCP: skipped: $(grep -m1 'no MPTCP socket' "$WORK/b_mptcp.err")"
else
	set -- $(shares "$a0" "$a1")
	[ "$1" -ge 10 ] && [ "$2" -ge 10 ] || fail "b, MPTCP: A's eth0 took $1%, eth1 $2% (each at least 10%)"
	echo "b, MPTCP: $(grep '^railprog bw ' "$WORK/b_mptcp" | cut -d' ' -f3-); A's eth0 $1%, eth1 $2%"
fi
grid_down

# ---- b, Network-1 delaying ----------------------------------------------
grid_up multirail cfg=b delay1=30ms
a0=$(nic_rx_bytes A eth0) a1=$(nic_rx_bytes A eth1)
rails_mpirun "$WORK/b_delay" -genv MICHI_LOG info --host A,B -n 2 "$RPROG" stream 8 ||
	fail "b, Network-1 delaying: exit $?: $(tail -5 "$WORK/b_delay.err")"
grep -q '^railprog stream ok ' "$WORK/b_delay" ||
	fail "b, Network-1 delaying: $(cat "$WORK/b_delay" "$WORK/b_delay.err")"
! grep -q " lost " "$WORK/b_delay.err" ||
	fail "b, Network-1 delaying: a connection taken for lost: $(grep ' lost ' "$WORK/b_delay.err")"
set -- $(shares "$a0" "$a1")
[ "$1" -ge 5 ] && [ "$2" -ge 5 ] || fail "b, Network-1 delaying: A's eth0 took $1%, eth1 $2%"
echo "b, Network-1 delaying: $(grep '^railprog stream ok ' "$WORK/b_delay"); A's eth0 $1%, eth1 $2%"
grid_down

# ---- d: A dual, B single, C dual ----------------------------------------
grid_up multirail cfg=d
rails_mpirun "$WORK/d" -genv MICHI_LOG info --host A,B,C -n 3 "$RPROG" stream 6 ||
	fail "d: exit $?: $(tail -5 "$WORK/d.err")"
grep -q '^railprog stream ok ' "$WORK/d" || fail "d: $(cat "$WORK/d" "$WORK/d.err")"
grep -q "rank 1 has 1 rail to rank 0, 2 connections each: 10\.80\." "$WORK/d.err" ||
	fail "d: B's rails to A: $(grep rail "$WORK/d.err")"
grep -q "rank 2 has 2 rails to rank 0, 1 connection each" "$WORK/d.err" ||
	fail "d: C's rails to A: $(grep rail "$WORK/d.err")"
echo "d: $(grep '^railprog stream ok ' "$WORK/d")"
grid_down
exit 0
