/* SPDX-License-Identifier: MIT */
/*
 * User-defined reduction ops: MPI_Op_create with the commute flag,
 * MPI_Op_commutative, MPI_Op_free (predefined ops refuse), a commutative
 * op in MPI_Reduce_local, MPI_Reduce and MPI_Allreduce, and a
 * non-commutative one (2x2 matrix product, associative but not
 * commutative) whose result must be the product in rank order.
 */
#include "mtest.h"

static int calls;

static void op_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout, i;

	(void)dt;
	calls++;
	for (i = 0; i < *len; i++)
		b[i] += a[i];
}

/* inout = in x inout for 2x2 matrices stored as 4 ints (MPI: in op inout) */
static void op_matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	int *a = in, *b = inout, i;

	(void)dt;
	for (i = 0; i < *len; i += 4, a += 4, b += 4) {
		int c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
		int c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];

		b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
	}
}

static void mat_of(int r, int *m)
{
	/* invertible, distinct per rank, entries small enough for many ranks */
	m[0] = 1;
	m[1] = r % 3;
	m[2] = (r + 1) % 2;
	m[3] = 1 + (r % 2);
}

int main(int argc, char **argv)
{
	MPI_Op sum, mat, bad = MPI_SUM;
	int rank, size, commute, v[3], out[3], local[3] = { 1, 2, 3 }, i, err;
	int m[8], want[4], tmp[4], root;

	mtest_init(&argc, &argv);
	rank = mtest_rank;
	size = mtest_size;
	MPI_Op_create(op_sum, 1, &sum);
	MPI_Op_create(op_matmul, 0, &mat);
	MPI_Op_commutative(sum, &commute);
	mtest_check(commute == 1, "commutative op says %d", commute);
	MPI_Op_commutative(mat, &commute);
	mtest_check(commute == 0, "non-commutative op says %d", commute);

	v[0] = 10, v[1] = 20, v[2] = 30;
	MPI_Reduce_local(local, v, 3, MPI_INT, sum);
	mtest_check(v[0] == 11 && v[2] == 33 && calls > 0, "Reduce_local: %d %d", v[0], v[2]);
	for (i = 0; i < 3; i++)
		v[i] = rank * (i + 1);
	MPI_Allreduce(v, out, 3, MPI_INT, sum, MPI_COMM_WORLD);
	for (i = 0; i < 3; i++)
		mtest_check(out[i] == (i + 1) * size * (size - 1) / 2, "allreduce[%d] = %d", i, out[i]);
	root = size - 1;
	MPI_Reduce(v, out, 3, MPI_INT, sum, root, MPI_COMM_WORLD);
	if (rank == root)
		mtest_check(out[2] == 3 * size * (size - 1) / 2, "reduce: %d", out[2]);

	/* the ordered product M0 x M1 x ... x M(n-1), twice per rank */
	mat_of(0, want);
	for (i = 1; i < size; i++) {
		int b[4], c[4];

		mat_of(i, b);
		c[0] = want[0] * b[0] + want[1] * b[2];
		c[1] = want[0] * b[1] + want[1] * b[3];
		c[2] = want[2] * b[0] + want[3] * b[2];
		c[3] = want[2] * b[1] + want[3] * b[3];
		want[0] = c[0], want[1] = c[1], want[2] = c[2], want[3] = c[3];
	}
	mat_of(rank, m);
	mat_of(rank, m + 4);
	MPI_Allreduce(MPI_IN_PLACE, m, 8, MPI_INT, mat, MPI_COMM_WORLD);
	for (i = 0; i < 4; i++)
		mtest_check(m[i] == want[i] && m[4 + i] == want[i],
			    "ordered product [%d] = %d / %d, want %d", i, m[i], m[4 + i], want[i]);
	mat_of(rank, tmp);
	MPI_Reduce(tmp, m, 4, MPI_INT, mat, 0, MPI_COMM_WORLD);
	if (rank == 0)
		for (i = 0; i < 4; i++)
			mtest_check(m[i] == want[i], "reduce product [%d] = %d, want %d", i, m[i],
				    want[i]);

	MPI_Op_free(&sum);
	MPI_Op_free(&mat);
	mtest_check(sum == MPI_OP_NULL && mat == MPI_OP_NULL, "Op_free left handles set");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	err = MPI_Op_free(&bad);
	mtest_check(err != MPI_SUCCESS && bad == MPI_SUM, "freeing MPI_SUM was accepted");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	return mtest_finalize();
}
