/* SPDX-License-Identifier: MIT */
/*
 * mpi/fortran/fortran_impl.h: what the Fortran wrappers of libmpifort share
 * (the generated fortran.c and the hand-written fortran_special.c).
 *
 * Layout. libmpifort.so.12 is a thin layer over libmpi.so.12: each wrapper
 * converts its by-reference Fortran arguments and calls the C PMPI_ entry
 * point. Handles need no conversion (MPI_Fint is int, and so are Michi's
 * handles, MPI_File aside), nor does a status (the 5 Fortran integers are
 * the C MPI_Status, field for field, as in MPICH).
 *
 * Sentinels. mpif.h puts MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE,
 * MPI_ERRCODES_IGNORE, MPI_ARGV(S)_NULL, MPI_UNWEIGHTED and
 * MPI_WEIGHTS_EMPTY in MPICH's common blocks. A common block is a global
 * symbol; the program that includes mpif.h defines it, and so does this
 * library, exported with default visibility and reached through the GOT,
 * so the dynamic linker binds the library's references to the program's
 * copy. A wrapper recognises a sentinel by its address.
 */
#ifndef MICHI_FORTRAN_IMPL_H
#define MICHI_FORTRAN_IMPL_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"

#define F_EXPORT __attribute__((visibility("default")))

/* The common blocks, sized as mpif.h declares them. */
struct michi_f_priv1 { MPI_Fint bottom, in_place, status_ignore[MPI_F_STATUS_SIZE]; };
struct michi_f_priv2 { MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE], errcodes_ignore[1]; };
struct michi_f_privc { char argvs_null, argv_null; };
extern struct michi_f_priv1 mpipriv1_;
extern struct michi_f_priv2 mpipriv2_;
extern struct michi_f_privc mpiprivc_;
extern MPI_Fint mpifcmb5_;	/* MPI_UNWEIGHTED */
extern MPI_Fint mpifcmb9_;	/* MPI_WEIGHTS_EMPTY */

/* A choice buffer: MPI_BOTTOM and MPI_IN_PLACE are the C ones. */
static inline void *F_BUF(void *p)
{
	if (p == (void *)&mpipriv1_.bottom)
		return MPI_BOTTOM;
	if (p == (void *)&mpipriv1_.in_place)
		return MPI_IN_PLACE;
	return p;
}

static inline MPI_Status *F_STATUS(MPI_Fint *s)
{
	return s == mpipriv1_.status_ignore ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)s;
}

static inline MPI_Status *F_STATUSES(MPI_Fint *s)
{
	return s == mpipriv2_.statuses_ignore ? MPI_STATUSES_IGNORE : (MPI_Status *)(void *)s;
}

static inline int *F_WEIGHTS(MPI_Fint *w)
{
	if (w == &mpifcmb5_)
		return MPI_UNWEIGHTED;
	if (w == &mpifcmb9_)
		return MPI_WEIGHTS_EMPTY;
	return w;
}

static inline int *F_ERRCODES(MPI_Fint *e)
{
	return e == mpipriv2_.errcodes_ignore ? MPI_ERRCODES_IGNORE : e;
}

/* gfortran's LOGICAL: .TRUE. is 1, .FALSE. is 0. */
#define F_TRUE 1
#define F_FALSE 0
static inline MPI_Fint F_LOGICAL(int c)
{
	return c ? F_TRUE : F_FALSE;
}

/* MPI_File is a pointer in C; Fortran's MPI_FILE_NULL is 0. */
static inline MPI_File f_file(MPI_Fint f)
{
	return f ? PMPI_File_f2c(f) : MPI_FILE_NULL;
}

static inline MPI_Fint f_file_c2f(MPI_File f)
{
	return f == MPI_FILE_NULL ? 0 : PMPI_File_c2f(f);
}

/* Strings: a Fortran CHARACTER argument is len bytes, blank padded, with
 * no terminator. michi_f_str_in returns a malloc'd copy without trailing
 * (and, as MPICH does, leading) blanks; michi_f_str_buf a C buffer big
 * enough for any string MPI writes into len Fortran characters (the C
 * call may write up to MPI's own maximum, longer than len); and
 * michi_f_str_out copies the C string back, truncated or blank padded to
 * len. */
char *michi_f_str_in(const char *s, size_t len);
char *michi_f_str_buf(size_t len);
void michi_f_str_out(char *dst, size_t len, const char *src);

/* MPI-1 INTEGER address arrays to MPI_Aint (NULL when n <= 0 or no memory). */
MPI_Aint *f_aint_array(const MPI_Fint *a, MPI_Fint n);

/* mpi_f08's IERROR is OPTIONAL: absent, gfortran passes a null pointer.
 * Every wrapper opens with this, and then always has an ierr to set. */
#define F_IERR_OPTIONAL(ierr) \
	MPI_Fint ierr##_absent; \
	if (!(ierr)) \
		(ierr) = &ierr##_absent

/* The MPI_ERR_NO_MEM return of a wrapper that could not allocate. */
int michi_f_nomem(const char *fname);
/* libmpi's error path for the bindings (mpi/env/errors.c). */
int michi_binding_error(int errclass, const char *fname, const char *what);

/* Each wrapper is pmpi_x_; the other names under which MPICH's libmpifort
 * exports it (the spellings Fortran compilers use) are weak aliases. */
#define F_ALIAS(name, target) \
	extern __typeof__(target) name __attribute__((weak, alias(#target), visibility("default")));
#define F_ALIASES(lc, UC) \
	F_ALIAS(mpi_##lc##_, pmpi_##lc##_) \
	F_ALIAS(mpi_##lc##__, pmpi_##lc##_) \
	F_ALIAS(mpi_##lc, pmpi_##lc##_) \
	F_ALIAS(MPI_##UC, pmpi_##lc##_) \
	F_ALIAS(pmpi_##lc##__, pmpi_##lc##_) \
	F_ALIAS(pmpi_##lc, pmpi_##lc##_) \
	F_ALIAS(PMPI_##UC, pmpi_##lc##_)

#endif
