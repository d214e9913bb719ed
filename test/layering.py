#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# test/layering.py: the layers of docs/design.md's map, checked on the source
# and on the built objects. A layer may use itself and the layers LAYERS
# gives it, nothing else:
#  1. includes: every #include "x" of a source file under a layer's folder
#     is resolved as the compiler would (the including file's folder, then
#     the layers' folders) and the header's layer must be allowed;
#  2. symbols: every undefined symbol of a layer's objects (nm of its
#     convenience library) that another layer of libmpi defines must come
#     from an allowed layer. The reference is charged to the file its line
#     is in (nm -l), so that a device's inline fast path that mtmi.h brings
#     into an mpi/ object counts as the device's own code, reached through
#     MTMI's door (mtmi/ -> devices/ is allowed), not as mpi/'s.
# A private header (name_priv.h) serves the files of its own folder only.
# Each violation is printed as file:line and the rule it breaks. Known
# violations that another change is removing are listed, one a line, in
# test/layering.allow: they are printed as such and do not fail the check;
# an entry that no longer matches anything fails it (remove the entry).

import os
import re
import subprocess
import sys

# The map (docs/design.md section 1): layer -> the layers it may use. util is
# under everything; mpi-api is the public mpi.h (mpi/include).
LAYERS = {
    'util':    [],
    'devices': ['util'],
    'mtmi':    ['devices', 'util'],
    'coll':    ['mtmi', 'util'],
    'mpi':     ['coll', 'mtmi', 'util', 'mpi-api'],
    'mpi-api': [],
    'launch':  ['util'],
    'tools':   ['mpi-api'],
}
# folder (relative to the top source directory) -> layer; the longest
# matching prefix wins
FOLDERS = {
    'util': 'util', 'devices': 'devices', 'mtmi': 'mtmi', 'coll': 'coll',
    'mpi': 'mpi', 'mpi/include': 'mpi-api', 'launch': 'launch', 'tools': 'tools',
}
# the convenience library of each layer inside libmpi, and libmpi's own
# objects (the generated bindings), relative to the build directory
LIBS = {
    'util': ['util/.libs/libmichiutil.a'],
    'devices': ['devices/.libs/libmichidev.a'],
    'mtmi': ['mtmi/.libs/libmichimtmi.a'],
    'coll': ['coll/.libs/libmichicoll.a'],
    'mpi': ['mpi/.libs/libmichimpi.a', 'mpi/.libs/libmichipmix.a', 'mpi/bindings/.libs'],
}
SOURCE_EXT = ('.c', '.h')

top = os.path.abspath(os.environ.get('top_srcdir') or
                      os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
build = os.path.abspath(os.environ.get('top_builddir') or os.getcwd())


def layer_of(rel):
    """The layer of a path relative to top (or build), None outside them."""
    best = None
    for folder, layer in FOLDERS.items():
        if rel == folder or rel.startswith(folder + '/'):
            if best is None or len(folder) > len(best[0]):
                best = (folder, layer)
    return best[1] if best else None


def rel_path(path):
    path = os.path.normpath(path)
    for base in (top, build):
        if path.startswith(base + os.sep):
            return os.path.relpath(path, base)
    return None


def sources():
    for folder in FOLDERS:
        for dirpath, dirnames, files in os.walk(os.path.join(top, folder)):
            dirnames[:] = [d for d in dirnames if not d.startswith('.')]
            for f in sorted(files):
                if f.endswith(SOURCE_EXT):
                    yield os.path.join(dirpath, f)


def header_dirs():
    """Every folder of the layers, as -I would search them."""
    dirs = []
    for folder in FOLDERS:
        for base in (top, build):
            for dirpath, dirnames, files in os.walk(os.path.join(base, folder)):
                dirnames[:] = [d for d in dirnames if not d.startswith('.')]
                dirs.append(dirpath)
    return dirs + [top, build]


def load_allow(path):
    allow = {}
    if os.path.exists(path):
        with open(path) as f:
            for n, line in enumerate(f, 1):
                line = line.split('#', 1)[0].strip()
                if line:
                    allow[' '.join(line.split())] = n
    return allow


def check_includes(report):
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    dirs = header_dirs()
    seen = set()
    for path in sources():
        if path in seen:
            continue
        seen.add(path)
        rel = rel_path(path)
        mine = layer_of(rel)
        with open(path, errors='replace') as f:
            for n, line in enumerate(f, 1):
                m = inc.match(line)
                if not m:
                    continue
                name = m.group(1)
                # the including file's folder first, then the layers' own
                # folders before the others (as each layer's -I list has them)
                cands = [os.path.join(os.path.dirname(path), name)]
                own = [d for d in dirs if layer_of(rel_path(d) or '') == mine]
                cands += [os.path.join(d, name) for d in own + dirs]
                target = next((c for c in cands if os.path.isfile(c)), None)
                if not target:
                    continue        # a generated or system header (config.h)
                trel = rel_path(target)
                theirs = layer_of(trel) if trel else None
                if (trel.endswith('_priv.h') and
                        os.path.dirname(trel) != os.path.dirname(rel)):
                    report(rel, n, 'include %s -> %s' % (rel, trel),
                           'a private header (*_priv.h) serves its own folder, %s/, only'
                           % os.path.dirname(trel))
                elif theirs and theirs != mine and theirs not in LAYERS[mine]:
                    report(rel, n, 'include %s -> %s' % (rel, trel),
                           '%s/ may not include %s/ (%s may use: %s)' %
                           (mine, theirs, mine, ', '.join(LAYERS[mine]) or 'only itself'))


def nm(args, files):
    out = subprocess.run(['nm'] + args + files, capture_output=True, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        sys.exit(99)
    return out.stdout.splitlines()


def lib_files(layer):
    files = []
    for p in LIBS[layer]:
        full = os.path.join(build, p)
        if os.path.isdir(full):
            files += sorted(os.path.join(full, f) for f in os.listdir(full) if f.endswith('.o'))
        elif os.path.exists(full):
            files.append(full)
    return files


def object_file(member):
    """The object of archive member `member` (name-mangled by libtool, so
    unique) in the build tree."""
    for dirpath, dirnames, files in os.walk(build):
        if member in files and os.path.basename(dirpath) == '.libs':
            return os.path.join(dirpath, member)
    return None


def inline_site(obj, sym):
    """For a reference whose line nm gives in a system header: the first
    in-tree file (and line) of its inline chain (addr2line -i), or None."""
    member = obj.split(':')[-1]
    path = object_file(member)
    if not path:
        return None
    sect = None
    for line in subprocess.run(['objdump', '-r', path], capture_output=True,
                               text=True).stdout.splitlines():
        m = re.match(r'RELOCATION RECORDS FOR \[(.*)\]:', line)
        if m:
            sect = m.group(1)
            continue
        parts = line.split()
        if len(parts) == 3 and re.match(r'^[0-9a-f]+$', parts[0]) and \
                re.match(r'^%s([+-]|$)' % re.escape(sym), parts[2]) and sect.startswith('.text'):
            out = subprocess.run(['addr2line', '-i', '-e', path, '-j', sect, parts[0]],
                                 capture_output=True, text=True).stdout.splitlines()
            for where in out:
                f, _, ln = where.rpartition(':')
                rel = rel_path(f) if f.startswith('/') else None
                if rel:
                    return rel, ln.split()[0] if ln.split() and ln.split()[0].isdigit() else 0
    return None


def check_symbols(report):
    defined = {}
    files = {layer: lib_files(layer) for layer in LIBS}
    if not files['mpi'] or not files['util']:
        print('layering: no built libraries under %s (build first): symbols not checked'
              % build)
        return False
    for layer, fl in files.items():
        for line in nm(['-g', '--defined-only'], fl):
            parts = line.split()
            if len(parts) == 3:
                defined.setdefault(parts[2], layer)
    for layer, fl in files.items():
        cur = None
        for line in nm(['-u', '-l', '-A'], fl):
            # archive:member: U symbol<TAB>file:line
            m = re.match(r'^(.*?):\s+U (\S+)(?:\t(.*):(\d+))?$', line)
            if not m:
                continue
            obj, sym, src, n = m.groups()
            theirs = defined.get(sym)
            if not theirs:
                continue            # the C library, libhwloc, ...
            srel = rel_path(src) if src else None
            if src and not srel:
                # inlined from a system header: the in-tree file it came through
                srel = inline_site(obj, sym)
                n = None if srel is None else srel[1]
                srel = srel and srel[0]
            owner = layer_of(srel) if srel else None
            where = srel or obj.split(':')[-1]
            if owner is None:
                owner = layer
            if theirs != owner and theirs not in LAYERS[owner]:
                report(where, int(n) if n else 0, 'symbol %s -> %s (%s)' % (where, sym, theirs),
                       '%s/ may not reference %s/ (%s may use: %s)' %
                       (owner, theirs, owner, ', '.join(LAYERS[owner]) or 'only itself'))
    return True


def main():
    allow_path = os.path.join(top, 'test', 'layering.allow')
    allow = load_allow(allow_path)
    used = set()
    bad = []
    known = []

    def report(rel, line, key, rule):
        key = ' '.join(key.split())
        msg = '%s:%d: %s: %s' % (rel, line, key.split(' ', 1)[0], rule + ' [' + key + ']')
        if key in allow:
            used.add(key)
            known.append(msg)
        else:
            bad.append(msg)

    check_includes(report)
    symbols = check_symbols(report)
    for m in sorted(set(known)):
        print('known (test/layering.allow): ' + m)
    for m in sorted(set(bad)):
        print('VIOLATION: ' + m)
    stale = [k for k in allow if k not in used and (symbols or not k.startswith('symbol '))]
    for k in sorted(stale, key=lambda k: allow[k]):
        print('test/layering.allow:%d: no longer found, remove it: %s' % (allow[k], k))
    print('layering: %d violations, %d known (allowed), %d stale allowlist entries'
          % (len(set(bad)), len(set(known)), len(stale)))
    return 1 if bad or stale else 0


if __name__ == '__main__':
    sys.exit(main())
