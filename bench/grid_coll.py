#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/grid_coll.py: collectives across sites on the emulated grid, Michi
against MPICH and Open MPI (issue 29's figures); run through
bench/grid-coll.sh, which builds the programs and says how.

  grid_coll.py OUTDIR WORKDIR [options]

WORKDIR holds gridcoll.michi, gridcoll.mpich, gridcoll.openmpi (bench/gridcoll.c
built with each MPI's mpicc) and lanes_predict (bench/lanes_predict.c with
coll/lanes_model.c). Options:
  --quick           two-sites (4 + 4 hosts), blocks 64 KiB and 1 MiB, P sweep
                    at 1 MiB, other collectives at 8 B and 64 KiB, 1 round, 2 calls
  -r ROUNDS         rounds (default 3; --quick 1); each round runs every
                    implementation once per part, their order rotated by round
  -i ITERS          timed calls per size up to 1 MiB, scaled down above it
                    (gridcoll -i/-s; default 5, --quick 2)
  --floor F         timed calls at least, above 1 MiB (gridcoll -f; default 3)
  --delays D,D      WAN one-way delays (default 5ms,20ms)
  --sizes LIST      Scatter and Gather block sizes in bytes (default 64 KiB to
                    16 MiB, doubling)
  --parts LIST      of sg,p,wan,coll, run in that order each round (default all)
  --params D=STR    the cost model's parameters at delay D (MICHI_COLL_LANES_PARAMS,
                    given to Michi and to the prediction alike); without it,
                    `michi_info --calibrate-grid` measures them on each delay's
                    grid (profile-D.txt), and Michi reads that profile
                    (MICHI_GRID_PROFILE) as a user's job would
  --profile D=PATH  the cost model's parameters at delay D from a profile an
                    earlier run's calibration wrote (Michi reads it through
                    MICHI_GRID_PROFILE as with its own calibration)
  --remodel         only write model-D.csv again for a finished run in OUTDIR
                    (its config.txt's parameters)
  --tcp-split       Michi as it comes: a node pair's payloads from 1 MiB go
                    over two connections (tcp_stripe_min), so that a lane is
                    two flows; without it MICHI_TCP_STRIPE_MIN=0, one flow a
                    lane, as paper A's lanes (calibration alike)
  --wan-auto        the utilisation part (wan) runs Michi automatic only (its
                    single-lane series from an earlier run)
  --impls LIST      only these of michi-p1, michi-auto, mpich, openmpi (sg and
                    wan) and michi, michi-forced, mpich, openmpi (coll), e.g. to
                    run one again after a change (default: all)
  --set VAR=VAL     a variable of the spec for `test/net/grid up` (e.g.
                    lanes=rate: the node-limited variant of two-sites-16);
                    repeatable, recorded in config.txt
  -F VAR=VAL        forces for an extra `michi-forced` row of the other
                    collectives (e.g. -F MICHI_COLL_BCAST_ALGORITHM=binomial);
                    repeatable
"""

import csv
import math
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NET = os.path.join(TOP, 'test', 'net')
GRID = os.path.join(NET, 'grid')
GRID_MPI = os.path.join(NET, 'grid-mpi')
KIB, MIB = 1024, 1024 * 1024
WAN_RATE = 100e6          # the specs' B_WAN (wan=100mbit)
LAN_RATE = 100e6          # b_LAN (nic=100mbit)
WINDOW = 35000            # bytes a window-limited flow has in flight (the specs' calibration)
COLLS = ['bcast', 'allgather', 'alltoall', 'allreduce', 'reduce', 'barrier']


def log(msg, f=None):
    line = time.strftime('%H:%M:%S ') + msg
    print(line, flush=True)
    if f:
        # the results folder and the tree by their names, not this
        # machine's paths (results are committed)
        out = os.path.dirname(os.path.abspath(f.name))
        f.write(line.replace(out + '/', '').replace(TOP + '/', '') + '\n')
        f.flush()


def secs(d):
    """'20ms' -> 0.02."""
    for suf, k in (('us', 1e-6), ('ms', 1e-3), ('s', 1.0)):
        if d.endswith(suf):
            return float(d[:-len(suf)]) * k
    return float(d)


def rate1(delay):
    """One window-limited flow across the WAN at this one-way delay (b_wan(1))."""
    return min(25e6, WINDOW * 8 / (2 * secs(delay)))


class Bench:
    def __init__(self, out, work, opts):
        self.out, self.work, self.o = out, work, opts
        self.runlog = open(os.path.join(out, 'runs.log'), 'a')
        self.current = None   # the job running now, ended if we are stopped
        self.loadf = open(os.path.join(out, 'load.csv'), 'a')
        if self.loadf.tell() == 0:
            self.loadf.write('delay,part,impl,round,start,load_before,load_after,seconds,status\n')
        self.stats = os.path.join(os.environ.get('MICHI_GRID_DIR') or
                                  os.path.join('/run/michi-grid',
                                               os.environ.get('MICHI_GRID_PREFIX', 'mg')),
                                  'linkemu.csv')

    # ---- runs ----
    def leftovers(self):
        """Our ranks still alive (their program lies in WORKDIR): ended by pid."""
        mine = []
        for p in os.listdir('/proc'):
            if not p.isdigit() or int(p) == os.getpid():
                continue
            try:
                with open(f'/proc/{p}/cmdline', 'rb') as f:
                    cmd = f.read().replace(b'\0', b' ').decode(errors='replace')
            except OSError:
                continue
            if os.path.join(self.work, 'gridcoll.') in cmd:
                mine.append(int(p))
        return mine

    def kill_tree(self, proc):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass
            for pid in self.leftovers():
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            time.sleep(1)
        proc.wait()

    def run(self, delay, part, impl, rnd, env, args, limit):
        """One gridcoll job under test/net/grid-mpi; returns (results, calls,
        t_start_ns, t_end_ns): results {(op, size): (iters, median, min, max)}."""
        mpi = 'michi' if impl.startswith('michi') else impl
        cmd = [GRID_MPI, mpi, '--run', os.path.join(self.work, f'gridcoll.{mpi}')] + args
        full = dict(os.environ)
        full.update(env)
        load0 = open('/proc/loadavg').read().split()[0]
        t0 = time.monotonic_ns()
        errf = open(os.path.join(self.work, 'stderr'), 'w+')
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf, text=True,
                                env=full, start_new_session=True)
        self.current = proc
        lines = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
        reader.start()
        status, done_at = None, None
        while status is None:
            if proc.poll() is not None:
                reader.join(5)
                status = 'ok' if proc.returncode == 0 else f'exit {proc.returncode}'
                break
            el = (time.monotonic_ns() - t0) / 1e9
            if done_at is None and any(x.startswith('gridcoll done') for x in list(lines)):
                done_at = el
            # MPICH 4.0.2/UCX 1.13 tcp may hang in MPI_Finalize after the
            # results (test/net/grid_common.sh): 10 s after them the job ends
            if done_at is not None and el - done_at > 10:
                self.kill_tree(proc)
                status = 'ok (stopped in MPI_Finalize)'
            elif el > limit:
                self.kill_tree(proc)
                status = f'timeout ({limit:.0f} s)'
            else:
                time.sleep(0.2)
        t1 = time.monotonic_ns()
        self.current = None
        reader.join(5)
        errf.seek(0)
        err = errf.read()
        errf.close()
        res, calls = {}, []
        for x in lines:
            f = x.split()
            if f and f[0] == 'gridcoll' and len(f) == 8:
                res[(f[1], int(f[2]))] = (int(f[3]), float(f[4]), float(f[5]), float(f[6]),
                                          float(f[7]))
            elif f and f[0] == 'gridcoll-call' and len(f) == 7:
                calls.append((f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5])))
        if not any(x.startswith('gridcoll done') for x in lines) and status.startswith('ok'):
            status = 'no results'
        load1 = open('/proc/loadavg').read().split()[0]
        envs = ' '.join(f'{k}={v}' for k, v in sorted(env.items()) if k.startswith('MICHI_'))
        log(f'{delay} {part} {impl} round {rnd}: {status}, {(t1 - t0) / 1e9:.1f} s, '
            f'load {load0} -> {load1}; {envs} {" ".join(args)}', self.runlog)
        if not status.startswith('ok'):
            self.runlog.write(''.join(lines[-20:]) + err[-3000:] + '\n')
            self.runlog.flush()
        self.loadf.write(f'{delay},{part},{impl},{rnd},{t0},{load0},{load1},'
                         f'{(t1 - t0) / 1e9:.1f},{status}\n')
        self.loadf.flush()
        # a job ended by its time limit keeps the sizes it finished (each
        # `gridcoll` line is a size's complete set of calls)
        return (res if status.startswith(('ok', 'timeout')) else {}), calls, t0, t1

    # ---- bounds ----
    def call_bound(self, op, m, delay, n0, n1):
        """Seconds one call can take at worst: every WAN byte in one
        window-limited flow, every LAN block through one NIC."""
        n = n0 + n1
        cross = {'scatter': n1 * m, 'gather': n1 * m, 'bcast': 2 * m,
                 'allgather': (n - 1) * m, 'alltoall': n0 * n1 * m,
                 'allreduce': 2 * m, 'reduce': 2 * m, 'barrier': 0}[op]
        return (4 * math.log2(n) * secs(delay) + cross * 8 / rate1(delay) +
                (n - 1) * m * 8 / LAN_RATE + 0.2)

    def limit(self, ops, sizes, iters, delay, n0, n1):
        t = 0.0
        for op in ops:
            for k, m in enumerate(sizes):
                it = iters if m <= MIB else max(min(iters, self.o['floor']), int(iters * MIB / m))
                t += (it + (1 if k == 0 else 0)) * self.call_bound(op, m, delay, n0, n1)
        # the peers busy-poll, and 16 of their ranks on two cores run far
        # slower than the network allows (MPICH's 1 MiB Gather at 5 ms: 15 s)
        return 90 + 4 * t


def median(v):
    return statistics.median(v) if v else float('nan')


def main(argv):
    out, work = argv[0], argv[1]
    o = {'quick': False, 'rounds': None, 'iters': None, 'floor': 3, 'delays': ['5ms', '20ms'],
         'parts': ['sg', 'p', 'wan', 'coll'], 'params': {}, 'force': {}, 'set': [],
         'tcp_split': False}
    a = argv[2:]
    while a:
        x = a.pop(0)
        if x == '--quick':
            o['quick'] = True
        elif x == '-r':
            o['rounds'] = int(a.pop(0))
        elif x == '-i':
            o['iters'] = int(a.pop(0))
        elif x == '--remodel':
            return remodel(out, work)
        elif x == '--floor':
            o['floor'] = int(a.pop(0))
        elif x == '--sizes':
            o['sizes'] = [int(v) for v in a.pop(0).split(',') if v]
        elif x == '--delays':
            o['delays'] = [d for d in a.pop(0).split(',') if d]
        elif x == '--parts':
            o['parts'] = [p for p in a.pop(0).split(',') if p]
        elif x == '--params':
            d, s = a.pop(0).split('=', 1)
            o['params'][d] = s
        elif x == '--wan-auto':
            o['wan_auto'] = True
        elif x == '--profile':
            d, s = a.pop(0).split('=', 1)
            o.setdefault('profiles', {})[d] = os.path.abspath(s)
        elif x == '--impls':
            o['impls'] = a.pop(0).split(',')
        elif x == '--tcp-split':
            o['tcp_split'] = True
        elif x == '--set':
            v = a.pop(0)
            if '=' not in v:
                print(__doc__, file=sys.stderr)
                return 2
            o['set'].append(v)
        elif x == '-F':
            k, v = a.pop(0).split('=', 1)
            o['force'][k] = v
        else:
            print(__doc__, file=sys.stderr)
            return 2
    q = o['quick']
    if set(o['parts']) - {'sg', 'p', 'wan', 'coll'}:
        print(__doc__, file=sys.stderr)
        return 2
    spec, per_site = ('two-sites', 4) if q else ('two-sites-16', 8)
    sizes = o.get('sizes') or ([64 * KIB, MIB] if q else [64 * KIB << k for k in range(9)])
    psize = MIB if q else 4 * MIB
    csizes = [8, 64 * KIB] if q else [8, 64 * KIB, MIB]
    rounds = o['rounds'] or (1 if q else 3)
    iters = o['iters'] or (2 if q else 5)
    n0 = n1 = per_site
    b = Bench(out, work, o)
    conf = {'spec': spec, 'per_site': per_site, 'sizes': sizes, 'psize': psize,
            'csizes': csizes, 'rounds': rounds, 'iters': iters, 'floor': o['floor'],
            'delays': o['delays'],
            'parts': o['parts'], 'force': o['force'], 'set': o['set'],
            'tcp_split': o['tcp_split'], 'wan_auto': o.get('wan_auto', False),
            'impls': o.get('impls'), 'params': {}}

    def bye(*_):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, bye)
    def write_conf():
        with open(os.path.join(out, 'config.txt'), 'w') as f:
            for k, v in conf.items():
                f.write(f'{k}: {v}\n')
    write_conf()
    try:
        for delay in o['delays']:
            one_delay(b, conf, delay, o['params'].get(delay), spec, sizes, psize, csizes,
                      rounds, iters, n0, n1, write_conf, o.get('profiles', {}).get(delay))
    finally:
        if b.current and b.current.poll() is None:
            b.kill_tree(b.current)
        subprocess.run([GRID, 'down'], capture_output=True, timeout=120)
    return 0


def one_delay(b, conf, delay, params, spec, sizes, psize, csizes, rounds, iters, n0, n1,
              write_conf, given_profile=None):
    out = b.out
    sets = [f'delay={delay}'] + conf['set']
    up = subprocess.run([GRID, 'up', spec] + sets, capture_output=True, text=True,
                        timeout=300)
    if up.returncode != 0:
        raise SystemExit(f'grid-coll: test/net/grid up {spec} {" ".join(sets)}: '
                         f'{up.stderr.strip()}')
    log(f'grid up {spec} {" ".join(sets)}', b.runlog)
    profile = None
    if given_profile:
        pairs = [x.split() for x in open(given_profile) if x.startswith('pair ')]
        if len(pairs) != 1 or len(pairs[0]) != 4:
            raise SystemExit(f'grid-coll: {given_profile}: not one pair of sites')
        profile, params = given_profile, pairs[0][3]
        log(f'profile at {delay}: {given_profile}: {params}', b.runlog)
    elif not params:
        profile, params = calibrate(b, delay, n0, n1, conf['tcp_split'])
    conf['params'][delay] = params
    write_conf()
    # the model's prediction, by Michi's own model code
    write_model(out, b.work, delay, params, n0, n1, sorted(set(sizes + [psize])))
    michi = {'MICHI_COLL_SITE_RANKS': str(n0)}
    if not conf['tcp_split']:
        michi['MICHI_TCP_STRIPE_MIN'] = '0'
    if profile:
        michi['MICHI_GRID_PROFILE'] = profile
    else:
        michi['MICHI_COLL_LANES_PARAMS'] = params
    impls_sg = {'michi-p1': dict(michi, MICHI_COLL_LANES_P='1'),
                'michi-auto': dict(michi, MICHI_COLL_LANES_P='0'),
                'mpich': {}, 'openmpi': {}}
    impls_coll = {'michi': {'MICHI_COLL_SITE_RANKS': str(n0)}, 'mpich': {}, 'openmpi': {}}
    if conf['force']:
        impls_coll['michi-forced'] = dict(impls_coll['michi'], **conf['force'])
    if conf['impls']:
        impls_sg = {k: v for k, v in impls_sg.items() if k in conf['impls']}
        impls_coll = {k: v for k, v in impls_coll.items() if k in conf['impls']}
    parts = conf['parts']
    # rows go to the CSVs as each run ends, so a stopped run keeps what it measured
    hdr = ['impl', 'round', 'op', 'size', 'calls', 'median', 'min', 'max', 'late_max']
    sg_csv = os.path.join(out, f'sg-{delay}.csv')
    p_csv = os.path.join(out, f'p-{delay}.csv')
    c_csv = os.path.join(out, f'coll-{delay}.csv')
    for path in (sg_csv, p_csv, c_csv):
        if os.path.exists(path):
            os.remove(path)
    sargs = ['-i', str(iters), '-s', str(MIB), '-f', str(conf['floor'])]
    ptop = min(n0, n1)

    def rot(names, r):
        names = list(names)
        if not names:
            return []
        k = r % len(names)
        return names[k:] + names[:k]

    def part_sg(r):
        lim = b.limit(['scatter', 'gather'], sizes, iters, delay, n0, n1)
        for impl in rot(impls_sg, r):
            res, _, _, _ = b.run(delay, 'sg', impl, r, impls_sg[impl],
                                 ['-t', 'scatter,gather', '-m', ','.join(map(str, sizes))] + sargs,
                                 lim)
            for (op, m), v in sorted(res.items()):
                append_csv(sg_csv, hdr, [impl, r, op, m, *v])

    def part_p(r):
        lim = b.limit(['scatter', 'gather'], [psize], iters, delay, n0, n1)
        for P in rot(range(1, ptop + 1), r):
            res, _, _, _ = b.run(delay, 'p', f'michi-P{P}', r, dict(michi, MICHI_COLL_LANES_P=str(P)),
                                 ['-t', 'scatter,gather', '-m', str(psize)] + sargs, lim)
            for (op, m), v in sorted(res.items()):
                append_csv(p_csv, ['P'] + hdr[1:], [P, r, op, m, *v])

    def part_coll(r):
        lim = b.limit(COLLS, csizes, iters, delay, n0, n1)
        for impl in rot(impls_coll, r):
            res, _, _, _ = b.run(delay, 'coll', impl, r, impls_coll[impl],
                                 ['-t', ','.join(COLLS), '-m', ','.join(map(str, csizes))] + sargs,
                                 lim)
            for (op, m), v in sorted(res.items()):
                append_csv(c_csv, hdr, [impl, r, op, m, *v])

    def part_wan(r):
        # single-lane against multilane, one op a run, its 100 ms WAN
        # counters; once, at 20 ms and more
        if r != 1 or secs(delay) < 0.02 - 1e-9:
            return
        for op in ('scatter', 'gather'):
            for impl in [i for i in ('michi-p1', 'michi-auto') if i in impls_sg and
                         (i == 'michi-auto' or not conf['wan_auto'])]:
                lim = b.limit([op], [psize], 3, delay, n0, n1)
                res, calls, t0, t1 = b.run(delay, 'wan', impl, 1, impls_sg[impl],
                                           ['-t', op, '-m', str(psize), '-i', '3', '-w', '1'], lim)
                wan_series(b, delay, op, impl, calls, t0, t1)

    # the parts in the order given, each round
    run_part = {'sg': part_sg, 'p': part_p, 'coll': part_coll, 'wan': part_wan}
    for r in range(1, rounds + 1):
        for part in parts:
            run_part[part](r)

    subprocess.run([GRID, 'down'], capture_output=True, timeout=120)
    log(f'grid down ({delay})', b.runlog)


def calibrate(b, delay, n0, n1, tcp_split=False):
    """`michi_info --calibrate-grid` on this grid (one lane a host pair, as
    in the runs; with tcp_split, as the runs, two flows a lane): the
    profile's path and its pair's parameters."""
    prof = os.path.join(b.out, f'profile-{delay}.txt')
    info = os.path.join(os.path.dirname(os.environ['MICHI_MPIRUN']), 'michi_info')
    env = {'MICHI_COLL_SITE_RANKS': str(n0)}
    if not tcp_split:
        env['MICHI_TCP_STRIPE_MIN'] = '0'
    cmd = [GRID_MPI, 'michi', '--run', info, '--calibrate-grid', '--out', prof, '--bytes', '4m']
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, **env))
    pairs = []
    if p.returncode == 0 and os.path.exists(prof):
        pairs = [x.split() for x in open(prof) if x.startswith('pair ')]
    if len(pairs) != 1 or len(pairs[0]) != 4:
        raise SystemExit(f'grid-coll: calibration at {delay}: exit {p.returncode}: '
                         f'{p.stdout[-2000:]} {p.stderr[-2000:]}')
    log(f'calibration at {delay}, {time.monotonic() - t0:.1f} s: {pairs[0][3]}', b.runlog)
    return prof, pairs[0][3]


def predict(work, params, n0, n1, sizes):
    """lanes_predict's rows: [size, op, P, h, T, auto, T_sched, forced]."""
    p = subprocess.run([os.path.join(work, 'lanes_predict'), params, str(n0), str(n1)] +
                       [str(m) for m in sizes], capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise SystemExit(f'grid-coll: lanes_predict: {p.stderr.strip()}')
    rows = []
    for line in p.stdout.split():
        f = line.split(',')
        rows.append([int(f[0]), f[1], int(f[2]), int(f[3]), float(f[4]), int(f[5]), float(f[6]),
                     int(f[7])])
    return rows


def remodel(out, work):
    conf = {}
    for line in open(os.path.join(out, 'config.txt')):
        k, _, v = line.partition(': ')
        conf[k] = v.strip()
    import ast
    sizes = ast.literal_eval(conf['sizes']) + [int(conf['psize'])]
    n = int(conf['per_site'])
    for delay, params in ast.literal_eval(conf['params']).items():
        write_model(out, work, delay, params, n, n, sorted(set(sizes)))
    return 0


def write_model(out, work, delay, params, n0, n1, sizes):
    write_csv(os.path.join(out, f'model-{delay}.csv'),
              ['size', 'op', 'P', 'h', 'T', 'auto', 'T_sched', 'forced'],
              predict(work, params, n0, n1, sizes))


def wan_series(b, delay, op, impl, calls, t0, t1):
    """The emulator's 100 ms counters of the WAN path during one run, from
    its first timed call's start: Mb/s each way and the share of B_WAN."""
    rows = []
    start = min((c[3] for c in calls), default=t0)
    try:
        with open(b.stats) as f:
            for r in csv.DictReader(f):
                if r.get('path') != 'wan' or not r['t_ns'].isdigit():
                    continue
                t = int(r['t_ns'])
                if t0 - 2e8 <= t <= t1 + 2e8:
                    rows.append((t, r['dir'], int(r['bytes'])))
    except OSError as e:
        log(f'wan: {b.stats}: {e}', b.runlog)
    iv = sorted({t for t, _, _ in rows})
    step = (iv[1] - iv[0]) if len(iv) > 1 else 100e6
    series = []
    for t in iv:
        ab = sum(x for u, d, x in rows if u == t and d == 'ab')
        ba = sum(x for u, d, x in rows if u == t and d == 'ba')
        series.append([f'{(t - start) / 1e9:.3f}', f'{ab * 8 / (step / 1e9) / 1e6:.2f}',
                       f'{ba * 8 / (step / 1e9) / 1e6:.2f}',
                       f'{(ab if op == "scatter" else ba) * 8 / (step / 1e9) / WAN_RATE:.4f}'])
    name = os.path.join(b.out, f'wan-{delay}-{op}-{impl}.csv')
    write_csv(name, ['t_s', 'mbps_ab', 'mbps_ba', 'util'], series)
    with open(os.path.join(b.out, f'wan-{delay}-{op}-{impl}-calls.csv'), 'w') as f:
        f.write('call,start_s,end_s\n')
        for c in calls:
            f.write(f'{c[2]},{(c[3] - start) / 1e9:.3f},{(c[4] - start) / 1e9:.3f}\n')
    return name


def append_csv(path, hdr, row):
    new = not os.path.exists(path)
    with open(path, 'a', newline='') as f:
        w = csv.writer(f)
        if new:
            w.writerow(hdr)
        w.writerow(row)


def write_csv(path, hdr, rows):
    with open(path, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(hdr)
        w.writerows(rows)


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        print('grid-coll: stopped; the job that ran was ended and the grid taken down',
              file=sys.stderr)
        sys.exit(130)
