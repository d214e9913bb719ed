#!/bin/sh
# SPDX-License-Identifier: MIT
# Failures on three test hosts, two ranks each, of a job that would run
# 40 s (failprog.c: allreduce and ring in a loop), each in its own job:
#  a) kill -9 of a rank on another host than rank 0's,
#  b) kill -9 of a remote proxy,
#  c) the network of a host cut (ip link set eth0 down in its namespace),
#     with MICHI_LAUNCH_KEEPALIVE=3: mpirun gives the host up,
#  c2) the same, with proxies that ignore SIGTERM (a wrapper), so that
#     only the cut proxy's own keepalive can end its ranks,
#  d) SIGTERM, then SIGINT, to mpirun.
# Each ends in bounded time (a, b, d: 4 s; c: keepalive + 2 s), mpirun
# exits non-zero with a line naming the rank, proxy or host, and then no
# process of the job is left on any host. Needs root, else skips (77).
NET_N=3
. "$(dirname "$0")/common.sh"

FP=$WORK/${UNIQ}_failprog
if [ -n "${MICHI_MPICC:-}" ]; then
	$MICHI_MPICC -o "$FP" "$(dirname "$0")/failprog.c" 2>"$WORK/err" ||
		fail "cannot build failprog: $(cat "$WORK/err")"
else
	${CC:-cc} -I"$top_srcdir/mpi/include" -o "$FP" "$(dirname "$0")/failprog.c" \
		-L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lmpi 2>"$WORK/err" ||
		fail "cannot build failprog: $(cat "$WORK/err")"
fi

KA=3   # the keepalive of case c, seconds
NS='ip netns exec {host}'
HOSTS="$H1:2,$H2:2,$H3:2"

# start OUT [mpirun args]: the job in the background under timeout(1)
# (which gives mpirun a default SIGINT, as a terminal would); waits until
# all 6 ranks printed their pid; sets JOB (timeout's pid), MP (mpirun's)
start() {
	out=$1
	shift
	: >"$out"   # before the background job opens it: grep below reads it
	timeout 90 "$MPIRUN" --timeout 60 "$@" --host "$HOSTS" -n 6 "$FP" 40 >"$out" 2>"$out.err" &
	JOB=$!
	i=0
	while [ "$(grep -c '^failprog rank [0-9]* host .* pid [0-9]*$' "$out")" -lt 6 ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && fail "job $out did not start: $(cat "$out.err")"
		kill -0 $JOB 2>/dev/null || fail "job $out ended early: $(cat "$out" "$out.err")"
		sleep 0.1
	done
	MP=$(pgrep -P $JOB)
	[ -n "$MP" ] || fail "no mpirun under timeout"
}

# rank_pid OUT R
rank_pid() { sed -n "s/^failprog rank $2 host .* pid \([0-9]*\)\$/\1/p" "$1"; }

# ended LIMIT_MS: waits (at most 20 s) for the job; fails when it took
# more than LIMIT_MS from T0, or mpirun exited 0; sets RC
ended() {
	i=0
	while kill -0 $JOB 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 200 ] && { kill -KILL "$MP" 2>/dev/null; fail "$what: the job did not end in 20 s"; }
		sleep 0.1
	done
	wait $JOB
	RC=$?
	ms=$(($(now_ms) - T0))
	echo "failures: $what: mpirun exit $RC after $ms ms" >&2
	[ $RC -ne 0 ] || fail "$what: mpirun exited 0"
	[ $RC -ne 124 ] || fail "$what: only timeout(1) ended the job"
	[ $ms -le "$1" ] || fail "$what: the job took $ms ms to end (limit $1): $(cat "$out.err")"
}

# the default route went with the link
link_up() {
	ip -n "$1" link set eth0 up && ip -n "$1" route replace default via "$NET_GW" ||
		fail "cannot bring $1's eth0 up again"
}

expect() { grep -Eq "$1" "$out.err" || fail "$what: no line like '$1' in: $(cat "$out.err")"; }

# a) a rank on another host killed: the line names it, its pid and host
what="rank killed"
start "$WORK/a" --launcher exec --launcher-exec "$NS"
P=$(rank_pid "$WORK/a" 3)
net_pids "$H2" | grep -qx "$P" || fail "rank 3 (pid $P) is not in $H2's namespace"
T0=$(now_ms)
kill -KILL "$P"
ended 4000
expect "rank 3 \(pid $P on host $H2\) killed by signal 9"
check_quiet

# b) a remote proxy killed
what="proxy killed"
start "$WORK/b" --launcher exec --launcher-exec "$NS"
PX=
for p in $(net_pids "$H3"); do
	[ "$(cat /proc/$p/comm 2>/dev/null)" = michi-proxy ] && PX=$p
done
[ -n "$PX" ] || fail "no michi-proxy in $H3's namespace"
T0=$(now_ms)
kill -KILL "$PX"
ended 4000
expect "(lost the )?proxy on host $H3 \(pid $PX\)"
check_quiet

# c) a host's network cut: both ends' keepalive notice within KA s
what="network cut"
MICHI_LAUNCH_KEEPALIVE=$KA start "$WORK/c" --launcher exec --launcher-exec "$NS"
T0=$(now_ms)
ip -n "$H2" link set eth0 down || fail "cannot take $H2's eth0 down"
ended $(((KA + 2) * 1000))
expect "lost the proxy on host $H2 \(pid [0-9]*\): no answer within $KA s"
check_quiet
link_up "$H2"

# c2) the same where mpirun cannot end the cut host's proxy (it and its
# ranks ignore SIGTERM, as a proxy on a real host out of reach): the
# proxy's own keepalive must end its ranks, and it says so
what="network cut, proxy on its own"
SHIELD=$WORK/${UNIQ}_shield
printf '#!/bin/sh\ntrap "" TERM INT HUP\n"$@"\nexit $?\n' >"$SHIELD"
chmod +x "$SHIELD"
MICHI_LAUNCH_KEEPALIVE=$KA start "$WORK/c2" --launcher exec --launcher-exec "$NS $SHIELD"
T0=$(now_ms)
ip -n "$H3" link set eth0 down || fail "cannot take $H3's eth0 down"
i=0
while [ -n "$(net_pids "$H3")" ]; do
	i=$((i + 1))
	[ $i -gt 200 ] && fail "$what: processes left on $H3 after 20 s: $(net_pids "$H3")"
	sleep 0.1
done
ms=$(($(now_ms) - T0))
echo "failures: $what: $H3 empty after $ms ms" >&2
[ $ms -le $(((KA + 2) * 1000)) ] || fail "$what: $H3's processes took $ms ms to end"
ended 20000
grep -q "proxy on host $H3: lost mpirun (no answer within the keepalive time); killing its 2 ranks" \
	"$WORK/c2.err" || fail "$what: the proxy did not say it lost mpirun: $(cat "$WORK/c2.err")"
check_quiet
link_up "$H3"

# d) SIGTERM and SIGINT to mpirun end everything on every host
for sig in TERM INT; do
	what="SIG$sig to mpirun"
	start "$WORK/d$sig" --launcher exec --launcher-exec "$NS"
	T0=$(now_ms)
	kill -$sig "$MP"
	ended 4000
	out=$WORK/d$sig
	expect "received signal [0-9]+ \([A-Za-z ]+\); killing the job"
	check_quiet
done
finish
