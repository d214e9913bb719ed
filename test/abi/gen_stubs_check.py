#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# test/abi/gen_stubs_check.py: mpi/bindings/gen_stubs.py must write stubs
# that compile without warnings, skip exactly the functions the core
# defines (not mere prototypes, not code in comments or strings), and
# behave at run time: in a shared library built with -fvisibility=hidden,
# MPI_X and PMPI_X are both exported, a stub returns
# MPI_ERR_UNSUPPORTED_OPERATION after reporting its own name, and a core
# definition wins over the weak alias.

import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP_SRCDIR = os.environ.get("top_srcdir",
                            os.path.join(os.path.dirname(__file__), "..", ".."))
OUR_INC = os.path.join(TOP_SRCDIR, "mpi", "include")
GEN = os.path.join(TOP_SRCDIR, "mpi", "bindings", "gen_stubs.py")
TABLE = os.path.join(TOP_SRCDIR, "mpi", "bindings", "functions.txt")
CC = os.environ.get("CC", "cc").split()

FAKE_CORE = r"""
#include <stdio.h>
#include "mpi.h"

int PMPI_Comm_size(MPI_Comm comm, int *size);  /* a prototype: still a stub */

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm,
		   int *rank)
{
	(void)comm;
	*rank = 3;
	return MPI_SUCCESS;
}

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void) { return 2.5; }

#pragma weak MPI_Send = PMPI_Send
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
	      int tag, MPI_Comm comm)
{
	(void)buf; (void)count; (void)datatype; (void)dest; (void)tag;
	(void)comm;
	return MPI_SUCCESS;
}

/*
int PMPI_Barrier(MPI_Comm comm)
{
}
*/
const char *fake_note = "int PMPI_Recv(void) {";

__attribute__((visibility("default"))) const char *fake_last;
__attribute__((visibility("default")))
int michi_mpi_unsupported(const char *fname);
int michi_mpi_unsupported(const char *fname)
{
	fake_last = fname;
	return MPI_ERR_UNSUPPORTED_OPERATION;
}
"""

PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include "mpi.h"
extern const char *fake_last;
int main(void)
{
	int r = -1, fails = 0;
	if (MPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS || r != 3)
		fails++, puts("MPI_Comm_rank: core definition not used");
	if (PMPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS)
		fails++, puts("PMPI_Comm_rank failed");
	if (MPI_Wtime() != 2.5)
		fails++, puts("MPI_Wtime: core definition not used");
	if (MPI_Barrier(MPI_COMM_WORLD) != MPI_ERR_UNSUPPORTED_OPERATION ||
	    strcmp(fake_last, "MPI_Barrier"))
		fails++, puts("MPI_Barrier stub wrong");
	if (PMPI_Comm_size(MPI_COMM_WORLD, &r) != MPI_ERR_UNSUPPORTED_OPERATION ||
	    strcmp(fake_last, "MPI_Comm_size"))
		fails++, puts("PMPI_Comm_size stub wrong");
	if (MPI_Wtick() != 0.0 || strcmp(fake_last, "MPI_Wtick"))
		fails++, puts("MPI_Wtick stub wrong");
	if (MPI_File_f2c(5) != MPI_FILE_NULL || strcmp(fake_last, "MPI_File_f2c"))
		fails++, puts("MPI_File_f2c stub wrong");
	if (MPI_Aint_add(1, 2) != 0 || strcmp(fake_last, "MPI_Aint_add"))
		fails++, puts("MPI_Aint_add stub wrong");
	puts(fails ? "run: FAIL" : "run: ok");
	return fails != 0;
}
"""


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300, **kw)


def check(ok, msg):
    print(("ok: " if ok else "FAIL: ") + msg)
    return ok


def stub_names(path):
    return set(re.findall(r"^#pragma weak (MPI_\w+) = PMPI_\w+$",
                          open(path).read(), re.M))


def main():
    if shutil.which(CC[0]) is None:
        print("SKIP: no C compiler %s" % CC[0])
        return 77
    ok = True
    tmp = tempfile.mkdtemp(prefix="michi-stubs-")
    try:
        n = int(run([sys.executable, GEN, "--table", TABLE, "--count"]).stdout)
        empty = os.path.join(tmp, "stubs_empty.c")
        r = run([sys.executable, GEN, "--table", TABLE, "-o", empty])
        ok &= check(r.returncode == 0, "gen_stubs.py with no sources")
        ok &= check(len(stub_names(empty)) == n, "%d stubs for %d functions"
                    % (len(stub_names(empty)), n))
        r = run(CC + ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
                      "-I", OUR_INC, "-c", empty, "-o", empty + ".o"])
        ok &= check(r.returncode == 0 and not r.stdout.strip(),
                    "stubs compile with -Wall -Wextra -pedantic -Werror" + r.stdout)

        core = os.path.join(tmp, "core.c")
        open(core, "w").write(FAKE_CORE)
        stubs = os.path.join(tmp, "stubs.c")
        run([sys.executable, GEN, "--table", TABLE, "-o", stubs, core])
        missing = set(stub_names(empty)) - stub_names(stubs)
        ok &= check(missing == {"MPI_Comm_rank", "MPI_Wtime", "MPI_Send"},
                    "core definitions skipped: %s" % sorted(missing))
        status = run([sys.executable, GEN, "--table", TABLE, "--status", core])
        ok &= check("| **All** | 3/%d |" % n in status.stdout,
                    "--status counts 3 implemented")

        lib = os.path.join(tmp, "libfake.so")
        r = run(CC + ["-shared", "-fPIC", "-fvisibility=hidden", "-Wall",
                      "-Wextra", "-Werror", "-I", OUR_INC, stubs, core,
                      "-o", lib])
        ok &= check(r.returncode == 0, "fake library links" + r.stdout)
        syms = run(["nm", "-D", "--defined-only", lib]).stdout.split()
        ok &= check(all(s in syms for s in ("MPI_Barrier", "PMPI_Barrier",
                                            "MPI_Send", "PMPI_Send")),
                    "MPI_ and PMPI_ names exported")
        prog = os.path.join(tmp, "prog.c")
        open(prog, "w").write(PROGRAM)
        exe = os.path.join(tmp, "prog")
        r = run(CC + ["-Wall", "-I", OUR_INC, prog, lib, "-o", exe,
                      "-Wl,-rpath," + tmp])
        ok &= check(r.returncode == 0, "test program links" + r.stdout)
        if r.returncode == 0:
            r = run([exe])
            ok &= check(r.returncode == 0, r.stdout.strip())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
