/* SPDX-License-Identifier: MIT */
/*
 * Point-to-point micro-benchmark used to compare Michi with MPICH and
 * Open MPI (see BENCH.md). It uses only standard MPI so that one binary
 * built by mpicc.mpich runs on MPICH and on Michi. Two modes: latency is
 * half the round trip of a blocking Send/Recv ping-pong; bandwidth is
 * OSU-style, a window of non-blocking sends closed by a 4-byte ack. Rank 0
 * prints one "size,value" CSV line per size (microseconds or MB/s, with
 * MB = 10^6 bytes); ranks beyond 1 only join the barriers.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include "bench_common.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PP_WINDOW	64
#define PP_TAG		17
#define PP_ACK_TAG	18
#define PP_MAX_SIZE	(1L << 30)
/* Above this size the iteration count shrinks in proportion, so that a
 * sweep to 4 MiB still finishes in seconds (the OSU suites do the same). */
#define PP_SCALE_ABOVE	8192L
#define PP_MIN_ITERS	10

enum pp_mode { PP_LAT, PP_BW };

struct pp_opts {
	enum pp_mode mode;
	long min, max;
	long iters;	/* latency: round trips; bandwidth: windows */
	long warmup;	/* -1: a tenth of iters */
};

static void pp_usage(FILE *f)
{
	fprintf(f,
		"usage: pingpong [-t lat|bw] [-m min:max] [-i iters] [-w warmup]\n"
		"  -t  lat: half round trip in us (default); bw: MB/s, window %d\n"
		"  -m  message sizes in bytes, doubling from min to max\n"
		"      (default 1:4194304; max is always included)\n"
		"  -i  iterations at sizes <= %ld B (default lat 10000, bw 100),\n"
		"      scaled down in proportion above, at least %d\n"
		"  -w  warm-up iterations per size (default iters/10, at least 2)\n",
		PP_WINDOW, PP_SCALE_ABOVE, PP_MIN_ITERS);
}

static int pp_parse(int argc, char **argv, struct pp_opts *o)
{
	int c;

	o->mode = PP_LAT;
	o->min = 1;
	o->max = 4L << 20;
	o->iters = -1;
	o->warmup = -1;
	while ((c = getopt(argc, argv, "t:m:i:w:h")) != -1) {
		switch (c) {
		case 't':
			if (!strcmp(optarg, "lat"))
				o->mode = PP_LAT;
			else if (!strcmp(optarg, "bw"))
				o->mode = PP_BW;
			else
				goto err_bad;
			break;
		case 'm':
			if (bench_parse_range(optarg, 0, PP_MAX_SIZE, &o->min, &o->max))
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
		case 'h':
			pp_usage(stdout);
			exit(0);
		default:
			goto err_bad;
		}
	}
	if (optind != argc)
		goto err_bad;
	if (o->iters < 0)
		o->iters = o->mode == PP_LAT ? 10000 : 100;
	return 0;

err_bad:
	pp_usage(stderr);
	return -1;
}

static long pp_iters(const struct pp_opts *o, long size)
{
	return bench_scaled_iters(o->iters, size, PP_SCALE_ABOVE, PP_MIN_ITERS);
}

static long pp_warmup(const struct pp_opts *o, long n)
{
	return bench_warmup(o->warmup, n);
}

/* Returns the elapsed seconds of n round trips, measured on rank 0. */
static double pp_lat_run(char *buf, long size, long n, int rank)
{
	double t0 = 0;
	long i;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < n; i++) {
		if (rank == 0) {
			MPI_Send(buf, (int)size, MPI_CHAR, 1, PP_TAG,
				 MPI_COMM_WORLD);
			MPI_Recv(buf, (int)size, MPI_CHAR, 1, PP_TAG,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(buf, (int)size, MPI_CHAR, 0, PP_TAG,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, (int)size, MPI_CHAR, 0, PP_TAG,
				 MPI_COMM_WORLD);
		}
	}
	return MPI_Wtime() - t0;
}

/* Returns the elapsed seconds of n windows, measured on rank 0. The
 * whole window shares one buffer, as in the OSU suite: the benchmark
 * measures the transport, not the memory system's capacity. */
static double pp_bw_run(char *buf, long size, long n, int rank)
{
	MPI_Request req[PP_WINDOW];
	/* A status array rather than MPI_STATUSES_IGNORE: gcc 12 misreads
	 * MPICH's prototype and warns on the latter. */
	MPI_Status st[PP_WINDOW];
	char ack[4] = { 0 };
	double t0;
	long i;
	int w;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < n; i++) {
		if (rank == 0) {
			for (w = 0; w < PP_WINDOW; w++)
				MPI_Isend(buf, (int)size, MPI_CHAR, 1, PP_TAG,
					  MPI_COMM_WORLD, &req[w]);
			MPI_Waitall(PP_WINDOW, req, st);
			MPI_Recv(ack, 4, MPI_CHAR, 1, PP_ACK_TAG,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			for (w = 0; w < PP_WINDOW; w++)
				MPI_Irecv(buf, (int)size, MPI_CHAR, 0, PP_TAG,
					  MPI_COMM_WORLD, &req[w]);
			MPI_Waitall(PP_WINDOW, req, st);
			MPI_Send(ack, 4, MPI_CHAR, 0, PP_ACK_TAG,
				 MPI_COMM_WORLD);
		}
	}
	return MPI_Wtime() - t0;
}

static void pp_sweep(const struct pp_opts *o, char *buf, int rank)
{
	double secs, value;
	long size, n;

	if (rank == 0)
		printf("# pingpong %s, size in bytes, %s\n",
		       o->mode == PP_LAT ? "lat" : "bw",
		       o->mode == PP_LAT ? "half round trip in us" :
		       "MB/s (10^6 bytes), window 64");
	for (size = o->min;; size = size ? size * 2 : 1) {
		if (size > o->max)
			size = o->max;
		n = pp_iters(o, size);
		if (o->mode == PP_LAT) {
			pp_lat_run(buf, size, pp_warmup(o, n), rank);
			secs = pp_lat_run(buf, size, n, rank);
			value = secs * 1e6 / (2.0 * n);
		} else {
			pp_bw_run(buf, size, pp_warmup(o, n), rank);
			secs = pp_bw_run(buf, size, n, rank);
			value = (double)size * PP_WINDOW * n / secs / 1e6;
		}
		if (rank == 0) {
			printf("%ld,%.3f\n", size, value);
			fflush(stdout);
		}
		if (size == o->max)
			break;
	}
}

int main(int argc, char **argv)
{
	struct pp_opts o;
	int rank, nranks, bad;
	long page;
	void *buf = NULL;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	bad = pp_parse(argc, argv, &o);
	if (!bad && nranks < 2) {
		if (rank == 0)
			fprintf(stderr, "pingpong: needs at least 2 ranks, "
				"got %d\n", nranks);
		bad = 1;
	}
	if (bad) {
		MPI_Finalize();
		return 2;
	}

	/* Page-aligned, and written once so that no page fault lands in
	 * a timed loop. */
	page = sysconf(_SC_PAGESIZE);
	if (posix_memalign(&buf, page, o.max ? o.max : 1)) {
		fprintf(stderr, "pingpong: rank %d: cannot allocate %ld "
			"bytes\n", rank, o.max);
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	memset(buf, rank + 1, o.max ? o.max : 1);

	pp_sweep(&o, buf, rank);

	free(buf);
	MPI_Finalize();
	return 0;
}
