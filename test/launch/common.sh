# SPDX-License-Identifier: MIT
# test/launch/common.sh: sourced by the launcher tests. Finds mpirun and
# the PMI test program in the build tree (or takes MPIRUN/PMI_TEST from the
# environment), and gives each test a copy of the program under a unique
# name so that pgrep can prove no process is left behind.
top_builddir=${top_builddir:-.}
MPIRUN=${MPIRUN:-$top_builddir/launch/mpirun}
PMI_TEST=${PMI_TEST:-$top_builddir/test/launch/pmi_client_test}
# the default level, stated: several tests compare stderr to what they
# expect, which a caller's MICHI_LOG=info or debug would add to
export MICHI_LOG=${MICHI_LOG:-warn}

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

[ -x "$MPIRUN" ] || fail "no mpirun at $MPIRUN"
[ -x "$PMI_TEST" ] || fail "no test program at $PMI_TEST"
command -v timeout >/dev/null || skip "timeout(1) is missing"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/michi-launch-test.XXXXXX") || fail "mktemp"
# a name no other process has: michi_lt_<test>_<pid>
UNIQ=michi_lt_$(basename "$0" .sh | tr -c 'a-z0-9\n' _)_$$
cp "$PMI_TEST" "$WORK/$UNIQ" || fail "cannot copy the test program"
PROG=$WORK/$UNIQ
cleanup() {
	for p in $(pgrep -f "$WORK/"); do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$WORK"
}
trap cleanup EXIT

# wait (at most $2 tenths of a second) until no process runs $1
gone() {
	i=0
	while pgrep -f "$1" >/dev/null; do
		i=$((i + 1))
		[ $i -gt "$2" ] && return 1
		sleep 0.1
	done
	return 0
}

now_ms() { date +%s%3N; }

# build_prog EXE SRC [CFLAGS...]: an MPI program, with MICHI_MPICC (an
# installed Michi) or else against the build tree's libmpi, the one this
# mpirun belongs to
build_prog() {
	_exe=$1 _src=$2
	shift 2
	: "${top_srcdir:=$(dirname "$0")/../..}"
	if [ -n "${MICHI_MPICC:-}" ]; then
		$MICHI_MPICC "$@" -o "$_exe" "$_src" 2>"$WORK/err" ||
			fail "cannot build $_src: $(cat "$WORK/err")"
	else
		[ -e "$top_builddir/.libs/libmpi.so" ] || fail "no libmpi.so in $top_builddir/.libs"
		_lib=$(cd "$top_builddir/.libs" && pwd)
		${CC:-cc} -I"$top_builddir/mpi/include" -I"$top_srcdir/mpi/include" "$@" \
			-o "$_exe" "$_src" -L"$_lib" -Wl,-rpath,"$_lib" -lmpi 2>"$WORK/err" ||
			fail "cannot build $_src: $(cat "$WORK/err")"
	fi
}
