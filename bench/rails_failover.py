# SPDX-License-Identifier: MIT
"""bench/rails_failover.py: the failover and weights parts of bench/rails.py
(issue 31), on the emulated grid `multirail`.

failover: hosts A and B on both networks (cfg=b). For 60 s B streams to A
          (railprog stream) or A and B ping-pong (railprog pingpong), while
          one schedule runs:
            cut0   B's Network-0 cut at 15 s, restored at 30 s, cut at 45 s
                   (Michi's main connection and MPTCP's first subflow)
            cut1   the same on Network-1
            flap0  Network-0 flaps from 10 s to 50 s, 0.5 s down, 0.5 s up
          for Michi (its rails), Michi in MPTCP mode and MPICH under
          mptcpize (both on Network-0, the kernel's subflows on both). Each
          run gives the longest stall (railprog's longest wait for a
          message, or longest round trip) and, from A's NIC counters every
          0.1 s, when each restored network carried traffic again.
weights:  paper B's Fig. 9: B, C and D (cfg=e) stream to A for 60 s;
          B's Network-1 is cut at 20 s (giving f), D's at 40 s (giving h).
          Each client's MPI_T shares of its rails every 0.5 s.
Files: runs.csv rows (part failover/weights), failover/<run>.csv (NIC
rates over time, events), weights.csv (t, rank, rail, share).
"""

import csv
import os
import subprocess
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GRID = os.path.join(TOP, 'test', 'net', 'grid')

# NIC counters of a host, every 0.1 s, with the machine's monotonic clock
# (the same in every namespace)
SAMPLER = r'''
import sys, time
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    v = [open(f"/sys/class/net/{n}/statistics/rx_bytes").read().strip() for n in ("eth0", "eth1")]
    print(f"{time.monotonic():.3f} {v[0]} {v[1]}", flush=True)
    time.sleep(0.1)
'''

SCHEDULES = {
    'cut0': [(15, 'cut', 'B:eth0'), (30, 'restore', 'B:eth0'), (45, 'cut', 'B:eth0')],
    'cut1': [(15, 'cut', 'B:eth1'), (30, 'restore', 'B:eth1'), (45, 'cut', 'B:eth1')],
    'flap0': [(10 + k * 0.5, 'cut' if k % 2 == 0 else 'restore', 'B:eth0') for k in range(80)],
}
SECONDS = 60


def grid(*args):
    subprocess.run([GRID] + list(args), capture_output=True, timeout=60)


def run_schedule(sched, t0, events, stop):
    for at, what, link in sched:
        while time.monotonic() - t0 < at:
            if stop.is_set():
                return
            time.sleep(0.01)
        grid(what, link)
        events.append((time.monotonic(), what, link))


def restore_lag(samples, events):
    """Seconds from each restore to the first 0.1 s sample in which the
    restored NIC of A received at least 1 Mb/s (None: never)."""
    lags = []
    for t, what, link in events:
        if what != 'restore':
            continue
        col = 1 if link.endswith('eth0') else 2
        lag = None
        for a, b in zip(samples, samples[1:]):
            if a[0] < t:
                continue
            if (b[col] - a[col]) * 8 / max(b[0] - a[0], 1e-3) >= 1e6:
                lag = b[0] - t
                break
        lags.append(lag)
    return lags


def one(work, out, run, impl, nets, env, mode, sched, rnd, w, runlog, log):
    fdir = os.path.join(out, 'failover')
    os.makedirs(fdir, exist_ok=True)
    grid('restore', 'B:eth0')
    grid('restore', 'B:eth1')
    name = f'{sched}-{impl}-{mode}-r{rnd}'
    samp = subprocess.Popen([GRID, 'exec', 'A', 'python3', '-c', SAMPLER, str(SECONDS + 30)],
                            stdout=subprocess.PIPE, text=True)
    events, stop = [], threading.Event()
    t0 = time.monotonic()
    th = threading.Thread(target=run_schedule, args=(SCHEDULES[sched], t0, events, stop))
    th.start()
    try:
        lines = run(work, impl, ['A', 'B'], nets, dict(env, MICHI_LOG='info'),
                    [mode, str(SECONDS)], runlog, limit=SECONDS + 90)
    finally:
        stop.set()
        th.join()
        samp.terminate()
        raw = samp.communicate()[0]
        grid('restore', 'B:eth0')
        grid('restore', 'B:eth1')
    samples = []
    for x in raw.splitlines():
        v = x.split()
        if len(v) == 3:
            samples.append((float(v[0]), int(v[1]), int(v[2])))
    with open(os.path.join(fdir, name + '.csv'), 'w', newline='') as f:
        c = csv.writer(f)
        c.writerow(['t', 'eth0_mbits', 'eth1_mbits', 'event'])
        for a, b in zip(samples, samples[1:]):
            dt = max(b[0] - a[0], 1e-3)
            ev = ';'.join(f'{what} {link}' for t, what, link in events if a[0] <= t < b[0])
            c.writerow([f'{b[0] - t0:.2f}', f'{(b[1] - a[1]) * 8 / dt / 1e6:.2f}',
                        f'{(b[2] - a[2]) * 8 / dt / 1e6:.2f}', ev])
    gap = None
    for x in lines:
        v = x.split()
        if v[1] in ('stream', 'pingpong') and v[2] == 'ok':
            gap = float(v[-1])
    lags = restore_lag(samples, events)
    resumes = 0
    errf = os.path.join(work, 'run.out.err')
    if os.path.exists(errf):
        resumes = sum(1 for x in open(errf) if ' resumed ' in x)
    w.writerow(['failover', sched, '100mbit', impl, rnd, f'{mode}_gap',
                '' if gap is None else gap, 's'])
    w.writerow(['failover', sched, '100mbit', impl, rnd, f'{mode}_restore',
                '' if not lags or lags[0] is None else f'{lags[0]:.2f}', 's'])
    w.writerow(['failover', sched, '100mbit', impl, rnd, f'{mode}_resumes', resumes, ''])
    log(f'failover {name}: longest stall {gap} s, restored rail carries again after '
        f'{lags} s, {resumes} resume lines', runlog)


def part_failover(work, out, run, w, f, runlog, log, grid_up, only, rounds):
    grid_up('b', '100mbit', runlog)
    impls = [
        ('michi-feedback', '', {}),
        ('michi-mptcp', '0', {'MICHI_TCP_MPTCP': '1'}),
        ('mpich-mptcp', '0', {}),
    ]
    impls = [i for i in impls if not only or only.search(i[0])]
    for rnd in range(1, rounds + 1):
        for sched in ('cut0', 'cut1', 'flap0'):
            for impl, nets, env in impls:
                for mode in ('stream', 'pingpong'):
                    one(work, out, run, impl, nets, env, mode, sched, rnd, w, runlog, log)
                    f.flush()


def part_weights(work, out, run, w, f, runlog, log, grid_up):
    grid_up('e', '100mbit', runlog)
    events, stop = [], threading.Event()
    sched = [(20, 'cut', 'B:eth1'), (40, 'cut', 'D:eth1')]
    t0 = time.monotonic()
    th = threading.Thread(target=run_schedule, args=(sched, t0, events, stop))
    th.start()
    try:
        lines = run(work, 'michi-feedback', ['A', 'B', 'C', 'D'], '',
                    {'MICHI_SITE': 'lab', 'RAILPROG_PVARS': 'tcp_rail',
                     'RAILPROG_SAMPLE': '0.5'}, ['stream', str(SECONDS)], runlog,
                    limit=SECONDS + 90)
    finally:
        stop.set()
        th.join()
        grid('restore', 'B:eth1')
        grid('restore', 'D:eth1')
    with open(os.path.join(out, 'weights.csv'), 'w', newline='') as g:
        c = csv.writer(g)
        c.writerow(['t', 'rank', 'rail', 'share'])
        for x in lines:
            v = x.split()
            if v[1] == 'sample' and v[4].endswith('_share') and v[4][8] in '01':
                c.writerow([v[3], v[2], v[4][8], int(v[5]) / 1000])
    for x in lines:
        v = x.split()
        if v[1] == 'stream' and v[2] == 'ok':
            w.writerow(['weights', 'e', '100mbit', 'michi-feedback', 1, 'stream_gap', v[-1], 's'])
    f.flush()
    log(f'weights: events {[(round(t - t0, 1), a, b) for t, a, b in events]}', runlog)
