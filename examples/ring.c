/* SPDX-License-Identifier: MIT */
/*
 * Quick-start example: rank 0 starts a token that travels around all
 * ranks for a number of laps (first argument, default 3). Every rank that
 * receives it adds one to its hop count and prints who sent it; at the end
 * rank 0 checks that the count equals laps * size and says so. Works with
 * a single rank too, where every hop is a message to itself.
 *
 *   mpicc -o ring ring.c && mpirun -n 4 ./ring [laps]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, next, prev, laps = 3, lap, hops = 0, out;
	MPI_Request req;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		laps = atoi(argv[1]);
	if (laps < 1)
		laps = 1;
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;

	for (lap = 0; lap < laps; lap++) {
		if (rank == 0) {
			/* Nonblocking, so that a one-rank ring can receive
			 * its own token. */
			out = hops;
			MPI_Isend(&out, 1, MPI_INT, next, lap, MPI_COMM_WORLD,
				  &req);
			MPI_Recv(&hops, 1, MPI_INT, prev, lap, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			hops++;
			printf("rank 0 got the token from rank %d, hop count "
			       "%d\n", prev, hops);
		} else {
			MPI_Recv(&hops, 1, MPI_INT, prev, lap, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			hops++;
			printf("rank %d got the token from rank %d, hop count "
			       "%d\n", rank, prev, hops);
			MPI_Send(&hops, 1, MPI_INT, next, lap, MPI_COMM_WORLD);
		}
		fflush(stdout);
	}
	if (rank == 0)
		printf("token made %d laps around %d ranks in %d hops: %s\n",
		       laps, size, hops, hops == laps * size ? "ok" : "WRONG");
	MPI_Finalize();
	return rank == 0 && hops != laps * size;
}
