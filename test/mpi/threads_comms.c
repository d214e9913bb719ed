/* SPDX-License-Identifier: MIT */
/*
 * MPI_THREAD_MULTIPLE with four threads per rank, all of them busy at once
 * on communicators of their own and on MPI_COMM_WORLD:
 *  - each round, every thread duplicates its communicator (the context-id
 *    agreements of four threads overlap), then on the copy
 *  - sends a message round the ring with Irecv/Isend/Waitall, alternating
 *    eager and rendezvous sizes;
 *  - takes a message of unknown size and source with Probe, Get_count
 *    and Recv;
 *  - polls with Iprobe on MPI_COMM_WORLD for a tag only it uses and
 *    receives what it found with Mprobe/Mrecv;
 *  - checks an Allreduce and an Ssend/Recv pair, and frees the copy.
 * Each thread checks its data and counts its own errors; only the main
 * thread reports. Skips (77) below MPI_THREAD_MULTIPLE.
 */
#include "mtest.h"
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define NTHREADS 4
#define LARGE (96 * 1024)

static int rounds = 40;
static MPI_Comm base[NTHREADS];
static int errors[NTHREADS], not_main[NTHREADS];
static char why[NTHREADS][160];

#define FAIL(t, ...) do { \
	if (!errors[t]++) \
		snprintf(why[t], sizeof(why[t]), __VA_ARGS__); \
} while (0)

static unsigned seed_of(int t, int r, int src, int what)
{
	return (unsigned)(((t * 1000 + r) * 64 + src) * 8 + what);
}

static void ring_round(int t, int r, MPI_Comm comm, unsigned char *sbuf, unsigned char *rbuf)
{
	int rank, size, left, right, n = r % 4 == 3 ? LARGE : 1 + r * 13 % 2000;
	MPI_Request req[2];
	MPI_Status st[2];
	long bad;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	left = (rank + size - 1) % size;
	right = (rank + 1) % size;
	mtest_fill(sbuf, n, seed_of(t, r, rank, 0));
	MPI_Irecv(rbuf, n, MPI_BYTE, left, r, comm, &req[0]);
	MPI_Isend(sbuf, n, MPI_BYTE, right, r, comm, &req[1]);
	MPI_Waitall(2, req, st);
	if (st[0].MPI_SOURCE != left || st[0].MPI_TAG != r)
		FAIL(t, "round %d ring: source %d tag %d", r, st[0].MPI_SOURCE, st[0].MPI_TAG);
	else if ((bad = mtest_verify(rbuf, n, seed_of(t, r, left, 0))) >= 0)
		FAIL(t, "round %d ring: byte %ld of %d wrong", r, bad, n);
}

static void probe_round(int t, int r, MPI_Comm comm, unsigned char *sbuf, unsigned char *rbuf)
{
	int rank, size, right, n, count;
	MPI_Request sreq;
	MPI_Status st;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	right = (rank + 1) % size;
	n = 1 + (rank * 7 + r * 31) % (r % 5 == 4 ? LARGE : 3000);
	mtest_fill(sbuf, n, seed_of(t, r, rank, 1));
	MPI_Isend(sbuf, n, MPI_BYTE, right, 1000 + rank, comm, &sreq);
	MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
	MPI_Get_count(&st, MPI_BYTE, &count);
	if (st.MPI_TAG != 1000 + st.MPI_SOURCE || count < 1 || count > LARGE) {
		FAIL(t, "round %d probe: source %d tag %d count %d", r, st.MPI_SOURCE,
		     st.MPI_TAG, count);
		MPI_Recv(rbuf, LARGE, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comm, &st);
	} else {
		MPI_Recv(rbuf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE);
		if (mtest_verify(rbuf, count, seed_of(t, r, st.MPI_SOURCE, 1)) >= 0)
			FAIL(t, "round %d probe: data from %d wrong", r, st.MPI_SOURCE);
	}
	MPI_Wait(&sreq, MPI_STATUS_IGNORE);
}

/* On MPI_COMM_WORLD, which every thread uses: the tag keeps them apart. */
static void iprobe_round(int t, int r, unsigned char *sbuf, unsigned char *rbuf)
{
	int tag = 5000 + t, flag = 0, count = -1, polls;
	double t0;
	MPI_Request sreq;
	MPI_Message msg;
	MPI_Status st;
	int n = 1 + (t * 977 + r * 61) % (r % 6 == 5 ? LARGE : 5000);

	mtest_fill(sbuf, n, seed_of(t, r, mtest_rank, 2));
	MPI_Isend(sbuf, n, MPI_BYTE, (mtest_rank + 1) % mtest_size, tag, MPI_COMM_WORLD, &sreq);
	/* bounded: 30 s of polling at most */
	t0 = MPI_Wtime();
	for (polls = 0; !flag; polls++) {
		MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
		if (flag || MPI_Wtime() - t0 > 30)
			break;
		if (polls > 1000)
			usleep(10);
	}
	if (!flag) {
		FAIL(t, "round %d iprobe: nothing arrived", r);
		MPI_Cancel(&sreq);
		MPI_Wait(&sreq, MPI_STATUS_IGNORE);
		return;
	}
	MPI_Mprobe(st.MPI_SOURCE, tag, MPI_COMM_WORLD, &msg, &st);
	MPI_Get_count(&st, MPI_BYTE, &count);
	MPI_Mrecv(rbuf, LARGE, MPI_BYTE, &msg, &st);
	if (st.MPI_SOURCE != (mtest_rank + mtest_size - 1) % mtest_size || count != 1 +
	    (t * 977 + r * 61) % (r % 6 == 5 ? LARGE : 5000))
		FAIL(t, "round %d iprobe: source %d count %d", r, st.MPI_SOURCE, count);
	else if (mtest_verify(rbuf, count, seed_of(t, r, st.MPI_SOURCE, 2)) >= 0)
		FAIL(t, "round %d iprobe: data wrong", r);
	MPI_Wait(&sreq, MPI_STATUS_IGNORE);
}

static void coll_round(int t, int r, MPI_Comm comm)
{
	int rank, size, in, out = -1, v = -1;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	in = rank + t + r;
	MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm);
	if (out != size * (size - 1) / 2 + size * (t + r))
		FAIL(t, "round %d allreduce: %d", r, out);
	/* a synchronous pair: the sender waits for its receiver's match */
	if (size > 1) {
		if (rank == 0)
			MPI_Ssend(&in, 1, MPI_INT, 1, 7, comm);
		else if (rank == 1) {
			MPI_Recv(&v, 1, MPI_INT, 0, 7, comm, MPI_STATUS_IGNORE);
			if (v != t + r)
				FAIL(t, "round %d ssend: %d", r, v);
		}
	}
}

static void *worker(void *arg)
{
	int t = (int)(intptr_t)arg, r, is_main = 1;
	unsigned char *sbuf = malloc(LARGE), *rbuf = malloc(LARGE);
	MPI_Comm mine;

	MPI_Is_thread_main(&is_main);
	not_main[t] = !is_main;
	if (!sbuf || !rbuf) {
		FAIL(t, "out of memory");
		return NULL;
	}
	for (r = 0; r < rounds && !errors[t]; r++) {
		if (MPI_Comm_dup(base[t], &mine) != MPI_SUCCESS) {
			FAIL(t, "round %d: Comm_dup failed", r);
			break;
		}
		ring_round(t, r, mine, sbuf, rbuf);
		probe_round(t, r, mine, sbuf, rbuf);
		iprobe_round(t, r, sbuf, rbuf);
		coll_round(t, r, mine);
		MPI_Comm_free(&mine);
	}
	free(sbuf);
	free(rbuf);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[NTHREADS];
	int provided = -1, t, started[NTHREADS];
	const char *env = getenv("THREADS_COMMS_ROUNDS");

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	mtest_init_done();
	if (provided < MPI_THREAD_MULTIPLE)
		mtest_skip("MPI_THREAD_MULTIPLE not provided");
	if (env && atoi(env) > 0)
		rounds = atoi(env);
	for (t = 0; t < NTHREADS; t++)
		MPI_Comm_dup(MPI_COMM_WORLD, &base[t]);
	for (t = 0; t < NTHREADS; t++) {
		started[t] = !pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
		mtest_check(started[t], "pthread_create failed");
	}
	for (t = 0; t < NTHREADS; t++) {
		if (!started[t])
			continue;
		pthread_join(th[t], NULL);
		mtest_check(!errors[t], "thread %d: %d errors, first: %s", t, errors[t], why[t]);
		mtest_check(not_main[t], "thread %d: MPI_Is_thread_main says it is main", t);
	}
	for (t = 0; t < NTHREADS; t++)
		MPI_Comm_free(&base[t]);
	return mtest_finalize();
}
