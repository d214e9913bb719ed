# SPDX-License-Identifier: MIT
"""test/net/grid_spec.py: the grid's spec format, parsed into a topology.

A spec file describes sites, switches, hosts with their NICs, emulated
links between switches and per-host TCP limits, one statement a line
(`#` starts a comment). Variables make variants selectable on the command
line (`grid up two-sites delay=20ms`):

  set NAME=VALUE       a variable and its default; VAR=VALUE given to
                       `grid up` wins. A later `set` of the same name
                       (under `when`) changes the default. ${NAME} is
                       replaced everywhere after the line that sets it.
  when NAME=V1[,V2...] STATEMENT
  when NAME!=V1[,V2...] STATEMENT
                       the statement only when the variable has (has not)
                       one of the values
  switch NAME [site=SITE] [net=K] [queue=64p|96kb]
                       a switch (a Linux bridge) of data network K
                       (Network-K, default 0), at SITE (default `lab`);
                       queue is each of its ports' egress buffer
                       (default 64p: 64 full frames, held as bytes so
                       that GSO superframes count for what they carry)
  host NAME... nic=SWITCH[:RATE]... [key=VALUE...]
                       hosts; NAME may be a range such as a1..a4. One
                       nic= per data network (the NIC on Network-K is
                       ethK), its rate shaped at both ends: host egress
                       and the switch port's egress (htb). The site is
                       the first NIC's switch's. Keys as for `tune`.
  tune PATTERN... key=VALUE...
                       change hosts already declared (shell patterns):
                       offsite=RATE    rate of the host's traffic to other
                                       sites (node-limited lanes)
                       rmem=MIN,DEF,MAX  net.ipv4.tcp_rmem of the host
                       wmem=MIN,DEF,MAX  net.ipv4.tcp_wmem of the host
                       window=BYTES    the effective TCP window those
                                       buffers give one flow (calibrated;
                                       the fidelity check expects
                                       window/RTT from a flow)
                       cc=NAME         TCP congestion control of the host
                                       (empty: this machine's default; a
                                       namespace may only choose one in
                                       net.ipv4.tcp_allowed_congestion_control)
  link NAME SWITCH_A SWITCH_B [delay=D] [rate=R] [limit=L] [loss=P] [seed=N]
                       a path of the link emulator joining two switches
                       (a WAN path or one hop of a switch tree): one-way
                       delay (5ms, 250us), serialization rate (100mbit;
                       0 none), drop-tail limit (1000p, 256kb), random
                       loss (0.5%), both directions alike

Units: rates in bit/s with k/m/g prefixes (100mbit, 1gbit, 25000kbit),
times in s/ms/us/ns, sizes in b/kb/mb (1000s) or p (frames of 1514 bytes).
"""

import fnmatch
import re

FRAME = 1514          # bytes of a full Ethernet frame at MTU 1500 (no FCS)
NET_MAX = 6           # data networks 10.80 .. 10.85
HOSTS_MAX = 250


class SpecError(Exception):
    pass


def parse_rate(text, what):
    """'100mbit' -> 100000000 (bit/s); '0' -> 0."""
    m = re.fullmatch(r'(\d+(?:\.\d+)?)([kmg]?)(bit|bps)?', text.strip().lower())
    if not m or (m.group(2) == '' and m.group(3) is None and float(m.group(1)) != 0):
        raise SpecError(f'{what}: bad rate {text!r} (such as 100mbit, 1gbit, 0)')
    mult = {'': 1, 'k': 10**3, 'm': 10**6, 'g': 10**9}[m.group(2)]
    if m.group(3) == 'bps':
        mult *= 8
    return int(float(m.group(1)) * mult)


def parse_time_ns(text, what):
    """'5ms' -> 5000000 (ns)."""
    m = re.fullmatch(r'(\d+(?:\.\d+)?)(s|ms|us|ns)', text.strip().lower())
    if not m:
        raise SpecError(f'{what}: bad time {text!r} (such as 5ms, 250us)')
    mult = {'s': 10**9, 'ms': 10**6, 'us': 10**3, 'ns': 1}[m.group(2)]
    return int(float(m.group(1)) * mult)


def parse_size(text, what):
    """'64p' -> ('p', 64); '96kb' -> ('b', 96000)."""
    m = re.fullmatch(r'(\d+)(p|b|kb|mb)', text.strip().lower())
    if not m:
        raise SpecError(f'{what}: bad size {text!r} (such as 64p, 96kb)')
    n = int(m.group(1))
    if m.group(2) == 'p':
        return ('p', n)
    return ('b', n * {'b': 1, 'kb': 1000, 'mb': 10**6}[m.group(2)])


def size_bytes(size):
    kind, n = size
    return n * FRAME if kind == 'p' else n


def parse_loss(text, what):
    m = re.fullmatch(r'(\d+(?:\.\d+)?)%', text.strip())
    if not m or float(m.group(1)) > 100:
        raise SpecError(f'{what}: bad loss {text!r} (such as 0.5%)')
    return float(m.group(1)) / 100


def expand_names(word, what):
    """'a1..a4' -> ['a1', 'a2', 'a3', 'a4']."""
    m = re.fullmatch(r'([A-Za-z_-]*?)(\d+)\.\.\1(\d+)', word)
    if '..' in word and not m:
        m = re.fullmatch(r'([A-Za-z_-]*?)(\d+)\.\.(\d+)', word)
    if m:
        lo, hi = int(m.group(2)), int(m.group(3))
        if hi < lo or hi - lo >= HOSTS_MAX:
            raise SpecError(f'{what}: bad range {word!r}')
        return [f'{m.group(1)}{i}' for i in range(lo, hi + 1)]
    return [word]


NAME_RE = re.compile(r'[A-Za-z][A-Za-z0-9_-]{0,23}')


def check_name(name, what):
    if not NAME_RE.fullmatch(name):
        raise SpecError(f'{what}: bad name {name!r} (a letter, then letters, digits, _ or -; '
                        'at most 24)')
    return name


class Topology:
    """The parsed spec: plain dicts and lists, saved as JSON in the state."""

    def __init__(self):
        self.vars = {}          # name -> value (after the command line)
        self.switches = {}      # name -> {site, net, queue_bytes}
        self.hosts = {}         # name -> {site, nics: [{net, switch, rate}], ...}
        self.links = {}         # name -> {a, b, delay_ns, rate, limit, loss, seed, params}

    def as_dict(self):
        return {'vars': self.vars, 'switches': self.switches, 'hosts': self.hosts,
                'links': self.links}


def _keyvals(words, where):
    out = []
    for w in words:
        if '=' not in w:
            raise SpecError(f'{where}: expected key=value, not {w!r}')
        k, v = w.split('=', 1)
        out.append((k, v))
    return out


def _tune(host, key, val, where):
    if key == 'offsite':
        host['offsite'] = parse_rate(val, where)
    elif key in ('rmem', 'wmem'):
        parts = val.split(',')
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise SpecError(f'{where}: {key} is MIN,DEFAULT,MAX in bytes, not {val!r}')
        host[key] = [int(p) for p in parts]
    elif key == 'window':
        host['window'] = size_bytes(parse_size(val, where))
    elif key == 'cc':
        if not re.fullmatch(r'[a-z0-9_]*', val):
            raise SpecError(f'{where}: bad congestion control {val!r}')
        host['cc'] = val
    elif key == 'mptcp':
        if val not in ('on', 'off'):
            raise SpecError(f'{where}: mptcp is on or off, not {val!r}')
        host['mptcp'] = val == 'on'
    else:
        raise SpecError(f'{where}: unknown host key {key!r} '
                        '(offsite, rmem, wmem, window, cc, mptcp)')


def parse(text, source, overrides):
    """Parse a spec's text; overrides is {VAR: VALUE} from the command line."""
    topo = Topology()
    defaults = {}
    used = set()

    def subst(line, where):
        def one(m):
            name = m.group(1)
            if name not in defaults:
                raise SpecError(f'{where}: ${{{name}}} is not set (yet)')
            used.add(name)
            return overrides.get(name, defaults[name])
        return re.sub(r'\$\{([A-Za-z_][A-Za-z0-9_]*)\}', one, line)

    for no, raw in enumerate(text.splitlines(), 1):
        where = f'{source} line {no}'
        line = raw.split('#', 1)[0].strip()
        if not line:
            continue
        words = subst(line, where).split()
        while words[0] == 'when':
            if len(words) < 3:
                raise SpecError(f'{where}: when NAME=V1,V2 STATEMENT')
            m = re.fullmatch(r'([A-Za-z_][A-Za-z0-9_]*)(!?=)(.*)', words[1])
            if not m or m.group(1) not in defaults:
                raise SpecError(f'{where}: when needs a variable set before it, not {words[1]!r}')
            value = overrides.get(m.group(1), defaults[m.group(1)])
            used.add(m.group(1))
            hit = value in m.group(3).split(',')
            if hit != (m.group(2) == '='):
                words = None
                break
            words = words[2:]
        if words is None:
            continue
        kw, args = words[0], words[1:]
        if kw == 'set':
            if len(args) != 1 or '=' not in args[0]:
                raise SpecError(f'{where}: set NAME=VALUE')
            name, value = args[0].split('=', 1)
            if not re.fullmatch(r'[A-Za-z_][A-Za-z0-9_]*', name):
                raise SpecError(f'{where}: bad variable name {name!r}')
            defaults[name] = value
        elif kw == 'switch':
            if not args:
                raise SpecError(f'{where}: switch NAME [site=S] [net=K] [queue=Q]')
            name = check_name(args[0], where)
            if name in topo.switches:
                raise SpecError(f'{where}: switch {name} declared twice')
            sw = {'site': 'lab', 'net': 0, 'queue': size_bytes(('p', 64))}
            for k, v in _keyvals(args[1:], where):
                if k == 'site':
                    sw['site'] = check_name(v, where)
                elif k == 'net':
                    if not v.isdigit() or int(v) >= NET_MAX:
                        raise SpecError(f'{where}: net is 0 to {NET_MAX - 1}, not {v!r}')
                    sw['net'] = int(v)
                elif k == 'queue':
                    sw['queue'] = size_bytes(parse_size(v, where))
                else:
                    raise SpecError(f'{where}: unknown switch key {k!r} (site, net, queue)')
            topo.switches[name] = sw
        elif kw == 'host':
            names = []
            while args and '=' not in args[0]:
                names += [check_name(n, where) for n in expand_names(args.pop(0), where)]
            if not names:
                raise SpecError(f'{where}: host NAME... nic=SWITCH[:RATE]...')
            nics, keys = [], []
            for k, v in _keyvals(args, where):
                if k == 'nic':
                    swname, _, rate = v.partition(':')
                    if swname not in topo.switches:
                        raise SpecError(f'{where}: no switch {swname!r} declared before')
                    net = topo.switches[swname]['net']
                    if any(n['net'] == net for n in nics):
                        raise SpecError(f'{where}: two NICs on network {net}')
                    nics.append({'net': net, 'switch': swname,
                                 'rate': parse_rate(rate, where) if rate else 0})
                else:
                    keys.append((k, v))
            if not nics:
                raise SpecError(f'{where}: a host needs at least one nic=SWITCH')
            for name in names:
                if name in topo.hosts:
                    raise SpecError(f'{where}: host {name} declared twice')
                if name == 'switches':
                    raise SpecError(f'{where}: "switches" is the grid\'s own name')
                h = {'site': topo.switches[nics[0]['switch']]['site'],
                     'nics': [dict(n) for n in nics], 'offsite': 0,
                     'rmem': None, 'wmem': None, 'window': 0, 'cc': '', 'mptcp': False}
                for k, v in keys:
                    _tune(h, k, v, where)
                topo.hosts[name] = h
        elif kw == 'tune':
            pats = [a for a in args if '=' not in a]
            kvs = _keyvals([a for a in args if '=' in a], where)
            if not pats or not kvs:
                raise SpecError(f'{where}: tune PATTERN... key=VALUE...')
            for p in pats:
                hit = [h for h in topo.hosts if fnmatch.fnmatchcase(h, p)]
                if not hit:
                    raise SpecError(f'{where}: no host matches {p!r}')
                for h in hit:
                    for k, v in kvs:
                        _tune(topo.hosts[h], k, v, where)
        elif kw == 'link':
            if len(args) < 3:
                raise SpecError(f'{where}: link NAME SWITCH_A SWITCH_B [key=value...]')
            name = check_name(args[0], where)
            if name in topo.links:
                raise SpecError(f'{where}: link {name} declared twice')
            a, b = args[1], args[2]
            for s in (a, b):
                if s not in topo.switches:
                    raise SpecError(f'{where}: no switch {s!r} declared before')
            if a == b or topo.switches[a]['net'] != topo.switches[b]['net']:
                raise SpecError(f'{where}: a link joins two switches of one network')
            ln = {'a': a, 'b': b, 'delay_ns': 0, 'rate': 0, 'limit': None, 'loss': 0.0,
                  'seed': None, 'params': []}
            for k, v in _keyvals(args[3:], where):
                if k == 'delay':
                    ln['delay_ns'] = parse_time_ns(v, where)
                elif k == 'rate':
                    ln['rate'] = parse_rate(v, where)
                elif k == 'limit':
                    ln['limit'] = parse_size(v, where)
                elif k == 'loss':
                    ln['loss'] = parse_loss(v, where)
                elif k == 'seed':
                    if not v.isdigit():
                        raise SpecError(f'{where}: seed is a number')
                    ln['seed'] = int(v)
                else:
                    raise SpecError(f'{where}: unknown link key {k!r} '
                                    '(delay, rate, limit, loss, seed)')
                ln['params'].append(f'{k}={v}')
            topo.links[name] = ln
        else:
            raise SpecError(f'{where}: unknown statement {kw!r} '
                            '(set, when, switch, host, tune, link)')

    unknown = sorted(set(overrides) - set(defaults))
    if unknown:
        raise SpecError(f'{source}: no variable {", ".join(unknown)} '
                        f'(this spec has: {", ".join(sorted(defaults)) or "none"})')
    if not topo.hosts:
        raise SpecError(f'{source}: no hosts')
    if len(topo.hosts) > HOSTS_MAX:
        raise SpecError(f'{source}: {len(topo.hosts)} hosts, at most {HOSTS_MAX}')
    _check_tree(topo, source)
    topo.vars = {k: overrides.get(k, v) for k, v in defaults.items()}
    return topo


def _check_tree(topo, source):
    """Bridges joined in a loop would flood frames forever (no STP here)."""
    parent = {s: s for s in topo.switches}

    def root(s):
        while parent[s] != s:
            s = parent[s]
        return s
    for name, ln in topo.links.items():
        ra, rb = root(ln['a']), root(ln['b'])
        if ra == rb:
            raise SpecError(f'{source}: link {name} closes a loop of switches')
        parent[ra] = rb


def switch_path(topo, a, b):
    """The links on the way from switch a to switch b: [(link, 'ab'|'ba')]."""
    seen = {a: []}
    todo = [a]
    while todo:
        s = todo.pop(0)
        if s == b:
            return seen[s]
        for name, ln in topo['links'].items():
            for x, y, d in ((ln['a'], ln['b'], 'ab'), (ln['b'], ln['a'], 'ba')):
                if x == s and y not in seen:
                    seen[y] = seen[s] + [(name, d)]
                    todo.append(y)
    return None
