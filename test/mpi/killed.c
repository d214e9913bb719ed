/* SPDX-License-Identifier: MIT */
/*
 * A rank that dies: rank 2 of 4 kills itself with SIGKILL while the
 * others block in receives from it and from each other. The launcher must
 * notice, end the other ranks and exit non-zero quickly (the testlist says
 * expect-exit=nonzero max-seconds=5); no rank may hang.
 */
#include "mtest.h"
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int v;

	mtest_init(&argc, &argv);
	if (mtest_size < 3) {
		printf("killed needs at least 3 ranks\n");
		MPI_Finalize();
		return 1;
	}
	if (mtest_rank == 2) {
		mtest_sleep(0.2);
		raise(SIGKILL);
	}
	/* Rank 0 waits on the dead rank, the others on rank 0. */
	MPI_Recv(&v, 1, MPI_INT, mtest_rank == 0 ? 2 : 0, 1, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	printf("rank %d: receive completed, but nothing was sent\n", mtest_rank);
	MPI_Finalize();
	return 0;
}
