#!/bin/sh
# SPDX-License-Identifier: MIT
# Four test hosts with an sshd each (test/net/hosts.sh: Debian's
# openssh-server, installed when missing, keys made for this run), two
# ranks each, started with --launcher ssh: ranks run under their host's
# name, advertise its address, take shm within a host and tcp across, and
# nothing is left behind but the sshds, which go with the hosts. Skips
# (77) without root, namespaces or openssh-server.
NET_N=4
. "$(dirname "$0")/common.sh"

net_sshd
rc=$?
[ $rc -eq 77 ] && skip "$NET_WHY"
[ $rc -eq 0 ] || fail "cannot start sshd on the test hosts: $NET_WHY"
SSHD_PIDS=$(cat "$NET_DIR/ssh/sshd.pids" | tr '\n' ' ')
check_quiet "$SSHD_PIDS"

# over ssh the environment is not inherited: -genv passes the log level
run_job "$WORK/a" --launcher ssh --launcher-exec "ssh -F $NET_SSH_CFG -x {host}" \
	-genv MICHI_LOG debug -ppn 2 --host "$H1,$H2,$H3,$H4" -n 8 "$EXE" ||
	fail "4 hosts x 2 ranks over ssh: exit $?: $(tail -5 "$WORK/a.err")"
check_netcheck "$WORK/a" 8 "$H1" "$H1" "$H2" "$H2" "$H3" "$H3" "$H4" "$H4"
check_cards "$WORK/a"
check_quiet "$SSHD_PIDS"

# a template without {host} gets the host appended, as MPICH's ssh path
run_job "$WORK/b" --launcher ssh --launcher-exec "ssh -F $NET_SSH_CFG" \
	--map-by node --host "$H1,$H2" -n 4 "$EXE" ||
	fail "ssh without {host}: exit $?: $(tail -5 "$WORK/b.err")"
check_netcheck "$WORK/b" 4 "$H1" "$H2" "$H1" "$H2"
check_quiet "$SSHD_PIDS"
finish
