/* SPDX-License-Identifier: MIT */
/*
 * Singleton init: the program is started directly, without mpirun, and
 * must come up as a world of one process in which messages to itself work
 * (eager and large, blocking receive against a nonblocking send), and
 * MPI_ANY_SOURCE matches rank 0.
 */
#include "mtest.h"

#define LARGE (1 << 20)

int main(int argc, char **argv)
{
	unsigned char *sbuf, *rbuf;
	MPI_Request req;
	MPI_Status st;
	int n, count;

	mtest_init(&argc, &argv);
	mtest_check(mtest_size == 1 && mtest_rank == 0,
		    "singleton: rank %d of %d, expected 0 of 1", mtest_rank,
		    mtest_size);
	sbuf = mtest_malloc(LARGE);
	rbuf = mtest_malloc(LARGE);
	for (n = 0; n <= LARGE; n = n ? n * 4 : 1) {
		mtest_fill(sbuf, n, (unsigned)n);
		memset(rbuf, 0, n);
		MPI_Isend(sbuf, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &req);
		MPI_Recv(rbuf, n, MPI_BYTE, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD,
			 &st);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Get_count(&st, MPI_BYTE, &count);
		mtest_check(count == n && st.MPI_SOURCE == 0 && st.MPI_TAG == 3,
			    "self %d B: status %d/%d/%d", n, st.MPI_SOURCE,
			    st.MPI_TAG, count);
		mtest_check(mtest_verify(rbuf, n, (unsigned)n) < 0,
			    "self %d B: wrong data", n);
	}
	free(rbuf);
	free(sbuf);
	return mtest_finalize();
}
