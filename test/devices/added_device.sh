#!/bin/bash
# SPDX-License-Identifier: MIT
#
# test/devices/added_device.sh: a device is one folder and one row.
#
# Copies the tracked files of this tree (no build) to a scratch
# directory, adds the loop device (test/devices/loop: a relay over
# another byte device that counts what passes) the way devices/README.md
# says a device is added: its folder as devices/loop, one row in
# devices/devices.def, one include line in devices/Makefile.inc. It checks
# that nothing else in the tree changed, builds the copy (lean: no
# Fortran, ofi, ucx, hwloc or PMIx), runs test/devices/loop_ring.c over
# MICHI_DEVICE=loop on NP ranks (default 3) and checks that every rank's
# frames went through the loop device: its counts of payload bytes sent
# and received cover what the ring moved. Ends with "N passed, M failed".
#
# usage: test/devices/added_device.sh [-k] [-n NP]   (-k: keep the scratch
# directory); MAKEFLAGS_J (default -j2) sets make's parallelism.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/test/devices"
np=3
keep=0
while getopts "kn:" opt; do
	case $opt in
	k) keep=1 ;;
	n) np=$OPTARG ;;
	*) echo "usage: $0 [-k] [-n NP]" >&2; exit 2 ;;
	esac
done
pass=0 fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
finish() {
	echo "$pass passed, $fail failed"
	exit $((fail > 0))
}

work=$(mktemp -d "${TMPDIR:-/tmp}/michi-added-device.XXXXXX")
cleanup() { [ $keep = 1 ] && echo "kept $work" || rm -rf "$work"; }
trap cleanup EXIT
src="$work/src"
mkdir -p "$src"

# 1. the tracked files only (what a fresh checkout has, with this
# worktree's uncommitted changes to them)
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z | while IFS= read -r -d '' f; do
		[ -e "$f" ] && printf "%s\0" "$f"; done | tar --null -T - -cf - | tar -xf - -C "$src") ||
		{ bad "copying the tracked files"; finish; }
else
	(cd "$top" && tar --exclude=./build --exclude=./.git -cf - .) | (cd "$src" && tar -xf -) ||
		{ bad "copying the tree"; finish; }
fi
cp -a "$src" "$work/orig"

# 2. the device: one folder, one row, one include line
cp -r "$here/loop" "$src/devices/loop"
echo 'MICHI_DEVICE(loop)' >>"$src/devices/devices.def"
echo 'include devices/loop/Makefile.inc' >>"$src/devices/Makefile.inc"
changed=$(cd "$work" && diff -rq orig src | sed -e "s|^Only in src/devices: loop$|folder|" \
	-e "s|^Files orig/\(.*\) and src/.* differ$|\1|")
expect=$(printf '%s\n' devices/Makefile.inc devices/devices.def folder | sort)
if [ "$(echo "$changed" | sort)" = "$expect" ] &&
   [ "$(cd "$work" && diff orig/devices/devices.def src/devices/devices.def | grep -c '^>')" = 1 ] &&
   [ "$(cd "$work" && diff orig/devices/Makefile.inc src/devices/Makefile.inc | grep -c '^>')" = 1 ]; then
	ok "the loop device added as one folder, one row and one include line"
else
	bad "adding the loop device changed: $(echo $changed)"
	finish
fi
rm -rf "$work/orig"

# 3. build the copy
t0=$(date +%s)
(cd "$src" && ./autogen.sh >"$work/autogen.log" 2>&1 &&
	mkdir build && cd build &&
	../configure --prefix="$work/inst" --disable-fortran --without-ofi --without-ucx \
		--without-hwloc --without-pmix >"$work/configure.log" 2>&1 &&
	make ${MAKEFLAGS_J:--j2} >"$work/make.log" 2>&1 &&
	make install >"$work/install.log" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	bad "building the copy with the loop device"
	for f in autogen configure make install; do
		[ -f "$work/$f.log" ] && { echo "---- $f.log"; tail -25 "$work/$f.log"; }
	done
	finish
fi
ok "built the copy with the loop device in $(($(date +%s) - t0)) s"

# 4. the ring over it
"$work/inst/bin/mpicc" -O1 -o "$work/loop_ring" "$here/loop_ring.c" >"$work/cc.log" 2>&1 ||
	{ bad "compiling loop_ring.c"; cat "$work/cc.log"; finish; }
out=$(cd "$work" && MICHI_DEVICE=loop timeout 120 "$work/inst/bin/mpirun" -n "$np" \
	./loop_ring 2>&1)
rc=$?
echo "$out" | sed 's/^/  /'
sent=$(echo "$out" | sed -n 's/^loop_ring: .* \([0-9][0-9]*\) payload bytes sent by each rank: OK$/\1/p')
if [ $rc -eq 0 ] && [ -n "$sent" ]; then
	ok "loop_ring on $np ranks over MICHI_DEVICE=loop"
else
	bad "loop_ring on $np ranks over MICHI_DEVICE=loop (exit $rc)"
	finish
fi
# every rank: the loop device carried at least the ring's payload each way
n=0
while read -r r out_b in_b; do
	if [ "$out_b" -ge "$sent" ] && [ "$in_b" -ge "$sent" ]; then
		n=$((n + 1))
	else
		echo "  rank $r: the loop device counted $out_b bytes out, $in_b in; the ring moved $sent"
	fi
done < <(echo "$out" | sed -n 's/.*loop device: rank \([0-9]*\) sent [0-9]* frames (\([0-9]*\) payload bytes), received [0-9]* frames (\([0-9]*\) payload bytes).*/\1 \2 \3/p')
if [ "$n" = "$np" ]; then
	ok "every rank's bytes went through the loop device"
else
	bad "$n of $np ranks report the ring's bytes through the loop device"
fi
finish
