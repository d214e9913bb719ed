#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# mpi/fortran/gen_fortran.py: writes the C side of the mpif.h and `use mpi`
# bindings (libmpifort) from mpi/bindings/functions.txt, the one table of
# MPI's C prototypes.
#
# Every Fortran MPI routine takes its arguments by reference and returns
# its error code in a last INTEGER argument; character arguments add a
# hidden length (size_t, gfortran) after all the others. The generated
# wrapper of MPI_X is the function pmpi_x_ and, as in MPICH, the names
# mpi_x_, mpi_x__, mpi_x, MPI_X (and the same for pmpi_) are weak aliases
# of it, so programs built against MPICH's libmpifort link and run. It
# calls the C PMPI_X.
#
# An argument's conversion follows from its C type and, where the type
# alone is not enough, its name:
#   choice buffers (void * named like a buffer)  MPI_BOTTOM, MPI_IN_PLACE
#                                                 sentinels recognised
#   int, handles, MPI_Aint... by value            dereferenced
#   int *, handle pointers and arrays             passed on (MPI_Fint is int,
#                                                 and handles are ints)
#   MPI_Status * / MPI_Status []                  the 5-integer Fortran status
#                                                 is MPI_Status; the IGNORE
#                                                 sentinels recognised
#   MPI_File                                      MPI_File_f2c / c2f
#   const char *                                  blank-trimmed copy
#   char * (out)                                  written blank-padded
#   LOGICAL flags (by name)                       C's nonzero -> 1 (gfortran)
#   Waitany/Testany/some indices                  0-based -> 1-based
#   MPI-1 calls with INTEGER addresses            converted from/to MPI_Aint
# A function whose arguments fall outside these (callbacks with another
# Fortran signature, attribute values, argv arrays, functions that return
# a value) has its wrapper written by hand in fortran_special.c; the
# generator reads that file's F_WRAPPER(name, NAME) lines and fails when a
# function has neither kind of wrapper. Functions with no Fortran binding
# (MPI_T, the C-only converters) are left out. The MPI-4.0 large-count
# "_c" calls get wrappers too (pmpi_send_c_ ...: MPI_Count and MPI_Aint
# arguments by reference, as INTEGER(KIND=MPI_COUNT_KIND) and
# (KIND=MPI_ADDRESS_KIND) are): only mpi_f08 declares them (MPI-4.0
# section 19.2), as specifics of the generic name of the int form; the
# mpi module and mpif.h have no large-count forms. The MPI-4.0 persistent
# collectives (MPI_Bcast_init ...) get wrappers like every other call.

import argparse
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "bindings"))
from gen_stubs import read_table, param_name  # noqa: E402

HANDLES = {"MPI_Comm", "MPI_Datatype", "MPI_Group", "MPI_Win", "MPI_Session",
           "MPI_Op", "MPI_Errhandler", "MPI_Request", "MPI_Message",
           "MPI_Info"}
WIDE = {"MPI_Aint", "MPI_Count", "MPI_Offset"}
CHOICE = {"buf", "sendbuf", "recvbuf", "inbuf", "outbuf", "inoutbuf",
          "origin_addr", "result_addr", "compare_addr", "buffer", "location",
          "base", "ptr", "buffer_addr_unused"}
# LOGICAL arguments C writes (normalised to 1 or 0 for gfortran); LOGICAL
# inputs need nothing: gfortran's .TRUE. is 1.
LOGICAL_OUT = {"flag", "periods", "weighted"}
# Calls whose INTEGER indices are 1-based in Fortran.
INDEX_OUT = {"MPI_Waitany": "indx", "MPI_Testany": "indx"}
INDICES_OUT = {"MPI_Waitsome", "MPI_Testsome"}
# MPI-1 calls whose addresses and extents are default INTEGERs in Fortran.
MPI1_INT_AINT = {"MPI_Address", "MPI_Type_extent", "MPI_Type_hindexed",
                 "MPI_Type_hvector", "MPI_Type_lb", "MPI_Type_struct",
                 "MPI_Type_ub"}
# C-only functions (Fortran has no binding for them).
NO_FORTRAN = re.compile(r"^MPI_(T_|Status_(c2f|f2c|f082c|c2f08|f082f|f2f08)|"
                        r"File_(c2f|f2c)$)")
SKIP_FAMILIES = {"Tools (MPI_T)"}
# The large-count calls (MPI_Send_c, MPI_Bcast_init_c, MPI_File_read_c...):
# mpi_f08 only.
LARGE_COUNT = re.compile(r"^MPI_\w+_c$")
WEIGHTS = {"sourceweights", "destweights", "weights"}


class Unhandled(Exception):
    pass


def split_type(p):
    """(base type, pointer depth, is array, const, name) of a parameter."""
    name = param_name(p)
    if name is None:
        raise Unhandled(p)
    m = re.match(r"^(.*?)\b%s\b\s*((\[[^\]]*\]\s*)*)$" % re.escape(name), p)
    if not m:
        raise Unhandled(p)
    t, arr = m.group(1).strip(), m.group(2).strip()
    const = t.startswith("const ")
    if const:
        t = t[6:].strip()
    depth = t.count("*")
    base = t.replace("*", "").strip()
    return base, depth, bool(arr), const, name, arr


class Wrapper:
    """The pieces of one generated wrapper."""

    def __init__(self, f):
        self.f = f
        self.dummies = []     # C parameter declarations of the Fortran args
        self.lens = []        # hidden character lengths
        self.pre = []         # statements before the call
        self.args = []        # arguments of the C call
        self.post = []        # statements after a successful call
        self.cleanup = []     # statements after the call, always
        self.locals = []


def convert(w, f, p):
    base, depth, arr, const, name, arrtxt = split_type(p)
    mpi1 = f.name in MPI1_INT_AINT
    if base == "void" and depth == 1:
        if name not in CHOICE:
            raise Unhandled(p)
        w.dummies.append("void *%s" % name)
        w.args.append("F_BUF(%s)" % name)
        return
    if base == "int" and depth == 0 and not arr:
        w.dummies.append("MPI_Fint *%s" % name)
        w.args.append("*%s" % name)
        return
    if base == "int" and (depth == 1 or arr) and depth <= 1:
        if arrtxt.count("[") > 1 and arrtxt != "[][3]":
            raise Unhandled(p)
        w.dummies.append("MPI_Fint *%s" % name)
        if name in WEIGHTS:
            w.args.append("F_WEIGHTS(%s)" % name)
        elif arrtxt == "[][3]":
            w.args.append("(int (*)[3])%s" % name)
        else:
            w.args.append(name)
        if name in LOGICAL_OUT and not const:
            if arr:
                # only MPI_Cart_get's periods: maxdims of them
                w.post.append("for (int i = 0; i < *maxdims; i++)\n"
                              "\t\t%s[i] = F_LOGICAL(%s[i]);" % (name, name))
            else:
                w.post.append("*%s = F_LOGICAL(*%s);" % (name, name))
        if INDEX_OUT.get(f.name) == name:
            w.post.append("if (*%s != MPI_UNDEFINED)\n\t\t(*%s)++;" % (name, name))
        if f.name in INDICES_OUT and name == "array_of_indices":
            w.post.append("if (*outcount != MPI_UNDEFINED)\n"
                          "\t\tfor (int i = 0; i < *outcount; i++)\n"
                          "\t\t\tarray_of_indices[i]++;")
        return
    if base in HANDLES:
        w.dummies.append("MPI_Fint *%s" % name)
        if depth == 0 and not arr:
            w.args.append("(%s)*%s" % (base, name))
        else:
            w.args.append("(%s%s *)%s" % ("const " if const else "", base, name))
        return
    if base == "MPI_File":
        w.dummies.append("MPI_Fint *%s" % name)
        if depth == 0 and not arr:
            w.args.append("f_file(*%s)" % name)
        elif depth == 1 and not arr:
            w.locals.append("MPI_File %s_c = f_file(*%s);" % (name, name))
            w.args.append("&%s_c" % name)
            w.post.append("*%s = f_file_c2f(%s_c);" % (name, name))
        else:
            raise Unhandled(p)
        return
    if base == "MPI_Status" and (depth == 1 or arr):
        w.dummies.append("MPI_Fint *%s" % name)
        if arr:
            w.args.append("F_STATUSES(%s)" % name)
        else:
            w.args.append("F_STATUS(%s)" % name)
        return
    if base in WIDE:
        if mpi1 and base == "MPI_Aint":
            w.dummies.append("MPI_Fint *%s" % name)
            if depth == 0 and not arr:
                w.args.append("(MPI_Aint)*%s" % name)
            elif arr:
                w.locals.append("MPI_Aint *%s_a = f_aint_array(%s, *count);" % (name, name))
                w.pre.append("if (!%s_a && *count > 0) {\n"
                             "\t\t*ierr = michi_f_nomem(\"%s\");\n"
                             "\t\treturn;\n\t}" % (name, f.name))
                w.args.append("%s_a" % name)
                w.cleanup.append("free(%s_a);" % name)
            else:
                w.locals.append("MPI_Aint %s_a = 0;" % name)
                w.args.append("&%s_a" % name)
                w.post.append("*%s = (MPI_Fint)%s_a;" % (name, name))
            return
        w.dummies.append("%s *%s" % (base, name))
        w.args.append("*%s" % name if depth == 0 and not arr else name)
        return
    if base == "char" and (depth == 1) != arr and arrtxt in ("", "[]"):
        w.dummies.append("char *%s" % name)
        w.lens.append("size_t %s_len" % name)
        if const:
            w.locals.append("char *%s_c = michi_f_str_in(%s, %s_len);" % (name, name, name))
            w.pre.append("if (!%s_c) {\n\t\t*ierr = michi_f_nomem(\"%s\");\n"
                         "\t\treturn;\n\t}" % (name, f.name))
            w.args.append("%s_c" % name)
            w.cleanup.append("free(%s_c);" % name)
        else:
            w.locals.append("char *%s_c = michi_f_str_buf(%s_len);" % (name, name))
            w.pre.append("if (!%s_c) {\n\t\t*ierr = michi_f_nomem(\"%s\");\n"
                         "\t\treturn;\n\t}" % (name, f.name))
            w.args.append("%s_c" % name)
            w.post.append("michi_f_str_out(%s, %s_len, %s_c);" % (name, name, name))
            w.cleanup.append("free(%s_c);" % name)
        return
    if base in ("MPI_User_function", "MPI_User_function_c", "MPI_Comm_errhandler_function",
                "MPI_Win_errhandler_function", "MPI_File_errhandler_function",
                "MPI_Session_errhandler_function") and depth == 1:
        # Fortran's (INTEGER comm, INTEGER err) by reference is the C
        # signature (MPI_Comm *, int *); a user op's (in, inout, len, type)
        # likewise, len an INTEGER(KIND=MPI_COUNT_KIND) for MPI_Op_create_c.
        w.dummies.append("%s *%s" % (base, name))
        w.args.append(name)
        return
    raise Unhandled(p)


def lower(f):
    return f.name[4:].lower()


def generate(f):
    w = Wrapper(f)
    for p in f.params:
        convert(w, f, p)
    return w


def emit(w, out):
    f = w.f
    lc = lower(f)
    params = w.dummies + ["MPI_Fint *ierr"] + w.lens
    out.write("F_EXPORT void pmpi_%s_(%s)\n{\n" % (lc, ", ".join(params)))
    out.write("\tF_IERR_OPTIONAL(ierr);\n")
    for l in w.locals:
        out.write("\t%s\n" % l)
    for s in w.pre:
        out.write("\t%s\n" % s)
    out.write("\t*ierr = P%s(%s);\n" % (f.name, ", ".join(w.args)))
    if w.post:
        if len(w.post) == 1 and "\n" not in w.post[0]:
            out.write("\tif (*ierr == MPI_SUCCESS)\n\t\t%s\n" % w.post[0])
        else:
            out.write("\tif (*ierr == MPI_SUCCESS) {\n")
            for s in w.post:
                out.write("\t\t%s\n" % s.replace("\n", "\n\t"))
            out.write("\t}\n")
    for s in w.cleanup:
        out.write("\t%s\n" % s)
    out.write("}\nF_ALIASES(%s, %s)\n\n" % (lc, lc.upper()))


def hand_written(path):
    """The functions fortran_special.c wraps: F_ALIASES(x, X) lines, and
    the lines of its macros that define wrappers (F_KEYVAL_CREATE(x, ...)
    and F_ATTR_SET_GET(kind, ...), which makes kind_set_attr and
    kind_get_attr)."""
    names = set()
    text = open(path).read()
    for m in re.finditer(r"^F_(ALIASES|KEYVAL_CREATE)\((\w+),", text, re.M):
        names.add("mpi_" + m.group(2))
    for m in re.finditer(r"^F_ATTR_SET_GET\((\w+),", text, re.M):
        names.add("mpi_%s_set_attr" % m.group(1))
        names.add("mpi_%s_get_attr" % m.group(1))
    return names


# ---- mpi_f08: explicit interfaces over the same wrappers --------------------
#
# The mpi_f08 module declares each routine as an external procedure with
# the MPI-3 Fortran 2008 signature: handles of TYPE(MPI_Comm) and friends
# (one default INTEGER, so a reference to one is a reference to the
# INTEGER handle), TYPE(MPI_Status) (the 5 integers), LOGICAL flags, an
# OPTIONAL IERROR (absent, gfortran passes a null pointer, which every
# wrapper takes: F_IERR_OPTIONAL), and choice buffers of any type, kind
# and rank (gfortran's NO_ARG_CHECK on an assumed-size TYPE(*)). gfortran
# names the external MPI_Send mpi_send_, the wrapper's alias, so mpi_f08
# needs no code of its own. MPI_SUBARRAYS_SUPPORTED is .FALSE.: a
# non-contiguous array section is copied in and out by the compiler.

LOGICAL_IN = {"reorder", "high", "commute", "periods", "remain_dims"}
KINDS = {"MPI_Aint": "MPI_ADDRESS_KIND", "MPI_Count": "MPI_COUNT_KIND",
         "MPI_Offset": "MPI_OFFSET_KIND"}
F08_HANDLES = HANDLES | {"MPI_File"}
# MPI-1 calls MPI-3 removed, and the C-only ones: no mpi_f08 form.
F08_SKIP_FAMILIES = SKIP_FAMILIES | {"Deprecated MPI-1"}

# The routines whose Fortran signature is not their C one, written out.
F08_SPECIAL = {
    "MPI_Init": ["integer, optional, intent(out) :: ierror"],
    "MPI_Init_thread": ["integer, intent(in) :: required",
                        "integer, intent(out) :: provided",
                        "integer, optional, intent(out) :: ierror"],
    "MPI_Pcontrol": ["integer, intent(in) :: level"],
    "MPI_Alloc_mem": ["integer(kind=MPI_ADDRESS_KIND), intent(in) :: size",
                      "type(MPI_Info), intent(in) :: info",
                      "type(c_ptr), intent(out) :: baseptr",
                      "integer, optional, intent(out) :: ierror"],
    "MPI_Buffer_detach": ["type(c_ptr), intent(out) :: buffer_addr",
                          "integer, intent(out) :: size",
                          "integer, optional, intent(out) :: ierror"],
    "MPI_Info_create_env": ["type(MPI_Info), intent(out) :: info",
                            "integer, optional, intent(out) :: ierror"],
    "MPI_Grequest_start": ["external :: query_fn, free_fn, cancel_fn",
                           "integer(kind=MPI_ADDRESS_KIND) :: extra_state",
                           "type(MPI_Request), intent(out) :: request",
                           "integer, optional, intent(out) :: ierror"],
    "MPI_Comm_spawn": ["character(len=*), intent(in) :: command",
                       "character(len=*), intent(in) :: argv(*)",
                       "integer, intent(in) :: maxprocs",
                       "type(MPI_Info), intent(in) :: info",
                       "integer, intent(in) :: root",
                       "type(MPI_Comm), intent(in) :: comm",
                       "type(MPI_Comm), intent(out) :: intercomm",
                       "integer :: array_of_errcodes(*)",
                       "integer, optional, intent(out) :: ierror"],
    "MPI_Comm_spawn_multiple": ["integer, intent(in) :: count",
                                "character(len=*), intent(in) :: array_of_commands(*)",
                                "character(len=*), intent(in) :: array_of_argv(count, *)",
                                "integer, intent(in) :: array_of_maxprocs(*)",
                                "type(MPI_Info), intent(in) :: array_of_info(*)",
                                "integer, intent(in) :: root",
                                "type(MPI_Comm), intent(in) :: comm",
                                "type(MPI_Comm), intent(out) :: intercomm",
                                "integer :: array_of_errcodes(*)",
                                "integer, optional, intent(out) :: ierror"],
    "MPI_Register_datarep": ["character(len=*), intent(in) :: datarep",
                             "external :: read_conversion_fn, write_conversion_fn, "
                             "dtype_file_extent_fn",
                             "integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state",
                             "integer, optional, intent(out) :: ierror"],
}
for _k, _t in (("Comm", "MPI_Comm"), ("Type", "MPI_Datatype"), ("Win", "MPI_Win")):
    F08_SPECIAL["MPI_%s_create_keyval" % _k] = [
        "external :: %s_copy_attr_fn, %s_delete_attr_fn" % (_k.lower(), _k.lower()),
        "integer, intent(out) :: %s_keyval" % _k.lower(),
        "integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state",
        "integer, optional, intent(out) :: ierror"]
    F08_SPECIAL["MPI_%s_set_attr" % _k] = [
        "type(%s), intent(in) :: obj" % _t,
        "integer, intent(in) :: keyval",
        "integer(kind=MPI_ADDRESS_KIND), intent(in) :: attribute_val",
        "integer, optional, intent(out) :: ierror"]
    F08_SPECIAL["MPI_%s_get_attr" % _k] = [
        "type(%s), intent(in) :: obj" % _t,
        "integer, intent(in) :: keyval",
        "integer(kind=MPI_ADDRESS_KIND), intent(out) :: attribute_val",
        "logical, intent(out) :: flag",
        "integer, optional, intent(out) :: ierror"]
for _n in ("MPI_Win_allocate", "MPI_Win_allocate_shared"):
    F08_SPECIAL[_n] = ["integer(kind=MPI_ADDRESS_KIND), intent(in) :: size",
                       "integer, intent(in) :: disp_unit",
                       "type(MPI_Info), intent(in) :: info",
                       "type(MPI_Comm), intent(in) :: comm",
                       "type(c_ptr), intent(out) :: baseptr",
                       "type(MPI_Win), intent(out) :: win",
                       "integer, optional, intent(out) :: ierror"]
F08_SPECIAL["MPI_Win_shared_query"] = [
    "type(MPI_Win), intent(in) :: win", "integer, intent(in) :: rank",
    "integer(kind=MPI_ADDRESS_KIND), intent(out) :: size",
    "integer, intent(out) :: disp_unit", "type(c_ptr), intent(out) :: baseptr",
    "integer, optional, intent(out) :: ierror"]
# Their large-count forms: the sizes an INTEGER(KIND=MPI_COUNT_KIND), the
# displacement units an INTEGER(KIND=MPI_ADDRESS_KIND), as in C.
F08_SPECIAL["MPI_Buffer_detach_c"] = [
    "type(c_ptr), intent(out) :: buffer_addr",
    "integer(kind=MPI_COUNT_KIND), intent(out) :: size",
    "integer, optional, intent(out) :: ierror"]
F08_SPECIAL["MPI_Register_datarep_c"] = F08_SPECIAL["MPI_Register_datarep"]
for _n in ("MPI_Win_allocate", "MPI_Win_allocate_shared", "MPI_Win_shared_query"):
    F08_SPECIAL[_n + "_c"] = [
        d.replace("integer, intent(in) :: disp_unit",
                  "integer(kind=MPI_ADDRESS_KIND), intent(in) :: disp_unit")
        .replace("integer, intent(out) :: disp_unit",
                 "integer(kind=MPI_ADDRESS_KIND), intent(out) :: disp_unit")
        for d in F08_SPECIAL[_n]]
# Functions: (result declaration, arguments)
F08_FUNCTIONS = {
    "MPI_Wtime": ("double precision", []),
    "MPI_Wtick": ("double precision", []),
    "MPI_Aint_add": ("integer(kind=MPI_ADDRESS_KIND)",
                     ["integer(kind=MPI_ADDRESS_KIND), intent(in) :: base, disp"]),
    "MPI_Aint_diff": ("integer(kind=MPI_ADDRESS_KIND)",
                      ["integer(kind=MPI_ADDRESS_KIND), intent(in) :: addr1, addr2"]),
}


def f08_decl(f, p, mpi=False):
    """The declaration line(s) of one dummy argument, from its C type; for
    the mpi module (mpi) with INTEGER handles and statuses."""
    base, depth, arr, const, name, arrtxt = split_type(p)
    intent_in = ", intent(in)" if const or (depth == 0 and not arr) else ""
    dims = "(3,*)" if arrtxt == "[][3]" else "(*)" if arr else ""
    if base == "void" and depth == 1:
        if name not in CHOICE:
            raise Unhandled(p)
        return ["!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s" % name,
                "type(*), dimension(*)%s :: %s" % (", intent(in)" if const else "", name)]
    if base == "int" and depth <= 1:
        logical = name in LOGICAL_OUT or name in LOGICAL_IN or \
            (name == "flag" and depth == 0)
        return ["%s%s :: %s%s" % ("logical" if logical else "integer", intent_in, name, dims)]
    if base in F08_HANDLES and depth <= 1:
        return ["%s%s :: %s%s" % ("integer" if mpi else "type(%s)" % base, intent_in, name, dims)]
    if base == "MPI_Status" and (depth == 1 or arr):
        if mpi:
            return ["integer%s :: %s(MPI_STATUS_SIZE%s)" % (intent_in, name, ",*" if arr else "")]
        return ["type(MPI_Status)%s :: %s%s" % (intent_in, name, dims)]
    if base == "MPI_Aint" and mpi and f.name in MPI1_INT_AINT:
        return ["integer%s :: %s%s" % (intent_in, name, dims)]
    if base in KINDS:
        return ["integer(kind=%s)%s :: %s%s" % (KINDS[base], intent_in, name, dims)]
    if base == "char" and (depth == 1) != arr and arrtxt in ("", "[]"):
        return ["character(len=*)%s :: %s" % (", intent(in)" if const else "", name)]
    if re.search(r"_function(_c)?$", base) and depth == 1:
        return ["external :: %s" % name]
    raise Unhandled(p)


# MPI-1 calls the mpi module has and mpi_f08 has not, written out.
MPI1_SPECIAL = {
    "MPI_Attr_put": ["integer, intent(in) :: comm, keyval, attribute_val",
                     "integer, intent(out) :: ierror"],
    "MPI_Attr_get": ["integer, intent(in) :: comm, keyval",
                     "integer, intent(out) :: attribute_val",
                     "logical, intent(out) :: flag",
                     "integer, intent(out) :: ierror"],
    "MPI_Keyval_create": ["external :: copy_fn, delete_fn",
                          "integer, intent(out) :: keyval",
                          "integer, intent(in) :: extra_state",
                          "integer, intent(out) :: ierror"],
}


def mpi_flavor(decls):
    """An mpi_f08 declaration list as the mpi module has it: INTEGER
    handles and statuses, addresses for C pointers, IERROR required."""
    out = []
    for d in decls:
        d = re.sub(r"type\(MPI_Status\)(.*?) :: (\w+)\(\*\)",
                   r"integer\1 :: \2(MPI_STATUS_SIZE,*)", d)
        d = re.sub(r"type\(MPI_Status\)(.*?) :: (\w+)$",
                   r"integer\1 :: \2(MPI_STATUS_SIZE)", d)
        d = re.sub(r"type\(MPI_\w+\)", "integer", d)
        d = d.replace("type(c_ptr)", "integer(kind=MPI_ADDRESS_KIND)")
        d = d.replace("integer, optional, intent(out) :: ierror",
                      "integer, intent(out) :: ierror")
        out.append(d)
    return out


def f08_interface(f, mpi=False):
    """The interface body of f in mpi_f08 (or, mpi, in the mpi module), as
    lines."""
    if f.name in F08_FUNCTIONS:
        result, decls = F08_FUNCTIONS[f.name]
        names = [d.split("::")[1].strip() for d in decls]
        args = ", ".join(n for d in names for n in d.split(", "))
        head = "function %s(%s) result(r)" % (f.name, args)
        body = ["import", "implicit none"] + decls + ["%s :: r" % result]
        return [head] + ["  " + b for b in body] + ["end function %s" % f.name]
    if mpi and f.name in MPI1_SPECIAL:
        decls = MPI1_SPECIAL[f.name]
    elif f.name in F08_SPECIAL:
        decls = F08_SPECIAL[f.name]
        if mpi:
            decls = mpi_flavor(decls)
    else:
        if f.ret != "int":
            raise Unhandled(f.ret)
        decls = []
        for p in f.params:
            decls += f08_decl(f, p, mpi)
        decls.append("integer, %sintent(out) :: ierror" % ("" if mpi else "optional, "))
    names = []
    for d in decls:
        if "::" in d and not d.startswith("!"):
            for n in re.sub(r"\([^)]*\)", "", d.split("::")[1]).split(","):
                n = n.strip()
                if n and n not in names:
                    names.append(n)
    head = "subroutine %s(%s)" % (f.name, ", ".join(names))
    body = ["import", "implicit none"] + decls
    return [head] + ["  " + b for b in body] + ["end subroutine %s" % f.name]


def free_form(line, width=100):
    """line, continued with "&" at commas so that no line passes width."""
    if len(line) <= width:
        return [line]
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    out, cur = [], ""
    for piece in line.split(", "):
        trial = cur + (", " if cur else "") + piece
        if cur and len(trial) > width - 2:
            out.append(cur + ", &")
            cur = indent + piece
        else:
            cur = trial
    out.append(cur)
    return out


# The mpi module's interfaces are for the routines whose arguments are all
# scalars and strings, as MPICH's mpi module has them: programs written for
# it hand one request where an array is declared, MPI_UNWEIGHTED where
# weights are, buffers of every type to one routine, and they must still
# compile. So no interface for a routine with a choice buffer or an array,
# nor for the calls whose values are addresses, the MPI-1 ones, MPI-IO and
# the varargs MPI_Pcontrol.
MPI_MODULE_SKIP_FAMILIES = {"MPI-IO", "Deprecated MPI-1"}
MPI_MODULE_SKIP = re.compile(r"^MPI_(Pcontrol|Grequest_start|Buffer_detach|Alloc_mem|"
                             r"Register_datarep|Wtime|Wtick|\w*_attr|\w*keyval\w*|"
                             r"Win_allocate\w*|Win_shared_query)$")


def mpi_module_wants(f, lines):
    if f.family in MPI_MODULE_SKIP_FAMILIES or MPI_MODULE_SKIP.match(f.name):
        return False
    body = "\n".join(lines)
    # an assumed-size array is "(*)" or "(n,*)"; a string's "len=*)" is not
    return "NO_ARG_CHECK" not in body and not re.search(r"[(,]\s*\*\)", body)


def split_outside(text, sep=","):
    """text split at the separators outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + [cur.strip()] if cur.strip() else out


def f08_dummies(lines):
    """The non-optional dummy arguments of an interface body (from
    f08_interface), in order: (name, characteristics), where the
    characteristics are None for a choice buffer (NO_ARG_CHECK: it takes
    anything) and (type, kind, rank) otherwise. The kinds MPI_ADDRESS_KIND,
    MPI_COUNT_KIND and MPI_OFFSET_KIND count as one: they are all 8 on the
    platforms Michi builds for, and the interfaces must not depend on it."""
    order = [n for n in re.match(r"\s*\w+ \w+\((.*?)\)", lines[0]).group(1).split(", ") if n]
    what, optional = {}, set()
    for d in lines[1:-1]:
        d = d.strip()
        m = re.match(r"!GCC\$ ATTRIBUTES NO_ARG_CHECK :: (\w+)$", d)
        if m:
            what[m.group(1)] = None
            continue
        if "::" not in d:
            continue
        left, right = d.split("::", 1)
        attrs = split_outside(left)
        tspec = re.sub(r"kind=MPI_\w+_KIND", "kind=wide", attrs[0].replace(" ", ""))
        for item in split_outside(right):
            m = re.match(r"(\w+)\s*(\((.*)\))?$", item)
            name = m.group(1)
            if name in what:          # the NO_ARG_CHECK buffers
                continue
            rank = len(split_outside(m.group(3))) if m.group(2) else 0
            what[name] = (tspec, rank)
            if "optional" in attrs:
                optional.add(name)
    return [(n, what[n]) for n in order if n not in optional]


def distinguishable(a, b):
    """Whether two specific procedures may share a generic name (Fortran
    2008 C1215, its third rule, which is the one that applies: one of them
    has a dummy argument that tells them apart by position and one, at the
    same place or later, that tells them apart by name)."""
    def differ(x, y):
        return x is not None and y is not None and x != y

    def one_way(p, q):
        qnames = dict(q)
        pos = None
        for i, (name, w) in enumerate(p):
            if i >= len(q) or differ(w, q[i][1]):
                pos = i
                break
        if pos is None:
            return False
        return any(name not in qnames or differ(w, qnames[name])
                   for name, w in p[pos:])
    return one_way(a, b) or one_way(b, a)


def write_f08(funcs, path, mpi=False):
    """The interface block of mpi_f08 or (mpi) of the mpi module (see
    mpi_module_wants). In mpi_f08 the large-count form MPI_X_c of a call
    MPI_X is a second specific of the generic MPI_X (MPI-4.0 section 19.2):
    MPI_Send with an INTEGER(KIND=MPI_COUNT_KIND) count calls
    MPI_Send_c. Where the two forms' arguments cannot tell them apart (their
    only difference is MPI_ADDRESS_KIND against MPI_COUNT_KIND, or a
    callback's interface), MPI_X_c is declared on its own and called by its
    specific name; the generated file lists those."""
    wanted = {}
    for f in funcs:
        if f.family in (SKIP_FAMILIES if mpi else F08_SKIP_FAMILIES) or \
           (mpi and LARGE_COUNT.match(f.name)):
            continue
        lines = f08_interface(f, mpi)
        if mpi and not mpi_module_wants(f, lines):
            continue
        wanted[f.name] = lines
    plain, generic, alone = [], [], []
    for name, lines in wanted.items():
        if not mpi and LARGE_COUNT.match(name) and name[:-2] in wanted:
            continue                  # with its int form
        large = None if mpi else wanted.get(name + "_c")
        if large is None:
            plain.append((name, lines))
        elif distinguishable(f08_dummies(lines), f08_dummies(large)):
            generic.append((name, [(name, lines), (name + "_c", large)]))
        else:
            alone.append(name + "_c")
            plain += [(name, lines), (name + "_c", large)]

    def body(out, lines, name, new):
        """lines, the interface body of name, written as new's."""
        lines = ([lines[0].replace(name, new, 1)] + lines[1:-1] +
                 [lines[-1].replace(name, new, 1)])
        for line in lines:
            for part in free_form("  " + line):
                out.write("%s\n" % part)

    # mpi_f08 has the PMPI_ names too (the same wrappers: pmpi_x_)
    prefixes = ("",) if mpi else ("", "P")
    with open(path, "w") as out:
        out.write("! SPDX-License-Identifier: MIT\n"
                  "! Generated by mpi/fortran/gen_fortran.py from "
                  "mpi/bindings/functions.txt; do not edit.\n"
                  "! The interfaces of the %s module (%s.f90 includes this file).\n"
                  % (("mpi", "mpi") if mpi else ("mpi_f08", "mpi_f08")))
        if alone:
            out.write("! The large-count forms that are not specifics of the int form's\n"
                      "! generic name (their arguments cannot tell the two apart), called\n"
                      "! by their own names:\n")
            for line in textwrap.wrap(", ".join(alone), 74):
                out.write("!   %s\n" % line)
        out.write("interface\n")
        for name, lines in plain:
            for pre in prefixes:
                body(out, lines, name, pre + name)
        out.write("end interface\n")
        for name, specifics in generic:
            for pre in prefixes:
                out.write("interface %s%s\n" % (pre, name))
                for sname, lines in specifics:
                    body(out, lines, sname, pre + sname)
                out.write("end interface %s%s\n" % (pre, name))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--table", required=True)
    ap.add_argument("--special", required=True,
                    help="fortran_special.c, the hand-written wrappers")
    ap.add_argument("--output", required=True)
    ap.add_argument("--f08-interfaces", metavar="FILE",
                    help="also write the mpi_f08 module's interface block")
    ap.add_argument("--mpi-interfaces", metavar="FILE",
                    help="also write the mpi module's interface block")
    ap.add_argument("--list-special", action="store_true",
                    help="print the functions that need a hand-written wrapper")
    a = ap.parse_args()
    special = hand_written(a.special)
    funcs = [f for f in read_table(a.table)
             if f.family not in SKIP_FAMILIES and not NO_FORTRAN.match(f.name)]
    missing = []
    with open(a.output, "w") as out:
        out.write("/* SPDX-License-Identifier: MIT */\n"
                  "/* Generated by mpi/fortran/gen_fortran.py from "
                  "mpi/bindings/functions.txt; do not edit. */\n"
                  "#include \"fortran_impl.h\"\n\n")
        n = 0
        for f in funcs:
            if f.name.lower() in special:
                continue
            try:
                if f.ret != "int":
                    raise Unhandled(f.ret)
                w = generate(f)
            except Unhandled as e:
                missing.append("%s (%s)" % (f.name, e))
                continue
            emit(w, out)
            n += 1
    if a.f08_interfaces:
        write_f08(funcs, a.f08_interfaces)
    if a.mpi_interfaces:
        write_f08(funcs, a.mpi_interfaces, mpi=True)
    if a.list_special or missing:
        for m in missing:
            print(m, file=sys.stderr if not a.list_special else sys.stdout)
    if missing and not a.list_special:
        os.unlink(a.output)
        sys.exit("gen_fortran.py: %d functions have neither a generated nor a "
                 "hand-written wrapper (fortran_special.c)" % len(missing))


if __name__ == "__main__":
    main()
