/* SPDX-License-Identifier: MIT */
/*
 * mpi/env/misc.c: small environment calls: address arithmetic, memory
 * allocation, profiling control, and status setters.
 */
#include "pt2pt.h"
#include "dtype.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
	return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
MICHI_ALIAS_UNLOCKED(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
	return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
MICHI_ALIAS_UNLOCKED(Aint_diff)

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
	if (ERRCHK && !address)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Get_address",
				     "(address=NULL): output pointer is NULL");
	*address = (MPI_Aint)(uintptr_t)location;
	return MPI_SUCCESS;
}
MICHI_ALIAS_UNLOCKED(Get_address)

int PMPI_Address(void *location, MPI_Aint *address)
{
	return PMPI_Get_address(location, address);
}
MICHI_ALIAS_UNLOCKED(Address)

/* No registered memory to prefer yet: plain allocation, 64-byte aligned
 * so that buffers start on a cache line. */
int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
	void *p;

	MICHI_CHECK_INIT("MPI_Alloc_mem");
	if (ERRCHK && size < 0)
		return michi_mpi_err(NULL, MPI_ERR_SIZE, "MPI_Alloc_mem",
				     "(size=%ld): size is negative", (long)size);
	if (ERRCHK && !baseptr)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Alloc_mem", "(baseptr=NULL): NULL pointer");
	if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Alloc_mem",
				     "(size=%ld): out of memory", (long)size);
	*(void **)baseptr = p;
	return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
	MICHI_CHECK_INIT("MPI_Free_mem");
	free(base);
	return MPI_SUCCESS;
}

/* Profiling control is for PMPI tools; the library itself has no levels. */
int PMPI_Pcontrol(const int level, ...)
{
	return MPI_SUCCESS;
}
MICHI_ALIAS_UNLOCKED(Pcontrol)

/* A Fortran status is the C one, integer for integer (mpif.h's
 * MPI_STATUS_SIZE is 5, MPI_SOURCE 3, MPI_TAG 4, MPI_ERROR 5). The IGNORE
 * sentinels of either language are not statuses. */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
	       "a Fortran status is a C one");

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
	if (ERRCHK && (!c_status || c_status == MPI_STATUS_IGNORE))
		return michi_err_null(NULL, "MPI_Status_c2f", "c_status");
	if (ERRCHK && (!f_status || f_status == MPI_F_STATUS_IGNORE))
		return michi_err_null(NULL, "MPI_Status_c2f", "f_status");
	memcpy(f_status, c_status, sizeof(*c_status));
	return MPI_SUCCESS;
}

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
	if (ERRCHK && (!f_status || f_status == MPI_F_STATUS_IGNORE))
		return michi_err_null(NULL, "MPI_Status_f2c", "f_status");
	if (ERRCHK && (!c_status || c_status == MPI_STATUS_IGNORE))
		return michi_err_null(NULL, "MPI_Status_f2c", "c_status");
	memcpy(c_status, f_status, sizeof(*c_status));
	return MPI_SUCCESS;
}

/* MPI-4.0 18.2.5: the mpi_f08 status (MPI_F08_status, TYPE(MPI_Status))
 * is, as in MPICH, the C status again, integer for integer, so every
 * conversion among the three views is a copy. */
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "an f08 status is a C one");

/* Copy one status view to another after checking that neither is NULL
 * nor an IGNORE sentinel of its language. */
static int status_copy(const void *in, const void *in_ignore, const char *in_name, void *out,
		       const void *out_ignore, const char *out_name, const char *fname)
{
	if (ERRCHK && (!in || in == in_ignore))
		return michi_err_null(NULL, fname, in_name);
	if (ERRCHK && (!out || out == out_ignore))
		return michi_err_null(NULL, fname, out_name);
	memcpy(out, in, sizeof(MPI_Status));
	return MPI_SUCCESS;
}

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
	return status_copy(c_status, MPI_STATUS_IGNORE, "c_status", f08_status,
			   MPI_F08_STATUS_IGNORE, "f08_status", "MPI_Status_c2f08");
}
MICHI_ALIAS_UNLOCKED(Status_c2f08)

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
	return status_copy(f08_status, MPI_F08_STATUS_IGNORE, "f08_status", c_status,
			   MPI_STATUS_IGNORE, "c_status", "MPI_Status_f082c");
}
MICHI_ALIAS_UNLOCKED(Status_f082c)

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
	return status_copy(f08_status, MPI_F08_STATUS_IGNORE, "f08_status", f_status,
			   MPI_F_STATUS_IGNORE, "f_status", "MPI_Status_f082f");
}
MICHI_ALIAS_UNLOCKED(Status_f082f)

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
	return status_copy(f_status, MPI_F_STATUS_IGNORE, "f_status", f08_status,
			   MPI_F08_STATUS_IGNORE, "f08_status", "MPI_Status_f2f08");
}
MICHI_ALIAS_UNLOCKED(Status_f2f08)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
	if (ERRCHK && (!status || status == MPI_STATUS_IGNORE))
		return michi_err_null(NULL, "MPI_Status_set_cancelled", "status");
	status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
	return MPI_SUCCESS;
}

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
	int cancelled;

	if (ERRCHK && (!status || status == MPI_STATUS_IGNORE))
		return michi_err_null(NULL, "MPI_Status_set_elements_x", "status");
	if (ERRCHK && !michi_dt_ok(datatype))
		return michi_err_type(NULL, "MPI_Status_set_elements_x", datatype);
	if (ERRCHK && count < 0)
		return michi_err_count(NULL, "MPI_Status_set_elements_x", (int)count);
	cancelled = status->count_hi_and_cancelled & 1;
	/* the packed bytes of count elements (what a receive of them gets) */
	michi_status_set(status, status->MPI_SOURCE, status->MPI_TAG,
			 (size_t)michi_dt_element_bytes(datatype, count), cancelled);
	return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
	return PMPI_Status_set_elements_x(status, datatype, count);
}
