/* SPDX-License-Identifier: MIT */
/*
 * MPI_Abort from one rank ends the whole job: rank 1 calls
 * MPI_Abort(MPI_COMM_WORLD, 17) while every other rank blocks in a receive
 * that nothing will match. The launcher must return 17 (the testlist says
 * expect-exit=17) and no rank may be left behind. What rank 1 printed
 * just before aborting must not be lost in its stdio buffer (the testlist
 * looks for it). Reaching the end of main on any rank is a failure,
 * reported with exit code 1.
 */
#include "mtest.h"

int main(int argc, char **argv)
{
	int v;

	mtest_init(&argc, &argv);
	if (mtest_size < 2) {
		printf("abort needs at least 2 ranks\n");
		MPI_Finalize();
		return 1;
	}
	if (mtest_rank == 1) {
		/* Let the others reach their receive first. */
		mtest_sleep(0.2);
		printf("rank 1: printed-before-abort\n");   /* stdout is a pipe: buffered */
		MPI_Abort(MPI_COMM_WORLD, 17);
		printf("rank 1: MPI_Abort returned\n");
		return 1;
	}
	MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	printf("rank %d: receive completed, but nothing was sent\n", mtest_rank);
	return 1;
}
