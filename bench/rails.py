#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/rails.py: the tcp device's rails (issue 31) on the emulated grid
`multirail` (test/net/grid), Michi beside Open MPI and MPICH on the same
links; run through bench/rails.sh, which builds test/net/railprog.c with
each MPI's mpicc into WORKDIR.

  rails.py OUTDIR WORKDIR [--parts pair,paper] [--rounds R] [--impls RE] [--cfgs LIST]
           [--quick]

pair:  hosts A and B on both networks (cfg=b), Network-1's NICs at 100
       and at 30 Mb/s (nic1): 4 MiB bandwidth from B to A and 8-byte
       ping-pong latency, with one network (--nets 0) and with both;
       Michi's rules feedback (default), round-robin, static (the NICs'
       rates), Open MPI's tcp BTL over one and both interfaces, MPICH
       (UCX's tcp) over one and both.
failover, weights: bench/rails_failover.py (60 s streams and ping-pongs
       while a network is cut, restored, cut again or flaps, Michi beside
       MPTCP; paper B's Fig. 9, the weights through topology changes).
paper: paper B's configurations b..h (Fig. 4): every client sends 4 MiB
       messages to the server A, one after the other, for --flow-seconds
       (default 20); what A's NICs received from a quarter of that time to
       nine tenths (paper B's measure: the sum over the server's NICs of
       continuous bursts), for Michi's rules, Open MPI over both interfaces
       and MPTCP. (Until 2026-11-29 this part timed a fixed amount from
       each client until the last one finished: a client that finished
       early left its network idle, which capped h at 1.33x round-robin
       whatever the weights.)
--impls RE runs only the implementations whose names match the regular
expression (e.g. '^michi'), --cfgs only those of paper B's configurations;
--no-mptcp brings the grid up without MPTCP endpoints (and skips the
-mptcp rows; the endpoints are the only difference). --lat-rounds N: the
8-byte latency alone, Michi on one and on two rails in turn, N rounds
each (railprog lat opens the rails first), for the pair part.
Each run is one line in runs.csv (part, cfg, nic1, impl, round, mode,
value columns); bench/rails_report.py makes the CSV summaries, the plot
and summary.md.
"""

import csv
import os
import re

import rails_failover
import signal
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NET = os.path.join(TOP, 'test', 'net')
GRID = os.path.join(NET, 'grid')
GRID_MPI = os.path.join(NET, 'grid-mpi')
MIB = 1 << 20
MPTCP = True
# rank 0's result line: the job is done but for MPI_Finalize
DONE = re.compile(r'^railprog (stream ok|pingpong ok|bw|burst|flow|lat) ', re.M)


def log(msg, f):
    line = time.strftime('%H:%M:%S ') + msg
    print(line, flush=True)
    f.write(line + '\n')
    f.flush()


def grid_up(cfg, nic1, runlog):
    # MPTCP endpoints on every NIC: only MPTCP sockets (the -mptcp rows) use them
    p = subprocess.run([GRID, 'up', 'multirail', f'cfg={cfg}', f'nic1={nic1}',
                        f'mptcp={"on" if MPTCP else "off"}'],
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
    if impl == 'mpich-mptcp':
        # Debian's mptcpize: LD_PRELOAD that makes socket() MPTCP, which
        # Hydra passes on to the ranks (UCX's tcp sockets)
        cmd = ['mptcpize', 'run'] + cmd
    t0 = time.monotonic()
    # MPICH 4.0.2 over UCX's tcp (Debian's) hangs now and then in
    # MPI_Finalize after the results (test/net/grid_common.sh says more):
    # 10 s after rank 0's lines the job is stopped and the hang noted
    outf = os.path.join(work, 'run.out')
    with open(outf, 'w') as fo, open(outf + '.err', 'w') as fe:
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, text=True, start_new_session=True,
                             env=dict(os.environ, **env))
        seen, note = None, ''
        while p.poll() is None:
            time.sleep(0.2)
            now = time.monotonic()
            if seen is None and DONE.search(open(outf).read()):
                seen = now
            if (seen is not None and now - seen > 10) or now - t0 > limit:
                note = ' (stopped in MPI_Finalize)' if seen is not None else ' (timed out)'
                os.killpg(p.pid, signal.SIGTERM)
                time.sleep(1)
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                p.wait()
                break
        rc = p.returncode
    out, err = open(outf).read(), open(outf + '.err').read()
    lines = [x for x in out.splitlines() if x.startswith('railprog ')]
    log(f'{impl} {" ".join(args)}: exit {rc}{note}, {time.monotonic() - t0:.1f} s: '
        f'{"; ".join(lines) or err.strip()[-300:]}', runlog)
    return lines


def main(argv):
    out, work = argv[0], argv[1]
    parts, rounds, quick = ['pair', 'paper'], 3, False
    only, cfgs = None, ['b', 'c', 'd', 'd8', 'e', 'f', 'g', 'h']
    global MPTCP
    lat_rounds, flow_s = 0, 20
    a = argv[2:]
    while a:
        x = a.pop(0)
        if x == '--parts':
            parts = [p for p in a.pop(0).split(',') if p]
        elif x == '--rounds':
            rounds = int(a.pop(0))
        elif x == '--impls':
            only = re.compile(a.pop(0))
        elif x == '--no-mptcp':
            MPTCP = False
        elif x == '--lat-rounds':
            lat_rounds = int(a.pop(0))
        elif x == '--flow-seconds':
            flow_s = int(a.pop(0))
        elif x == '--cfgs':
            cfgs = [c for c in a.pop(0).split(',') if c]
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
    if quick:
        flow_s = min(flow_s, 8)
    try:
        if 'pair' in parts:
            for nic1 in ('100mbit', '30mbit'):
                grid_up('b', nic1, runlog)
                rate1 = 100 if nic1 == '100mbit' else 30
                impls = [
                    ('michi-1rail', '0', {}),
                    ('michi-feedback', '', {}),
                    ('michi-rate', '', {'MICHI_TCP_RAIL_WEIGHTS': 'rate'}),
                    ('michi-paper', '', {'MICHI_TCP_RAIL_WEIGHTS': 'paper'}),
                    ('michi-roundrobin', '', {'MICHI_TCP_RAIL_WEIGHTS': 'round-robin'}),
                    ('michi-static', '', {'MICHI_TCP_RAIL_WEIGHTS': 'static',
                                          'MICHI_TCP_RAIL_RATES': f'100,{rate1}'}),
                    ('openmpi-1rail', '0', {}),
                    ('openmpi-2rails', '', {}),
                    ('mpich-1rail', '0', {}),
                    ('mpich-2rails', '', {}),
                    ('michi-mptcp', '0', {'MICHI_TCP_MPTCP': '1'}),
                    ('mpich-mptcp', '0', {}),
                ]
                impls = [i for i in impls if (not only or only.search(i[0])) and
                         (MPTCP or not i[0].endswith('-mptcp'))]
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
        if lat_rounds:
            grid_up('b', '100mbit', runlog)
            for r in range(1, lat_rounds + 1):
                for impl, nets in (('michi-1rail', '0'), ('michi-feedback', '')):
                    for x in run(work, impl, ['A', 'B'], nets, {}, ['lat', '20000'], runlog):
                        v = x.split()
                        if v[1] == 'lat':
                            w.writerow(['lat', 'b', '100mbit', impl, r, 'lat', v[4], 'us'])
                    f.flush()
        if 'failover' in parts:
            rails_failover.part_failover(work, out, run, w, f, runlog, log, grid_up, only,
                                         rounds)
        if 'weights' in parts:
            rails_failover.part_weights(work, out, run, w, f, runlog, log, grid_up)
        if 'paper' in parts:
            # d8: paper B's Table 8, d with B only pinging (8 bytes a
            # second) while C bursts; Michi's rules alone
            clients = {'b': 'B', 'c': 'B,C', 'd': 'B,C', 'd8': 'B,C', 'e': 'B,C,D', 'f': 'B,C,D',
                       'g': 'B,C,D', 'h': 'B,C,D'}
            # one site given: MPI_Init's inference of sites would measure
            # every pair of hosts, and in g B and D share no network
            site = {'MICHI_SITE': 'lab'}
            impls = [
                ('michi-feedback', dict(site)),
                ('michi-rate', dict(site, MICHI_TCP_RAIL_WEIGHTS='rate')),
                ('michi-paper', dict(site, MICHI_TCP_RAIL_WEIGHTS='paper')),
                ('michi-links', dict(site, MICHI_TCP_RAIL_WEIGHTS='links')),
                ('michi-roundrobin', dict(site, MICHI_TCP_RAIL_WEIGHTS='round-robin')),
                ('openmpi-2rails', {}),
                ('michi-mptcp', dict(site, MICHI_TCP_MPTCP='1')),
                ('mpich-mptcp', {}),
            ]
            impls = [i for i in impls if (not only or only.search(i[0])) and
                     (MPTCP or not i[0].endswith('-mptcp'))]
            for cfg in cfgs:
                grid_up('d' if cfg == 'd8' else cfg, '100mbit', runlog)
                hosts = ['A'] + clients[cfg].split(',')
                for r in range(1, rounds + 1):
                    for impl, env in impls[r % len(impls):] + impls[:r % len(impls)]:
                        if cfg == 'd8':
                            if not impl.startswith('michi-') or impl == 'michi-mptcp':
                                continue
                            env = dict(env, RAILPROG_PINGERS='1')
                        # MPTCP rows: the MPI's own connections on Network-0,
                        # the kernel's subflows on both (in g, D has only
                        # Network-1: every network)
                        nets = '0' if impl.endswith('-mptcp') and cfg != 'g' else ''
                        for x in run(work, impl, hosts, nets, env,
                                     ['flow', str(4 * MIB), str(flow_s)], runlog,
                                     limit=flow_s + 120):
                            v = x.split()
                            if v[1] == 'flow':
                                w.writerow(['paper', cfg, '100mbit', impl, r, 'flow', v[5],
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
