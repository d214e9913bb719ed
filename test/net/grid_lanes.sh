#!/bin/sh
# SPDX-License-Identifier: MIT
# Multilane Scatter and Gather (coll/lanes.c) on the emulated grid
# `two-sites` (test/net/grid: 2 sites of 4 hosts, a 5 ms WAN path, one TCP
# flow across window-limited to a quarter of it): test/net/lanesprog.c
# scatters and gathers 256 KiB blocks from rank 0 and checks every byte,
# with one lane (P=1, the single crossing), four (one per host pair), four
# driven by the root alone (H=4: coll_lanes_h) and the cost model's choice, the uniform forms and, forced, the v forms'
# algorithm. The sites are the grid's (a1..a4, b1..b4) given by
# MICHI_COLL_SITE_RANKS=4 with one rank a host. Each run's WAN counters
# must show every far block crossing once each way, no more (TCP/IP
# headers and acknowledgements aside: at most 15% over). The tcp device's
# striping of payloads >= 1 MiB is off (MICHI_TCP_STRIPE_MIN=0),
# so that one lane is one flow. Times are printed, never judged: the
# machine is shared (bench/ measures). Root only; skips (77) without
# namespaces, the link emulator, MPICH or Open MPI (grid_common.sh).
. "$(dirname "$0")/grid_common.sh"

LPROG=$WORK/lanes_$UNIQ
build_prog "$LPROG" "$NET/lanesprog.c"
grid_up two-sites
N=$(echo $HOSTS | wc -w)
[ "$N" -eq 8 ] || fail "two-sites has $N hosts, not 8"
M=262144 ITERS=2
export MICHI_COLL_SITE_RANKS=4 MICHI_TCP_STRIPE_MIN=0 MICHI_LANES_PROBE_BYTES=524288
for cfg in "P=1" "P=4" "P=4 H=4" "P=0" "P=0 ALG=lanes_v" "P=2 ALG=lanes_v" "P=4 H=2 ALG=lanes_v"; do
	P=${cfg#P=}
	P=${P%% *}
	alg=auto H=0
	case $cfg in *ALG=*) alg=${cfg#*ALG=} ;; esac
	case $cfg in *H=*) H=${cfg#*H=} H=${H%% *} ;; esac
	ab0=$(wan_bytes wan ab) ba0=$(wan_bytes wan ba)
	MICHI_COLL_LANES_P=$P MICHI_COLL_LANES_H=$H MICHI_COLL_SCATTER_ALGORITHM=$alg MICHI_COLL_GATHER_ALGORITHM=$alg \
		run_mpi "$WORK/l.out" michi "$LPROG" $M $ITERS ||
		fail "$cfg: exit $?: $(tail -5 "$WORK/l.out.err")"
	line=$(grep "^lanesprog $M $ITERS " "$WORK/l.out") ||
		fail "$cfg: $(cat "$WORK/l.out" "$WORK/l.out.err")"
	# the far site's 4 blocks cross once each way per call (ITERS + 1);
	# the model's P (P=0, no profile) adds the first use's measurement
	# (coll/lanes_params.c): one lane's probe, then the 4 lanes' at once,
	# from site a to b
	need=$(((ITERS + 1) * 4 * M))
	probe=0
	[ "$P" -eq 0 ] && probe=$((5 * MICHI_LANES_PROBE_BYTES))
	ab=$(($(wan_bytes wan ab) - ab0)) ba=$(($(wan_bytes wan ba) - ba0))
	for d in ab:$ab:$((need + probe)) ba:$ba:$need; do
		b=${d#*:} want=${d##*:}
		b=${b%%:*}
		[ "$b" -ge $want ] && [ "$b" -le $((want + want * 15 / 100)) ] ||
			fail "$cfg: the WAN path carried $b bytes (${d%%:*}), not $want to +15%"
	done
	echo "$cfg ($alg): ok; WAN $ab/$ba bytes for $need; scatter min/median, gather min/median (s): ${line#lanesprog $M $ITERS }"
done
grid_down
exit 0
