#!/bin/sh
# SPDX-License-Identifier: MIT
# Several proxies in one job: two local proxies (-hosts localhost,localhost)
# and "remote" ones started through a launch template that runs on this
# host but takes the remote path (TCP connect-back with a cookie). Fences
# cross proxies, ranks are placed in blocks (host:N slots), a rank killed
# on another host ends the job, and a template that fails is reported.
# MICHI_TCP_IF chooses the connect-back address, as it does for the ranks.
. "$(dirname "$0")/common.sh"

check_job() {
	[ "$(grep -c ' ok$' "$WORK/out")" -eq "$1" ] || fail "$2: not $1 ranks ok: $(cat "$WORK/err")"
	[ "$(grep '^jobkey ' "$WORK/out" | sort -u | wc -l)" -eq 1 ] || fail "$2: job keys differ"
}

timeout 60 "$MPIRUN" -hosts localhost,localhost -n 5 "$PROG" --info --jobkey >"$WORK/out" 2>"$WORK/err" ||
	fail "two local proxies: exit $?: $(cat "$WORK/err")"
check_job 5 "two local proxies"
grep -q '^info rank=2 size=5 appnum=0 local_rank=2 local_size=3 ' "$WORK/out" || fail "rank 2 placement"
grep -q '^info rank=3 size=5 appnum=0 local_rank=0 local_size=2 ' "$WORK/out" || fail "rank 3 placement"

T='env MICHI_TEST_FAKE_HOST={host}'
timeout 60 "$MPIRUN" --launch-template "$T" -hosts ha,hb:1,hc -n 5 "$PROG" --info --jobkey --bigval \
	>"$WORK/out" 2>"$WORK/err" || fail "template proxies: exit $?: $(cat "$WORK/err")"
check_job 5 "template proxies"
grep -q '^info rank=2 size=5 appnum=0 local_rank=0 local_size=1 ' "$WORK/out" || fail "hb:1 placement"

# The interface knob the tcp device uses also picks the address remote
# proxies connect back to: loopback works here, a missing one is refused.
MICHI_TCP_IF=lo timeout 60 "$MPIRUN" --launch-template "$T" -hosts ha,hb -n 2 "$PROG" --info --jobkey \
	>"$WORK/out" 2>"$WORK/err" || fail "MICHI_TCP_IF=lo: exit $?: $(cat "$WORK/err")"
check_job 2 "MICHI_TCP_IF=lo"
MICHI_TCP_IF=nosuch0 timeout 60 "$MPIRUN" --launch-template "$T" -hosts ha,hb -n 2 "$PROG" --info \
	>/dev/null 2>"$WORK/err" && fail "MICHI_TCP_IF=nosuch0 was accepted"
grep -q 'MICHI_TCP_IF=nosuch0 selects no up IPv4 interface' "$WORK/err" ||
	fail "no message for MICHI_TCP_IF=nosuch0: $(cat "$WORK/err")"

MICHI_LAUNCH_TEMPLATE="$T" timeout 60 "$MPIRUN" -hosts localhost,hb -ppn 1 -n 1 "$PROG" --info --jobkey : \
	-n 3 "$PROG" --info --jobkey >"$WORK/out" 2>"$WORK/err" || fail "mpmd over hosts: $(cat "$WORK/err")"
check_job 4 "mpmd over hosts"
grep -q '^info rank=3 size=4 appnum=1 ' "$WORK/out" || fail "mpmd appnum over hosts"

timeout 60 "$MPIRUN" --launch-template "$T" -hosts ha,hb -n 4 "$PROG" --kill-rank 3 --sleep 60 \
	>/dev/null 2>"$WORK/err"
rc=$?
[ $rc -eq 137 ] || fail "kill on hb: expected 137, got $rc"
grep -q 'rank 3 (pid [0-9]* on host hb) killed by signal 9' "$WORK/err" || fail "kill message: $(cat "$WORK/err")"
gone "$UNIQ" 20 || fail "processes left after kill"

timeout 60 "$MPIRUN" --launch-template 'false {host}' -hosts localhost,hb -n 4 "$PROG" --sleep 60 \
	>/dev/null 2>"$WORK/err"
rc=$?
[ $rc -ne 0 ] || fail "failing template: exit 0"
grep -q 'proxy on host hb .*exited with code 1' "$WORK/err" || fail "failing template message: $(cat "$WORK/err")"
gone "$UNIQ" 20 || fail "processes left after failing template"
exit 0
