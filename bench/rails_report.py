#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/rails_report.py DIR: the summary of a bench/rails.sh run: medians
over rounds (pair.csv, paper.csv), the acceptance ratios of issue 31 that
the run measures, rails.png (gnuplot), failover-*.png and weights.png
(the failover and weights parts) and summary.md."""

import csv
import os
import statistics
import subprocess
import sys
from collections import defaultdict


def adaptive(m, part):
    """Michi's default rule's row name in a part: michi-feedback, the
    default but for the runs of 2026-11-29 made while paper was (they
    have a michi-paper row and no michi-feedback one)."""
    return 'michi-feedback' if any(k[0] == part and k[3] == 'michi-feedback' for k in m) \
        else 'michi-paper'


def paper_verdicts(m):
    """Issue 31's acceptance on paper B's configurations: the default rule
    against round-robin (h 1.6x, d 1.3x, b, c, e within 3%) and in h
    against the better of MPTCP and Open MPI over both interfaces (1.2x)."""
    dflt = adaptive(m, 'paper')
    md = []

    def get(c, impl):
        return m.get(('paper', c, '100mbit', impl, 'flow'))

    for c, want, how in (('h', 1.6, 'at least'), ('d', 1.3, 'at least'), ('b', 0.03, 'within'),
                         ('c', 0.03, 'within'), ('e', 0.03, 'within')):
        a, rr = get(c, dflt), get(c, 'michi-roundrobin')
        if not a or not rr:
            continue
        ok = a / rr >= want if how == 'at least' else abs(a / rr - 1) <= want
        wtxt = f'{want}x' if how == 'at least' else f'{want:.0%}'
        verdict = 'met' if ok else 'not met'
        if how == 'within' and a / rr > 1 + want:
            verdict += ': above round-robin, not below'
        md.append(f'- {c}: {a / rr:.2f}x round-robin ({how} {wtxt} wanted): {verdict}')
    peers = [(get('h', i), i) for i in ('michi-mptcp', 'mpich-mptcp', 'openmpi-2rails')
             if get('h', i)]
    if peers and get('h', dflt):
        best, who = max(peers)
        md.append(f'- h: {get("h", dflt) / best:.2f}x the better of MPTCP and Open MPI '
                  f'({who}, {best:.1f} Mb/s; at least 1.2x wanted): '
                  f'{"met" if get("h", dflt) / best >= 1.2 else "not met"}')
    return [''] + md if md else []


def failover_md(d, m, med):
    """The failover part's table and acceptance lines, its plots (a
    timeline of A's NICs per schedule, Michi beside MPTCP) and Fig. 9's
    weights."""
    md = []
    fo = sorted({k[3] for k in m if k[0] == 'failover'})
    scheds = [s for s in ('cut0', 'cut1', 'flap0') if any(k[1] == s for k in m if k[0] == 'failover')]
    if fo:
        md += ['## Failover: 60 s while a network is cut and restored', '',
               'cut0/cut1: B\'s Network-0/-1 cut at 15 s, restored at 30 s, cut at 45 s; '
               'flap0: Network-0 down and up every half second from 10 s to 50 s. '
               'Longest stall: the longest wait for a message (stream) or the longest '
               'round trip (pingpong; a 4 MiB round trip takes about 0.35 s on two '
               'rails). Restore: seconds until A\'s restored NIC took 1 Mb/s again. '
               'Empty: the run failed (runs.log).', '',
               '| schedule | impl | stream: longest stall (s) | restore (s) | '
               'pingpong: longest round trip (s) | restore (s) |',
               '|---|---|---:|---:|---:|---:|']
        for s in scheds:
            for impl in fo:
                c = [m.get(('failover', s, '100mbit', impl, x))
                     for x in ('stream_gap', 'stream_restore', 'pingpong_gap', 'pingpong_restore')]
                md.append(f'| {s} | {impl} | ' +
                          ' | '.join('' if v is None else f'{v:.2f}' for v in c) + ' |')
        ad = adaptive(m, 'failover')
        worst = [m.get(('failover', s, '100mbit', ad, x)) for s in scheds
                 for x in ('stream_gap', 'pingpong_gap')]
        if worst and all(v is not None for v in worst):
            md += ['', f'- Michi\'s longest stall over every schedule: {max(worst):.2f} s '
                   f'(under 1 s wanted): {"met" if max(worst) < 1 else "not met"}']
        lags = [m.get(('failover', s, '100mbit', ad, x)) for s in ('cut0', 'cut1')
                for x in ('stream_restore',)]
        if lags and all(v is not None for v in lags):
            md.append(f'- a restored rail carries Michi\'s traffic again after at most '
                      f'{max(lags):.2f} s (two feedback intervals, 0.2 s, wanted; the '
                      f'samples are 0.1 s apart): {"met" if max(lags) <= 0.3 else "not met"}')
        md.append('')
        # one timeline plot per schedule: Michi and MPTCP's streams
        for s in scheds:
            runs = [(impl, os.path.join(d, 'failover', f'{s}-{impl}-stream-r1.csv')) for impl in fo]
            runs = [r for r in runs if os.path.exists(r[1])]
            if not runs:
                continue
            png = os.path.join(d, f'failover-{s}.png')
            script = ['set datafile separator ","', 'set terminal pngcairo size 1100,'
                      f'{260 * len(runs)} font ",9"', f'set output "{png}"',
                      f'set multiplot layout {len(runs)},1', 'set grid', 'set ylabel "Mb/s"',
                      'set yrange [0:110]', 'set xrange [0:62]', 'set key top right']
            for impl, path in runs:
                script += [f'set title "{s}: {impl}, B streams to A: A\'s NICs"',
                           f'plot "{path}" every ::1 using 1:2 with lines title "eth0 (Network-0)", '
                           f'"" every ::1 using 1:3 with lines title "eth1 (Network-1)"']
            script.append('unset multiplot')
            p = subprocess.run(['gnuplot'], input='\n'.join(script), text=True,
                               capture_output=True, timeout=120)
            if p.returncode == 0:
                md += [f'![failover {s}](failover-{s}.png)', '']
    wpath = os.path.join(d, 'weights.csv')
    if os.path.exists(wpath):
        rows = list(csv.DictReader(open(wpath)))
        ranks = sorted({r['rank'] for r in rows})
        names = {'1': 'B', '2': 'C', '3': 'D'}
        script = ['set datafile separator ","', 'set terminal pngcairo size 1100,420 font ",9"',
                  f'set output "{os.path.join(d, "weights.png")}"', 'set grid',
                  'set ylabel "share of Network-1 (rail 1)"', 'set xlabel "s"',
                  'set yrange [0:1.05]', 'set key top left',
                  'set arrow from 20,0 to 20,1.05 nohead dt 2',
                  'set arrow from 40,0 to 40,1.05 nohead dt 2',
                  'set title "paper B Fig. 9: e, B\'s Network-1 cut at 20 s (f), D\'s at 40 s (h)"']
        plots = [f'"< grep -E \'^[^,]*,{r},1,\' {wpath}" using 1:4 with linespoints '
                 f'title "{names.get(r, r)}"' for r in ranks]
        script += ['plot ' + ', '.join(plots)]
        p = subprocess.run(['gnuplot'], input='\n'.join(script), text=True,
                           capture_output=True, timeout=120)
        md += ['## Weights over time (paper B\'s Fig. 9)', '',
               'Topology e (B, C, D dual) with every client streaming to A; B\'s '
               'Network-1 cut at 20 s gives f, D\'s at 40 s gives h. Each client\'s share '
               'of Network-1 from MPI_T (tcp_rail1_share) every half second; a cut '
               'rail\'s share is 0 while its connection runs on the other rail.', '']
        for r in ranks:
            pts = [(float(x['t']), float(x['share'])) for x in rows
                   if x['rank'] == r and x['rail'] == '1']
            span = lambda a, b: [v for t, v in pts if a <= t < b]
            seg = [span(10, 20), span(30, 40), span(50, 61)]
            md.append(f'- {names.get(r, r)}: share of Network-1, median over 10-20 s (e) '
                      + ', 30-40 s (f), 50-60 s (h): ' +
                      ', '.join('-' if not s else f'{statistics.median(s):.2f}' for s in seg))
        if p.returncode == 0:
            md += ['', '![weights](weights.png)']
        md.append('')
    return md


def main(d):
    rows = list(csv.DictReader(open(os.path.join(d, 'runs.csv'))))
    med = defaultdict(list)
    for r in rows:
        if r['value'] != '':
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
        ad = adaptive(m, 'pair')
        two = m.get(('pair', 'b', '100mbit', ad, 'bw'))
        asym = m.get(('pair', 'b', '30mbit', ad, 'bw'))
        one30 = m.get(('pair', 'b', '30mbit', 'michi-1rail', 'bw'))
        l1 = m.get(('pair', 'b', '100mbit', 'michi-1rail', 'lat'))
        l2 = m.get(('pair', 'b', '100mbit', ad, 'lat'))
        lat_src = 'the pair runs'
        if ('lat', 'b', '100mbit', 'michi-1rail', 'lat') in m:
            l1 = m[('lat', 'b', '100mbit', 'michi-1rail', 'lat')]
            l2 = m.get(('lat', 'b', '100mbit', adaptive(m, 'lat'), 'lat'))
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
            w.writerow(['cfg', 'impl', 'flow_mbits'])
            for c in cfgs:
                for impl in paper:
                    w.writerow([c, impl, m.get(('paper', c, '100mbit', impl, 'flow'), '')])
        md += ['## Paper B\'s configurations: every client bursts to the server A', '',
               'Mb/s received by A\'s NICs while every client sends 4 MiB messages one '
               'after the other (from a quarter of the run to nine tenths).', '',
               '| cfg | ' + ' | '.join(paper) + f' | {adaptive(m, "paper")[6:]} / round-robin |',
               '|---|' + '---:|' * (len(paper) + 1)]
        for c in cfgs:
            v = [m.get(('paper', c, '100mbit', i, 'flow')) for i in paper]
            fb = m.get(('paper', c, '100mbit', adaptive(m, 'paper'), 'flow'))
            rr = m.get(('paper', c, '100mbit', 'michi-roundrobin', 'flow'))
            ratio = f'{fb / rr:.2f}x' if fb and rr else ''
            md.append(f'| {c} | ' + ' | '.join('' if x is None else f'{x:.1f}' for x in v) +
                      f' | {ratio} |')
        md += paper_verdicts(m)
        fb = m.get(('paper', 'd8', '100mbit', adaptive(m, 'paper'), 'sender2'))
        rr = m.get(('paper', 'd8', '100mbit', 'michi-roundrobin', 'sender2'))
        ln = m.get(('paper', 'd8', '100mbit', 'michi-links', 'sender2'))
        if fb and rr:
            md += ['', 'd8 is paper B\'s Table 8: d with B only pinging A, 8 bytes a second, '
                   f'while C bursts. C\'s rate: {adaptive(m, "paper")[6:]} {fb:.1f}, '
                   f'round-robin {rr:.1f}'
                   + (f', links {ln:.1f}' if ln else '') + ' Mb/s; the default rule against '
                   'round-robin '
                   f'{fb / rr:.3f} (within 2% wanted: '
                   f'{"met" if abs(fb / rr - 1) <= 0.02 else "not met"}).']
        md.append('')

    md += failover_md(d, m, med)

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
        script += ['set title "paper B: clients burst to A (received at A\'s NICs)"',
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
