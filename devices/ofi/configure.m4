dnl SPDX-License-Identifier: MIT
dnl devices/ofi: the libfabric matching device, built when configure finds
dnl libfabric (Debian: libfabric-dev); --without-ofi leaves it out.
AC_ARG_WITH([ofi], [AS_HELP_STRING([--without-ofi], [do not build the libfabric device])],
  [], [with_ofi=check])
have_ofi=no
AS_IF([test "x$with_ofi" != xno],
  [PKG_CHECK_MODULES([OFI], [libfabric >= 1.11], [have_ofi=yes
     AC_DEFINE([HAVE_OFI], [1], [the libfabric device is built])],
   [AS_IF([test "x$with_ofi" = xyes], [AC_MSG_ERROR([--with-ofi given but libfabric not found])])])])
AM_CONDITIONAL([HAVE_OFI], [test "x$have_ofi" = xyes])
AC_SUBST([OFI_CFLAGS])
AC_SUBST([OFI_LIBS])
AS_IF([test "x$have_ofi" = xyes], [michi_built="$michi_built ofi"; michi_devices="$michi_devices ofi"],
  [michi_devices="$michi_devices (ofi: no, needs libfabric-dev)"])
