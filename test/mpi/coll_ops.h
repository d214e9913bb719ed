/* SPDX-License-Identifier: MIT */
/*
 * test/mpi/coll_ops.h: every predefined op on every predefined type it is
 * defined on, and MINLOC/MAXLOC on the pair types, against a serial
 * computation (coll_op_matrix): the table of types and ops, the values
 * each rank gives and how they combine. Shared by coll_basic.c (a small
 * count through Allreduce and Reduce in place) and coll_sweep.c (a small
 * and a medium count through Allreduce, Iallreduce, Reduce and Ireduce).
 * Include after mtest.h; public MPI only, so that the MPICH-ABI pass
 * builds it too.
 */
#ifndef COLL_OPS_H
#define COLL_OPS_H

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum ct { I8, U8, I16, U16, I32, U32, I64, U64, FL, DB, LD, CF, CD, CLD, BO };
enum cls { CINT, MINT, FLT, CPLX, LOGIC, BYTE };

struct tdesc {
	const char *name;
	MPI_Datatype dt;
	enum ct ct;
	enum cls cls;
	int more;	/* another name of a type above, or a C++ type other
			 * libraries may lack: only coll_op_matrix's `all` */
};

static const struct tdesc types[] = {
	{ "MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, I8, CINT, 0 },
	{ "MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, U8, CINT, 0 },
	{ "MPI_SHORT", MPI_SHORT, I16, CINT, 0 },
	{ "MPI_UNSIGNED_SHORT", MPI_UNSIGNED_SHORT, U16, CINT, 0 },
	{ "MPI_INT", MPI_INT, I32, CINT, 0 },
	{ "MPI_UNSIGNED", MPI_UNSIGNED, U32, CINT, 0 },
	{ "MPI_LONG", MPI_LONG, I64, CINT, 0 },
	{ "MPI_UNSIGNED_LONG", MPI_UNSIGNED_LONG, U64, CINT, 0 },
	{ "MPI_LONG_LONG", MPI_LONG_LONG, I64, CINT, 0 },
	{ "MPI_LONG_LONG_INT", MPI_LONG_LONG_INT, I64, CINT, 1 },
	{ "MPI_UNSIGNED_LONG_LONG", MPI_UNSIGNED_LONG_LONG, U64, CINT, 0 },
	{ "MPI_INT8_T", MPI_INT8_T, I8, CINT, 0 },
	{ "MPI_INT16_T", MPI_INT16_T, I16, CINT, 0 },
	{ "MPI_INT32_T", MPI_INT32_T, I32, CINT, 0 },
	{ "MPI_INT64_T", MPI_INT64_T, I64, CINT, 0 },
	{ "MPI_UINT8_T", MPI_UINT8_T, U8, CINT, 0 },
	{ "MPI_UINT16_T", MPI_UINT16_T, U16, CINT, 0 },
	{ "MPI_UINT32_T", MPI_UINT32_T, U32, CINT, 0 },
	{ "MPI_UINT64_T", MPI_UINT64_T, U64, CINT, 0 },
	{ "MPI_AINT", MPI_AINT, I64, MINT, 0 },
	{ "MPI_OFFSET", MPI_OFFSET, I64, MINT, 0 },
	{ "MPI_COUNT", MPI_COUNT, I64, MINT, 0 },
	{ "MPI_INTEGER", MPI_INTEGER, I32, MINT, 0 },
	{ "MPI_INTEGER1", MPI_INTEGER1, I8, MINT, 0 },
	{ "MPI_INTEGER2", MPI_INTEGER2, I16, MINT, 0 },
	{ "MPI_INTEGER4", MPI_INTEGER4, I32, MINT, 0 },
	{ "MPI_INTEGER8", MPI_INTEGER8, I64, MINT, 0 },
	{ "MPI_FLOAT", MPI_FLOAT, FL, FLT, 0 },
	{ "MPI_DOUBLE", MPI_DOUBLE, DB, FLT, 0 },
	{ "MPI_LONG_DOUBLE", MPI_LONG_DOUBLE, LD, FLT, 0 },
	{ "MPI_REAL", MPI_REAL, FL, FLT, 0 },
	{ "MPI_DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, DB, FLT, 0 },
	{ "MPI_REAL4", MPI_REAL4, FL, FLT, 0 },
	{ "MPI_REAL8", MPI_REAL8, DB, FLT, 0 },
	{ "MPI_C_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX, CF, CPLX, 0 },
	{ "MPI_C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, CD, CPLX, 0 },
	{ "MPI_C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, CLD, CPLX, 0 },
	{ "MPI_C_COMPLEX", MPI_C_COMPLEX, CF, CPLX, 1 },
	{ "MPI_CXX_FLOAT_COMPLEX", MPI_CXX_FLOAT_COMPLEX, CF, CPLX, 1 },
	{ "MPI_CXX_DOUBLE_COMPLEX", MPI_CXX_DOUBLE_COMPLEX, CD, CPLX, 1 },
	{ "MPI_CXX_LONG_DOUBLE_COMPLEX", MPI_CXX_LONG_DOUBLE_COMPLEX, CLD, CPLX, 1 },
	{ "MPI_COMPLEX", MPI_COMPLEX, CF, CPLX, 0 },
	{ "MPI_DOUBLE_COMPLEX", MPI_DOUBLE_COMPLEX, CD, CPLX, 0 },
	{ "MPI_COMPLEX8", MPI_COMPLEX8, CF, CPLX, 0 },
	{ "MPI_COMPLEX16", MPI_COMPLEX16, CD, CPLX, 0 },
	{ "MPI_C_BOOL", MPI_C_BOOL, BO, LOGIC, 0 },
	{ "MPI_CXX_BOOL", MPI_CXX_BOOL, BO, LOGIC, 1 },
	{ "MPI_LOGICAL", MPI_LOGICAL, I32, LOGIC, 0 },
	{ "MPI_BYTE", MPI_BYTE, U8, BYTE, 0 },
};
#define NTYPES (int)(sizeof(types) / sizeof(types[0]))

static const struct {
	const char *name;
	MPI_Op op;
} pops[] = {
	{ "MPI_SUM", MPI_SUM }, { "MPI_PROD", MPI_PROD }, { "MPI_MAX", MPI_MAX },
	{ "MPI_MIN", MPI_MIN }, { "MPI_LAND", MPI_LAND }, { "MPI_LOR", MPI_LOR },
	{ "MPI_LXOR", MPI_LXOR }, { "MPI_BAND", MPI_BAND }, { "MPI_BOR", MPI_BOR },
	{ "MPI_BXOR", MPI_BXOR },
};
#define NPOPS (int)(sizeof(pops) / sizeof(pops[0]))
enum { P_SUM, P_PROD, P_MAX, P_MIN, P_LAND, P_LOR, P_LXOR, P_BAND, P_BOR, P_BXOR };

/* MPI-4.0 6.9.2: which op groups each type class allows */
static int op_allowed(int o, enum cls c)
{
	switch (c) {
	case CINT: return 1;
	case MINT: return o <= P_MIN || o >= P_BAND;
	case FLT: return o <= P_MIN;
	case CPLX: return o <= P_PROD;
	case LOGIC: return o >= P_LAND && o <= P_LXOR;
	case BYTE: return o >= P_BAND;
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

/* small values every type holds exactly, at any count and up to 9 ranks
 * (products: at most three factors of at most 2 + i) */
static long double complex opval(int o, int r, long i, int cplx)
{
	long double complex v;

	switch (o) {
	case P_SUM: v = (r * 3 + i) % 5 + ((r + i) % 3) * I; break;
	case P_PROD: v = r < 3 ? (i % 2) + 1 + (i % 3 == 1) * I : 1; break;
	case P_MAX: case P_MIN: v = (r * 7 + i * 3) % 11; break;
	case P_LAND: v = (r + 2 * i) % 3 != 0 || r > 2; break;
	case P_LOR: v = (r + i) % 4 == 0; break;
	case P_LXOR: v = (r * 5 + i) % 3 == 0; break;
	default: v = (r * 37 + i * 11) % 128;
	}
	return cplx ? v : creall(v);
}

static void ct_set(void *b, enum ct t, long i, long double complex v)
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

static long double complex ct_get(const void *b, enum ct t, long i)
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
	case P_SUM: return a + b;
	case P_PROD: return a * b;
	case P_MAX: return creall(a) > creall(b) ? a : b;
	case P_MIN: return creall(a) < creall(b) ? a : b;
	case P_LAND: return x && y;
	case P_LOR: return x || y;
	case P_LXOR: return !x != !y;
	case P_BAND: return x & y;
	case P_BOR: return x | y;
	default: return x ^ y;
	}
}

/* the calls of the matrix, one bit each in coll_op_matrix's `forms`:
 * Allreduce, Iallreduce, Reduce (the root in place) and Ireduce */
enum { COLL_ALLREDUCE = 1, COLL_IALLREDUCE = 2, COLL_REDUCE_IP = 4, COLL_IREDUCE = 8,
       COLL_ALL_FORMS = 15 };
static const char *const form_names[] = { "MPI_Allreduce", "MPI_Iallreduce", "MPI_Reduce",
					  "MPI_Ireduce" };

static int form_start(int f, const void *s, void *r, int cnt, MPI_Datatype dt, MPI_Op op,
		      int root, MPI_Comm comm, MPI_Request *req)
{
	int me;

	MPI_Comm_rank(comm, &me);
	*req = MPI_REQUEST_NULL;
	switch (f) {
	case 0: return MPI_Allreduce(s, r, cnt, dt, op, comm);
	case 1: return MPI_Iallreduce(s, r, cnt, dt, op, comm, req);
	case 2: return MPI_Reduce(me == root ? MPI_IN_PLACE : s, r, cnt, dt, op, root, comm);
	default: return MPI_Ireduce(s, r, cnt, dt, op, root, comm, req);
	}
}

/* op o on type t through the forms of `forms`; root (o + salt) mod the
 * size; tag ends each message. Returns the calls made. */
static long test_op_type(int o, const struct tdesc *t, int cnt, MPI_Comm comm, const char *cname,
			 int salt, unsigned forms, const char *tag)
{
	size_t sz = ct_size(t->ct);
	char *s = mtest_malloc(cnt * sz), *r = mtest_malloc(cnt * sz);
	int n, me, cplx = t->cls == CPLX, root, rc;
	long calls = 0;
	MPI_Request req;

	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &me);
	root = (o + salt) % n;
	memset(s, 0, cnt * sz);   /* long double padding: keep valgrind quiet */
	for (long i = 0; i < cnt; i++)
		ct_set(s, t->ct, i, opval(o, me, i, cplx));
	for (int f = 0; f < 4; f++) {
		if (!(forms & 1u << f))
			continue;
		memset(r, 0x5a, cnt * sz);
		if (f == 2 && me == root)
			memcpy(r, s, cnt * sz);
		rc = form_start(f, s, r, cnt, t->dt, pops[o].op, root, comm, &req);
		calls++;
		mtest_check(rc == MPI_SUCCESS, "%s %s on %s, count %d on %s: returned %d%s",
			    form_names[f], pops[o].name, t->name, cnt, cname, rc, tag);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		if (f >= 2 && me != root)
			continue;
		for (long i = 0; i < cnt; i++) {
			long double complex e = opval(o, 0, i, cplx), got = ct_get(r, t->ct, i);

			for (int k = 1; k < n; k++)
				e = combine(o, e, opval(o, k, i, cplx));
			if (t->ct == BO)
				e = creall(e) != 0;
			if (!mtest_check(got == e, "%s %s on %s, count %d on %s%s: element %ld is "
					 "%Lg%+Lgi, expected %Lg%+Lgi%s", form_names[f],
					 pops[o].name, t->name, cnt, cname,
					 f >= 2 ? (f == 2 ? ", root in place" : ", root") : "",
					 i, creall(got), cimagl(got), creall(e), cimagl(e), tag))
				break;
		}
	}
	free(s);
	free(r);
	return calls;
}

/* MINLOC/MAXLOC: values with ties, index = rank; ties keep the lowest rank */
#define LOC_TEST(fn, VT, IT) \
static long fn(MPI_Datatype dt, const char *name, int cnt, MPI_Comm comm, const char *cname, \
	       unsigned forms, const char *tag) \
{ \
	struct pair { VT v; IT i; } *s = mtest_malloc(cnt * sizeof(*s)), \
				 *r = mtest_malloc(cnt * sizeof(*r)); \
	int n, me, root, rc; \
	long calls = 0; \
	MPI_Request req; \
	MPI_Comm_size(comm, &n); \
	MPI_Comm_rank(comm, &me); \
	memset(s, 0, cnt * sizeof(*s)); \
	for (int f = 0; f < 8; f++) { \
		int max = f % 2; \
		if (!(forms & 1u << f / 2)) \
			continue; \
		root = (f + cnt) % n; \
		for (int i = 0; i < cnt; i++) { \
			s[i].v = (VT)((me * 5 + i) % 3); \
			s[i].i = (IT)me; \
		} \
		memset(r, 0, cnt * sizeof(*r)); \
		if (f / 2 == 2 && me == root) \
			memcpy(r, s, cnt * sizeof(*s)); \
		rc = form_start(f / 2, s, r, cnt, dt, max ? MPI_MAXLOC : MPI_MINLOC, root, comm, \
				&req); \
		calls++; \
		mtest_check(rc == MPI_SUCCESS, "%s %s on %s, count %d on %s: returned %d%s", \
			    form_names[f / 2], max ? "MPI_MAXLOC" : "MPI_MINLOC", name, cnt, \
			    cname, rc, tag); \
		MPI_Wait(&req, MPI_STATUS_IGNORE); \
		if (f / 2 >= 2 && me != root) \
			continue; \
		for (int i = 0; i < cnt; i++) { \
			int ev = (0 * 5 + i) % 3, ei = 0; \
			for (int k = 1; k < n; k++) { \
				int v = (k * 5 + i) % 3; \
				if (max ? v > ev : v < ev) \
					ev = v, ei = k; \
			} \
			if (!mtest_check(r[i].v == (VT)ev && r[i].i == (IT)ei, \
					 "%s %s on %s, count %d on %s: element %d is (%g, %g), " \
					 "expected (%d, %d)%s", form_names[f / 2], \
					 max ? "MPI_MAXLOC" : "MPI_MINLOC", name, cnt, cname, i, \
					 (double)r[i].v, (double)r[i].i, ev, ei, tag)) \
				break; \
		} \
	} \
	free(s); \
	free(r); \
	return calls; \
}

LOC_TEST(loc_2int, int, int)
LOC_TEST(loc_float_int, float, int)
LOC_TEST(loc_double_int, double, int)
LOC_TEST(loc_long_int, long, int)
LOC_TEST(loc_short_int, short, int)
LOC_TEST(loc_ldouble_int, long double, int)
LOC_TEST(loc_2real, float, float)
LOC_TEST(loc_2dbl, double, double)

static long test_loc(int cnt, MPI_Comm comm, const char *cname, unsigned forms, const char *tag)
{
	long calls = 0;

	calls += loc_2int(MPI_2INT, "MPI_2INT", cnt, comm, cname, forms, tag);
	calls += loc_2int(MPI_2INTEGER, "MPI_2INTEGER", cnt, comm, cname, forms, tag);
	calls += loc_float_int(MPI_FLOAT_INT, "MPI_FLOAT_INT", cnt, comm, cname, forms, tag);
	calls += loc_double_int(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", cnt, comm, cname, forms, tag);
	calls += loc_long_int(MPI_LONG_INT, "MPI_LONG_INT", cnt, comm, cname, forms, tag);
	calls += loc_short_int(MPI_SHORT_INT, "MPI_SHORT_INT", cnt, comm, cname, forms, tag);
	calls += loc_ldouble_int(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", cnt, comm, cname,
				 forms, tag);
	calls += loc_2real(MPI_2REAL, "MPI_2REAL", cnt, comm, cname, forms, tag);
	calls += loc_2dbl(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", cnt, comm, cname, forms,
			  tag);
	return calls;
}

/*
 * Every allowed op on every type of types[] (all: the `more` ones too),
 * then MINLOC/MAXLOC on the pair types, cnt elements on comm through the
 * calls of `forms`; tag ends each message. Returns the calls made.
 */
static long coll_op_matrix(int cnt, MPI_Comm comm, const char *cname, unsigned forms, int all,
			   const char *tag)
{
	long calls = 0;

	for (int t = 0; t < NTYPES; t++) {
		int size = -1;

		if (types[t].more && !all)
			continue;
		/* other libraries may lack the C++ types (MPICH built without
		 * C++: null); Michi has them all */
		if (types[t].dt != MPI_DATATYPE_NULL)
			MPI_Type_size(types[t].dt, &size);
		if (size != (int)ct_size(types[t].ct)) {
			if (mtest_is_michi())
				mtest_error("%s: size %d, expected %zu", types[t].name, size,
					    ct_size(types[t].ct));
			continue;
		}
		for (int o = 0; o < NPOPS; o++)
			if (op_allowed(o, types[t].cls))
				calls += test_op_type(o, &types[t], cnt, comm, cname, t, forms, tag);
	}
	return calls + test_loc(cnt, comm, cname, forms, tag);
}

#endif
