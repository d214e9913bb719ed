/* SPDX-License-Identifier: MIT */
/*
 * Communicators and groups: dup (messages on a duplicate never match the
 * parent's receives), split with colors, keys and MPI_UNDEFINED,
 * split_type SHARED, create from a group, compare (IDENT, CONGRUENT,
 * SIMILAR, UNEQUAL), free and context-id reuse over thousands of
 * dup/free cycles, creations in different orders on disjoint halves; and
 * every group operation against a serial computation.
 */
#include <string.h>

#include "mtest.h"

static int rank, size;

static void test_dup_isolation(void)
{
	MPI_Comm dup;
	int a = -1, b = -1, res;

	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_compare(MPI_COMM_WORLD, dup, &res);
	mtest_check(res == MPI_CONGRUENT, "compare(world, dup) = %d, want CONGRUENT", res);
	if (size >= 2) {
		if (rank == 0) {
			int one = 1, two = 2;

			/* same tag on both: the dup's message must not satisfy
			 * the world receive posted first on rank 1 */
			MPI_Send(&two, 1, MPI_INT, 1, 5, dup);
			MPI_Send(&one, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
		} else if (rank == 1) {
			MPI_Recv(&a, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE);
			mtest_check(a == 1 && b == 2, "world got %d, dup got %d (want 1, 2)", a, b);
		}
	}
	MPI_Comm_free(&dup);
	mtest_check(dup == MPI_COMM_NULL, "Comm_free left the handle set");
}

static void test_split(void)
{
	MPI_Comm half, none;
	int color = rank % 2, r, s, sum = 0, want = 0, i, res, left, right, got;

	/* key -rank: ranks in reverse order within each color */
	MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half);
	MPI_Comm_rank(half, &r);
	MPI_Comm_size(half, &s);
	for (i = 0; i < size; i++)
		if (i % 2 == color)
			want++;
	mtest_check(s == want, "split size %d, want %d", s, want);
	/* my rank among same-color ranks counted from the top */
	for (i = rank + 2, want = 0; i < size; i += 2)
		want++;
	mtest_check(r == want, "split rank %d, want %d", r, want);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
	for (i = color, want = 0; i < size; i += 2)
		want += i;
	mtest_check(sum == want, "allreduce in split: %d, want %d", sum, want);
	/* a ring inside the half */
	left = (r + s - 1) % s;
	right = (r + 1) % s;
	MPI_Sendrecv(&rank, 1, MPI_INT, right, 9, &got, 1, MPI_INT, left, 9, half,
		     MPI_STATUS_IGNORE);
	mtest_check(got % 2 == color, "ring in split got world rank %d", got);
	MPI_Comm_compare(MPI_COMM_WORLD, half, &res);
	mtest_check(size == 1 ? res != MPI_UNEQUAL : res == MPI_UNEQUAL,
		    "compare(world, half) = %d", res);
	MPI_Comm_free(&half);

	MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none);
	if (rank == 0) {
		mtest_check(none == MPI_COMM_NULL, "MPI_UNDEFINED color gave a communicator");
	} else {
		MPI_Comm_size(none, &s);
		mtest_check(s == size - 1, "split without rank 0 has %d ranks", s);
		MPI_Comm_free(&none);
	}
}

static void test_split_type(void)
{
	MPI_Comm node;
	MPI_Info info;
	int s;

	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
	MPI_Comm_size(node, &s);
	/* the test runs on one host */
	mtest_check(s == size, "split_type SHARED has %d ranks, want %d", s, size);
	MPI_Comm_free(&node);

	/* MPI-4.0: a known hardware level (this host's shared memory), an
	 * unknown one, none; unguided on one host has no finer level */
	MPI_Info_create(&info);
	MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &node);
	mtest_check(node != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory gave MPI_COMM_NULL");
	if (node != MPI_COMM_NULL) {
		MPI_Comm_size(node, &s);
		mtest_check(s == size, "HW_GUIDED mpi_shared_memory has %d ranks", s);
		MPI_Comm_free(&node);
	}
	MPI_Info_set(info, "mpi_hw_resource_type", "no-such-level");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &node);
	mtest_check(node == MPI_COMM_NULL, "HW_GUIDED with an unknown level gave a communicator");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &node);
	mtest_check(node == MPI_COMM_NULL, "HW_GUIDED without info gave a communicator");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &node);
	mtest_check(node == MPI_COMM_NULL, "HW_UNGUIDED on one host gave a communicator");
	MPI_Info_free(&info);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	mtest_check(mtest_errclass(MPI_Comm_split_type(MPI_COMM_WORLD, 77, 0, MPI_INFO_NULL,
						       &node)) == MPI_ERR_ARG,
		    "split_type 77 was not MPI_ERR_ARG");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_create(void)
{
	MPI_Group world, evens, rev;
	MPI_Comm ce, cr;
	int n = (size + 1) / 2, *list = malloc(sizeof(int) * (size_t)size), i, r, res;

	MPI_Comm_group(MPI_COMM_WORLD, &world);
	for (i = 0; i < n; i++)
		list[i] = 2 * i;
	MPI_Group_incl(world, n, list, &evens);
	MPI_Comm_create(MPI_COMM_WORLD, evens, &ce);
	if (rank % 2) {
		mtest_check(ce == MPI_COMM_NULL, "odd rank got a communicator from create");
	} else {
		MPI_Comm_rank(ce, &r);
		mtest_check(r == rank / 2, "create: rank %d, want %d", r, rank / 2);
		MPI_Comm_free(&ce);
	}
	for (i = 0; i < size; i++)
		list[i] = size - 1 - i;
	MPI_Group_incl(world, size, list, &rev);
	MPI_Comm_create(MPI_COMM_WORLD, rev, &cr);
	MPI_Comm_rank(cr, &r);
	mtest_check(r == size - 1 - rank, "reversed create: rank %d", r);
	MPI_Comm_compare(MPI_COMM_WORLD, cr, &res);
	mtest_check(res == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR),
		    "compare(world, reversed) = %d", res);
	MPI_Comm_free(&cr);
	MPI_Group_free(&evens);
	MPI_Group_free(&rev);
	MPI_Group_free(&world);
	free(list);
}

/* Many more creations than context ids: freed ids must be reused alike. */
static void test_reuse(void)
{
	MPI_Comm keep[8], c;
	int i, x = 0, sum;

	for (i = 0; i < 8; i++)
		MPI_Comm_dup(MPI_COMM_WORLD, &keep[i]);
	for (i = 0; i < 3000; i++) {
		MPI_Comm_dup(keep[i % 8], &c);
		if (i % 500 == 0) {
			x = rank + i;
			MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
			mtest_check(sum == size * (size - 1) / 2 + size * i,
				    "allreduce on dup %d: %d", i, sum);
		}
		MPI_Comm_free(&c);
	}
	for (i = 0; i < 8; i++)
		MPI_Comm_free(&keep[i]);
}

/* The two halves create different numbers of communicators, then all
 * ranks make one together: the ids must still agree. */
static void test_order(void)
{
	MPI_Comm half, extra[5], all;
	int i, k = rank % 2 ? 5 : 2, sum, one = 1;

	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	for (i = 0; i < k; i++)
		MPI_Comm_dup(half, &extra[i]);
	MPI_Comm_dup(MPI_COMM_WORLD, &all);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, all);
	mtest_check(sum == size, "allreduce on a dup made after uneven creations: %d", sum);
	if (size >= 2) {
		int v = -1;

		if (rank == 0)
			MPI_Send(&rank, 1, MPI_INT, 1, 3, all);
		if (rank == 1) {
			MPI_Recv(&v, 1, MPI_INT, 0, 3, all, MPI_STATUS_IGNORE);
			mtest_check(v == 0, "message on the common dup: %d", v);
		}
	}
	for (i = 0; i < k; i++)
		MPI_Comm_free(&extra[i]);
	MPI_Comm_free(&all);
	MPI_Comm_free(&half);
}

static void check_members(MPI_Group g, const int *want, int n, const char *what)
{
	int s, i, *in = malloc(sizeof(int) * (size_t)(n + 1)), *out = malloc(sizeof(int) * (size_t)(n + 1));
	MPI_Group world;

	MPI_Group_size(g, &s);
	mtest_check(s == n, "%s: size %d, want %d", what, s, n);
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	for (i = 0; i < n && s == n; i++)
		in[i] = i;
	if (s == n && n > 0) {
		MPI_Group_translate_ranks(g, n, in, world, out);
		for (i = 0; i < n; i++)
			mtest_check(out[i] == want[i], "%s: member %d is world %d, want %d",
				    what, i, out[i], want[i]);
	}
	MPI_Group_free(&world);
	free(in);
	free(out);
}

static void test_groups(void)
{
	MPI_Group world, a, b, u, x, d, e, r1, r2;
	int *l = malloc(sizeof(int) * (size_t)(2 * size + 2)), *w = malloc(sizeof(int) * (size_t)(2 * size + 2));
	int i, n, res, gr, ranges[1][3];

	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_rank(world, &gr);
	mtest_check(gr == rank, "group rank %d", gr);
	/* a = evens in reverse, b = ranks >= size/2 */
	for (i = 0, n = 0; i < size; i++)
		if ((size - 1 - i) % 2 == 0)
			l[n++] = size - 1 - i;
	MPI_Group_incl(world, n, l, &a);
	check_members(a, l, n, "incl");
	for (i = 0; i < size / 2; i++)
		l[i] = i;
	MPI_Group_excl(world, size / 2, l, &b);
	for (i = size / 2, n = 0; i < size; i++)
		w[n++] = i;
	check_members(b, w, n, "excl");
	/* union: a then b's members not in a */
	MPI_Group_union(a, b, &u);
	n = 0;
	for (i = size - 1; i >= 0; i--)
		if (i % 2 == 0)
			w[n++] = i;
	for (i = size / 2; i < size; i++)
		if (i % 2)
			w[n++] = i;
	check_members(u, w, n, "union");
	/* intersection and difference follow a's order */
	MPI_Group_intersection(a, b, &x);
	MPI_Group_difference(a, b, &d);
	{
		int nx = 0, nd = 0;

		for (i = size - 1; i >= 0; i--) {
			if (i % 2)
				continue;
			if (i >= size / 2)
				w[nx++] = i;
			else
				l[nd++] = i;
		}
		check_members(x, w, nx, "intersection");
		check_members(d, l, nd, "difference");
	}
	/* ranges: every third rank, then its complement */
	ranges[0][0] = 0;
	ranges[0][1] = size - 1;
	ranges[0][2] = 3;
	MPI_Group_range_incl(world, 1, ranges, &r1);
	for (i = 0, n = 0; i < size; i += 3)
		w[n++] = i;
	check_members(r1, w, n, "range_incl");
	MPI_Group_range_excl(world, 1, ranges, &r2);
	for (i = 0, n = 0; i < size; i++)
		if (i % 3)
			w[n++] = i;
	check_members(r2, w, n, "range_excl");
	/* compare */
	MPI_Group_compare(world, world, &res);
	mtest_check(res == MPI_IDENT, "compare(world, world) = %d", res);
	MPI_Group_union(r2, r1, &e);
	MPI_Group_compare(world, e, &res);
	mtest_check(res == (size <= 1 ? MPI_IDENT : MPI_SIMILAR), "compare(world, r2 u r1) = %d",
		    res);
	MPI_Group_free(&e);
	MPI_Group_compare(world, a, &res);
	mtest_check(size == 1 ? res == MPI_IDENT : res == MPI_UNEQUAL, "compare(world, a) = %d", res);
	/* the empty group */
	MPI_Group_difference(world, world, &e);
	mtest_check(e == MPI_GROUP_EMPTY, "world minus world is not MPI_GROUP_EMPTY");
	MPI_Group_size(MPI_GROUP_EMPTY, &n);
	MPI_Group_rank(MPI_GROUP_EMPTY, &gr);
	mtest_check(n == 0 && gr == MPI_UNDEFINED, "empty group: size %d rank %d", n, gr);
	/* translate to a group without us: MPI_UNDEFINED */
	if (size >= 2) {
		int from = 0, to;

		MPI_Group_translate_ranks(world, 1, &from, b, &to);
		mtest_check(to == (size / 2 == 0 ? 0 : MPI_UNDEFINED), "translate 0 into b: %d", to);
	}
	MPI_Group_free(&a);
	MPI_Group_free(&b);
	MPI_Group_free(&u);
	MPI_Group_free(&x);
	MPI_Group_free(&d);
	MPI_Group_free(&r1);
	MPI_Group_free(&r2);
	MPI_Group_free(&world);
	mtest_check(world == MPI_GROUP_NULL, "Group_free left the handle set");
	free(l);
	free(w);
}

static void test_errors(void)
{
	MPI_Comm w = MPI_COMM_WORLD, bad = (MPI_Comm)0x84000123;
	MPI_Group g, out;
	int err, cls, ranks[2] = { 0, 0 };

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	err = MPI_Comm_free(&w);
	MPI_Error_class(err, &cls);
	mtest_check(cls == MPI_ERR_COMM, "Comm_free(WORLD) gave class %d", cls);
	err = MPI_Comm_dup(bad, &w);
	MPI_Error_class(err, &cls);
	mtest_check(cls == MPI_ERR_COMM, "Comm_dup(bad) gave class %d", cls);
	MPI_Comm_group(MPI_COMM_WORLD, &g);
	/* a repeated rank is erroneous; MPICH does not look, Michi does */
	if (size >= 2 && mtest_is_michi()) {
		err = MPI_Group_incl(g, 2, ranks, &out);
		MPI_Error_class(err, &cls);
		mtest_check(cls == MPI_ERR_RANK, "Group_incl with a repeated rank gave class %d",
			    cls);
	}
	MPI_Group_free(&g);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/*
 * MPI_Comm_create_group, collective over the group only: the two halves
 * of WORLD create their communicators at the same time (each half never
 * calls with the other), then the even ranks make one of their own while
 * the odd ones are busy elsewhere; every new communicator must have the
 * right members in order and carry traffic of its own.
 */
static void test_create_group(void)
{
	MPI_Group wg, hg, eg;
	MPI_Comm half, even;
	int lo = rank < (size + 1) / 2, n = lo ? (size + 1) / 2 : size / 2;
	int first = lo ? 0 : (size + 1) / 2, r, s, sum, i, want;
	int *members = malloc(sizeof(int) * (size_t)size);

	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	for (i = 0; i < n; i++)
		members[i] = first + i;
	MPI_Group_incl(wg, n, members, &hg);
	MPI_Comm_create_group(MPI_COMM_WORLD, hg, 5, &half);
	if (half == MPI_COMM_NULL) {
		mtest_error("create_group: a member got MPI_COMM_NULL");
	} else {
		MPI_Comm_rank(half, &r);
		MPI_Comm_size(half, &s);
		if (s != n || r != rank - first)
			mtest_error("create_group half: rank %d of %d, want %d of %d", r, s,
				    rank - first, n);
		MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
		for (i = 0, want = 0; i < n; i++)
			want += first + i;
		if (sum != want)
			mtest_error("create_group half: allreduce %d, want %d", sum, want);
		MPI_Comm_free(&half);
	}
	for (i = 0, n = 0; i < size; i += 2)
		members[n++] = i;
	MPI_Group_incl(wg, n, members, &eg);
	/* the odd ranks go straight on to an allreduce on WORLD and send to
	 * the even ones, which are still agreeing on their id: those frames
	 * must not be taken for the group's own (they carry other ranks) */
	if (rank % 2 == 0) {
		MPI_Comm_create_group(MPI_COMM_WORLD, eg, 6, &even);
		MPI_Comm_size(even, &s);
		MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_MAX, even);
		if (s != n || sum != members[n - 1])
			mtest_error("create_group even: size %d max %d, want %d %d", s, sum, n,
				    members[n - 1]);
		MPI_Comm_free(&even);
	}
	for (i = 0; i < 3; i++) {
		MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		if (sum != size * (size - 1) / 2)
			mtest_error("allreduce after create_group: %d", sum);
	}
	MPI_Group_free(&eg);
	MPI_Group_free(&hg);
	MPI_Group_free(&wg);
	free(members);
	MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	rank = mtest_rank;
	size = mtest_size;
	test_dup_isolation();
	test_split();
	test_split_type();
	test_create();
	test_reuse();
	test_order();
	test_groups();
	test_create_group();
	test_errors();
	return mtest_finalize();
}
