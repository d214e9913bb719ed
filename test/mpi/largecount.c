/* SPDX-License-Identifier: MIT */
/*
 * The MPI-4 large-count point-to-point forms (MPI_Send_c, MPI_Recv_c,
 * MPI_Isend_c, MPI_Irecv_c, MPI_Ssend_c, MPI_Get_count_c,
 * MPI_Get_elements_c, MPI_Type_size_c) move the same data as the int
 * forms; counts are MPI_Count.
 */
#include "mtest.h"

#define N 100000

int main(int argc, char **argv)
{
	static double a[N], b[N];
	MPI_Count cnt = -1, size = -1;
	MPI_Request req;
	MPI_Status st;
	int i, other;

	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		if (mtest_rank == 0)
			printf("largecount: needs 2 ranks\n");
		MPI_Finalize();
		return 77;
	}
	other = 1 - mtest_rank;
	MPI_Type_size_c(MPI_DOUBLE, &size);
	mtest_check(size == sizeof(double), "Type_size_c(MPI_DOUBLE) = %lld", (long long)size);
	for (i = 0; i < N; i++)
		a[i] = mtest_rank * 1e6 + i;
	if (mtest_rank == 0) {
		MPI_Send_c(a, (MPI_Count)N, MPI_DOUBLE, other, 1, MPI_COMM_WORLD);
		MPI_Ssend_c(a, (MPI_Count)10, MPI_DOUBLE, other, 2, MPI_COMM_WORLD);
		MPI_Irecv_c(b, (MPI_Count)N, MPI_DOUBLE, other, 3, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, &st);
	} else {
		MPI_Recv_c(b, (MPI_Count)N, MPI_DOUBLE, other, 1, MPI_COMM_WORLD, &st);
		MPI_Get_count_c(&st, MPI_DOUBLE, &cnt);
		mtest_check(cnt == N, "Get_count_c %lld, expected %d", (long long)cnt, N);
		MPI_Get_elements_c(&st, MPI_DOUBLE, &cnt);
		mtest_check(cnt == N, "Get_elements_c %lld, expected %d", (long long)cnt, N);
		for (i = 0; i < N; i++)
			if (!mtest_check(b[i] == i, "b[%d] = %g", i, b[i]))
				break;
		MPI_Recv_c(b, (MPI_Count)10, MPI_DOUBLE, other, 2, MPI_COMM_WORLD, &st);
		MPI_Isend_c(a, (MPI_Count)N, MPI_DOUBLE, other, 3, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}
	if (mtest_rank == 0)
		for (i = 0; i < N; i++)
			if (!mtest_check(b[i] == 1e6 + i, "b[%d] = %g", i, b[i]))
				break;
	mtest_finalize();
	return 0;
}
