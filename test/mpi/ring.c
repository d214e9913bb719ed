/* SPDX-License-Identifier: MIT */
/*
 * Passes a token around all ranks of MPI_COMM_WORLD several times with
 * blocking Send/Recv, each rank adding its rank number, and checks the sum
 * and the status fields on every hop. Also sends a message in the other
 * direction in the same round, so both neighbours of every rank carry
 * traffic at once. With one rank the ring is a send to self, which must
 * not deadlock with Isend before Recv.
 */
#include "mtest.h"

#define ROUNDS 50
#define TAG_CW 1
#define TAG_CCW 2

static void ring_self(void)
{
	MPI_Request req;
	MPI_Status st;
	long v = 42, got = 0;
	int count;

	MPI_Isend(&v, 1, MPI_LONG, 0, TAG_CW, MPI_COMM_WORLD, &req);
	MPI_Recv(&got, 1, MPI_LONG, 0, TAG_CW, MPI_COMM_WORLD, &st);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Get_count(&st, MPI_LONG, &count);
	mtest_check(got == 42 && count == 1 && st.MPI_SOURCE == 0 &&
		    st.MPI_TAG == TAG_CW,
		    "self ring: got %ld count %d source %d tag %d", got, count,
		    st.MPI_SOURCE, st.MPI_TAG);
}

/* One round: the token starts at rank 0, goes up the ring and returns;
 * each rank checks what it received before adding its own rank. */
static void ring_round(int round)
{
	int rank = mtest_rank, size = mtest_size;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	long token, expect;
	MPI_Status st;

	if (rank == 0) {
		token = round * 1000L;
		MPI_Send(&token, 1, MPI_LONG, next, TAG_CW, MPI_COMM_WORLD);
		MPI_Recv(&token, 1, MPI_LONG, prev, TAG_CW, MPI_COMM_WORLD, &st);
		expect = round * 1000L + (long)size * (size - 1) / 2;
	} else {
		MPI_Recv(&token, 1, MPI_LONG, prev, TAG_CW, MPI_COMM_WORLD, &st);
		expect = round * 1000L + (long)rank * (rank - 1) / 2;
		MPI_Send(&(long){ token + rank }, 1, MPI_LONG, next, TAG_CW,
			 MPI_COMM_WORLD);
	}
	mtest_check(token == expect, "round %d: token %ld, expected %ld",
		    round, token, expect);
	mtest_check(st.MPI_SOURCE == prev && st.MPI_TAG == TAG_CW,
		    "round %d: status source %d tag %d, expected %d/%d", round,
		    st.MPI_SOURCE, st.MPI_TAG, prev, TAG_CW);
}

/* Every rank sends to its left neighbour and receives from the right at
 * once; Irecv first so the exchange cannot deadlock. */
static void ring_shift(int round)
{
	int rank = mtest_rank, size = mtest_size;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int out[4], in[4] = { -1, -1, -1, -1 }, i;
	MPI_Request req;
	MPI_Status st;

	for (i = 0; i < 4; i++)
		out[i] = rank * 100 + round + i;
	MPI_Irecv(in, 4, MPI_INT, next, TAG_CCW, MPI_COMM_WORLD, &req);
	MPI_Send(out, 4, MPI_INT, prev, TAG_CCW, MPI_COMM_WORLD);
	MPI_Wait(&req, &st);
	for (i = 0; i < 4; i++)
		if (!mtest_check(in[i] == next * 100 + round + i,
				 "shift round %d: in[%d]=%d expected %d", round,
				 i, in[i], next * 100 + round + i))
			break;
	mtest_check(st.MPI_SOURCE == next && st.MPI_TAG == TAG_CCW,
		    "shift round %d: status source %d tag %d", round,
		    st.MPI_SOURCE, st.MPI_TAG);
}

int main(int argc, char **argv)
{
	int round;

	mtest_init(&argc, &argv);
	if (mtest_size == 1) {
		ring_self();
	} else {
		for (round = 0; round < ROUNDS; round++) {
			ring_round(round);
			ring_shift(round);
		}
	}
	return mtest_finalize();
}
