dnl SPDX-License-Identifier: MIT
dnl mpi/pmix.m4: PMIx, for ranks that `srun --mpi=pmix` (or another PMIx
dnl server) starts. Debian's libpmix-dev keeps its headers and library
dnl under /usr/lib/<triplet>/pmix2 and says so in pmix.pc, so pkg-config
dnl finds it; PMIX_CFLAGS/PMIX_LIBS name another install. Without it the
dnl library still speaks PMI-1 (mpirun, Hydra, srun --mpi=pmi2), and the
dnl summary says so. --without-pmix leaves it out; --with-pmix insists.
AC_ARG_WITH([pmix], [AS_HELP_STRING([--without-pmix],
    [do not use PMIx (srun --mpi=pmix); default: use it when found])],
  [], [with_pmix=check])
have_pmix=no
AS_IF([test "x$with_pmix" != xno],
  [PKG_CHECK_MODULES([PMIX], [pmix >= 3], [have_pmix=yes], [have_pmix=no])
   dnl pkg-config found it: make sure the header and PMIx_Init link
   AS_IF([test "x$have_pmix" = xyes],
     [save_CPPFLAGS=$CPPFLAGS
      save_LIBS=$LIBS
      CPPFLAGS="$CPPFLAGS $PMIX_CFLAGS"
      LIBS="$PMIX_LIBS $LIBS"
      AC_MSG_CHECKING([whether PMIx programs link])
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <pmix.h>]],
          [[pmix_proc_t p; return PMIx_Init(&p, NULL, 0) != PMIX_SUCCESS;]])],
        [AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no]); have_pmix=no])
      CPPFLAGS=$save_CPPFLAGS
      LIBS=$save_LIBS])
   AS_IF([test "x$have_pmix" = xyes],
     [AC_DEFINE([HAVE_PMIX], [1], [the PMI client can use PMIx (srun --mpi=pmix)])],
     [AS_IF([test "x$with_pmix" = xyes],
        [AC_MSG_ERROR([--with-pmix given but PMIx not found (Debian: libpmix-dev)])])])])
AM_CONDITIONAL([HAVE_PMIX], [test "x$have_pmix" = xyes])
AC_SUBST([PMIX_CFLAGS])
AC_SUBST([PMIX_LIBS])
AS_IF([test "x$have_pmix" = xyes], [michi_pmix_summary=yes],
  [michi_pmix_summary="no (srun --mpi=pmix needs libpmix-dev; PMI-1 and srun --mpi=pmi2 work)"])
