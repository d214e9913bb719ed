#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/grid-coll.sh [-o DIR] [--quick] [grid_coll.py options]: issue 29's
# figures on the emulated grid (test/net/grid `two-sites-16`, one rank a
# host; --quick: `two-sites`, 4 + 4): Scatter and Gather against block
# size for Michi single-lane, Michi automatic, the cost model, MPICH and
# Open MPI; time against the lanes P, measured and predicted; the WAN
# path's utilisation over time; Bcast, Allgather, Alltoall, Allreduce,
# Reduce and Barrier across the sites. Builds bench/gridcoll.c with each
# MPI's mpicc and bench/lanes_predict.c with coll/lanes_model.c in a
# scratch directory, runs bench/grid_coll.py (the runs; its docstring has
# the options) and bench/grid_coll_report.py (CSVs, plots, summary.md)
# into bench/results/<date>-grid-coll/ (or -o DIR). Root only. Michi is
# MICHI_PREFIX (default build/install of this tree). Its own grid
# instance (MICHI_GRID_PREFIX, default b29), taken down on exit.
# --remodel DIR: only the model's prediction (model-D.csv, from the
# parameters config.txt records) and the summary of an existing run again.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=
QUICK=
REMODEL=
ARGS=
while [ $# -gt 0 ]; do
	case $1 in
	-o) OUT=$2; shift 2 ;;
	--remodel) REMODEL=$2; shift 2 ;;
	--quick) QUICK=1; ARGS="$ARGS --quick"; shift ;;
	-h|--help) sed -n '3,16p' "$0"; python3 "$TOP/bench/grid_coll.py" -h 2>&1 | sed -n '/Options/,$p'; exit 0 ;;
	*) ARGS="$ARGS $1"; shift ;;
	esac
done
if [ -n "$REMODEL" ]; then
	WORK=$(mktemp -d /tmp/grid-coll.XXXXXX)
	trap 'rm -rf "$WORK"' EXIT
	cc -O2 -I"$TOP/coll" -o "$WORK/lanes_predict" "$TOP/bench/lanes_predict.c" "$TOP/coll/lanes_model.c" -lm
	python3 "$TOP/bench/grid_coll.py" "$REMODEL" "$WORK" --remodel
	python3 "$TOP/bench/grid_coll_report.py" "$REMODEL"
	exit
fi
[ "$(id -u)" -eq 0 ] || { echo "grid-coll: needs root (test/net/grid)" >&2; exit 77; }
for t in python3 gnuplot cc mpicc.mpich mpiexec.mpich mpicc.openmpi mpirun.openmpi; do
	command -v $t >/dev/null 2>&1 || { echo "grid-coll: $t is missing" >&2; exit 77; }
done
MICHI_PREFIX=${MICHI_PREFIX:-$TOP/build/install}
[ -x "$MICHI_PREFIX/bin/mpicc" ] || { echo "grid-coll: no Michi at $MICHI_PREFIX (MICHI_PREFIX)" >&2; exit 77; }
if [ -z "${MICHI_LINKEMU:-}" ] && [ -x "$TOP/build/test/net/linkemu" ]; then
	MICHI_LINKEMU=$TOP/build/test/net/linkemu
fi
[ -n "${MICHI_LINKEMU:-}" ] || { echo "grid-coll: no link emulator (make -C build test/net/linkemu, or MICHI_LINKEMU)" >&2; exit 77; }
export MICHI_LINKEMU MICHI_MPIRUN="$MICHI_PREFIX/bin/mpirun"
export MICHI_GRID_PREFIX=${MICHI_GRID_PREFIX:-b29}
unset MICHI_GRID_DIR
[ -n "$OUT" ] || OUT=$TOP/bench/results/$(date -u +%Y-%m-%d)-grid-coll${QUICK:+-quick}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/grid-coll.XXXXXX)
trap '"$TOP/test/net/grid" down >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP

"$MICHI_PREFIX/bin/mpicc" -O2 -I"$TOP/bench" -o "$WORK/gridcoll.michi" "$TOP/bench/gridcoll.c"
mpicc.mpich -O2 -I"$TOP/bench" -o "$WORK/gridcoll.mpich" "$TOP/bench/gridcoll.c"
mpicc.openmpi -O2 -I"$TOP/bench" -o "$WORK/gridcoll.openmpi" "$TOP/bench/gridcoll.c"
cc -O2 -I"$TOP/coll" -o "$WORK/lanes_predict" "$TOP/bench/lanes_predict.c" "$TOP/coll/lanes_model.c" -lm

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "cpu: $("$TOP/bench/cpu-id.sh")"
	echo "cores: $(nproc)"
	echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
	echo "kernel: $(uname -r)"
	echo "commit: $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "michi: ${MICHI_PREFIX#"$TOP"/}"
	echo "mpich: $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version: *//p' | head -n 1)"
	echo "openmpi: $(mpirun.openmpi --version 2>/dev/null | head -n 1)"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/machine.txt"

echo "grid-coll: results in $OUT"
# in the background, so that a signal to this script reaches it (it ends
# its job and takes the grid down) rather than waiting for it; what it
# measured until then is summarised all the same
STOPPED=
# shellcheck disable=SC2086
python3 "$TOP/bench/grid_coll.py" "$OUT" "$WORK" $ARGS &
PY=$!
trap 'STOPPED=1; kill -TERM $PY 2>/dev/null' INT TERM HUP
rc=0
wait $PY || rc=$?
if [ -n "$STOPPED" ]; then
	wait $PY 2>/dev/null || true
	rc=130
fi
trap 'exit 130' INT TERM HUP
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"
python3 "$TOP/bench/grid_coll_report.py" "$OUT"
echo "grid-coll: $OUT/summary.md"
[ $rc -eq 0 ] || { echo "grid-coll: stopped or failed (exit $rc), the summary is partial; see $OUT/runs.log" >&2; exit $rc; }
