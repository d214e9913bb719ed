#!/bin/sh
# SPDX-License-Identifier: MIT
# Several proxies in one job: two local proxies (-hosts localhost,localhost)
# and "remote" ones started through a launch template that runs on this
# host but takes the remote path (TCP connect-back with a cookie). Fences
# cross proxies, ranks are placed in blocks (host:N slots), a rank killed
# on another host ends the job, and a template that fails is reported.
# Proxies connect back to the first of mpirun's addresses that answers.
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

# Remote proxies get every address of mpirun and take the first that
# answers; one that a template starts on this very host gets loopback
# first. --launch-address forces the one address. MICHI_TCP_IF chooses the
# ranks' network, which mpirun's host need not be on: a name this host
# lacks does not stop mpirun (these ranks use no tcp).
timeout 60 "$MPIRUN" -v --launcher exec --launcher-exec "$T" -hosts localhost,ha -n 2 "$PROG" --info \
	--jobkey >"$WORK/out" 2>"$WORK/err" || fail "exec to localhost: exit $?: $(cat "$WORK/err")"
check_job 2 "exec to localhost"
grep -q '^\[mpirun\] info: proxy on host localhost connected back to 127\.0\.0\.1:' "$WORK/err" ||
	fail "the proxy on localhost did not take loopback: $(cat "$WORK/err")"
if [ -n "$(hostname -I 2>/dev/null | tr -d ' ')" ]; then
	grep -q '^\[mpirun\] info: proxy on host ha connected back to [0-9.]*:' "$WORK/err" &&
		! grep -q 'proxy on host ha connected back to 127\.' "$WORK/err" ||
		fail "the proxy on ha was offered loopback or did not connect: $(cat "$WORK/err")"
fi
timeout 60 "$MPIRUN" -v --launch-address 127.0.0.1 --launch-template "$T" -hosts ha,hb -n 2 "$PROG" \
	--info --jobkey >"$WORK/out" 2>"$WORK/err" || fail "--launch-address: exit $?: $(cat "$WORK/err")"
check_job 2 "--launch-address"
[ "$(grep -c 'connected back to 127\.0\.0\.1:' "$WORK/err")" -eq 2 ] ||
	fail "--launch-address 127.0.0.1 not taken by both proxies: $(cat "$WORK/err")"
MICHI_TCP_IF=nosuch0 timeout 60 "$MPIRUN" --launch-template "$T" -hosts ha,hb -n 2 "$PROG" --info \
	--jobkey >"$WORK/out" 2>"$WORK/err" || fail "MICHI_TCP_IF=nosuch0 stopped mpirun: $(cat "$WORK/err")"
check_job 2 "MICHI_TCP_IF=nosuch0"
[ ! -s "$WORK/err" ] || fail "MICHI_TCP_IF=nosuch0: stderr: $(cat "$WORK/err")"

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
