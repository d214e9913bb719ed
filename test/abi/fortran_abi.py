#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# test/abi/fortran_abi.py: proves that the Fortran bindings are binary
# compatible with MPICH's (Debian's libmpich-dev and libmpichfort.so.12),
# so that a program built with mpifort.mpich runs on Michi. It
#  1. prints every PARAMETER both mpif.h files declare from one program
#     built against MPICH's mpif.h and one built against ours (gfortran
#     evaluates them) and diffs the two outputs;
#  2. compares the sizes of the sentinels' common blocks in both objects;
#  3. checks that libmpifort exports, in all eight spellings MPICH's has
#     (mpi_x_, mpi_x__, mpi_x, MPI_X and the pmpi_ forms), every routine
#     libmpichfort exports for mpif.h, but for the MPI-4 persistent
#     collectives, which Michi does not have in C either.
# Exits 77 (skip) without gfortran, MPICH's mpif.h or libmpichfort, or when
# Michi was built without its Fortran bindings.

import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
TOP_BUILDDIR = os.environ.get("top_builddir", os.getcwd())
OUR_INC = os.path.join(TOP_BUILDDIR, "mpi", "fortran")
OUR_LIB = os.path.join(TOP_BUILDDIR, ".libs", "libmpifort.so")
MPICH_INC = "/usr/include/x86_64-linux-gnu/mpich"
MPICH_LIB = "/usr/lib/x86_64-linux-gnu/libmpichfort.so.12"

# Values that differ on purpose (none since both claim MPI 4.0).
EXPECTED_DIFF = set()
SENTINEL_BLOCKS = ("mpipriv1_", "mpipriv2_", "mpiprivc_", "mpifcmb5_", "mpifcmb9_")
PERSISTENT_COLL = re.compile(r"^mpi_\w+_init_$")
ROUTINE_INIT_OK = {"mpi_send_init_", "mpi_bsend_init_", "mpi_ssend_init_",
                   "mpi_rsend_init_", "mpi_recv_init_", "mpi_psend_init_",
                   "mpi_precv_init_"}


def parameters(path):
    names = []
    for line in open(path):
        m = re.match(r"\s+PARAMETER\s*\((\w+)\s*=", line, re.I)
        if m:
            names.append(m.group(1).upper())
    return names


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def values(fc, inc, names, tmp, tag):
    src = os.path.join(tmp, "v_%s.f90" % tag)
    with open(src, "w") as f:
        f.write("program v\n  implicit none\n  include 'mpif.h'\n")
        for n in names:
            f.write("  print '(A,1X,A)', '%s', trim(adjustl(str(%s)))\n" % (n, n))
        f.write("contains\n  function str(x)\n    class(*), intent(in) :: x\n"
                "    character(len=40) :: str\n    select type (x)\n"
                "    type is (integer(4))\n      write (str, '(I0)') x\n"
                "    type is (integer(8))\n      write (str, '(I0)') x\n"
                "    type is (logical)\n      write (str, '(L1)') x\n"
                "    class default\n      str = '?'\n    end select\n"
                "  end function str\nend program v\n")
    exe = os.path.join(tmp, "v_%s" % tag)
    r = run([fc, "-ffree-line-length-none", "-I", inc, "-o", exe, src])
    if r.returncode:
        sys.exit("fortran_abi: cannot build the %s value program:\n%s" % (tag, r.stderr[-2000:]))
    out = run([exe]).stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


def common_sizes(fc, inc, tmp, tag):
    src = os.path.join(tmp, "c_%s.f" % tag)
    with open(src, "w") as f:
        f.write("      subroutine c\n      include 'mpif.h'\n"
                "      call x(MPI_BOTTOM, MPI_STATUSES_IGNORE, MPI_ARGV_NULL,\n"
                "     &       MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY)\n      end\n")
    obj = os.path.join(tmp, "c_%s.o" % tag)
    r = run([fc, "-c", "-I", inc, "-o", obj, src])
    if r.returncode:
        sys.exit("fortran_abi: cannot build the %s common-block object:\n%s" % (tag, r.stderr))
    sizes = {}
    for line in run(["nm", "-S", obj]).stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] in SENTINEL_BLOCKS:
            sizes[f[3]] = int(f[1], 16)
    return sizes


def exports(lib):
    return {line.split()[-1] for line in run(["nm", "-D", "--defined-only", lib]).stdout.splitlines()
            if line.strip()}


def main():
    fc = os.environ.get("FC") or shutil.which("gfortran")
    if not fc or not shutil.which(fc.split()[0]):
        print("fortran_abi: no gfortran: skipped")
        return SKIP
    if not os.path.exists(os.path.join(MPICH_INC, "mpif.h")) or not os.path.exists(MPICH_LIB):
        print("fortran_abi: MPICH's mpif.h or libmpichfort.so.12 not installed: skipped")
        return SKIP
    if not os.path.exists(os.path.join(OUR_INC, "mpif.h")) or not os.path.exists(OUR_LIB):
        print("fortran_abi: Michi was built without Fortran bindings: skipped")
        return SKIP
    errors = 0
    with tempfile.TemporaryDirectory() as tmp:
        common = sorted(set(parameters(os.path.join(MPICH_INC, "mpif.h"))) &
                        set(parameters(os.path.join(OUR_INC, "mpif.h"))))
        theirs = values(fc, MPICH_INC, common, tmp, "mpich")
        ours = values(fc, OUR_INC, common, tmp, "michi")
        for n in common:
            if n in EXPECTED_DIFF:
                continue
            if theirs.get(n) != ours.get(n):
                print("fortran_abi: %s is %s in MPICH's mpif.h, %s in ours"
                      % (n, theirs.get(n), ours.get(n)))
                errors += 1
        print("fortran_abi: %d PARAMETERs compared" % len(common))
        a, b = common_sizes(fc, MPICH_INC, tmp, "mpich"), common_sizes(fc, OUR_INC, tmp, "michi")
        for blk in SENTINEL_BLOCKS:
            if blk not in a or a.get(blk) != b.get(blk):
                print("fortran_abi: common block %s: %s bytes in MPICH's, %s in ours"
                      % (blk, a.get(blk), b.get(blk)))
                errors += 1
    theirs = exports(MPICH_LIB)
    ours = exports(OUR_LIB)
    routines = sorted(n for n in theirs if re.match(r"^mpi_[a-z0-9_]+[a-z0-9]_$", n)
                      and "f08" not in n and "cdesc" not in n
                      and not (PERSISTENT_COLL.match(n) and n not in ROUTINE_INIT_OK))
    for n in routines:
        base = n[:-1]
        want = {base + "_", base + "__", base, base.upper(),
                "p" + base + "_", "p" + base + "__", "p" + base, "P" + base.upper()}
        missing = sorted(want - ours)
        if missing:
            print("fortran_abi: %s: libmpifort lacks %s" % (n, " ".join(missing)))
            errors += 1
    for blk in SENTINEL_BLOCKS:
        if blk not in ours:
            print("fortran_abi: libmpifort does not export %s" % blk)
            errors += 1
    print("fortran_abi: %d routines of libmpichfort checked" % len(routines))
    if errors:
        print("fortran_abi: %d differences" % errors)
        return 1
    print("fortran_abi: mpif.h and libmpifort match MPICH's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
