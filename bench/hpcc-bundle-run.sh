#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Runs the HPC Challenge bundle of bench/hpcc-bundle.sh on the machine it
# was unpacked on: Michi, MPICH and Open MPI in turn, round by round
# (BENCH.md), with the input test/external/hpcc/run writes, until the
# rounds or the time budget run out. The bundle holds this script as
# run.sh; nothing of the machine is installed or changed.
#
# usage: run.sh -o RESULTS [-n "4 2"] [-r ROUNDS] [-t SECONDS]
#   -o  results directory: RESULTS/IMPL-N-rR/ gets hpccoutf.txt, rc,
#       wall_s and launcher.log of each run, RESULTS/machine.txt the
#       machine; bring it back and run bench/hpcc.sh -i RESULTS
#   -n  rank counts (default "4 2"; each must have its input in the bundle)
#   -r  most rounds (default 20)
#   -t  time budget in seconds (default 420): no round starts that the
#       last one's duration says would end past it
set -uo pipefail

b=$(cd "$(dirname "$0")" && pwd)
out= ranks="4 2" rounds=20 budget=420
while getopts "o:n:r:t:h" opt; do
	case $opt in
	o) out=$OPTARG ;;
	n) ranks=$OPTARG ;;
	r) rounds=$OPTARG ;;
	t) budget=$OPTARG ;;
	*) sed -n '/^# usage:/,/^#       last one/s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
[ -n "$out" ] || { sed -n '/^# usage:/,/^#       last one/s/^# \{0,1\}//p' "$0"; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Open MPI: relocated to the bundle, with Debian's system-wide MCA settings
ompi_env=(OPAL_PREFIX="$b/usr" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
while IFS='=' read -r k v; do
	k=$(echo "$k" | tr -d ' ') v=$(echo "$v" | tr -d ' ')
	[ -n "$k" ] && ompi_env+=("OMPI_MCA_$k=$v")
done < <(grep -v '^ *#' "$b/etc/openmpi/openmpi-mca-params.conf" | grep '=')
ompi_extra=()

# launch IMPL N: runs hpcc of IMPL on N ranks in the current directory
launch() {
	local impl=$1 n=$2
	case $impl in
	michi)
		env LD_LIBRARY_PATH="$b/michi/lib:$b/lib" \
			timeout -k 5 150 "$b/michi/bin/mpirun" -n "$n" "$b/hpcc/michi/hpcc" ;;
	mpich)
		env LD_LIBRARY_PATH="$b/lib" \
			timeout -k 5 150 "$b/mpich/bin/mpiexec.hydra" -launcher fork -n "$n" "$b/hpcc/mpich/hpcc" ;;
	openmpi)
		env LD_LIBRARY_PATH="$b/lib" "${ompi_env[@]}" \
			timeout -k 5 150 "$b/usr/bin/orterun" --oversubscribe "${ompi_extra[@]}" \
			-n "$n" "$b/hpcc/openmpi/hpcc" ;;
	esac
}

run_one() {
	local impl=$1 n=$2 r=$3 d res t0 rc=0
	d=$work/$impl-$n-r$r res=$out/$impl-$n-r$r
	mkdir -p "$d" "$res"
	cp "$b/input/$n/hpccinf.txt" "$d/"
	t0=$(date +%s.%N)
	(cd "$d" && OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 launch "$impl" "$n") \
		</dev/null >"$d/launcher.log" 2>&1 || rc=$?
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' >"$res/wall_s"
	echo "$rc" >"$res/rc"
	head -c 20000 "$d/launcher.log" >"$res/launcher.log"
	[ -e "$d/hpccoutf.txt" ] && cp "$d/hpccoutf.txt" "$res/"
	echo "$impl ranks $n round $r: exit $rc, $(cat "$res/wall_s") s, load $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$out/runs.log"
	return "$rc"
}

{
	echo "cpu: $("$b/cpu-id.sh")"
	echo "cores: $(nproc)"
	echo "kernel: $(uname -r)"
	cat "$b/versions.txt"
} >"$out/machine.txt"

# Open MPI's shared-memory transport may find single-copy (CMA) refused
# on this machine; Michi's shm falls back to copying by itself
if ! run_one openmpi 2 0; then
	ompi_extra=(--mca btl_vader_single_copy_mechanism none)
	echo "openmpi: first run failed; from now on ${ompi_extra[*]}" | tee -a "$out/runs.log"
	echo "openmpi options: ${ompi_extra[*]}" >>"$out/machine.txt"
fi
rm -rf "$out"/openmpi-2-r0

start=$SECONDS last=0
for ((r = 1; r <= rounds; r++)); do
	t=$SECONDS
	[ $r -gt 1 ] && [ $((t - start + last)) -gt "$budget" ] && break
	for n in $ranks; do
		for impl in michi mpich openmpi; do
			run_one "$impl" "$n" "$r"
		done
	done
	last=$((SECONDS - t))
done
echo "hpcc-bundle: $((r - 1)) rounds in $((SECONDS - start)) s; results in $out"
