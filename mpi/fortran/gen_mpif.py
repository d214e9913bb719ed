#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# mpi/fortran/gen_mpif.py: writes Michi's Fortran include file mpif.h and
# the source of the Fortran "mpi" module (mpi.f90) from the C header
# mpi/include/mpi.h, at build time, so that C and Fortran can never
# disagree on a value.
#
#   gen_mpif.py --header mpi/include/mpi.h --mpif OUT/mpif.h \
#               --module OUT/mpi.f90 [--compare OTHER/mpif.h] [--verbose]
#
# The generator evaluates every object-like "#define MPI_X <expr>" and every
# enum constant of mpi.h (casts, parentheses, hex, integer arithmetic and
# macros defined through other macros), keeps the integer-valued ones that
# Fortran has, and writes each as an INTEGER PARAMETER, grouped under mpi.h's
# own section and group comments. It leaves out pointer-valued constants
# (MPI_BOTTOM, MPI_STATUS_IGNORE, the callback function pointers: mpif.h
# gives these their Fortran form by other means), anything that is not a
# constant expression, and the C-only families listed in C_ONLY_PREFIXES.
#
# Where MPICH's ABI gives Fortran a different value, the generator applies
# the rule rather than listing values:
#  - handles are 32-bit: a C value above 2^31-1 is its signed reading;
#  - a string length MPI_MAX_* counts no terminating NUL in Fortran, so it
#    is the C value minus one;
#  - a predefined attribute key is the C key plus one: MPICH tells the
#    languages apart by the key, as C gets a pointer to the value where
#    Fortran gets the value;
#  - MPI_FILE_NULL, a null pointer in C, is the Fortran handle 0.
# The Fortran-only items (the status layout, the KIND values, the sentinel
# common blocks the C library finds by symbol name, the EXTERNAL callbacks)
# come from the tables below and from mpi.h's MPI_F_* status constants,
# typedefs and prototypes (the prototypes are in the headers mpi.h
# includes from its own directory, read in its place: read_header).
#
# The output is valid fixed-form and free-form Fortran at once: statements
# run from column 7 to at most column 72, there are no continuation lines,
# and comment lines start with "!" in column 1. The output depends on
# nothing but mpi.h (and the headers it includes), so two runs give the
# same bytes.
#
# --compare reads another implementation's mpif.h (MPICH's, say) and
# prints to stderr the names it declares that were not produced and the
# PARAMETERs whose values differ; it reports and never fails.

import argparse
import os
import re
import sys
import textwrap

# Families of mpi.h names that have no Fortran meaning: the tool interface
# (except its error classes, which are error classes like any other), the C
# description of the Fortran status (turned into MPI_STATUS_SIZE etc.
# below), and printf formats.
C_ONLY_PREFIXES = ("MPI_T_", "MPI_F_", "MPI_F08_", "MPI_AINT_FMT_")
C_ONLY_EXCEPTIONS = ("MPI_T_ERR_",)

# MPI_File is a pointer in C, but its Fortran handle is an INTEGER from
# MPI_File_c2f, and the null file is 0 there.
FINT_POINTER_HANDLES = ("MPI_File",)

# Constants whose Fortran type is not default INTEGER.
FORTRAN_TYPES = {
    "MPI_DISPLACEMENT_CURRENT": "INTEGER(KIND=MPI_OFFSET_KIND)",
}

# The KIND parameters, from the C type behind each; gfortran, ifx, flang
# and nvfortran all number integer kinds by their size in bytes.
KIND_TYPEDEFS = (
    ("MPI_ADDRESS_KIND", "MPI_Aint"),
    ("MPI_OFFSET_KIND", "MPI_Offset"),
    ("MPI_COUNT_KIND", "MPI_Count"),
    ("MPI_INTEGER_KIND", "MPI_Fint"),
)
C_TYPE_SIZES = {"int": 4, "long": 8, "long long": 8}  # mpi.h is LP64-only

# The sentinels. Their addresses are what the C library tests for, by these
# common-block symbols, so the blocks, their order and their members' types
# are MPICH's ABI: (block, ((type, name, dimensions), ...)).
SENTINEL_BLOCKS = (
    ("MPIPRIV1", (("INTEGER", "MPI_BOTTOM", ""),
                  ("INTEGER", "MPI_IN_PLACE", ""),
                  ("INTEGER", "MPI_STATUS_IGNORE", "(MPI_STATUS_SIZE)"))),
    ("MPIPRIV2", (("INTEGER", "MPI_STATUSES_IGNORE", "(MPI_STATUS_SIZE,1)"),
                  ("INTEGER", "MPI_ERRCODES_IGNORE", "(1)"))),
    ("MPIPRIVC", (("CHARACTER(LEN=1)", "MPI_ARGVS_NULL", "(1,1)"),
                  ("CHARACTER(LEN=1)", "MPI_ARGV_NULL", "(1)"))),
    ("MPIFCMB5", (("INTEGER", "MPI_UNWEIGHTED", ""),)),
    ("MPIFCMB9", (("INTEGER", "MPI_WEIGHTS_EMPTY", ""),)),
)

# The predefined callbacks are procedures in Fortran: every function-pointer
# constant of mpi.h named like these, except the large-count (_C) ones,
# which only C and mpi_f08 have.
CALLBACK_RE = re.compile(r"^MPI_\w+_FN(?:_NULL)?$")

LAST_COLUMN = 72

C_TYPE_WORDS = {"const", "volatile", "struct", "enum", "union", "void",
                "char", "short", "int", "long", "float", "double", "signed",
                "unsigned", "_Bool"}


class NotConstant(Exception):
    """An expression that is not an integer constant expression."""


class Value:
    """A constant's value, whether it is a pointer, and the type of the
    cast that made it, if any."""

    def __init__(self, number, pointer=False, ctype=None):
        self.number, self.pointer, self.ctype = number, pointer, ctype


# ---- reading mpi.h ----------------------------------------------------------

def read_header(path):
    """The text of mpi.h with each '#include "name"' of a file beside it
    (mpi_proto.h and the other prototype headers) replaced by that file's
    text; <...> includes and files that are not there stay as they are."""
    def inline(m):
        inc = os.path.join(os.path.dirname(path), m.group(1))
        if not os.path.exists(inc):
            return m.group(0)
        return read_header(inc).rstrip("\n")
    with open(path) as f:
        text = f.read()
    return re.sub(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)".*$', inline, text,
                  flags=re.M)


class Header:
    """The constants of one C header: macros, enum constants, typedefs, and
    the sections and groups they are written in."""

    def __init__(self, text):
        self.text = text
        self.macros = {}        # name -> body text
        self.enums = {}         # name -> int
        self.types = set()      # typedef names
        self.pointer_types = set()
        self.sections = []      # [title, [[comment or None, [names]]]]
        self.cache = {}
        self._read_typedefs(text)
        self._read_lines(text)
        # the functions that return double
        self.doubles = re.findall(r"^double\s+(P?MPI_\w+)\s*\(", text, re.M)

    def _read_typedefs(self, text):
        code = "\n".join(c for c, _ in logical_lines(text))
        # A struct or enum body would end the typedef at its first ";".
        code = re.sub(r"(typedef\s+(?:struct|enum|union)\s*\w*\s*)\{[^{}]*\}",
                      r"\1", code)
        for body in re.findall(r"\btypedef\b([^;]*);", code):
            func = re.search(r"\(\s*(\*?)\s*(\w+)\s*\)\s*\(", body)
            if func:
                name, pointer = func.group(2), bool(func.group(1))
            else:
                name = re.findall(r"\w+", body)[-1]
                pointer = "*" in body
            self.types.add(name)
            if pointer:
                self.pointer_types.add(name)

    def _read_lines(self, text):
        section = ["", []]      # what comes before the first section
        self.sections.append(section)
        group, comment = None, None
        enum_text = None
        for code, line_comment in logical_lines(text):
            if enum_text is not None:
                enum_text += " " + code
                if "}" in enum_text:
                    self._read_enum(enum_text, group[1])
                    enum_text, group = None, None
                continue
            if line_comment is not None:
                title = re.match(r"^-{2,}\s*(.*?)\s*-*$", line_comment)
                if title:
                    section = [title.group(1), []]
                    self.sections.append(section)
                    group, comment = None, None
                else:
                    group, comment = None, line_comment
                continue
            define = re.match(r"^\s*#\s*define\s+([A-Za-z_]\w*)(\(?)\s*(.*)$",
                              code)
            if define and not define.group(2):
                if group is None:
                    group = [comment, []]
                    section[1].append(group)
                    comment = None
                self.macros[define.group(1)] = define.group(3).strip()
                group[1].append(define.group(1))
                continue
            if re.search(r"\benum\b[^;{]*\{", code):
                if group is None:
                    group = [comment, []]
                    section[1].append(group)
                    comment = None
                enum_text = code
                if "}" in code:
                    self._read_enum(enum_text, group[1])
                    enum_text, group = None, None
                continue
            # A blank line, a declaration or another directive ends a group.
            group, comment = None, None

    def _read_enum(self, text, names):
        body = text[text.index("{") + 1:text.index("}")]
        following = 0
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            name, _, expr = item.partition("=")
            name = name.strip()
            if expr.strip():
                following = self.evaluate(expr).number
            self.enums[name] = following
            names.append(name)
            following += 1

    def value(self, name, stack=()):
        """The value of a macro or enum constant; raises NotConstant."""
        if name in self.enums:
            return Value(self.enums[name])
        if name not in self.macros:
            raise NotConstant("%s is not a constant of the header" % name)
        if name in stack:
            raise NotConstant("%s is defined through itself" % name)
        if name not in self.cache:
            try:
                self.cache[name] = self.evaluate(self.macros[name],
                                                 stack + (name,))
            except NotConstant as e:
                self.cache[name] = e
        if isinstance(self.cache[name], NotConstant):
            raise self.cache[name]
        return self.cache[name]

    def evaluate(self, text, stack=()):
        return Expression(text, self, stack).parse()


def logical_lines(text):
    """Yields (code, comment) for each line, continuation lines joined: the
    code without its comments, and the text of a one-line comment when that
    is all the line holds (else None)."""
    text = text.replace("\\\n", " ")
    in_comment = False
    for line in text.split("\n"):
        code, whole, rest = "", None, line
        started_inside = in_comment
        while rest:
            if in_comment:
                end = rest.find("*/")
                if end < 0:
                    break
                rest, in_comment = rest[end + 2:], False
                continue
            start = rest.find("/*")
            if start < 0:
                code += rest
                break
            code += rest[:start]
            end = rest.find("*/", start + 2)
            if end < 0:
                in_comment = True
                break
            if not started_inside and not code.strip() \
                    and not rest[end + 2:].strip():
                whole = rest[start + 2:end].strip()
            code += " "
            rest = rest[end + 2:]
        yield code, whole


class Expression:
    """Evaluates the integer constant expressions mpi.h writes: numbers,
    casts, unary and binary integer operators, parentheses and names of
    other constants."""

    TOKEN_RE = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*"
                          r"|([A-Za-z_]\w*)|(<<|>>|[-+*/%~!()&|^]))")
    BINARY = {"|": 1, "^": 2, "&": 3, "<<": 4, ">>": 4, "+": 5, "-": 5,
              "*": 6, "/": 6, "%": 6}

    def __init__(self, text, header, stack):
        self.header, self.stack = header, stack
        self.tokens, pos, text = [], 0, text.strip()
        while pos < len(text):
            m = self.TOKEN_RE.match(text, pos)
            if not m or m.end() == pos:
                raise NotConstant("cannot read %r" % text[pos:])
            if m.group(1):
                self.tokens.append(("num", int(m.group(1), 0)))
            elif m.group(2):
                self.tokens.append(("name", m.group(2)))
            else:
                self.tokens.append(("op", m.group(3)))
            pos = m.end()
        if not self.tokens:
            raise NotConstant("empty definition")
        self.pos = 0

    def parse(self):
        v = self.binary(1)
        if self.pos != len(self.tokens):
            raise NotConstant("unexpected %r" % (self.tokens[self.pos][1],))
        return v

    def peek(self, offset=0):
        i = self.pos + offset
        return self.tokens[i] if i < len(self.tokens) else (None, None)

    def take(self, op):
        if self.peek() != ("op", op):
            raise NotConstant("expected %r" % op)
        self.pos += 1

    def binary(self, min_prec):
        left = self.unary()
        while True:
            kind, op = self.peek()
            prec = self.BINARY.get(op) if kind == "op" else None
            if prec is None or prec < min_prec:
                return left
            self.pos += 1
            right = self.binary(prec + 1)
            if left.pointer or right.pointer:
                raise NotConstant("arithmetic on a pointer")
            left = Value(apply_binary(op, left.number, right.number))

    def unary(self):
        kind, tok = self.peek()
        if kind == "op" and tok in "-+~!":
            self.pos += 1
            v = self.unary()
            if v.pointer:
                raise NotConstant("arithmetic on a pointer")
            n = {"-": -v.number, "+": v.number, "~": ~v.number,
                 "!": int(not v.number)}[tok]
            return Value(n)
        if (kind, tok) == ("op", "("):
            cast = self.cast_type()
            if cast is not None:
                ctype, pointer = cast
                v = self.unary()
                return Value(v.number, pointer or v.pointer, ctype)
            self.pos += 1
            v = self.binary(1)
            self.take(")")
            return v
        self.pos += 1
        if kind == "num":
            return Value(tok)
        if kind == "name":
            return self.header.value(tok, self.stack)
        raise NotConstant("unexpected %r" % (tok,))

    def cast_type(self):
        """At "(": if a cast follows, consumes it and returns (the type's
        name, whether it is a pointer type); else None."""
        words, i = [], self.pos + 1
        while True:
            kind, tok = self.peek(i - self.pos)
            if kind == "name" or (kind, tok) == ("op", "*"):
                words.append(tok)
                i += 1
            elif (kind, tok) == ("op", ")") and words:
                break
            else:
                return None
        names = [w for w in words if w != "*"]
        if not names or (names[0] not in C_TYPE_WORDS
                         and names[0] not in self.header.types):
            return None
        self.pos = i + 1
        pointer = "*" in words or names[-1] in self.header.pointer_types
        return names[-1], pointer


def apply_binary(op, a, b):
    if op in "/%":
        if b == 0:
            raise NotConstant("division by zero")
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # C rounds
        return q if op == "/" else a - q * b                      # to zero
    return {"|": a | b, "^": a ^ b, "&": a & b, "<<": a << b, ">>": a >> b,
            "+": a + b, "-": a - b, "*": a * b}[op]


# ---- from C to Fortran ------------------------------------------------------

def is_builtin_keyval(v):
    # MPICH's handle layout: bits 30-31 the handle kind (1: builtin), bits
    # 26-29 the object (9: attribute key).
    return (v >> 30) & 3 == 1 and (v >> 26) & 15 == 9


SENTINEL_NAMES = {m[1] for _, members in SENTINEL_BLOCKS for m in members}

# What the Fortran value of a constant owes to each rule, said once in the
# output where the rule first applies (mpi.h itself explains the keys).
NOTES = {
    "signed": "A handle above 2^31-1 is written as the signed 32-bit "
              "INTEGER it is.",
    "length": "A Fortran string has no terminating NUL: each length is one "
              "less than in C.",
    "file": "The null file handle is 0 (a null pointer in C).",
}


def fortran_value(name, header):
    """The Fortran value of the mpi.h constant name and the NOTES key of the
    rule that changed it, if any; raises NotConstant with the reason when
    it has no Fortran value."""
    if not name.startswith("MPI_"):
        raise NotConstant("not an MPI_ name")
    if name.startswith(C_ONLY_PREFIXES) \
            and not name.startswith(C_ONLY_EXCEPTIONS):
        raise NotConstant("C only")
    if CALLBACK_RE.match(name):
        raise NotConstant("an EXTERNAL procedure in Fortran")
    if name in SENTINEL_NAMES:
        raise NotConstant("a common-block sentinel in Fortran")
    v = header.value(name)
    n, note = v.number, None
    if v.pointer:
        if v.ctype in FINT_POINTER_HANDLES and n == 0:
            return 0, "file"
        raise NotConstant("a pointer")
    if name.startswith("MPI_MAX_"):
        n, note = n - 1, "length"
    if is_builtin_keyval(n):
        n, note = n + 1, "keyval"
    if name not in FORTRAN_TYPES:
        if 2 ** 31 <= n < 2 ** 32:
            n, note = n - 2 ** 32, "signed"
        if not -2 ** 31 <= n < 2 ** 31:
            raise NotConstant("%d does not fit a Fortran INTEGER" % n)
    return n, note


def c_type_size(header, typedef):
    m = re.search(r"\btypedef\s+([\w ]+?)\s+%s\s*;" % typedef, header.text)
    if not m or m.group(1) not in C_TYPE_SIZES:
        sys.exit("gen_mpif: mpi.h has no integer typedef %s" % typedef)
    return C_TYPE_SIZES[m.group(1)]


# ---- writing Fortran --------------------------------------------------------

class Writer:
    def __init__(self):
        self.lines = []
        self.names = set()      # upper-case, to catch Fortran's case folding

    def comment(self, text=""):
        """A comment of one paragraph, wrapped to the columns."""
        for line in textwrap.wrap(text, LAST_COLUMN - 2) or [""]:
            self.lines.append(("! " + line).rstrip())

    def blank(self):
        if self.lines and self.lines[-1]:
            self.lines.append("")

    def statement(self, text):
        line = " " * 6 + text
        if len(line) > LAST_COLUMN:
            sys.exit("gen_mpif: statement passes column %d: %s"
                     % (LAST_COLUMN, text))
        self.lines.append(line)

    def declare(self, name):
        key = name.upper()
        if key in self.names:
            sys.exit("gen_mpif: %s is declared twice (Fortran ignores case)"
                     % name)
        self.names.add(key)

    def parameter(self, name, value, ftype="INTEGER"):
        self.declare(name)
        if isinstance(value, int):
            # -2**31 has no literal: its magnitude is not an INTEGER
            value = "(%d-1)" % (value + 1) if value == -2 ** 31 else str(value)
        self.statement("%s %s" % (ftype, name))
        self.statement("PARAMETER (%s=%s)" % (name, value))

    def names_list(self, keyword, names):
        """keyword name, name, ... over as many statements as the columns
        need."""
        line = []
        for name in names:
            trial = "%s %s" % (keyword, ", ".join(line + [name]))
            if line and 6 + len(trial) > LAST_COLUMN:
                self.statement("%s %s" % (keyword, ", ".join(line)))
                line = []
            line.append(name)
        if line:
            self.statement("%s %s" % (keyword, ", ".join(line)))

    def text(self):
        return "\n".join(self.lines).rstrip("\n") + "\n"


MPIF_HEADER = """\
SPDX-License-Identifier: MIT

mpif.h: Michi's Fortran include file, for "include 'mpif.h'" and, through
mpi.f90, for "use mpi". Generated by mpi/fortran/gen_mpif.py from
mpi/include/mpi.h; edit those, not this file.

The values are those of MPICH's mpif.h for the same ABI, so that a Fortran
program built against MPICH runs on Michi unchanged. They are mpi.h's,
except where Fortran differs by rule: a handle above 2^31-1 is written as
the signed 32-bit INTEGER it is; a string length MPI_MAX_* is one less (no
terminating NUL); a predefined attribute key is the C key plus one; the
null file handle is 0.

The file is valid in both fixed and free source form: statements start in
column 7 and end by column 72, and there are no continuation lines.
"""

MODULE_TEXT = """\
! SPDX-License-Identifier: MIT
!
! mpi.f90: Michi's Fortran "mpi" module. Generated by
! mpi/fortran/gen_mpif.py from mpi/include/mpi.h; edit those, not this file.
!
! The module holds exactly what mpif.h holds (constants, KIND values, the
! sentinels in their common blocks, the EXTERNAL callbacks and the types of
! MPI_WTIME and MPI_WTICK), by including it, so "use mpi" and
! "include 'mpif.h'" cannot disagree.
!
! It adds explicit interfaces (mpi_interfaces.h, written by gen_fortran.py
! from the C prototypes: INTEGER handles, LOGICAL flags, a required
! IERROR) for the routines whose arguments are all scalars and strings,
! about the set MPICH's mpi module checks. The others (choice buffers,
! arrays, attribute values) keep implicit interfaces, as with mpif.h, so
! that programs written for MPICH, which pass one request where an array
! is declared or buffers of several types to one routine, still compile;
! with gfortran 10 or later the latter need -fallow-argument-mismatch,
! which mpifort passes.
!
! MPI_SIZEOF is the one routine only the module has: a generic with one
! specific per intrinsic type and kind, each taking a scalar or an array
! of any rank (assumed rank) and returning the size in bytes of one
! element. The specifics are compiled into libmpifort.

      MODULE MPI
      IMPLICIT NONE
      INCLUDE 'mpif.h'
%(privates)s
      INTERFACE MPI_SIZEOF
%(procedures)s
      END INTERFACE MPI_SIZEOF
      INCLUDE 'mpi_interfaces.h'
      CONTAINS
%(bodies)s
      END MODULE MPI
"""

# MPI_SIZEOF's specifics: (name suffix, declared type) of every intrinsic
# type and kind gfortran has on the targets Michi builds for.
SIZEOF_TYPES = [("I%d" % k, "INTEGER(KIND=%d)" % k) for k in (1, 2, 4, 8, 16)] + \
    [("R%d" % k, "REAL(KIND=%d)" % k) for k in (4, 8, 10, 16)] + \
    [("C%d" % k, "COMPLEX(KIND=%d)" % k) for k in (4, 8, 10, 16)] + \
    [("L%d" % k, "LOGICAL(KIND=%d)" % k) for k in (1, 2, 4, 8)] + \
    [("CH", "CHARACTER(LEN=*)")]


def sizeof_parts(indent):
    """MPI_SIZEOF's specifics, shared by the mpi and mpi_f08 modules: their
    names, and their bodies (IERROR OPTIONAL, as mpi_f08 has it; a call
    that passes it, as the mpi module's callers do, is the same)."""
    names = ["MPI_SIZEOF_" + suffix for suffix, _ in SIZEOF_TYPES]
    body = []
    for (suffix, ftype), name in zip(SIZEOF_TYPES, names):
        body += ["SUBROUTINE %s(X, SIZE, IERROR)" % name,
                 "  %s, INTENT(IN) :: X(..)" % ftype,
                 "  INTEGER, INTENT(OUT) :: SIZE",
                 "  INTEGER, OPTIONAL, INTENT(OUT) :: IERROR",
                 "  SIZE = STORAGE_SIZE(X) / 8",
                 "  IF (PRESENT(IERROR)) IERROR = MPI_SUCCESS",
                 "END SUBROUTINE %s" % name]
    return names, [indent + b for b in body]


def module_text():
    names, bodies = sizeof_parts("      ")
    return MODULE_TEXT % {
        "privates": "\n".join("      PRIVATE :: %s" % n for n in names),
        "procedures": "\n".join("      MODULE PROCEDURE %s" % n for n in names),
        "bodies": "\n".join(bodies)}


def write_mpif(header, skipped):
    w = Writer()
    for i, paragraph in enumerate(MPIF_HEADER.split("\n\n")):
        if i:
            w.comment()
        w.comment(paragraph)

    w.blank()
    w.comment("Kinds of the Fortran integers for MPI_Aint, MPI_Offset, "
              "MPI_Count and MPI_Fint")
    for name, typedef in KIND_TYPEDEFS:
        w.parameter(name, c_type_size(header, typedef))

    # mpi.h gives the 0-based C indices of the status fields.
    w.blank()
    w.comment("A status is INTEGER(MPI_STATUS_SIZE); the 1-based indices of "
              "its public fields")
    w.parameter("MPI_STATUS_SIZE", header.value("MPI_F_STATUS_SIZE").number)
    for field in ("SOURCE", "TAG", "ERROR"):
        w.parameter("MPI_" + field, header.value("MPI_F_" + field).number + 1)

    notes = dict(NOTES)
    for title, groups in header.sections:
        heading = title
        for comment, names in groups:
            values = []
            for name in names:
                try:
                    values.append((name,) + fortran_value(name, header))
                except NotConstant as e:
                    skipped.append((name, str(e)))
            if not values:
                continue
            if heading:
                w.blank()
                w.comment("---- %s ----" % heading)
                heading = None
            w.blank()
            if comment:
                w.comment(comment)
            for name, value, note in values:
                if note in notes:
                    w.comment(notes.pop(note))
                w.parameter(name, value, FORTRAN_TYPES.get(name, "INTEGER"))

    w.blank()
    w.comment("---- language interoperability ----")
    w.blank()
    w.parameter("MPI_SUBARRAYS_SUPPORTED", ".FALSE.", "LOGICAL")
    w.parameter("MPI_ASYNC_PROTECTS_NONBLOCKING", ".FALSE.", "LOGICAL")

    w.blank()
    w.comment("---- sentinels ----")
    w.blank()
    w.comment("The C library recognises these by their addresses: the "
              "common blocks are part of the ABI and not to be used "
              "otherwise.")
    for block, members in SENTINEL_BLOCKS:
        for ftype, name, dims in members:
            w.declare(name)
            w.statement("%s %s%s" % (ftype, name, dims))
        w.names_list("COMMON /%s/" % block, [m[1] for m in members])
    w.names_list("SAVE", ["/%s/" % b for b, _ in SENTINEL_BLOCKS])

    w.blank()
    w.comment("---- procedures ----")
    w.blank()
    w.comment("Functions that return DOUBLE PRECISION")
    doubles = [d.upper() for d in header.doubles]
    for d in doubles:
        w.declare(d)
    w.names_list("DOUBLE PRECISION", doubles)
    w.names_list("EXTERNAL", doubles)
    w.blank()
    w.comment("Predefined attribute callbacks and the null conversion "
              "function")
    callbacks = [n for s in header.sections for g in s[1] for n in g[1]
                 if CALLBACK_RE.match(n)]
    for c in callbacks:
        w.declare(c)
    w.names_list("EXTERNAL", callbacks)

    # Declared here, they would break the programs that declare them, as
    # MPICH's mpif.h has them do.
    w.blank()
    w.comment("MPI_AINT_ADD and MPI_AINT_DIFF return "
              "INTEGER(KIND=MPI_ADDRESS_KIND): a program that calls them "
              "declares them, as with MPICH.")
    return w


# ---- the mpi_f08 module -----------------------------------------------------

F08_HEADER = """\
! SPDX-License-Identifier: MIT
!
! mpi_f08.f90: Michi's Fortran 2008 "mpi_f08" module. Generated by
! mpi/fortran/gen_mpif.py from mpi/include/mpi.h; edit those, not this file.
!
! Handles are derived types of one INTEGER, MPI_VAL, equal to the handle of
! mpif.h and C; a status is TYPE(MPI_Status), the five integers of the C
! MPI_Status, so MPI_SOURCE, MPI_TAG and MPI_ERROR are its public fields.
! The constants are mpif.h's, the predefined handles typed. The sentinels
! (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_ERRCODES_IGNORE, ...)
! live in mpif.h's common blocks, where libmpifort recognises them.
!
! The routines (mpi_f08_interfaces.h, written by gen_fortran.py) are
! explicit interfaces to the same external procedures as mpif.h's: a
! handle passed by reference is its INTEGER, and an absent OPTIONAL
! IERROR is a null pointer, which every wrapper accepts. Choice buffers
! take any type, kind and rank (gfortran's NO_ARG_CHECK on an assumed-size
! TYPE(*)); MPI_SUBARRAYS_SUPPORTED is .FALSE.: a non-contiguous section
! is copied in and out by the compiler, so nonblocking calls need
! contiguous buffers. Every routine is there under its PMPI_ name too, and
! MPI_Sizeof is a generic over the intrinsic types, as in the mpi module.
! The MPI-4.0 large-count forms are specifics of the same generic names:
! MPI_Send with an INTEGER(KIND=MPI_COUNT_KIND) count is MPI_Send_c
! (mpi_f08_interfaces.h lists the few that are called by their _c name
! only). Not there: the specific procedure names MPI_Send_f08 and the like."""

F08_HANDLES = ("MPI_Comm", "MPI_Datatype", "MPI_Errhandler", "MPI_File",
               "MPI_Group", "MPI_Info", "MPI_Message", "MPI_Op", "MPI_Request",
               "MPI_Session", "MPI_Win")


def f08_module_text(header):
    out = [F08_HEADER, "", "module mpi_f08",
           "  use, intrinsic :: iso_c_binding, only: c_int, c_ptr",
           "  implicit none", ""]
    out.append("  ! kinds of the integers behind MPI_Aint, MPI_Offset, "
               "MPI_Count, MPI_Fint")
    for name, typedef in KIND_TYPEDEFS:
        out.append("  integer, parameter :: %s = %d"
                   % (name, c_type_size(header, typedef)))
    out.append("  integer, parameter :: MPI_STATUS_SIZE = %d"
               % header.value("MPI_F_STATUS_SIZE").number)
    for field in ("SOURCE", "TAG", "ERROR"):
        out.append("  integer, parameter :: MPI_%s = %d"
                   % (field, header.value("MPI_F_" + field).number + 1))
    out += ["", "  ! handles"]
    for t in F08_HANDLES:
        out += ["  type, bind(C) :: %s" % t, "    integer(c_int) :: MPI_VAL",
                "  end type %s" % t]
    out += ["  type, bind(C) :: MPI_Status",
            "    integer(c_int) :: count_lo, count_hi_and_cancelled",
            "    integer(c_int) :: MPI_SOURCE, MPI_TAG, MPI_ERROR",
            "  end type MPI_Status", ""]
    for title, groups in header.sections:
        lines = []
        for _, names in groups:
            for name in names:
                try:
                    n, _ = fortran_value(name, header)
                except NotConstant:
                    continue
                ctype = header.value(name).ctype
                if ctype in F08_HANDLES:
                    lines.append("  type(%s), parameter :: %s = %s(%d)"
                                 % (ctype, name, ctype, n))
                else:
                    ftype = FORTRAN_TYPES.get(name, "INTEGER").lower()
                    lines.append("  %s, parameter :: %s = %s"
                                 % (ftype, name, "(%d-1)" % (n + 1)
                                    if n == -2 ** 31 else n))
        if lines:
            out += ["  ! ---- %s ----" % title if title else ""] + lines
    out += ["", "  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .false.",
            "  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.",
            "", "  ! sentinels, in mpif.h's common blocks (libmpifort knows "
            "them by address)"]
    # the weights sentinels go where arrays are declared: arrays of one
    f08_types = {"MPI_STATUS_IGNORE": ("type(MPI_Status)", ""),
                 "MPI_STATUSES_IGNORE": ("type(MPI_Status)", "(1)"),
                 "MPI_UNWEIGHTED": ("integer", "(1)"),
                 "MPI_WEIGHTS_EMPTY": ("integer", "(1)")}
    for block, members in SENTINEL_BLOCKS:
        for ftype, name, dims in members:
            ftype, dims = f08_types.get(name, (ftype.lower(), dims))
            out.append("  %s :: %s%s" % (ftype, name, dims))
        out.append("  common /%s/ %s" % (block, ", ".join(m[1] for m in members)))
        out.append("  save /%s/" % block)
    callbacks = [n for sec in header.sections for g in sec[1] for n in g[1]
                 if CALLBACK_RE.match(n)]
    out += ["", "  ! predefined attribute callbacks, the null conversion function",
            "  external :: " + ", ".join(callbacks[:3])]
    for i in range(3, len(callbacks), 3):
        out.append("  external :: " + ", ".join(callbacks[i:i + 3]))
    out += ["", "  interface operator(==)"]
    out += ["    module procedure %s_eq" % t[4:].lower() for t in F08_HANDLES]
    out += ["  end interface", "  interface operator(/=)"]
    out += ["    module procedure %s_ne" % t[4:].lower() for t in F08_HANDLES]
    out += ["  end interface"]
    out += ["  private :: " + ", ".join("%s_eq, %s_ne" % (t[4:].lower(), t[4:].lower())
                                       for t in F08_HANDLES[i:i + 4])
            for i in range(0, len(F08_HANDLES), 4)]
    sizeofs, sizeof_bodies = sizeof_parts("  ")
    out += ["", "  interface MPI_Sizeof"]
    out += ["    module procedure %s" % n for n in sizeofs]
    out += ["  end interface MPI_Sizeof"]
    out += ["  private :: " + ", ".join(sizeofs[i:i + 6]) for i in range(0, len(sizeofs), 6)]
    out += ["", "  include 'mpi_f08_interfaces.h'", "", "contains"]
    out += sizeof_bodies
    for t in F08_HANDLES:
        k = t[4:].lower()
        for op, sym in (("eq", "=="), ("ne", "/=")):
            out += ["  elemental logical function %s_%s(a, b)" % (k, op),
                    "    type(%s), intent(in) :: a, b" % t,
                    "    %s_%s = a%%MPI_VAL %s b%%MPI_VAL" % (k, op, sym),
                    "  end function %s_%s" % (k, op)]
    out.append("end module mpi_f08")
    return "\n".join(out) + "\n"


def write_file(path, text):
    # A build interrupted half-way must not leave a file that looks made.
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


# ---- comparing with another mpif.h ------------------------------------------

def read_other_mpif(path):
    """Names declared in a Fortran include file, and its PARAMETER
    expressions."""
    names, params = set(), {}
    with open(path) as f:
        for line in f:
            if line[:1] in "!cC*" or not line.strip():
                continue
            stmt = line.split("!")[0].strip()
            m = re.match(r"(?i)parameter\s*\((.*)\)\s*$", stmt)
            if m:
                for item in m.group(1).split(","):
                    name, _, expr = item.partition("=")
                    params[name.strip().upper()] = expr.strip()
                continue
            stmt = re.sub(r"\([^()]*\)", "", stmt)      # array dimensions
            stmt = re.sub(r"(?i)^(common\s*/\w+/|save\b.*|[a-z]+(\*\d+)?"
                          r"(\s+precision)?)", "", stmt)
            names.update(n.strip().upper() for n in stmt.split(",")
                         if re.match(r"^\s*[A-Za-z]\w*\s*$", n))
    return names | set(params), params


def compare(path, writer):
    theirs, exprs = read_other_mpif(path)
    missing = sorted(theirs - writer.names)
    if missing:
        print("gen_mpif: in %s but not produced (%d): %s"
              % (path, len(missing), " ".join(missing)), file=sys.stderr)
    ours = {}
    for line in writer.lines:
        m = re.match(r"\s+PARAMETER \((\w+)=(.*)\)$", line)
        if m:
            ours[m.group(1).upper()] = m.group(2)

    # Both sides' PARAMETERs are integer expressions in C-compatible syntax,
    # or logical literals, compared as text.
    def number(text, macros):
        scope = Header("")
        scope.macros = macros
        try:
            return scope.evaluate(text).number
        except NotConstant:
            return text.upper()
    theirs_int = {n: e for n, e in exprs.items() if not e.startswith(".")}
    differ = ["%s=%s (here %s)" % (name, exprs[name], ours[name])
              for name in sorted(set(exprs) & set(ours))
              if number(exprs[name], theirs_int) != number(ours[name], {})]
    if differ:
        print("gen_mpif: values that differ from %s: %s"
              % (path, ", ".join(differ)), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description="Write mpif.h and mpi.f90 "
                                 "from mpi.h.")
    ap.add_argument("--header", required=True, help="mpi.h to read")
    ap.add_argument("--mpif", required=True, help="mpif.h to write")
    ap.add_argument("--module", required=True, help="mpi.f90 to write")
    ap.add_argument("--f08-module", metavar="FILE",
                    help="also write mpi_f08.f90")
    ap.add_argument("--compare", metavar="MPIF_H",
                    help="another mpif.h to report differences from")
    ap.add_argument("--verbose", action="store_true",
                    help="list the mpi.h constants left out, and why")
    args = ap.parse_args()

    text = read_header(args.header)
    skipped = []
    try:
        header = Header(text)
        writer = write_mpif(header, skipped)
    except NotConstant as e:
        sys.exit("gen_mpif: %s: %s" % (args.header, e))
    write_file(args.mpif, writer.text())
    write_file(args.module, module_text())
    if args.f08_module:
        write_file(args.f08_module, f08_module_text(header))
    if args.verbose:
        for name, why in skipped:
            print("gen_mpif: left out %s: %s" % (name, why), file=sys.stderr)
    if args.compare:
        compare(args.compare, writer)


if __name__ == "__main__":
    main()
