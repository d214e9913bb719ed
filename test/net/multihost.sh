#!/bin/sh
# SPDX-License-Identifier: MIT
# Four test hosts (network namespaces, test/net/hosts.sh), two ranks each,
# started with --launcher exec --launcher-exec 'ip netns exec {host}':
# every rank runs under its host's name, advertises its host's address
# (never loopback), reaches the rank of its own host over shm and the six
# others over tcp, and a ring and an allreduce give the right sums. Then
# placement: a hostfile (host, host:N, slots=N, comments) with --map-by
# node (round robin) and by slot (blocks), and the fork launcher (names
# only, all here). After each job no process is left on any host, and at
# the end no namespace, link or process of the test. Needs root: skips
# (77) where namespaces cannot be made.
NET_N=4
. "$(dirname "$0")/common.sh"

EXEC="--launcher exec --launcher-exec"
NS='ip netns exec {host}'

MICHI_LOG=debug run_job "$WORK/a" $EXEC "$NS" --host "$H1:2,$H2:2,$H3:2,$H4:2" -n 8 "$EXE" ||
	fail "4 hosts x 2 ranks over exec: exit $?: $(tail -5 "$WORK/a.err")"
check_netcheck "$WORK/a" 8 "$H1" "$H1" "$H2" "$H2" "$H3" "$H3" "$H4" "$H4"
check_cards "$WORK/a"
check_quiet

cat >"$WORK/hostfile" <<HF
# the four test hosts
$H1 slots=2
$H2:2
   $H3	slots=2   # a comment after the host

$H4
HF
run_job "$WORK/b" $EXEC "$NS" --hostfile "$WORK/hostfile" --map-by node -n 8 "$EXE" ||
	fail "hostfile, --map-by node: exit $?: $(tail -5 "$WORK/b.err")"
check_netcheck "$WORK/b" 8 "$H1" "$H2" "$H3" "$H4" "$H1" "$H2" "$H3" "$H4"
check_quiet

# by slot: h1 and h2 and h3 full with 2, h4 (no count: an even share) 1
run_job "$WORK/c" $EXEC "$NS" -f "$WORK/hostfile" --map-by slot -n 7 "$EXE" ||
	fail "hostfile, --map-by slot: exit $?: $(tail -5 "$WORK/c.err")"
check_netcheck "$WORK/c" 7 "$H1" "$H1" "$H2" "$H2" "$H3" "$H3" "$H4"
check_quiet

# by node with full hosts skipped: slots 1,2,2 over 5 ranks
run_job "$WORK/d" $EXEC "$NS" --host "$H1:1,$H2:2,$H3:2" --map-by node -n 5 "$EXE" ||
	fail "--map-by node with slots: exit $?: $(tail -5 "$WORK/d.err")"
check_netcheck "$WORK/d" 5 "$H1" "$H2" "$H3" "$H2" "$H3"
check_quiet

# fork: every proxy here, the names only identities
run_job "$WORK/e" --launcher fork --host fa,fb --map-by node -n 4 "$EXE" ||
	fail "--launcher fork: exit $?: $(tail -5 "$WORK/e.err")"
check_netcheck "$WORK/e" 4 fa fb fa fb
check_quiet

echo "bad" >"$WORK/badfile"
echo "$H1 slots=x" >>"$WORK/badfile"
run_job "$WORK/f" -f "$WORK/badfile" -n 1 "$EXE" && fail "a bad hostfile was accepted"
grep -q "hostfile $WORK/badfile line 2: expected" "$WORK/f.err" || fail "bad hostfile: $(cat "$WORK/f.err")"
run_job "$WORK/f" --launcher exec -H "$H1" -n 1 "$EXE" && fail "--launcher exec without a template"
grep -q 'needs --launcher-exec' "$WORK/f.err" || fail "exec without template: $(cat "$WORK/f.err")"
finish
