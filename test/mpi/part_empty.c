/* SPDX-License-Identifier: MIT */
/*
 * Partitioned communication with empty partitions (count 0), as mpi4py's
 * suite runs it: after the receive starts and before the send does,
 * MPI_Parrived says no partition has arrived; once the sender marks them
 * ready, each arrives, and both requests complete, three rounds, each rank
 * sending to itself and, with two or more ranks, to its neighbour.
 */
#include "mtest.h"

static void round_trip(int to, int from, int parts)
{
	MPI_Request s, r;
	int k, i, flag;
	char sb[1], rb[1];

	MPI_Psend_init(sb, parts, 0, MPI_CHAR, to, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
	MPI_Precv_init(rb, parts, 0, MPI_CHAR, from, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
	for (k = 0; k < 3; k++) {
		MPI_Start(&r);
		if (to == from) {
			for (i = 0; i < parts; i++) {
				MPI_Parrived(r, i, &flag);
				mtest_check(!flag, "round %d: empty partition %d of %d arrived "
					    "before the send started", k, i, parts);
			}
		}
		MPI_Start(&s);
		MPI_Pready_range(0, parts - 1, s);
		for (i = 0; i < parts; i++) {
			double t0 = MPI_Wtime();

			do
				MPI_Parrived(r, i, &flag);
			while (!flag && MPI_Wtime() - t0 < MTEST_WAIT_S);
			mtest_check(flag, "round %d: partition %d never arrived", k, i);
		}
		MPI_Wait(&s, MPI_STATUS_IGNORE);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	}
	MPI_Request_free(&s);
	MPI_Request_free(&r);
}

int main(int argc, char **argv)
{
	int rank, size, p;

	mtest_init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (p = 1; p <= 3; p++) {
		round_trip(rank, rank, p);
		if (size > 1)
			round_trip((rank + 1) % size, (rank + size - 1) % size, p);
	}
	return mtest_finalize();
}
