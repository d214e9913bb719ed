#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Michi's own share of MPI_Isend and MPI_Irecv over a matching device.

Issue 7 counts, for the native path, the inclusive instructions of
MPI_Isend and MPI_Irecv minus the inclusive instructions of the libfabric
or UCX calls made under them. This reads the callgrind.out file that
count.sh leaves (-k), walks the calls from each MPI function through
Michi's own functions (those in the object that holds the MPI function),
adds up the edges that leave Michi for libfabric or UCX (a call into
libc stays in Michi's share), and prints per
call: the MPI function's inclusive count, the libraries' part, and the
difference, Michi's share. Calls per MPI function are those made from
the measured loop (instr_loop), as in count.sh.

usage: native_share.py callgrind.out
"""
import re
import sys
from collections import defaultdict

MPI = ("MPI_Isend", "MPI_Irecv")
# the network libraries whose calls are not Michi's: libfabric and UCX
NETLIB = re.compile(r"lib(fabric|ucp|uct|ucs|ucm)[.-]")


def base(name):
    return name[1:] if name.startswith("PMPI_") else name


def parse(path):
    names = {"fn": {}, "ob": {}}
    edges = defaultdict(lambda: [0, 0])   # (caller, callee) -> [calls, incl]
    obj_of = {}                            # function -> object
    ob = cob = fn = cfn = None
    pending = None

    def name(kind, rest):
        m = re.match(r"\((\d+)\)\s*(.*)", rest)
        if not m:
            return rest
        if m.group(2):
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), rest)

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if pending is not None:
                parts = line.split()
                if len(parts) >= 2:
                    e = edges[(fn, pending[0])]
                    e[0] += pending[1]
                    e[1] += int(parts[1])
                pending = None
                continue
            if line.startswith("ob="):
                ob = name("ob", line[3:])
            elif line.startswith("fn="):
                fn = name("fn", line[3:])
                obj_of.setdefault(fn, ob)
                cob = None
            elif line.startswith("cob="):
                cob = name("ob", line[4:])
            elif line.startswith("cfn="):
                cfn = name("fn", line[4:])
                obj_of.setdefault(cfn, cob if cob is not None else ob)
            elif line.startswith("calls="):
                pending = (cfn, int(line[6:].split()[0]))
                cob = None
    return edges, obj_of


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    edges, obj_of = parse(sys.argv[1])
    callees = defaultdict(list)
    for (a, b), (calls, incl) in edges.items():
        callees[a].append((b, calls, incl))
    print("function,calls,inclusive_per_call,library_per_call,michi_share_per_call")
    for mpi in MPI:
        roots = [f for f in obj_of if base(f) == mpi]
        calls = sum(c for (a, b), (c, _) in edges.items()
                    if a == "instr_loop" and base(b) == mpi)
        incl = sum(i for (a, b), (_, i) in edges.items()
                   if a == "instr_loop" and base(b) == mpi)
        if not roots or not calls:
            print(f"{mpi},0,,,")
            continue
        home = obj_of[roots[0]]
        seen, stack, lib = set(), list(roots), 0
        while stack:
            f = stack.pop()
            if f in seen:
                continue
            seen.add(f)
            for g, _, i in callees.get(f, []):
                if obj_of.get(g) == home:
                    stack.append(g)
                elif NETLIB.search(obj_of.get(g) or ""):
                    lib += i
                # anything else (libc) stays in Michi's share
        print(f"{mpi},{calls},{incl / calls:.1f},{lib / calls:.1f},"
              f"{(incl - lib) / calls:.1f}")


if __name__ == "__main__":
    main()
