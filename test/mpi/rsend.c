/* SPDX-License-Identifier: MIT */
/*
 * Ready mode: Rsend and Irsend are correct only when the receive is already
 * posted, so rank 1 posts its receives and then tells rank 0 with a
 * zero-byte message; only after that does rank 0 send in ready mode.
 * Small and large messages, data verified.
 */
#include "mtest.h"

static const int sizes[] = { 0, 1, 64, 4096, 100000, 1 << 20 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
#define TAG_READY 1

static void ready_round(int k, int nonblocking)
{
	int n = sizes[k], count;
	unsigned seed = (unsigned)(k * 2 + nonblocking);
	unsigned char *buf = mtest_malloc(n);
	MPI_Request req;
	MPI_Status st;

	if (mtest_rank == 1) {
		memset(buf, 0, n);
		MPI_Irecv(buf, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req);
		MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
		MPI_Wait(&req, &st);
		MPI_Get_count(&st, MPI_BYTE, &count);
		mtest_check(count == n && st.MPI_SOURCE == 0 && st.MPI_TAG == 2,
			    "%s %d B: status %d/%d/%d",
			    nonblocking ? "Irsend" : "Rsend", n, st.MPI_SOURCE,
			    st.MPI_TAG, count);
		mtest_check(mtest_verify(buf, n, seed) < 0, "%s %d B: wrong data",
			    nonblocking ? "Irsend" : "Rsend", n);
	} else if (mtest_rank == 0) {
		mtest_fill(buf, n, seed);
		MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_READY, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		if (nonblocking) {
			MPI_Irsend(buf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		} else {
			MPI_Rsend(buf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
		}
	}
	free(buf);
}

int main(int argc, char **argv)
{
	int k, rep;

	mtest_init(&argc, &argv);
	if (mtest_size < 2) {
		mtest_check(0, "rsend needs at least 2 ranks");
		return mtest_finalize();
	}
	for (rep = 0; rep < 10; rep++)
		for (k = 0; k < NSIZES; k++) {
			ready_round(k, 0);
			ready_round(k, 1);
		}
	return mtest_finalize();
}
