/* SPDX-License-Identifier: MIT */
/*
 * test/net/failprog.c: the long-running MPI program of the failure and
 * rogue-connection tests (test/net/failures.sh, test/net/rogue.sh). Prints
 *   failprog rank R host H pid P
 * once it is up, then loops for the given seconds (default 30): an
 * allreduce and a ring pass whose sums it checks, and a short sleep. At
 * the end it prints `failprog rank R ok N` (N iterations) or
 * `failprog rank R FAIL ...` and exits 1 after MPI_Finalize. A test kills
 * it, its proxy or its host's link long before it ends by itself.
 *   failprog [seconds [sleep_ms]]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char name[MPI_MAX_PROCESSOR_NAME];
	double secs = argc > 1 ? atof(argv[1]) : 30.0, start;
	long sleep_ms = argc > 2 ? atol(argv[2]) : 50, it = 0, bad = 0;
	int rank, size, len;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(name, &len);
	printf("failprog rank %d host %s pid %d\n", rank, name, (int)getpid());
	fflush(stdout);
	start = MPI_Wtime();
	/* rank 0 decides when to stop, so that all ranks run the same count */
	for (;;) {
		long v = rank + it, sum = 0, tok = -1, exp = (long)size * (size - 1) / 2 + size * it;
		int go = MPI_Wtime() - start < secs;
		struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };

		MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
		if (!go)
			break;
		MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
		if (sum != exp && bad++ < 5)
			printf("failprog rank %d FAIL allreduce %ld != %ld at %ld\n", rank, sum, exp, it);
		/* ring: each sends rank * it to the next one */
		v = (long)rank * it;
		MPI_Sendrecv(&v, 1, MPI_LONG, (rank + 1) % size, 7, &tok, 1, MPI_LONG,
			     (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (tok != (long)((rank + size - 1) % size) * it && bad++ < 5)
			printf("failprog rank %d FAIL ring %ld at %ld\n", rank, tok, it);
		it++;
		if (sleep_ms > 0)
			nanosleep(&ts, NULL);
	}
	if (!bad)
		printf("failprog rank %d ok %ld\n", rank, it);
	fflush(stdout);
	MPI_Finalize();
	return bad ? 1 : 0;
}
