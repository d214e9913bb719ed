#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# test/fortran/bindings_cover.py: every C function of
# mpi/bindings/functions.txt that has a Fortran binding has one in each of
# mpif.h, the mpi module and mpi_f08, as the build made them:
#  1. libmpifort exports its wrapper (mpi_x_, mpi_x__, mpi_x, MPI_X and
#     pmpi_x_): what mpif.h programs and the mpi module call. The
#     large-count MPI_X_c calls have wrappers too; mpi_f08 calls them.
#  2. The mpi module declares no large-count form (MPI-4.0 section 19.2:
#     they are mpi_f08's only), and has an explicit interface for every
#     MPI-4.0 and process-creation routine whose arguments are scalars and
#     strings (those with a choice buffer or an array keep implicit
#     interfaces, as in mpif.h and as MPICH's mpi module has them).
#  3. mpi_f08 declares every routine but the MPI-1 ones MPI-3 removed,
#     under its MPI_ and PMPI_ names, and each large-count MPI_X_c as a
#     specific of the generic MPI_X, but for the ones its header lists as
#     called by their _c names (their arguments cannot tell the two forms
#     apart).
#  4. The generic names resolve: one program calls every generic MPI_X
#     (and PMPI_X) that has a large-count form with arguments declared
#     like MPI_X_c's dummies, one with MPI_X's; compiled against the
#     built mpi_f08 module, the first must reference pmpi_x_c_/mpi_x_c_
#     and no int form, the second the int forms and no _c one.
# Prints, per family, how many functions C implements and how many of
# them have each binding. Exits 77 (skip) when Michi was built without
# its Fortran bindings.

import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
TOP_SRCDIR = os.environ.get("top_srcdir",
                            os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TOP_BUILDDIR = os.environ.get("top_builddir", os.getcwd())
FDIR = os.path.join(TOP_BUILDDIR, "mpi", "fortran")
LIB = os.path.join(TOP_BUILDDIR, ".libs", "libmpifort.so")
sys.path.insert(0, os.path.join(TOP_SRCDIR, "mpi", "bindings"))
from gen_stubs import read_table, defined_functions  # noqa: E402

# C functions without a Fortran binding in any of the three (MPI 3.1
# section 17.2.4 and MPI-4.0 section 19.3.4: the handle converters; MPI_T
# is C only).
C_ONLY = re.compile(r"^MPI_(T_\w+|Status_(c2f|f2c|f082c|c2f08|f082f|f2f08)|"
                    r"File_(c2f|f2c))$")
NOT_IN_F08 = "Deprecated MPI-1"
LARGE = re.compile(r"^MPI_\w+_c$")
# the families whose scalar-argument routines the mpi module must declare
SCALAR_IN_MPI = {"MPI-4.0", "Process creation", "Persistent collectives (MPI-4.0)"}

errors = []


def fail(msg):
    errors.append(msg)
    if len(errors) <= 40:
        print("error: " + msg)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def core_sources():
    text = open(os.path.join(TOP_SRCDIR, "mpi", "Makefile.inc")).read()
    m = re.search(r"^MPI_CORE_SOURCES\s*=((?:.*\\\n)*.*)$", text, re.M)
    return [os.path.join(TOP_SRCDIR, p) for p in m.group(1).replace("\\\n", " ").split()]


def interfaces(path):
    """The specific procedures an interface file declares: {name: lines}
    (lower-case names), and its generic blocks: {generic: [specifics]}."""
    specifics, generics, cur, body, generic = {}, {}, None, [], None
    for line in open(path):
        s = line.strip()
        m = re.match(r"^interface (\w+)$", s)
        if m:
            generic = m.group(1).lower()
            generics[generic] = []
            continue
        if s.startswith("end interface"):
            generic = None
            continue
        m = re.match(r"^(subroutine|function) (\w+)\(", s)
        if m and cur is None:
            cur, body = m.group(2).lower(), []
            if generic:
                generics[generic].append(cur)
        if cur is not None:
            body.append(s)
            if re.match(r"^end (subroutine|function) (\w+)$", s):
                specifics[cur] = body
                cur = None
    return specifics, generics


def joined(body):
    """The lines of an interface body with the "&" continuations joined."""
    out, cur = [], ""
    for s in body:
        if s.endswith("&"):
            cur += s[:-1].rstrip() + " "
        else:
            out.append(cur + s)
            cur = ""
    return out


def actuals(body, name):
    """A subroutine that calls the generic `name` with actual arguments
    declared like the dummies of the specific whose body this is."""
    lines = joined(body)
    head = re.match(r"subroutine \w+\((.*)\)", lines[0]).group(1)
    decls = []
    for d in lines[1:-1]:
        if d in ("import", "implicit none") or d.startswith("!GCC$"):
            continue
        left, right = d.split("::", 1)
        attrs = [a.strip() for a in re.split(r",(?![^(]*\))", left)]
        kept = [a for a in attrs[1:] if not a.startswith("intent") and a != "optional"
                and not a.startswith("dimension")]
        tspec = attrs[0]
        if tspec == "type(*)":
            tspec = "integer"
            right = re.sub(r"(\w+)", r"\1(8)", right.strip())
        tspec = tspec.replace("len=*", "len=8")
        right = re.sub(r"\(([^)]*)\)", lambda m: "(%s)" % m.group(1).replace("*", "8"), right)
        right = re.sub(r"\(count, 8\)", "(8, 8)", right)
        decls.append(", ".join([tspec] + kept) + " :: " + right.strip())
    return (["subroutine call_%s()" % name,
             "  use, intrinsic :: iso_c_binding",
             "  use mpi_f08", "  implicit none"] + ["  " + d for d in decls] +
            ["  call %s(%s)" % (name, head), "end subroutine call_%s" % name])


def undefined(fc, src, tmp, tag):
    path = os.path.join(tmp, tag + ".f90")
    with open(path, "w") as f:
        f.write("\n".join(src) + "\n")
    obj = os.path.join(tmp, tag + ".o")
    r = run([fc, "-c", "-ffree-line-length-none", "-I", FDIR, "-o", obj, path])
    if r.returncode:
        fail("the %s calls do not compile against mpi_f08:\n%s" % (tag, r.stderr[-3000:]))
        return set()
    return {line.split()[-1] for line in run(["nm", "-u", obj]).stdout.splitlines()}


def main():
    f08_file = os.path.join(FDIR, "mpi_f08_interfaces.h")
    mpi_file = os.path.join(FDIR, "mpi_interfaces.h")
    if not (os.path.exists(LIB) and os.path.exists(f08_file)):
        print("bindings_cover: Michi was built without its Fortran bindings: skipped")
        return SKIP
    fc = os.environ.get("FC") or shutil.which("gfortran")
    funcs = [f for f in read_table(os.path.join(TOP_SRCDIR, "mpi", "bindings", "functions.txt"))
             if not C_ONLY.match(f.name)]
    implemented = defined_functions(core_sources())
    exported = set(run(["nm", "-D", "--defined-only", LIB]).stdout.split())
    f08, generics = interfaces(f08_file)
    mpimod, _ = interfaces(mpi_file)
    by_name = re.search(r"called\n! by their own names:\n((?:!   .*\n)+)", open(f08_file).read())
    alone = set(n.lower() for n in re.findall(r"MPI_\w+", by_name.group(1))) if by_name else set()

    table = {}
    for f in funcs:
        lc = f.name[4:].lower()
        have = {"C": f.name in implemented}
        # 1. the wrapper, in MPICH's spellings
        names = ["mpi_%s_" % lc, "mpi_%s__" % lc, "mpi_%s" % lc, "MPI_%s" % lc.upper(),
                 "pmpi_%s_" % lc]
        missing = [n for n in names if n not in exported]
        if missing:
            fail("%s: libmpifort does not export %s" % (f.name, ", ".join(missing)))
        have["wrapper"] = not missing
        # 2. the mpi module: no _c form
        if LARGE.match(f.name) and f.name.lower() in mpimod:
            fail("%s: the mpi module declares a large-count form" % f.name)
        have["mpi"] = f.name.lower() in mpimod
        if f.family in SCALAR_IN_MPI and not LARGE.match(f.name) and not have["mpi"]:
            body = "\n".join(f08.get(f.name.lower(), []))
            if "NO_ARG_CHECK" not in body and not re.search(r"[(,]\s*\*\)", body):
                fail("%s: only scalar and string arguments, and no interface in the "
                     "mpi module" % f.name)
        # 3. mpi_f08
        if f.family != NOT_IN_F08:
            for n in (f.name.lower(), "p" + f.name.lower()):
                if n not in f08:
                    fail("%s: mpi_f08 declares no %s" % (f.name, n))
            have["f08"] = f.name.lower() in f08
            if LARGE.match(f.name) and f.name.lower() not in alone:
                base = f.name[:-2].lower()
                for pre in ("", "p"):
                    if pre + f.name.lower() not in generics.get(pre + base, []):
                        fail("%s: not a specific of mpi_f08's generic %s" % (f.name, pre + base))
        elif f.name.lower() in f08:
            fail("%s: mpi_f08 declares an MPI-1 call MPI-3 removed" % f.name)
        table[f.name] = (f.family, have)

    # 4. the generic names resolve to the right specific
    pairs = sorted((g, s) for g, specs in generics.items() for s in specs if s.endswith("_c"))
    if fc:
        with tempfile.TemporaryDirectory() as tmp:
            for tag, pick in (("large", lambda g, s: s), ("int", lambda g, s: g)):
                src = []
                for g, s in pairs:
                    src += actuals(f08[pick(g, s)], g)
                got = undefined(fc, src, tmp, tag)
                for g, s in pairs:
                    want, other = (s, g) if tag == "large" else (g, s)
                    if want + "_" not in got:
                        fail("%s with %s's arguments does not call %s_" % (g, pick(g, s), want))
                    if other + "_" in got:
                        fail("%s with %s's arguments calls %s_" % (g, pick(g, s), other))
    else:
        print("note: no gfortran: the generic names were not compiled")

    families = {}
    for name, (fam, have) in table.items():
        row = families.setdefault(fam, [0, 0, 0, 0, 0])
        row[0] += 1
        row[1] += have["C"]
        row[2] += have["wrapper"]
        row[3] += have["mpi"]
        row[4] += have.get("f08", 0)
    print("%-40s %5s %5s %9s %5s %5s" % ("family", "funcs", "in C", "libmpifort", "mpi", "f08"))
    for fam, row in families.items():
        print("%-40s %5d %5d %9d %5d %5d" % (fam, *row))
    print("mpi_f08: %d generic names with a large-count specific (and their PMPI_), "
          "%d large-count forms by their _c names only: %s"
          % (len(pairs) // 2, len(alone), ", ".join(sorted(alone))))
    if errors:
        print("bindings_cover: %d errors" % len(errors))
        return 1
    print("bindings_cover: every Fortran binding present")
    return 0


if __name__ == "__main__":
    sys.exit(main())
