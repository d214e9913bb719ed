#!/bin/sh
# SPDX-License-Identifier: MIT
# test/net/hosts.sh: test hosts as network namespaces, for the multi-host
# tests. Sourced by a test (functions below), or run by hand:
#   sh test/net/hosts.sh up N [ssh]   prints NET_DIR=... and one line a host
#   sh test/net/hosts.sh down NET_DIR removes what that `up` made
#
# Layout of one run, its tag T = michi<pid> (unique per run):
#   T-h1 .. T-hN   hosts: lo up, eth0 with 10.77.K.i/24, default route
#                  via 10.77.K.254 (so they reach every address of the root
#                  namespace, mpirun's included); optionally an sshd on
#                  10.77.K.i:22 that knows one client key of the run
#   T-sw           the switch: a bridge joining the hosts' veth peers and
#                  one veth to the root namespace. The bridge lives in its
#                  own namespace, where the root's netfilter rules (Docker
#                  drops bridged traffic) do not apply.
#   <T>r           in the root namespace: that veth, 10.77.K.254/24.
# With NET_ISOLATED=1 set before net_up, the hosts are a cluster network
# that knows only itself, as a testbed's or a cluster's behind a launch
# node: 10.77.K.i/25 (N <= 125), no default route; the root veth has
# 10.77.K.126/25 (NET_GW, the one address of this machine they reach)
# and, added first, 10.77.K.254/25 (NET_FAR), an address of this machine
# that no host can reach, as its other addresses.
# K is the first /24 of 10.77.0.0/16 (from the pid on) that no address or
# route of the root namespace covers but the default route, chosen under a
# lock so parallel runs take different ones. Nothing else is touched: no
# other address, route, sysctl or firewall rule.
#
# Every object made is written to $NET_DIR/created first, so net_down
# (call it from a trap) removes exactly those, in any state, and twice
# without harm; it kills every process left in the hosts' namespaces.
#
# Functions: net_up N (returns 77 with $NET_WHY when it cannot), net_sshd
# (same), net_down, net_leftovers (prints what is left of this run).
# Variables after net_up: NET_HOSTS "T-h1 T-h2 ...", NET_GW (10.77.K.254,
# isolated .126), NET_FAR (isolated only), NET_PLEN (the hosts' prefix
# length), net_addr i (10.77.K.i); after net_sshd: NET_SSH_CFG (ssh -F it).

NET_TAG=${NET_TAG:-michi$$}
NET_DIR=${NET_DIR:-}
NET_HOSTS=
NET_WHY=

# run a command with a time limit when timeout(1) exists
net_t() {
	if command -v timeout >/dev/null 2>&1; then timeout "$@"; else shift; "$@"; fi
}

net_note() { echo "$1" >>"$NET_DIR/created"; }

net_addr() { echo "$NET_NET.$1"; }

# Is 10.77.$1.0/24 free here: no address in it, no route covering it but
# the default one?
net_subnet_free() {
	ip -4 -o addr show 2>/dev/null | grep -q " 10\.77\.$1\." && return 1
	[ -z "$(ip -4 route show match "10.77.$1.0/24" 2>/dev/null | grep -v '^default')" ]
}

net_up() {
	n=$1
	NET_WHY=
	case $n in
	'' | *[!0-9]*) NET_WHY="net_up: bad host count '$n'"; return 1 ;;
	esac
	[ "$n" -ge 1 ] && [ "$n" -le 250 ] || { NET_WHY="net_up: 1 to 250 hosts, not $n"; return 1; }
	if [ "${NET_ISOLATED:-0}" = 1 ] && [ "$n" -gt 125 ]; then
		NET_WHY="net_up: 1 to 125 isolated hosts, not $n"
		return 1
	fi
	if [ "$(id -u)" -ne 0 ]; then
		NET_WHY="test hosts need root (network namespaces, veth, bridge)"
		return 77
	fi
	if ! command -v ip >/dev/null 2>&1; then
		NET_WHY="ip(8) from iproute2 is missing"
		return 77
	fi
	[ -n "$NET_DIR" ] || NET_DIR=$(mktemp -d "${TMPDIR:-/tmp}/$NET_TAG.XXXXXX") || return 1
	echo "$NET_TAG" >"$NET_DIR/tag"
	: >>"$NET_DIR/created"
	sw=$NET_TAG-sw
	if ! err=$(ip netns add "$sw" 2>&1); then
		NET_WHY="cannot create a network namespace: $err"
		return 77
	fi
	net_note "ns $sw"
	# choose the subnet and claim it (the root veth's address) under a lock
	lock=${TMPDIR:-/tmp}/michi-net.lock
	exec 9>>"$lock"
	command -v flock >/dev/null 2>&1 && net_t 30 flock 9
	k=$(($$ % 250 + 1))
	tries=0
	while ! net_subnet_free $k; do
		k=$((k % 250 + 1))
		tries=$((tries + 1))
		if [ $tries -ge 250 ]; then
			exec 9>&-
			NET_WHY="no free /24 in 10.77.0.0/16"
			net_down
			return 77
		fi
	done
	NET_NET=10.77.$k
	if [ "${NET_ISOLATED:-0}" = 1 ]; then
		NET_PLEN=25 NET_GW=$NET_NET.126 NET_FAR=$NET_NET.254
	else
		NET_PLEN=24 NET_GW=$NET_NET.254 NET_FAR=
	fi
	echo "$NET_NET" >"$NET_DIR/net"
	net_note "link ${NET_TAG}r"
	rc=0
	ip link add "${NET_TAG}r" type veth peer name up0 netns "$sw" &&
		{ [ -z "$NET_FAR" ] || ip addr add "$NET_FAR/$NET_PLEN" dev "${NET_TAG}r"; } &&
		ip addr add "$NET_GW/$NET_PLEN" dev "${NET_TAG}r" &&
		ip link set "${NET_TAG}r" up || rc=1
	exec 9>&-
	if [ $rc -ne 0 ]; then
		NET_WHY="cannot create the veth to the switch namespace"
		net_down
		return 77
	fi
	ip -n "$sw" link set lo up &&
		ip -n "$sw" link add br0 type bridge &&
		ip -n "$sw" link set up0 master br0 &&
		ip -n "$sw" link set up0 up &&
		ip -n "$sw" link set br0 up || { NET_WHY="cannot create the bridge"; net_down; return 77; }
	i=1
	while [ $i -le "$n" ]; do
		h=$NET_TAG-h$i
		net_note "ns $h"
		if ! ip netns add "$h" ||
			! ip -n "$h" link set lo up ||
			! ip link add eth0 netns "$h" type veth peer name "h$i" netns "$sw" ||
			! ip -n "$sw" link set "h$i" master br0 ||
			! ip -n "$sw" link set "h$i" up ||
			! ip -n "$h" addr add "$NET_NET.$i/$NET_PLEN" dev eth0 ||
			! ip -n "$h" link set eth0 up ||
			{ [ -z "$NET_FAR" ] && ! ip -n "$h" route add default via "$NET_GW"; }; then
			NET_WHY="cannot set up test host $h"
			net_down
			return 77
		fi
		NET_HOSTS="$NET_HOSTS${NET_HOSTS:+ }$h"
		i=$((i + 1))
	done
	echo "$NET_HOSTS" >"$NET_DIR/hosts"
	return 0
}

# openssh-server (and client) from Debian's packages when missing
net_ssh_install() {
	[ -x /usr/sbin/sshd ] && command -v ssh >/dev/null 2>&1 && command -v ssh-keygen >/dev/null 2>&1 &&
		return 0
	if ! command -v apt-get >/dev/null 2>&1; then
		NET_WHY="sshd is missing and there is no apt-get to install openssh-server"
		return 77
	fi
	echo "hosts.sh: installing openssh-server openssh-client" >&2
	export DEBIAN_FRONTEND=noninteractive
	if ! net_t 300 apt-get install -y -qq --no-install-recommends openssh-server openssh-client \
		>"$NET_DIR/apt.log" 2>&1; then
		net_t 300 apt-get update -qq >>"$NET_DIR/apt.log" 2>&1
		net_t 300 apt-get install -y -qq --no-install-recommends openssh-server \
			openssh-client >>"$NET_DIR/apt.log" 2>&1
	fi
	if [ ! -x /usr/sbin/sshd ]; then
		NET_WHY="cannot install openssh-server: $(tail -n 2 "$NET_DIR/apt.log" | tr '\n' ' ')"
		return 77
	fi
	return 0
}

# One sshd per host on its address, keys of this run only.
net_sshd() {
	net_ssh_install || return $?
	d=$NET_DIR/ssh
	mkdir -p "$d" && chmod 700 "$d" || return 1
	ssh-keygen -q -t ed25519 -N '' -C michi-test-host -f "$d/host_key" &&
		ssh-keygen -q -t ed25519 -N '' -C michi-test-client -f "$d/id" || {
		NET_WHY="ssh-keygen failed"
		return 77
	}
	cp "$d/id.pub" "$d/authorized_keys"
	echo "michi-test-host $(cut -d' ' -f1,2 "$d/host_key.pub")" >"$d/known_hosts"
	cat >"$d/sshd_config" <<EOF
Port 22
HostKey $d/host_key
AuthorizedKeysFile $d/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
X11Forwarding no
PrintMotd no
PrintLastLog no
UseDNS no
LogLevel ERROR
MaxStartups 100:30:200
MaxSessions 100
EOF
	{
		cat <<EOF
Host $NET_TAG-h*
	User root
	IdentityFile $d/id
	IdentitiesOnly yes
	HostKeyAlias michi-test-host
	UserKnownHostsFile $d/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
	ForwardX11 no
	ForwardAgent no
	ConnectTimeout 5
	LogLevel ERROR
EOF
		i=1
		for h in $NET_HOSTS; do
			printf 'Host %s\n\tHostName %s\n' "$h" "$NET_NET.$i"
			i=$((i + 1))
		done
	} >"$d/ssh_config"
	NET_SSH_CFG=$d/ssh_config
	# sshd's privilege separation directory; removed again if we made it
	if [ ! -d /run/sshd ]; then
		mkdir -p /run/sshd && chmod 755 /run/sshd && net_note "dir /run/sshd"
	fi
	i=1
	for h in $NET_HOSTS; do
		ip netns exec "$h" /usr/sbin/sshd -D -e -f "$d/sshd_config" \
			-o "ListenAddress=$NET_NET.$i" -o "PidFile=$d/sshd-$i.pid" \
			</dev/null >/dev/null 2>"$d/sshd-$i.log" &
		net_note "pid $!"
		echo $! >>"$d/sshd.pids"
		i=$((i + 1))
	done
	# ready when a login works on every host (at most ~10 s each)
	for h in $NET_HOSTS; do
		t=0
		until net_t 10 ssh -F "$NET_SSH_CFG" "$h" true </dev/null 2>"$d/probe.err"; do
			t=$((t + 1))
			if [ $t -ge 20 ]; then
				NET_WHY="no ssh login to $h: $(cat "$d/probe.err") $(cat "$d/sshd-"*.log 2>/dev/null)"
				return 1
			fi
			sleep 0.5
		done
	done
	return 0
}

# pids of the processes in a namespace (ip netns pids), one a line
net_pids() { ip netns pids "$1" 2>/dev/null; }

# Remove what $NET_DIR/created lists, last made first; safe to repeat.
net_down() {
	[ -n "$NET_DIR" ] && [ -f "$NET_DIR/created" ] || return 0
	tac "$NET_DIR/created" 2>/dev/null >"$NET_DIR/undo" || return 0
	# first every process: recorded ones, then what runs in a namespace
	while read -r kind what; do
		[ "$kind" = pid ] && kill -TERM "$what" 2>/dev/null
		[ "$kind" = ns ] && for p in $(net_pids "$what"); do kill -TERM "$p" 2>/dev/null; done
	done <"$NET_DIR/undo"
	sleep 0.2
	while read -r kind what; do
		[ "$kind" = pid ] && kill -KILL "$what" 2>/dev/null
		[ "$kind" = ns ] && for p in $(net_pids "$what"); do kill -KILL "$p" 2>/dev/null; done
	done <"$NET_DIR/undo"
	while read -r kind what; do
		case $kind in
		ns) [ -e "/run/netns/$what" ] && ip netns del "$what" 2>/dev/null ;;
		link) ip link show "$what" >/dev/null 2>&1 && ip link del "$what" 2>/dev/null ;;
		dir) rmdir "$what" 2>/dev/null ;;
		esac
	done <"$NET_DIR/undo"
	# a namespace goes when its last process does: wait for the kernel
	i=0
	while [ -n "$(net_leftovers)" ] && [ $i -lt 20 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	: >"$NET_DIR/created"
	rm -rf "$NET_DIR"
	return 0
}

# What of this run still exists: namespaces, the root link, processes.
net_leftovers() {
	ip netns list 2>/dev/null | grep "^$NET_TAG-" | sed 's/^/namespace /'
	ip -o link show 2>/dev/null | grep -q " ${NET_TAG}r[@:]" && echo "link ${NET_TAG}r"
	[ -n "$NET_DIR" ] && for p in $(pgrep -f "$NET_DIR/" 2>/dev/null); do echo "process $p"; done
	return 0
}

# command mode: `hosts.sh up N [ssh]`, `hosts.sh down NET_DIR`
if [ "$(basename "$0")" = hosts.sh ]; then
	case ${1:-} in
	up)
		[ -n "${2:-}" ] || { echo "usage: $0 up N [ssh]" >&2; exit 2; }
		net_up "$2" || { rc=$?; echo "hosts.sh: $NET_WHY" >&2; exit $rc; }
		if [ "${3:-}" = ssh ]; then
			net_sshd || { rc=$?; echo "hosts.sh: $NET_WHY" >&2; net_down; exit $rc; }
			echo "NET_SSH_CFG=$NET_SSH_CFG"
		fi
		echo "NET_DIR=$NET_DIR"
		i=1
		for h in $NET_HOSTS; do echo "$h $NET_NET.$i"; i=$((i + 1)); done
		;;
	down)
		[ -d "${2:-}" ] || { echo "usage: $0 down NET_DIR" >&2; exit 2; }
		NET_DIR=$2
		NET_TAG=$(cat "$NET_DIR/tag")
		net_down
		;;
	*)
		echo "usage: $0 up N [ssh] | down NET_DIR" >&2
		exit 2
		;;
	esac
fi
