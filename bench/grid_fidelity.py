#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/grid_fidelity.py: the emulated grid's fidelity, measured against its
specs (run through bench/grid-fidelity.sh, which says how).

  grid_fidelity.py OUTDIR SPEC[:VAR=VAL,...]...

For each spec it brings the grid up (test/net/grid up), and for each link
class the spec has (a host NIC: two hosts of one switch; the WAN path:
hosts of two sites; an inter-switch hop: hosts of one site on switches k
hops apart) it measures between the first pair of hosts
- the RTT (30 pings: min and median) against the configured one (the
  delays and a ping frame's serialization of every emulated link crossed,
  both ways; nothing for a NIC);
- one TCP flow's rate (iperf3, 4 s after 1 s of warm-up, the receiver's
  payload rate) against what the spec configures (the narrowest rate as
  TCP payload, 1448 of 1514 bytes, or window/RTT where the hosts' TCP
  buffers limit a flow);
- P parallel flows (P = 4, between distinct host pairs where the class has
  them, else between the same two hosts) against min(P x one flow's
  configured rate, the class's rate);
- the emulator's CPU (utime + stime of its process over the TCP flows of
  the class, as a fraction of one core).
The model (which links a pair crosses, their rates and delays) is the grid's
own fidelity check's (test/net/grid_check.py), so this bench and `grid
check` judge the same numbers. Writes OUTDIR/<spec>.csv, one row a class.
"""

import csv
import importlib.machinery
import importlib.util
import os
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NET = os.path.join(TOP, 'test', 'net')
P = 4


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


sys.path.insert(0, NET)
grid = load('grid', os.path.join(NET, 'grid'))
import grid_check  # noqa: E402

grid_check.grid = grid
GRID = os.path.join(NET, 'grid')


def sh(*cmd, timeout=120):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f'{" ".join(cmd)}: {p.stderr.strip() or p.returncode}')
    return p.stdout


def classes(topo):
    """[(class, srcs, dsts, net)]: the NIC pair, then each distinct hop count."""
    lan, far = grid_check.pairs(topo)
    out = []
    if lan:
        out.append(('nic', [lan[0]], [lan[1]], lan[2]))
    for srcs, dsts, net in far:
        r = grid_check.route(topo, srcs[0], dsts[0], net)
        k = len(r['links'])
        cross = topo['hosts'][srcs[0]]['site'] != topo['hosts'][dsts[0]]['site']
        out.append(('wan' if cross else f'switch-hops-{k}', srcs, dsts, net))
    return out


def measure(spec, topo, cls, srcs, dsts, net):
    src, dst = srcs[0], dsts[0]
    r = grid_check.route(topo, src, dst, net)
    addr = grid_check.nic_on(topo, dst, net)['addr']
    rtts = grid_check.ping_rtts(src, addr)
    one_cfg, _, why = grid_check.flow_target(topo, src, dst, r)
    cpu0, t0 = grid_check.emu_cpu(), time.monotonic()
    one = grid_check.tcp_rate(grid_check.iperf([(src, dst, addr)])[0])
    n = min(P, len(srcs), len(dsts))
    if n >= 2:
        flows = [(s, d, grid_check.nic_on(topo, d, net)['addr']) for s, d in zip(srcs[:n], dsts[:n])]
    else:
        flows = [(src, dst, addr)] * P
    agg = sum(grid_check.tcp_rate(j) for j in grid_check.iperf(flows))
    cpu1, t1 = grid_check.emu_cpu(), time.monotonic()
    path_goodput = (r['shared_rate'] or r['rate']) * grid_check.MSS_FRAME
    agg_cfg = min(len(flows) * one_cfg, path_goodput) if path_goodput else len(flows) * one_cfg
    emu = (cpu1 - cpu0) / (t1 - t0) if cpu0 is not None and cpu1 is not None and r['links'] else 0.0
    return {
        'spec': spec, 'class': cls, 'src': src, 'dst': dst,
        'emulated_links': len(r['links']),
        'rtt_cfg_ms': round(r['rtt_ns'] / 1e6, 3),
        'rtt_min_ms': round(min(rtts), 3) if rtts else '',
        'rtt_median_ms': round(statistics.median(rtts), 3) if rtts else '',
        'flow1_cfg_mbps': round(one_cfg / 1e6, 2), 'flow1_mbps': round(one / 1e6, 2),
        'flow1_why': why,
        'flows': len(flows), 'flowP_cfg_mbps': round(agg_cfg / 1e6, 2),
        'flowP_mbps': round(agg / 1e6, 2),
        'emu_cpu_core': round(emu, 3),
    }


def main(argv):
    outdir = argv[0]
    for item in argv[1:]:
        name, _, assigns = item.partition(':')
        assigns = [a for a in assigns.split(',') if a]
        label = name + ''.join('-' + a.replace('=', '') for a in assigns)
        print(f'=== {label}', flush=True)
        sh(GRID, 'up', name, *assigns)
        rows = []
        try:
            topo = grid.load_topo()
            for h in topo['hosts']:
                sh(GRID, 'exec', h, 'sysctl', '-q', '-w', 'net.ipv4.tcp_slow_start_after_idle=0')
            for cls, srcs, dsts, net in classes(topo):
                row = measure(label, topo, cls, srcs, dsts, net)
                rows.append(row)
                print(' '.join(f'{k}={v}' for k, v in row.items()), flush=True)
        finally:
            sh(GRID, 'down')
        with open(os.path.join(outdir, f'{label}.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
