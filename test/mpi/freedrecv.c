/* SPDX-License-Identifier: MIT */
/*
 * MPI_Finalize completes receives freed while active: rank 1 posts a
 * rendezvous-sized and a small receive, frees both requests and
 * finalizes at once; rank 0 sends both a second later with blocking
 * MPI_Send, which returns only once rank 1 takes the large message, so
 * rank 1's MPI_Finalize must keep making progress until rank 0 is in
 * MPI_Finalize too (a fence without progress hung here). After
 * MPI_Finalize rank 1's buffers hold the data.
 */
#include "mtest.h"

#include <unistd.h>

#define N (1 << 22)

int main(int argc, char **argv)
{
	static unsigned char buf[N];
	char small[64];
	MPI_Request req[2];
	int i, bad = 0;

	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		if (mtest_rank == 0)
			printf("freedrecv: needs 2 ranks\n");
		MPI_Finalize();
		return 77;
	}
	mtest_barrier(MPI_COMM_WORLD);
	if (mtest_rank == 1) {
		MPI_Irecv(buf, N, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(small, sizeof(small), MPI_CHAR, 0, 8, MPI_COMM_WORLD, &req[1]);
		MPI_Request_free(&req[0]);
		MPI_Request_free(&req[1]);
		MPI_Finalize();
		for (i = 0; i < N; i++)
			bad += buf[i] != (unsigned char)(i * 7 + 3);
		for (i = 0; i < (int)sizeof(small); i++)
			bad += small[i] != 's';
		if (bad)
			printf("rank 1: error: %d bytes wrong after MPI_Finalize\n", bad);
		else
			printf(" No Errors\n");
		return bad ? 1 : 0;
	}
	for (i = 0; i < N; i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	memset(small, 's', sizeof(small));
	sleep(1);
	MPI_Send(buf, N, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
	MPI_Send(small, sizeof(small), MPI_CHAR, 1, 8, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
