/* SPDX-License-Identifier: MIT */
/*
 * Sendrecv and Sendrecv_replace: a ring shift in both directions at once
 * (which would deadlock with blocking Send then Recv on rendezvous-sized
 * messages), with sizes from 0 bytes to 1 MiB, statuses and data checked.
 * Sendrecv_replace must leave exactly the received message in the buffer.
 */
#include "mtest.h"

static const int sizes[] = { 0, 1, 17, 4096, 65536, 200003, 1 << 20 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))

static unsigned seed_of(int src, int k, int salt)
{
	return (unsigned)(src * 31 + k * 1009 + salt);
}

static void shift(int k)
{
	int n = sizes[k], count, rank = mtest_rank, size = mtest_size;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	unsigned char *sbuf = mtest_malloc(n), *rbuf = mtest_malloc(n);
	MPI_Status st;

	mtest_fill(sbuf, n, seed_of(rank, k, 0));
	memset(rbuf, 0, n);
	MPI_Sendrecv(sbuf, n, MPI_BYTE, next, k, rbuf, n, MPI_BYTE, prev, k,
		     MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_BYTE, &count);
	mtest_check(st.MPI_SOURCE == prev && st.MPI_TAG == k && count == n,
		    "Sendrecv %d B: status %d/%d/%d", n, st.MPI_SOURCE,
		    st.MPI_TAG, count);
	mtest_check(mtest_verify(rbuf, n, seed_of(prev, k, 0)) < 0,
		    "Sendrecv %d B: wrong data", n);

	/* Other direction, in place, with a wildcard source. */
	mtest_fill(sbuf, n, seed_of(rank, k, 1));
	MPI_Sendrecv_replace(sbuf, n, MPI_BYTE, prev, 100 + k, MPI_ANY_SOURCE,
			     100 + k, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_BYTE, &count);
	mtest_check(st.MPI_SOURCE == next && st.MPI_TAG == 100 + k && count == n,
		    "Sendrecv_replace %d B: status %d/%d/%d", n, st.MPI_SOURCE,
		    st.MPI_TAG, count);
	mtest_check(mtest_verify(sbuf, n, seed_of(next, k, 1)) < 0,
		    "Sendrecv_replace %d B: wrong data", n);
	free(rbuf);
	free(sbuf);
}

/*
 * Different send and receive counts and types in one call, receiving once
 * with MPI_ANY_SOURCE and once with MPI_ANY_TAG. Not both at once: the
 * helpers' final messages from rank 0 could match a double wildcard.
 */
static void asymmetric(int any_source)
{
	int rank = mtest_rank, size = mtest_size;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	double out[3] = { rank + 0.25, rank + 0.5, rank + 0.75 }, in[5] = { 0 };
	int count;
	MPI_Status st;

	MPI_Sendrecv(out, 3, MPI_DOUBLE, next, 7, in, 5, MPI_DOUBLE,
		     any_source ? MPI_ANY_SOURCE : prev,
		     any_source ? 7 : MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_DOUBLE, &count);
	mtest_check(count == 3 && st.MPI_SOURCE == prev && st.MPI_TAG == 7,
		    "asymmetric: status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG,
		    count);
	mtest_check(in[0] == prev + 0.25 && in[2] == prev + 0.75 && in[3] == 0,
		    "asymmetric: data %g %g %g %g", in[0], in[1], in[2], in[3]);
}

int main(int argc, char **argv)
{
	int k, rep;

	mtest_init(&argc, &argv);
	for (rep = 0; rep < 3; rep++)
		for (k = 0; k < NSIZES; k++)
			shift(k);
	asymmetric(1);
	asymmetric(0);
	return mtest_finalize();
}
