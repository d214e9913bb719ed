#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/rails_report.py DIR: the summary of a bench/rails.sh run: medians
over rounds (pair.csv, paper.csv), the acceptance ratios of issue 31 that
the run measures, rails.png (gnuplot) and summary.md."""

import csv
import os
import statistics
import subprocess
import sys
from collections import defaultdict


def main(d):
    rows = list(csv.DictReader(open(os.path.join(d, 'runs.csv'))))
    med = defaultdict(list)
    for r in rows:
        med[(r['part'], r['cfg'], r['nic1'], r['impl'], r['mode'])].append(float(r['value']))
    m = {k: statistics.median(v) for k, v in med.items()}
    machine = open(os.path.join(d, 'machine.txt')).read() if os.path.exists(
        os.path.join(d, 'machine.txt')) else ''
    cpu = next((x.split(':', 1)[1].strip() for x in machine.splitlines()
                if x.startswith('cpu:')), '?')
    md = ['# Rails on the emulated grid `multirail` (issue 31)', '',
          f'CPU: {cpu}. Medians of {max((len(v) for v in med.values()), default=0)} '
          'rounds; runs.csv has every round, runs.log every run.', '']

    pair = sorted({k[3] for k in m if k[0] == 'pair'})
    if pair:
        with open(os.path.join(d, 'pair.csv'), 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['nic1', 'impl', 'bw_mbits', 'lat_us'])
            for nic1 in ('100mbit', '30mbit'):
                for impl in pair:
                    w.writerow([nic1, impl, m.get(('pair', 'b', nic1, impl, 'bw'), ''),
                                m.get(('pair', 'b', nic1, impl, 'lat'), '')])
        md += ['## One peer pair, Network-0 at 100 Mb/s, Network-1 at 100 or 30 Mb/s', '',
               '| impl | bw 100+100 (Mb/s) | lat (us) | bw 100+30 (Mb/s) | lat (us) |',
               '|---|---:|---:|---:|---:|']
        for impl in pair:
            c = [m.get(('pair', 'b', n, impl, x)) for n in ('100mbit', '30mbit')
                 for x in ('bw', 'lat')]
            md.append(f'| {impl} | ' + ' | '.join('' if v is None else f'{v:.1f}' for v in c) + ' |')
        one = m.get(('pair', 'b', '100mbit', 'michi-1rail', 'bw'))
        two = m.get(('pair', 'b', '100mbit', 'michi-feedback', 'bw'))
        asym = m.get(('pair', 'b', '30mbit', 'michi-feedback', 'bw'))
        one30 = m.get(('pair', 'b', '30mbit', 'michi-1rail', 'bw'))
        l1 = m.get(('pair', 'b', '100mbit', 'michi-1rail', 'lat'))
        l2 = m.get(('pair', 'b', '100mbit', 'michi-feedback', 'lat'))
        lat_src = 'the pair runs'
        if ('lat', 'b', '100mbit', 'michi-1rail', 'lat') in m:
            l1 = m[('lat', 'b', '100mbit', 'michi-1rail', 'lat')]
            l2 = m.get(('lat', 'b', '100mbit', 'michi-feedback', 'lat'))
            n = len(med[('lat', 'b', '100mbit', 'michi-1rail', 'lat')])
            lat_src = f'{n} alternating rounds of 20000 round trips each'
        md += ['', 'Acceptance (issue 31):', '']
        if one and two:
            md.append(f'- two 100 Mb/s rails against one: {two / one:.2f}x '
                      f'(wanted at least 1.85x): {"met" if two / one >= 1.85 else "not met"}')
        if one30 and asym:
            # the sum of the rails' rates, each as one rail measures it
            s = one30 * 1.3
            md.append(f'- 100 + 30 Mb/s rails: {asym:.1f} Mb/s, {asym / s:.2f}x their sum '
                      f'({s:.1f}: 1.3x what one 100 Mb/s rail carries; wanted at least 0.9x): '
                      f'{"met" if asym / s >= 0.9 else "not met"}')
        if l1 and l2:
            md.append(f'- 8-byte latency, two rails against one: {l2:.2f} against {l1:.2f} us, '
                      f'{l2 / l1:.3f}x (at most 1.05x; medians of {lat_src}): '
                      f'{"met" if l2 / l1 <= 1.05 else "not met"}')
        md.append('')

    paper = sorted({k[3] for k in m if k[0] == 'paper'})
    if paper:
        cfgs = sorted({k[1] for k in m if k[0] == 'paper'})
        with open(os.path.join(d, 'paper.csv'), 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['cfg', 'impl', 'burst_mbits'])
            for c in cfgs:
                for impl in paper:
                    w.writerow([c, impl, m.get(('paper', c, '100mbit', impl, 'burst'), '')])
        md += ['## Paper B\'s configurations: every client bursts to the server A', '',
               '| cfg | ' + ' | '.join(paper) + ' | feedback / round-robin |',
               '|---|' + '---:|' * (len(paper) + 1)]
        for c in cfgs:
            v = [m.get(('paper', c, '100mbit', i, 'burst')) for i in paper]
            fb = m.get(('paper', c, '100mbit', 'michi-feedback', 'burst'))
            rr = m.get(('paper', c, '100mbit', 'michi-roundrobin', 'burst'))
            ratio = f'{fb / rr:.2f}x' if fb and rr else ''
            md.append(f'| {c} | ' + ' | '.join('' if x is None else f'{x:.1f}' for x in v) +
                      f' | {ratio} |')
        md.append('')

    # the plot: bandwidths of the pair part, and the paper part's bursts
    script = [f'set terminal pngcairo size 1100,420 font ",9"',
              f'set output "{os.path.join(d, "rails.png")}"', 'set multiplot layout 1,2',
              'set style data histograms', 'set style histogram clustered gap 1',
              'set style fill solid 0.8 border -1', 'set grid ytics', 'set ylabel "Mb/s"',
              'set xtics rotate by -30', 'set key top left']
    if pair:
        script += ['set title "one pair, 4 MiB from B to A (Network-1 at 100 / 30 Mb/s)"',
                   f'plot "{os.path.join(d, "pair.csv")}" every ::1::{len(pair)} using 3:xtic(2) '
                   f'title "100+100", "" every ::{len(pair) + 1} using 3 title "100+30"']
    if paper:
        script += ['set title "paper B: clients burst to A (aggregate at A)"',
                   'set datafile separator ","']
        plots = []
        for k, impl in enumerate(paper):
            plots.append(f'"< grep ,{impl}, {os.path.join(d, "paper.csv")}" using 3:xtic(1) '
                         f'title "{impl}"')
        script += ['plot ' + ', '.join(plots)]
    script = ['set datafile separator ","'] + script + ['unset multiplot']
    p = subprocess.run(['gnuplot'], input='\n'.join(script), text=True, capture_output=True,
                       timeout=120)
    if p.returncode != 0:
        print(f'rails: gnuplot: {p.stderr.strip()}', file=sys.stderr)
    md += ['![rails](rails.png)', '']
    open(os.path.join(d, 'summary.md'), 'w').write('\n'.join(md))
    print('\n'.join(md))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
