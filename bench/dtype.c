/* SPDX-License-Identifier: MIT */
/*
 * Derived-datatype benchmarks used to compare Michi with MPICH and Open
 * MPI (see BENCH.md and issue 4). Standard MPI only, so that one binary
 * built by mpicc.mpich runs on MPICH and on Michi. "vector" and "indexed"
 * are blocking ping-pongs between ranks 0 and 1 in which both sides send
 * and receive one element of a non-contiguous type: a vector of doubles
 * at stride 2, or an indexed type of irregular blocks; the value is half
 * the round trip in microseconds, the size the packed bytes. "pack" times
 * MPI_Pack of a vector of B-byte blocks at stride 2B, 8 MiB packed, on
 * rank 0 alone; "memcpy" times one plain memcpy of the same 8 MiB, the
 * reference bandwidth that MPI_Pack is held to (both in MB/s, 10^6
 * bytes/s, size = B). "packratio" times the two in alternating pairs and
 * prints memcpy's time over the pack's (size = B), so that a machine
 * whose memory bandwidth drifts moves both alike. At each size the first transfer each way, the
 * buffers after the timed loop and the first pack are checked against a
 * layout this file computes itself, not through the library under test;
 * a wrong result makes the exit status 1. Rank 0 prints one "size,value"
 * CSV line per size.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include "bench_common.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DT_TAG		29
#define DT_DONE_TAG	30
/* Data doubles of one vector or indexed element: 512 MiB packed, with
 * int displacements (in doubles) far from overflow. */
#define DT_MAX_N	(1L << 26)
#define DT_DEFAULT_N	(1L << 20)
/* pack and memcpy: packed bytes per repetition, and the largest block */
#define DT_PACK_TOTAL	(8L << 20)
/* As in pingpong.c: above this many packed bytes the round-trip count
 * shrinks in proportion. */
#define DT_SCALE_ABOVE	8192L
/* The default size is the largest, so this floor sets its count there:
 * a round trip of 1 Mi doubles takes from a few to a few hundred
 * milliseconds (MPICH's indexed type), so 20 keep a run within seconds. */
#define DT_MIN_ITERS	20
/* pack and memcpy calibrate like oversub.c: doubling warm-up batches,
 * at least 1, 2 and 4 repetitions, until one takes this share of the
 * budget; then the timed loop runs for about the budget. */
#define DT_CALIB_SHARE	0.1
#define DT_CALIB_MIN_K	4
#define DT_MIN_REPS	10

enum dt_mode { DT_VECTOR, DT_INDEXED, DT_PACK, DT_MEMCPY, DT_PACKRATIO };

static const char *const dt_mode_names[] = {
	[DT_VECTOR] = "vector",
	[DT_INDEXED] = "indexed",
	[DT_PACK] = "pack",
	[DT_MEMCPY] = "memcpy",
	[DT_PACKRATIO] = "packratio",
};

struct dt_opts {
	enum dt_mode mode;
	long min, max;	/* vector, indexed: data doubles; pack, memcpy: B */
	long iters;	/* round trips at <= 8 KiB packed, or the most reps */
	long warmup;	/* vector, indexed; -1: a tenth of the round trips */
	double budget;	/* pack, memcpy: timed seconds per size; -1: 0.2 */
};

static void dt_usage(FILE *f)
{
	fprintf(f,
		"usage: dtype [-t vector|indexed|pack|memcpy|packratio] [-m min:max]\n"
		"             [-i iters] [-w warmup] [-s secs]\n"
		"  -t  vector: ping-pong of MPI_Type_vector(n, 1, 2, MPI_DOUBLE)\n"
		"      (default); indexed: ping-pong of an MPI_Type_indexed of n\n"
		"      doubles in blocks of 1, 2, ..., 8 doubles with gaps of 1, 2,\n"
		"      3 doubles; both print packed bytes, us per one-way transfer\n"
		"      (half round trip). pack: MPI_Pack on rank 0 of\n"
		"      MPI_Type_vector(8 MiB / B, B/8, B/4, MPI_DOUBLE), B-byte\n"
		"      blocks at stride 2B; memcpy: one memcpy of 8 MiB, the\n"
		"      reference; both print B, MB/s (10^6 bytes/s) of packed data.\n"
		"      packratio: the two in alternation, one pack then one memcpy\n"
		"      (in turn the other way round), so that both see the same\n"
		"      machine; prints B, the median over the pairs of memcpy's\n"
		"      time over the pack's (MPI_Pack's bandwidth as a share of\n"
		"      memcpy's)\n"
		"  -m  vector, indexed: n in doubles, doubling from min to max\n"
		"      (default %ld:%ld); pack, memcpy, packratio: B in bytes, doubling\n"
		"      (default 8:4096; B must be a multiple of 8 dividing 8 MiB,\n"
		"      others are skipped); max is always included\n"
		"  -i  vector, indexed: round trips at packed sizes <= %ld B\n"
		"      (default 10000), scaled down in proportion above, at least\n"
		"      %d; pack, memcpy: at most this many timed repetitions,\n"
		"      packratio: pairs, at most 100000 (default 1000000)\n"
		"  -w  vector, indexed: warm-up round trips (default a tenth, at\n"
		"      least 2)\n"
		"  -s  pack, memcpy, packratio: timed seconds per size (default 0.2), after\n"
		"      a shorter warm-up\n",
		DT_DEFAULT_N, DT_DEFAULT_N, DT_SCALE_ABOVE, DT_MIN_ITERS);
}

static int dt_is_pingpong(enum dt_mode m)
{
	return m == DT_VECTOR || m == DT_INDEXED;
}

/* Returns 0 to run, 1 after -h, -1 on bad usage; only rank 0 prints. */
static int dt_parse(int argc, char **argv, struct dt_opts *o, int rank)
{
	int c, m;

	o->mode = DT_VECTOR;
	o->min = -1;
	o->max = -1;
	o->iters = -1;
	o->warmup = -1;
	o->budget = -1;
	while ((c = getopt(argc, argv, "t:m:i:w:s:h")) != -1) {
		switch (c) {
		case 't':
			for (m = DT_VECTOR; m <= DT_PACKRATIO; m++)
				if (!strcmp(optarg, dt_mode_names[m]))
					break;
			if (m > DT_PACKRATIO)
				goto err_bad;
			o->mode = m;
			break;
		case 'm':
			if (bench_parse_range(optarg, 1, DT_MAX_N, &o->min, &o->max))
				goto err_bad;
			break;
		case 'i':
			if (bench_parse_long(optarg, 1, 1L << 40, &o->iters))
				goto err_bad;
			break;
		case 'w':
			if (bench_parse_long(optarg, 0, 1L << 40, &o->warmup))
				goto err_bad;
			break;
		case 's':
			if (bench_parse_secs(optarg, &o->budget))
				goto err_bad;
			break;
		case 'h':
			if (rank == 0)
				dt_usage(stdout);
			return 1;
		default:
			goto err_bad;
		}
	}
	if (optind != argc)
		goto err_bad;
	if (dt_is_pingpong(o->mode)) {
		if (o->budget >= 0)
			goto err_bad;
		if (o->min < 0)
			o->min = o->max = DT_DEFAULT_N;
		if (o->iters < 0)
			o->iters = 10000;
	} else {
		if (o->warmup >= 0 || o->max > DT_PACK_TOTAL)
			goto err_bad;
		if (o->min < 0) {
			o->min = 8;
			o->max = 4096;
		}
		if (o->iters < 0)
			o->iters = 1000000;
		if (o->budget < 0)
			o->budget = 0.2;
	}
	return 0;

err_bad:
	if (rank == 0)
		dt_usage(stderr);
	return -1;
}

/* --- checks -------------------------------------------------------- */

struct dt_ctx {
	int rank, nranks;
	long bad;	/* wrong doubles or lengths seen by this rank */
};

static void dt_report(struct dt_ctx *c, const char *what, long size,
		      long at, double got, double want)
{
	/* One line per rank is enough to debug; a flood would hide it. */
	if (c->bad++ == 0)
		fprintf(stderr, "dtype: rank %d: %s wrong at size %ld, "
			"index %ld: got %.17g, expected %.17g\n", c->rank,
			what, size, at, got, want);
}

/*
 * Where the n data doubles of one element of a type lie in its buffer, in
 * type order: block b holds len[b] doubles from double disp[b]. Built here
 * apart from the MPI type, so that the checks do not trust the library
 * under test to describe its own type.
 */
struct dt_layout {
	long n;		/* data doubles */
	long nblocks;
	int *len, *disp;
	long span;	/* doubles from the first data double to past the last */
};

static int dt_layout_alloc(struct dt_layout *l, long nblocks)
{
	l->nblocks = nblocks;
	l->len = malloc(nblocks * sizeof(*l->len));
	l->disp = malloc(nblocks * sizeof(*l->disp));
	if (!l->len || !l->disp) {
		free(l->len);
		free(l->disp);
		return -1;
	}
	return 0;
}

/* MPI_Type_vector(n, 1, 2, MPI_DOUBLE): n blocks of one double. */
static int dt_layout_vector(struct dt_layout *l, long n)
{
	long b;

	if (dt_layout_alloc(l, n))
		return -1;
	for (b = 0; b < n; b++) {
		l->len[b] = 1;
		l->disp[b] = (int)(2 * b);
	}
	l->n = n;
	l->span = 2 * n - 1;
	return 0;
}

/*
 * Block b holds b % 8 + 1 doubles and is followed by a gap of b % 3 + 1;
 * 8 and 3 being coprime, the pattern repeats only every 24 blocks (108
 * data doubles, 48 gap doubles). The last block is cut short so that the
 * data is exactly n doubles, the same packed size as the vector's.
 */
static int dt_layout_indexed(struct dt_layout *l, long n)
{
	long b, nb, k, at;

	for (nb = 0, k = 0; k < n; nb++)
		k += nb % 8 + 1;
	if (dt_layout_alloc(l, nb))
		return -1;
	for (b = 0, k = 0, at = 0; b < nb; b++) {
		l->len[b] = (int)(b % 8 + 1 < n - k ? b % 8 + 1 : n - k);
		l->disp[b] = (int)at;
		k += l->len[b];
		at += l->len[b] + b % 3 + 1;
	}
	l->n = n;
	l->span = l->disp[nb - 1] + l->len[nb - 1];
	return 0;
}

static void dt_layout_free(struct dt_layout *l)
{
	free(l->len);
	free(l->disp);
}

/* Sets data double k (in type order) to base + k and every gap to gap. */
static void dt_fill(double *buf, const struct dt_layout *l, double base,
		    double gap)
{
	long b, j, k = 0, at = 0;

	for (b = 0; b < l->nblocks; b++) {
		for (; at < l->disp[b]; at++)
			buf[at] = gap;
		for (j = 0; j < l->len[b]; j++)
			buf[at++] = base + (double)k++;
	}
}

/* Counts what differs from dt_fill(buf, l, base, gap): data doubles hold
 * a transfer's result, gaps must be left as they were. */
static void dt_check(struct dt_ctx *c, const double *buf,
		     const struct dt_layout *l, double base, double gap,
		     const char *what)
{
	long b, j, k = 0, at = 0;

	for (b = 0; b < l->nblocks; b++) {
		for (; at < l->disp[b]; at++)
			if (buf[at] != gap)
				dt_report(c, what, l->n * 8, at, buf[at], gap);
		for (j = 0; j < l->len[b]; j++, at++, k++)
			if (buf[at] != base + (double)k)
				dt_report(c, what, l->n * 8, at, buf[at],
					  base + (double)k);
	}
}

/* --- vector and indexed: ping-pong of one element of the type --------- */

/* Data values: exact in a double for every k below DT_MAX_N, and far
 * apart, so that a stale or misplaced double cannot pass for another. */
#define DT_DATA0	0.5
#define DT_DATA1	(1e9 + 0.25)
#define DT_UNSET1	(-1e12)
#define DT_GAP0		(-1.0)
#define DT_GAP1		(-2.0)

static long dt_pp_iters(const struct dt_opts *o, long bytes)
{
	return bench_scaled_iters(o->iters, bytes, DT_SCALE_ABOVE, DT_MIN_ITERS);
}

static long dt_pp_warmup(const struct dt_opts *o, long n)
{
	return bench_warmup(o->warmup, n);
}

static void dt_recv_one(struct dt_ctx *c, double *buf, MPI_Datatype type,
			int from, long size)
{
	MPI_Status st;
	int count;

	MPI_Recv(buf, 1, type, from, DT_TAG, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, type, &count);
	if (count != 1)
		dt_report(c, "element count", size, 0, count, 1);
}

/*
 * One checked exchange before timing: rank 0's data lands in rank 1's
 * buffer without touching its gaps, then rank 1's own data comes back the
 * same way. The timed loop then bounces rank 1's data unchanged, which
 * dt_pp_check_after() verifies on both sides.
 */
static void dt_pp_check_first(struct dt_ctx *c, double *buf,
			      const struct dt_layout *l, MPI_Datatype type)
{
	long size = l->n * 8;

	if (c->rank == 0)
		dt_fill(buf, l, DT_DATA0, DT_GAP0);
	else if (c->rank == 1)
		dt_fill(buf, l, DT_UNSET1, DT_GAP1);
	MPI_Barrier(MPI_COMM_WORLD);
	if (c->rank == 0) {
		MPI_Send(buf, 1, type, 1, DT_TAG, MPI_COMM_WORLD);
		dt_recv_one(c, buf, type, 1, size);
		dt_check(c, buf, l, DT_DATA1, DT_GAP0, "data from rank 1");
	} else if (c->rank == 1) {
		dt_recv_one(c, buf, type, 0, size);
		dt_check(c, buf, l, DT_DATA0, DT_GAP1, "data from rank 0");
		dt_fill(buf, l, DT_DATA1, DT_GAP1);
		MPI_Send(buf, 1, type, 0, DT_TAG, MPI_COMM_WORLD);
	}
}

static void dt_pp_check_after(struct dt_ctx *c, const double *buf,
			      const struct dt_layout *l)
{
	if (c->rank == 0)
		dt_check(c, buf, l, DT_DATA1, DT_GAP0, "data after timing");
	else if (c->rank == 1)
		dt_check(c, buf, l, DT_DATA1, DT_GAP1, "data after timing");
}

/* Returns the elapsed seconds of n round trips, measured on rank 0. */
static double dt_pp_run(double *buf, MPI_Datatype type, long n, int rank)
{
	double t0;
	long i;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < n; i++) {
		if (rank == 0) {
			MPI_Send(buf, 1, type, 1, DT_TAG, MPI_COMM_WORLD);
			MPI_Recv(buf, 1, type, 1, DT_TAG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, 1, type, 0, DT_TAG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(buf, 1, type, 0, DT_TAG, MPI_COMM_WORLD);
		}
	}
	return MPI_Wtime() - t0;
}

static int dt_type_make(const struct dt_opts *o, const struct dt_layout *l,
			MPI_Datatype *type)
{
	int rc;

	if (o->mode == DT_VECTOR)
		rc = MPI_Type_vector((int)l->n, 1, 2, MPI_DOUBLE, type);
	else
		rc = MPI_Type_indexed((int)l->nblocks, l->len, l->disp,
				      MPI_DOUBLE, type);
	if (rc == MPI_SUCCESS)
		rc = MPI_Type_commit(type);
	return rc == MPI_SUCCESS ? 0 : -1;
}

/* Returns the microseconds per one-way transfer of n data doubles. */
static double dt_pp_measure(const struct dt_opts *o, struct dt_ctx *c,
			    long n)
{
	struct dt_layout l;
	MPI_Datatype type;
	double *buf = NULL, secs;
	long iters, page = sysconf(_SC_PAGESIZE);
	int err;

	err = o->mode == DT_VECTOR ? dt_layout_vector(&l, n) :
	      dt_layout_indexed(&l, n);
	if (err)
		goto err_alloc;
	if (posix_memalign((void **)&buf, page, l.span * sizeof(double)))
		goto err_alloc_buf;
	if (dt_type_make(o, &l, &type)) {
		fprintf(stderr, "dtype: rank %d: cannot create the %s type "
			"of %ld doubles\n", c->rank, dt_mode_names[o->mode],
			n);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	/* The checked exchange also writes the whole buffer, so that no
	 * page fault lands in a timed loop. */
	dt_pp_check_first(c, buf, &l, type);
	iters = dt_pp_iters(o, n * 8);
	dt_pp_run(buf, type, dt_pp_warmup(o, iters), c->rank);
	secs = dt_pp_run(buf, type, iters, c->rank);
	dt_pp_check_after(c, buf, &l);
	if (c->rank == 0)
		printf("# n %ld doubles: %ld blocks over %ld B, %ld round "
		       "trips in %.3f s\n", n, l.nblocks,
		       l.span * (long)sizeof(double), iters, secs);

	MPI_Type_free(&type);
	free(buf);
	dt_layout_free(&l);
	return secs * 1e6 / (2.0 * iters);

err_alloc_buf:
	dt_layout_free(&l);
err_alloc:
	fprintf(stderr, "dtype: rank %d: cannot allocate the buffers for "
		"%ld doubles\n", c->rank, n);
	MPI_Abort(MPI_COMM_WORLD, 1);
	return 0;
}

static void dt_pp_sweep(const struct dt_opts *o, struct dt_ctx *c)
{
	double us;
	long n;

	if (c->rank == 0)
		printf("# dtype %s, %s, size in packed bytes (8 n), us per "
		       "one-way transfer (half round trip)\n",
		       dt_mode_names[o->mode], o->mode == DT_VECTOR ?
		       "MPI_Type_vector(n, 1, 2, MPI_DOUBLE)" :
		       "MPI_Type_indexed of n doubles, blocks 1..8, gaps 1..3");
	for (n = o->min;; n *= 2) {
		if (n > o->max)
			n = o->max;
		us = dt_pp_measure(o, c, n);
		if (c->rank == 0) {
			printf("%ld,%.3f\n", n * 8, us);
			fflush(stdout);
		}
		if (n == o->max)
			break;
	}
}

/* --- pack and memcpy: rank 0 alone ------------------------------------ */

/* Through a volatile pointer, so that the compiler can neither drop nor
 * merge repeated copies of the same bytes. */
static void *(*volatile dt_memcpy)(void *, const void *, size_t) = memcpy;

struct dt_pack {
	enum dt_mode mode;
	MPI_Datatype type;	/* pack: the vector of blocks */
	const double *src;	/* 2 x DT_PACK_TOTAL bytes */
	char *dst;
	int dst_bytes;
};

/* Returns the elapsed seconds of n repetitions. */
static double dt_pack_run(const struct dt_pack *p, long n)
{
	double t0 = MPI_Wtime();
	long i;
	int pos;

	for (i = 0; i < n; i++) {
		if (p->mode == DT_PACK) {
			pos = 0;
			MPI_Pack(p->src, 1, p->type, p->dst, p->dst_bytes,
				 &pos, MPI_COMM_WORLD);
		} else {
			dt_memcpy(p->dst, p->src, DT_PACK_TOTAL);
		}
	}
	return MPI_Wtime() - t0;
}

/* Packed double k comes from source double (k / blk) * stride + k % blk;
 * the source holds its own index. */
static void dt_pack_check(struct dt_ctx *c, const struct dt_pack *p,
			  long block)
{
	long k, blk = block / 8, stride = block / 4, want;
	const double *out = (const double *)p->dst;
	int pos = 0;

	if (p->mode == DT_PACK) {
		MPI_Pack(p->src, 1, p->type, p->dst, p->dst_bytes, &pos,
			 MPI_COMM_WORLD);
		if (pos != DT_PACK_TOTAL)
			dt_report(c, "MPI_Pack position", block, 0, pos,
				  DT_PACK_TOTAL);
	} else {
		dt_memcpy(p->dst, p->src, DT_PACK_TOTAL);
		blk = stride = 1;
	}
	for (k = 0; k < DT_PACK_TOTAL / 8; k++) {
		want = k / blk * stride + k % blk;
		if (out[k] != (double)want)
			dt_report(c, dt_mode_names[p->mode], block, k, out[k],
				  (double)want);
	}
}

/* The vector of B-byte blocks (pack) and the output buffer, checked
 * once. */
static void dt_pack_setup(struct dt_ctx *c, struct dt_pack *p, long block)
{
	int bytes;

	if (p->mode == DT_PACK) {
		if (MPI_Type_vector((int)(DT_PACK_TOTAL / block),
				    (int)(block / 8), (int)(block / 4),
				    MPI_DOUBLE, &p->type) != MPI_SUCCESS ||
		    MPI_Type_commit(&p->type) != MPI_SUCCESS ||
		    MPI_Pack_size(1, p->type, MPI_COMM_WORLD, &bytes) !=
		    MPI_SUCCESS || bytes < DT_PACK_TOTAL) {
			fprintf(stderr, "dtype: cannot create the vector of "
				"%ld-byte blocks\n", block);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	} else {
		bytes = DT_PACK_TOTAL;
	}
	p->dst = malloc(bytes);
	if (!p->dst) {
		fprintf(stderr, "dtype: cannot allocate %d bytes\n", bytes);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(p->dst, 0, bytes);
	p->dst_bytes = bytes;
	dt_pack_check(c, p, block);
}

static void dt_pack_teardown(struct dt_pack *p)
{
	free(p->dst);
	if (p->mode == DT_PACK)
		MPI_Type_free(&p->type);
}

/* Returns MB/s at block size B, on rank 0. */
static double dt_pack_measure(const struct dt_opts *o, struct dt_ctx *c,
			      struct dt_pack *p, long block)
{
	long k = 1, done = 0, n;
	double secs, per;

	dt_pack_setup(c, p, block);
	for (;;) {
		secs = dt_pack_run(p, k);
		done += k;
		if (k >= o->iters || (k >= DT_CALIB_MIN_K &&
		    secs >= o->budget * DT_CALIB_SHARE))
			break;
		k *= 2;
	}
	per = secs / (double)k;
	n = per > 0 ? (long)(o->budget / per) : o->iters;
	if (n < DT_MIN_REPS)
		n = DT_MIN_REPS;
	if (n > o->iters)
		n = o->iters;
	secs = dt_pack_run(p, n);
	printf("# block %ld B: %ld repetitions in %.3f s after %ld warm-up\n",
	       block, n, secs, done);
	dt_pack_teardown(p);
	return (double)DT_PACK_TOTAL * n / secs / 1e6;
}

static int dt_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts v. */
static double dt_median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), dt_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The most pairs of one packratio size (three arrays of doubles). */
#define DT_RATIO_MAX_PAIRS 100000L

/*
 * packratio at block size B, on rank 0: pairs of one MPI_Pack and one
 * memcpy of the same 8 MiB, pack first in even pairs and memcpy first in
 * odd ones, for about the time budget after a warm-up of a tenth of it.
 * Returns the median over the pairs of memcpy's time over the pack's;
 * the medians of each alone go to a comment line. A machine whose memory
 * bandwidth drifts between runs (a shared VM) moves both halves of a
 * pair alike.
 */
static double dt_ratio_measure(const struct dt_opts *o, struct dt_ctx *c,
			       const struct dt_pack *p, long block)
{
	struct dt_pack pk = *p, mc = *p;
	long i, n, max = o->iters < DT_RATIO_MAX_PAIRS ? o->iters : DT_RATIO_MAX_PAIRS;
	double *tp, *tm, *ratio, t0, t1, t2, warm_end, end, ret, mp, mm;

	pk.mode = DT_PACK;
	mc.mode = DT_MEMCPY;
	dt_pack_setup(c, &pk, block);
	dt_pack_setup(c, &mc, block);
	tp = malloc(3 * (size_t)max * sizeof(double));
	if (!tp) {
		fprintf(stderr, "dtype: cannot allocate the pair times\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	tm = tp + max;
	ratio = tm + max;
	warm_end = MPI_Wtime() + o->budget * DT_CALIB_SHARE;
	for (i = 0; i < DT_CALIB_MIN_K || MPI_Wtime() < warm_end; i++) {
		dt_pack_run(&pk, 1);
		dt_pack_run(&mc, 1);
	}
	end = MPI_Wtime() + o->budget;
	for (n = 0; n < max && (n < DT_MIN_REPS || MPI_Wtime() < end); n++) {
		const struct dt_pack *a = n % 2 ? &mc : &pk, *b = n % 2 ? &pk : &mc;

		t0 = MPI_Wtime();
		dt_pack_run(a, 1);
		t1 = MPI_Wtime();
		dt_pack_run(b, 1);
		t2 = MPI_Wtime();
		tp[n] = n % 2 ? t2 - t1 : t1 - t0;
		tm[n] = n % 2 ? t1 - t0 : t2 - t1;
		ratio[n] = tp[n] > 0 ? tm[n] / tp[n] : 0;
	}
	ret = dt_median(ratio, n);
	mp = dt_median(tp, n);
	mm = dt_median(tm, n);
	printf("# block %ld B: %ld pairs; median MPI_Pack %.1f MB/s, memcpy "
	       "%.1f MB/s; pair ratios %.3f-%.3f\n", block, n,
	       mp > 0 ? DT_PACK_TOTAL / mp / 1e6 : 0,
	       mm > 0 ? DT_PACK_TOTAL / mm / 1e6 : 0, ratio[0], ratio[n - 1]);
	free(tp);
	dt_pack_teardown(&pk);
	dt_pack_teardown(&mc);
	return ret;
}

/*
 * Every rank but 0 waits here while rank 0 measures alone. A blocking
 * wait busy-polls in MPICH and Open MPI, which would keep the other core
 * busy during the measurement for some implementations and not others;
 * a receive tested every millisecond leaves it idle. Point-to-point
 * rather than MPI_Ibarrier, which not every implementation compared
 * here provides.
 */
static void dt_wait_quietly(const struct dt_ctx *c)
{
	struct timespec ms = { 0, 1000000 };
	MPI_Request req;
	int r, done = 0;

	if (c->rank == 0) {
		for (r = 1; r < c->nranks; r++)
			MPI_Send(NULL, 0, MPI_BYTE, r, DT_DONE_TAG,
				 MPI_COMM_WORLD);
		return;
	}
	MPI_Irecv(NULL, 0, MPI_BYTE, 0, DT_DONE_TAG, MPI_COMM_WORLD, &req);
	for (;;) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (done)
			break;
		nanosleep(&ms, NULL);
	}
}

static void dt_pack_sweep(const struct dt_opts *o, struct dt_ctx *c)
{
	struct dt_pack p = { .mode = o->mode };
	double *src = NULL, mbs;
	long b, page = sysconf(_SC_PAGESIZE);

	if (c->rank != 0)
		goto out_wait;
	if (o->mode == DT_PACKRATIO)
		printf("# dtype packratio, rank 0 alone, size = block B in bytes, "
		       "value = memcpy's time over MPI_Pack's for %ld packed bytes "
		       "(MPI_Type_vector(8 MiB / B, B/8, B/4, MPI_DOUBLE)), median "
		       "of alternating pairs\n", DT_PACK_TOTAL);
	else
		printf("# dtype %s, rank 0 alone, size = block B in bytes, MB/s "
		       "(10^6 bytes/s) of %ld packed bytes, %s\n",
		       dt_mode_names[o->mode], DT_PACK_TOTAL, o->mode == DT_PACK ?
		       "MPI_Pack of MPI_Type_vector(8 MiB / B, B/8, B/4, MPI_DOUBLE)" :
		       "one memcpy of them, the same at every B");
	if (posix_memalign((void **)&src, page, 2 * DT_PACK_TOTAL)) {
		fprintf(stderr, "dtype: cannot allocate %ld bytes\n",
			2 * DT_PACK_TOTAL);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (b = 0; b < 2 * DT_PACK_TOTAL / 8; b++)
		src[b] = (double)b;
	p.src = src;
	for (b = o->min;; b *= 2) {
		if (b > o->max)
			b = o->max;
		if (b % 8 || DT_PACK_TOTAL % b) {
			printf("# block %ld B skipped: not a multiple of 8 "
			       "dividing %ld\n", b, DT_PACK_TOTAL);
		} else {
			if (o->mode == DT_PACKRATIO) {
				printf("%ld,%.4f\n", b, dt_ratio_measure(o, c, &p, b));
			} else {
				mbs = dt_pack_measure(o, c, &p, b);
				printf("%ld,%.3f\n", b, mbs);
			}
		}
		fflush(stdout);
		if (b == o->max)
			break;
	}
	free(src);
out_wait:
	dt_wait_quietly(c);
}

int main(int argc, char **argv)
{
	struct dt_opts o;
	struct dt_ctx c = { 0 };
	long bad_total = 0;
	int ret;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c.nranks);
	ret = dt_parse(argc, argv, &o, c.rank);
	if (!ret && dt_is_pingpong(o.mode) && c.nranks < 2) {
		if (c.rank == 0)
			fprintf(stderr, "dtype: %s needs at least 2 ranks, "
				"got %d\n", dt_mode_names[o.mode], c.nranks);
		ret = -1;
	}
	if (ret) {
		MPI_Finalize();
		return ret > 0 ? 0 : 2;
	}

	if (dt_is_pingpong(o.mode))
		dt_pp_sweep(&o, &c);
	else
		dt_pack_sweep(&o, &c);

	MPI_Allreduce(&c.bad, &bad_total, 1, MPI_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	if (c.rank == 0 && bad_total)
		fprintf(stderr, "dtype: %ld wrong results\n", bad_total);
	MPI_Finalize();
	return bad_total ? 1 : 0;
}
