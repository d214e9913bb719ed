/* SPDX-License-Identifier: MIT */
/*
 * mpi/datatype/predefined.c: predefined datatypes.
 *
 * A builtin MPICH datatype handle carries its byte size in bits 8-15, so
 * the hot paths read sizes off the handle; this file only keeps the list
 * of valid builtins (a bitmap for argument checks, and their names) and
 * the five pair types whose handles are 0x8c00000x. Derived datatypes are
 * the datatype engine's (mpi/datatype/derived.c, mpi/datatype/dtype_pack.c).
 *
 * Pair types have padding (MPI_DOUBLE_INT is 12 bytes of data in a 16-byte
 * extent): point-to-point packs them like derived types, 12 bytes each;
 * collectives move them whole, count * extent bytes.
 */
#include "mpiimpl.h"

#include <stdio.h>

uint32_t michi_dt_builtin_tab[256];

struct dt_name {
	MPI_Datatype dt;
	const char *name;
};

static const struct dt_name builtins[] = {
	{ MPI_CHAR, "MPI_CHAR" }, { MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR" },
	{ MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR" }, { MPI_BYTE, "MPI_BYTE" },
	{ MPI_WCHAR, "MPI_WCHAR" }, { MPI_SHORT, "MPI_SHORT" },
	{ MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT" }, { MPI_INT, "MPI_INT" },
	{ MPI_UNSIGNED, "MPI_UNSIGNED" }, { MPI_LONG, "MPI_LONG" },
	{ MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG" }, { MPI_FLOAT, "MPI_FLOAT" },
	{ MPI_DOUBLE, "MPI_DOUBLE" }, { MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE" },
	{ MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT" },
	{ MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG" },
	{ MPI_PACKED, "MPI_PACKED" }, { MPI_LB, "MPI_LB" }, { MPI_UB, "MPI_UB" },
	{ MPI_2INT, "MPI_2INT" }, { MPI_COMPLEX, "MPI_COMPLEX" },
	{ MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX" }, { MPI_LOGICAL, "MPI_LOGICAL" },
	{ MPI_REAL, "MPI_REAL" }, { MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION" },
	{ MPI_INTEGER, "MPI_INTEGER" }, { MPI_2INTEGER, "MPI_2INTEGER" },
	{ MPI_2REAL, "MPI_2REAL" }, { MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION" },
	{ MPI_CHARACTER, "MPI_CHARACTER" }, { MPI_REAL4, "MPI_REAL4" },
	{ MPI_REAL8, "MPI_REAL8" }, { MPI_REAL16, "MPI_REAL16" },
	{ MPI_COMPLEX8, "MPI_COMPLEX8" }, { MPI_COMPLEX16, "MPI_COMPLEX16" },
	{ MPI_COMPLEX32, "MPI_COMPLEX32" }, { MPI_INTEGER1, "MPI_INTEGER1" },
	{ MPI_INTEGER2, "MPI_INTEGER2" }, { MPI_INTEGER4, "MPI_INTEGER4" },
	{ MPI_INTEGER8, "MPI_INTEGER8" }, { MPI_INT8_T, "MPI_INT8_T" },
	{ MPI_INT16_T, "MPI_INT16_T" }, { MPI_INT32_T, "MPI_INT32_T" },
	{ MPI_INT64_T, "MPI_INT64_T" }, { MPI_UINT8_T, "MPI_UINT8_T" },
	{ MPI_UINT16_T, "MPI_UINT16_T" }, { MPI_UINT32_T, "MPI_UINT32_T" },
	{ MPI_UINT64_T, "MPI_UINT64_T" }, { MPI_C_BOOL, "MPI_C_BOOL" },
	{ MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX" },
	{ MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX" },
	{ MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX" },
	{ MPI_AINT, "MPI_AINT" }, { MPI_OFFSET, "MPI_OFFSET" },
	{ MPI_COUNT, "MPI_COUNT" }, { MPI_CXX_BOOL, "MPI_CXX_BOOL" },
	{ MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX" },
	{ MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX" },
	{ MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX" },
};

/* MPICH's pair types, in handle order 0x8c000000.. */
struct pair_type {
	const char *name;
	MPI_Count size;
	MPI_Aint extent;
};

struct float_int { float a; int b; };
struct double_int { double a; int b; };
struct long_int { long a; int b; };
struct short_int { short a; int b; };
struct long_double_int { long double a; int b; };

static const struct pair_type pairs[] = {
	{ "MPI_FLOAT_INT", sizeof(float) + sizeof(int), sizeof(struct float_int) },
	{ "MPI_DOUBLE_INT", sizeof(double) + sizeof(int), sizeof(struct double_int) },
	{ "MPI_LONG_INT", sizeof(long) + sizeof(int), sizeof(struct long_int) },
	{ "MPI_SHORT_INT", sizeof(short) + sizeof(int), sizeof(struct short_int) },
	{ "MPI_LONG_DOUBLE_INT", 16 + sizeof(int), sizeof(struct long_double_int) },
};

#define PAIR_BASE 0x8c000000u
#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))

static int is_pair(MPI_Datatype dt)
{
	return (uint32_t)dt - PAIR_BASE < NPAIRS;
}

/* Where the two elements of a pair type lie, for the datatype engine;
 * returns the type's alignment, 0 when dt is not a pair type. */
int michi_dt_pair_layout(MPI_Datatype dt, MPI_Aint off[2], MPI_Count len[2],
			 MPI_Datatype *first)
{
	static const struct { size_t a, boff, align; MPI_Datatype first; } lay[] = {
		{ sizeof(float), offsetof(struct float_int, b), _Alignof(struct float_int),
		  MPI_FLOAT },
		{ sizeof(double), offsetof(struct double_int, b), _Alignof(struct double_int),
		  MPI_DOUBLE },
		{ sizeof(long), offsetof(struct long_int, b), _Alignof(struct long_int), MPI_LONG },
		{ sizeof(short), offsetof(struct short_int, b), _Alignof(struct short_int),
		  MPI_SHORT },
		{ 16, offsetof(struct long_double_int, b), _Alignof(struct long_double_int),
		  MPI_LONG_DOUBLE },
	};
	uint32_t i = (uint32_t)dt - PAIR_BASE;

	if (i >= NPAIRS)
		return 0;
	off[0] = 0;
	len[0] = (MPI_Count)lay[i].a;
	off[1] = (MPI_Aint)lay[i].boff;
	len[1] = sizeof(int);
	*first = lay[i].first;
	return (int)lay[i].align;
}

void michi_dt_init(void)
{
	size_t i;

	/* no builtin handle is all ones: empty slots never match */
	memset(michi_dt_builtin_tab, 0xff, sizeof(michi_dt_builtin_tab));
	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		uint32_t k = (uint32_t)builtins[i].dt & 0xffu;

		/* MPICH numbers its builtins uniquely in the low byte */
		MICHI_ASSERT_ALWAYS(michi_dt_builtin_tab[k] == 0xffffffffu);
		michi_dt_builtin_tab[k] = (uint32_t)builtins[i].dt;
	}
}

void michi_dt_size_extent_slow(MPI_Datatype dt, MPI_Count *size, MPI_Aint *extent)
{
	struct michi_dtype *t;

	if (is_pair(dt)) {
		*size = pairs[(uint32_t)dt - PAIR_BASE].size;
		*extent = pairs[(uint32_t)dt - PAIR_BASE].extent;
		return;
	}
	t = michi_dt_get(dt);
	*size = t ? t->size : 0;
	*extent = t ? t->ub - t->lb : 0;
}

/*
 * 0 for a datatype that the callers which move count * extent bytes at
 * the buffer (collectives, reductions) may take: predefined and pair
 * types, and committed derived types whose instances are exactly that
 * (contiguous, starting at the buffer); otherwise an MPI error class.
 * Point-to-point and packing take every committed type (mpi/datatype/derived.c).
 */
int michi_dt_check(MPI_Datatype dt)
{
	struct michi_dtype *t;

	if (likely(michi_dt_builtin_valid(dt)))
		return 0;
	if (is_pair(dt))
		return 0;
	t = michi_dt_get(dt);
	if (t && t->committed && t->contig && t->true_lb == 0 && t->lb == 0)
		return 0;
	return MPI_ERR_TYPE;
}

int michi_dt_is_pair(MPI_Datatype dt)
{
	return is_pair(dt) || dt == MPI_2INT || dt == MPI_2INTEGER || dt == MPI_2REAL ||
	       dt == MPI_2DOUBLE_PRECISION;
}

const char *michi_dt_name(MPI_Datatype dt)
{
	size_t i;

	if (is_pair(dt))
		return pairs[(uint32_t)dt - PAIR_BASE].name;
	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (builtins[i].dt == dt)
			return builtins[i].name;
	return NULL;
}
