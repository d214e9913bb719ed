#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# mpi/bindings/gen_stubs.py: keeps the C bindings complete while the MPI
# core grows. It reads functions.txt (every function mpi.h declares) and the
# core's C sources, finds which PMPI_ functions the core defines, and
#  - writes a C file with a stub for every other function: the stub reports
#    MPI_ERR_UNSUPPORTED_OPERATION through michi_mpi_unsupported() and MPI_X
#    is a weak alias of PMPI_X, as for every implemented call;
#  - with --locked-header/--locked-source, writes the MPI_THREAD_MULTIPLE
#    layer (see "Thread safety" below);
#  - with --status, prints a markdown table of what is implemented;
#  - with --header mpi.h, rewrites the headers of prototypes beside mpi.h
#    that it includes (PROTO_HEADERS; --check-header only tells whether
#    they are up to date).
# A core definition is recognised by its first line: return type and
# "PMPI_Name(" starting at column 0; it is a definition when the parameter
# list is followed by "{", a prototype when it is followed by ";".
#
# Thread safety. Under MPI_THREAD_MULTIPLE every MPI call holds the lock of
# util/mtlock.h. Most calls get it from a generated wrapper: the header
# renames the core's definition PMPI_X to michi_impl_X, and the source
# defines PMPI_X (take the lock if michi_mt is set, call michi_impl_X) with
# MPI_X as its weak alias. A hot call cannot afford the wrapper's extra
# call: its core file keeps the name and makes the alias itself with
# MICHI_ALIAS(X), and tests mpi/'s one state flag on its way, through
# MICHI_GATE(fname, X, (args)), which calls the generated michi_locked_X()
# when the lock is needed. A function that has MICHI_ALIAS(X) but no
# MICHI_GATE for X stops the build, so no call can escape the lock.

import argparse
import os
import re
import sys
import textwrap

# The prototypes of mpi.h: three generated headers beside it, which mpi.h
# includes inside its extern "C" and visibility block (each stays under
# 1,500 lines). Each is (file name, what it declares, its parts), a part
# being (name prefix, whether it holds the large-count families).
PROTO_HEADERS = (
    ("mpi_proto.h", "the MPI_ functions but the large-count (_c) ones",
     (("", False),)),
    ("mpi_proto_c.h", "the MPI-4.0 large-count (_c) functions, MPI_ and PMPI_",
     (("", True), ("P", True))),
    ("pmpi_proto.h", "the PMPI_ (profiling) names of the functions of mpi_proto.h",
     (("P", False),)),
)

# What a stub of a function that does not return int gives back.
NULL_VALUES = {
    "MPI_File": "MPI_FILE_NULL", "MPI_Comm": "MPI_COMM_NULL",
    "MPI_Datatype": "MPI_DATATYPE_NULL", "MPI_Group": "MPI_GROUP_NULL",
    "MPI_Info": "MPI_INFO_NULL", "MPI_Op": "MPI_OP_NULL",
    "MPI_Request": "MPI_REQUEST_NULL", "MPI_Win": "MPI_WIN_NULL",
    "MPI_Errhandler": "MPI_ERRHANDLER_NULL", "MPI_Message": "MPI_MESSAGE_NULL",
}

C_WORDS = {"const", "volatile", "restrict", "struct", "enum", "union", "void",
           "char", "short", "int", "long", "float", "double", "signed",
           "unsigned", "_Bool"}


class Func:
    def __init__(self, family, ret, name, params):
        self.family, self.ret, self.name = family, ret, name
        self.params = [fix_param(p, i) for i, p in enumerate(params)]

    def decl(self, prefix=""):
        return "%s %s%s(%s)" % (self.ret, prefix, self.name,
                                ", ".join(self.params) or "void")

    def decl_as(self, prefix):
        """The prototype under another name: prefix + the name after MPI_."""
        return "%s %s%s(%s)" % (self.ret, prefix, self.name[4:],
                                ", ".join(self.params) or "void")


def split_params(text):
    """Split a parameter list at the commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [] if out == ["void"] else out


def param_name(p):
    """The declared name of one parameter, or None when it has none."""
    if p == "...":
        return None
    m = re.match(r"[^(]*\(\s*\*+\s*(\w*)\s*\)", p)      # function pointer
    if m:
        return m.group(1) or None
    m = re.search(r"(\w+)\s*(\[[^\]]*\]\s*)*$", p)      # last word, arrays
    if not m:
        return None
    word = m.group(1)
    if word in C_WORDS or re.match(r"P?MPIX?_[A-Z]", word):
        return None                                      # a type, no name
    return word


def fix_param(p, i):
    """Give an unnamed parameter the name argN so that a stub can use it."""
    p = " ".join(p.split())
    if p in ("...", "void") or param_name(p):
        return p
    name = "arg%d" % i
    if re.search(r"\(\s*\*+\s*\)", p):
        return re.sub(r"\(\s*(\*+)\s*\)", r"(\1%s)" % name, p, count=1)
    m = re.match(r"(.*?)\s*((\[[^\]]*\]\s*)*)$", p)
    sep = "" if m.group(1).endswith("*") else " "
    return m.group(1) + sep + name + m.group(2)


def read_table(path):
    funcs, family = [], "Other"
    for lineno, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            family = line.strip("[]")
            continue
        m = re.match(r"(.+?)\s*\b(MPI_\w+)\s*\((.*)\)\s*;?$", line)
        if not m:
            sys.exit("%s:%d: cannot parse: %s" % (path, lineno, line))
        funcs.append(Func(family, m.group(1).strip(), m.group(2),
                          split_params(m.group(3))))
    return funcs


def strip_comments(text):
    """Blank out comments and string literals, keeping line structure."""
    def blank(m):
        s = m.group(0)
        if s.startswith("/"):
            return re.sub(r"[^\n]", " ", s)
        return '""' if s.startswith('"') else "' '"
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'',
                  blank, text, flags=re.S)


def defined_functions(paths):
    """Names MPI_X whose PMPI_X has a definition in the given C files."""
    found = set()
    start = re.compile(r"^[A-Za-z_][\w \t*]*?\bPMPI_(\w+)\s*\(", re.M)
    for path in paths:
        text = strip_comments(open(path).read())
        for m in start.finditer(text):
            depth, i = 1, m.end()
            while i < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            rest = text[i:].lstrip()
            # attributes may sit between the parameter list and the body
            while rest.startswith("__attribute__"):
                rest = rest[len("__attribute__"):].lstrip()
                depth, j = 0, 0
                for j, ch in enumerate(rest):
                    depth += {"(": 1, ")": -1}.get(ch, 0)
                    if depth == 0 and ch == ")":
                        break
                rest = rest[j + 1:].lstrip()
            if rest.startswith("{"):
                found.add("MPI_" + m.group(1))
    return found


def self_aliased(paths):
    """Three sets of names MPI_X: those whose core file makes the alias
    itself (MICHI_ALIAS(X) or MICHI_ALIAS_UNLOCKED(X)), those whose file
    passes MICHI_GATE for X, and the unlocked ones."""
    aliased, gated, unlocked = set(), set(), set()
    for path in paths:
        text = strip_comments(open(path).read())
        for m in re.finditer(r"^MICHI_ALIAS\((\w+)\)", text, re.M):
            aliased.add("MPI_" + m.group(1))
        # calls that read no state another thread changes need no lock
        for m in re.finditer(r"^MICHI_ALIAS_UNLOCKED\((\w+)\)", text, re.M):
            aliased.add("MPI_" + m.group(1))
            unlocked.add("MPI_" + m.group(1))
        for m in re.finditer(r"MICHI_GATE\([^,]*,\s*(\w+)\s*,", text):
            gated.add("MPI_" + m.group(1))
    return aliased, gated, unlocked


def call_args(f):
    return ", ".join(param_name(p) for p in f.params)


def write_locked_header(funcs, defined, aliased, out):
    out.write("/* SPDX-License-Identifier: MIT */\n"
              "/*\n"
              " * Generated by mpi/bindings/gen_stubs.py; do not edit.\n"
              " * Included by mpi/mpiimpl.h after mpi.h: the core's PMPI_X"
              " definitions\n"
              " * become michi_impl_X, wrapped by locked.c for"
              " MPI_THREAD_MULTIPLE, and the\n"
              " * hot calls that gate themselves get michi_locked_X.\n"
              " */\n"
              "#ifndef MICHI_BINDINGS_LOCKED_H\n"
              "#define MICHI_BINDINGS_LOCKED_H\n\n"
              '#include "mpi.h"\n\n')
    for f in funcs:
        if f.name not in defined:
            continue
        base = f.name[4:]
        if f.name in aliased:
            out.write("%s;\n" % f.decl_as("michi_locked_"))
        else:
            out.write("%s;\n#ifndef MICHI_LOCKED_WRAPPERS\n"
                      "#define PMPI_%s michi_impl_%s\n#endif\n"
                      % (f.decl_as("michi_impl_"),
                         base, base))
    out.write("\n#endif\n")


def write_locked_source(funcs, defined, aliased, out):
    out.write("/* SPDX-License-Identifier: MIT */\n"
              "/*\n"
              " * Generated by mpi/bindings/gen_stubs.py; do not edit.\n"
              " * The MPI_THREAD_MULTIPLE layer: PMPI_X takes util/mtlock.h's"
              " lock around\n"
              " * the core's michi_impl_X while michi_mt is set; michi_locked_X"
              " does the\n"
              " * same for the hot calls, whose MICHI_GATE calls it.\n"
              " */\n"
              '#include "config.h"\n'
              '#include "mpi.h"\n'
              "#define MICHI_LOCKED_WRAPPERS   /* declarations, not renames */\n"
              '#include "mpi/bindings/locked.h"\n'
              '#include "mtlock.h"\n')
    for f in funcs:
        if f.name not in defined:
            continue
        base, args = f.name[4:], call_args(f)
        ret = "" if f.ret == "void" else "%s ret_ = " % f.ret
        if f.name in aliased:
            out.write("\n%s\n{\n" % f.decl_as("michi_locked_"))
            callee = "PMPI_" + base
        else:
            out.write("\n#pragma weak %s = P%s\n%s\n{\n" % (f.name, f.name, f.decl("P")))
            out.write("\tif (__builtin_expect(!michi_mt, 1))\n"
                      "\t\treturn michi_impl_%s(%s);\n" % (base, args))
            callee = "michi_impl_" + base
        out.write("\tmichi_mt_lock();\n"
                  "\t%s%s(%s);\n"
                  "\tmichi_mt_unlock();\n"
                  "\treturn%s;\n}\n" % (ret, callee, args, "" if f.ret == "void" else " ret_"))


def stub(f):
    lines = ["#pragma weak %s = P%s" % (f.name, f.name), f.decl("P"), "{"]
    for p in f.params:
        name = param_name(p)
        if name:
            lines.append("\t(void)%s;" % name)
    call = 'michi_mpi_unsupported("%s")' % f.name
    if f.ret == "int":
        lines.append("\treturn %s;" % call)
    else:
        lines.append("\t%s;" % call)
        lines.append("\treturn %s;" % NULL_VALUES.get(f.ret, "(%s)0" % f.ret))
    return "\n".join(lines) + "\n}\n"


def write_stubs(funcs, defined, out):
    out.write("/* SPDX-License-Identifier: MIT */\n"
              "/*\n"
              " * Generated by mpi/bindings/gen_stubs.py from functions.txt;"
              " do not edit.\n"
              " * One stub per MPI function the core does not implement yet:"
              " it raises\n"
              " * MPI_ERR_UNSUPPORTED_OPERATION on MPI_COMM_WORLD and names"
              " the call.\n"
              " */\n"
              '#include "mpi.h"\n\n'
              "int michi_mpi_unsupported(const char *fname);\n")
    for f in funcs:
        if f.name not in defined:
            out.write("\n" + stub(f))


def print_status(funcs, defined):
    families = []
    for f in funcs:
        if f.family not in families:
            families.append(f.family)
    print("| Family | Implemented | Unsupported |")
    print("|---|---|---|")
    total = done = 0
    for fam in families:
        mine = [f.name for f in funcs if f.family == fam]
        missing = [n for n in mine if n not in defined]
        total += len(mine)
        done += len(mine) - len(missing)
        print("| %s | %d/%d | %s |" % (fam, len(mine) - len(missing), len(mine),
                                     ", ".join(missing) or "-"))
    print("| **All** | %d/%d | |" % (done, total))


def wrap(decl, indent):
    """Break a prototype at commas so lines stay under 80 columns."""
    lines, cur = [], ""
    for part in re.split(r"(?<=,) ", decl):
        if cur and len(cur) + 1 + len(part) > 78:
            lines.append(cur)
            cur = " " * indent + part
        else:
            cur = cur + " " + part if cur else part
    return "\n".join(lines + [cur])


def large_count(family):
    """The families of the MPI-4.0 _c functions ("Large count (MPI-4.0 _c)",
    "One-sided, large count (MPI-4.0 _c)"...)."""
    return "large count" in family.lower()


def prototype_header(funcs, name, what, parts):
    out = ["/* SPDX-License-Identifier: MIT */", "/*"]
    out += textwrap.wrap("%s: the prototypes of %s." % (name, what), 74,
                         initial_indent=" * ", subsequent_indent=" * ")
    out += [" * mpi.h includes it inside its extern \"C\" and visibility block;",
            " * programs include <mpi.h>, never this file.",
            " * @generated by mpi/bindings/gen_stubs.py --header (make bindings-header)",
            " * from mpi/bindings/functions.txt: edit that table, not this file.",
            " */",
            "#ifndef MPI_INCLUDED",
            "#error \"%s is part of mpi.h: include <mpi.h>\"" % name,
            "#endif"]
    for prefix, large in parts:
        family = None
        for f in funcs:
            if large_count(f.family) != large:
                continue
            if f.family != family:
                family = f.family
                out.append("\n/* %s%s */" % (family, " (profiling)" if prefix else ""))
            d = f.decl(prefix)
            out.append(wrap(d + ";", d.index("(") + 1))
    return "\n".join(out) + "\n"


def update_header(funcs, path, check):
    """Rewrite (or with check, compare) the PROTO_HEADERS beside the mpi.h
    at path, which must include each of them."""
    text = open(path).read()
    for name, what, parts in PROTO_HEADERS:
        if not re.search(r'^#include "%s"' % re.escape(name), text, re.M):
            sys.exit('%s: does not #include "%s"' % (path, name))
        target = os.path.join(os.path.dirname(path), name)
        new = prototype_header(funcs, name, what, parts)
        old = open(target).read() if os.path.exists(target) else None
        if check:
            if new != old:
                sys.exit("%s: prototypes differ from functions.txt; run "
                         "gen_stubs.py --header" % target)
        elif new != old:
            with open(target + ".tmp", "w") as out:
                out.write(new)
            os.replace(target + ".tmp", target)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--table", required=True, help="functions.txt")
    ap.add_argument("--output", "-o", help="stub C file to write")
    ap.add_argument("--locked-header", help="renames header to write")
    ap.add_argument("--locked-source", help="locking wrappers C file to write")
    ap.add_argument("--status", action="store_true",
                    help="print a markdown implementation table")
    ap.add_argument("--header", help="mpi.h whose prototype headers to regenerate")
    ap.add_argument("--check-header", action="store_true",
                    help="with --header: only check that it is up to date")
    ap.add_argument("--count", action="store_true",
                    help="print the number of functions in the table")
    ap.add_argument("sources", nargs="*", help="MPI core C files")
    args = ap.parse_args()

    funcs = read_table(args.table)
    names = [f.name for f in funcs]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit("%s: listed twice: %s" % (args.table, ", ".join(sorted(dup))))
    if args.count:
        print(len(funcs))
    if args.header:
        update_header(funcs, args.header, args.check_header)
    defined = defined_functions(args.sources)
    unknown = sorted(defined - set(names))
    if unknown:
        print("gen_stubs.py: warning: not in %s: %s"
              % (args.table, ", ".join(unknown)), file=sys.stderr)
    if args.locked_header or args.locked_source:
        aliased, gated, unlocked = self_aliased(args.sources)
        aliased &= defined
        bad = sorted(n for n in aliased - gated - unlocked)
        if bad:
            sys.exit("gen_stubs.py: %s make their own alias (MICHI_ALIAS) but pass "
                     "no MICHI_GATE: under MPI_THREAD_MULTIPLE they would run "
                     "unlocked" % ", ".join(bad))
        varargs = sorted(f.name for f in funcs if f.name in defined - aliased
                         and "..." in f.params)
        if varargs:
            sys.exit("gen_stubs.py: %s take '...': a wrapper cannot forward "
                     "them; alias them in the core" % ", ".join(varargs))
        for path, writer in ((args.locked_header, write_locked_header),
                             (args.locked_source, write_locked_source)):
            if path:
                with open(path + ".tmp", "w") as out:
                    writer(funcs, defined - unlocked, aliased, out)
                os.replace(path + ".tmp", path)
    if args.status:
        print_status(funcs, defined)
    if args.output:
        with open(args.output, "w") as out:
            write_stubs(funcs, defined, out)


if __name__ == "__main__":
    main()
