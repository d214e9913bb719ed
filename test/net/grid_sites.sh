#!/bin/sh
# SPDX-License-Identifier: MIT
# The job's sites on the emulated grid `two-sites` (test/net/grid: sites A
# and B of 4 hosts, one WAN path of 5 ms one way between them): with no
# site given, MPI_Init's inference (mpi/coll/site.c: the host leaders' round
# trips, split where near and far differ clearly) finds the two sites, and
# every rank of test/mpi/sites.c gets the communicator of its own site
# (MICHI_COMM_TYPE_SITE, HW_GUIDED "michi://site", HW_UNGUIDED); a
# hostfile whose site= lines cut across the real sites wins over the
# inference (nothing is measured); MICHI_SITE per MPMD section the same.
# One rank a host, rank i on the i-th host `grid hosts` lists. At the end
# `grid down` leaves nothing. Root only; skips (77) as grid_common.sh says.
. "$(dirname "$0")/grid_common.sh"

: "${top_srcdir:=$(dirname "$0")/../..}"
SITES=$WORK/${UNIQ}_sites
build_prog "$SITES" "$top_srcdir/test/mpi/sites.c" -I"$top_srcdir/test/mpi"

# the inference takes the kernel's round trips (TCP_INFO), which a
# loaded machine's scheduling does not inflate: 10 ms across, 10-20 us in
grid_up two-sites
N=$(echo $HOSTS | wc -w)
# the expected labels: each host's site as `grid hosts` says
WANT=$("$GRID" hosts | awk '{ printf "%s%s", (NR > 1 ? "," : ""), $2 }')
NSITES=$("$GRID" hosts | awk '{ print $2 }' | sort -u | wc -l)
[ "$NSITES" -eq 2 ] || fail "two-sites has $NSITES sites: $("$GRID" hosts)"
CIDR=$("$GRID" hosts | awk 'NR == 1 { split($4, a, "."); print a[1] "." a[2] ".0.0/16" }')

michi() {
	out=$1
	shift
	timeout 120 "$MICHI_MPIRUN" --launcher exec --launcher-exec "$GRID exec {host}" \
		-genv MICHI_TCP_IF "$CIDR" -genv MICHI_LOG info "$@" >"$out" 2>"$out.err"
}
passed() {
	grep -q '^ No Errors$' "$1" || fail "$2: $(cat "$1" "$1.err")"
}

# 1. nothing given: inferred
MTEST_SITES=$WANT michi "$WORK/infer" --host "$(echo $HOSTS | tr ' ' ',')" -n $N "$SITES" ||
	fail "inference run: exit $?: $(cat "$WORK/infer" "$WORK/infer.err")"
passed "$WORK/infer" "inference run (expected $WANT)"
grep -q "sites: 2, inferred from round-trip times" "$WORK/infer.err" ||
	fail "no inferred map logged: $(cat "$WORK/infer.err")"
echo "inferred: $(grep -h 'site inference:\|sites: \|site [0-9]' "$WORK/infer.err" | sed 's/^.*info: //' | tr '\n' ';')"

# 2. a hostfile's sites, across the real ones: they win, nothing measured
i=0
: >"$WORK/hostfile"
for h in $HOSTS; do
	echo "$h slots=1 site=S$((i % 2))" >>"$WORK/hostfile"
	i=$((i + 1))
done
WANT2=$(awk '{ sub(/^site=/, "", $3); printf "%s%s", (NR > 1 ? "," : ""), $3 }' "$WORK/hostfile")
MTEST_SITES=$WANT2 michi "$WORK/given" --hostfile "$WORK/hostfile" -n $N "$SITES" ||
	fail "hostfile run: exit $?: $(cat "$WORK/given" "$WORK/given.err")"
passed "$WORK/given" "hostfile run (expected $WANT2)"
grep -q "sites: 2, given" "$WORK/given.err" || fail "hostfile sites not used: $(cat "$WORK/given.err")"
! grep -q "site inference" "$WORK/given.err" || fail "measured despite the hostfile"

# 3. MICHI_SITE per MPMD section, the first half east, the rest west
H=$(echo $HOSTS | tr ' ' ',')
half=$((N / 2))
WANT3=$(awk -v n=$N -v h=$half 'BEGIN { for (i = 0; i < n; i++) printf "%s%s", (i ? "," : ""), (i < h ? "e" : "w") }')
MTEST_SITES=$WANT3 michi "$WORK/env" --host "$H" -n $half -env MICHI_SITE east "$SITES" : \
	-n $((N - half)) -env MICHI_SITE west "$SITES" ||
	fail "MICHI_SITE run: exit $?: $(cat "$WORK/env" "$WORK/env.err")"
passed "$WORK/env" "MICHI_SITE run (expected $WANT3)"
grep -q "site 1 'west'" "$WORK/env.err" || fail "MICHI_SITE not used: $(cat "$WORK/env.err")"

grid_down
exit 0
