/* SPDX-License-Identifier: MIT */
/*
 * A rank may compute for a long time before its first MPI call after
 * MPI_Init: its peers' first messages must wait for it, however long,
 * and a small standard send to it completes without waiting. Rank 1
 * sleeps longer than the tcp handshake timeout (5 s) before receiving;
 * rank 0 sends at once, then both exchange once more.
 */
#include "mtest.h"

#include <unistd.h>

int main(int argc, char **argv)
{
	const char *dev = getenv("MICHI_DEVICE");
	int x = 0, y = 0;
	double t;

	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		if (mtest_rank == 0)
			printf("lateaccept: needs 2 ranks\n");
		MPI_Finalize();
		return 77;
	}
	t = MPI_Wtime();
	if (mtest_rank == 0) {
		x = 42;
		MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
		/* eager: the send must not wait for the sleeping receiver
		 * (standard mode may block, but Michi buffers small frames;
		 * UCX 1.13 sets up a tcp connection only while the receiver
		 * progresses, as under MPICH's ch4:ucx) */
		if (getenv("MTEST_EXPECT_LIBRARY") == NULL && !(dev && !strcmp(dev, "ucx")) &&
		    MPI_Wtime() - t > 3.0)
			mtest_error("a 4-byte MPI_Send waited %.1f s for the receiver", MPI_Wtime() - t);
		MPI_Recv(&y, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mtest_check(y == 43, "reply %d, expected 43", y);
	} else {
		sleep(6);
		MPI_Recv(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mtest_check(x == 42, "got %d, expected 42", x);
		y = x + 1;
		MPI_Send(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
	}
	mtest_finalize();
	return 0;
}
