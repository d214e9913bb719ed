/* SPDX-License-Identifier: MIT */
/*
 * mpi/bindings/mpir_compat.c: the link-time symbols, other than MPI
 * functions, that programs compiled against MPICH's mpi.h reference.
 *
 * MPICH's header expands MPI_DUP_FN (and MPI_COMM/TYPE/WIN_DUP_FN) to the
 * function MPIR_Dup_fn, and declares a few sentinels as exported variables
 * (MPI_UNWEIGHTED, MPI_F_STATUS_IGNORE, ...). Michi's mpi.h uses the same
 * names so that binaries built with either header load Michi's library.
 * The list was collected by building a program that uses every macro of
 * MPICH's mpi.h with mpicc.mpich and reading `nm -D` of the result (the
 * variables show up there as copy relocations, so their sizes matter too).
 * The sentinels only need distinct, stable addresses: the MPI core
 * compares argument pointers against these variables.
 */
#include "mpi.h"

#define COMPAT_EXPORT __attribute__((visibility("default")))

/*
 * The predefined "copy by value" attribute copy callback: the new object
 * gets the same attribute value (the pointer-sized value itself, not what
 * it points to) and the flag says the attribute is to be kept.
 */
COMPAT_EXPORT int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state,
			      void *attribute_val_in, void *attribute_val_out,
			      int *flag)
{
	(void)oldcomm;
	(void)keyval;
	(void)extra_state;
	*(void **)attribute_val_out = attribute_val_in;
	*flag = 1;
	return MPI_SUCCESS;
}

/* MPI_Dist_graph_create*: "no weights" and "zero weights, not NULL" */
static int compat_unweighted;
static int compat_weights_empty;
COMPAT_EXPORT int * const MPI_UNWEIGHTED = &compat_unweighted;
COMPAT_EXPORT int * const MPI_WEIGHTS_EMPTY = &compat_weights_empty;

/*
 * Fortran statuses seen from C (MPI_Status_f2c and friends). A Fortran
 * binding must pass these same addresses for MPI_STATUS(ES)_IGNORE.
 */
static MPI_Fint compat_f_status_ignore[MPI_F_STATUS_SIZE];
static MPI_Fint compat_f_statuses_ignore[MPI_F_STATUS_SIZE];
COMPAT_EXPORT MPI_Fint *MPI_F_STATUS_IGNORE = compat_f_status_ignore;
COMPAT_EXPORT MPI_Fint *MPI_F_STATUSES_IGNORE = compat_f_statuses_ignore;

/*
 * The mpi_f08 sentinels. MPICH's header declares the objects under MPIR_
 * names and the MPI_F08_ pointers to them; define both so that either
 * kind of reference resolves.
 */
extern MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
extern MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
extern int MPIR_F08_MPI_IN_PLACE;
extern int MPIR_F08_MPI_BOTTOM;

COMPAT_EXPORT MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
COMPAT_EXPORT MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
COMPAT_EXPORT int MPIR_F08_MPI_IN_PLACE;
COMPAT_EXPORT int MPIR_F08_MPI_BOTTOM;
COMPAT_EXPORT MPI_F08_status *MPI_F08_STATUS_IGNORE =
	&MPIR_F08_MPI_STATUS_IGNORE_OBJ;
COMPAT_EXPORT MPI_F08_status *MPI_F08_STATUSES_IGNORE =
	MPIR_F08_MPI_STATUSES_IGNORE_OBJ;

/*
 * MPI_T: the pseudo-handle that makes MPI_T_pvar_start/stop/reset act on
 * every handle of a session. Never dereferenced; its address is its value.
 */
static char compat_pvar_all_handles;
COMPAT_EXPORT struct michi_t_pvar_handle * const MPI_T_PVAR_ALL_HANDLES =
	(struct michi_t_pvar_handle *)(void *)&compat_pvar_all_handles;
