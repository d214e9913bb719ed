#!/bin/sh
# SPDX-License-Identifier: MIT
# Four test hosts with an sshd each (test/net/hosts.sh: Debian's
# openssh-server, installed when missing, keys made for this run), two
# ranks each, started with --launcher ssh: ranks run under their host's
# name, advertise its address, take shm within a host and tcp across, and
# nothing is left behind but the sshds, which go with the hosts; ranks
# get mpirun's environment and working directory (or -genvnone, -genvlist,
# -wdir; a missing -wdir fails the job). Skips
# (77) without root, namespaces or openssh-server.
NET_N=4
. "$(dirname "$0")/common.sh"

net_sshd
rc=$?
[ $rc -eq 77 ] && skip "$NET_WHY"
[ $rc -eq 0 ] || fail "cannot start sshd on the test hosts: $NET_WHY"
SSHD_PIDS=$(cat "$NET_DIR/ssh/sshd.pids" | tr '\n' ' ')
check_quiet "$SSHD_PIDS"

# check_rankenv OUT N DIR VALUE: every rank of N started in DIR and saw
# NETCHECK_ENV=VALUE
check_rankenv() {
	[ "$(grep -cx "netcheck rank [0-9]* cwd $3" "$1")" -eq "$2" ] ||
		fail "not $2 ranks in $3: $(grep ' cwd ' "$1" | head -3)"
	[ "$(grep -cx "netcheck rank [0-9]* NETCHECK_ENV=$4" "$1")" -eq "$2" ] ||
		fail "not $2 ranks with NETCHECK_ENV=$4: $(grep NETCHECK_ENV "$1" | head -3)"
}

# sshd gives the proxies a fresh login: mpirun forwards its environment
# (NETCHECK_ENV; -genv wins over it) and its working directory, where the
# program's relative path is looked up
mkdir -p "$WORK/run" || fail "mkdir"
(cd "$WORK/run" && export NETCHECK_ENV=inherited MICHI_LOG=info && run_job "$WORK/a" --launcher ssh \
	--launcher-exec "ssh -F $NET_SSH_CFG -x {host}" -genv MICHI_LOG debug \
	-ppn 2 --host "$H1,$H2,$H3,$H4" -n 8 "../$(basename "$EXE")") ||
	fail "4 hosts x 2 ranks over ssh: exit $?: $(tail -5 "$WORK/a.err")"
check_netcheck "$WORK/a" 8 "$H1" "$H1" "$H2" "$H2" "$H3" "$H3" "$H4" "$H4"
check_cards "$WORK/a"
check_rankenv "$WORK/a" 8 "$WORK/run" inherited
check_quiet "$SSHD_PIDS"

# -genvnone keeps the environment here, -wdir names the directory
(export NETCHECK_ENV=inherited && run_job "$WORK/c" --launcher ssh -genvnone \
	-wdir "$WORK/run" --launcher-exec "ssh -F $NET_SSH_CFG -x {host}" \
	--host "$H1,$H2" -n 2 "$EXE") ||
	fail "-genvnone -wdir: exit $?: $(tail -5 "$WORK/c.err")"
check_rankenv "$WORK/c" 2 "$WORK/run" '(unset)'
(export NETCHECK_ENV=inherited && run_job "$WORK/c" --launcher ssh \
	-genvlist HOME,NETCHECK_ENV --launcher-exec "ssh -F $NET_SSH_CFG -x {host}" \
	--host "$H1,$H2" -n 2 "$EXE") ||
	fail "-genvlist: exit $?: $(tail -5 "$WORK/c.err")"
check_rankenv "$WORK/c" 2 "$(pwd)" inherited

# a -wdir that a host lacks fails the job, naming host and directory
if run_job "$WORK/d" --launcher ssh -wdir "$WORK/none" \
	--launcher-exec "ssh -F $NET_SSH_CFG -x {host}" --host "$H1,$H2" -n 2 "$EXE"; then
	fail "-wdir of a missing directory: exit 0"
fi
grep -Eq "proxy on host ($H1|$H2): cannot enter the working directory $WORK/none" "$WORK/d.err" ||
	fail "-wdir of a missing directory: $(cat "$WORK/d.err")"
check_quiet "$SSHD_PIDS"

# a template without {host} gets the host appended, as MPICH's ssh path
run_job "$WORK/b" --launcher ssh --launcher-exec "ssh -F $NET_SSH_CFG" \
	--map-by node --host "$H1,$H2" -n 4 "$EXE" ||
	fail "ssh without {host}: exit $?: $(tail -5 "$WORK/b.err")"
check_netcheck "$WORK/b" 4 "$H1" "$H2" "$H1" "$H2"
check_quiet "$SSHD_PIDS"
finish
