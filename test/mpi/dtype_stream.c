/* SPDX-License-Identifier: MIT */
/*
 * Pipelined derived-datatype transfers (mpi/pt2pt/pt2pt_dt.c over MTMI's
 * streamed rendezvous): rank 0 packs while rank 1 already pulls and
 * unpacks. Between ranks 0 and 1, with an irregular indexed type (the
 * compact block form) and a vector (runs), each several MiB packed:
 * into the same type, into a contiguous derived type and into doubles;
 * blocking both sides; a receive shorter than the message
 * (MPI_ERR_TRUNCATE with the prefix in place, except over a matching
 * device, the library still usable);
 * a receive longer than it (MPI_Get_count); a wildcard receive; three
 * streamed sends in flight at once, received in reverse order; probe
 * then receive; a nonblocking receive. With DTYPE_STREAM_ASYM=1 in the
 * environment, rank 1 (PMI_RANK) turns its single-copy pull off before
 * MPI_Init, so every stream falls back to CTS and DATA, which must wait
 * for the sender's last byte.
 * Every value that lands is checked, and every gap must stay untouched.
 */
#include "mtest.h"

#define NDBL (3 << 18)   /* data doubles: 6 MiB packed */
#define GAP -1.0

struct layout {
	int nb, *len, *disp;
	long span;
};

/* Blocks of 1 to 8 doubles, gaps of 1 to 3: NDBL doubles in all. */
static void layout_make(struct layout *l)
{
	long k = 0, at = 0;
	int b;

	for (l->nb = 0, k = 0; k < NDBL; l->nb++)
		k += l->nb % 8 + 1;
	l->len = malloc(l->nb * sizeof(int));
	l->disp = malloc(l->nb * sizeof(int));
	if (!l->len || !l->disp)
		mtest_error("no memory for the layout");
	for (b = 0, k = 0; b < l->nb; b++) {
		l->len[b] = b % 8 + 1 < NDBL - k ? b % 8 + 1 : (int)(NDBL - k);
		l->disp[b] = (int)at;
		k += l->len[b];
		at += l->len[b] + b % 3 + 1;
	}
	l->span = at;
}

/* Sets data double k to base + k; gaps to GAP. */
static void fill(double *buf, const struct layout *l, double base)
{
	long at = 0, k = 0;
	int b, j;

	for (b = 0; b < l->nb; b++) {
		for (; at < l->disp[b]; at++)
			buf[at] = GAP;
		for (j = 0; j < l->len[b]; j++)
			buf[at++] = base + (double)k++;
	}
}

/* Data doubles 0 .. upto-1 must be base + k, later ones and gaps GAP. */
static void check(const double *buf, const struct layout *l, double base, long upto,
		  const char *what)
{
	long at = 0, k = 0, bad = 0;
	int b, j;

	for (b = 0; b < l->nb; b++) {
		for (; at < l->disp[b]; at++)
			bad += buf[at] != GAP;
		for (j = 0; j < l->len[b]; j++, at++, k++)
			bad += buf[at] != (k < upto ? base + (double)k : GAP);
	}
	if (bad)
		mtest_error("%s: %ld doubles wrong", what, bad);
}

static void clear(double *buf, long n)
{
	long i;

	for (i = 0; i < n; i++)
		buf[i] = GAP;
}

static void indexed_cases(void)
{
	struct layout l;
	MPI_Datatype t, half;
	MPI_Status st;
	MPI_Request rq[3];
	double *a[3], *b;
	int i, err, cnt, flag;

	layout_make(&l);
	MPI_Type_indexed(l.nb, l.len, l.disp, MPI_DOUBLE, &t);
	MPI_Type_commit(&t);
	/* the first half of the blocks: a receive too short for t */
	MPI_Type_indexed(l.nb / 2, l.len, l.disp, MPI_DOUBLE, &half);
	MPI_Type_commit(&half);
	for (i = 0; i < 3; i++) {
		a[i] = malloc(l.span * sizeof(double));
		if (!a[i])
			mtest_error("no memory");
		fill(a[i], &l, 1e7 * (i + 1));
	}
	b = malloc(l.span * sizeof(double));

	/* blocking */
	if (mtest_rank == 0) {
		MPI_Send(a[0], 1, t, 1, 1, MPI_COMM_WORLD);
	} else {
		clear(b, l.span);
		MPI_Recv(b, 1, t, 0, 1, MPI_COMM_WORLD, &st);
		check(b, &l, 1e7, NDBL, "blocking indexed");
		MPI_Get_count(&st, t, &cnt);
		if (cnt != 1)
			mtest_error("blocking indexed: count %d", cnt);
	}

	/* truncated: the prefix lands, the error is returned, and the
	 * library goes on */
	if (mtest_rank == 0) {
		MPI_Send(a[1], 1, t, 1, 2, MPI_COMM_WORLD);
	} else {
		long hd = 0;

		for (i = 0; i < l.nb / 2; i++)
			hd += l.len[i];
		clear(b, l.span);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		err = MPI_Recv(b, 1, half, 0, 2, MPI_COMM_WORLD, &st);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
		MPI_Error_class(err, &err);
		if (err != MPI_ERR_TRUNCATE)
			mtest_error("truncated indexed: error class %d", err);
		/* MPI leaves a truncated buffer's contents open; UCX delivers
		 * none of the message */
		if (!mtest_matching_device())
			check(b, &l, 2e7, hd, "truncated indexed");
	}

	/* longer receive than message: 2 instances posted, 1 sent */
	if (mtest_rank == 0) {
		MPI_Send(a[2], 1, t, 1, 3, MPI_COMM_WORLD);
	} else {
		double *big = malloc(2 * l.span * sizeof(double) + 64);
		MPI_Aint lb, ext;

		MPI_Type_get_extent(t, &lb, &ext);
		clear(big, 2 * l.span + 8);
		MPI_Recv(big, 2, t, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
		check(big, &l, 3e7, NDBL, "longer receive, wildcards");
		MPI_Get_count(&st, t, &cnt);
		if (cnt != 1 || st.MPI_SOURCE != 0 || st.MPI_TAG != 3)
			mtest_error("longer receive: count %d source %d tag %d", cnt, st.MPI_SOURCE,
				    st.MPI_TAG);
		if (big[ext / (MPI_Aint)sizeof(double)] != GAP)
			mtest_error("longer receive: the second instance was written");
		free(big);
	}

	/* three in flight, received in reverse order */
	if (mtest_rank == 0) {
		for (i = 0; i < 3; i++)
			MPI_Isend(a[i], 1, t, 1, 10 + i, MPI_COMM_WORLD, &rq[i]);
		MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
	} else {
		for (i = 2; i >= 0; i--) {
			char what[32];

			clear(b, l.span);
			MPI_Recv(b, 1, t, 0, 10 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			snprintf(what, sizeof(what), "in flight, tag %d", 10 + i);
			check(b, &l, 1e7 * (i + 1), NDBL, what);
		}
	}

	/* probe, then receive; then a nonblocking receive */
	if (mtest_rank == 0) {
		MPI_Send(a[1], 1, t, 1, 20, MPI_COMM_WORLD);
		MPI_Send(a[2], 1, t, 1, 21, MPI_COMM_WORLD);
	} else {
		MPI_Probe(0, 20, MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_DOUBLE, &cnt);
		if (cnt != NDBL)
			mtest_error("probe: %d doubles", cnt);
		clear(b, l.span);
		MPI_Recv(b, 1, t, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		check(b, &l, 2e7, NDBL, "probe then receive");
		clear(b, l.span);
		MPI_Irecv(b, 1, t, 0, 21, MPI_COMM_WORLD, &rq[0]);
		for (flag = 0; !flag;)
			MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
		check(b, &l, 3e7, NDBL, "nonblocking receive");
	}

	MPI_Type_free(&t);
	MPI_Type_free(&half);
	for (i = 0; i < 3; i++)
		free(a[i]);
	free(b);
	free(l.len);
	free(l.disp);
}

/* The indexed type into a contiguous derived type (received in place,
 * no staging) and into plain doubles. */
static void into_contiguous(void)
{
	struct layout l;
	MPI_Datatype t, contig;
	double *a, *b;
	long k, bad;
	int round;

	layout_make(&l);
	MPI_Type_indexed(l.nb, l.len, l.disp, MPI_DOUBLE, &t);
	MPI_Type_commit(&t);
	MPI_Type_contiguous(NDBL, MPI_DOUBLE, &contig);
	MPI_Type_commit(&contig);
	a = malloc(l.span * sizeof(double));
	b = malloc(l.span * sizeof(double));
	fill(a, &l, 5e7);
	for (round = 0; round < 2; round++) {
		if (mtest_rank == 0) {
			MPI_Send(a, 1, t, 1, 40 + round, MPI_COMM_WORLD);
			continue;
		}
		clear(b, NDBL);
		if (round == 0)
			MPI_Recv(b, 1, contig, 0, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		else
			MPI_Recv(b, NDBL, MPI_DOUBLE, 0, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (k = 0, bad = 0; k < NDBL; k++)
			bad += b[k] != 5e7 + (double)k;
		if (bad)
			mtest_error("indexed into %s: %ld wrong", round ? "doubles" : "a contiguous type",
				    bad);
	}
	MPI_Type_free(&t);
	MPI_Type_free(&contig);
	free(a);
	free(b);
	free(l.len);
	free(l.disp);
}

/* A vector (one run of 8-byte blocks) into contiguous doubles and back. */
static void vector_cases(void)
{
	const int n = 1 << 19;   /* 4 MiB packed */
	double *a = malloc(2 * (size_t)n * sizeof(double)), *b = malloc(2 * (size_t)n * sizeof(double));
	MPI_Datatype v;
	int i, bad = 0;

	MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v);
	MPI_Type_commit(&v);
	for (i = 0; i < 2 * n; i++)
		a[i] = i;
	if (mtest_rank == 0) {
		MPI_Send(a, 1, v, 1, 30, MPI_COMM_WORLD);
		for (i = 0; i < 2 * n; i++)
			b[i] = GAP;
		MPI_Recv(b, 1, v, 1, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 0; i < n; i++)
			bad += b[2 * i] != 2.0 * i || b[2 * i + 1] != GAP;
	} else {
		MPI_Recv(b, n, MPI_DOUBLE, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 0; i < n; i++)
			bad += b[i] != 2.0 * i;
		MPI_Send(b, n, MPI_DOUBLE, 0, 31, MPI_COMM_WORLD);
	}
	if (bad)
		mtest_error("vector: %d doubles wrong", bad);
	MPI_Type_free(&v);
	free(a);
	free(b);
}

int main(int argc, char **argv)
{
	const char *r = getenv("PMI_RANK"), *asym = getenv("DTYPE_STREAM_ASYM");

	if (asym && !strcmp(asym, "1") && r && !strcmp(r, "1"))
		setenv("MICHI_SHM_CMA", "off", 1);
	mtest_init(&argc, &argv);
	if (mtest_size >= 2 && mtest_rank < 2) {
		indexed_cases();
		into_contiguous();
		vector_cases();
	}
	return mtest_finalize();
}
