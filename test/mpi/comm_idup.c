/* SPDX-License-Identifier: MIT */
/*
 * MPI_Comm_idup and MPI_Comm_idup_with_info. Every new communicator must
 * be congruent with its parent (MPI_Comm_compare), work (MPI_Allreduce, a
 * ring of MPI_Sendrecv) and keep its messages apart from the parent's.
 * Cases:
 *  - one idup of MPI_COMM_WORLD completed by MPI_Wait, one by a bounded
 *    MPI_Test loop;
 *  - 10 idups of MPI_COMM_WORLD outstanding at once, one MPI_Waitall,
 *    each then used (messages on all ten at once must not cross), all
 *    freed;
 *  - idups of two different communicators outstanding at once, started
 *    in opposite orders by ranks that share both, so that blocking dups
 *    would deadlock: the communicators of neighbouring pairs around a
 *    ring, each rank its right pair first (MPICH's comm_idup_overlap),
 *    and MPI_COMM_WORLD with an even/odd split of it, odd ranks the split
 *    first;
 *  - an idup outstanding while blocking MPI_Comm_dup, MPI_Comm_split and
 *    MPI_Comm_create_group run on MPI_COMM_WORLD and an MPI_Iallreduce is
 *    outstanding on it, in either order;
 *  - MPI_Isend/MPI_Irecv on the parent (a small and a large message)
 *    posted before and after the idup and completed together with it;
 *  - attributes: a key with a copy callback must run it once and give the
 *    new communicator the value it returned (and its delete callback runs
 *    when that communicator is freed); MPI_COMM_DUP_FN copies as is,
 *    MPI_COMM_NULL_COPY_FN leaves the key out;
 *  - MPI_Comm_idup_with_info with mpi_assert_no_any_tag = true, read back
 *    with MPI_Comm_get_info (MPI 4 libraries only: Open MPI 4.1 does not
 *    have the call);
 *  - an idup of an MPI_Comm_split sub-communicator (rank order reversed);
 *  - 200 rounds of idup, completion (MPI_Wait, every tenth a test loop)
 *    and free: context ids must be given back.
 * Every MPI_Test loop gives up after 30 s. Runs at any number of ranks.
 */
#include "mtest.h"

#define TEST_LIMIT_S 30.0	/* give up on a polling loop after this */
#define NMANY 10
#define BIGN 100000		/* ints in the large message of the p2p case */
#define ROUNDS 200

/* complete n requests by a bounded MPI_Testall loop */
static void test_loop(int n, MPI_Request *reqs, const char *what)
{
	MPI_Status sts[32];
	double t0 = MPI_Wtime();
	int flag = 0;

	if (n > 32)
		MPI_Abort(MPI_COMM_WORLD, 2);
	while (MPI_Testall(n, reqs, &flag, sts), !flag) {
		if (MPI_Wtime() - t0 > TEST_LIMIT_S) {
			mtest_error("%s: not complete after %.0f s, giving up", what, TEST_LIMIT_S);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
}

static void wait_all(int n, MPI_Request *reqs)
{
	MPI_Status sts[32];

	if (n > 32)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Waitall(n, reqs, sts);
}

/*
 * c, new from parent, must be congruent with it and work: an Allreduce,
 * a ring Sendrecv, and a message on each of c and parent with the same
 * tag from the same rank, each of which must arrive on its own
 * communicator. Collective over parent; seed differs per call.
 */
static void check_comm(MPI_Comm parent, MPI_Comm c, const char *what, int seed)
{
	int res, n, me, pn, pme, sum = 0, got = -1, in[2] = { -1, -1 }, out[2];
	MPI_Request r[4];

	if (!mtest_check(c != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what))
		return;
	MPI_Comm_compare(parent, c, &res);
	mtest_check(res == MPI_CONGRUENT, "%s: MPI_Comm_compare with the parent gives %d, "
		    "expected MPI_CONGRUENT (%d)", what, res, MPI_CONGRUENT);
	MPI_Comm_size(parent, &pn);
	MPI_Comm_rank(parent, &pme);
	MPI_Comm_size(c, &n);
	MPI_Comm_rank(c, &me);
	if (!mtest_check(n == pn && me == pme, "%s: rank %d of %d, the parent says %d of %d",
			 what, me, n, pme, pn))
		return;
	MPI_Allreduce(&(int){ (me + 1) * seed }, &sum, 1, MPI_INT, MPI_SUM, c);
	mtest_check(sum == seed * n * (n + 1) / 2, "%s: MPI_Allreduce gives %d, expected %d", what,
		    sum, seed * n * (n + 1) / 2);
	MPI_Sendrecv(&(int){ me * 1000 + seed }, 1, MPI_INT, (me + 1) % n, 5, &got, 1, MPI_INT,
		     (me + n - 1) % n, 5, c, MPI_STATUS_IGNORE);
	mtest_check(got == (me + n - 1) % n * 1000 + seed, "%s: ring MPI_Sendrecv got %d, "
		    "expected %d", what, got, (me + n - 1) % n * 1000 + seed);
	/* the same tag and source on both: the receive on c is posted first */
	out[0] = 2 * seed;	/* on parent */
	out[1] = 2 * seed + 1;	/* on c */
	MPI_Irecv(&in[1], 1, MPI_INT, (me + n - 1) % n, 6, c, &r[0]);
	MPI_Isend(&out[0], 1, MPI_INT, (me + 1) % n, 6, parent, &r[1]);
	MPI_Isend(&out[1], 1, MPI_INT, (me + 1) % n, 6, c, &r[2]);
	MPI_Irecv(&in[0], 1, MPI_INT, (me + n - 1) % n, 6, parent, &r[3]);
	wait_all(4, r);
	mtest_check(in[0] == 2 * seed && in[1] == 2 * seed + 1, "%s: the message on the parent "
		    "got %d, the one on the new communicator %d; expected %d and %d", what, in[0],
		    in[1], 2 * seed, 2 * seed + 1);
}

/* 1: one idup, by MPI_Wait and by a test loop */
static void test_single(void)
{
	MPI_Comm c;
	MPI_Request r;

	MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
	mtest_check(r != MPI_REQUEST_NULL, "MPI_Comm_idup returned no request");
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	mtest_check(r == MPI_REQUEST_NULL, "MPI_Comm_idup request not freed by MPI_Wait");
	check_comm(MPI_COMM_WORLD, c, "idup of MPI_COMM_WORLD, MPI_Wait", 3);
	MPI_Comm_free(&c);
	mtest_check(c == MPI_COMM_NULL, "MPI_Comm_free left the handle set");

	MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
	test_loop(1, &r, "idup of MPI_COMM_WORLD");
	check_comm(MPI_COMM_WORLD, c, "idup of MPI_COMM_WORLD, MPI_Test loop", 4);
	MPI_Comm_free(&c);
}

/* 2: ten outstanding, one Waitall; then a message on each of the ten at
 * once, received in the reverse order: none may land on another */
static void test_many(void)
{
	MPI_Comm c[NMANY];
	MPI_Request r[2 * NMANY];
	int n = mtest_size, me = mtest_rank, in[NMANY], out[NMANY], res;
	char what[64];

	for (int i = 0; i < NMANY; i++)
		MPI_Comm_idup(MPI_COMM_WORLD, &c[i], &r[i]);
	wait_all(NMANY, r);
	for (int i = 0; i < NMANY; i++) {
		snprintf(what, sizeof(what), "idup %d of %d outstanding together", i, NMANY);
		check_comm(MPI_COMM_WORLD, c[i], what, 10 + i);
		if (i) {
			MPI_Comm_compare(c[i - 1], c[i], &res);
			mtest_check(res == MPI_CONGRUENT, "%s: compare with idup %d gives %d", what,
				    i - 1, res);
		}
	}
	for (int i = NMANY - 1; i >= 0; i--) {
		in[i] = -1;
		out[i] = me * 100 + i;
		MPI_Irecv(&in[i], 1, MPI_INT, (me + n - 1) % n, 7, c[i], &r[i]);
	}
	for (int i = 0; i < NMANY; i++)
		MPI_Isend(&out[i], 1, MPI_INT, (me + 1) % n, 7, c[i], &r[NMANY + i]);
	wait_all(2 * NMANY, r);
	for (int i = 0; i < NMANY; i++)
		mtest_check(in[i] == (me + n - 1) % n * 100 + i, "ten idups: message on idup %d "
			    "got %d, expected %d", i, in[i], (me + n - 1) % n * 100 + i);
	for (int i = 0; i < NMANY; i++)
		MPI_Comm_free(&c[i]);
}

/* 3a: the communicator of ranks {i, i+1 mod n}, for every i; each rank
 * idups the one with its right neighbour, then the one with its left, so
 * that the two ranks of every pair start its idup in opposite orders and
 * blocking dups would wait on each other all around the ring (at 1 rank
 * both are the same communicator) */
static void test_overlap_pairs(void)
{
	int n = mtest_size, me = mtest_rank, right = me, left = (me + n - 1) % n;
	MPI_Comm pair[2] = { MPI_COMM_NULL, MPI_COMM_NULL }, dup[2];
	MPI_Group wg, g;
	MPI_Request r[2];
	char what[96];
	int lo;

	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	/* create them in the order of their index, the same order everywhere */
	lo = left < right ? left : right;
	for (int k = 0; k < 2; k++) {
		int i = k ? (lo == left ? right : left) : lo;
		int ranks[2] = { i, (i + 1) % n };
		MPI_Comm *dst = &pair[i == right ? 0 : 1];

		if (n == 1 && k)	/* the same communicator on both sides */
			break;
		MPI_Group_incl(wg, n == 1 ? 1 : 2, ranks, &g);
		MPI_Comm_create_group(MPI_COMM_WORLD, g, 100 + i, dst);
		MPI_Group_free(&g);
	}
	if (n == 1)
		pair[1] = pair[0];
	MPI_Comm_idup(pair[0], &dup[0], &r[0]);
	MPI_Comm_idup(pair[1], &dup[1], &r[1]);
	test_loop(2, r, "idups of the communicators with both neighbours");
	/* check in the order of the pair's index, the same everywhere */
	for (int k = 0; k < 2; k++) {
		int s = (k == 0) == (lo == right) ? 0 : 1;

		int i = s ? left : right;

		snprintf(what, sizeof(what), "idup of the pair {%d,%d}, overlapping another", i,
			 (i + 1) % n);
		check_comm(pair[s], dup[s], what, 20 + i);
	}
	for (int k = 0; k < 2; k++)
		MPI_Comm_free(&dup[k]);
	MPI_Comm_free(&pair[0]);
	if (n > 1)
		MPI_Comm_free(&pair[1]);
	MPI_Group_free(&wg);
}

/* 3b: MPI_COMM_WORLD and an even/odd split of it, the split first on odd
 * ranks */
static void test_overlap_split(void)
{
	int me = mtest_rank;
	MPI_Comm half, d[2];
	MPI_Request r[2];

	MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half);
	if (me % 2) {
		MPI_Comm_idup(half, &d[1], &r[1]);
		MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &r[0]);
	} else {
		MPI_Comm_idup(MPI_COMM_WORLD, &d[0], &r[0]);
		MPI_Comm_idup(half, &d[1], &r[1]);
	}
	test_loop(2, r, "idups of MPI_COMM_WORLD and of an even/odd split, the split first on "
		  "odd ranks");
	check_comm(MPI_COMM_WORLD, d[0], "idup of MPI_COMM_WORLD with one of a split outstanding",
		   30);
	check_comm(half, d[1], "idup of an even/odd split with one of MPI_COMM_WORLD outstanding",
		   31);
	MPI_Comm_free(&d[0]);
	MPI_Comm_free(&d[1]);
	MPI_Comm_free(&half);
}

/* 4: blocking communicator constructors and an Iallreduce on the parent
 * while the idup is outstanding; iall_first: the Iallreduce starts first */
static void test_with_blocking(int iall_first)
{
	int n = mtest_size, me = mtest_rank, x = me + 1, sum = -1, *rev = mtest_malloc(n * sizeof(int));
	MPI_Comm c, dup, split, grp;
	MPI_Group wg, g;
	MPI_Request r[2];
	char what[128];
	const char *how = iall_first ? "after an MPI_Iallreduce" : "before an MPI_Iallreduce";

	if (iall_first)
		MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
	MPI_Comm_idup(MPI_COMM_WORLD, &c, &r[0]);
	if (!iall_first)
		MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &split);
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	for (int i = 0; i < n; i++)
		rev[i] = n - 1 - i;
	MPI_Group_incl(wg, n, rev, &g);
	MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &grp);
	if (iall_first)
		wait_all(2, r);
	else
		test_loop(2, r, "idup and Iallreduce");
	mtest_check(sum == n * (n + 1) / 2, "MPI_Iallreduce with an idup outstanding gives %d, "
		    "expected %d", sum, n * (n + 1) / 2);
	snprintf(what, sizeof(what), "idup %s, with MPI_Comm_dup, split and create_group", how);
	check_comm(MPI_COMM_WORLD, c, what, 40 + iall_first);
	snprintf(what, sizeof(what), "MPI_Comm_dup with an idup outstanding %s", how);
	check_comm(MPI_COMM_WORLD, dup, what, 42);
	{
		int sn, sme, s = -1;

		MPI_Comm_size(split, &sn);
		MPI_Comm_rank(split, &sme);
		mtest_check(sn == (n - me % 2 + 1) / 2 && sme == (sn - 1 - me / 2),
			    "MPI_Comm_split with an idup outstanding: rank %d of %d", sme, sn);
		MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, split);
		{
			int want = 0;

			for (int i = me % 2; i < n; i += 2)
				want += i + 1;
			mtest_check(s == want, "MPI_Comm_split with an idup outstanding: "
				    "MPI_Allreduce gives %d, expected %d", s, want);
		}
	}
	{
		int gme = -1, gn = -1, s = -1;

		MPI_Comm_rank(grp, &gme);
		MPI_Comm_size(grp, &gn);
		mtest_check(gn == n && gme == n - 1 - me, "MPI_Comm_create_group with an idup "
			    "outstanding: rank %d of %d, expected %d of %d", gme, gn, n - 1 - me, n);
		MPI_Allreduce(&gme, &s, 1, MPI_INT, MPI_MAX, grp);
		mtest_check(s == n - 1, "MPI_Comm_create_group communicator: MPI_Allreduce gives "
			    "%d", s);
	}
	MPI_Comm_free(&c);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&split);
	MPI_Comm_free(&grp);
	MPI_Group_free(&g);
	MPI_Group_free(&wg);
	free(rev);
}

/* 5: point-to-point on the parent around the idup */
static void test_p2p(void)
{
	int n = mtest_size, me = mtest_rank, small_in = -1, small_out = me + 7;
	int *big_in = mtest_malloc(BIGN * sizeof(int)), *big_out = mtest_malloc(BIGN * sizeof(int));
	int left = (me + n - 1) % n, right = (me + 1) % n;
	MPI_Comm c;
	MPI_Request r[5];
	long bad = -1;

	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < BIGN; i++) {
			big_out[i] = me * 7 + i + round;
			big_in[i] = -1;
		}
		small_in = -1;
		if (round == 0) {	/* receives before, sends after */
			MPI_Irecv(big_in, BIGN, MPI_INT, left, 11, MPI_COMM_WORLD, &r[0]);
			MPI_Irecv(&small_in, 1, MPI_INT, left, 12, MPI_COMM_WORLD, &r[1]);
			MPI_Comm_idup(MPI_COMM_WORLD, &c, &r[4]);
			MPI_Isend(&small_out, 1, MPI_INT, right, 12, MPI_COMM_WORLD, &r[3]);
			MPI_Isend(big_out, BIGN, MPI_INT, right, 11, MPI_COMM_WORLD, &r[2]);
			test_loop(5, r, "idup with Isend/Irecv on the parent");
		} else {		/* sends before, receives after */
			MPI_Isend(big_out, BIGN, MPI_INT, right, 11, MPI_COMM_WORLD, &r[2]);
			MPI_Isend(&small_out, 1, MPI_INT, right, 12, MPI_COMM_WORLD, &r[3]);
			MPI_Comm_idup(MPI_COMM_WORLD, &c, &r[4]);
			MPI_Irecv(&small_in, 1, MPI_INT, left, 12, MPI_COMM_WORLD, &r[1]);
			MPI_Irecv(big_in, BIGN, MPI_INT, left, 11, MPI_COMM_WORLD, &r[0]);
			wait_all(5, r);
		}
		mtest_check(small_in == left + 7, "p2p around an idup (round %d): small message "
			    "got %d, expected %d", round, small_in, left + 7);
		for (int i = 0; i < BIGN && bad < 0; i++)
			if (big_in[i] != left * 7 + i + round)
				bad = i;
		mtest_check(bad < 0, "p2p around an idup (round %d): large message int %ld is %d, "
			    "expected %ld", round, bad, bad < 0 ? 0 : big_in[bad], left * 7 + bad + round);
		check_comm(MPI_COMM_WORLD, c, round ? "idup with sends on the parent before it"
			   : "idup with receives on the parent before it", 50 + round);
		MPI_Comm_free(&c);
	}
	free(big_in);
	free(big_out);
}

/* 6: attributes are copied to the idup'd communicator */
static int copies, deletes, extra_marker;
static void *deleted_val;

static int copy_fn(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
	(void)old;
	(void)key;
	copies++;
	if (extra != &extra_marker)
		mtest_error("copy callback: extra_state %p, expected %p", extra,
			    (void *)&extra_marker);
	*(void **)out = (void *)((intptr_t)in + 1);
	*flag = 1;
	return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
	(void)c;
	(void)key;
	(void)extra;
	deletes++;
	deleted_val = val;
	return MPI_SUCCESS;
}

static void test_attr(void)
{
	int kcopy, kdup, knull, flag, me = mtest_rank;
	intptr_t base = 1000 + 10 * me;
	void *v;
	MPI_Comm parent, c;
	MPI_Request r;

	MPI_Comm_dup(MPI_COMM_WORLD, &parent);
	MPI_Comm_create_keyval(copy_fn, delete_fn, &kcopy, &extra_marker);
	MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL);
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL);
	MPI_Comm_set_attr(parent, kcopy, (void *)base);
	MPI_Comm_set_attr(parent, kdup, (void *)(base + 5));
	MPI_Comm_set_attr(parent, knull, (void *)(base + 7));
	copies = deletes = 0;
	MPI_Comm_idup(parent, &c, &r);
	test_loop(1, &r, "idup of a communicator with attributes");
	mtest_check(copies == 1, "copy callback ran %d times for one idup", copies);
	mtest_check(deletes == 0, "delete callback ran %d times during an idup", deletes);
	flag = 0;
	MPI_Comm_get_attr(c, kcopy, &v, &flag);
	if (mtest_check(flag, "attribute with a copy callback missing on the idup'd communicator"))
		mtest_check((intptr_t)v == base + 1, "attribute with a copy callback: %ld on the "
			    "idup'd communicator, expected %ld", (long)(intptr_t)v, (long)(base + 1));
	flag = 0;
	MPI_Comm_get_attr(c, kdup, &v, &flag);
	if (mtest_check(flag, "MPI_COMM_DUP_FN attribute missing on the idup'd communicator"))
		mtest_check((intptr_t)v == base + 5, "MPI_COMM_DUP_FN attribute: %ld, expected %ld",
			    (long)(intptr_t)v, (long)(base + 5));
	MPI_Comm_get_attr(c, knull, &v, &flag);
	mtest_check(!flag, "MPI_COMM_NULL_COPY_FN attribute copied by idup");
	/* the parent keeps its own */
	MPI_Comm_get_attr(parent, kcopy, &v, &flag);
	mtest_check(flag && (intptr_t)v == base, "the parent's attribute is now %ld",
		    (long)(intptr_t)v);
	check_comm(parent, c, "idup of a communicator with attributes", 60);
	MPI_Comm_free(&c);
	mtest_check(deletes == 1 && (intptr_t)deleted_val == base + 1, "freeing the idup'd "
		    "communicator: %d delete callbacks, value %ld, expected 1 and %ld", deletes,
		    (long)(intptr_t)deleted_val, (long)(base + 1));
	MPI_Comm_free(&parent);
	mtest_check(deletes == 2 && (intptr_t)deleted_val == base, "freeing the parent: %d "
		    "delete callbacks in all, value %ld, expected 2 and %ld", deletes,
		    (long)(intptr_t)deleted_val, (long)base);
	MPI_Comm_free_keyval(&kcopy);
	MPI_Comm_free_keyval(&kdup);
	MPI_Comm_free_keyval(&knull);
}

/* 7: idup_with_info; the hint is read back */
static void test_info(void)
{
#if MPI_VERSION >= 4
	MPI_Info in, used;
	MPI_Comm c;
	MPI_Request r;
	char val[MPI_MAX_INFO_VAL + 1];
	int flag = 0;

	MPI_Info_create(&in);
	MPI_Info_set(in, "mpi_assert_no_any_tag", "true");
	MPI_Comm_idup_with_info(MPI_COMM_WORLD, in, &c, &r);
	test_loop(1, &r, "MPI_Comm_idup_with_info");
	MPI_Info_free(&in);
	MPI_Comm_get_info(c, &used);
	MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, val, &flag);
	mtest_check(flag && !strcmp(val, "true"), "MPI_Comm_idup_with_info: hint "
		    "mpi_assert_no_any_tag %s%s, expected true", flag ? "is " : "missing",
		    flag ? val : "");
	MPI_Info_free(&used);
	check_comm(MPI_COMM_WORLD, c, "MPI_Comm_idup_with_info", 70);
	MPI_Comm_free(&c);
#endif
}

/* 8: an idup of a sub-communicator */
static void test_subcomm(void)
{
	int me = mtest_rank;
	MPI_Comm half, c;
	MPI_Request r;

	MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half);
	MPI_Comm_idup(half, &c, &r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	check_comm(half, c, "idup of an even/odd split (reversed order)", 80);
	MPI_Comm_free(&c);
	MPI_Comm_free(&half);
}

/* 9: context ids are given back */
static void test_reuse(void)
{
	MPI_Comm c;
	MPI_Request r;
	int x, s;

	for (int i = 0; i < ROUNDS; i++) {
		MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
		if (i % 10)
			MPI_Wait(&r, MPI_STATUS_IGNORE);
		else	/* a spinning test loop is slow when ranks share a core */
			test_loop(1, &r, "idup in the reuse rounds");
		if (i % 50 == 49) {
			x = i;
			MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_MAX, c);
			mtest_check(s == i, "round %d: MPI_Allreduce on the idup'd communicator "
				    "gives %d", i, s);
		}
		MPI_Comm_free(&c);
	}
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);

	test_single();
	test_many();
	test_overlap_pairs();
	test_overlap_split();
	test_with_blocking(0);
	test_with_blocking(1);
	test_p2p();
	test_attr();
	test_info();
	test_subcomm();
	test_reuse();

	return mtest_finalize();
}
