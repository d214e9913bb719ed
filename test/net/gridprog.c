/* SPDX-License-Identifier: MIT */
/*
 * test/net/gridprog.c: the MPI program the emulated-grid tests run under all
 * three MPIs (Michi, MPICH, Open MPI), built by each one's mpicc from this
 * one source so that their figures compare the same code. It uses nothing
 * but MPI-1 calls, so any MPI builds it.
 *
 * Every rank first prints "gridprog rank R of N on NAME" with its
 * MPI_Get_processor_name, so a test sees on which host each rank ran and
 * that the MPI told the hosts apart. Then one of:
 *   ring BYTES ROUNDS      a buffer of BYTES goes round the ranks ROUNDS
 *                          times, each rank adding its rank to every word;
 *                          rank 0 checks every word and prints
 *                          "gridprog ring ok N BYTES ROUNDS"
 *   pingpong BYTES ITERS [A B]
 *                          ranks A and B (default 0 and N-1) exchange BYTES
 *                          ITERS times after one untimed warm-up exchange
 *                          (which opens the connection and grows TCP's
 *                          window); A checks each reply and prints
 *                          "gridprog pingpong BYTES ITERS MIN MEDIAN" in
 *                          seconds per round trip. The other ranks wait.
 * Errors print "gridprog: rank R on NAME: ..." and abort the job, so a test
 * never waits on a wrong answer. Sizes are bounded (1 GiB, 10000 rounds).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static char name[MPI_MAX_PROCESSOR_NAME];

static void gridprog_die(const char *what)
{
	fprintf(stderr, "gridprog: rank %d on %s: %s\n", rank, name, what);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* a count argument in [lo, hi] */
static long gridprog_arg(const char *s, long lo, long hi, const char *what)
{
	char *end, msg[160];
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		snprintf(msg, sizeof msg, "%s '%s' is not a number in %ld..%ld", what, s, lo, hi);
		gridprog_die(msg);
	}
	return v;
}

static void gridprog_ring(long bytes, long rounds)
{
	long words = bytes / (long)sizeof(unsigned), i, r;
	unsigned *buf = malloc((size_t)(words > 0 ? words : 1) * sizeof(unsigned));
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	/* every rank adds its rank each round: sum(0..N-1) per round */
	unsigned want = (unsigned)((long)size * (size - 1) / 2 * rounds);
	char msg[200];

	if (!buf)
		gridprog_die("ring: out of memory");
	for (i = 0; i < words; i++)
		buf[i] = 0;
	for (r = 0; r < rounds; r++) {
		if (rank == 0) {
			MPI_Send(buf, (int)words, MPI_UNSIGNED, next, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, (int)words, MPI_UNSIGNED, prev, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, (int)words, MPI_UNSIGNED, prev, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			for (i = 0; i < words; i++)
				buf[i] += (unsigned)rank;
			MPI_Send(buf, (int)words, MPI_UNSIGNED, next, 1, MPI_COMM_WORLD);
		}
	}
	if (rank == 0) {
		for (i = 0; i < words; i++)
			if (buf[i] != want) {
				snprintf(msg, sizeof msg, "ring: word %ld is %u, not %u", i, buf[i], want);
				gridprog_die(msg);
			}
		printf("gridprog ring ok %d %ld %ld\n", size, bytes, rounds);
		fflush(stdout);
	}
	free(buf);
}

static int gridprog_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void gridprog_pingpong(long bytes, long iters, int a, int b)
{
	unsigned char *buf = malloc((size_t)(bytes > 0 ? bytes : 1));
	double *t = malloc((size_t)iters * sizeof(double)), t0;
	long i, k;
	char msg[200];

	if (!buf || !t)
		gridprog_die("pingpong: out of memory");
	for (i = -1; i < iters; i++) {
		/* the payload changes each exchange: B echoes it back plus one */
		unsigned char tag = (unsigned char)(i + 2);

		if (rank == a) {
			memset(buf, tag, (size_t)bytes);
			t0 = MPI_Wtime();
			MPI_Send(buf, (int)bytes, MPI_BYTE, b, 2, MPI_COMM_WORLD);
			MPI_Recv(buf, (int)bytes, MPI_BYTE, b, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (i >= 0)
				t[i] = MPI_Wtime() - t0;
			for (k = 0; k < bytes; k++)
				if (buf[k] != (unsigned char)(tag + 1)) {
					snprintf(msg, sizeof msg, "pingpong: byte %ld of exchange %ld is %u, not %u",
						 k, i, buf[k], (unsigned char)(tag + 1));
					gridprog_die(msg);
				}
		} else if (rank == b) {
			MPI_Recv(buf, (int)bytes, MPI_BYTE, a, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			for (k = 0; k < bytes; k++)
				buf[k]++;
			MPI_Send(buf, (int)bytes, MPI_BYTE, a, 3, MPI_COMM_WORLD);
		}
	}
	if (rank == a) {
		qsort(t, (size_t)iters, sizeof(double), gridprog_cmp);
		printf("gridprog pingpong %ld %ld %.6f %.6f\n", bytes, iters, t[0], t[iters / 2]);
		fflush(stdout);
	}
	free(buf);
	free(t);
}

int main(int argc, char **argv)
{
	int len;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(name, &len);
	printf("gridprog rank %d of %d on %s\n", rank, size, name);
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);

	if (argc >= 4 && strcmp(argv[1], "ring") == 0) {
		gridprog_ring(gridprog_arg(argv[2], 0, 1L << 30, "ring BYTES"),
			      gridprog_arg(argv[3], 1, 10000, "ring ROUNDS"));
	} else if ((argc == 4 || argc == 6) && strcmp(argv[1], "pingpong") == 0) {
		long bytes = gridprog_arg(argv[2], 0, 1L << 30, "pingpong BYTES");
		long iters = gridprog_arg(argv[3], 1, 10000, "pingpong ITERS");
		int a = argc == 6 ? (int)gridprog_arg(argv[4], 0, size - 1, "pingpong A") : 0;
		int b = argc == 6 ? (int)gridprog_arg(argv[5], 0, size - 1, "pingpong B") : size - 1;

		if (a == b)
			gridprog_die("pingpong: A and B are the same rank");
		gridprog_pingpong(bytes, iters, a, b);
	} else {
		gridprog_die("usage: gridprog ring BYTES ROUNDS | pingpong BYTES ITERS [A B]");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
