#!/bin/sh
# SPDX-License-Identifier: MIT
# SIGTERM or SIGINT to mpirun kills the whole job and leaves no process;
# SIGKILL to mpirun (no chance to clean up) still leaves none, through
# PR_SET_PDEATHSIG in the proxy and the ranks.
. "$(dirname "$0")/common.sh"

wait_ranks() {
	i=0
	while [ "$(pgrep -fc "$UNIQ")" -lt "$1" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "ranks did not start"
		sleep 0.1
	done
}

for sig in TERM INT KILL; do
	timeout 60 "$MPIRUN" -n 4 "$PROG" --sleep 60 >/dev/null 2>"$WORK/err" &
	pid=$!
	wait_ranks 4
	# timeout(1) runs mpirun as its child: signal mpirun itself
	mp=$(pgrep -P $pid)
	[ -n "$mp" ] || fail "no mpirun under timeout"
	kill -$sig "$mp"
	wait $pid
	rc=$?
	[ $rc -ne 0 ] || fail "SIG$sig: mpirun exited 0"
	gone "$UNIQ" 30 || fail "SIG$sig: processes left: $(pgrep -af "$UNIQ")"
	[ $sig = KILL ] || grep -q 'received signal' "$WORK/err" || fail "SIG$sig: no message"
done
exit 0
