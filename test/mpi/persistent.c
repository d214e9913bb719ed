/* SPDX-License-Identifier: MIT */
/*
 * Persistent requests: Send_init, Ssend_init and Recv_init set up once and
 * started many times with Start and Startall, with the buffer contents
 * changed between starts (a persistent send must send what the buffer
 * holds at Start, not at init). An inactive persistent request completes at
 * once in Wait/Test with an empty status; Request_free releases it.
 */
#include "mtest.h"

#define ITERS 500
#define SMALL 16
#define LARGE (256 * 1024 + 5)

static void fill_iter(int *buf, int n, int iter, int salt)
{
	for (int i = 0; i < n; i++)
		buf[i] = iter * 7 + i + salt;
}

static int check_iter(const int *buf, int n, int iter, int salt)
{
	for (int i = 0; i < n; i++)
		if (buf[i] != iter * 7 + i + salt)
			return i;
	return -1;
}

/* Rank 0 sends a small and a large message per iteration, rank 1
 * receives them; Ssend_init on the large one. */
static void pingpong_persistent(void)
{
	int *small = mtest_malloc(SMALL * sizeof(int));
	int *large = mtest_malloc(LARGE * sizeof(int));
	int peer = 1 - mtest_rank, iter, bad, count;
	MPI_Request req[2];
	MPI_Status st[2];

	if (mtest_rank == 0) {
		MPI_Send_init(small, SMALL, MPI_INT, peer, 1, MPI_COMM_WORLD,
			      &req[0]);
		MPI_Ssend_init(large, LARGE, MPI_INT, peer, 2, MPI_COMM_WORLD,
			       &req[1]);
	} else {
		MPI_Recv_init(small, SMALL, MPI_INT, peer, 1, MPI_COMM_WORLD,
			      &req[0]);
		MPI_Recv_init(large, LARGE, MPI_INT, MPI_ANY_SOURCE, 2,
			      MPI_COMM_WORLD, &req[1]);
	}
	for (iter = 0; iter < ITERS; iter++) {
		if (mtest_rank == 0) {
			fill_iter(small, SMALL, iter, 0);
			fill_iter(large, LARGE, iter, 1);
		} else {
			memset(small, 0, SMALL * sizeof(int));
			memset(large, 0, LARGE * sizeof(int));
		}
		if (iter % 2) {
			MPI_Startall(2, req);
		} else {
			MPI_Start(&req[1]);
			MPI_Start(&req[0]);
		}
		MPI_Waitall(2, req, st);
		if (mtest_rank == 0)
			continue;
		bad = check_iter(small, SMALL, iter, 0);
		mtest_check(bad < 0, "iter %d small: word %d wrong", iter, bad);
		bad = check_iter(large, LARGE, iter, 1);
		mtest_check(bad < 0, "iter %d large: word %d wrong", iter, bad);
		MPI_Get_count(&st[1], MPI_INT, &count);
		mtest_check(st[1].MPI_SOURCE == 0 && st[1].MPI_TAG == 2 &&
			    count == LARGE, "iter %d: status %d/%d/%d", iter,
			    st[1].MPI_SOURCE, st[1].MPI_TAG, count);
	}
	for (int i = 0; i < 2; i++)
		mtest_check(req[i] != MPI_REQUEST_NULL,
			    "persistent request %d freed by Waitall", i);
	MPI_Request_free(&req[0]);
	MPI_Request_free(&req[1]);
	mtest_check(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL,
		    "Request_free did not reset the handles");
	free(large);
	free(small);
}

/* Waiting on an inactive persistent request returns at once with an empty
 * status and keeps the request. */
static void inactive(void)
{
	MPI_Request req;
	MPI_Status st;
	int buf = 0, flag = 0, count = -1;

	MPI_Recv_init(&buf, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, &req);
	st.MPI_SOURCE = 12345;
	st.MPI_TAG = 12345;
	MPI_Wait(&req, &st);
	MPI_Get_count(&st, MPI_INT, &count);
	mtest_check(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG &&
		    count == 0, "Wait on inactive request: status %d/%d/%d",
		    st.MPI_SOURCE, st.MPI_TAG, count);
	mtest_check(req != MPI_REQUEST_NULL, "Wait freed an inactive request");
	MPI_Test(&req, &flag, &st);
	mtest_check(flag, "Test on an inactive request: flag 0");
	MPI_Request_free(&req);
}

/* Both ranks run a persistent ring with Startall of a send and a receive,
 * the shape an iterative solver has. */
static void exchange_persistent(void)
{
	int next = (mtest_rank + 1) % mtest_size;
	int prev = (mtest_rank + mtest_size - 1) % mtest_size;
	int out[8], in[8], iter, bad;
	MPI_Request req[2];

	MPI_Recv_init(in, 8, MPI_INT, prev, 3, MPI_COMM_WORLD, &req[0]);
	MPI_Send_init(out, 8, MPI_INT, next, 3, MPI_COMM_WORLD, &req[1]);
	for (iter = 0; iter < ITERS; iter++) {
		fill_iter(out, 8, iter, mtest_rank);
		MPI_Startall(2, req);
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		bad = check_iter(in, 8, iter, prev);
		if (!mtest_check(bad < 0, "ring iter %d: word %d wrong", iter,
				 bad))
			break;
	}
	MPI_Request_free(&req[0]);
	MPI_Request_free(&req[1]);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	inactive();
	if (mtest_size >= 2) {
		if (mtest_rank < 2)
			pingpong_persistent();
		exchange_persistent();
	}
	return mtest_finalize();
}
