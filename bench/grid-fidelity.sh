#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/grid-fidelity.sh [SPEC[:VAR=VAL,...]...]: how faithfully the
# emulated grid (test/net/grid) gives what its specs configure. For every
# spec (default: every example spec and its documented variants, plus a
# 1.2 Gbit/s WAN path between 10 Gbit/s NICs, the emulator's GSO case) it
# brings the grid up and measures, per link class (host NIC, WAN path,
# inter-switch hops), RTT (ping min/median), one TCP flow and 4 parallel
# flows (iperf3) against the configured figures, and the emulator's CPU
# over the flows (bench/grid_fidelity.py says exactly how). Writes
# bench/results/<date>-grid-fidelity/: <spec>.csv, all.csv, fidelity.png
# (measured against configured, RTT and rates), machine.txt and
# summary.md. Root only; needs iperf3, ping and gnuplot. Runs its own grid
# instance (MICHI_GRID_PREFIX gf<pid>), removed on exit.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "grid-fidelity: needs root (test/net/grid)" >&2; exit 77; }
for t in iperf3 ping gnuplot python3; do
	command -v $t >/dev/null 2>&1 || { echo "grid-fidelity: $t is missing" >&2; exit 77; }
done
export MICHI_GRID_PREFIX=gf$$
trap '"$TOP/test/net/grid" down >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT TERM HUP

if [ $# -eq 0 ]; then
	set -- two-sites two-sites:lanes=rate two-sites:delay=20ms two-sites-16 \
		two-sites-16:delay=20ms multirail multirail:cfg=h npb-wan npb-wan:wan=60mbit \
		npb-lan switch-tree switch-tree:levels=3 \
		two-sites:wan=1200mbit,nic=10gbit,lanes=none,wanlimit=2mb
fi
OUT=${GRID_FIDELITY_OUT:-$TOP/bench/results/$(date -u +%Y-%m-%d)-grid-fidelity}
mkdir -p "$OUT"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "cpu: $("$TOP/bench/cpu-id.sh")"
	echo "cores: $(nproc)"
	echo "kernel: $(uname -r)"
	echo "commit: $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "linkemu: ${MICHI_LINKEMU:-build/test/net/linkemu}"
	echo "iperf3: $(iperf3 --version | head -n 1)"
} >"$OUT/machine.txt"

python3 "$TOP/bench/grid_fidelity.py" "$OUT" "$@" | tee "$OUT/run.log"
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/machine.txt"

# every spec's rows in one file, for the plot and the summary
first=1
for f in "$OUT"/*.csv; do
	[ "$(basename "$f")" = all.csv ] && continue
	if [ $first -eq 1 ]; then head -n 1 "$f"; first=0; fi
	tail -n +2 "$f"
done >"$OUT/all.csv.tmp"
mv "$OUT/all.csv.tmp" "$OUT/all.csv"

# measured against configured: RTT (emulated classes), one flow, P flows
gnuplot <<EOF
set terminal png size 1400,500
set output "$OUT/fidelity.png"
set datafile separator ","
set multiplot layout 1,3 title "Emulated grid: measured against configured ($(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
set key top left
set grid
set logscale xy
set title "RTT (ms), emulated paths"
set xlabel "configured"; set ylabel "measured"
plot "$OUT/all.csv" every ::1 using (\$5 > 0 ? \$6 : 1/0):7 with points pt 7 title "min", \
     "" every ::1 using (\$5 > 0 ? \$6 : 1/0):8 with points pt 6 title "median", x with lines lt 0 title "y = x"
set title "one TCP flow (Mb/s)"
plot "$OUT/all.csv" every ::1 using 9:10 with points pt 7 title "one flow", x with lines lt 0 title "y = x"
set title "parallel TCP flows, aggregate (Mb/s)"
plot "$OUT/all.csv" every ::1 using 13:14 with points pt 7 title "P flows", x with lines lt 0 title "y = x"
unset multiplot
EOF

# the summary: every row, measured / configured
python3 - "$OUT" <<'EOF'
import csv, os, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(out, 'all.csv'))))
mach = open(os.path.join(out, 'machine.txt')).read()
def r(a, b):
    try:
        a, b = float(a), float(b)
        return f'{a / b:.3f}' if b else ''
    except ValueError:
        return ''
lines = ['# The emulated grid against its specs (bench/grid-fidelity.sh)', '',
         '```', mach.strip(), '```', '',
         'Per spec and link class: RTT (30 pings; configured = delays and a ping',
         "frame's serialization of every emulated link crossed, both ways), one",
         'TCP flow and P flows (iperf3, 4 s after 1 s warm-up; configured = the',
         "narrowest rate as TCP payload, or window/RTT where the spec's TCP",
         'buffers limit a flow; P flows: min(P x one, the path)), and the',
         "emulator's CPU over those flows as a fraction of one core.",
         'The ratios are measured / configured. CSVs: one per spec, all.csv;',
         'plot: fidelity.png.', '',
         '| spec | class | RTT cfg ms | min | median | 1 flow cfg Mb/s | meas | ratio | P | P cfg | meas | ratio | emu core |',
         '|---|---|---|---|---|---|---|---|---|---|---|---|---|']
for x in rows:
    lines.append(f"| {x['spec']} | {x['class']} | {x['rtt_cfg_ms']} | {x['rtt_min_ms']} | "
                 f"{x['rtt_median_ms']} | {x['flow1_cfg_mbps']} | {x['flow1_mbps']} | "
                 f"{r(x['flow1_mbps'], x['flow1_cfg_mbps'])} | {x['flows']} | {x['flowP_cfg_mbps']} | "
                 f"{x['flowP_mbps']} | {r(x['flowP_mbps'], x['flowP_cfg_mbps'])} | {x['emu_cpu_core']} |")
gb = [x for x in rows if x['class'] == 'wan' and float(x['flow1_cfg_mbps']) >= 1000]
lines.append('')
for x in gb:
    ok = float(x['flow1_mbps']) >= 1000 and float(x['emu_cpu_core']) <= 0.5
    lines.append(f"1 Gbit/s case ({x['spec']}): one TCP flow {x['flow1_mbps']} Mb/s across the "
                 f"WAN path, the emulator at {x['emu_cpu_core']} of a core: "
                 f"{'meets' if ok else 'misses'} the target (>= 1000 Mb/s at <= 0.5 core).")
open(os.path.join(out, 'summary.md'), 'w').write('\n'.join(lines) + '\n')
EOF
echo "grid-fidelity: $OUT"
