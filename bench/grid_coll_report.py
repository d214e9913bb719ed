#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/grid_coll_report.py OUTDIR: the summaries, plots and summary.md of
a bench/grid-coll.sh run from its CSVs (it can be run again on them alone).

Per delay D: sg-D-summary.csv (op,size,impl,median,min,max over rounds of
each run's median call; the model's rows are model-p1 and model-auto),
p-D-summary.csv (op,P,median,min,max,predicted,auto), coll-D-summary.csv,
and sg-D.png, p-D.png, coll-D.png, wan-D.png (gnuplot)."""

import csv
import glob
import math
import os
import statistics
import subprocess
import sys

KIB, MIB = 1024, 1024 * 1024
NAN = float('nan')


def rd(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def agg(vals):
    if not vals:
        return NAN, NAN, NAN
    return statistics.median(vals), min(vals), max(vals)


def fmt(x, d=3):
    return 'NaN' if x is None or (isinstance(x, float) and math.isnan(x)) else f'{x:.{d}f}'


def human(m):
    m = int(m)
    if m >= MIB:
        return f'{m // MIB} MiB'
    if m >= KIB:
        return f'{m // KIB} KiB'
    return f'{m} B'


def xtics(sizes):
    """gnuplot xtics naming the sizes as KiB or MiB."""
    return 'set xtics (' + ', '.join(f'"{human(m)}" {max(m, 1)}' for m in sizes) + ')\n'


def gnuplot(script):
    p = subprocess.run(['gnuplot'], input=script, text=True, capture_output=True, timeout=120)
    if p.returncode != 0:
        print(f'grid-coll: gnuplot: {p.stderr.strip()}', file=sys.stderr)


def model(out, delay):
    """{size: {op: {'T': {P: T as a forced P runs}, 'P': auto P, 'auto': its T}}}"""
    path = os.path.join(out, f'model-{delay}.csv')
    res = {}
    if not os.path.exists(path):
        return res
    for r in rd(path):
        d = res.setdefault(int(r['size']), {}).setdefault(r['op'], {'T': {}, 'S': {}})
        # a forced P's row (older runs' files: one lane a host)
        if r.get('forced', '1' if r['h'] == '1' else '0') == '1':
            d['T'][int(r['P'])] = float(r['T'])
            if r.get('T_sched'):
                d['S'][int(r['P'])] = float(r['T_sched'])
        if r['auto'] == '1':
            d['P'], d['auto'] = int(r['P']), float(r['T'])
    return res


def by_key(rows, key):
    d = {}
    for r in rows:
        d.setdefault(key(r), []).append(float(r['median']))
    return {k: agg(v) for k, v in d.items()}


def main(out):
    md = ['# Collectives across sites on the emulated grid (bench/grid-coll.sh)', '']
    if os.path.exists(os.path.join(out, 'machine.txt')):
        md += ['```', open(os.path.join(out, 'machine.txt')).read().strip(), '```', '']
    conf = {}
    if os.path.exists(os.path.join(out, 'config.txt')):
        for line in open(os.path.join(out, 'config.txt')):
            k, _, v = line.partition(': ')
            conf[k] = v.strip()
        md += ['```', open(os.path.join(out, 'config.txt')).read().strip(), '```', '']
    md += ['Times are seconds per call: every rank starts the call at one instant of',
           "the machine's shared clock and the call ends when the last rank returns",
           '(bench/gridcoll.c); each run gives the median of its calls, and the',
           'tables give the median (min-max) of the runs over the rounds. Michi',
           'single-lane is MICHI_COLL_LANES_P=1, automatic MICHI_COLL_LANES_P=0',
           '(both with MICHI_TCP_STRIPE_MIN=0, one flow a lane); the model is',
           "coll/lanes_model.c's T(P) with the parameters in config.txt, computed",
           'by bench/lanes_predict.c.', '']
    delays = sorted({os.path.basename(p).split('-')[1].rsplit('.', 1)[0]
                     for p in glob.glob(os.path.join(out, 'model-*.csv'))},
                    key=lambda d: float(d.rstrip('ms') or 0))
    for delay in delays:
        md += [f'## WAN delay {delay} (one way)', '']
        mod = model(out, delay)
        late(out, delay, md)
        sg(out, delay, mod, md)
        psweep(out, delay, mod, md)
        wan(out, delay, md)
        coll(out, delay, md)
    open(os.path.join(out, 'summary.md'), 'w').write('\n'.join(md) + '\n')


def late(out, delay, md):
    """How late the ranks started the calls (gridcoll's LATE): noise in every time."""
    v = []
    for part in ('sg', 'p', 'coll'):
        path = os.path.join(out, f'{part}-{delay}.csv')
        if os.path.exists(path):
            v += [float(r['late_max']) for r in rd(path) if r.get('late_max')]
    if v:
        md += [f'Start lateness (the latest rank after the common start, per run and size: '
               f"the machine's scheduling noise, part of every time): median "
               f'{statistics.median(v) * 1e3:.2f} ms, largest {max(v) * 1e3:.2f} ms.', '']


def sg(out, delay, mod, md):
    path = os.path.join(out, f'sg-{delay}.csv')
    if not os.path.exists(path):
        return
    s = by_key(rd(path), lambda r: (r['op'], int(r['size']), r['impl']))
    impls = ['michi-p1', 'michi-auto', 'mpich', 'openmpi']
    rows = []
    for (op, m, impl), v in sorted(s.items()):
        rows.append([op, m, impl, *v])
    for op in ('scatter', 'gather'):
        for m in sorted({k[1] for k in s}):
            if m in mod:
                rows.append([op, m, 'model-p1', mod[m][op]['T'][1], NAN, NAN])
                rows.append([op, m, 'model-auto', mod[m][op]['auto'], NAN, NAN])
    with open(os.path.join(out, f'sg-{delay}-summary.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['op', 'size', 'impl', 'median', 'min', 'max'])
        w.writerows(rows)
    plots = []
    for op in ('scatter', 'gather'):
        dat = os.path.join(out, f'sg-{delay}-{op}.dat')
        sizes = sorted({k[1] for k in s if k[0] == op})
        with open(dat, 'w') as f:
            f.write('# size ' + ' '.join(impls) + ' model-auto model-p1 auto-P\n')
            for m in sizes:
                cols = [fmt(s.get((op, m, i), (NAN,))[0], 6) for i in impls]
                mm = mod.get(m, {}).get(op)
                cols += [fmt(mm['auto'], 6), fmt(mm['T'][1], 6), str(mm['P'])] if mm else ['NaN'] * 3
                f.write(f'{m} ' + ' '.join(cols) + '\n')
        plots.append((op, dat))
        md += [f'### {op.capitalize()} against block size', '',
               '| block | P=1 | auto | model (auto P) | MPICH | Open MPI | P=1/auto | better peer/auto |',
               '|---|---|---|---|---|---|---|---|']
        for m in sizes:
            g = lambda i: s.get((op, m, i), (NAN, NAN, NAN))
            p1, au, mp, om = g('michi-p1'), g('michi-auto'), g('mpich'), g('openmpi')
            peer = min((x[0] for x in (mp, om) if not math.isnan(x[0])), default=NAN)
            mm = mod.get(m, {}).get(op)
            md.append(f'| {human(m)} | {cell(p1)} | {cell(au)} | '
                      f'{fmt(mm["auto"]) + " (P=%d)" % mm["P"] if mm else ""} | {cell(mp)} | '
                      f'{cell(om)} | {ratio(p1[0], au[0])} | {ratio(peer, au[0])} |')
        md.append('')
    png = os.path.join(out, f'sg-{delay}.png')
    gnuplot(f'''set terminal pngcairo noenhanced size 1300,550 font ",11"
set output "{png}"
set multiplot layout 1,2 title "Scatter and Gather, two sites, WAN {delay} one way"
set logscale xy 2
set logscale y 10
set grid
set key top left
set xlabel "block per rank"
set ylabel "seconds per call"
''' + xtics(sorted({k[1] for k in s})) + '\n'.join(f'''set title "{op}"
plot "{dat}" using 1:2 with linespoints pt 7 title "Michi P=1", \\
     "" using 1:3 with linespoints pt 5 title "Michi auto", \\
     "" using 1:6 with lines dt 2 lw 2 title "model (auto P)", \\
     "" using 1:7 with lines dt 3 title "model P=1", \\
     "" using 1:4 with linespoints pt 9 title "MPICH", \\
     "" using 1:5 with linespoints pt 11 title "Open MPI"''' for op, dat in plots) +
            '\nunset multiplot\n')
    md += [f'Plot: sg-{delay}.png', '']


def cell(v):
    if math.isnan(v[0]):
        return 'n/a'
    if math.isnan(v[1]) or v[1] == v[2]:
        return f'{v[0]:.3f}'
    return f'{v[0]:.3f} ({v[1]:.3f}-{v[2]:.3f})'


def ratio(a, b):
    return 'n/a' if math.isnan(a) or math.isnan(b) or b == 0 else f'{a / b:.2f}x'


def psweep(out, delay, mod, md):
    path = os.path.join(out, f'p-{delay}.csv')
    if not os.path.exists(path):
        return
    rows = rd(path)
    s = by_key(rows, lambda r: (r['op'], int(r['P'])))
    m = int(rows[0]['size']) if rows else 0
    mm = mod.get(m)
    out_rows, plots = [], []
    md += [f'### Time against P at {human(m)} blocks', '',
           '| op | P | measured | predicted | error | auto | schedule model (Scatter) | its error |',
           '|---|---|---|---|---|---|---|---|']
    for op in ('scatter', 'gather'):
        mo = mm.get(op) if mm else None
        Ps = sorted(P for o, P in s if o == op)
        dat = os.path.join(out, f'p-{delay}-{op}.dat')
        with open(dat, 'w') as f:
            f.write('# P median min max predicted auto\n')
            for P in Ps:
                v = s[(op, P)]
                pr = mo['T'].get(P, NAN) if mo else NAN
                auto = int(bool(mo) and mo['P'] == P)
                out_rows.append([op, P, *v, pr, auto])
                f.write(f'{P} {fmt(v[0], 6)} {fmt(v[1], 6)} {fmt(v[2], 6)} {fmt(pr, 6)} '
                        f'{fmt(v[0], 6) if auto else "NaN"}\n')
                err = f'{(v[0] - pr) / pr * 100:+.1f}%' if pr == pr and v[0] == v[0] else 'n/a'
                ps = mo['S'].get(P, NAN) if mo and op == 'scatter' else NAN
                errs = f'{(v[0] - ps) / ps * 100:+.1f}%' if ps == ps and v[0] == v[0] else ''
                md.append(f'| {op} | {P} | {cell(v)} | {fmt(pr)} | {err} | {"<- auto" if auto else ""} | '
                          f'{fmt(ps) if ps == ps else ""} | {errs} |')
        if Ps and mo:
            # the automatic choice as it ran (sg part, same block size): its
            # P, and the lanes a host the model chose, which the forced-P
            # runs (one lane a host) may not have
            best = min(Ps, key=lambda P: s[(op, P)][0])
            sg = os.path.join(out, f'sg-{delay}.csv')
            am = [float(r['median']) for r in (rd(sg) if os.path.exists(sg) else [])
                  if r['impl'] == 'michi-auto' and r['op'] == op and int(r['size']) == m]
            if am:
                md.append(f'| {op} | best measured P={best} | {s[(op, best)][0]:.3f} | | | '
                          f'automatic (P={mo["P"]}) {am[0]:.3f}: '
                          f'{(am[0] / s[(op, best)][0] - 1) * 100:+.1f}% against the best |')
        plots.append((op, dat))
    md.append('')
    with open(os.path.join(out, f'p-{delay}-summary.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['op', 'P', 'median', 'min', 'max', 'predicted', 'auto'])
        w.writerows(out_rows)
    png = os.path.join(out, f'p-{delay}.png')
    gnuplot(f'''set terminal pngcairo noenhanced size 1300,550 font ",11"
set output "{png}"
set multiplot layout 1,2 title "Time against lanes P at {human(m)} blocks, WAN {delay} one way"
set grid
set key top right
set xlabel "P (lanes)"
set ylabel "seconds per call"
set yrange [0:*]
set xtics 1
''' + '\n'.join(f'''set title "{op}"
plot "{dat}" using 1:2:3:4 with yerrorlines pt 7 title "measured (median, min-max)", \\
     "" using 1:5 with linespoints dt 2 pt 6 title "model", \\
     "" using 1:6 with points pt 4 ps 3 lw 2 title "automatic P"''' for op, dat in plots) +
            '\nunset multiplot\n')
    md += [f'Plot: p-{delay}.png', '']


def wan(out, delay, md):
    files = sorted(glob.glob(os.path.join(out, f'wan-{delay}-*-michi-*.csv')))
    files = [f for f in files if not f.endswith('-calls.csv')]
    if not files:
        return
    md += ['### WAN utilisation (the emulator\'s 100 ms counters)', '',
           'Share of the WAN path\'s 100 Mb/s in the data\'s direction (wire bytes,',
           'headers included): the peak interval; the mean over the intervals that',
           'lie wholly inside a timed call; and the mean over each call\'s crossing',
           '(paper A\'s WAN phase: from its first to its last interval carrying at',
           'least a quarter of the call\'s busiest), with the crossing\'s length',
           '(median over the calls).', '',
           '| op | Michi | peak | mean in calls | mean while crossing | crossing |',
           '|---|---|---|---|---|---|']
    plots = {}
    for path in files:
        base = os.path.basename(path)[:-4]
        _, _, op, impl = base.split('-', 3)
        rows = rd(path)
        calls = rd(path[:-4] + '-calls.csv') if os.path.exists(path[:-4] + '-calls.csv') else []
        u = [(float(r['t_s']), float(r['util'])) for r in rows]
        inside, cross, clen = [], [], []
        for c in calls:
            xs = [x for t, x in u if float(c['start_s']) <= t - 0.1 and t <= float(c['end_s'])]
            inside += xs
            busy = [i for i, x in enumerate(xs) if xs and x > 0 and x >= max(xs) / 4]
            if busy:
                cross += xs[busy[0]:busy[-1] + 1]
                clen.append((busy[-1] + 1 - busy[0]) * 0.1)
        peak = max((x for _, x in u), default=NAN)
        md.append(f'| {op} | {impl} | {peak * 100:.0f}% | '
                  f'{(statistics.mean(inside) * 100 if inside else NAN):.0f}% | '
                  f'{(statistics.mean(cross) * 100 if cross else NAN):.0f}% | '
                  f'{(statistics.median(clen) if clen else NAN):.1f} s |')
        plots.setdefault(op, []).append((impl, path))
    md.append('')
    png = os.path.join(out, f'wan-{delay}.png')
    body = []
    for op in ('scatter', 'gather'):
        if op not in plots:
            continue
        body.append(f'set title "{op} ({"a to b" if op == "scatter" else "b to a"})"')
        body.append('plot ' + ', \\\n     '.join(
            f'"{p}" using 1:($4*100) with steps title "{i}"' for i, p in plots[op]))
    gnuplot(f'''set terminal pngcairo noenhanced size 1300,550 font ",11"
set output "{png}"
set datafile separator ","
set multiplot layout 1,2 title "WAN utilisation, {delay} one way, 100 ms intervals"
set grid
set key top right
set xlabel "seconds from the first timed call"
set ylabel "% of the WAN path (100 Mb/s)"
set yrange [0:110]
''' + '\n'.join(body) + '\nunset multiplot\n')
    md += [f'Plot: wan-{delay}.png', '']


def coll(out, delay, md):
    path = os.path.join(out, f'coll-{delay}.csv')
    if not os.path.exists(path):
        return
    s = by_key(rd(path), lambda r: (r['op'], int(r['size']), r['impl']))
    impls = sorted({k[2] for k in s}, key=lambda i: (i != 'michi', i))
    with open(os.path.join(out, f'coll-{delay}-summary.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['op', 'size', 'impl', 'median', 'min', 'max'])
        for (op, m, i), v in sorted(s.items()):
            w.writerow([op, m, i, *v])
    rtt = 2 * float(delay.rstrip('ms')) / 1e3
    md += ['### Other collectives across sites', '',
           f'Michi as the library chooses; Michi / better peer < 1 is Michi faster. '
           f'WAN RTTs: the time over {rtt * 1e3:.0f} ms.', '',
           '| op | size | ' + ' | '.join(impls) + ' | Michi / better peer | Michi in WAN RTTs |',
           '|---|---|' + '---|' * len(impls) + '---|---|']
    ops = []
    for op in ('bcast', 'allgather', 'alltoall', 'allreduce', 'reduce', 'barrier'):
        sizes = sorted({k[1] for k in s if k[0] == op})
        for m in sizes:
            g = lambda i: s.get((op, m, i), (NAN, NAN, NAN))
            peer = min((g(i)[0] for i in ('mpich', 'openmpi') if not math.isnan(g(i)[0])), default=NAN)
            mi = g('michi')[0]
            md.append(f'| {op} | {human(m)} | ' + ' | '.join(cell(g(i)) for i in impls) +
                      f' | {ratio(mi, peer)} | {fmt(mi / rtt, 2) if mi == mi else "n/a"} |')
        if sizes:
            ops.append(op)
    md.append('')
    body = []
    for op in ops:
        dat = os.path.join(out, f'coll-{delay}-{op}.dat')
        sizes = sorted({k[1] for k in s if k[0] == op})
        with open(dat, 'w') as f:
            f.write('# size ' + ' '.join(impls) + '\n')
            for m in sizes:
                f.write(f'{max(m, 1)} ' + ' '.join(fmt(s.get((op, m, i), (NAN,))[0], 6)
                                                  for i in impls) + '\n')
        body.append(f'set title "{op}"')
        body.append('plot ' + ', \\\n     '.join(
            f'"{dat}" using 1:{k + 2} with linespoints pt {5 + 2 * k} title "{i}"'
            for k, i in enumerate(impls)))
    png = os.path.join(out, f'coll-{delay}.png')
    gnuplot(f'''set terminal pngcairo noenhanced size 1500,850 font ",10"
set output "{png}"
set multiplot layout 2,3 title "Collectives across two sites, WAN {delay} one way (barrier at 1 B)"
set logscale xy
set grid
set key top left
set xlabel "bytes per rank"
set ylabel "seconds per call"
''' + xtics(sorted({max(k[1], 1) for k in s})) + '\n'.join(body) + '\nunset multiplot\n')
    md += [f'Plot: coll-{delay}.png', '']


if __name__ == '__main__':
    main(sys.argv[1])
