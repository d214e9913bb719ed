/* SPDX-License-Identifier: MIT */
/*
 * Checks MPI's non-overtaking rule: many messages on one tag from rank 0
 * to rank 1, with sizes cycling from 0 bytes to over 1 MiB so that small
 * (eager) and large (rendezvous) messages interleave, sent with a mix of
 * Send and Isend and received with a mix of Recv, Irecv batches and
 * MPI_ANY_SOURCE, must be matched in the order they were sent. Also checks
 * that of two posted receives that both match, the first posted gets the
 * first message.
 */
#include "mtest.h"

#define NMSG 700
#define BATCH 16
#define TAG 5

static const int sizes[] = { 0, 8, 1000, 16384, 3, 65536, 262147, 12,
			     1048579, 100, 40000, 4 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
#define MAXSZ 1048579

static int size_of(int i)
{
	return sizes[i % NSIZES];
}

/* The first 4 bytes carry the sequence number when the message has room. */
static void fill_msg(unsigned char *buf, int i)
{
	int n = size_of(i);

	mtest_fill(buf, n, (unsigned)i);
	if (n >= 4)
		memcpy(buf, &i, 4);
}

static void check_msg(const unsigned char *buf, int i, MPI_Status *st)
{
	int n = size_of(i), count, seq;

	MPI_Get_count(st, MPI_BYTE, &count);
	if (!mtest_check(count == n, "message %d: count %d, expected %d "
			 "(overtaken?)", i, count, n))
		return;
	if (n < 4)
		return;
	memcpy(&seq, buf, 4);
	if (!mtest_check(seq == i, "message %d: carries sequence %d", i, seq))
		return;
	/* Compare past the header against the sender's pattern. */
	for (int k = 4; k < n; k++)
		if (!mtest_check(buf[k] == mtest_pattern(k, (unsigned)i),
				 "message %d: wrong byte at %d", i, k))
			break;
}

static void sender(void)
{
	unsigned char *bufs[BATCH];
	MPI_Request reqs[BATCH];
	int i, k, nreq = 0;

	for (k = 0; k < BATCH; k++)
		bufs[k] = mtest_malloc(MAXSZ);
	for (i = 0; i < NMSG; i++) {
		fill_msg(bufs[nreq], i);
		if (i % 3 == 0) {
			MPI_Send(bufs[nreq], size_of(i), MPI_BYTE, 1, TAG,
				 MPI_COMM_WORLD);
			continue;
		}
		MPI_Isend(bufs[nreq], size_of(i), MPI_BYTE, 1, TAG,
			  MPI_COMM_WORLD, &reqs[nreq]);
		if (++nreq == BATCH) {
			MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
			nreq = 0;
		}
	}
	MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
	for (k = 0; k < BATCH; k++)
		free(bufs[k]);
}

static void receiver(void)
{
	unsigned char *bufs[BATCH];
	MPI_Request reqs[BATCH];
	MPI_Status st[BATCH];
	int i = 0, k, n;

	for (k = 0; k < BATCH; k++)
		bufs[k] = mtest_malloc(MAXSZ);
	while (i < NMSG) {
		/* Alternate blocking receives and batches of posted ones. */
		if ((i / BATCH) % 2 == 0) {
			int src = i % 2 ? MPI_ANY_SOURCE : 0;

			MPI_Recv(bufs[0], MAXSZ, MPI_BYTE, src, TAG,
				 MPI_COMM_WORLD, &st[0]);
			check_msg(bufs[0], i, &st[0]);
			i++;
			continue;
		}
		n = NMSG - i < BATCH ? NMSG - i : BATCH;
		for (k = 0; k < n; k++)
			MPI_Irecv(bufs[k], MAXSZ, MPI_BYTE,
				  k % 2 ? MPI_ANY_SOURCE : 0, TAG,
				  MPI_COMM_WORLD, &reqs[k]);
		MPI_Waitall(n, reqs, st);
		for (k = 0; k < n; k++)
			check_msg(bufs[k], i + k, &st[k]);
		i += n;
	}
	for (k = 0; k < BATCH; k++)
		free(bufs[k]);
}

/* Two posted receives that both match: the earlier one gets the earlier
 * message, whatever their sizes. */
static void posted_order(void)
{
	int a = -1, b = -1, one = 1, two = 2;
	MPI_Request r[2];

	if (mtest_rank == 1) {
		MPI_Irecv(&a, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &r[0]);
		MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD,
			  &r[1]);
		MPI_Send(NULL, 0, MPI_BYTE, 0, 10, MPI_COMM_WORLD);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
		mtest_check(a == 1 && b == 2, "posted order: got %d then %d",
			    a, b);
	} else {
		MPI_Recv(NULL, 0, MPI_BYTE, 1, 10, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Send(&one, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
		MPI_Send(&two, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
	}
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		mtest_check(0, "order needs exactly 2 ranks");
		return mtest_finalize();
	}
	if (mtest_rank == 0)
		sender();
	else
		receiver();
	posted_order();
	return mtest_finalize();
}
