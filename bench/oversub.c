/* SPDX-License-Identifier: MIT */
/*
 * Benchmarks for runs with more ranks than cores (see BENCH.md), where
 * what matters is whether a waiting rank gives its core to the rank it
 * waits for. Standard MPI only, so that one binary built by mpicc.mpich
 * runs on MPICH and on Michi. "ring" passes a message around all ranks
 * (0 -> 1 -> ... -> n-1 -> 0) with blocking Send/Recv and reports
 * microseconds per full lap; the collectives (barrier, bcast, reduce,
 * allreduce, gather, scatter, allgather, alltoall; MPI_INT, MPI_SUM,
 * root 0) report microseconds per call, back to back or, with -b, the
 * OSU way: a barrier after each call, only the calls timed, the mean
 * over ranks. Every result is checked; a wrong one makes the exit
 * status 1. An oversubscribed MPICH can take milliseconds per call, so
 * the iteration count comes from a time budget: a warm-up of doubling
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
/* -m min:max doubles from 0 to 2^28 in at most 30 sizes; a list may
 * name as many as this. */
#define OS_MAX_SIZES	64
#define OS_FILL		0x5a
/* Data values are kept to 31 bits so that they stay positive ints. */
#define OS_MASK		0x7fffffffUL
/* Element 0 of a block, the one that changes each iteration, lies this
 * far above the block's other elements, so it never equals one of them. */
#define OS_ELEM0_OFF	0x40000000UL
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

enum os_mode {
	OS_RING, OS_BARRIER, OS_BCAST, OS_REDUCE, OS_ALLREDUCE, OS_GATHER,
	OS_SCATTER, OS_ALLGATHER, OS_ALLTOALL, OS_NMODES
};

/* What a mode's timed iteration is, for the header line. Modes with
 * blocks move size bytes per rank pair, so their buffers hold one block
 * per rank. */
static const struct os_mode_info {
	const char *name;
	int blocks;
	const char *what;
} os_modes[OS_NMODES] = {
	[OS_RING] = { "ring", 0,
		"us per full lap (blocking Send/Recv, n hops)" },
	[OS_BARRIER] = { "barrier", 0, "us per MPI_Barrier" },
	[OS_BCAST] = { "bcast", 0,
		"us per MPI_Bcast (MPI_INT, root 0)" },
	[OS_REDUCE] = { "reduce", 0,
		"us per MPI_Reduce (MPI_INT, MPI_SUM, root 0)" },
	[OS_ALLREDUCE] = { "allreduce", 0,
		"us per MPI_Allreduce (MPI_INT, MPI_SUM)" },
	[OS_GATHER] = { "gather", 1,
		"us per MPI_Gather (MPI_INT, root 0, size per rank)" },
	[OS_SCATTER] = { "scatter", 1,
		"us per MPI_Scatter (MPI_INT, root 0, size per rank)" },
	[OS_ALLGATHER] = { "allgather", 1,
		"us per MPI_Allgather (MPI_INT, size per rank)" },
	[OS_ALLTOALL] = { "alltoall", 1,
		"us per MPI_Alltoall (MPI_INT, size per rank pair)" },
};

struct os_opts {
	enum os_mode mode;
	long sizes[OS_MAX_SIZES];
	int nsizes;
	long max;	/* the largest of sizes */
	long max_iters;
	double budget;	/* seconds of timed loop per size */
	int barrier;	/* collectives: barrier after each call, OSU style */
};

static void os_usage(FILE *f)
{
	fprintf(f,
		"usage: oversub [-t MODE] [-b] [-m SIZES] [-s secs] [-i iters]\n"
		"  -t  ring: blocking Send/Recv around all ranks, us per full lap\n"
		"      (default); barrier, bcast, reduce, allreduce, gather,\n"
		"      scatter, allgather, alltoall: us per call of that\n"
		"      collective (MPI_INT, MPI_SUM, root 0), back to back, as\n"
		"      the slowest rank saw them\n"
		"  -b  collectives but barrier: a barrier after each call; only\n"
		"      the calls are timed, averaged over ranks (the OSU suite's\n"
		"      method)\n"
		"  -m  message sizes in bytes: min:max doubles from min to max,\n"
		"      s1,s2,... lists them (default 4:4); for gather, scatter,\n"
		"      allgather and alltoall the size of the block each rank\n"
		"      sends to or receives from each other; ring skips sizes\n"
		"      below 1, the collectives sizes that are not a positive\n"
		"      multiple of 4; barrier ignores them and runs once, printed\n"
		"      as size 0\n"
		"  -s  seconds of timed loop per size (default 1); a warm-up of\n"
		"      about half as long comes first\n"
		"  -i  at most this many timed iterations per size (default 1000000)\n");
}

/* "MIN:MAX", doubling from MIN (0, 1, 2, 4, ...) and ending at MAX, or
 * "S1,S2,..." (s is modified). */
static int os_parse_sizes(char *s, struct os_opts *o)
{
	long sizes[OS_MAX_SIZES], min, max, size, top = 0;
	char *tok, *save;
	int i, n = 0;

	if (strchr(s, ':')) {
		if (bench_parse_range(s, 0, OS_MAX_SIZE, &min, &max))
			return -1;
		for (size = min;; size = size ? size * 2 : 1) {
			if (size > max)
				size = max;
			sizes[n++] = size;
			if (size == max)
				break;
		}
	} else {
		for (tok = strtok_r(s, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (n == OS_MAX_SIZES ||
			    bench_parse_long(tok, 0, OS_MAX_SIZE, &sizes[n]))
				return -1;
			n++;
		}
		if (n == 0)
			return -1;
	}
	for (i = 0; i < n; i++)
		if (sizes[i] > top)
			top = sizes[i];
	memcpy(o->sizes, sizes, n * sizeof(sizes[0]));
	o->nsizes = n;
	o->max = top;
	return 0;
}

/* Returns 0 to run, 1 after -h, -1 on bad usage; only rank 0 prints. */
static int os_parse(int argc, char **argv, struct os_opts *o, int rank)
{
	int c, m;

	o->mode = OS_RING;
	o->sizes[0] = 4;
	o->nsizes = 1;
	o->max = 4;
	o->max_iters = 1000000;
	o->budget = 1.0;
	o->barrier = 0;
	while ((c = getopt(argc, argv, "t:bm:s:i:h")) != -1) {
		switch (c) {
		case 't':
			for (m = 0; m < OS_NMODES; m++)
				if (!strcmp(optarg, os_modes[m].name))
					break;
			if (m == OS_NMODES)
				goto err_bad;
			o->mode = m;
			break;
		case 'b':
			o->barrier = 1;
			break;
		case 'm':
			if (os_parse_sizes(optarg, o))
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
	/* A barrier after a barrier would time the same thing twice. */
	if (optind != argc || (o->barrier && (o->mode == OS_RING ||
					      o->mode == OS_BARRIER)))
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
	int *in, *out;		/* collective buffers, one block per rank
				 * for the modes with blocks */
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
 * The data. Every block is an arithmetic sequence, element j >= 1 being
 * base + step * j, and element 0 changes with the iteration (v = its
 * number mod 1024), so a call that left an earlier result in place is
 * caught. For reduce and allreduce element j of rank r is r + 1 + j and
 * element 0 is r + 1 + v, so the sums are p(p+1)/2 + p j and
 * p(p+1)/2 + p v. For the others the block that rank src sends to rank
 * dst starts from a base of its own, so a block from the wrong rank, at
 * the wrong place or shifted is caught.
 */
struct os_seq {
	unsigned long base, step, elem0;
};

static int os_is_sum(enum os_mode m)
{
	return m == OS_REDUCE || m == OS_ALLREDUCE;
}

static struct os_seq os_sent(const struct os_ctx *c, enum os_mode m,
			     long dst, long v)
{
	struct os_seq s;

	if (os_is_sum(m)) {
		s.base = (unsigned long)c->rank + 1;
		s.step = 1;
		s.elem0 = s.base + v;
	} else {
		s.base = 1 + (unsigned long)c->rank * 1000003 +
			 (unsigned long)dst * 7919;
		s.step = 1;
		s.elem0 = s.base + OS_ELEM0_OFF + v;
	}
	return s;
}

/* What block b of the receive buffer must hold. */
static struct os_seq os_wanted(const struct os_ctx *c, enum os_mode m,
			       long b, long v)
{
	unsigned long p = c->nranks;
	struct os_seq s;
	long src = 0, dst = 0;

	if (os_is_sum(m)) {
		s.base = p * (p + 1) / 2;
		s.step = p;
		s.elem0 = s.base + p * v;
		return s;
	}
	switch (m) {
	case OS_GATHER:
	case OS_ALLGATHER:
		src = b;
		break;
	case OS_SCATTER:
		dst = c->rank;
		break;
	case OS_ALLTOALL:
		src = b;
		dst = c->rank;
		break;
	default:	/* bcast: root 0's one block */
		break;
	}
	s.base = 1 + (unsigned long)src * 1000003 + (unsigned long)dst * 7919;
	s.step = 1;
	s.elem0 = s.base + OS_ELEM0_OFF + v;
	return s;
}

/* The blocks this rank sends and receives in one call of mode m. */
static void os_blocks(const struct os_ctx *c, enum os_mode m, int *sent,
		      int *recvd)
{
	int root = c->rank == 0;

	switch (m) {
	case OS_BCAST:
		*sent = root;
		*recvd = !root;
		break;
	case OS_REDUCE:
		*sent = 1;
		*recvd = root;
		break;
	case OS_GATHER:
		*sent = 1;
		*recvd = root ? c->nranks : 0;
		break;
	case OS_SCATTER:
		*sent = root ? c->nranks : 0;
		*recvd = 1;
		break;
	case OS_ALLGATHER:
		*sent = 1;
		*recvd = c->nranks;
		break;
	case OS_ALLTOALL:
		*sent = *recvd = c->nranks;
		break;
	case OS_ALLREDUCE:
		*sent = *recvd = 1;
		break;
	default:	/* ring, barrier: no blocks */
		*sent = *recvd = 0;
		break;
	}
}

/* Writes every send block once per size; each iteration then rewrites
 * only element 0 of each block. */
static void os_coll_fill(struct os_ctx *c, enum os_mode m, long count)
{
	struct os_seq s;
	int b, sent, recvd;
	long j;
	int *p;

	os_blocks(c, m, &sent, &recvd);
	for (b = 0; b < sent; b++) {
		s = os_sent(c, m, b, 0);
		p = c->out + b * count;
		for (j = 0; j < count; j++)
			p[j] = (int)((s.base + s.step * j) & OS_MASK);
	}
}

static void os_coll_call(struct os_ctx *c, enum os_mode m, int count)
{
	switch (m) {
	case OS_BARRIER:
		MPI_Barrier(MPI_COMM_WORLD);
		break;
	case OS_BCAST:
		MPI_Bcast(c->rank == 0 ? c->out : c->in, count, MPI_INT, 0,
			  MPI_COMM_WORLD);
		break;
	case OS_REDUCE:
		MPI_Reduce(c->out, c->in, count, MPI_INT, MPI_SUM, 0,
			   MPI_COMM_WORLD);
		break;
	case OS_ALLREDUCE:
		MPI_Allreduce(c->out, c->in, count, MPI_INT, MPI_SUM,
			      MPI_COMM_WORLD);
		break;
	case OS_GATHER:
		MPI_Gather(c->out, count, MPI_INT, c->in, count, MPI_INT, 0,
			   MPI_COMM_WORLD);
		break;
	case OS_SCATTER:
		MPI_Scatter(c->out, count, MPI_INT, c->in, count, MPI_INT, 0,
			    MPI_COMM_WORLD);
		break;
	case OS_ALLGATHER:
		MPI_Allgather(c->out, count, MPI_INT, c->in, count, MPI_INT,
			      MPI_COMM_WORLD);
		break;
	case OS_ALLTOALL:
		MPI_Alltoall(c->out, count, MPI_INT, c->in, count, MPI_INT,
			     MPI_COMM_WORLD);
		break;
	default:
		break;
	}
}

/*
 * Runs iterations first .. first + n - 1 of a collective and checks
 * every element of every result. Returns the seconds spent inside the
 * collective when barrier is set (the OSU method), else 0.
 */
static double os_coll(struct os_ctx *c, enum os_mode m, long size,
		      long first, long n, int barrier)
{
	long count = size / 4, i, j, v;
	int b, sent, recvd;
	double t0, calls = 0;
	struct os_seq s;
	int *p;

	os_blocks(c, m, &sent, &recvd);
	for (i = first; i < first + n; i++) {
		v = i & 1023;
		for (b = 0; b < sent; b++)
			c->out[b * count] =
				(int)(os_sent(c, m, b, v).elem0 & OS_MASK);
		if (barrier) {
			t0 = MPI_Wtime();
			os_coll_call(c, m, (int)count);
			calls += MPI_Wtime() - t0;
		} else {
			os_coll_call(c, m, (int)count);
		}
		for (b = 0; b < recvd; b++) {
			s = os_wanted(c, m, b, v);
			p = c->in + b * count;
			if (p[0] != (int)(s.elem0 & OS_MASK))
				os_report(c, os_modes[m].name, i, p[0],
					  (long)(s.elem0 & OS_MASK));
			for (j = 1; j < count; j++)
				if (p[j] != (int)((s.base + s.step * j) &
						  OS_MASK))
					os_report(c, os_modes[m].name, i,
						  p[j], (long)((s.base +
						  s.step * j) & OS_MASK));
		}
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
		mine[1] = os_coll(c, o->mode, size, first, n, o->barrier);
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

	if (o->mode != OS_RING)
		os_coll_fill(c, o->mode, size / 4);
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
	int k;

	if (c->rank == 0)
		printf("# oversub %s, %d ranks, size in bytes, %s%s\n",
		       os_modes[o->mode].name, c->nranks,
		       os_modes[o->mode].what,
		       o->mode == OS_RING ? "" : o->barrier ?
		       ", barrier after each, mean over ranks" :
		       ", back to back, slowest rank");
	/* A barrier carries no data: one measurement, whatever -m says. */
	if (o->mode == OS_BARRIER) {
		us = os_measure(o, c, 0);
		if (c->rank == 0)
			printf("0,%.3f\n", us);
		return;
	}
	for (k = 0; k < o->nsizes; k++) {
		size = o->sizes[k];
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
	if (os_modes[o.mode].blocks)
		bytes *= (size_t)c.nranks;
	c.in = malloc(bytes);
	c.out = malloc(bytes);
	if (!c.msg || !c.in || !c.out) {
		fprintf(stderr, "oversub: rank %d: cannot allocate buffers of %zu "
			"bytes\n", c.rank, bytes);
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	memset(c.msg, OS_FILL, o.max > 4 ? (size_t)o.max : 4);
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
