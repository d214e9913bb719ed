/* SPDX-License-Identifier: MIT */
/*
 * Every rank exchanges messages with every rank (itself included) at the
 * same time using Irecv/Isend and one Waitall, in several sizes so both
 * small and large messages are in flight between all pairs at once. The
 * payload carries the (source, destination, size) triple in its pattern,
 * so a message delivered to the wrong receive buffer is detected.
 */
#include "mtest.h"

static const size_t sizes[] = { 0, 1, 100, 4096, 70000, 1 << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static unsigned seed_of(int src, int dst, size_t k)
{
	return (unsigned)(src * 7919 + dst * 104729 + k * 13);
}

static void exchange(size_t k)
{
	int size = mtest_size, rank = mtest_rank, i, count;
	size_t n = sizes[k];
	unsigned char *sbuf = mtest_malloc(n * size), *rbuf = mtest_malloc(n * size);
	MPI_Request *reqs = mtest_malloc(sizeof(*reqs) * 2 * size);
	MPI_Status *st = mtest_malloc(sizeof(*st) * 2 * size);
	long bad;

	memset(rbuf, 0xee, n * size);
	for (i = 0; i < size; i++) {
		mtest_fill(sbuf + n * i, n, seed_of(rank, i, k));
		MPI_Irecv(rbuf + n * i, (int)n, MPI_BYTE, i, (int)k,
			  MPI_COMM_WORLD, &reqs[i]);
	}
	/* Start with the next rank so not everybody hits rank 0 first. */
	for (i = 0; i < size; i++) {
		int dst = (rank + 1 + i) % size;

		MPI_Isend(sbuf + n * dst, (int)n, MPI_BYTE, dst, (int)k,
			  MPI_COMM_WORLD, &reqs[size + i]);
	}
	MPI_Waitall(2 * size, reqs, st);
	for (i = 0; i < size; i++) {
		MPI_Get_count(&st[i], MPI_BYTE, &count);
		mtest_check(st[i].MPI_SOURCE == i && st[i].MPI_TAG == (int)k &&
			    count == (int)n,
			    "size %zu from %d: status source %d tag %d count %d",
			    n, i, st[i].MPI_SOURCE, st[i].MPI_TAG, count);
		bad = mtest_verify(rbuf + n * i, n, seed_of(i, rank, k));
		mtest_check(bad < 0, "size %zu from %d: wrong byte at %ld", n,
			    i, bad);
	}
	for (i = 0; i < 2 * size; i++)
		mtest_check(reqs[i] == MPI_REQUEST_NULL,
			    "request %d not MPI_REQUEST_NULL after Waitall", i);
	free(st);
	free(reqs);
	free(rbuf);
	free(sbuf);
}

int main(int argc, char **argv)
{
	size_t k;
	int iter;

	mtest_init(&argc, &argv);
	for (iter = 0; iter < 3; iter++)
		for (k = 0; k < NSIZES; k++)
			exchange(k);
	return mtest_finalize();
}
