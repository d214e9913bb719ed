#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/rails.sh [-o DIR] [rails.py options]: issue 31's figures on the
# emulated grid `multirail` (test/net/grid): one peer pair over one and two
# networks (4 MiB bandwidth, 8-byte latency; Network-1 at 100 and 30 Mb/s),
# and paper B's configurations b..h with every client bursting to the
# server, Michi's weight rules beside Open MPI's and MPICH's on the same
# links. Builds test/net/railprog.c with each MPI's mpicc in a scratch
# directory, runs bench/rails.py (its docstring has the options) and
# bench/rails_report.py (CSVs, plot, summary.md) into
# bench/results/<date>-rails/ (or -o DIR). Root only. Michi is MICHI_PREFIX
# (default build/install of this tree). Its own grid instance
# (MICHI_GRID_PREFIX, default b31), taken down on exit.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=
ARGS=
while [ $# -gt 0 ]; do
	case $1 in
	-o) OUT=$2; shift 2 ;;
	-h|--help) sed -n '3,13p' "$0"; exit 0 ;;
	*) ARGS="$ARGS $1"; shift ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "rails: needs root (test/net/grid)" >&2; exit 77; }
for t in python3 gnuplot mpicc.mpich mpiexec.mpich mpicc.openmpi mpirun.openmpi; do
	command -v $t >/dev/null 2>&1 || { echo "rails: $t is missing" >&2; exit 77; }
done
MICHI_PREFIX=${MICHI_PREFIX:-$TOP/build/install}
[ -x "$MICHI_PREFIX/bin/mpicc" ] || { echo "rails: no Michi at $MICHI_PREFIX (MICHI_PREFIX)" >&2; exit 77; }
if [ -z "${MICHI_LINKEMU:-}" ] && [ -x "$TOP/build/test/net/linkemu" ]; then
	MICHI_LINKEMU=$TOP/build/test/net/linkemu
fi
export MICHI_LINKEMU="${MICHI_LINKEMU:-}" MICHI_MPIRUN="$MICHI_PREFIX/bin/mpirun"
export MICHI_GRID_PREFIX=${MICHI_GRID_PREFIX:-b31}
unset MICHI_GRID_DIR
[ -n "$OUT" ] || OUT=$TOP/bench/results/$(date -u +%Y-%m-%d)-rails
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/rails.XXXXXX)
trap '"$TOP/test/net/grid" down >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM HUP

"$MICHI_PREFIX/bin/mpicc" -O2 -o "$WORK/railprog.michi" "$TOP/test/net/railprog.c"
mpicc.mpich -O2 -o "$WORK/railprog.mpich" "$TOP/test/net/railprog.c"
mpicc.openmpi -O2 -o "$WORK/railprog.openmpi" "$TOP/test/net/railprog.c"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "cpu: $("$TOP/bench/cpu-id.sh")"
	echo "cores: $(nproc)"
	echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
	echo "kernel: $(uname -r)"
	echo "commit: $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "mpich: $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version: *//p' | head -n 1)"
	echo "openmpi: $(mpirun.openmpi --version 2>/dev/null | head -n 1)"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$OUT/machine.txt"
echo "rails: results in $OUT"
# shellcheck disable=SC2086
python3 "$TOP/bench/rails.py" "$OUT" "$WORK" $ARGS
python3 "$TOP/bench/rails_report.py" "$OUT"
