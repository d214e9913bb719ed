/* SPDX-License-Identifier: MIT */
/*
 * The blocking collectives against a serial computation: Bcast, Reduce,
 * Allreduce, Gather(v), Scatter(v), Allgather(v) and Alltoall(v) with 0, 1,
 * 7, 1000 and 100000 elements, every root, in place and not; then every
 * predefined reduction op on every predefined type MPI defines it for
 * (small counts), MINLOC/MAXLOC with ties on all pair types, and op/type
 * pairs MPI leaves undefined, which must fail with MPI_ERR_OP.
 */
#include "mtest.h"
#include "coll_common.h"
#include "coll_ops.h"

static const int counts[] = { 0, 1, 7, 1000, 100000 };
#define NCOUNTS (int)(sizeof(counts) / sizeof(counts[0]))

/* the value element i of rank r contributes, different per call */
static int val(int r, long i, int seed)
{
	return (int)((r * 1000003L + i * 7 + seed * 13) & 0x3fffffff);
}

static void fill(int *p, long n, int r, int seed)
{
	for (long i = 0; i < n; i++)
		p[i] = val(r, i, seed);
}

/* first wrong element or -1 */
static long check(const int *p, long n, int r, int seed)
{
	for (long i = 0; i < n; i++)
		if (p[i] != val(r, i, seed))
			return i;
	return -1;
}

static void test_bcast(int cnt, int root, int seed)
{
	int *b = mtest_malloc(cnt * sizeof(int));
	long bad;

	if (mtest_rank == root)
		fill(b, cnt, root, seed);
	else
		memset(b, 0xff, cnt * sizeof(int));
	MPI_Bcast(b, cnt, MPI_INT, root, MPI_COMM_WORLD);
	bad = check(b, cnt, root, seed);
	mtest_check(bad < 0, "bcast count %d root %d: element %ld wrong", cnt, root, bad);
	free(b);
}

static void test_reduce(int cnt, int root, int inplace, int seed)
{
	int *s = mtest_malloc(cnt * sizeof(int)), *r = mtest_malloc(cnt * sizeof(int));
	int n = mtest_size, me = mtest_rank;

	fill(s, cnt, me, seed);
	memset(r, 0xff, cnt * sizeof(int));
	if (inplace && me == root) {
		memcpy(r, s, cnt * sizeof(int));
		MPI_Reduce(MPI_IN_PLACE, r, cnt, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
	} else {
		MPI_Reduce(s, r, cnt, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
	}
	if (me == root) {
		for (long i = 0; i < cnt; i++) {
			unsigned e = 0;

			for (int k = 0; k < n; k++)
				e += (unsigned)val(k, i, seed);
			if (!mtest_check(r[i] == (int)e, "reduce count %d root %d inplace %d: "
					 "element %ld is %d, expected %d", cnt, root, inplace, i,
					 r[i], (int)e))
				break;
		}
	}
	free(s);
	free(r);
}

static void test_allreduce(int cnt, int inplace, int seed)
{
	int *s = mtest_malloc(cnt * sizeof(int)), *r = mtest_malloc(cnt * sizeof(int));
	int n = mtest_size;

	fill(s, cnt, mtest_rank, seed);
	if (inplace) {
		memcpy(r, s, cnt * sizeof(int));
		MPI_Allreduce(MPI_IN_PLACE, r, cnt, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	} else {
		MPI_Allreduce(s, r, cnt, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	}
	for (long i = 0; i < cnt; i++) {
		int e = val(0, i, seed);

		for (int k = 1; k < n; k++)
			e = val(k, i, seed) > e ? val(k, i, seed) : e;
		if (!mtest_check(r[i] == e, "allreduce count %d inplace %d: element %ld is %d, "
				 "expected %d", cnt, inplace, i, r[i], e))
			break;
	}
	free(s);
	free(r);
}

/* the blocks of the n ranks: the v layout of coll_common.h (v), or cnt
 * ints each back to back; returns the span in ints */
static long blocks(int n, int cnt, int v, int *vc, int *vd)
{
	if (v)
		return coll_vlayout(n, cnt, vc, vd);
	for (int i = 0; i < n; i++)
		vc[i] = cnt, vd[i] = i * cnt;
	return (long)cnt * n;
}

static void test_gather(int cnt, int root, int v, int inplace, int seed)
{
	int n = mtest_size, me = mtest_rank;
	int *vc = mtest_malloc(n * sizeof(int)), *vd = mtest_malloc(n * sizeof(int));
	long span = blocks(n, cnt, v, vc, vd);
	int mine = v ? vc[me] : cnt;
	int *s = mtest_malloc(mine * sizeof(int)), *r = mtest_malloc(span * sizeof(int));
	const void *sb = s;

	fill(s, mine, me, seed);
	memset(r, 0xff, span * sizeof(int));
	if (inplace && me == root) {
		memcpy(r + vd[me], s, mine * sizeof(int));
		sb = MPI_IN_PLACE;
	}
	if (v)
		MPI_Gatherv(sb, mine, MPI_INT, r, vc, vd, MPI_INT, root, MPI_COMM_WORLD);
	else
		MPI_Gather(sb, cnt, MPI_INT, r, cnt, MPI_INT, root, MPI_COMM_WORLD);
	if (me == root) {
		for (int k = 0; k < n; k++) {
			long bad = check(r + vd[k], vc[k], k, seed);

			mtest_check(bad < 0, "gather%s count %d root %d inplace %d: block %d "
				    "element %ld wrong", v ? "v" : "", cnt, root, inplace, k, bad);
		}
		if (v)	/* the gaps stay untouched */
			for (int k = 0; k < n; k++)
				mtest_check(r[vd[k] + vc[k]] == -1, "gatherv wrote a gap after block %d", k);
	}
	free(s);
	free(r);
	free(vc);
	free(vd);
}

static void test_scatter(int cnt, int root, int v, int inplace, int seed)
{
	int n = mtest_size, me = mtest_rank;
	int *vc = mtest_malloc(n * sizeof(int)), *vd = mtest_malloc(n * sizeof(int));
	long span = blocks(n, cnt, v, vc, vd);
	int mine = v ? vc[me] : cnt;
	int *s = mtest_malloc(span * sizeof(int)), *r = mtest_malloc(mine * sizeof(int));
	void *rb = r;
	long bad;

	if (me == root)
		for (int k = 0; k < n; k++)
			fill(s + vd[k], vc[k], k, seed);
	memset(r, 0xff, mine * sizeof(int));
	if (inplace && me == root)
		rb = MPI_IN_PLACE;
	if (v)
		MPI_Scatterv(s, vc, vd, MPI_INT, rb, mine, MPI_INT, root, MPI_COMM_WORLD);
	else
		MPI_Scatter(s, cnt, MPI_INT, rb, cnt, MPI_INT, root, MPI_COMM_WORLD);
	bad = check(rb == MPI_IN_PLACE ? s + vd[me] : r, mine, me, seed);
	mtest_check(bad < 0, "scatter%s count %d root %d inplace %d: element %ld wrong",
		    v ? "v" : "", cnt, root, inplace, bad);
	free(s);
	free(r);
	free(vc);
	free(vd);
}

static void test_allgather(int cnt, int v, int inplace, int seed)
{
	int n = mtest_size, me = mtest_rank;
	int *vc = mtest_malloc(n * sizeof(int)), *vd = mtest_malloc(n * sizeof(int));
	long span = blocks(n, cnt, v, vc, vd);
	int mine = v ? vc[me] : cnt;
	int *s = mtest_malloc(mine * sizeof(int)), *r = mtest_malloc(span * sizeof(int));
	const void *sb = s;

	fill(s, mine, me, seed);
	memset(r, 0xff, span * sizeof(int));
	if (inplace) {
		memcpy(r + vd[me], s, mine * sizeof(int));
		sb = MPI_IN_PLACE;
	}
	if (v)
		MPI_Allgatherv(sb, mine, MPI_INT, r, vc, vd, MPI_INT, MPI_COMM_WORLD);
	else
		MPI_Allgather(sb, cnt, MPI_INT, r, cnt, MPI_INT, MPI_COMM_WORLD);
	for (int k = 0; k < n; k++) {
		long bad = check(r + vd[k], vc[k], k, seed);

		mtest_check(bad < 0, "allgather%s count %d inplace %d: block %d element %ld wrong",
			    v ? "v" : "", cnt, inplace, k, bad);
	}
	free(s);
	free(r);
	free(vc);
	free(vd);
}

/* block for rank `to` from rank `from` is filled with seed from * n + to */
static void test_alltoall(int cnt, int inplace, int seed)
{
	int n = mtest_size, me = mtest_rank;
	int *s = mtest_malloc((size_t)cnt * n * sizeof(int));
	int *r = mtest_malloc((size_t)cnt * n * sizeof(int));

	for (int k = 0; k < n; k++)
		fill(s + (long)k * cnt, cnt, me, seed + me * n + k);
	if (inplace) {
		memcpy(r, s, (size_t)cnt * n * sizeof(int));
		MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, cnt, MPI_INT, MPI_COMM_WORLD);
	} else {
		MPI_Alltoall(s, cnt, MPI_INT, r, cnt, MPI_INT, MPI_COMM_WORLD);
	}
	for (int k = 0; k < n; k++) {
		long bad = check(r + (long)k * cnt, cnt, k, seed + k * n + me);

		mtest_check(bad < 0, "alltoall count %d inplace %d: block from %d element %ld wrong",
			    cnt, inplace, k, bad);
	}
	free(s);
	free(r);
}

static void test_alltoallv(int cnt, int inplace, int seed)
{
	int n = mtest_size, me = mtest_rank;
	int *sc = mtest_malloc(n * sizeof(int)), *sd = mtest_malloc(n * sizeof(int));
	int *rc = mtest_malloc(n * sizeof(int)), *rd = mtest_malloc(n * sizeof(int));
	long sspan = coll_a2av_layout(mtest_size, cnt, me, 1, sc, sd);
	long rspan = coll_a2av_layout(mtest_size, cnt, me, inplace ? 2 : 0, rc, rd);
	int *s = mtest_malloc(sspan * sizeof(int)), *r = mtest_malloc(rspan * sizeof(int));

	if (inplace) {
		for (int k = 0; k < n; k++)
			fill(r + rd[k], rc[k], me, seed + me * n + k);
		MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r, rc, rd, MPI_INT,
			      MPI_COMM_WORLD);
	} else {
		for (int k = 0; k < n; k++)
			fill(s + sd[k], sc[k], me, seed + me * n + k);
		memset(r, 0xff, rspan * sizeof(int));
		MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
	}
	for (int k = 0; k < n; k++) {
		long bad = check(r + rd[k], rc[k], k, seed + k * n + me);

		mtest_check(bad < 0, "alltoallv count %d inplace %d: block from %d element %ld wrong",
			    cnt, inplace, k, bad);
		if (!inplace)
			mtest_check(r[rd[k] + rc[k]] == -1, "alltoallv wrote the gap after block %d", k);
	}
	free(s);
	free(r);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
}

/* undefined pairs fail locally, before any communication */
static void test_bad_ops(void)
{
	static const struct {
		MPI_Op op;
		MPI_Datatype dt;
		const char *what;
	} bad[] = {
		{ MPI_SUM, MPI_C_BOOL, "SUM on C_BOOL" },
		{ MPI_MAX, MPI_C_DOUBLE_COMPLEX, "MAX on C_DOUBLE_COMPLEX" },
		{ MPI_BAND, MPI_DOUBLE, "BAND on DOUBLE" },
		{ MPI_MINLOC, MPI_INT, "MINLOC on INT" },
		{ MPI_SUM, MPI_2INT, "SUM on 2INT" },
	};
	double in[4] = { 0 }, out[4];
	int rc;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		rc = MPI_Allreduce(in, out, 1, bad[k].dt, bad[k].op, MPI_COMM_WORLD);

		mtest_check(mtest_errclass(rc) == MPI_ERR_OP, "Allreduce %s: class %d, expected "
			    "MPI_ERR_OP", bad[k].what, mtest_errclass(rc));
		rc = MPI_Reduce_local(in, out, 1, bad[k].dt, bad[k].op);
		mtest_check(mtest_errclass(rc) == MPI_ERR_OP, "Reduce_local %s: class %d, expected "
			    "MPI_ERR_OP", bad[k].what, mtest_errclass(rc));
	}
	/* other argument errors, also found before any communication */
	rc = MPI_Bcast(in, 1, MPI_DOUBLE, mtest_size, MPI_COMM_WORLD);
	mtest_check(mtest_errclass(rc) == MPI_ERR_ROOT, "Bcast root=size: class %d", mtest_errclass(rc));
	rc = MPI_Reduce(in, out, 1, MPI_DOUBLE, MPI_SUM, -1, MPI_COMM_WORLD);
	mtest_check(mtest_errclass(rc) == MPI_ERR_ROOT, "Reduce root=-1: class %d", mtest_errclass(rc));
	rc = MPI_Bcast(in, -1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	mtest_check(mtest_errclass(rc) == MPI_ERR_COUNT, "Bcast count=-1: class %d",
		    mtest_errclass(rc));
	rc = MPI_Allreduce(in, out, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD);
	/* MPICH checks the op against the type first and reports MPI_ERR_OP */
	mtest_check(mtest_errclass(rc) == MPI_ERR_TYPE || mtest_errclass(rc) == MPI_ERR_OP,
		    "Allreduce MPI_DATATYPE_NULL: class %d",
		    mtest_errclass(rc));
	rc = MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_OP_NULL, MPI_COMM_WORLD);
	mtest_check(mtest_errclass(rc) == MPI_ERR_OP, "Allreduce MPI_OP_NULL: class %d",
		    mtest_errclass(rc));
	rc = MPI_Allreduce(in, in, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	mtest_check(mtest_errclass(rc) == MPI_ERR_BUFFER, "Allreduce sendbuf=recvbuf: class %d",
		    mtest_errclass(rc));
	rc = MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_NULL);
	mtest_check(mtest_errclass(rc) == MPI_ERR_COMM, "Allreduce MPI_COMM_NULL: class %d",
		    mtest_errclass(rc));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_local(void)
{
	int a[3] = { 1, 5, -2 }, b[3] = { 4, 2, -3 }, commute = -1;

	MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX);
	mtest_check(b[0] == 4 && b[1] == 5 && b[2] == -2, "Reduce_local MAX gave %d %d %d",
		    b[0], b[1], b[2]);
	MPI_Op_commutative(MPI_SUM, &commute);
	mtest_check(commute == 1, "MPI_SUM commutative = %d", commute);
}

/* A broadcast where odd ranks describe the buffer as one contiguous
 * derived type and even ranks as ints: small blocking broadcasts of
 * predefined types run their tree without a schedule (coll/direct.c),
 * derived ones through it, and the two must meet. */
static void test_bcast_mixed(int cnt, int root, int seed)
{
	int *b = mtest_malloc(cnt * sizeof(int));
	MPI_Datatype t;
	long bad;

	MPI_Type_contiguous(cnt, MPI_INT, &t);
	MPI_Type_commit(&t);
	if (mtest_rank == root)
		fill(b, cnt, root, seed);
	else
		memset(b, 0xff, cnt * sizeof(int));
	if (mtest_rank % 2)
		MPI_Bcast(b, 1, t, root, MPI_COMM_WORLD);
	else
		MPI_Bcast(b, cnt, MPI_INT, root, MPI_COMM_WORLD);
	bad = check(b, cnt, root, seed);
	mtest_check(bad < 0, "mixed-type bcast count %d root %d: element %ld wrong", cnt, root,
		    bad);
	MPI_Type_free(&t);
	free(b);
}

/* Gather and scatter where odd ranks describe their blocks as one
 * contiguous derived type: those ranks run the schedule, the others the
 * direct tree (coll/direct.c), and the two must meet. */
static void test_rooted_mixed(int cnt, int root, int seed)
{
	int n = mtest_size, me = mtest_rank, odd = me % 2;
	int *s = mtest_malloc(cnt * sizeof(int)), *r = mtest_malloc((long)cnt * n * sizeof(int));
	MPI_Datatype t;

	MPI_Type_contiguous(cnt, MPI_INT, &t);
	MPI_Type_commit(&t);
	fill(s, cnt, me, seed);
	memset(r, 0xff, (long)cnt * n * sizeof(int));
	if (odd)
		MPI_Gather(s, 1, t, r, 1, t, root, MPI_COMM_WORLD);
	else
		MPI_Gather(s, cnt, MPI_INT, r, cnt, MPI_INT, root, MPI_COMM_WORLD);
	for (int k = 0; me == root && k < n; k++) {
		long bad = check(r + (long)k * cnt, cnt, k, seed);

		mtest_check(bad < 0, "mixed-type gather count %d root %d: block %d element %ld "
			    "wrong", cnt, root, k, bad);
	}
	/* scatter the gathered blocks back out */
	memset(s, 0xff, cnt * sizeof(int));
	if (odd)
		MPI_Scatter(r, 1, t, s, 1, t, root, MPI_COMM_WORLD);
	else
		MPI_Scatter(r, cnt, MPI_INT, s, cnt, MPI_INT, root, MPI_COMM_WORLD);
	{
		long bad = check(s, cnt, me, seed);

		mtest_check(bad < 0, "mixed-type scatter count %d root %d: element %ld wrong", cnt,
			    root, bad);
	}
	MPI_Type_free(&t);
	free(s);
	free(r);
}

/* 2x2 matrix products mod 65521 (a user op that does not commute), on
 * ints or on a contiguous type of them: len counts elements of dt */
static void matmul(void *in_, void *inout_, int *len, MPI_Datatype *dt)
{
	const int *a = in_;
	int *b = inout_, size, k;

	MPI_Type_size(*dt, &size);
	for (k = 0; k < *len * (size / 4) / 4; k++, a += 4, b += 4) {
		long c0 = ((long)a[0] * b[0] + (long)a[1] * b[2]) % 65521;
		long c1 = ((long)a[0] * b[1] + (long)a[1] * b[3]) % 65521;
		long c2 = ((long)a[2] * b[0] + (long)a[3] * b[2]) % 65521;
		long c3 = ((long)a[2] * b[1] + (long)a[3] * b[3]) % 65521;

		b[0] = (int)c0, b[1] = (int)c1, b[2] = (int)c2, b[3] = (int)c3;
	}
}

/* An allreduce of nmat matrices where odd ranks describe them as a
 * contiguous derived type and even ranks as ints (half of each in place):
 * small blocking allreductions of predefined types run without a
 * schedule (coll/direct.c, flat or recursive doubling), derived ones
 * through it; the two must meet, and a product that does not commute
 * must come out in rank order on every rank. */
static void test_allreduce_mixed(int nmat, int seed)
{
	int n = mtest_size, me = mtest_rank, cnt = 4 * nmat, k, i;
	int *s = mtest_malloc(cnt * sizeof(int)), *r = mtest_malloc(cnt * sizeof(int));
	int *want = mtest_malloc(cnt * sizeof(int)), *m = mtest_malloc(cnt * sizeof(int));
	int ip = (me / 2) % 2;
	MPI_Datatype t, it = MPI_INT;
	MPI_Op op;

	MPI_Type_contiguous(cnt, MPI_INT, &t);
	MPI_Type_commit(&t);
	MPI_Op_create(matmul, 0, &op);
	for (k = 0; k < n; k++) {   /* the product in rank order */
		for (i = 0; i < cnt; i++)
			m[i] = val(k, i, seed) % 65521;
		if (k > 0)   /* m = want m */
			matmul(want, m, &cnt, &it);
		memcpy(want, m, cnt * sizeof(int));
	}
	for (i = 0; i < cnt; i++)
		s[i] = val(me, i, seed) % 65521;
	memcpy(r, s, cnt * sizeof(int));
	if (me % 2)
		MPI_Allreduce(ip ? MPI_IN_PLACE : s, r, 1, t, op, MPI_COMM_WORLD);
	else
		MPI_Allreduce(ip ? MPI_IN_PLACE : s, r, cnt, MPI_INT, op, MPI_COMM_WORLD);
	for (i = 0; i < cnt && r[i] == want[i]; i++)
		;
	mtest_check(i == cnt, "mixed-type allreduce of %d matrices (not commutative): int %d is "
		    "%d, not %d", nmat, i, i < cnt ? r[i] : 0, i < cnt ? want[i] : 0);
	MPI_Op_free(&op);
	MPI_Type_free(&t);
	free(s);
	free(r);
	free(want);
	free(m);
}

int main(int argc, char **argv)
{
	int n, seed = 1;

	mtest_init(&argc, &argv);
	n = mtest_size;
	for (int c = 0; c < NCOUNTS; c++) {
		int cnt = counts[c];

		for (int root = 0; root < n; root++) {
			test_bcast(cnt, root, seed++);
			if (cnt > 0) {
				test_bcast_mixed(cnt, root, seed++);
				test_rooted_mixed(cnt, root, seed++);
			}
			for (int ip = 0; ip < 2; ip++) {
				test_reduce(cnt, root, ip, seed++);
				for (int v = 0; v < 2; v++) {
					test_gather(cnt, root, v, ip, seed++);
					test_scatter(cnt, root, v, ip, seed++);
				}
			}
		}
		for (int ip = 0; ip < 2; ip++) {
			test_allreduce(cnt, ip, seed++);
			test_allgather(cnt, 0, ip, seed++);
			test_allgather(cnt, 1, ip, seed++);
			test_alltoall(cnt, ip, seed++);
			test_alltoallv(cnt, ip, seed++);
		}
	}
	/* flat (up to 256 bytes from 5 ranks) and recursive doubling */
	for (int k = 1; k <= 100; k *= 4)
		test_allreduce_mixed(k, seed++);
	/* each type once (not the other names, nor the C++ types), a
	 * small count, Allreduce and Reduce in place at the root */
	coll_op_matrix(6, MPI_COMM_WORLD, "MPI_COMM_WORLD", COLL_ALLREDUCE | COLL_REDUCE_IP, 0,
		       "");
	test_local();
	test_bad_ops();
	return mtest_finalize();
}
