#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Packs HPC Challenge side by side (Michi, MPICH, Open MPI) for a machine
# that has none of them installed and cannot fetch packages: a larger
# x86-64 Linux box lent for a scale run, say. The bundle holds the three
# hpcc builds of test/external/hpcc/run, the installed Michi, Debian's
# MPICH launcher and Open MPI tree (run through OPAL_PREFIX), and every
# shared library they need apart from glibc, which the target must have
# in a version at least as new as the one the bundle lists.
#
# usage: bench/hpcc-bundle.sh -w WORKDIR -o BUNDLE.tar.xz
#   -w  test/external/hpcc/run's --workdir where hpcc was built for the
#       labels michi, mpich and openmpi (build/LABEL/hpcc-*/hpcc)
#   -o  the bundle to write (a tar.xz with the directory hpcc-bundle/)
# MICHI_PREFIX: the installed Michi the michi build links (default
# build/install).
#
# On the target: tar -xf BUNDLE; hpcc-bundle/run.sh -o RESULTS ... (see
# bench/hpcc-bundle-run.sh, copied into the bundle); then here
# bench/hpcc.sh -i RESULTS -o bench/results/NAME makes the summary.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
work= out=
while getopts "w:o:h" opt; do
	case $opt in
	w) work=$OPTARG ;;
	o) out=$OPTARG ;;
	*) sed -n '/^# usage:/,/^# build\/install/s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
[ -n "$work" ] && [ -n "$out" ] || { sed -n '/^# usage:/,/^# build\/install/s/^# \{0,1\}//p' "$0"; exit 2; }
prefix=$(cd "${MICHI_PREFIX:-$top/build/install}" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
b=$stage/hpcc-bundle
mkdir -p "$b/lib" "$b/hpcc" "$b/mpich/bin" "$b/etc"

for l in michi mpich openmpi; do
	h=$(compgen -G "$work/build/$l/hpcc-*/hpcc" | head -1) ||
		{ echo "hpcc-bundle: no hpcc built for $l in $work" >&2; exit 1; }
	mkdir -p "$b/hpcc/$l"
	cp "$h" "$b/hpcc/$l/hpcc"
done
cp -a "$prefix" "$b/michi"
cp /usr/bin/mpiexec.hydra /usr/bin/hydra_pmi_proxy "$b/mpich/bin/"
ln -s mpiexec.hydra "$b/mpich/bin/mpiexec"
# Open MPI as Debian installs it, relocated by OPAL_PREFIX=BUNDLE/usr
for p in libopenmpi3 openmpi-bin openmpi-common; do
	dpkg -L "$p" | while read -r f; do
		case $f in /usr/share/doc/* | /usr/share/man/* | /usr/share/lintian/*) continue ;; esac
		if [ -f "$f" ] || [ -L "$f" ]; then
			mkdir -p "$b$(dirname "$f")"
			cp -a "$f" "$b$f"
		fi
	done
done
cp -a /etc/openmpi "$b/etc/"
# UCX (MPICH's transport) loads its transports from ucx/ beside libucs
if [ -d /usr/lib/x86_64-linux-gnu/ucx ]; then
	cp -a /usr/lib/x86_64-linux-gnu/ucx "$b/lib/"
	rm -f "$b"/lib/ucx/*.a
fi

# The shared libraries of every ELF file in the bundle, glibc's excepted.
is_glibc() {
	case $(basename "$1") in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | \
		ld-linux*.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | \
		libnss_*.so.* | libmvec.so.* | libcrypt.so.*) return 0 ;;
	esac
	return 1
}
# Michi's files find Michi's libraries; the others must not (Michi also
# answers to libmpich.so.12, the name MPICH's hpcc links)
find "$b" -type f | while read -r f; do
	head -c4 "$f" | grep -q 'ELF' || continue
	case $f in
	"$b/michi/"* | "$b/hpcc/michi/"*) LD_LIBRARY_PATH=$prefix/lib ldd "$f" ;;
	*) env -u LD_LIBRARY_PATH ldd "$f" ;;
	esac 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | while read -r so; do
	is_glibc "$so" && continue
	case $so in "$b"/* | "$prefix"/*) continue ;; esac
	cp -L "$so" "$b/lib/"
done
# the BLAS hpcc links is an alternative: keep the name it is linked by
[ -e "$b/lib/libblas.so.3" ] || { echo "hpcc-bundle: libblas.so.3 not found" >&2; exit 1; }

# the newest glibc symbol version any of it needs
need=$(find "$b" -type f -exec sh -c 'head -c4 "$1" | grep -q ELF && objdump -T "$1" 2>/dev/null' _ {} \; |
	grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -1)
cp "$here/hpcc-bundle-run.sh" "$b/run.sh"
cp "$here/cpu-id.sh" "$b/cpu-id.sh"
"$top/test/external/hpcc/run" --write-input "$b/input" --ranks "2 4 8 16" --workdir "$stage/w"
rm -rf "$stage/w"
{
	echo "glibc: at least ${need#GLIBC_}"
	echo "michi: the installation in MICHI_PREFIX (or build/install); tree at commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "mpich: $(mpichversion 2>/dev/null | head -1)"
	echo "openmpi: $(mpirun.openmpi --version 2>/dev/null | head -1)"
} >"$b/versions.txt"
tar -C "$stage" -cJf "$out" hpcc-bundle
echo "hpcc-bundle: $out ($(du -h "$out" | cut -f1)); needs glibc ${need#GLIBC_}"
