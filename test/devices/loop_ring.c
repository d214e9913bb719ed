/* SPDX-License-Identifier: MIT */
/*
 * test/devices/loop_ring.c: the ring that test/devices/added_device.sh
 * runs over the device it adds. Every rank passes a buffer of each size
 * (eager and rendezvous, below and above a byte device's eager limit) to
 * its right neighbour and receives one from its left, ROUNDS times, and
 * checks every byte: the pattern names the sender, the round and the
 * size. Rank 0 prints the payload bytes each rank sent, which the script
 * compares with what the device counted.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 20

static const int sizes[] = { 8, 4096, 200000, 1 << 20 };

static unsigned char pat(size_t i, int src, int round, int size)
{
	return (unsigned char)(i * 31 + (size_t)src * 7 + (size_t)round * 13 + (size_t)size);
}

int main(int argc, char **argv)
{
	int rank, np, next, prev, r, k, bad = 0, allbad;
	unsigned char *sbuf, *rbuf;
	unsigned long long sent = 0;
	size_t i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	next = (rank + 1) % np;
	prev = (rank + np - 1) % np;
	sbuf = malloc(1 << 20);
	rbuf = malloc(1 << 20);
	if (!sbuf || !rbuf)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (r = 0; r < ROUNDS; r++) {
		for (k = 0; k < (int)(sizeof(sizes) / sizeof(sizes[0])); k++) {
			int n = sizes[k], count;
			MPI_Request req;
			MPI_Status st;

			for (i = 0; i < (size_t)n; i++)
				sbuf[i] = pat(i, rank, r, n);
			memset(rbuf, 0, (size_t)n);
			MPI_Irecv(rbuf, n, MPI_BYTE, prev, r, MPI_COMM_WORLD, &req);
			MPI_Send(sbuf, n, MPI_BYTE, next, r, MPI_COMM_WORLD);
			MPI_Wait(&req, &st);
			sent += (unsigned long long)n;
			MPI_Get_count(&st, MPI_BYTE, &count);
			if (count != n || st.MPI_SOURCE != prev) {
				fprintf(stderr, "rank %d round %d size %d: count %d source %d\n",
					rank, r, n, count, st.MPI_SOURCE);
				bad++;
				continue;
			}
			for (i = 0; i < (size_t)n; i++)
				if (rbuf[i] != pat(i, prev, r, n)) {
					fprintf(stderr, "rank %d round %d size %d: byte %zu is %u, "
						"not %u\n", rank, r, n, i, rbuf[i],
						pat(i, prev, r, n));
					bad++;
					break;
				}
		}
	}
	MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("loop_ring: %d ranks, %d rounds, %llu payload bytes sent by each rank: %s\n",
		       np, ROUNDS, sent, allbad ? "FAILED" : "OK");
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return allbad ? 1 : 0;
}
