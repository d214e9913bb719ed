/* SPDX-License-Identifier: MIT */
/*
 * MPI_Cancel in the cases where the standard fixes the outcome: a posted
 * receive that nothing can match is cancelled; a receive or a send whose
 * message is known to have been matched is not. A send that may still be
 * unmatched is allowed either outcome, so the test only checks that the
 * outcome is consistent: cancelled means the receiver never sees the
 * message, not cancelled means it arrives intact.
 */
#include "mtest.h"

#define TAG_SYNC 1
#define LARGE (1 << 20)

static void cancel_unmatched_recv(void)
{
	MPI_Request req;
	MPI_Status st;
	int buf, flag = 0;

	/* Tag 99 is never sent by anybody. */
	MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &req);
	MPI_Cancel(&req);
	MPI_Wait(&req, &st);
	MPI_Test_cancelled(&st, &flag);
	mtest_check(flag, "posted Irecv with no sender: not cancelled");
	mtest_check(req == MPI_REQUEST_NULL, "Wait left a non-null request");

	/* Cancelled with Test completing it instead of Wait. */
	MPI_Irecv(&buf, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &req);
	MPI_Cancel(&req);
	{
		double end = MPI_Wtime() + MTEST_WAIT_S;

		flag = 0;
		while (!flag && MPI_Wtime() < end)
			MPI_Test(&req, &flag, &st);
	}
	if (mtest_check(flag, "Test never completed a cancelled Irecv")) {
		MPI_Test_cancelled(&st, &flag);
		mtest_check(flag, "Irecv completed by Test: not cancelled");
	}
}

/* Rank 0's Irecv is matched (seen complete through Request_get_status,
 * which keeps the request) before it is cancelled. */
static void cancel_matched_recv(void)
{
	MPI_Request req;
	MPI_Status st;
	int buf = 0, flag = 0, v = 1234;

	if (mtest_rank == 0) {
		double end = MPI_Wtime() + MTEST_WAIT_S;

		MPI_Irecv(&buf, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &req);
		MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD);
		while (!flag && MPI_Wtime() < end)
			MPI_Request_get_status(req, &flag, &st);
		mtest_check(flag, "Irecv never completed");
		MPI_Cancel(&req);
		MPI_Wait(&req, &st);
		MPI_Test_cancelled(&st, &flag);
		mtest_check(!flag, "completed Irecv reported as cancelled");
		mtest_check(buf == 1234, "completed Irecv: data %d", buf);
	} else {
		MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
	}
}

/* The receiver confirms it got the message before the sender cancels:
 * the standard forbids a message being both received and cancelled. */
static void cancel_matched_send(int n)
{
	unsigned char *buf = mtest_malloc(n);
	MPI_Request req;
	MPI_Status st;
	int flag = 1;

	if (mtest_rank == 0) {
		mtest_fill(buf, n, 3);
		MPI_Isend(buf, n, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &req);
		MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Cancel(&req);
		MPI_Wait(&req, &st);
		MPI_Test_cancelled(&st, &flag);
		mtest_check(!flag, "send of %d B received by peer, yet cancelled",
			    n);
	} else {
		MPI_Recv(buf, n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st);
		mtest_check(mtest_verify(buf, n, 3) < 0,
			    "matched send %d B: wrong data", n);
		MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD);
	}
	free(buf);
}

/*
 * Either outcome is legal. Rank 1 posts a matching receive once the cancel
 * has been requested: some implementations only settle a send cancel when
 * the receiver takes part, and with the receive posted the send can always
 * complete. Rank 0 then reports the outcome, and rank 1's receive must
 * agree with it: a cancelled send leaves the receive unmatched, so
 * cancelling the receive must succeed.
 */
static void cancel_unmatched_send(int n)
{
	unsigned char *buf = mtest_malloc(n);
	MPI_Request req;
	MPI_Status st;
	int cancelled = 0, flag = 0;

	if (mtest_rank == 0) {
		mtest_fill(buf, n, 4);
		MPI_Isend(buf, n, MPI_BYTE, 1, 4, MPI_COMM_WORLD, &req);
		MPI_Cancel(&req);
		MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD);
		MPI_Wait(&req, &st);
		MPI_Test_cancelled(&st, &cancelled);
		MPI_Send(&cancelled, 1, MPI_INT, 1, TAG_SYNC, MPI_COMM_WORLD);
	} else {
		memset(buf, 0, n);
		MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Irecv(buf, n, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &req);
		MPI_Recv(&cancelled, 1, MPI_INT, 0, TAG_SYNC, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		if (cancelled) {
			MPI_Cancel(&req);
			MPI_Wait(&req, &st);
			MPI_Test_cancelled(&st, &flag);
			mtest_check(flag, "send of %d B was cancelled, yet the "
				    "receive for it matched something", n);
		} else {
			MPI_Wait(&req, &st);
			mtest_check(mtest_verify(buf, n, 4) < 0,
				    "uncancelled send %d B: wrong data", n);
		}
	}
	free(buf);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	cancel_unmatched_recv();
	if (mtest_size >= 2 && mtest_rank < 2) {
		cancel_matched_recv();
		cancel_matched_send(8);
		cancel_matched_send(LARGE);
		cancel_unmatched_send(8);
		cancel_unmatched_send(LARGE);
	}
	return mtest_finalize();
}
