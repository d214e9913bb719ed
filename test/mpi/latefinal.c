/* SPDX-License-Identifier: MIT */
/*
 * MPI_Finalize delivers what the program left in flight: rank 0 starts a
 * rendezvous-sized Isend, frees the request and finalizes at once; rank 1
 * posts its receive two seconds later. The data must arrive intact and
 * both ranks must finalize cleanly (Finalize may block for the receiver).
 * A buffered send left pending at finalize must arrive too.
 */
#include "mtest.h"

#include <unistd.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
	static unsigned char buf[N];
	char small[64], bbuf[64 + MPI_BSEND_OVERHEAD];
	MPI_Request req;
	int i, bad = 0;

	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		if (mtest_rank == 0)
			printf("latefinal: needs 2 ranks\n");
		MPI_Finalize();
		return 77;
	}
	mtest_barrier(MPI_COMM_WORLD);
	if (mtest_rank == 0) {
		for (i = 0; i < N; i++)
			buf[i] = (unsigned char)(i * 7 + 3);
		memset(small, 'b', sizeof(small));
		MPI_Buffer_attach(bbuf, sizeof(bbuf));
		MPI_Bsend(small, sizeof(small), MPI_CHAR, 1, 8, MPI_COMM_WORLD);
		MPI_Isend(buf, N, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &req);
		MPI_Request_free(&req);
		/* no error counting across this rank's finalize: rank 1 reports */
		printf(" No Errors\n");
		fflush(stdout);
		MPI_Finalize();
		return 0;
	}
	sleep(2);
	MPI_Recv(small, sizeof(small), MPI_CHAR, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (i = 0; i < (int)sizeof(small); i++)
		bad += small[i] != 'b';
	MPI_Recv(buf, N, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (i = 0; i < N; i++)
		bad += buf[i] != (unsigned char)(i * 7 + 3);
	if (bad)
		printf("rank 1: error: %d bytes wrong\n", bad);
	MPI_Finalize();
	return bad ? 1 : 0;
}
