#!/bin/sh
# SPDX-License-Identifier: MIT
# test/net/grid's life cycle, under its own prefix (mgl): `down` with
# nothing up; `up` of a spec, its hosts, their own names and data network;
# `up` of another spec over it (the first goes); an emulated link's
# counters, cut and restore; `down` with processes left on the hosts, and
# after a killed `up`: no namespace, root link, mount, emulator, host
# process or state file is left. Needs root (else 77).
export MICHI_GRID_PREFIX=mgl
unset MICHI_GRID_DIR
G=$(cd "$(dirname "$0")" && pwd)/grid
ST=/run/michi-grid/mgl

fail() { echo "FAIL: $*"; "$G" down >/dev/null 2>&1; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (network namespaces)"; exit 77; }
command -v ip >/dev/null 2>&1 || { echo "SKIP: no ip(8)"; exit 77; }
trap '"$G" down >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM HUP

# nothing of this test is left: namespaces, the root's link, mounts,
# processes on the hosts or naming the state directory, the state itself
leftovers() {
	ip netns list 2>/dev/null | grep '^mgl-' | sed 's/^/namespace /'
	ip link show mgl-mgmt >/dev/null 2>&1 && echo "link mgl-mgmt"
	grep " $ST/" /proc/mounts | sed 's/^/mount /'
	pgrep -f "$ST/" | sed 's/^/process /'
	[ -e "$ST" ] && echo "directory $ST"
	ls -d /etc/netns/mgl-* 2>/dev/null
	return 0
}

"$G" down || fail "down with nothing up: exit $?"
out=$(timeout 120 "$G" up npb-lan 2>&1)
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: $out"; exit 77; }
[ $rc -eq 0 ] || fail "up npb-lan: exit $rc: $out"
[ "$("$G" hosts | wc -l)" -eq 8 ] || fail "npb-lan: not 8 hosts: $("$G" hosts)"
"$G" hosts | grep -qx 'b4 A sw 10.80.1.8' || fail "b4's line: $("$G" hosts | grep b4)"
[ "$("$G" exec b4 hostname)" = b4 ] || fail "b4's host name is $("$G" exec b4 hostname)"
[ "$(hostname)" != b4 ] || fail "the root's host name changed"
"$G" exec b4 ping -c 1 -W 5 -q 10.80.1.1 >/dev/null || fail "b4 cannot reach a1 on eth0"
"$G" exec a1 'ip -o -4 addr show eth0' | grep -q ' 10\.80\.1\.1/16 ' || fail "a1's eth0"
"$G" exec a1 ping -c 1 -W 5 -q a2 >/dev/null || fail "a1 cannot resolve or reach a2 (management)"

# a second up: the first topology goes, the new one is there
out=$(timeout 120 "$G" up multirail cfg=g 2>&1) || fail "up multirail over npb-lan: $out"
ip netns list | grep -q '^mgl-a1' && fail "npb-lan's a1 is still there"
"$G" hosts | grep -qx 'D lab sw1 10.81.1.4' || fail "multirail cfg=g's D: $("$G" hosts)"
"$G" hosts | grep -qx 'A lab sw0,sw1 10.80.1.1,10.81.1.1' || fail "multirail's A: $("$G" hosts)"
"$G" exec D ping -c 1 -W 5 -q 10.81.1.1 >/dev/null || fail "D cannot reach A on Network-1"
"$G" exec B ping -c 1 -W 2 -q 10.81.1.1 >/dev/null 2>&1 && fail "B (Network-0 only) reached Network-1"
"$G" cut A:eth1 && ! "$G" exec D ping -c 1 -W 1 -q 10.81.1.1 >/dev/null 2>&1 ||
	fail "A:eth1 cut, still answers"
"$G" restore A:eth1 && "$G" exec D ping -c 3 -W 5 -q 10.81.1.1 >/dev/null || fail "A:eth1 restored, no answer"

# an emulated link, when the emulator is built
if out=$(timeout 120 "$G" up two-sites 2>&1); then
	"$G" exec a1 ping -c 3 -i 0.2 -W 5 -q 10.80.2.1 >/dev/null || fail "a1 cannot reach b1 across wan"
	"$G" stats wan | awk -F, 'NR > 1 && $4 > 0 { n++ } END { exit n != 2 }' ||
		fail "wan's counters did not count both ways: $("$G" stats wan)"
	"$G" cut wan && ! "$G" exec a1 ping -c 1 -W 1 -q 10.80.2.1 >/dev/null 2>&1 || fail "wan cut, b1 answers"
	"$G" restore wan && "$G" exec a1 ping -c 3 -W 5 -q 10.80.2.1 >/dev/null || fail "wan restored, no answer"
	# processes left on the hosts, and the emulator killed mid-run
	"$G" exec a2 sleep 300 &
	"$G" exec b3 sh -c 'sleep 300 & sleep 300' &
	sleep 1
	kill -9 "$(cat "$ST/linkemu.pid")" 2>/dev/null
else
	case $out in
	*"no link emulator"*) echo "note: no link emulator built, its part skipped: $out" ;;
	*) fail "up two-sites: $out" ;;
	esac
	"$G" exec B sleep 300 &
	sleep 1
fi
"$G" down || fail "down: exit $?"
wait
left=$(leftovers)
[ -z "$left" ] || fail "left after down: $left"

# a killed up, then down
"$G" up npb-lan >/dev/null 2>&1 &
sleep 1
kill -9 $! 2>/dev/null
wait
"$G" down || fail "down after a killed up: exit $?"
left=$(leftovers)
[ -z "$left" ] || fail "left after a killed up and down: $left"
echo "PASS: grid life cycle"
