#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/rails.py: the tcp device's rails (issue 31) on the emulated grid
`multirail` (test/net/grid), Michi beside Open MPI and MPICH on the same
links; run through bench/rails.sh, which builds test/net/railprog.c with
each MPI's mpicc into WORKDIR.

  rails.py OUTDIR WORKDIR [--parts pair,paper] [--rounds R] [--quick]

pair:  hosts A and B on both networks (cfg=b), Network-1's NICs at 100
       and at 30 Mb/s (nic1): 4 MiB bandwidth from B to A and 8-byte
       ping-pong latency, with one network (--nets 0) and with both;
       Michi's rules feedback (default), round-robin, static (the NICs'
       rates), Open MPI's tcp BTL over one and both interfaces, MPICH
       (UCX's tcp) over one and both.
paper: paper B's configurations b..h (Fig. 4): every client bursts 4 MiB
       messages to the server A at once; the aggregate rate at A, for
       Michi's feedback, links and round-robin rules and Open MPI over both
       interfaces.
Each run is one line in runs.csv (part, cfg, nic1, impl, round, mode,
value columns); bench/rails_report.py makes the CSV summaries, the plot
and summary.md.
"""

import csv
import os
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NET = os.path.join(TOP, 'test', 'net')
GRID = os.path.join(NET, 'grid')
GRID_MPI = os.path.join(NET, 'grid-mpi')
MIB = 1 << 20


def log(msg, f):
    line = time.strftime('%H:%M:%S ') + msg
    print(line, flush=True)
    f.write(line + '\n')
    f.flush()


def grid_up(cfg, nic1, runlog):
    p = subprocess.run([GRID, 'up', 'multirail', f'cfg={cfg}', f'nic1={nic1}'],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f'rails: grid up multirail cfg={cfg} nic1={nic1}: {p.stderr.strip()}')
    log(f'grid up multirail cfg={cfg} nic1={nic1}', runlog)


def run(work, impl, hosts, nets, env, args, runlog, limit=300):
    mpi = impl.split('-')[0]
    cmd = [GRID_MPI, mpi, '--hosts', ','.join(hosts)]
    if nets:
        cmd += ['--nets', nets]
    cmd += ['--run', os.path.join(work, f'railprog.{mpi}')] + args
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit,
                           env=dict(os.environ, **env))
        out, rc = p.stdout, p.returncode
        err = p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or '')
        rc, err = 124, 'timed out'
    lines = [x for x in out.splitlines() if x.startswith('railprog ')]
    log(f'{impl} {" ".join(args)}: exit {rc}, {time.monotonic() - t0:.1f} s: '
        f'{"; ".join(lines) or err.strip()[-300:]}', runlog)
    return lines


def main(argv):
    out, work = argv[0], argv[1]
    parts, rounds, quick = ['pair', 'paper'], 3, False
    a = argv[2:]
    while a:
        x = a.pop(0)
        if x == '--parts':
            parts = [p for p in a.pop(0).split(',') if p]
        elif x == '--rounds':
            rounds = int(a.pop(0))
        elif x == '--quick':
            quick, rounds = True, 1
        else:
            print(__doc__, file=sys.stderr)
            return 2
    os.makedirs(out, exist_ok=True)
    runlog = open(os.path.join(out, 'runs.log'), 'a')
    path = os.path.join(out, 'runs.csv')
    new = not os.path.exists(path)
    f = open(path, 'a', newline='')
    w = csv.writer(f)
    if new:
        w.writerow(['part', 'cfg', 'nic1', 'impl', 'round', 'mode', 'value', 'unit'])
    iters = 2 if quick else 6
    try:
        if 'pair' in parts:
            for nic1 in ('100mbit', '30mbit'):
                grid_up('b', nic1, runlog)
                rate1 = 100 if nic1 == '100mbit' else 30
                impls = [
                    ('michi-1rail', '0', {}),
                    ('michi-feedback', '', {}),
                    ('michi-roundrobin', '', {'MICHI_TCP_RAIL_WEIGHTS': 'round-robin'}),
                    ('michi-static', '', {'MICHI_TCP_RAIL_WEIGHTS': 'static',
                                          'MICHI_TCP_RAIL_RATES': f'100,{rate1}'}),
                    ('openmpi-1rail', '0', {}),
                    ('openmpi-2rails', '', {}),
                    ('mpich-1rail', '0', {}),
                    ('mpich-2rails', '', {}),
                ]
                for r in range(1, rounds + 1):
                    for impl, nets, env in impls[r % len(impls):] + impls[:r % len(impls)]:
                        for x in run(work, impl, ['A', 'B'], nets, env,
                                     ['bw', str(4 * MIB), str(iters)], runlog):
                            v = x.split()
                            if v[1] == 'bw':
                                w.writerow(['pair', 'b', nic1, impl, r, 'bw', v[5], 'Mb/s'])
                        for x in run(work, impl, ['A', 'B'], nets, env,
                                     ['lat', '200' if quick else '2000'], runlog):
                            v = x.split()
                            if v[1] == 'lat':
                                w.writerow(['pair', 'b', nic1, impl, r, 'lat', v[4], 'us'])
                        f.flush()
        if 'paper' in parts:
            clients = {'b': 'B', 'c': 'B,C', 'd': 'B,C', 'e': 'B,C,D', 'f': 'B,C,D',
                       'g': 'B,C,D', 'h': 'B,C,D'}
            impls = [
                ('michi-feedback', {}),
                ('michi-links', {'MICHI_TCP_RAIL_WEIGHTS': 'links'}),
                ('michi-roundrobin', {'MICHI_TCP_RAIL_WEIGHTS': 'round-robin'}),
                ('openmpi-2rails', {}),
            ]
            for cfg in ('b', 'c', 'd', 'e', 'f', 'g', 'h'):
                grid_up(cfg, '100mbit', runlog)
                hosts = ['A'] + clients[cfg].split(',')
                for r in range(1, rounds + 1):
                    for impl, env in impls[r % len(impls):] + impls[:r % len(impls)]:
                        for x in run(work, impl, hosts, '', env,
                                     ['burst', str(4 * MIB), str(iters + 2)], runlog):
                            v = x.split()
                            if v[1] == 'burst':
                                w.writerow(['paper', cfg, '100mbit', impl, r, 'burst', v[5],
                                            'Mb/s'])
                            elif v[1] == 'sender':
                                w.writerow(['paper', cfg, '100mbit', impl, r,
                                            f'sender{v[2]}', v[4], 'Mb/s'])
                        f.flush()
    finally:
        subprocess.run([GRID, 'down'], capture_output=True, timeout=120)
        log('grid down', runlog)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
