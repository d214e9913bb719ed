/* SPDX-License-Identifier: MIT */
/*
 * The blocking collectives against a serial computation: Bcast, Reduce,
 * Allreduce, Gather(v), Scatter(v), Allgather(v) and Alltoall(v) with 0, 1,
 * 7, 1000 and 100000 elements, every root, in place and not; then every
 * predefined reduction op on every predefined type MPI defines it for
 * (small counts), MINLOC/MAXLOC with ties on all pair types, and op/type
 * pairs MPI leaves undefined, which must fail with MPI_ERR_OP.
 */
#include <complex.h>
#include <stdbool.h>

#include "mtest.h"
#include "coll_common.h"

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

static void test_gather(int cnt, int root, int v, int inplace, int seed)
{
	int n = mtest_size, me = mtest_rank;
	int *vc = mtest_malloc(n * sizeof(int)), *vd = mtest_malloc(n * sizeof(int));
	long span = v ? coll_vlayout(mtest_size, cnt, vc, vd) : (long)cnt * n;
	int mine = v ? vc[me] : cnt;
	int *s = mtest_malloc(mine * sizeof(int)), *r = mtest_malloc(span * sizeof(int));
	const void *sb = s;

	if (!v)
		for (int i = 0; i < n; i++)
			vc[i] = cnt, vd[i] = i * cnt;
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
	long span = v ? coll_vlayout(mtest_size, cnt, vc, vd) : (long)cnt * n;
	int mine = v ? vc[me] : cnt;
	int *s = mtest_malloc(span * sizeof(int)), *r = mtest_malloc(mine * sizeof(int));
	void *rb = r;
	long bad;

	if (!v)
		for (int i = 0; i < n; i++)
			vc[i] = cnt, vd[i] = i * cnt;
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
	long span = v ? coll_vlayout(mtest_size, cnt, vc, vd) : (long)cnt * n;
	int mine = v ? vc[me] : cnt;
	int *s = mtest_malloc(mine * sizeof(int)), *r = mtest_malloc(span * sizeof(int));
	const void *sb = s;

	if (!v)
		for (int i = 0; i < n; i++)
			vc[i] = cnt, vd[i] = i * cnt;
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

/* ---- every op on every type --------------------------------------------- */

enum ct { I8, U8, I16, U16, I32, U32, I64, U64, FL, DB, LD, CF, CD, CLD, BO };
enum cls { CINT, MINT, FLT, CPLX, LOGIC, BYTE };

struct tdesc {
	const char *name;
	MPI_Datatype dt;
	enum ct ct;
	enum cls cls;
};

static const struct tdesc types[] = {
	{ "MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, I8, CINT },
	{ "MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, U8, CINT },
	{ "MPI_SHORT", MPI_SHORT, I16, CINT },
	{ "MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, U16, CINT },
	{ "MPI_INT", MPI_INT, I32, CINT },
	{ "MPI_UNSIGNED", MPI_UNSIGNED, U32, CINT },
	{ "MPI_LONG", MPI_LONG, I64, CINT },
	{ "MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, U64, CINT },
	{ "MPI_LONG_LONG", MPI_LONG_LONG, I64, CINT },
	{ "MPI_UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, U64, CINT },
	{ "MPI_INT8_T", MPI_INT8_T, I8, CINT },
	{ "MPI_INT16_T", MPI_INT16_T, I16, CINT },
	{ "MPI_INT32_T", MPI_INT32_T, I32, CINT },
	{ "MPI_INT64_T", MPI_INT64_T, I64, CINT },
	{ "MPI_UINT8_T", MPI_UINT8_T, U8, CINT },
	{ "MPI_UINT16_T", MPI_UINT16_T, U16, CINT },
	{ "MPI_UINT32_T", MPI_UINT32_T, U32, CINT },
	{ "MPI_UINT64_T", MPI_UINT64_T, U64, CINT },
	{ "MPI_AINT", MPI_AINT, I64, MINT },
	{ "MPI_OFFSET", MPI_OFFSET, I64, MINT },
	{ "MPI_COUNT", MPI_COUNT, I64, MINT },
	{ "MPI_INTEGER", MPI_INTEGER, I32, MINT },
	{ "MPI_INTEGER1", MPI_INTEGER1, I8, MINT },
	{ "MPI_INTEGER2", MPI_INTEGER2, I16, MINT },
	{ "MPI_INTEGER4", MPI_INTEGER4, I32, MINT },
	{ "MPI_INTEGER8", MPI_INTEGER8, I64, MINT },
	{ "MPI_FLOAT", MPI_FLOAT, FL, FLT },
	{ "MPI_DOUBLE", MPI_DOUBLE, DB, FLT },
	{ "MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, LD, FLT },
	{ "MPI_REAL", MPI_REAL, FL, FLT },
	{ "MPI_DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, DB, FLT },
	{ "MPI_REAL4", MPI_REAL4, FL, FLT },
	{ "MPI_REAL8", MPI_REAL8, DB, FLT },
	{ "MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, CF, CPLX },
	{ "MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, CD, CPLX },
	{ "MPI_C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, CLD, CPLX },
	{ "MPI_COMPLEX", MPI_COMPLEX, CF, CPLX },
	{ "MPI_DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX, CD, CPLX },
	{ "MPI_COMPLEX8", MPI_COMPLEX8, CF, CPLX },
	{ "MPI_COMPLEX16", MPI_COMPLEX16, CD, CPLX },
	{ "MPI_C_BOOL", MPI_C_BOOL, BO, LOGIC },
	{ "MPI_LOGICAL", MPI_LOGICAL, I32, LOGIC },
	{ "MPI_BYTE", MPI_BYTE, U8, BYTE },
};
#define NTYPES (int)(sizeof(types) / sizeof(types[0]))

static const struct {
	const char *name;
	MPI_Op op;
} ops[] = {
	{ "MPI_SUM", MPI_SUM }, { "MPI_PROD", MPI_PROD }, { "MPI_MAX", MPI_MAX },
	{ "MPI_MIN", MPI_MIN }, { "MPI_LAND", MPI_LAND }, { "MPI_LOR", MPI_LOR },
	{ "MPI_LXOR", MPI_LXOR }, { "MPI_BAND", MPI_BAND }, { "MPI_BOR", MPI_BOR },
	{ "MPI_BXOR", MPI_BXOR },
};
#define NOPS (int)(sizeof(ops) / sizeof(ops[0]))
enum { O_SUM, O_PROD, O_MAX, O_MIN, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR };

/* MPI-4.0 6.9.2: which op groups each type class allows */
static int op_allowed(int o, enum cls c)
{
	switch (c) {
	case CINT: return 1;
	case MINT: return o <= O_MIN || o >= O_BAND;
	case FLT: return o <= O_MIN;
	case CPLX: return o <= O_PROD;
	case LOGIC: return o >= O_LAND && o <= O_LXOR;
	case BYTE: return o >= O_BAND;
	}
	return 0;
}

static size_t ct_size(enum ct t)
{
	static const size_t sz[] = { 1, 1, 2, 2, 4, 4, 8, 8, sizeof(float), sizeof(double),
				     sizeof(long double), sizeof(float complex),
				     sizeof(double complex), sizeof(long double complex),
				     sizeof(bool) };
	return sz[t];
}

/* small values every type holds exactly; imaginary parts for complex */
static long double complex opval(int o, int r, int i)
{
	switch (o) {
	case O_SUM: return (r * 3 + i) % 5 + ((r + i) % 3) * I;
	case O_PROD: return r < 3 ? (i % 2) + 1 + (i % 3 == 1) * I : 1;
	case O_MAX: case O_MIN: return (r * 7 + i * 3) % 11;
	case O_LAND: return (r + 2 * i) % 3 != 0 || r > 2;
	case O_LOR: return (r + i) % 4 == 0;
	case O_LXOR: return (r * 5 + i) % 3 == 0;
	default: return (r * 37 + i * 11) % 128;
	}
}

static void ct_set(void *b, enum ct t, int i, long double complex v)
{
	long double re = creall(v);

	switch (t) {
	case I8: ((int8_t *)b)[i] = (int8_t)re; break;
	case U8: ((uint8_t *)b)[i] = (uint8_t)re; break;
	case I16: ((int16_t *)b)[i] = (int16_t)re; break;
	case U16: ((uint16_t *)b)[i] = (uint16_t)re; break;
	case I32: ((int32_t *)b)[i] = (int32_t)re; break;
	case U32: ((uint32_t *)b)[i] = (uint32_t)re; break;
	case I64: ((int64_t *)b)[i] = (int64_t)re; break;
	case U64: ((uint64_t *)b)[i] = (uint64_t)re; break;
	case FL: ((float *)b)[i] = (float)re; break;
	case DB: ((double *)b)[i] = (double)re; break;
	case LD: ((long double *)b)[i] = re; break;
	case CF: ((float complex *)b)[i] = (float complex)v; break;
	case CD: ((double complex *)b)[i] = (double complex)v; break;
	case CLD: ((long double complex *)b)[i] = v; break;
	case BO: ((bool *)b)[i] = re != 0; break;
	}
}

static long double complex ct_get(const void *b, enum ct t, int i)
{
	switch (t) {
	case I8: return ((const int8_t *)b)[i];
	case U8: return ((const uint8_t *)b)[i];
	case I16: return ((const int16_t *)b)[i];
	case U16: return ((const uint16_t *)b)[i];
	case I32: return ((const int32_t *)b)[i];
	case U32: return ((const uint32_t *)b)[i];
	case I64: return ((const int64_t *)b)[i];
	case U64: return ((const uint64_t *)b)[i];
	case FL: return ((const float *)b)[i];
	case DB: return ((const double *)b)[i];
	case LD: return ((const long double *)b)[i];
	case CF: return ((const float complex *)b)[i];
	case CD: return ((const double complex *)b)[i];
	case CLD: return ((const long double complex *)b)[i];
	case BO: return ((const bool *)b)[i];
	}
	return 0;
}

static long double complex combine(int o, long double complex a, long double complex b)
{
	long long x = (long long)creall(a), y = (long long)creall(b);

	switch (o) {
	case O_SUM: return a + b;
	case O_PROD: return a * b;
	case O_MAX: return creall(a) > creall(b) ? a : b;
	case O_MIN: return creall(a) < creall(b) ? a : b;
	case O_LAND: return x && y;
	case O_LOR: return x || y;
	case O_LXOR: return !x != !y;
	case O_BAND: return x & y;
	case O_BOR: return x | y;
	default: return x ^ y;
	}
}

#define OPCNT 6

static long double complex tval(int o, int r, int i, const struct tdesc *t)
{
	return t->cls == CPLX ? opval(o, r, i) : creall(opval(o, r, i));
}

static void test_op_type(int o, const struct tdesc *t)
{
	char s[OPCNT * 32], r[OPCNT * 32];
	int n = mtest_size, me = mtest_rank, root = (o + (int)(t - types)) % n;

	memset(s, 0, sizeof(s));   /* long double padding: keep valgrind quiet */
	for (int i = 0; i < OPCNT; i++)
		ct_set(s, t->ct, i, tval(o, me, i, t));
	for (int pass = 0; pass < 2; pass++) {
		memset(r, 0x5a, sizeof(r));
		if (pass == 0) {
			MPI_Allreduce(s, r, OPCNT, t->dt, ops[o].op, MPI_COMM_WORLD);
		} else {
			if (me == root)
				memcpy(r, s, OPCNT * ct_size(t->ct));
			MPI_Reduce(me == root ? MPI_IN_PLACE : s, r, OPCNT, t->dt, ops[o].op, root,
				   MPI_COMM_WORLD);
			if (me != root)
				continue;
		}
		for (int i = 0; i < OPCNT; i++) {
			long double complex e = tval(o, 0, i, t), got = ct_get(r, t->ct, i);

			for (int k = 1; k < n; k++)
				e = combine(o, e, tval(o, k, i, t));
			if (t->ct == BO)
				e = creall(e) != 0;
			if (!mtest_check(got == e, "%s %s on %s: element %d is %Lg%+Lgi, expected %Lg%+Lgi",
					 pass ? "Reduce" : "Allreduce", ops[o].name, t->name, i,
					 creall(got), cimagl(got), creall(e), cimagl(e)))
				break;
		}
	}
}

/* MINLOC/MAXLOC: values with ties, index = rank; ties keep the lowest rank */
#define LOC_TEST(fn, VT, IT) \
static void fn(MPI_Datatype dt, const char *name) \
{ \
	struct { VT v; IT i; } s[OPCNT], r[OPCNT]; \
	int n = mtest_size, me = mtest_rank; \
	memset(s, 0, sizeof(s)); \
	for (int max = 0; max < 2; max++) { \
		for (int i = 0; i < OPCNT; i++) { \
			s[i].v = (VT)((me * 5 + i) % 3); \
			s[i].i = (IT)me; \
		} \
		MPI_Allreduce(s, r, OPCNT, dt, max ? MPI_MAXLOC : MPI_MINLOC, MPI_COMM_WORLD); \
		for (int i = 0; i < OPCNT; i++) { \
			int ev = (0 * 5 + i) % 3, ei = 0; \
			for (int k = 1; k < n; k++) { \
				int v = (k * 5 + i) % 3; \
				if (max ? v > ev : v < ev) \
					ev = v, ei = k; \
			} \
			if (!mtest_check(r[i].v == (VT)ev && r[i].i == (IT)ei, \
					 "%s on %s: element %d is (%g, %g), expected (%d, %d)", \
					 max ? "MAXLOC" : "MINLOC", name, i, (double)r[i].v, \
					 (double)r[i].i, ev, ei)) \
				break; \
		} \
	} \
}

LOC_TEST(loc_2int, int, int)
LOC_TEST(loc_float_int, float, int)
LOC_TEST(loc_double_int, double, int)
LOC_TEST(loc_long_int, long, int)
LOC_TEST(loc_short_int, short, int)
LOC_TEST(loc_ldouble_int, long double, int)
LOC_TEST(loc_2real, float, float)
LOC_TEST(loc_2dbl, double, double)

static void test_loc(void)
{
	loc_2int(MPI_2INT, "MPI_2INT");
	loc_2int(MPI_2INTEGER, "MPI_2INTEGER");
	loc_float_int(MPI_FLOAT_INT, "MPI_FLOAT_INT");
	loc_double_int(MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
	loc_long_int(MPI_LONG_INT, "MPI_LONG_INT");
	loc_short_int(MPI_SHORT_INT, "MPI_SHORT_INT");
	loc_ldouble_int(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT");
	loc_2real(MPI_2REAL, "MPI_2REAL");
	loc_2dbl(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION");
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
	for (int t = 0; t < NTYPES; t++)
		for (int o = 0; o < NOPS; o++)
			if (op_allowed(o, types[t].cls))
				test_op_type(o, &types[t]);
	test_loc();
	test_local();
	test_bad_ops();
	return mtest_finalize();
}
