#!/bin/bash
# SPDX-License-Identifier: MIT
#
# HPC Challenge side by side: Michi, MPICH and Open MPI on the same input,
# interleaved round by round (BENCH.md), through test/external/hpcc/run,
# which builds HPCC 1.5.0 once per MPI and checks every run's results.
#
# usage: bench/hpcc.sh -o OUTDIR [-N name] [-r rounds] [-n "2 4"] [-i DIR] [-S]
#   -o  results directory (raw.csv: every round's figures; summary.md,
#       summary.csv, plots)
#   -N  the run's name for the summary's title (default: OUTDIR's name)
#   -r  rounds (default 5): each round runs michi, mpich, openmpi in turn
#   -n  rank counts (default "2 4")
#   -i  run nothing: check and summarise the runs that the bundle of
#       bench/hpcc-bundle.sh made on another machine, brought back in DIR
#       (DIR/IMPL-N-rR/, DIR/machine.txt); -r and -n then count what is
#       there
#   -S  run nothing: summarise again the figures already in OUTDIR
#       (raw.csv, or the rounds' CSVs in OUTDIR/raw of a run cut short;
#       its machine.txt stays)
# MICHI_PREFIX: the installed Michi (default build/install); copy it
# aside first when the tree may be rebuilt meanwhile.
#
# The summary has, per rank count, the median of the rounds of each
# figure HPCC prints for the MPI library (HPL, MPIFFT, MPIRandomAccess,
# PTRANS, ping-pong and ring latency and bandwidth), with min-max, and
# Michi's ratio to the better peer, read >1 = Michi better (the inverse
# for latencies). A run whose checks fail is not counted (runs.log says).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
outdir= name= rounds=5 ranks="2 4" import= again=
while getopts "o:N:r:n:i:Sh" opt; do
	case $opt in
	o) outdir=$OPTARG ;;
	S) again=1 ;;
	i) import=$OPTARG ;;
	N) name=$OPTARG ;;
	r) rounds=$OPTARG ;;
	n) ranks=$OPTARG ;;
	*) sed -n '/^# usage:/,/^# aside/s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
[ -n "$outdir" ] || { sed -n '/^# usage:/,/^# aside/s/^# \{0,1\}//p' "$0"; exit 2; }
prefix=${MICHI_PREFIX:-$top/build/install}
mkdir -p "$outdir/raw"
outdir=$(cd "$outdir" && pwd)
: "${name:=$(basename "$outdir")}"
work=$outdir/work
log=$outdir/runs.log
[ -n "$again" ] || : >"$log"

impl_args() {
	case $1 in
	michi) echo "--prefix $prefix" ;;
	mpich) echo "--mpicc mpicc.mpich --mpirun mpiexec.mpich" ;;
	openmpi) echo "--mpicc mpicc.openmpi" ;;
	esac
}

if [ -n "$again" ]; then
	rounds=$( { find "$outdir/raw" -maxdepth 1 -name '*-*-r*.csv' -printf '%f\n' 2>/dev/null |
		sed 's/.*-r\([0-9]*\)\.csv$/\1/'
		[ -f "$outdir/raw.csv" ] && tail -n +2 "$outdir/raw.csv" | cut -d, -f1; } |
		sort -n | tail -1)
	[ -n "$rounds" ] || { echo "bench/hpcc.sh: no raw CSVs in $outdir/raw or $outdir/raw.csv" >&2; exit 2; }
fi
if [ -n "$import" ]; then
	import=$(cd "$import" && pwd)
	[ -f "$import/machine.txt" ] || { echo "bench/hpcc.sh: no $import/machine.txt" >&2; exit 2; }
	ranks=$(find "$import" -maxdepth 1 -name '*-*-r*' -printf '%f\n' | cut -d- -f2 | sort -n -u | xargs)
	rounds=$(find "$import" -maxdepth 1 -name '*-*-r*' -printf '%f\n' | sed 's/.*-r//' | sort -n | tail -1)
	[ -n "$ranks" ] || { echo "bench/hpcc.sh: no runs in $import" >&2; exit 2; }
	for n in $ranks; do
		for ((r = 1; r <= rounds; r++)); do
			for impl in michi mpich openmpi; do
				src=$import/$impl-$n-r$r
				[ -d "$src" ] || continue
				rm -rf "$work/import"
				mkdir -p "$work/import/$impl-${n}ranks"
				cp "$src"/* "$work/import/$impl-${n}ranks/"
				"$top/test/external/hpcc/run" --workdir "$work" --ranks "$n" --label $impl \
					--import "$work/import" >"$outdir/raw/$impl-$n-r$r.out" 2>&1
				rc=$?
				echo "$impl ranks $n round $r: exit $rc (run exit $(cat "$src/rc"), $(cat "$src/wall_s") s), $(tail -1 "$outdir/raw/$impl-$n-r$r.out")" >>"$log"
				[ $rc -eq 0 ] && cp "$work/results/$impl-${n}ranks.csv" "$outdir/raw/$impl-$n-r$r.csv"
			done
		done
	done
	{
		cat "$import/machine.txt"
		echo "run: bench/hpcc-bundle-run.sh there, checked here by bench/hpcc.sh -i"
	} >"$outdir/machine.txt"
fi

for n in $ranks; do
	[ -n "$import$again" ] && break
	for ((r = 1; r <= rounds; r++)); do
		for impl in michi mpich openmpi; do
			load=$(cut -d' ' -f1 /proc/loadavg)
			# shellcheck disable=SC2046 # the arguments are words
			if [ $impl = openmpi ]; then
				OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
				"$top/test/external/hpcc/run" --workdir "$work" --ranks "$n" --label $impl \
					$(impl_args $impl) --mpirun "mpirun.openmpi --oversubscribe" \
					>"$outdir/raw/$impl-$n-r$r.out" 2>&1
			else
				"$top/test/external/hpcc/run" --workdir "$work" --ranks "$n" --label $impl \
					$(impl_args $impl) >"$outdir/raw/$impl-$n-r$r.out" 2>&1
			fi
			rc=$?
			echo "$impl ranks $n round $r: exit $rc, load before $load, $(tail -1 "$outdir/raw/$impl-$n-r$r.out")" >>"$log"
			[ $rc -eq 0 ] && cp "$work/results/$impl-${n}ranks.csv" "$outdir/raw/$impl-$n-r$r.csv"
		done
	done
done

[ -n "$import" ] || { [ -n "$again" ] && [ -s "$outdir/machine.txt" ]; } || {
	echo "cpu: $("$here/cpu-id.sh")"
	echo "cores: $(nproc)"
	echo "kernel: $(uname -r)"
	echo "michi: the installation in MICHI_PREFIX (or build/install); tree at commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "mpich: $(mpichversion 2>/dev/null | head -1)"
	echo "openmpi: $(mpirun.openmpi --version 2>/dev/null | head -1)"
} >"$outdir/machine.txt"

python3 - "$outdir" "$name" "$rounds" <<'EOF'
import csv, glob, os, statistics, sys
outdir, name, rounds = sys.argv[1], sys.argv[2], sys.argv[3]
METRICS = [  # name, unit, higher is better
    ("HPL_Tflops", "Tflop/s", True), ("MPIFFT_Gflops", "Gflop/s", True),
    ("MPIRandomAccess_GUPs", "GUP/s", True), ("PTRANS_GBs", "GB/s", True),
    ("AvgPingPongLatency_usec", "us", False), ("AvgPingPongBandwidth_GBytes", "GB/s", True),
    ("NaturallyOrderedRingLatency_usec", "us", False),
    ("RandomlyOrderedRingLatency_usec", "us", False),
    ("NaturallyOrderedRingBandwidth_GBytes", "GB/s", True),
    ("RandomlyOrderedRingBandwidth_GBytes", "GB/s", True)]
vals = {}
# the rounds' CSVs (raw/IMPL-N-rR.csv), packed into raw.csv with a round
# column once summarised, so that a run keeps one file, not one a round
raw = []
for f in glob.glob(os.path.join(outdir, "raw", "*.csv")):
    r = os.path.basename(f)[:-4].rsplit("-r", 1)[1]
    raw += [dict(row, round=r) for row in csv.DictReader(open(f))]
if os.path.exists(os.path.join(outdir, "raw.csv")):
    raw += list(csv.DictReader(open(os.path.join(outdir, "raw.csv"))))
for row in raw:
    vals.setdefault((row["implementation"], int(row["ranks"]), row["metric"]), []).append(float(row["value"]))
key = lambda row: (row["implementation"], int(row["ranks"]), int(row["round"]), row["metric"])
with open(os.path.join(outdir, "raw.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, ["round", "implementation", "ranks", "metric", "value"])
    w.writeheader()
    for row in sorted({key(x): x for x in raw}.values(), key=key):
        w.writerow({k: row[k] for k in w.fieldnames})
impls = ["michi", "mpich", "openmpi"]
names = {"michi": "Michi", "mpich": "MPICH", "openmpi": "Open MPI"}
ranks = sorted({k[1] for k in vals})
out = ["# %s" % name, "",
       "HPC Challenge 1.5.0 (N 2000, NB 100, test/external/hpcc/run), %s interleaved rounds per"
       " rank count on the machine of machine.txt; median over the rounds whose checks all"
       " passed (min-max in summary.csv). Ratio: Michi against the better peer, >1 = Michi"
       " better (for latencies the peer's over Michi's)." % rounds, ""]
rows = [["ranks", "metric", "impl", "median", "min", "max", "n"]]
plot = []
for n in ranks:
    out += ["## %d ranks" % n, "", "| metric | Michi | MPICH | Open MPI | Michi vs better peer |",
            "|---|---:|---:|---:|---:|"]
    for m, unit, higher in METRICS:
        med = {}
        for i in impls:
            v = vals.get((i, n, m))
            if v:
                med[i] = statistics.median(v)
                rows.append([n, m, i, med[i], min(v), max(v), len(v)])
        if "michi" not in med:
            continue
        peers = [med[p] for p in ("mpich", "openmpi") if p in med]
        if peers:
            best = max(peers) if higher else min(peers)
            ratio = med["michi"] / best if higher else best / med["michi"]
            plot.append((n, m, ratio))
        else:
            ratio = None
        cells = ["%.4g" % med[i] if i in med else "-" for i in impls]
        out.append("| %s (%s) | %s | %s | %s | %s |" % (m, unit, *cells,
                   "%.2f" % ratio if ratio else "-"))
    out.append("")
out += ["![ratios](hpcc-ratios.png)", ""]
open(os.path.join(outdir, "summary.md"), "w").write("\n".join(out))
with open(os.path.join(outdir, "summary.csv"), "w", newline="") as f:
    csv.writer(f).writerows(rows)
with open(os.path.join(outdir, "ratios.dat"), "w") as f:
    for n, m, r in plot:
        f.write("%d-%s %.4f\n" % (n, m.replace("_", "-"), r))
EOF

if command -v gnuplot >/dev/null && [ -s "$outdir/ratios.dat" ]; then
	gnuplot <<EOF
set terminal pngcairo size 1200,600
set output "$outdir/hpcc-ratios.png"
set title "HPCC: Michi against the better of MPICH and Open MPI (>1: Michi better)"
set style fill solid 0.6
set boxwidth 0.7
set xtics rotate by -45 font ",8"
set yrange [0:*]
set grid ytics
plot "$outdir/ratios.dat" using 0:2:xtic(1) with boxes notitle, 1 with lines lw 2 notitle
EOF
fi
# the runs' own output names this machine's paths: only the figures stay;
# the rounds' CSVs are in raw.csv now
rm -rf "$work" "$outdir"/raw/*.out "$outdir"/raw/*.csv
rmdir "$outdir/raw" 2>/dev/null
echo "bench/hpcc.sh: results in $outdir"
