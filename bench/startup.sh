#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Job start-up side by side (issue 8, BENCH.md): the wall time of
# `launcher -n N ./init_finalize` (a program that calls MPI_Init and
# MPI_Finalize and nothing else) for Michi's mpirun, MPICH's mpiexec and
# Open MPI's mpirun, at each rank count, rounds interleaved A, B, C, A,
# B, C... One binary built by mpicc.mpich runs on MPICH and, through
# LD_LIBRARY_PATH, on Michi; Open MPI runs its own build. Ranks
# outnumber the cores (oversubscribed), as they do on laptops and CI
# runners. It holds /tmp/michi-bench.lock, records the load average
# before and after each run, and writes CSV, summary.md, a PNG and
# machine.txt into bench/results/<date>-<name>/.
#
# usage: MICHI_PREFIX=P bench/startup.sh [-N name] [-r rounds] [-n "16 64 256"]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
name=startup
rounds=5
counts="16 64 256"
while getopts "N:r:n:h" opt; do
	case $opt in
	N) name=$OPTARG ;;
	r) rounds=$OPTARG ;;
	n) counts=$OPTARG ;;
	*) sed -n '2,/^set -e/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 2 ;;
	esac
done
[ -x "${MICHI_PREFIX:-}/bin/mpirun" ] || { echo "startup.sh: set MICHI_PREFIX" >&2; exit 1; }
for t in mpicc.mpich mpiexec.mpich mpicc.openmpi mpirun.openmpi gnuplot flock; do
	command -v $t >/dev/null || { echo "startup.sh: $t not found" >&2; exit 1; }
done
out=$here/results/$(date +%F)-$name
[ -e "$out" ] && { echo "startup.sh: $out exists" >&2; exit 2; }

exec 9>/tmp/michi-bench.lock
flock -w 3600 9 || { echo "startup.sh: bench lock held for an hour" >&2; exit 1; }
build=$(mktemp -d "${TMPDIR:-/tmp}/michi-startup.XXXXXX")
trap 'rm -rf "$build"' EXIT
cat >"$build/init_finalize.c" <<'EOF'
#include <mpi.h>
int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Finalize();
	return 0;
}
EOF
mpicc.mpich -O2 -o "$build/if.mpich" "$build/init_finalize.c"
mpicc.openmpi -O2 -o "$build/if.openmpi" "$build/init_finalize.c"
mkdir -p "$out"
csv=$out/startup.csv
echo "impl,ranks,round,seconds,status,load_before,load_after" >"$csv"

run() {   # impl ranks -> "seconds status" on stdout
	local impl=$1 n=$2 t0 t1 st
	local -a cmd
	case $impl in
	michi) cmd=(env "LD_LIBRARY_PATH=$MICHI_PREFIX/lib" "$MICHI_PREFIX/bin/mpirun" -n "$n"
		    "$build/if.mpich") ;;
	mpich) cmd=(mpiexec.mpich -n "$n" "$build/if.mpich") ;;
	openmpi) cmd=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
		      mpirun.openmpi --oversubscribe --bind-to none -n "$n" "$build/if.openmpi") ;;
	esac
	t0=$(date +%s.%N)
	if timeout -k 5 300 "${cmd[@]}" >>"$out/runs.log" 2>&1; then st=ok; else st=failed; fi
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v st=$st 'BEGIN { printf "%.3f %s\n", b - a, st }'
}

load() { cut -d' ' -f1 /proc/loadavg; }
for r in $(seq "$rounds"); do
	for n in $counts; do
		for impl in michi mpich openmpi; do
			lb=$(load)
			read -r s st < <(run $impl "$n")
			echo "$impl,$n,$r,$s,$st,$lb,$(load)" >>"$csv"
			echo "round $r: $impl -n $n: $s s ($st)"
		done
	done
done

{
	echo "# startup"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $("$here/cpu-id.sh")," \
		"$(nproc) cores, $(uname -r). $rounds interleaved rounds; each figure the median"
	echo "(min-max) wall time of \`launcher -n N ./init_finalize\`, oversubscribed."
	echo "Michi at $(git -C "$here/.." rev-parse --short HEAD), its mpirun running the mpicc.mpich binary."
	echo
	echo "| ranks | Michi (s) | MPICH (s) | Open MPI (s) | Michi vs better peer |"
	echo "|---:|---:|---:|---:|---:|"
	awk -F, 'NR > 1 && $5 == "ok" { v[$1 "," $2] = v[$1 "," $2] " " $4; n[$2] = 1 }
	function med(s,   a, k, i, j, t) {
		k = split(s, a, " ")
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		lo = a[1]; hi = a[k]
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	END {
		for (c in n) {
			m = med(v["michi," c]); ml = lo; mh = hi
			p = med(v["mpich," c]); pl = lo; ph = hi
			o = med(v["openmpi," c]); ol = lo; oh = hi
			b = p < o ? p : o
			printf "| %d | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %.2f |\n",
				c, m, ml, mh, p, pl, ph, o, ol, oh, (m > 0 ? b / m : 0)
		}
	}' "$csv" | sort -t'|' -k2 -n
	echo
	echo "Ratio > 1: Michi starts and ends the job faster than the better peer."
	echo "Failed runs: $(grep -c ',failed,' "$csv" || true) (runs.log)."
} >"$out/summary.md"
{ lscpu; uname -a; } >"$out/machine.txt"

awk -F, 'NR > 1 && $5 == "ok" { print $1, $2, $4 }' "$csv" | sort -k1,1 -k2,2n >"$build/pts"
gnuplot <<EOF
set terminal png size 800,500 noenhanced
set output "$out/startup.png"
set title "MPI_Init + MPI_Finalize job, oversubscribed on $(nproc) cores"
set xlabel "ranks"; set ylabel "seconds (launcher to exit)"
set logscale x 2; set logscale y
set key left top
plot "< grep ^michi $build/pts" using 2:3 title "Michi" with points pt 7, \
     "< grep ^mpich $build/pts" using 2:3 title "MPICH" with points pt 5, \
     "< grep ^openmpi $build/pts" using 2:3 title "Open MPI" with points pt 9
EOF
cat "$out/summary.md"
