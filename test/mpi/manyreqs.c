/* SPDX-License-Identifier: MIT */
/*
 * Thousands of outstanding requests: rank 0 starts many small Isends
 * before rank 1 has posted anything (a long unexpected-message queue),
 * then rank 1 posts as many receives on distinct tags in the reverse order
 * before the matching sends start (a long posted-receive queue that is
 * searched from the far end). Every message must land in the receive
 * with its tag, and all requests complete through Waitall.
 */
#include "mtest.h"

#define NREQ 4000
#define TAG_SYNC 30000

static void unexpected_queue(int *out, int *in, MPI_Request *reqs)
{
	int i;

	if (mtest_rank == 0) {
		for (i = 0; i < NREQ; i++) {
			out[i] = i * 3 + 1;
			MPI_Isend(&out[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD,
				  &reqs[i]);
		}
		MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD);
		MPI_Waitall(NREQ, reqs, MPI_STATUSES_IGNORE);
		return;
	}
	/* All sends are started (if not delivered) once this arrives. */
	MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	for (i = NREQ - 1; i >= 0; i--) {
		in[i] = -1;
		MPI_Irecv(&in[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &reqs[i]);
	}
	MPI_Waitall(NREQ, reqs, MPI_STATUSES_IGNORE);
	for (i = 0; i < NREQ; i++)
		if (!mtest_check(in[i] == i * 3 + 1,
				 "unexpected queue: tag %d got %d", i, in[i]))
			break;
}

static void posted_queue(int *out, int *in, MPI_Request *reqs)
{
	int i;

	if (mtest_rank == 1) {
		for (i = 0; i < NREQ; i++) {
			in[i] = -1;
			MPI_Irecv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, i,
				  MPI_COMM_WORLD, &reqs[i]);
		}
		MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD);
		MPI_Waitall(NREQ, reqs, MPI_STATUSES_IGNORE);
		for (i = 0; i < NREQ; i++)
			if (!mtest_check(in[i] == i * 5 + 2,
					 "posted queue: tag %d got %d", i, in[i]))
				break;
		return;
	}
	MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	/* Last posted first, so each match searches the whole queue. */
	for (i = NREQ - 1; i >= 0; i--) {
		out[i] = i * 5 + 2;
		MPI_Isend(&out[i], 1, MPI_INT, 1, i, MPI_COMM_WORLD, &reqs[i]);
	}
	MPI_Waitall(NREQ, reqs, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
	int *out, *in;
	MPI_Request *reqs;

	mtest_init(&argc, &argv);
	if (mtest_size < 2) {
		mtest_check(0, "manyreqs needs at least 2 ranks");
		return mtest_finalize();
	}
	out = mtest_malloc(NREQ * sizeof(int));
	in = mtest_malloc(NREQ * sizeof(int));
	reqs = mtest_malloc(NREQ * sizeof(MPI_Request));
	if (mtest_rank < 2) {
		unexpected_queue(out, in, reqs);
		posted_queue(out, in, reqs);
	}
	free(reqs);
	free(in);
	free(out);
	return mtest_finalize();
}
