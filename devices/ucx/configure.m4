dnl SPDX-License-Identifier: MIT
dnl devices/ucx: the UCX matching device, built when configure finds UCX
dnl (Debian: libucx-dev); --without-ucx leaves it out.
AC_ARG_WITH([ucx], [AS_HELP_STRING([--without-ucx], [do not build the UCX device])],
  [], [with_ucx=check])
have_ucx=no
AS_IF([test "x$with_ucx" != xno],
  [PKG_CHECK_MODULES([UCX], [ucx >= 1.10], [have_ucx=yes
     AC_DEFINE([HAVE_UCX], [1], [the UCX device is built])],
   [AS_IF([test "x$with_ucx" = xyes], [AC_MSG_ERROR([--with-ucx given but UCX not found])])])])
AM_CONDITIONAL([HAVE_UCX], [test "x$have_ucx" = xyes])
AC_SUBST([UCX_CFLAGS])
AC_SUBST([UCX_LIBS])
AS_IF([test "x$have_ucx" = xyes], [michi_built="$michi_built ucx"; michi_devices="$michi_devices ucx"],
  [michi_devices="$michi_devices (ucx: no, needs libucx-dev)"])
