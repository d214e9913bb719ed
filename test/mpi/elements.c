/* SPDX-License-Identifier: MIT */
/*
 * MPI_Get_count and MPI_Get_elements on predefined types: a pair type
 * (MPI_2INT, MPI_2DOUBLE_PRECISION, MPI_FLOAT_INT) counts two elements
 * per item, a basic type one; a byte count that is not a whole number of
 * items gives MPI_UNDEFINED from Get_count.
 */
#include "mtest.h"

static void check(MPI_Datatype dt, int n, int elems_per_item, const char *name)
{
	int buf[64] = { 0 }, count = -1, elems = -1, other = 1 - mtest_rank;
	MPI_Status st;

	if (mtest_rank == 0) {
		MPI_Send(buf, n, dt, other, 3, MPI_COMM_WORLD);
		return;
	}
	MPI_Recv(buf, n, dt, other, 3, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, dt, &count);
	MPI_Get_elements(&st, dt, &elems);
	mtest_check(count == n, "%s: Get_count %d, expected %d", name, count, n);
	mtest_check(elems == n * elems_per_item, "%s: Get_elements %d, expected %d", name,
		    elems, n * elems_per_item);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		if (mtest_rank == 0)
			printf("elements: needs 2 ranks\n");
		MPI_Finalize();
		return 77;
	}
	check(MPI_INT, 5, 1, "MPI_INT");
	check(MPI_2INT, 3, 2, "MPI_2INT");
	check(MPI_2DOUBLE_PRECISION, 2, 2, "MPI_2DOUBLE_PRECISION");
	check(MPI_FLOAT_INT, 4, 2, "MPI_FLOAT_INT");
	if (mtest_rank == 1) {
		MPI_Status st;
		int count = 0;

		/* 6 bytes are not a whole number of ints */
		MPI_Status_set_elements(&st, MPI_BYTE, 6);
		MPI_Get_count(&st, MPI_INT, &count);
		mtest_check(count == MPI_UNDEFINED, "Get_count of 6 bytes as MPI_INT: %d", count);
	}
	mtest_finalize();
	return 0;
}
