#!/bin/sh
# SPDX-License-Identifier: MIT
# The other direction of interoperability: a program built and linked by
# MPICH (mpicc.mpich, MPICH's own PMI client) runs under Michi's mpirun,
# and its MPI_Abort(17) ends the job with exit code 17.
. "$(dirname "$0")/common.sh"

MPICC=${MPICC_MPICH:-$(command -v mpicc.mpich)}
[ -n "$MPICC" ] && [ -x "$MPICC" ] || skip "mpicc.mpich (MPICH) is not installed"
cat >"$WORK/hello.c" <<'EOS'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
	int r, s, v, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &s);
	v = r + 1;
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("hello %d/%d sum=%d\n", r, s, sum);
	if (argc > 1 && r == 1)
		MPI_Abort(MPI_COMM_WORLD, 17);
	MPI_Finalize();
	return 0;
}
EOS
"$MPICC" -o "$WORK/${UNIQ}_mpich" "$WORK/hello.c" 2>"$WORK/err" || skip "mpicc.mpich cannot build: $(cat "$WORK/err")"
timeout 120 "$MPIRUN" -n 3 "$WORK/${UNIQ}_mpich" >"$WORK/out" 2>"$WORK/err"
rc=$?
# MPICH's network module may not work in this environment at all
if [ $rc -ne 0 ] && ! grep -q '^hello ' "$WORK/out"; then
	timeout 120 mpiexec.mpich -n 3 "$WORK/${UNIQ}_mpich" >/dev/null 2>&1 ||
		skip "MPICH programs fail here even under MPICH's own mpiexec"
	fail "MPICH program failed under mpirun ($rc): $(cat "$WORK/err")"
fi
[ $rc -eq 0 ] || fail "MPICH program exited $rc: $(cat "$WORK/err")"
[ "$(grep -c '^hello [0-2]/3 sum=6$' "$WORK/out")" -eq 3 ] || fail "wrong output: $(cat "$WORK/out")"
timeout 120 "$MPIRUN" -n 3 "$WORK/${UNIQ}_mpich" abort >/dev/null 2>"$WORK/err"
rc=$?
[ $rc -eq 17 ] || fail "MPI_Abort(17): expected 17, got $rc"
grep -q 'rank 1 .*abort with exit code 17' "$WORK/err" || fail "no abort line"
gone "$UNIQ" 20 || fail "processes left"
exit 0
