#!/bin/sh
# SPDX-License-Identifier: MIT
# Placement without privileges: --launcher fork runs every "host" here, so
# the host lists, hostfiles and --map-by can be checked by where each rank
# lands (MICHI_HOSTNAME, the identity the proxy gives its ranks, and the
# local rank and size). Also the option errors, and --launcher slurm
# outside an allocation. test/net/ runs the same over real test hosts.
. "$(dirname "$0")/common.sh"

# each rank prints: rank host local_rank local_size
SHOW='echo "place $PMI_RANK $MICHI_HOSTNAME $MPI_LOCALRANKID $MPI_LOCALNRANKS"'
place() {
	timeout 30 "$MPIRUN" --launcher fork "$@" sh -c "$SHOW" >"$WORK/out" 2>"$WORK/err" ||
		fail "mpirun $*: exit $?: $(cat "$WORK/err")"
	sort -n -k2 "$WORK/out" | sed -n 's/^place //p' | tr '\n' ';'
}
expect() {
	got=$(place "$@")
	[ "$got" = "$WANT" ] || fail "mpirun $*: placed '$got', expected '$WANT'"
}

WANT='0 ha 0 2;1 ha 1 2;2 hb 0 2;3 hb 1 2;'
expect --host ha,hb -n 4
WANT='0 ha 0 2;1 hb 0 2;2 ha 1 2;3 hb 1 2;'
expect --host ha,hb --map-by node -n 4
expect -H ha,hb --map-by NODE -np 4
# slots: full hosts are skipped, then all oversubscribed round robin
WANT='0 ha 0 2;1 hb 0 3;2 hc 0 2;3 hb 1 3;4 hc 1 2;5 ha 1 2;6 hb 2 3;'
expect --host ha:1,hb,hc -ppn 2 --map-by node -n 7
WANT='0 ha 0 1;1 hb 0 2;2 hb 1 2;3 hc 0 1;'
expect --host ha:1,hb:2,hc -n 4 --map-by slot

cat >"$WORK/hosts" <<HF
# comment line
ha slots=1
hb:2   # after a host

	hc slots=3 max_slots=8
HF
WANT='0 ha 0 1;1 hb 0 2;2 hb 1 2;3 hc 0 3;4 hc 1 3;5 hc 2 3;'
expect --hostfile "$WORK/hosts" -n 6
expect -f "$WORK/hosts" -n 6
expect -machinefile "$WORK/hosts" -n 6
WANT='0 ha 0 1;1 hb 0 2;2 hc 0 3;3 hb 1 2;4 hc 1 3;5 hc 2 3;'
expect --hostfile "$WORK/hosts" --map-by node -n 6

# MPMD over round robin: each app's ranks on a host as one strided run
WANT='0 ha 0 3;1 hb 0 3;2 ha 1 3;3 hb 1 3;4 ha 2 3;5 hb 2 3;'
expect --host ha,hb --map-by node -n 2 sh -c "$SHOW" : -n 4
timeout 30 "$MPIRUN" --launcher fork --host ha,hb --map-by node -n 2 "$PROG" --info : \
	-n 3 "$PROG" --info >"$WORK/out" 2>"$WORK/err" || fail "mpmd round robin: $(cat "$WORK/err")"
grep -q '^info rank=3 size=5 appnum=1 local_rank=1 local_size=2 ' "$WORK/out" ||
	fail "mpmd round robin rank 3: $(cat "$WORK/out")"
grep -q '^info rank=4 size=5 appnum=1 local_rank=2 local_size=3 ' "$WORK/out" ||
	fail "mpmd round robin rank 4: $(cat "$WORK/out")"

# this host's own names keep its real name as identity
timeout 30 "$MPIRUN" -H localhost -n 1 sh -c "$SHOW" >"$WORK/out" 2>"$WORK/err" || fail "localhost"
[ "$(cat "$WORK/out")" = "place 0 $(hostname) 0 1" ] || fail "localhost identity: $(cat "$WORK/out")"

bad() {
	msg=$1
	shift
	timeout 10 "$MPIRUN" "$@" true >/dev/null 2>"$WORK/err" && fail "accepted: $*"
	grep -q -- "$msg" "$WORK/err" || fail "mpirun $*: no '$msg' in: $(cat "$WORK/err")"
}
bad "needs 'slot' or 'node'" --map-by core2 -n 1
bad "needs one of ssh, fork, exec, slurm" --launcher rsh -n 1
bad "give --host or --hostfile, not both" -H ha -f "$WORK/hosts" -n 1
bad "cannot open hostfile $WORK/nosuch" -f "$WORK/nosuch" -n 1
printf 'ha slots=0\n' >"$WORK/bad"
bad "hostfile $WORK/bad line 1: expected" -f "$WORK/bad" -n 1
printf 'ha rank=1\n' >"$WORK/bad"
bad "hostfile $WORK/bad line 1: expected" -f "$WORK/bad" -n 1
printf '# nothing\n' >"$WORK/bad"
bad "names no host" -f "$WORK/bad" -n 1
bad "bad slot count" -H ha:x -n 1
bad "needs --launcher-exec" --launcher exec -H ha -n 1
(unset SLURM_JOB_ID SLURM_JOBID; bad "inside a Slurm allocation" --launcher slurm -H ha -n 1) || exit 1
exit 0
