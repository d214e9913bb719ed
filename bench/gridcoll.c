/* SPDX-License-Identifier: MIT */
/*
 * bench/gridcoll.c: collectives on the emulated grid (test/net/grid), for
 * bench/grid-coll.sh; standard MPI only, so that each MPI's mpicc builds it.
 *
 *   gridcoll -t OP[,OP...] -m SIZES [-i ITERS] [-s SCALE] [-f FLOOR] [-w WARMUP] [-d MS]
 *
 * OP: scatter, gather, bcast, allgather, alltoall, allreduce, reduce,
 * barrier (MPI_BYTE blocks; MPI_INT and MPI_SUM for the reductions; root
 * 0). SIZES: a list s1,s2,... or MIN:MAX doubling, in bytes: the block
 * per rank (per rank pair for alltoall, the whole vector for bcast,
 * allreduce and reduce), a positive multiple of 8; barrier runs once and
 * prints size 0. Each size gets ITERS timed calls (default 5) up to SCALE
 * bytes (default 1 MiB) and ITERS x SCALE / size above it, at least FLOOR
 * (default 3, or ITERS when it is less); the first size of each OP is preceded by WARMUP
 * untimed calls (default 1: connections, TCP windows).
 *
 * Timing: the grid's hosts are network namespaces of one machine, so all
 * ranks read one CLOCK_MONOTONIC. Before each call rank 0 broadcasts a
 * start time MS ms ahead (default 100); every rank sleeps until it and
 * calls. The call's time is the
 * last rank's return minus that start, so no barrier skew (a wide-area
 * latency) enters it. If a rank got the start time too late, the call is
 * repeated with twice the lead. Rank 0 prints, per OP and size,
 * "gridcoll OP SIZE ITERS MEDIAN MIN MAX LATE" in seconds (LATE: the most
 * any rank started after the start time, over the calls: the machine's
 * scheduling noise, which is part of the times), per call "gridcoll-call
 * OP SIZE K START_NS END_NS LATE" (the shared clock, for the emulator's
 * counters), and at the end "gridcoll done". Every byte of every result
 * is checked outside the timed part (each block's values depend on
 * source, destination and call); a wrong one prints "gridcoll: rank R:
 * ..." and aborts the job.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

enum op { SCATTER, GATHER, BCAST, ALLGATHER, ALLTOALL, ALLREDUCE, REDUCE, BARRIER, NOPS };
static const char *const op_names[NOPS] = {
	"scatter", "gather", "bcast", "allgather", "alltoall", "allreduce", "reduce", "barrier"
};

static int rank, size;
static unsigned char *sbuf, *rbuf;

static void die(const char *op, long bytes, const char *what, long at)
{
	fprintf(stderr, "gridcoll: rank %d: %s at %ld bytes: %s (word %ld)\n", rank, op, bytes,
		what, at);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sleeps until t. No rank polls the clock for the last stretch: the
 * grid's 16 hosts share the machine's few processors, and 16 ranks
 * polling at once delayed each other's start by tens of milliseconds
 * (scheduler slices), which entered every call's time; with all of them
 * asleep the processors are idle and a timed wake-up comes tens of
 * microseconds late (LATE records it). */
static void sleep_until(int64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000), (long)(t % 1000000000) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
		;
}

/* The word i of the block from src to dst in call k. */
static uint64_t pat(long src, long dst, long k, long i)
{
	return ((uint64_t)src << 48) ^ ((uint64_t)dst << 36) ^ ((uint64_t)(k & 0xfff) << 24) ^
	       (uint64_t)i * 0x9e37u;
}

static void fill(uint64_t *w, long words, long src, long dst, long k)
{
	for (long i = 0; i < words; i++)
		w[i] = pat(src, dst, k, i);
}

static void check(const uint64_t *w, long words, long src, long dst, long k, const char *op,
		  long bytes)
{
	for (long i = 0; i < words; i++)
		if (w[i] != pat(src, dst, k, i)) {
			char what[96];

			snprintf(what, sizeof(what), "wrong data in the block from %ld to %ld", src,
				 dst);
			die(op, bytes, what, i);
		}
}

/* The reductions: MPI_INT elements, rank r contributes (r + 1) * v(i, k). */
static int rval(long i, long k)
{
	return (int)((i + k) & 0x3ff);
}

/* Fills the send side of one call. */
static void prepare(enum op op, long bytes, long k)
{
	long words = bytes / 8, n = size;

	switch (op) {
	case SCATTER:
		if (rank == 0)
			for (long r = 0; r < n; r++)
				fill((uint64_t *)sbuf + r * words, words, 0, r, k);
		memset(rbuf, 0, (size_t)bytes);
		break;
	case GATHER:
		fill((uint64_t *)sbuf, words, rank, 0, k);
		if (rank == 0)
			memset(rbuf, 0, (size_t)bytes * (size_t)n);
		break;
	case BCAST:
		if (rank == 0)
			fill((uint64_t *)sbuf, words, 0, 0, k);
		else
			memset(sbuf, 0, (size_t)bytes);
		break;
	case ALLGATHER:
		fill((uint64_t *)sbuf, words, rank, 0, k);
		memset(rbuf, 0, (size_t)bytes * (size_t)n);
		break;
	case ALLTOALL:
		for (long r = 0; r < n; r++)
			fill((uint64_t *)sbuf + r * words, words, rank, r, k);
		memset(rbuf, 0, (size_t)bytes * (size_t)n);
		break;
	case ALLREDUCE:
	case REDUCE:
		for (long i = 0; i < bytes / 4; i++)
			((int *)sbuf)[i] = (rank + 1) * rval(i, k);
		memset(rbuf, 0, (size_t)bytes);
		break;
	default:
		break;
	}
}

static void call(enum op op, long bytes)
{
	int c = (int)bytes;

	switch (op) {
	case SCATTER:
		MPI_Scatter(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, 0, MPI_COMM_WORLD);
		break;
	case GATHER:
		MPI_Gather(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, 0, MPI_COMM_WORLD);
		break;
	case BCAST:
		MPI_Bcast(sbuf, c, MPI_BYTE, 0, MPI_COMM_WORLD);
		break;
	case ALLGATHER:
		MPI_Allgather(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, MPI_COMM_WORLD);
		break;
	case ALLTOALL:
		MPI_Alltoall(sbuf, c, MPI_BYTE, rbuf, c, MPI_BYTE, MPI_COMM_WORLD);
		break;
	case ALLREDUCE:
		MPI_Allreduce(sbuf, rbuf, c / 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		break;
	case REDUCE:
		MPI_Reduce(sbuf, rbuf, c / 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
		break;
	case BARRIER:
		MPI_Barrier(MPI_COMM_WORLD);
		break;
	default:
		break;
	}
}

/* Checks the receive side of one call. */
static void verify(enum op op, long bytes, long k)
{
	long words = bytes / 8, n = size;
	const char *name = op_names[op];

	switch (op) {
	case SCATTER:
		check((uint64_t *)rbuf, words, 0, rank, k, name, bytes);
		break;
	case GATHER:
		if (rank == 0)
			for (long r = 0; r < n; r++)
				check((uint64_t *)rbuf + r * words, words, r, 0, k, name, bytes);
		break;
	case BCAST:
		check((uint64_t *)sbuf, words, 0, 0, k, name, bytes);
		break;
	case ALLGATHER:
		for (long r = 0; r < n; r++)
			check((uint64_t *)rbuf + r * words, words, r, 0, k, name, bytes);
		break;
	case ALLTOALL:
		for (long r = 0; r < n; r++)
			check((uint64_t *)rbuf + r * words, words, r, rank, k, name, bytes);
		break;
	case ALLREDUCE:
	case REDUCE:
		if (op == ALLREDUCE || rank == 0) {
			int f = (int)(n * (n + 1) / 2);

			for (long i = 0; i < bytes / 4; i++)
				if (((int *)rbuf)[i] != f * rval(i, k))
					die(name, bytes, "wrong sum", i);
		}
		break;
	default:
		break;
	}
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One timed call started at a shared time; returns its seconds, and the
 * shared start and the last rank's end through *t0 and *t1, and the
 * latest rank's wake-up after the start through *late. */
static double timed_call(enum op op, long bytes, long k, int64_t *lead_ns, int64_t *t0,
			 int64_t *t1, double *late)
{
	for (;;) {
		int64_t start = 0, got, woke, end;
		double v[3], m[3];

		prepare(op, bytes, k);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			start = now_ns() + *lead_ns;
		MPI_Bcast(&start, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
		got = now_ns();
		sleep_until(start);
		woke = now_ns();
		call(op, bytes);
		end = now_ns();
		v[0] = (double)(end - start);
		v[1] = (double)(got - start);   /* > 0: this rank started late */
		v[2] = (double)(woke - start);  /* the sleep's lateness */
		MPI_Allreduce(v, m, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		verify(op, bytes, k);
		if (m[1] > 0 && *lead_ns < 10 * 1000000000LL) {
			*lead_ns *= 2;
			continue;
		}
		*t0 = start;
		*t1 = start + (int64_t)m[0];
		*late = m[2] / 1e9;
		return m[0] / 1e9;
	}
}

static long iters_for(long bytes, long iters, long scale, long floor)
{
	long it = iters;

	if (floor > iters)
		floor = iters;

	if (bytes > scale) {
		it = (long)((double)iters * (double)scale / (double)bytes);
		if (it < floor)
			it = floor;
	}
	return it;
}

static int parse_sizes(char *s, long *sizes, int max)
{
	int n = 0;

	if (strchr(s, ':')) {
		long a, b;

		if (bench_parse_range(s, 8, 1L << 28, &a, &b))
			return -1;
		for (long x = a; x <= b && n < max; x *= 2)
			sizes[n++] = x;
		return n;
	}
	for (char *t = strtok(s, ","); t; t = strtok(NULL, ",")) {
		if (n == max || bench_parse_long(t, 8, 1L << 28, &sizes[n]))
			return -1;
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	long sizes[64], iters = 5, scale = 1L << 20, floor = 3, warm = 1, lead_ms = 100, maxb = 0;
	int nsizes = 0, ops[NOPS], nops = 0, bad = 0;
	int64_t lead_ns;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int a = 1; a < argc && !bad; a++) {
		char *v = a + 1 < argc ? argv[a + 1] : NULL;

		if (!v || argv[a][0] != '-' || argv[a][2]) {
			bad = 1;
			break;
		}
		a++;
		switch (argv[a - 1][1]) {
		case 't':
			for (char *t = strtok(v, ","); t && !bad; t = strtok(NULL, ",")) {
				int o;

				for (o = 0; o < NOPS && strcmp(t, op_names[o]); o++)
					;
				if (o == NOPS || nops == NOPS)
					bad = 1;
				else
					ops[nops++] = o;
			}
			break;
		case 'm':
			nsizes = parse_sizes(v, sizes, 64);
			bad = nsizes < 1;
			for (int i = 0; i < nsizes; i++)
				bad |= sizes[i] % 8 != 0;
			break;
		case 'i':
			bad = bench_parse_long(v, 1, 100000, &iters);
			break;
		case 's':
			bad = bench_parse_long(v, 8, 1L << 30, &scale);
			break;
		case 'f':
			bad = bench_parse_long(v, 1, 100000, &floor);
			break;
		case 'w':
			bad = bench_parse_long(v, 0, 1000, &warm);
			break;
		case 'd':
			bad = bench_parse_long(v, 1, 10000, &lead_ms);
			break;
		default:
			bad = 1;
		}
	}
	if (bad || !nops || !nsizes) {
		if (rank == 0)
			fprintf(stderr, "usage: gridcoll -t OP[,OP...] -m SIZES|MIN:MAX [-i ITERS] "
					"[-s SCALE] [-f FLOOR] [-w WARMUP] [-d LEAD_MS]\n"
					"  OP: scatter gather bcast allgather alltoall allreduce "
					"reduce barrier; sizes: positive multiples of 8\n");
		MPI_Finalize();
		return 2;
	}
	for (int i = 0; i < nsizes; i++)
		if (sizes[i] > maxb)
			maxb = sizes[i];
	/* the buffers this rank needs: a block per rank only where the call has one */
	size_t sneed = 8, rneed = 8;
	for (int o = 0; o < nops; o++) {
		size_t one = (size_t)maxb, all = (size_t)maxb * (size_t)size;
		size_t sn = ops[o] == ALLTOALL || (ops[o] == SCATTER && rank == 0) ? all : one;
		size_t rn = ops[o] == ALLTOALL || ops[o] == ALLGATHER ||
			    (ops[o] == GATHER && rank == 0) ? all : one;

		if (sn > sneed)
			sneed = sn;
		if (rn > rneed)
			rneed = rn;
	}
	sbuf = malloc(sneed);
	rbuf = malloc(rneed);
	if (!sbuf || !rbuf)
		die("setup", maxb, "out of memory", 0);
	lead_ns = lead_ms * 1000000LL;
	for (int o = 0; o < nops; o++) {
		enum op op = (enum op)ops[o];
		long k = 0;

		for (int s = 0; s < (op == BARRIER ? 1 : nsizes); s++) {
			long bytes = op == BARRIER ? 0 : sizes[s];
			long it = op == BARRIER ? iters : iters_for(bytes, iters, scale, floor);
			double *t = malloc((size_t)it * sizeof(double));
			double *lt = malloc((size_t)it * sizeof(double));
			int64_t t0, t1;

			if (!t || !lt)
				die(op_names[op], bytes, "out of memory", 0);
			for (long w = 0; s == 0 && w < warm; w++, k++)
				timed_call(op, bytes, k, &lead_ns, &t0, &t1, &lt[0]);
			for (long j = 0; j < it; j++, k++) {
				t[j] = timed_call(op, bytes, k, &lead_ns, &t0, &t1, &lt[j]);
				if (rank == 0)
					printf("gridcoll-call %s %ld %ld %lld %lld %.6f\n", op_names[op],
					       bytes, j, (long long)t0, (long long)t1, lt[j]);
			}
			if (rank == 0) {
				qsort(t, (size_t)it, sizeof(double), dcmp);
				qsort(lt, (size_t)it, sizeof(double), dcmp);
				printf("gridcoll %s %ld %ld %.9f %.9f %.9f %.6f\n", op_names[op], bytes,
				       it, it % 2 ? t[it / 2] : (t[it / 2 - 1] + t[it / 2]) / 2, t[0],
				       t[it - 1], lt[it - 1]);
				fflush(stdout);
			}
			free(t);
			free(lt);
		}
	}
	if (rank == 0) {
		printf("gridcoll done\n");
		fflush(stdout);
	}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
