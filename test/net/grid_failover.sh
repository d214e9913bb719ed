#!/bin/sh
# SPDX-License-Identifier: MIT
# Failover of the tcp device's rails (devices/tcp/tcp_resume.c) on the
# emulated grid `multirail` (test/net/grid). Michi alone, data on eth0 and
# eth1 (MICHI_TCP_IF), one rank a host. Cuts stop a switch port both ways
# and leave the host's carrier up, so a socket on a cut rail errs nothing:
# the device finds it by the missing acknowledgements.
#  b (A and B dual), while B streams to A (railprog stream: mixed sizes to
#    4 MiB, eight in flight, every message checked for loss, duplication,
#    order and content) and again while A and B ping-pong such messages
#    both ways (railprog pingpong), on one schedule:
#      4 s  B's Network-1 cut (its rail connection's rail)
#      8 s  restored: A's eth1 takes bytes again before 11.5 s
#     12 s  B's Network-0 cut (the main connection's rail)
#     16 s  restored
#     18-22 s  A's Network-1 flaps, half a second down, half up
#    Every message arrives; both logs name lost and resumed connections;
#    MPI_T counts failovers on both rails (railprog's RAILPROG_PVARS).
#  b, both of B's networks cut for 3 s: the stream waits and goes on.
#  b, idle rails: after a 4 MiB message each way, 10 s in MPI with nothing
#    to send (railprog quiet); 2 s in, B's Network-1 is cut for 2 s, then
#    Network-0 for 2 s, all restored before the next message: only the
#    heartbeats of idle connections (devices/tcp/tcp_resume.c) can find
#    the cuts, and both connections must be lost and resumed meanwhile.
#  b, A with MICHI_TCP_RAIL_FAILOVER=no and B with it on, B streaming to
#    A: the pair keeps no resilient streams (A would never acknowledge
#    and B's copy of what it sent would grow without end), so B's peak
#    memory stays under 100 MB while it streams 150 MB or more.
#  c (B and C dual) streaming to A at once, A receiving with MPI_ANY_SOURCE,
#    while A's Network-1 is cut and restored: both resume, nothing lost.
# Stalls are printed, never judged (bench/rails.sh --parts failover
# measures them). At the end `grid down` leaves nothing. Root only; skips
# (77) as grid_common.sh says.
GRID_PEERS=0
. "$(dirname "$0")/grid_common.sh"

RPROG=$WORK/failover_$UNIQ
build_prog "$RPROG" "$NET/railprog.c"

michi() {
	out=$1
	shift
	rails_mpirun "$out" -genv MICHI_SITE lab "$@"
}
# the schedule above, in the background; A's eth1 bytes while restored in OUT.rx
schedule() {
	(
		sleep 4; "$GRID" cut B:eth1
		sleep 4; "$GRID" restore B:eth1
		sleep 0.5; r0=$(nic_rx_bytes A eth1)
		sleep 3; echo $(($(nic_rx_bytes A eth1) - r0)) >"$1.rx"
		sleep 0.5; "$GRID" cut B:eth0
		sleep 4; "$GRID" restore B:eth0
		sleep 2
		for i in 1 2 3 4; do
			"$GRID" cut A:eth1; sleep 0.5; "$GRID" restore A:eth1; sleep 0.5
		done
	) >"$1.sched" 2>&1 &
	SCHED=$!
}

grid_up multirail cfg=b
for mode in stream pingpong; do
	schedule "$WORK/b_$mode"
	michi "$WORK/b_$mode" -genv MICHI_LOG info -genv RAILPROG_PVARS tcp_rail \
		--host A,B -n 2 "$RPROG" $mode 26 || fail "b, $mode: exit $?: $(tail -5 "$WORK/b_$mode.err")"
	wait $SCHED
	line=$(grep "^railprog $mode ok " "$WORK/b_$mode") ||
		fail "b, $mode: $(cat "$WORK/b_$mode" "$WORK/b_$mode.err")"
	for what in "rail connection 1" "its main connection 0"; do
		grep -q "rank [01] lost $what to rank [01] on rail [01]" "$WORK/b_$mode.err" ||
			fail "b, $mode: nothing lost $what: $(grep -c . "$WORK/b_$mode.err") lines"
		grep -q "rank [01] resumed $what to rank [01] on rail [01]" "$WORK/b_$mode.err" ||
			fail "b, $mode: $what never resumed"
	done
	rx=$(cat "$WORK/b_$mode.rx")
	[ "$rx" -ge 1000000 ] || fail "b, $mode: A's eth1 took $rx bytes in 3 s after the restore"
	for k in 0 1; do
		n=$(awk -v v="tcp_rail${k}_failovers" '$1 == "railprog" && $2 == "pvar" && $4 == v { s += $5 } END { print s + 0 }' "$WORK/b_$mode")
		[ "$n" -ge 1 ] || fail "b, $mode: MPI_T counts $n failovers on rail $k"
	done
	echo "b, $mode: ${line#railprog } (messages bytes longest-gap; or rounds longest-round-trip);" \
		"$(grep -c 'resumed' "$WORK/b_$mode.err") resumes; A's eth1 after the restore: $rx bytes"
done

( sleep 3; "$GRID" cut B:eth0; "$GRID" cut B:eth1; sleep 3; "$GRID" restore B:eth0; "$GRID" restore B:eth1 ) \
	>"$WORK/b_both.sched" 2>&1 &
SCHED=$!
michi "$WORK/b_both" -genv MICHI_LOG info --host A,B -n 2 "$RPROG" stream 10 ||
	fail "b, both cut: exit $?: $(tail -5 "$WORK/b_both.err")"
wait $SCHED
grep -q '^railprog stream ok ' "$WORK/b_both" || fail "b, both cut: $(cat "$WORK/b_both" "$WORK/b_both.err")"
echo "b, both cut for 3 s: $(grep '^railprog stream ok ' "$WORK/b_both")"
(
	i=0
	while [ $i -lt 200 ] && ! grep -q '^railprog quiet open' "$WORK/b_quiet" 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done
	sleep 2; "$GRID" cut B:eth1; sleep 2; "$GRID" restore B:eth1
	sleep 2; "$GRID" cut B:eth0; sleep 2; "$GRID" restore B:eth0
) >"$WORK/b_quiet.sched" 2>&1 &
SCHED=$!
michi "$WORK/b_quiet" -genv MICHI_LOG info --host A,B -n 2 "$RPROG" quiet 10 ||
	fail "b, idle rails: exit $?: $(tail -5 "$WORK/b_quiet.err")"
wait $SCHED
line=$(grep '^railprog quiet ok ' "$WORK/b_quiet") ||
	fail "b, idle rails: $(cat "$WORK/b_quiet" "$WORK/b_quiet.err")"
for what in "rail connection 1" "its main connection 0"; do
	grep -q "rank [01] lost $what to rank [01] on rail [01]" "$WORK/b_quiet.err" ||
		fail "b, idle rails: a cut of $what's rail went unnoticed: $(grep -c . "$WORK/b_quiet.err") lines"
	grep -q "rank [01] resumed $what to rank [01] on rail [01]" "$WORK/b_quiet.err" ||
		fail "b, idle rails: $what never resumed"
done
echo "b, idle rails: ${line#railprog } (seconds, last 4 MiB exchange); $(grep -c 'lost' "$WORK/b_quiet.err") losses found by heartbeats"
michi "$WORK/b_asym" -genv MICHI_LOG info -genv RAILPROG_RSS 1 --host A,B \
	-n 1 -env MICHI_TCP_RAIL_FAILOVER no "$RPROG" stream 12 : -n 1 "$RPROG" stream 12 ||
	fail "b, failover on one side only: exit $?: $(tail -5 "$WORK/b_asym.err")"
line=$(grep '^railprog stream ok ' "$WORK/b_asym") ||
	fail "b, failover on one side only: $(cat "$WORK/b_asym" "$WORK/b_asym.err")"
set -- $line
bytes=$5
kb=$(awk '$1 == "railprog" && $2 == "rss" && $3 == 1 { print $4 }' "$WORK/b_asym")
[ "$bytes" -ge 150000000 ] || fail "b, failover on one side only: B streamed only $bytes bytes"
[ -n "$kb" ] && [ "$kb" -lt 100000 ] ||
	fail "b, failover on one side only: B's peak memory ${kb:-unknown} KiB after $bytes bytes"
echo "b, failover on one side only: $bytes bytes streamed, B's peak memory $kb KiB"
grid_down

grid_up multirail cfg=c
( sleep 3; "$GRID" cut A:eth1; sleep 3; "$GRID" restore A:eth1 ) >"$WORK/c.sched" 2>&1 &
SCHED=$!
michi "$WORK/c" -genv MICHI_LOG info --host A,B,C -n 3 "$RPROG" stream 10 ||
	fail "c: exit $?: $(tail -5 "$WORK/c.err")"
wait $SCHED
grep -q '^railprog stream ok ' "$WORK/c" || fail "c: $(cat "$WORK/c" "$WORK/c.err")"
for r in 1 2; do
	grep -q "rank $r resumed rail connection 1 to rank 0" "$WORK/c.err" ||
		grep -q "rank 0 resumed rail connection 1 to rank $r" "$WORK/c.err" ||
		fail "c: rank $r's rail connection never resumed"
done
echo "c: $(grep '^railprog stream ok ' "$WORK/c")"
grid_down
exit 0
