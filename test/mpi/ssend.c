/* SPDX-License-Identifier: MIT */
/*
 * Synchronous mode: Ssend may only return once the receive has started to
 * match, and an Issend request may not complete earlier. Rank 1 posts its
 * receive about 0.3 s after a message barrier that rank 0 left first, so
 * rank 0's Ssend must take at least ~0.25 s, and Issend's Test must stay
 * false for 0.2 s while rank 1 sleeps 0.6 s. Checked for a small and a large message.
 */
#include "mtest.h"

#define DELAY 0.3
#define MIN_WAIT 0.25
/* Issend polls for POLL_WINDOW while rank 1 sleeps ISSEND_DELAY; the gap
 * absorbs rank 0 being descheduled between the barrier and Issend. */
#define ISSEND_DELAY 0.6
#define POLL_WINDOW 0.2
#define LARGE (1 << 20)

static void ssend_blocks(int n)
{
	unsigned char *buf = mtest_malloc(n);
	double t0, dt;

	mtest_barrier(MPI_COMM_WORLD);
	if (mtest_rank == 0) {
		mtest_fill(buf, n, (unsigned)n);
		t0 = MPI_Wtime();
		MPI_Ssend(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
		dt = MPI_Wtime() - t0;
		mtest_check(dt >= MIN_WAIT, "Ssend of %d B returned after %.3f s, "
			    "before the receive was posted (%.1f s)", n, dt,
			    DELAY);
	} else if (mtest_rank == 1) {
		mtest_sleep(DELAY);
		MPI_Recv(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		mtest_check(mtest_verify(buf, n, (unsigned)n) < 0,
			    "Ssend %d B: wrong data", n);
	}
	free(buf);
}

static void issend_pending(int n)
{
	unsigned char *buf = mtest_malloc(n);
	MPI_Request req;
	int flag = 0, polls = 0;
	double t0;

	mtest_barrier(MPI_COMM_WORLD);
	if (mtest_rank == 0) {
		mtest_fill(buf, n, (unsigned)n + 1);
		MPI_Issend(buf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req);
		t0 = MPI_Wtime();
		/* Rank 1 sleeps from after our barrier exit. */
		while (MPI_Wtime() - t0 < POLL_WINDOW) {
			MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
			polls++;
			if (flag)
				break;
		}
		mtest_check(!flag, "Issend of %d B completed after %.3f s, "
			    "before the receive was posted", n,
			    MPI_Wtime() - t0);
		if (!flag)
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		mtest_check(polls > 0, "no Test call made");
	} else if (mtest_rank == 1) {
		mtest_sleep(ISSEND_DELAY);
		MPI_Recv(buf, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		mtest_check(mtest_verify(buf, n, (unsigned)n + 1) < 0,
			    "Issend %d B: wrong data", n);
	}
	free(buf);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	if (mtest_size < 2) {
		mtest_check(0, "ssend needs at least 2 ranks");
		return mtest_finalize();
	}
	ssend_blocks(8);
	ssend_blocks(0);
	ssend_blocks(LARGE);
	issend_pending(8);
	issend_pending(LARGE);
	return mtest_finalize();
}
