/* SPDX-License-Identifier: MIT */
/*
 * Benchmarks for runs with more ranks than cores (see BENCH.md), where
 * what matters is whether a waiting rank gives its core to the rank it
 * waits for. Standard MPI only, so that one binary built by mpicc.mpich
 * runs on MPICH and on Michi. "ring" passes a message around all ranks
 * (0 -> 1 -> ... -> n-1 -> 0) with blocking Send/Recv and reports
 * microseconds per full lap; "allreduce" reports microseconds per
 * MPI_Allreduce (MPI_SUM over ints), back to back or, with -b, the OSU
 * way: a barrier after each call, only the calls timed, the mean over
 * ranks. Every result is checked; a wrong one makes the exit status 1.
 * An oversubscribed MPICH can take milliseconds per call, so the
 * iteration count comes from a time budget: a warm-up of doubling
 * batches measures the cost of one iteration, then the timed loop runs
 * for about the budget. Rank 0 prints one "size,value" CSV line per size.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include "bench_common.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OS_TAG		23
#define OS_MAX_SIZE	(1L << 28)
#define OS_FILL		0x5a
/* The warm-up stops once a batch takes this share of the budget, so that
 * warm-up and timed loop together stay within about 1.5 budgets. */
#define OS_CALIB_SHARE	0.1
/* But it runs at least batches of 1, 2 and 4 iterations: the first ones
 * pay for connections and page faults, and an estimate from a single
 * oversubscribed iteration can be off by a scheduler slice or more. */
#define OS_CALIB_MIN_K	4
/* Fewer timed iterations than this would make the median of rounds a
 * median of noise, at a few milliseconds per iteration it costs little. */
#define OS_MIN_ITERS	10

enum os_mode { OS_RING, OS_ALLREDUCE };

struct os_opts {
	enum os_mode mode;
	long min, max;
	long max_iters;
	double budget;	/* seconds of timed loop per size */
	int barrier;	/* allreduce: barrier after each call, OSU style */
};

static void os_usage(FILE *f)
{
	fprintf(f,
		"usage: oversub [-t ring|allreduce] [-b] [-m min:max] [-s secs] [-i iters]\n"
		"  -t  ring: blocking Send/Recv around all ranks, us per full lap\n"
		"      (default); allreduce: MPI_Allreduce MPI_SUM of size/4 ints,\n"
		"      us per call, back to back, as the slowest rank saw them\n"
		"  -b  allreduce: a barrier after each call; only the calls are\n"
		"      timed, averaged over ranks (the OSU suite's method)\n"
		"  -m  message sizes in bytes, doubling from min to max (default\n"
		"      4:4); ring skips sizes below 1, allreduce sizes that are\n"
		"      not a positive multiple of 4\n"
		"  -s  seconds of timed loop per size (default 1); a warm-up of\n"
		"      about half as long comes first\n"
		"  -i  at most this many timed iterations per size (default 1000000)\n");
}

/* Returns 0 to run, 1 after -h, -1 on bad usage; only rank 0 prints. */
static int os_parse(int argc, char **argv, struct os_opts *o, int rank)
{
	int c;

	o->mode = OS_RING;
	o->min = 4;
	o->max = 4;
	o->max_iters = 1000000;
	o->budget = 1.0;
	o->barrier = 0;
	while ((c = getopt(argc, argv, "t:bm:s:i:h")) != -1) {
		switch (c) {
		case 't':
			if (!strcmp(optarg, "ring"))
				o->mode = OS_RING;
			else if (!strcmp(optarg, "allreduce"))
				o->mode = OS_ALLREDUCE;
			else
				goto err_bad;
			break;
		case 'b':
			o->barrier = 1;
			break;
		case 'm':
			if (bench_parse_range(optarg, 0, OS_MAX_SIZE, &o->min, &o->max))
				goto err_bad;
			break;
		case 's':
			if (bench_parse_secs(optarg, &o->budget))
				goto err_bad;
			break;
		case 'i':
			if (bench_parse_long(optarg, 1, 1L << 40, &o->max_iters))
				goto err_bad;
			break;
		case 'h':
			if (rank == 0)
				os_usage(stdout);
			return 1;
		default:
			goto err_bad;
		}
	}
	if (optind != argc || (o->barrier && o->mode != OS_ALLREDUCE))
		goto err_bad;
	return 0;

err_bad:
	if (rank == 0)
		os_usage(stderr);
	return -1;
}

struct os_ctx {
	int rank, nranks;
	long bad;		/* wrong results seen by this rank */
	unsigned char *msg;	/* ring message */
	int *in, *out;		/* allreduce buffers */
};

static void os_report(struct os_ctx *c, const char *what, long iter,
		      long got, long want)
{
	/* One line per rank is enough to debug; a flood would hide it. */
	if (c->bad++ == 0)
		fprintf(stderr, "oversub: rank %d: %s wrong at iteration %ld: "
			"got %ld, expected %ld\n", c->rank, what, iter, got,
			want);
}

/*
 * Byte 0 carries a token that each rank increments, so a message that
 * skipped a rank or came from an earlier lap is caught; the last byte
 * must keep its fill, so a truncated message is caught.
 */
static void os_ring_check(struct os_ctx *c, long size, long i,
			  MPI_Status *st, int from)
{
	unsigned char want = (unsigned char)(i + (c->rank ? c->rank - 1 :
						    c->nranks - 1));
	int count;

	MPI_Get_count(st, MPI_BYTE, &count);
	if (count != size || st->MPI_SOURCE != from)
		os_report(c, "ring message length or source", i, count,
			  size);
	else if (c->msg[0] != want)
		os_report(c, "ring token", i, c->msg[0], want);
	else if (size > 1 && c->msg[size - 1] != OS_FILL)
		os_report(c, "ring message tail", i, c->msg[size - 1],
			  OS_FILL);
}

static void os_ring(struct os_ctx *c, long size, long first, long n)
{
	int next = (c->rank + 1) % c->nranks;
	int prev = (c->rank + c->nranks - 1) % c->nranks;
	MPI_Status st;
	long i;

	for (i = first; i < first + n; i++) {
		if (c->rank == 0) {
			c->msg[0] = (unsigned char)i;
			MPI_Send(c->msg, (int)size, MPI_BYTE, next, OS_TAG,
				 MPI_COMM_WORLD);
			MPI_Recv(c->msg, (int)size, MPI_BYTE, prev, OS_TAG,
				 MPI_COMM_WORLD, &st);
			os_ring_check(c, size, i, &st, prev);
		} else {
			MPI_Recv(c->msg, (int)size, MPI_BYTE, prev, OS_TAG,
				 MPI_COMM_WORLD, &st);
			os_ring_check(c, size, i, &st, prev);
			c->msg[0]++;
			MPI_Send(c->msg, (int)size, MPI_BYTE, next, OS_TAG,
				 MPI_COMM_WORLD);
		}
	}
}

/*
 * Element j of rank r holds r + 1 + j, except element 0, which also adds
 * a value that changes each iteration, so an allreduce that left the
 * previous result in place is caught. Returns the seconds spent inside
 * MPI_Allreduce when barrier is set (the OSU method), else 0.
 */
static double os_allreduce(struct os_ctx *c, long size, long first, long n,
			   int barrier)
{
	long p = c->nranks, count = size / 4, base = p * (p + 1) / 2;
	double t0, calls = 0;
	long i, j, v;

	for (j = 1; j < count; j++)
		c->out[j] = (int)(c->rank + 1 + j);
	for (i = first; i < first + n; i++) {
		v = i & 1023;
		c->out[0] = (int)(c->rank + 1 + v);
		if (barrier) {
			t0 = MPI_Wtime();
			MPI_Allreduce(c->out, c->in, (int)count, MPI_INT,
				      MPI_SUM, MPI_COMM_WORLD);
			calls += MPI_Wtime() - t0;
		} else {
			MPI_Allreduce(c->out, c->in, (int)count, MPI_INT,
				      MPI_SUM, MPI_COMM_WORLD);
		}
		if (c->in[0] != base + p * v)
			os_report(c, "allreduce sum", i, c->in[0],
				  base + p * v);
		for (j = 1; j < count; j++)
			if (c->in[j] != base + p * j)
				os_report(c, "allreduce sum", i, c->in[j],
					  base + p * j);
		if (barrier)
			MPI_Barrier(MPI_COMM_WORLD);
	}
	return calls;
}

struct os_times {
	double wall;	/* the slowest rank's whole batch */
	double timed;	/* what the benchmark reports, for the whole batch */
};

/*
 * Runs n iterations from iteration number first. Every rank gets the
 * same times, since they must agree on the iteration counts derived
 * from them.
 */
static struct os_times os_batch(const struct os_opts *o, struct os_ctx *c,
				long size, long first, long n)
{
	struct os_times t;
	double t0, mine[2] = { 0, 0 }, sum[2];

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if (o->mode == OS_RING)
		os_ring(c, size, first, n);
	else
		mine[1] = os_allreduce(c, size, first, n, o->barrier);
	mine[0] = MPI_Wtime() - t0;
	MPI_Allreduce(&mine[0], &t.wall, 1, MPI_DOUBLE, MPI_MAX,
		      MPI_COMM_WORLD);
	t.timed = t.wall;
	if (o->barrier) {
		MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
		t.timed = sum[1] / c->nranks;
	}
	return t;
}

/* Returns the microseconds per iteration at one size. */
static double os_measure(const struct os_opts *o, struct os_ctx *c,
			 long size)
{
	struct os_times t;
	long k = 1, done = 0, n;
	double per;

	/* Warm-up: doubling batches, each timed, until one is long enough
	 * to estimate an iteration's cost. */
	for (;;) {
		t = os_batch(o, c, size, done, k);
		done += k;
		if (k >= o->max_iters || (k >= OS_CALIB_MIN_K &&
		    t.wall >= o->budget * OS_CALIB_SHARE))
			break;
		k *= 2;
	}
	per = t.wall / (double)k;
	n = per > 0 ? (long)(o->budget / per) : o->max_iters;
	if (n < OS_MIN_ITERS)
		n = OS_MIN_ITERS;
	if (n > o->max_iters)
		n = o->max_iters;
	t = os_batch(o, c, size, done, n);
	if (c->rank == 0)
		printf("# size %ld: %ld iterations in %.3f s after %ld "
		       "warm-up\n", size, n, t.wall, done);
	return t.timed * 1e6 / (double)n;
}

static int os_size_ok(const struct os_opts *o, long size)
{
	if (o->mode == OS_RING)
		return size >= 1;
	return size >= 4 && size % 4 == 0;
}

static void os_sweep(const struct os_opts *o, struct os_ctx *c)
{
	double us;
	long size;

	if (c->rank == 0)
		printf("# oversub %s, %d ranks, size in bytes, %s\n",
		       o->mode == OS_RING ? "ring" : "allreduce", c->nranks,
		       o->mode == OS_RING ?
		       "us per full lap (blocking Send/Recv, n hops)" :
		       o->barrier ?
		       "us per MPI_Allreduce (MPI_INT, MPI_SUM), barrier after "
		       "each, mean over ranks" :
		       "us per MPI_Allreduce (MPI_INT, MPI_SUM), back to back, "
		       "slowest rank");
	for (size = o->min;; size = size ? size * 2 : 1) {
		if (size > o->max)
			size = o->max;
		if (!os_size_ok(o, size)) {
			if (c->rank == 0)
				printf("# size %ld skipped\n", size);
		} else {
			us = os_measure(o, c, size);
			if (c->rank == 0)
				printf("%ld,%.3f\n", size, us);
		}
		if (c->rank == 0)
			fflush(stdout);
		if (size == o->max)
			break;
	}
}

int main(int argc, char **argv)
{
	struct os_opts o;
	struct os_ctx c = { 0 };
	long bad_total = 0;
	size_t bytes;
	int ret;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c.nranks);
	ret = os_parse(argc, argv, &o, c.rank);
	if (!ret && c.nranks < 2) {
		if (c.rank == 0)
			fprintf(stderr, "oversub: needs at least 2 ranks, "
				"got %d\n", c.nranks);
		ret = -1;
	}
	if (ret) {
		MPI_Finalize();
		return ret > 0 ? 0 : 2;
	}

	/* Written once, so that no page fault lands in a timed loop. */
	bytes = o.max > 4 ? (size_t)o.max : 4;
	c.msg = malloc(bytes);
	c.in = malloc(bytes);
	c.out = malloc(bytes);
	if (!c.msg || !c.in || !c.out) {
		fprintf(stderr, "oversub: rank %d: cannot allocate 3 x %zu "
			"bytes\n", c.rank, bytes);
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	memset(c.msg, OS_FILL, bytes);
	memset(c.in, 0, bytes);
	memset(c.out, 0, bytes);

	os_sweep(&o, &c);

	MPI_Allreduce(&c.bad, &bad_total, 1, MPI_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	if (c.rank == 0 && bad_total)
		fprintf(stderr, "oversub: %ld wrong results\n", bad_total);
	free(c.msg);
	free(c.in);
	free(c.out);
	MPI_Finalize();
	return bad_total ? 1 : 0;
}
