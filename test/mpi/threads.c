/* SPDX-License-Identifier: MIT */
/*
 * MPI_THREAD_MULTIPLE in use: on two ranks, several threads each run their
 * own ping-pong with the same-numbered thread on the peer, on a tag of
 * their own, all at once, with small and large messages. Each thread
 * checks its data; only the main thread calls mtest_finalize. Skips (77)
 * when the library provides less than MPI_THREAD_MULTIPLE.
 */
#include "mtest.h"
#include <pthread.h>

#define NTHREADS 4
#define ROUNDS 200
#define LARGE (128 * 1024)

static int thread_errors[NTHREADS];

static void *pingpong(void *arg)
{
	int t = (int)(intptr_t)arg, peer = 1 - mtest_rank, r, n;
	unsigned char *buf = malloc(LARGE);
	MPI_Status st;
	int count;

	if (!buf) {
		thread_errors[t]++;
		return NULL;
	}
	for (r = 0; r < ROUNDS; r++) {
		n = r % 10 == 9 ? LARGE : 8 + r;
		if (mtest_rank == 0) {
			mtest_fill(buf, n, (unsigned)(t * 1000 + r));
			MPI_Send(buf, n, MPI_BYTE, peer, t, MPI_COMM_WORLD);
			MPI_Recv(buf, n, MPI_BYTE, peer, t, MPI_COMM_WORLD, &st);
		} else {
			MPI_Recv(buf, n, MPI_BYTE, peer, t, MPI_COMM_WORLD, &st);
			MPI_Send(buf, n, MPI_BYTE, peer, t, MPI_COMM_WORLD);
		}
		MPI_Get_count(&st, MPI_BYTE, &count);
		if (count != n || st.MPI_TAG != t ||
		    mtest_verify(buf, n, (unsigned)(t * 1000 + r)) >= 0) {
			/* mtest_error is not thread-safe; count here. */
			thread_errors[t]++;
			break;
		}
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	int provided = -1, t;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	mtest_init_done();
	if (provided < MPI_THREAD_MULTIPLE)
		mtest_skip("MPI_THREAD_MULTIPLE not provided");
	if (mtest_size < 2) {
		mtest_check(0, "threads needs at least 2 ranks");
		return mtest_finalize();
	}
	if (mtest_rank < 2) {
		for (t = 0; t < NTHREADS; t++)
			if (pthread_create(&th[t], NULL, pingpong,
					   (void *)(intptr_t)t)) {
				mtest_error("pthread_create failed");
				thread_errors[t] = -1;
			}
		for (t = 0; t < NTHREADS; t++) {
			if (thread_errors[t] < 0)
				continue;
			pthread_join(th[t], NULL);
			mtest_check(!thread_errors[t], "thread %d: wrong message",
				    t);
		}
	}
	return mtest_finalize();
}
