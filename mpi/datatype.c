/* SPDX-License-Identifier: MIT */
/*
 * mpi/datatype.c: predefined datatypes.
 *
 * A builtin MPICH datatype handle carries its byte size in bits 8-15, so
 * the hot paths read sizes off the handle; this file only keeps the list
 * of valid builtins (a bitmap for argument checks, and their names) and
 * the five pair types whose handles are 0x8c00000x. Derived datatypes are
 * the datatype engine's (a later issue); until then their constructors
 * report MPI_ERR_UNSUPPORTED_OPERATION.
 *
 * Pair types have padding (MPI_DOUBLE_INT is 12 bytes of data in a 16-byte
 * extent). Point-to-point moves count * extent bytes for them, so sender
 * and receiver agree on element boundaries; counts are in extents.
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
	{ MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX" },
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
	if (is_pair(dt)) {
		*size = pairs[(uint32_t)dt - PAIR_BASE].size;
		*extent = pairs[(uint32_t)dt - PAIR_BASE].extent;
		return;
	}
	*size = 0;
	*extent = 0;
}

/*
 * 0 for a datatype point-to-point accepts; otherwise an MPI error class.
 * Point-to-point moves count * extent contiguous bytes (see above), so
 * the transfer size of a pair type is its extent.
 */
int michi_dt_check(MPI_Datatype dt)
{
	if (likely(michi_dt_builtin_valid(dt)))
		return 0;
	if (is_pair(dt))
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

static int dt_arg_err(const char *fname, MPI_Datatype dt)
{
	if (dt == MPI_DATATYPE_NULL)
		return michi_mpi_err(NULL, MPI_ERR_TYPE, fname,
				     "(datatype=MPI_DATATYPE_NULL): null datatype");
	return michi_mpi_err(NULL, MPI_ERR_TYPE, fname,
			     "(datatype=0x%x): not a valid datatype", (unsigned)dt);
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
	MICHI_CHECK_INIT("MPI_Type_size");
	if (ERRCHK && michi_dt_check(datatype))
		return dt_arg_err("MPI_Type_size", datatype);
	if (ERRCHK && !size)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_size", "(size=NULL): output pointer is NULL");
	*size = (int)michi_dt_size(datatype);
	return MPI_SUCCESS;
}
MICHI_ALIAS(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
	MICHI_CHECK_INIT("MPI_Type_size_x");
	if (ERRCHK && michi_dt_check(datatype))
		return dt_arg_err("MPI_Type_size_x", datatype);
	if (ERRCHK && !size)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_size_x", "(size=NULL): output pointer is NULL");
	*size = michi_dt_size(datatype);
	return MPI_SUCCESS;
}
MICHI_ALIAS(Type_size_x)

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
	MICHI_CHECK_INIT("MPI_Type_size_c");
	if (ERRCHK && michi_dt_check(datatype))
		return dt_arg_err("MPI_Type_size_c", datatype);
	if (ERRCHK && !size)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_size_c", "(size=NULL): output pointer is NULL");
	*size = michi_dt_size(datatype);
	return MPI_SUCCESS;
}
MICHI_ALIAS(Type_size_c)

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	MICHI_CHECK_INIT("MPI_Type_get_extent");
	if (ERRCHK && michi_dt_check(datatype))
		return dt_arg_err("MPI_Type_get_extent", datatype);
	if (ERRCHK && (!lb || !extent))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_get_extent", "(): output pointer is NULL");
	*lb = 0;
	*extent = michi_dt_extent(datatype);
	return MPI_SUCCESS;
}
MICHI_ALIAS(Type_get_extent)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
	const char *n;

	MICHI_CHECK_INIT("MPI_Type_get_name");
	if (ERRCHK && michi_dt_check(datatype))
		return dt_arg_err("MPI_Type_get_name", datatype);
	if (ERRCHK && (!type_name || !resultlen))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_get_name", "(): output pointer is NULL");
	n = michi_dt_name(datatype);
	snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", n ? n : "");
	*resultlen = (int)strlen(type_name);
	return MPI_SUCCESS;
}
MICHI_ALIAS(Type_get_name)

/* ---- packing of predefined types ---------------------------------------- */

/*
 * Predefined types are contiguous, so packing is a copy at the position;
 * the packed form of a pair type is its extent, as on the wire. The
 * datatype engine (derived types, external32) replaces this later.
 */
static int pack_check(const char *fname, int count, MPI_Datatype dt, MPI_Comm comm)
{
	if (ERRCHK && count < 0)
		return michi_mpi_err(NULL, MPI_ERR_COUNT, fname, "(count=%d): count is negative", count);
	if (ERRCHK && michi_dt_check(dt))
		return dt_arg_err(fname, dt);
	if (ERRCHK && !michi_comm_get(comm))
		return michi_check_comm_slow(comm, fname);
	return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
	int err;
	MPI_Count n;

	MICHI_CHECK_INIT("MPI_Pack_size");
	if ((err = pack_check("MPI_Pack_size", incount, datatype, comm)))
		return err;
	if (ERRCHK && !size)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Pack_size", "(size=NULL): output pointer is NULL");
	n = (MPI_Count)incount * michi_dt_extent(datatype);
	if (n > 0x7fffffff)
		return michi_mpi_err(NULL, MPI_ERR_COUNT, "MPI_Pack_size",
				     "(incount=%d): %lld bytes do not fit an int", incount, (long long)n);
	*size = (int)n;
	return MPI_SUCCESS;
}
MICHI_ALIAS(Pack_size)

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
	      int *position, MPI_Comm comm)
{
	size_t n;
	int err;

	MICHI_CHECK_INIT("MPI_Pack");
	if ((err = pack_check("MPI_Pack", incount, datatype, comm)))
		return err;
	if (ERRCHK && (!position || *position < 0))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Pack", "(position=%p): invalid position",
				     (void *)position);
	n = (size_t)incount * (size_t)michi_dt_extent(datatype);
	if (n > (size_t)outsize - (size_t)*position || *position > outsize)
		return michi_mpi_err(NULL, MPI_ERR_TRUNCATE, "MPI_Pack",
				     "(outsize=%d, position=%d): %zu bytes do not fit", outsize,
				     *position, n);
	if (ERRCHK && n && (!inbuf || !outbuf))
		return michi_mpi_err(NULL, MPI_ERR_BUFFER, "MPI_Pack", "(): NULL buffer");
	memcpy((char *)outbuf + *position, inbuf, n);
	*position += (int)n;
	return MPI_SUCCESS;
}
MICHI_ALIAS(Pack)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
		MPI_Datatype datatype, MPI_Comm comm)
{
	size_t n;
	int err;

	MICHI_CHECK_INIT("MPI_Unpack");
	if ((err = pack_check("MPI_Unpack", outcount, datatype, comm)))
		return err;
	if (ERRCHK && (!position || *position < 0))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Unpack", "(position=%p): invalid position",
				     (void *)position);
	n = (size_t)outcount * (size_t)michi_dt_extent(datatype);
	if (n > (size_t)insize - (size_t)*position || *position > insize)
		return michi_mpi_err(NULL, MPI_ERR_TRUNCATE, "MPI_Unpack",
				     "(insize=%d, position=%d): %zu bytes are not there", insize,
				     *position, n);
	if (ERRCHK && n && (!inbuf || !outbuf))
		return michi_mpi_err(NULL, MPI_ERR_BUFFER, "MPI_Unpack", "(): NULL buffer");
	memcpy(outbuf, (const char *)inbuf + *position, n);
	*position += (int)n;
	return MPI_SUCCESS;
}
MICHI_ALIAS(Unpack)

/* The deprecated MPI-1 extent queries, for predefined types. */
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
	MPI_Aint lb;

	return PMPI_Type_get_extent(datatype, &lb, extent);
}
MICHI_ALIAS(Type_extent)
