/* SPDX-License-Identifier: MIT */
/*
 * test/net/lanesprog.c: Scatter and Gather of BYTES-byte blocks on the
 * emulated grid, checked byte for byte and timed, for the multilane
 * algorithms (coll/lanes.c) and the peers' MPIs alike (MPI-1 only, but
 * for MPI_Wtime):
 *   lanesprog BYTES ITERS
 * After one untimed round (connections, TCP windows), each of ITERS
 * rounds times an MPI_Scatter and then an MPI_Gather from rank 0, each
 * between two barriers; every rank checks every byte it got, and rank 0
 * prints "lanesprog BYTES ITERS SCATTER_MIN SCATTER_MEDIAN GATHER_MIN
 * GATHER_MEDIAN" in seconds. A wrong byte prints "lanesprog: rank R:
 * ..." and aborts the job.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void die(const char *what, long at)
{
	fprintf(stderr, "lanesprog: rank %d: %s at byte %ld\n", rank, what, at);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static unsigned char pat(long r, long i, long k)
{
	return (unsigned char)(r * 131 + i * 7 + (i >> 10) + k * 29);
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	long bytes, iters, k, i, r;
	unsigned char *all = NULL, *mine;
	double *ts, *tg;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 3 || (bytes = atol(argv[1])) < 1 || bytes > (1L << 28) ||
	    (iters = atol(argv[2])) < 1 || iters > 1000) {
		if (rank == 0)
			fprintf(stderr, "usage: lanesprog BYTES(1..2^28) ITERS(1..1000)\n");
		MPI_Finalize();
		return 2;
	}
	mine = malloc((size_t)bytes);
	ts = malloc((size_t)iters * sizeof(double));
	tg = malloc((size_t)iters * sizeof(double));
	if (rank == 0)
		all = malloc((size_t)bytes * (size_t)size);
	if (!mine || !ts || !tg || (rank == 0 && !all))
		die("out of memory", 0);
	for (k = 0; k <= iters; k++) {
		double t0;

		if (rank == 0)
			for (r = 0; r < size; r++)
				for (i = 0; i < bytes; i++)
					all[r * bytes + i] = pat(r, i, k);
		memset(mine, 0, (size_t)bytes);
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		MPI_Scatter(all, (int)bytes, MPI_BYTE, mine, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		if (k > 0)
			ts[k - 1] = MPI_Wtime() - t0;
		for (i = 0; i < bytes; i++)
			if (mine[i] != pat(rank, i, k))
				die("scatter: wrong byte", i);
		for (i = 0; i < bytes; i++)
			mine[i] = pat(rank, i, k + 1);
		if (rank == 0)
			memset(all, 0, (size_t)bytes * (size_t)size);
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = MPI_Wtime();
		MPI_Gather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		if (k > 0)
			tg[k - 1] = MPI_Wtime() - t0;
		if (rank == 0)
			for (r = 0; r < size; r++)
				for (i = 0; i < bytes; i++)
					if (all[r * bytes + i] != pat(r, i, k + 1))
						die("gather: wrong byte", r * bytes + i);
	}
	if (rank == 0) {
		qsort(ts, (size_t)iters, sizeof(double), dcmp);
		qsort(tg, (size_t)iters, sizeof(double), dcmp);
		printf("lanesprog %ld %ld %.6f %.6f %.6f %.6f\n", bytes, iters, ts[0],
		       ts[iters / 2], tg[0], tg[iters / 2]);
		fflush(stdout);
	}
	free(all);
	free(mine);
	free(ts);
	free(tg);
	MPI_Finalize();
	return 0;
}
