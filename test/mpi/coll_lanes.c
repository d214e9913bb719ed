/* SPDX-License-Identifier: MIT */
/*
 * Multilane Scatter and Gather across sites (coll/lanes.c), and their v
 * forms, byte-exact. Sites come from the job (the emulated grid) or from
 * MICHI_COLL_SITE_RANKS=N, which makes every N consecutive world ranks
 * a site (the last one smaller when N does not divide the job), so one
 * host tests sites of different sizes both ways round. Every P from 1
 * to the largest far site (the coll_lanes_p control variable; 0, the
 * model's choice, too), each with as few lanes a host as the root's
 * site allows, with the root driving all P, and two a host (the
 * coll_lanes_h control variable), every root, blocking, nonblocking and
 * persistent, uniform and v forms (blocks of different sizes, some
 * empty), a contiguous type and a strided vector type, in place at
 * the root, on the world, on a sub-communicator spanning the sites
 * (every rank but one, in reverse order) and on one inside a site.
 * Blocks of 1, 300, 0 and 20000 elements; COLL_LANES_QUICK=1 leaves out
 * the largest.
 */
#include "mtest.h"
#include "coll_common.h"

#include <stdlib.h>
#include <string.h>

enum { BLOCKING, NONBLOCKING, PERSISTENT, NMODES };
static const char *mode_name[] = { "blocking", "nonblocking", "persistent" };

static int set_cvar(const char *name, int v)
{
	int rc = coll_cvar_write_int(name, v);

	return mtest_check(rc == MPI_SUCCESS, "MPI_T write of %s=%d: error %d", name, v, rc) ?
		0 : -1;
}

static int set_lanes_p(int P)
{
	return set_cvar("coll_lanes_p", P);
}

/* element e of the block of comm rank r, call k */
static int val(int r, int e, int k)
{
	return (r + 1) * 1000003 + e * 31 + k * 7;
}

/* The type of one element of a block: MPI_INT, or a strided vector of
 * two ints out of three (its gaps must stay untouched) */
struct layout {
	MPI_Datatype t;
	int ints;     /* ints an element spans (with gaps) */
	int strided;
};

static int is_data(const struct layout *l, int j)
{
	return !l->strided || j % 3 != 2;
}

static void fill_block(const struct layout *l, int *p, int count, int r, int k)
{
	int j, e = 0;

	for (j = 0; j < count * l->ints; j++)
		p[j] = is_data(l, j) ? val(r, e++, k) : -7;
}

static void check_block(const struct layout *l, const int *p, int count, int r, int k,
			const char *what, int root, int mode)
{
	int j, e = 0;

	for (j = 0; j < count * l->ints; j++) {
		int want = is_data(l, j) ? val(r, e++, k) : -7;

		if (!mtest_check(p[j] == want, "%s %s root %d: block of rank %d int %d: %d, "
				 "want %d", mode_name[mode], what, root, r, j, p[j], want))
			return;
	}
}

/* the v forms' count of rank r: some blocks empty, sizes differ */
static int vcount(int r, int count)
{
	return (r % 3) * count / 2 + (r % 4 == 1 ? 0 : 1);
}

static void run(MPI_Comm comm, const struct layout *l, int count, int root, int mode, int k,
		int vform, int inplace)
{
	int n, me, i, *sb = NULL, *rb, *counts = NULL, *displs = NULL, total = 0, mine;
	size_t bl = (size_t)count * l->ints;
	MPI_Request req = MPI_REQUEST_NULL;

	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &me);
	counts = mtest_malloc((size_t)n * sizeof(int));
	displs = mtest_malloc((size_t)n * sizeof(int));
	for (i = 0; i < n; i++) {
		counts[i] = vform ? vcount(i, count) : count;
		/* v forms: blocks in reverse order, a gap before each */
		displs[i] = total + 1;
		total += counts[i] + 1;
	}
	if (!vform)
		for (i = 0; i < n; i++)
			displs[i] = i * count;
	mine = counts[me];
	sb = mtest_malloc(((size_t)total + bl * n + 1) * l->ints * sizeof(int));
	rb = mtest_malloc(((size_t)total + bl * n + 1) * l->ints * sizeof(int));
	/* ---- scatter ---- */
	if (me == root) {
		for (i = 0; i < (int)((size_t)total + bl * n) * l->ints; i++)
			sb[i] = -5;
		for (i = 0; i < n; i++)
			fill_block(l, sb + (size_t)displs[i] * l->ints, counts[i], i, k);
	}
	for (i = 0; i < (int)((size_t)total + bl * n) * l->ints; i++)
		rb[i] = -7;
	{
		void *r = inplace && me == root ? MPI_IN_PLACE : rb;

		if (vform) {
			if (mode == BLOCKING)
				MPI_Scatterv(sb, counts, displs, l->t, r, mine, l->t, root, comm);
			else if (mode == NONBLOCKING)
				MPI_Iscatterv(sb, counts, displs, l->t, r, mine, l->t, root, comm, &req);
			else
				MPI_Scatterv_init(sb, counts, displs, l->t, r, mine, l->t, root, comm,
						  MPI_INFO_NULL, &req);
		} else {
			if (mode == BLOCKING)
				MPI_Scatter(sb, count, l->t, r, count, l->t, root, comm);
			else if (mode == NONBLOCKING)
				MPI_Iscatter(sb, count, l->t, r, count, l->t, root, comm, &req);
			else
				MPI_Scatter_init(sb, count, l->t, r, count, l->t, root, comm,
						 MPI_INFO_NULL, &req);
		}
		if (mode == PERSISTENT) {
			/* started twice, new data the second time: its lanes'
			 * buffers and patched steps are used again */
			MPI_Start(&req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			k += 500;
			if (me == root)
				for (i = 0; i < n; i++)
					fill_block(l, sb + (size_t)displs[i] * l->ints, counts[i], i, k);
			for (i = 0; i < (int)((size_t)total + bl * n) * l->ints; i++)
				rb[i] = -7;
			MPI_Start(&req);
		}
		if (mode != BLOCKING)
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		if (mode == PERSISTENT)
			MPI_Request_free(&req);
	}
	if (!(inplace && me == root))
		check_block(l, rb, mine, me, k, vform ? "scatterv" : "scatter", root, mode);
	else
		check_block(l, sb + (size_t)displs[me] * l->ints, mine, me, k, "scatter in place",
			    root, mode);
	/* ---- gather ---- */
	fill_block(l, sb, mine, me, k + 1);
	if (me == root) {
		for (i = 0; i < (int)((size_t)total + bl * n) * l->ints; i++)
			rb[i] = -7;
		if (inplace)
			fill_block(l, rb + (size_t)displs[me] * l->ints, mine, me, k + 1);
	}
	{
		void *s = inplace && me == root ? MPI_IN_PLACE : sb;

		if (vform) {
			if (mode == BLOCKING)
				MPI_Gatherv(s, mine, l->t, rb, counts, displs, l->t, root, comm);
			else if (mode == NONBLOCKING)
				MPI_Igatherv(s, mine, l->t, rb, counts, displs, l->t, root, comm, &req);
			else
				MPI_Gatherv_init(s, mine, l->t, rb, counts, displs, l->t, root, comm,
						 MPI_INFO_NULL, &req);
		} else {
			if (mode == BLOCKING)
				MPI_Gather(s, count, l->t, rb, count, l->t, root, comm);
			else if (mode == NONBLOCKING)
				MPI_Igather(s, count, l->t, rb, count, l->t, root, comm, &req);
			else
				MPI_Gather_init(s, count, l->t, rb, count, l->t, root, comm,
						MPI_INFO_NULL, &req);
		}
		if (mode == PERSISTENT) {
			MPI_Start(&req);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			k += 500;
			fill_block(l, sb, mine, me, k + 1);
			if (me == root) {
				for (i = 0; i < (int)((size_t)total + bl * n) * l->ints; i++)
					rb[i] = -7;
				if (inplace)
					fill_block(l, rb + (size_t)displs[me] * l->ints, mine, me,
						   k + 1);
			}
			MPI_Start(&req);
		}
		if (mode != BLOCKING)
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		if (mode == PERSISTENT)
			MPI_Request_free(&req);
	}
	if (me == root)
		for (i = 0; i < n; i++)
			check_block(l, rb + (size_t)displs[i] * l->ints, counts[i], i, k + 1,
				    vform ? "gatherv" : "gather", root, mode);
	free(sb);
	free(rb);
	free(counts);
	free(displs);
}

static void sweep(MPI_Comm comm, const char *name, int maxp, const struct layout *lays, int nlays,
		  const int *counts, int ncounts)
{
	int n, root, P, h, li, ci, mode, k = 0;

	MPI_Comm_size(comm, &n);
	for (P = 0, h = 0; P <= maxp; h = h == 0 && P >= 2 ? P : h == P && P >= 4 ? 2 : 0,
	     P += h == 0) {
		/* lanes a host: as few as the root's site allows (0), the root
		 * alone (P), and two a host (P >= 4) */
		if (set_lanes_p(P) || set_cvar("coll_lanes_h", h))
			return;
		for (root = 0; root < n; root++)
			for (li = 0; li < nlays; li++)
				for (ci = 0; ci < ncounts; ci++)
					for (mode = 0; mode < NMODES; mode++) {
						int vform, inplace;

						for (vform = 0; vform < 2; vform++)
							for (inplace = 0; inplace < 2; inplace++)
								run(comm, &lays[li], counts[ci], root,
								    mode, k++ % 1000, vform, inplace);
					}
	}
	(void)name;
}

int main(int argc, char **argv)
{
	int provided, site_ranks, maxp, quick, sz, wr, nlays;
	const char *e;
	struct layout lays[2];
	static const int counts_all[] = { 1, 300, 0, 20000 };
	MPI_Comm sub, inside;

	MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	mtest_init(&argc, &argv);
	e = getenv("MICHI_COLL_SITE_RANKS");
	site_ranks = e ? atoi(e) : 0;
	quick = getenv("COLL_LANES_QUICK") != NULL;
	if (site_ranks <= 0 || site_ranks >= mtest_size) {
		mtest_skip("needs MICHI_COLL_SITE_RANKS below the number of ranks");
		return 77;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &wr);
	sz = mtest_size;
	/* the largest far site (P may exceed the root's site: its hosts then
	 * drive more than one lane each) */
	maxp = site_ranks;
	lays[0].t = MPI_INT;
	lays[0].ints = 1;
	lays[0].strided = 0;
	MPI_Type_vector(2, 1, 1, MPI_INT, &lays[1].t);
	{
		MPI_Datatype v;

		/* two ints, then a gap of one: extent three ints */
		MPI_Type_create_resized(lays[1].t, 0, 3 * sizeof(int), &v);
		MPI_Type_free(&lays[1].t);
		lays[1].t = v;
		MPI_Type_commit(&lays[1].t);
	}
	lays[1].ints = 3;
	lays[1].strided = 1;
	nlays = 2;
	sweep(MPI_COMM_WORLD, "world", maxp, lays, nlays, counts_all, quick ? 3 : 4);
	/* every rank but the last, in reverse order: still across sites */
	MPI_Comm_split(MPI_COMM_WORLD, wr == sz - 1 ? MPI_UNDEFINED : 0, sz - wr, &sub);
	if (sub != MPI_COMM_NULL) {
		sweep(sub, "sub", maxp, lays, 1, counts_all + 1, 1);
		MPI_Comm_free(&sub);
	}
	/* inside one site: chooses as without sites */
	MPI_Comm_split(MPI_COMM_WORLD, wr / site_ranks, wr, &inside);
	sweep(inside, "inside", 0, lays, nlays, counts_all + 1, 1);
	MPI_Comm_free(&inside);
	MPI_Type_free(&lays[1].t);
	set_lanes_p(0);
	set_cvar("coll_lanes_h", 0);
	{
		int rc = mtest_finalize();

		MPI_T_finalize();
		return rc;
	}
}
