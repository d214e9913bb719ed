/* SPDX-License-Identifier: MIT */
/*
 * Overlap of a nonblocking allreduce with computation (issue 5). Each
 * repetition times, on every rank at once, (a) MPI_Iallreduce (MPI_SUM
 * of doubles) then MPI_Wait, t_comm; (b) work alone, t_work: a compute
 * loop that touches neither MPI nor memory, cut into slices of about
 * 100 us of CPU time and calibrated so that all ranks together take
 * about t_comm; (c) MPI_Iallreduce, then the same work with MPI_Test
 * after every slice, then MPI_Wait, t_overlap. Each runs from the first
 * rank's start to the last rank's end, read on CLOCK_MONOTONIC, which
 * all ranks of one host share: with more ranks than cores a rank's own
 * clock would start only when it gets a core, and hide the wait. So
 * the ranks must share one host. The report is the median of each over
 * the repetitions
 * and the ratio t_overlap / max(t_comm, t_work): 1.0 means the
 * reduction ran entirely behind the work, 2.0 that the two took their
 * sum. Every reduction's result is checked; a wrong one makes the exit
 * status 1. Standard MPI only, so that one binary built by mpicc.mpich
 * runs on MPICH and on Michi. Rank 0 prints "# ..." lines, a
 * "# times,size,t_comm,t_work,t_overlap" line and a "size,ratio" CSV
 * line (bench/compare.sh keeps both).
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

#define OL_MAX_SIZE	(1L << 28)
/* Repetitions that calibrate the work: enough for a median that one
 * scheduler slice cannot move. */
#define OL_CALIB_REPS	5
/* CPU time of one calibration run of the work loop: long enough that a
 * clock tick is noise, short enough to escape most preemptions. */
#define OL_CALIB_CPU	0.01

struct ol_opts {
	long size;	/* bytes, a multiple of 8 */
	long reps;
	long warmup;
	double slice;	/* seconds of CPU time between MPI_Test calls */
};

static void ol_usage(FILE *f)
{
	fprintf(f,
		"usage: overlap [-m bytes] [-i reps] [-w reps] [-p us]\n"
		"  -m  message size in bytes, a multiple of 8 (default 1048576)\n"
		"  -i  measured repetitions of the three timings (default 21)\n"
		"  -w  warm-up reductions before calibrating (default 5)\n"
		"  -p  CPU time of a work slice between MPI_Test calls, in us\n"
		"      (default 100)\n");
}

/* Returns 0 to run, 1 after -h, -1 on bad usage; only rank 0 prints. */
static int ol_parse(int argc, char **argv, struct ol_opts *o, int rank)
{
	long us;
	int c;

	o->size = 1L << 20;
	o->reps = 21;
	o->warmup = 5;
	o->slice = 100e-6;
	while ((c = getopt(argc, argv, "m:i:w:p:h")) != -1) {
		switch (c) {
		case 'm':
			if (bench_parse_long(optarg, 8, OL_MAX_SIZE, &o->size) ||
			    o->size % 8)
				goto err_bad;
			break;
		case 'i':
			if (bench_parse_long(optarg, 1, 1000000, &o->reps))
				goto err_bad;
			break;
		case 'w':
			if (bench_parse_long(optarg, 0, 1000000, &o->warmup))
				goto err_bad;
			break;
		case 'p':
			if (bench_parse_long(optarg, 1, 1000000, &us))
				goto err_bad;
			o->slice = us * 1e-6;
			break;
		case 'h':
			if (rank == 0)
				ol_usage(stdout);
			return 1;
		default:
			goto err_bad;
		}
	}
	if (optind != argc)
		goto err_bad;
	return 0;

err_bad:
	if (rank == 0)
		ol_usage(stderr);
	return -1;
}

struct ol_ctx {
	int rank, nranks;
	long bad;		/* wrong results seen by this rank */
	long count;		/* doubles per reduction */
	long calls;		/* reductions so far, for the changing element */
	double *in, *out;
	long units;		/* work loop iterations per slice */
	long slices;		/* slices of work per repetition */
};

/* Keeps the work loop's result alive, so that it is not optimised away. */
static volatile double ol_sink;

/*
 * A dependent chain of multiply-adds: no memory traffic, no MPI, and
 * without -ffast-math a compiler may neither reorder nor shorten it.
 * x tends to 0.5 / (1 - 0.999999) and stays finite.
 */
static void ol_work(long units)
{
	double x = ol_sink;
	long u;

	for (u = 0; u < units; u++)
		x = x * 0.999999 + 0.5;
	ol_sink = x;
}

static double ol_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double ol_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* A start and an end on this rank's clock, negated start first, so that
 * one MPI_MAX gives the earliest start and the latest end. */
struct ol_span {
	double neg_start, end;
};

/*
 * Work loop iterations per slice of CPU time. CPU time rather than wall
 * time, since with more ranks than cores a rank is preempted during the
 * calibration; the fastest of the ranks' rates, since a preemption only
 * makes a rate lower, and every rank must do the same work.
 */
static long ol_calibrate_slice(const struct ol_opts *o)
{
	double t0, t, rate, best = 0;
	long k, units;
	int r;

	for (r = 0; r < OL_CALIB_REPS; r++) {
		for (k = 1024;; k *= 2) {
			t0 = ol_cpu_now();
			ol_work(k);
			t = ol_cpu_now() - t0;
			if (t >= OL_CALIB_CPU)
				break;
		}
		rate = k / t;
		if (rate > best)
			best = rate;
	}
	MPI_Allreduce(MPI_IN_PLACE, &best, 1, MPI_DOUBLE, MPI_MAX,
		      MPI_COMM_WORLD);
	units = (long)(best * o->slice);
	return units < 1 ? 1 : units;
}

static void ol_report(struct ol_ctx *c, long call, long j, double got,
		      double want)
{
	/* One line per rank is enough to debug; a flood would hide it. */
	if (c->bad++ == 0)
		fprintf(stderr, "overlap: rank %d: reduction %ld wrong at "
			"element %ld: got %.17g, expected %.17g\n", c->rank,
			call, j, got, want);
}

/*
 * Element j of rank r's contribution is r + 1 + j, except element 0,
 * which is r + 1 + v with v changing with each reduction, so a result
 * left over from an earlier one is caught. Sums of small integers are
 * exact in doubles.
 */
static void ol_fill(struct ol_ctx *c)
{
	long j;

	for (j = 0; j < c->count; j++)
		c->out[j] = c->rank + 1 + j;
}

static long ol_start(struct ol_ctx *c, MPI_Request *req)
{
	long v = c->calls++ & 1023;

	c->out[0] = c->rank + 1 + v;
	MPI_Iallreduce(c->out, c->in, (int)c->count, MPI_DOUBLE, MPI_SUM,
		       MPI_COMM_WORLD, req);
	return v;
}

static void ol_check(struct ol_ctx *c, long v)
{
	double p = c->nranks, base = p * (p + 1) / 2;
	long j;

	if (c->in[0] != base + p * v)
		ol_report(c, c->calls - 1, 0, c->in[0], base + p * v);
	for (j = 1; j < c->count; j++)
		if (c->in[j] != base + p * j)
			ol_report(c, c->calls - 1, j, c->in[j], base + p * j);
}

/* (a): Iallreduce and Wait. */
static struct ol_span ol_comm(struct ol_ctx *c)
{
	struct ol_span t;
	MPI_Request req;
	long v;

	MPI_Barrier(MPI_COMM_WORLD);
	t.neg_start = -ol_now();
	v = ol_start(c, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	t.end = ol_now();
	ol_check(c, v);
	return t;
}

/* (b): the work alone, in the same slices as (c). */
static struct ol_span ol_work_alone(struct ol_ctx *c)
{
	struct ol_span t;
	long s;

	MPI_Barrier(MPI_COMM_WORLD);
	t.neg_start = -ol_now();
	for (s = 0; s < c->slices; s++)
		ol_work(c->units);
	t.end = ol_now();
	return t;
}

/*
 * (c): Iallreduce, work with MPI_Test after each slice until the
 * reduction is seen complete, then Wait; *seen gets the number of
 * slices done when MPI_Test first said so (slices + 1 when only
 * MPI_Wait finished it).
 */
static struct ol_span ol_overlapped(struct ol_ctx *c, double *seen)
{
	struct ol_span t;
	MPI_Request req;
	int done = 0;
	long s, v, at;

	MPI_Barrier(MPI_COMM_WORLD);
	t.neg_start = -ol_now();
	v = ol_start(c, &req);
	at = c->slices + 1;
	for (s = 0; s < c->slices; s++) {
		ol_work(c->units);
		if (!done) {
			MPI_Test(&req, &done, MPI_STATUS_IGNORE);
			if (done)
				at = s + 1;
		}
	}
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	t.end = ol_now();
	ol_check(c, v);
	*seen = (double)at;
	return t;
}

static int ol_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v. */
static double ol_median(double *v, long n)
{
	qsort(v, n, sizeof(*v), ol_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Seconds from the first rank's start to the last rank's end. */
static double ol_global(struct ol_span t)
{
	MPI_Allreduce(MPI_IN_PLACE, &t, 2, MPI_DOUBLE, MPI_MAX,
		      MPI_COMM_WORLD);
	return t.end + t.neg_start;
}

/*
 * Slices of work that take as long as the reduction when every rank
 * works at once (with more ranks than cores that is more than their CPU
 * time): a first guess from the slice's CPU time, corrected once by the
 * median of measured runs.
 */
static void ol_calibrate_work(const struct ol_opts *o, struct ol_ctx *c)
{
	double comm[OL_CALIB_REPS], work[OL_CALIB_REPS], t_comm, t_work;
	long s;
	int r;

	for (r = 0; r < OL_CALIB_REPS; r++)
		comm[r] = ol_global(ol_comm(c));
	t_comm = ol_median(comm, OL_CALIB_REPS);
	s = (long)(t_comm / o->slice + 0.5);
	c->slices = s < 1 ? 1 : s;
	for (r = 0; r < OL_CALIB_REPS; r++)
		work[r] = ol_global(ol_work_alone(c));
	t_work = ol_median(work, OL_CALIB_REPS);
	if (t_work > 0) {
		s = (long)(c->slices * t_comm / t_work + 0.5);
		c->slices = s < 1 ? 1 : s;
	}
}

static void ol_print(const char *name, double *v, long n, double *med)
{
	*med = ol_median(v, n);
	printf("# %-9s %12.1f us (min %.1f, max %.1f)\n", name, *med * 1e6,
	       v[0] * 1e6, v[n - 1] * 1e6);
}

static int ol_run(const struct ol_opts *o, struct ol_ctx *c)
{
	struct ol_span sa, sb, sc;
	double *comm, *work, *ovl, *ratio, *seen, t[7], m_comm, m_work,
	       m_ovl, m_ratio, m_seen, big;
	long r;

	comm = malloc(5 * o->reps * sizeof(*comm));
	if (!comm)
		return -1;
	work = comm + o->reps;
	ovl = work + o->reps;
	ratio = ovl + o->reps;
	seen = ratio + o->reps;

	for (r = 0; r < o->warmup; r++)
		ol_comm(c);
	c->units = ol_calibrate_slice(o);
	ol_calibrate_work(o, c);
	if (c->rank == 0) {
		printf("# overlap, %d ranks, MPI_Iallreduce of %ld B (%ld "
		       "doubles, MPI_SUM) with MPI_Test after each %.0f us "
		       "(CPU) slice of work\n", c->nranks, o->size, c->count,
		       o->slice * 1e6);
		printf("# work: %ld slices of %ld loop iterations; median of "
		       "%ld repetitions, first start to last end\n", c->slices, c->units,
		       o->reps);
		fflush(stdout);
	}
	/* Interleaved, so that drift and other load hit all three alike. */
	for (r = 0; r < o->reps; r++) {
		sa = ol_comm(c);
		sb = ol_work_alone(c);
		sc = ol_overlapped(c, &t[6]);
		t[0] = sa.neg_start;
		t[1] = sa.end;
		t[2] = sb.neg_start;
		t[3] = sb.end;
		t[4] = sc.neg_start;
		t[5] = sc.end;
		MPI_Allreduce(MPI_IN_PLACE, t, 7, MPI_DOUBLE, MPI_MAX,
			      MPI_COMM_WORLD);
		comm[r] = t[1] + t[0];
		work[r] = t[3] + t[2];
		ovl[r] = t[5] + t[4];
		seen[r] = t[6];
		big = comm[r] > work[r] ? comm[r] : work[r];
		ratio[r] = ovl[r] / big;
	}
	if (c->rank == 0) {
		ol_print("t_comm", comm, o->reps, &m_comm);
		ol_print("t_work", work, o->reps, &m_work);
		ol_print("t_overlap", ovl, o->reps, &m_ovl);
		m_ratio = ol_median(ratio, o->reps);
		m_seen = ol_median(seen, o->reps);
		printf("# per repetition t_overlap / max(t_comm, t_work): "
		       "median %.3f (min %.3f, max %.3f)\n", m_ratio,
		       ratio[0], ratio[o->reps - 1]);
		printf("# slices done when MPI_Test first saw completion: "
		       "median %.0f of %ld (%ld: only MPI_Wait completed it)\n",
		       m_seen, c->slices, c->slices + 1);
		big = m_comm > m_work ? m_comm : m_work;
		printf("# times,%ld,%.1f,%.1f,%.1f\n", o->size, m_comm * 1e6,
		       m_work * 1e6, m_ovl * 1e6);
		printf("%ld,%.3f\n", o->size, m_ovl / big);
		fflush(stdout);
	}
	free(comm);
	return 0;
}

int main(int argc, char **argv)
{
	struct ol_opts o;
	struct ol_ctx c = { 0 };
	long bad_total = 0;
	int ret;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c.nranks);
	ret = ol_parse(argc, argv, &o, c.rank);
	if (ret) {
		MPI_Finalize();
		return ret > 0 ? 0 : 2;
	}

	c.count = o.size / 8;
	c.in = malloc(o.size);
	c.out = malloc(o.size);
	if (!c.in || !c.out) {
		fprintf(stderr, "overlap: rank %d: cannot allocate 2 x %ld "
			"bytes\n", c.rank, o.size);
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	/* Written once, so that no page fault lands in a timed loop. */
	memset(c.in, 0, o.size);
	ol_fill(&c);

	if (ol_run(&o, &c)) {
		fprintf(stderr, "overlap: rank %d: out of memory\n", c.rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}

	MPI_Allreduce(&c.bad, &bad_total, 1, MPI_LONG, MPI_SUM,
		      MPI_COMM_WORLD);
	if (c.rank == 0 && bad_total)
		fprintf(stderr, "overlap: %ld wrong results\n", bad_total);
	free(c.in);
	free(c.out);
	MPI_Finalize();
	return bad_total ? 1 : 0;
}
