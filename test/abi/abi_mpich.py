#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# test/abi/abi_mpich.py: proves that Michi's mpi.h is binary compatible
# with MPICH's (the Debian libmpich-dev header). It
#  1. takes every integer- or pointer-valued MPI_ macro and enum constant of
#     MPICH's mpi.h, prints its value from one program built against MPICH's
#     header and one built against ours, and diffs the two outputs, together
#     with sizeof/offsetof of MPI_Status, the integer types and the handles;
#  2. checks that every function MPICH declares is declared by our header
#     (all of MPI-3.1 and of the MPI-4.0 MPICH 4.0.2 has), and that each
#     function both declare has the same type: our header is compiled
#     together with MPICH's prototypes, and C rejects conflicting types;
#  3. checks that MPI_*_DUP_FN expand to MPICH's symbol, MPIR_Dup_fn.
# Exits 77 (skip) when MPICH's header is not installed.

import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
TOP_SRCDIR = os.environ.get("top_srcdir",
                            os.path.join(os.path.dirname(__file__), "..", ".."))
OUR_INC = os.path.join(TOP_SRCDIR, "mpi", "include")
CC = os.environ.get("CC", "cc").split()

# Values that differ on purpose (none: both headers claim MPI 4.0).
EXPECTED_DIFF = {}

TYPES = """MPI_Aint MPI_Count MPI_Offset MPI_Fint MPI_Comm MPI_Datatype MPI_Group
MPI_Win MPI_Session MPI_Op MPI_Errhandler MPI_Request MPI_Message MPI_Info
MPI_File MPI_Status MPI_F08_status MPI_T_enum MPI_T_cvar_handle
MPI_T_pvar_handle MPI_T_pvar_session MPI_T_cb_safety MPI_T_source_order""".split()
STATUS_FIELDS = "count_lo count_hi_and_cancelled MPI_SOURCE MPI_TAG MPI_ERROR".split()

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300, **kw)


def mpich_include():
    try:
        show = run(["mpicc.mpich", "-show"]).stdout
        for word in show.split():
            if word.startswith("-I") and os.path.exists(
                    os.path.join(word[2:], "mpi_proto.h")):
                return word[2:]
    except OSError:
        pass
    for d in ("/usr/include/x86_64-linux-gnu/mpich",
              "/usr/include/aarch64-linux-gnu/mpich", "/usr/include/mpich"):
        if os.path.exists(os.path.join(d, "mpi_proto.h")):
            return d
    return None


def mpich_constants(inc):
    """Names of MPICH's value-like MPI_ macros and MPI_ enum constants."""
    out = run(CC + ["-dM", "-E", "-I", inc, "-x", "c", "-"],
              input="#include <mpi.h>\n")
    names = set()
    for line in out.stdout.splitlines():
        m = re.match(r"#define (MPI_\w+) (.+)$", line)
        if not m or '"' in m.group(2) or "Dup_fn" in m.group(2) \
                or "DUP_FN" in m.group(2):
            continue
        names.add(m.group(1))
    text = re.sub(r"/\*.*?\*/", "", open(os.path.join(inc, "mpi.h")).read(),
                  flags=re.S)
    for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", text):
        names.update(re.findall(r"\b(MPI_\w+)\s*(?:=[^,]*)?(?:,|$)", body))
    return sorted(names)


def value_program(names):
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <stdint.h>",
             "#include <mpi.h>", "int main(void)", "{"]
    for n in names:
        lines.append('\tprintf("%%s %%lld\\n", "%s", (long long)(intptr_t)(%s));'
                     % (n, n))
    for t in TYPES:
        lines.append('\tprintf("sizeof(%s) %%zu\\n", sizeof(%s));' % (t, t))
    for f in STATUS_FIELDS:
        for t in ("MPI_Status", "MPI_F08_status"):
            lines.append('\tprintf("offsetof(%s, %s) %%zu\\n", offsetof(%s, %s));'
                         % (t, f, t, f))
    for t in ("MPI_Aint", "MPI_Count", "MPI_Offset", "MPI_Fint", "MPI_Comm"):
        lines.append('\tprintf("signed(%s) %%d\\n", (%s)-1 < 0);' % (t, t))
    lines += ["\treturn 0;", "}"]
    return "\n".join(lines) + "\n"


def build_and_run(tmp, tag, inc, src):
    c = os.path.join(tmp, tag + ".c")
    exe = os.path.join(tmp, tag)
    open(c, "w").write(src)
    r = run(CC + ["-std=gnu11", "-w", "-I", inc, c, "-o", exe])
    if r.returncode:
        fail("cannot compile the value program against %s:\n%s" % (inc, r.stdout))
        return None
    r = run([exe])
    return dict(l.split(" ", 1) for l in r.stdout.splitlines())


def check_values(tmp, inc, names):
    theirs = build_and_run(tmp, "values_mpich", inc, value_program(names))
    ours = build_and_run(tmp, "values_michi", OUR_INC, value_program(names))
    if theirs is None or ours is None:
        return
    for key in sorted(theirs):
        want = EXPECTED_DIFF.get(key, theirs[key])
        if ours.get(key) != want:
            fail("%s: MPICH %s, Michi %s (expected %s)"
                 % (key, theirs[key], ours.get(key), want))
    print("compared %d values (%d constants, types, offsets)"
          % (len(theirs), len(names)))


def mpich_prototypes(inc):
    """{name: prototype text} of the MPI_ and PMPI_ functions MPICH's header
    really declares (preprocessed, so that dead #ifndef blocks drop out)."""
    text = run(CC + ["-E", "-P", "-I", inc, "-x", "c", "-"],
               input="#include <mpi.h>\n").stdout
    protos = {}
    for decl in text.split(";"):
        decl = " ".join(decl.split())
        m = re.match(r"^(?:.*[{}])?\s*([A-Za-z_][\w ]*?[\s*]+)(P?MPI_\w+)\s*"
                     r"\((.*)\)\s*$", decl)
        if m and not m.group(1).startswith(("typedef", "extern")):
            protos[m.group(2)] = "%s %s(%s);" % (
                m.group(1).strip(), m.group(2), m.group(3))
    return protos


def our_functions_and_macros(tmp):
    pre = run(CC + ["-E", "-P", "-I", OUR_INC, "-x", "c", "-"],
              input="#include <mpi.h>\n").stdout
    funcs = set(re.findall(r"[\w*]\s+\**(P?MPI_\w+)\s*\(", pre))
    dm = run(CC + ["-dM", "-E", "-I", OUR_INC, "-x", "c", "-"],
             input="#include <mpi.h>\n").stdout
    macros = set(re.findall(r"#define (P?MPI_\w+)", dm))
    return funcs, macros


def check_prototypes(tmp, inc):
    theirs = mpich_prototypes(inc)
    ours, macros = our_functions_and_macros(tmp)
    missing = sorted(n for n in theirs if n not in ours and n not in macros)
    for n in missing:
        fail("%s: declared by MPICH, not by Michi's mpi.h" % n)
    common = sorted(n for n in theirs if n in ours and n not in macros)
    src = ["#include <mpi.h>", "#define MPIO_Request MPI_Request"]
    src += [theirs[n] for n in common]
    c = os.path.join(tmp, "protos.c")
    open(c, "w").write("\n".join(src) + "\n")
    r = run(CC + ["-std=gnu11", "-c", "-I", OUR_INC, c, "-o", c + ".o"])
    if r.returncode:
        bad = sorted(set(re.findall(r"conflicting types for .(P?MPI_\w+)",
                                    r.stdout)))
        fail("prototypes differ from MPICH's: %s\n%s"
             % (", ".join(bad), r.stdout[-3000:]))
    print("%d MPICH functions; %d also in Michi's header with identical types; "
          "%d missing" % (len(theirs), len(common), len(missing)))


def check_dup_fn(inc):
    use = "#include <mpi.h>\nvoid *p[] = { (void *)MPI_DUP_FN, " \
          "(void *)MPI_COMM_DUP_FN, (void *)MPI_TYPE_DUP_FN, (void *)MPI_WIN_DUP_FN };\n"
    for tag, i in (("MPICH", inc), ("Michi", OUR_INC)):
        out = run(CC + ["-E", "-P", "-I", i, "-x", "c", "-"], input=use).stdout
        last = out.strip().splitlines()[-1]
        if last.count("MPIR_Dup_fn") != 4:
            fail("%s: MPI_*_DUP_FN do not all expand to MPIR_Dup_fn: %s"
                 % (tag, last))


def main():
    inc = mpich_include()
    if not inc:
        print("SKIP: MPICH's mpi.h (libmpich-dev) is not installed")
        return SKIP
    if shutil.which(CC[0]) is None:
        print("SKIP: no C compiler %s" % CC[0])
        return SKIP
    print("MPICH header: %s; Michi header: %s" % (inc, OUR_INC))
    tmp = tempfile.mkdtemp(prefix="michi-abi-")
    try:
        check_values(tmp, inc, mpich_constants(inc))
        check_prototypes(tmp, inc)
        check_dup_fn(inc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d ABI differences" % len(failures))
        return 1
    print("PASS: Michi's mpi.h matches MPICH's ABI")
    return 0


if __name__ == "__main__":
    sys.exit(main())
