/* SPDX-License-Identifier: MIT */
/*
 * The progress thread of nonblocking collectives (mpi/env/async.c), run with
 * MICHI_ASYNC_PROGRESS=on. Rank 0 starts a large MPI_Iallreduce (and then
 * an MPI_Ibcast, an MPI_Ialltoall and an MPI_Comm_idup) and leaves MPI for
 * a while; the other ranks start theirs and wait. The schedules need rank
 * 0 after their start (it folds and forwards data, and takes messages
 * too large to send eagerly), so the others can all finish while rank 0
 * is away only if its thread runs them: each of them reads
 * CLOCK_MONOTONIC, which the ranks of one host share, when its wait
 * returns, and rank 0 checks that those times come before its return to
 * MPI. Results are checked too. Several collectives are in
 * flight at once in the second part; with MTEST_THREAD_MULTIPLE=1 the
 * program runs at MPI_THREAD_MULTIPLE and a thread of its own sends and
 * receives meanwhile. MPI_Init alone (the default) is the case where the
 * library turns its lock on and off around the background work.
 *
 * Without MICHI_ASYNC_PROGRESS=on (or on another MPI) only the results
 * are checked; MTEST_ASYNC_EXPECT=0 says the thread must not have run.
 */
#define _GNU_SOURCE
#include "mtest.h"

#include <pthread.h>
#include <time.h>

#define AWAY_S 0.3
#define NDBL (1 << 17)   /* 1 MiB of doubles */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Out of MPI for AWAY_S, sleeping: the core is free for the thread even
 * where ranks outnumber cores. */
static void away(void)
{
	double end = now() + AWAY_S;
	struct timespec ts = { 0, 5 * 1000 * 1000 };

	while (now() < end)
		nanosleep(&ts, NULL);
}

static int expect_async(void)
{
	const char *e = getenv("MTEST_ASYNC_EXPECT");
	const char *m = getenv("MICHI_ASYNC_PROGRESS");

	if (e)
		return atoi(e);
	return mtest_is_michi() && m && strcmp(m, "on") == 0;
}

/* Rank 0's return to MPI against when the others' waits returned. */
static void check_times(const char *what, double back, double done, int expect)
{
	double *all = NULL;
	int early = 0;

	/* without the thread only a reduction is sure to need rank 0 after
	 * its start: a device may buffer a whole broadcast or exchange */
	if (expect == 0 && strcmp(what, "MPI_Iallreduce") != 0)
		expect = -1;
	if (mtest_rank == 0)
		all = malloc(sizeof(double) * mtest_size);
	MPI_Gather(&done, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	if (mtest_rank != 0)
		return;
	for (int r = 1; r < mtest_size; r++) {
		early += all[r] < back;
		if (expect == 1 && all[r] >= back)
			mtest_error("%s: rank %d finished %.3f s after rank 0 came back to MPI: "
				    "nothing ran rank 0's part while it was away", what, r,
				    all[r] - back);
	}
	/* Without the thread some rank must wait for rank 0 (at least the
	 * one that hands it the result); others may not: a device that
	 * pulls a message from its sender's memory (UCX over shared
	 * memory) takes rank 0's first part without rank 0. */
	if (expect == 0 && early == mtest_size - 1)
		mtest_error("%s: every other rank finished before rank 0 came back to MPI, "
			    "with no progress thread", what);
	free(all);
}

static void test_allreduce(int expect)
{
	double *in = malloc(sizeof(double) * NDBL), *out = malloc(sizeof(double) * NDBL);
	double back = 0, done = 0;
	MPI_Request req;

	for (int i = 0; i < NDBL; i++)
		in[i] = mtest_rank + 1 + (i % 7);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Iallreduce(in, out, NDBL, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
	if (mtest_rank == 0) {
		away();
		back = now();
	}
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	done = now();
	for (int i = 0, bad = 0; i < NDBL && bad < 3; i++) {
		double want = (double)mtest_size * (mtest_size + 1) / 2 + (double)mtest_size * (i % 7);

		if (out[i] != want) {
			mtest_error("allreduce: out[%d] = %g, expected %g", i, out[i], want);
			bad++;
		}
	}
	check_times("MPI_Iallreduce", back, done, expect);
	free(in);
	free(out);
}

static void test_bcast_alltoall_idup(int expect)
{
	int n = NDBL / 2, blk = NDBL / 8 / mtest_size + 1;
	double *b = malloc(sizeof(double) * n);
	int *s = malloc(sizeof(int) * blk * mtest_size), *r = malloc(sizeof(int) * blk * mtest_size);
	MPI_Request req[3];
	MPI_Comm dup;
	double back = 0, done;

	for (int i = 0; i < n; i++)
		b[i] = mtest_rank == 0 ? i * 0.5 : -1;
	for (int p = 0; p < mtest_size; p++)
		for (int i = 0; i < blk; i++)
			s[p * blk + i] = mtest_rank * 1000003 + p * 1009 + i;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Ibcast(b, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req[0]);
	MPI_Ialltoall(s, blk, MPI_INT, r, blk, MPI_INT, MPI_COMM_WORLD, &req[1]);
	MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req[2]);
	if (mtest_rank == 0) {
		away();
		back = now();
	}
	MPI_Waitall(3, req, MPI_STATUSES_IGNORE);
	done = now();
	for (int i = 0; i < n; i++)
		if (b[i] != i * 0.5) {
			mtest_error("bcast: b[%d] = %g, expected %g", i, b[i], i * 0.5);
			break;
		}
	for (int p = 0; p < mtest_size; p++)
		for (int i = 0; i < blk; i++)
			if (r[p * blk + i] != p * 1000003 + mtest_rank * 1009 + i) {
				mtest_error("alltoall: from %d [%d] = %d", p, i, r[p * blk + i]);
				p = mtest_size;
				break;
			}
	{
		int sum = 0, one = 1;

		MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
		if (sum != mtest_size)
			mtest_error("the idup'ed communicator sums %d, expected %d", sum, mtest_size);
		MPI_Comm_free(&dup);
	}
	/* rank 0 started the alltoall with the others; its own results can
	 * only come while it is away too when the thread ran the exchange */
	check_times("MPI_Ibcast+MPI_Ialltoall+MPI_Comm_idup", back, done, expect);
	free(b);
	free(s);
	free(r);
}

/* A program thread sends to and receives from its neighbours while the
 * main thread's Iallreduce runs in the background. */
struct pinger {
	int rounds, errors;
};

static void *pinger_main(void *arg)
{
	struct pinger *p = arg;
	int right = (mtest_rank + 1) % mtest_size, left = (mtest_rank + mtest_size - 1) % mtest_size;

	for (int i = 0; i < p->rounds; i++) {
		int out = mtest_rank * 100000 + i, in = -1;

		MPI_Sendrecv(&out, 1, MPI_INT, right, 7, &in, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		if (in != left * 100000 + i)
			p->errors++;
	}
	return NULL;
}

static void test_with_threads(int provided)
{
	double *in = malloc(sizeof(double) * NDBL), *out = malloc(sizeof(double) * NDBL);
	struct pinger p = { 200, 0 };
	pthread_t t;
	MPI_Request req;

	if (provided < MPI_THREAD_MULTIPLE) {
		free(in);
		free(out);
		return;
	}
	for (int i = 0; i < NDBL; i++)
		in[i] = i % 11;
	pthread_create(&t, NULL, pinger_main, &p);
	for (int k = 0; k < 3; k++) {
		MPI_Iallreduce(in, out, NDBL, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req);
		if (mtest_rank == k % mtest_size)
			away();
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		for (int i = 0; i < NDBL; i++)
			if (out[i] != i % 11) {
				mtest_error("allreduce max with a sending thread: out[%d] = %g", i,
					    out[i]);
				break;
			}
	}
	pthread_join(t, NULL);
	if (p.errors)
		mtest_error("the sending thread got %d wrong messages", p.errors);
	free(in);
	free(out);
}

int main(int argc, char **argv)
{
	const char *mt = getenv("MTEST_THREAD_MULTIPLE");
	int provided = MPI_THREAD_SINGLE, expect;

	if (mt && atoi(mt))
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	else
		MPI_Init(&argc, &argv);
	mtest_init_done();
	expect = mtest_size > 1 ? expect_async() : -1;
	test_allreduce(expect);
	test_bcast_alltoall_idup(expect);
	test_allreduce(expect);   /* the thread slept in between: woken again */
	test_with_threads(provided);
	return mtest_finalize();
}
