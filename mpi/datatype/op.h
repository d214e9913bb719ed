/* SPDX-License-Identifier: MIT */
/*
 * mpi/datatype/op.h: the predefined reduction operations (mpi/datatype/op.c), shared by the
 * reduction collectives and MPI_Reduce_local.
 */
#ifndef MICHI_OP_H
#define MICHI_OP_H

#include "mpiimpl.h"

/* 1 for MPI_MAX .. MPI_MAXLOC, the ops this version can apply. */
static inline int michi_op_is_predefined(MPI_Op op)
{
	return (uint32_t)op >= (uint32_t)MPI_MAX && (uint32_t)op <= (uint32_t)MPI_MAXLOC;
}

/* inout[i] = in[i] op inout[i] for count elements of dt; 0, or MPI_ERR_OP
 * when op is not defined on dt (nothing is written then). in NULL only
 * checks. */
int michi_op_apply(MPI_Op op, const void *in, void *inout, MPI_Count count, MPI_Datatype dt);

/* 1 for predefined ops and user ops created commutative. */
int michi_op_commutes(MPI_Op op);

/* 0 when michi_op_apply accepts (op, dt), else MPI_ERR_OP. User ops
 * accept any datatype: their function decides. */
int michi_op_check(MPI_Op op, MPI_Datatype dt);

const char *michi_op_name(MPI_Op op);

/* A user op stays usable while a nonblocking reduction holds it, even
 * after MPI_Op_free (MPI-3.1 5.9.5); nothing for predefined ops. */
void michi_op_hold(MPI_Op op);
void michi_op_release(MPI_Op op);

/* The error for an (op, datatype) pair michi_op_check refused. */
int michi_err_op(struct michi_comm *c, const char *fname, MPI_Op op, MPI_Datatype dt)
	__attribute__((cold));

#endif
