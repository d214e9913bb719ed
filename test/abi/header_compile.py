#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# test/abi/header_compile.py: Michi's mpi.h must compile without a single
# warning as strict C (C99 and C11, -pedantic) and as C++ (C++98 and the
# compiler's default), be usable from a C++ translation unit next to C
# code (extern "C": the symbol names are not mangled), and its generated
# prototype headers (mpi_proto.h, mpi_proto_c.h, pmpi_proto.h, which mpi.h
# includes) must match mpi/bindings/functions.txt.

import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP_SRCDIR = os.environ.get("top_srcdir",
                            os.path.join(os.path.dirname(__file__), "..", ".."))
OUR_INC = os.path.join(TOP_SRCDIR, "mpi", "include")
BINDINGS = os.path.join(TOP_SRCDIR, "mpi", "bindings")
CC = os.environ.get("CC", "cc").split()
CXX = os.environ.get("CXX", "c++").split()
WARN = ["-Wall", "-Wextra", "-pedantic", "-Werror"]

def with_includes(path):
    """path's text, each '#include "name"' of a file beside it replaced by
    that file's text (as the preprocessor would place it)."""
    def inline(m):
        inc = os.path.join(os.path.dirname(path), m.group(1))
        return with_includes(inc) if os.path.exists(inc) else m.group(0)
    return re.sub(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)".*$', inline,
                  open(path).read(), flags=re.M)


# touches a bit of everything: handles, status, callbacks, MPI_T, IO
PROGRAM = r"""
#include <mpi.h>
#include <mpio.h>

static int copy_cb(MPI_Comm c, int k, void *x, void *in, void *out, int *flag)
{
	(void)c; (void)k; (void)x;
	*(void **)out = in;
	*flag = 1;
	return MPI_SUCCESS;
}

int michi_header_use(void);
int michi_header_use(void)
{
	MPI_Status st;
	MPI_Comm_copy_attr_function *cp = copy_cb;
	MPI_Comm_copy_attr_function *dup = MPI_COMM_DUP_FN;
	MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
	MPI_File fh = MPI_FILE_NULL;
	MPI_Datatype pair = MPI_DOUBLE_INT;
	int amode = MPI_MODE_RDWR | MPI_MODE_CREATE;
	MPI_Fint f = MPI_Comm_c2f(MPI_COMM_WORLD);

	st.MPI_SOURCE = MPI_ANY_SOURCE;
	st.MPI_TAG = MPI_ANY_TAG;
	st.MPI_ERROR = MPI_SUCCESS;
	st.count_lo = 0;
	st.count_hi_and_cancelled = 0;
	return (cp != 0) + (dup != 0) + (h == 0) + (fh == 0) + (pair != 0) +
	       amode + (int)f + st.MPI_TAG + (MPI_IN_PLACE != MPI_BOTTOM);
}
"""


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, timeout=300)


def compile_ok(tool, std, src, obj, extra=()):
    cmd = tool + std + WARN + ["-I", OUR_INC, "-c", src, "-o", obj] + list(extra)
    r = run(cmd)
    if r.returncode or r.stdout.strip():
        print("FAIL: %s\n%s" % (" ".join(cmd), r.stdout))
        return False
    print("ok: %s" % " ".join(tool + std))
    return True


def main():
    if shutil.which(CC[0]) is None:
        print("SKIP: no C compiler %s" % CC[0])
        return 77
    ok = True
    tmp = tempfile.mkdtemp(prefix="michi-hdr-")
    try:
        c = os.path.join(tmp, "use.c")
        cc = os.path.join(tmp, "use.cc")
        open(c, "w").write(PROGRAM)
        open(cc, "w").write(PROGRAM)
        for std in (["-std=c99"], ["-std=c11"], []):
            ok &= compile_ok(CC, std, c, c + ".o")
        if shutil.which(CXX[0]):
            for std in (["-std=c++98"], ["-std=c++17"], []):
                ok &= compile_ok(CXX, std, cc, cc + ".o")
            # extern "C": the C++ object must reference unmangled symbols
            r = run(["nm", "-u", cc + ".o"])
            if r.returncode == 0 and "MPIR_Dup_fn" not in r.stdout.split():
                print("FAIL: C++ object does not reference MPIR_Dup_fn "
                      "unmangled:\n" + r.stdout)
                ok = False
        else:
            print("note: no C++ compiler, C++ checks skipped")
        r = run([sys.executable, os.path.join(BINDINGS, "gen_stubs.py"),
                 "--table", os.path.join(BINDINGS, "functions.txt"),
                 "--header", os.path.join(OUR_INC, "mpi.h"), "--check-header"])
        if r.returncode:
            print("FAIL: " + r.stdout)
            ok = False
        else:
            print("ok: prototypes in mpi.h match functions.txt")
        # every prototype has a PMPI twin, inside the visibility push
        # (the headers mpi.h includes from its directory read in place)
        text = with_includes(os.path.join(OUR_INC, "mpi.h"))
        mpi = set(re.findall(r"^[\w ]+?[ *](MPI_\w+)\(", text, re.M))
        pmpi = set(re.findall(r"^[\w ]+?[ *]P(MPI_\w+)\(", text, re.M))
        if mpi != pmpi or not mpi:
            print("FAIL: MPI/PMPI prototype sets differ: %s"
                  % sorted(mpi ^ pmpi))
            ok = False
        push = text.find("#pragma GCC visibility push(default)")
        pop = text.find("#pragma GCC visibility pop")
        first = min(text.find(" MPI_Abort("), text.find(" PMPI_Abort("))
        if not 0 <= push < first < pop:
            print("FAIL: prototypes are not inside the visibility push/pop")
            ok = False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
