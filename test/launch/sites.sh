#!/bin/sh
# SPDX-License-Identifier: MIT
# The job's sites (mpi/coll/site.c) from every source one host can give them:
# MICHI_SITE per MPMD section (-env) and per rank (a wrapper), a
# hostfile's site=, --host H@SITE (over -genv MICHI_SITE: the launcher's
# wins), under MPICH's mpiexec (-env per section), and the inference on
# hosts of one kernel (--launcher fork: one site). test/mpi/sites.c checks the site
# communicators (MICHI_COMM_TYPE_SITE, HW_GUIDED "michi://site",
# HW_UNGUIDED) against MTEST_SITES; MICHI_LOG=info's map is checked here.
# Bad names and half-given sites fail with a message naming them.
. "$(dirname "$0")/common.sh"

: "${top_srcdir:=$(dirname "$0")/../..}"
SRC=$top_srcdir/test/mpi/sites.c
EXE=$WORK/${UNIQ}_prog

if [ -n "${MICHI_MPICC:-}" ]; then
	$MICHI_MPICC -o "$EXE" "$SRC" 2>"$WORK/err" || fail "cannot build: $(cat "$WORK/err")"
else
	[ -e "$top_builddir/.libs/libmpi.so" ] || fail "no libmpi.so in $top_builddir/.libs"
	LIBDIR=$(cd "$top_builddir/.libs" && pwd)
	${CC:-cc} -I"$top_srcdir/test/mpi" -I"$top_srcdir/mpi/include" -o "$EXE" "$SRC" \
		-L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lmpi 2>"$WORK/err" ||
		fail "cannot build: $(cat "$WORK/err")"
fi

# run EXPECTED MPIRUN-ARGS...: the program where the last args say
run() {
	want=$1
	shift
	MTEST_SITES=$want MICHI_LOG=info timeout 60 "$@" >"$WORK/out" 2>"$WORK/err" ||
		fail "$*: exit $?: $(cat "$WORK/out" "$WORK/err")"
	grep -q '^ No Errors$' "$WORK/out" || fail "$*: $(cat "$WORK/out" "$WORK/err")"
}
# the map rank 0 logged must hold this line
logged() {
	grep -qF "$1" "$WORK/err" || fail "log lacks \"$1\": $(cat "$WORK/err")"
}

# MPMD sections with their own MICHI_SITE; sites numbered by lowest rank
run a,a,b,b "$MPIRUN" -n 2 -env MICHI_SITE A "$EXE" : -n 2 -env MICHI_SITE B "$EXE"
logged "sites: 2, given"
logged "site 0 'A': ranks 0-1"
logged "site 1 'B': ranks 2-3"
run b,a,a,b,c "$MPIRUN" -n 1 -env MICHI_SITE B "$EXE" : -n 2 -env MICHI_SITE A "$EXE" : \
	-n 1 -env MICHI_SITE B "$EXE" : -n 1 -env MICHI_SITE C "$EXE"
logged "site 0 'B': ranks 0,3"
logged "site 2 'C': ranks 4"

# per rank, through a wrapper that reads the rank PMI gives it
cat >"$WORK/wrap" <<EOW
#!/bin/sh
MICHI_SITE=s\$((PMI_RANK % 3)) exec "$EXE"
EOW
chmod +x "$WORK/wrap"
run x,y,z,x,y,z "$MPIRUN" -n 6 "$WORK/wrap"
logged "site 1 's1': ranks 1,4"

# a hostfile's site=, over -genv MICHI_SITE; hosts by name only here
cat >"$WORK/hosts" <<EOH
# two sites, one host of X after Y's
h1 slots=2 site=X
h2:2   site=Y   # comment
h3 site=X slots=1
EOH
run x,x,y,y,x "$MPIRUN" --launcher fork --hostfile "$WORK/hosts" -n 5 -genv MICHI_SITE Z "$EXE"
logged "site 0 'X': ranks 0-1,4"
logged "site 1 'Y': ranks 2-3"
# --host H[:N]@SITE, round robin
run p,q,p,q "$MPIRUN" --launcher fork --host h1:2@P,h2@Q --map-by node -n 4 "$EXE"
logged "site 1 'Q': ranks 1,3"

# one site named by all: one site, and no inference
run "" "$MPIRUN" --launcher fork --host h1@S,h2@S,h3@S -n 3 "$EXE"
logged "sites: one site"
! grep -q "site inference" "$WORK/err" || fail "inference despite sites: $(cat "$WORK/err")"
# some ranks without a site: they share one, with a warning
run a,a,n,n "$MPIRUN" -n 2 -env MICHI_SITE A "$EXE" : -n 2 "$EXE"
logged "2 of 4 ranks have no site"
logged "site 1 '-': ranks 2-3"

# no site on three hosts of one kernel: the inference runs and, from the
# kernel's round trips over loopback (no gap, all far below a
# millisecond however loaded the machine), finds one site
run "" "$MPIRUN" --launcher fork --host h1,h2,h3 -n 6 "$EXE"
logged "site inference: 3 hosts measured"
logged "no clear gap, one site"
run "" "$MPIRUN" --launcher fork --host h1,h2,h3 -n 3 -genv MICHI_SITE_INFER 0 "$EXE"
! grep -q "site inference" "$WORK/err" || fail "MICHI_SITE_INFER=0 measured: $(cat "$WORK/err")"
# one host: nothing measured
run "" "$MPIRUN" -n 3 "$EXE"
! grep -q "site inference" "$WORK/err" || fail "one host measured: $(cat "$WORK/err")"

# errors: a host with a site beside one without, bad names
expect_fail() {
	msg=$1
	shift
	if timeout 60 "$@" >"$WORK/out" 2>"$WORK/err"; then
		fail "$*: succeeded"
	fi
	grep -qF "$msg" "$WORK/err" || fail "$*: no \"$msg\" in: $(cat "$WORK/err")"
}
expect_fail "host h1 has site P but host h2 has none" \
	"$MPIRUN" --launcher fork --host h1@P,h2 -n 2 "$EXE"
expect_fail "bad site in host list" "$MPIRUN" --launcher fork --host "h1@a=b" -n 1 "$EXE"
printf 'h1 site=A site=B\n' >"$WORK/hosts2"
expect_fail "hostfile $WORK/hosts2 line 1" "$MPIRUN" --launcher fork --hostfile "$WORK/hosts2" \
	-n 1 "$EXE"
expect_fail "MICHI_SITE 'a|b' is not a site name" "$MPIRUN" -n 2 -env MICHI_SITE 'a|b' "$EXE"

# MPICH's mpiexec (Hydra, PMI-1): MICHI_SITE per executable section
HYDRA=${MPIEXEC_MPICH:-$(command -v mpiexec.mpich || true)}
if [ -n "$HYDRA" ] && [ -x "$HYDRA" ]; then
	run a,b,b "$HYDRA" -n 1 -env MICHI_SITE A "$EXE" : -n 2 -env MICHI_SITE B "$EXE"
	logged "site 1 'B': ranks 1-2"
fi
gone "$WORK/" 20 || fail "processes left"
exit 0
