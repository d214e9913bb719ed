/* SPDX-License-Identifier: MIT */
/*
 * Sends messages of every power of two from 0 bytes to 64 MiB, plus odd
 * sizes around the usual protocol switch points, from rank 0 to rank 1
 * and back, with blocking Send/Recv and with Isend/Irecv. Every byte is
 * verified, the received count is checked, and the bytes just past the
 * message in the receive buffer must be left untouched.
 */
#include "mtest.h"

#define MAX_SIZE (64u << 20)
#define GUARD 64

static const size_t odd_sizes[] = { 1, 3, 7, 13, 255, 257, 1021, 4095, 4097,
				    8191, 8193, 12345, 16383, 16385, 65535,
				    65537, 131071, 131073, 262145, 1000003,
				    4194305, 33554431 };

static unsigned char *sbuf, *rbuf;

static void check_recv(size_t n, unsigned seed, MPI_Status *st, int src,
		       const char *how)
{
	int count;
	long bad;
	size_t i;

	MPI_Get_count(st, MPI_BYTE, &count);
	mtest_check(count == (int)n && st->MPI_SOURCE == src && st->MPI_TAG == 7,
		    "%s %zu B: count %d source %d tag %d", how, n, count,
		    st->MPI_SOURCE, st->MPI_TAG);
	bad = mtest_verify(rbuf, n, seed);
	mtest_check(bad < 0, "%s %zu B: wrong byte at offset %ld", how, n, bad);
	for (i = n; i < n + GUARD; i++)
		if (!mtest_check(rbuf[i] == 0xa5,
				 "%s %zu B: byte %zu past the message overwritten",
				 how, n, i))
			break;
}

/* Rank 0 sends, rank 1 checks and sends its own pattern back. */
static void pingpong(size_t n, int nonblocking)
{
	const char *how = nonblocking ? "isend/irecv" : "send/recv";
	int peer = 1 - mtest_rank;
	unsigned seed = (unsigned)n * 3 + (unsigned)nonblocking;
	MPI_Request rreq, sreq;
	MPI_Status st;
	int i;

	for (i = 0; i < 2; i++) {
		int sender = i;

		memset(rbuf, 0xa5, n + GUARD);
		if (mtest_rank == sender) {
			mtest_fill(sbuf, n, seed + i);
			if (nonblocking) {
				MPI_Isend(sbuf, (int)n, MPI_BYTE, peer, 7,
					  MPI_COMM_WORLD, &sreq);
				MPI_Wait(&sreq, MPI_STATUS_IGNORE);
			} else {
				MPI_Send(sbuf, (int)n, MPI_BYTE, peer, 7,
					 MPI_COMM_WORLD);
			}
		} else {
			/* A larger posted count than the message is legal. */
			if (nonblocking) {
				MPI_Irecv(rbuf, (int)n + GUARD, MPI_BYTE, peer,
					  7, MPI_COMM_WORLD, &rreq);
				MPI_Wait(&rreq, &st);
			} else {
				MPI_Recv(rbuf, (int)n + GUARD, MPI_BYTE, peer,
					 7, MPI_COMM_WORLD, &st);
			}
			/* Only the bytes of the message may be written. */
			check_recv(n, seed + i, &st, peer, how);
		}
	}
}

int main(int argc, char **argv)
{
	size_t n, k;
	int nb;

	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		if (mtest_rank == 0)
			printf("msgsizes needs exactly 2 ranks\n");
		mtest_errors++;
		return mtest_finalize();
	}
	sbuf = mtest_malloc(MAX_SIZE);
	rbuf = mtest_malloc(MAX_SIZE + GUARD);
	for (nb = 0; nb < 2; nb++) {
		pingpong(0, nb);
		for (n = 1; n <= MAX_SIZE; n *= 2)
			pingpong(n, nb);
		for (k = 0; k < sizeof(odd_sizes) / sizeof(odd_sizes[0]); k++)
			pingpong(odd_sizes[k], nb);
	}
	free(rbuf);
	free(sbuf);
	return mtest_finalize();
}
