/* SPDX-License-Identifier: MIT */
/*
 * mpi/datatype/dtype_priv.h: what the derived datatypes' files share
 * (mpi/datatype/derived.c and constructors.c): the builder that turns a
 * constructor's blocks into runs, and the checks and object calls both
 * use. Private to mpi/datatype/.
 */
#ifndef MICHI_MPI_DTYPE_PRIV_H
#define MICHI_MPI_DTYPE_PRIV_H

#include "dtype.h"
#include "pt2pt.h"

/* A type under construction (b_init, b_add_*, b_finish in derived.c). */
struct builder {
	struct michi_dt_run *runs;
	size_t n, cap;
	int nomem;
	MPI_Count size, nelem;
	MPI_Datatype elem;
	int elem_set, align;
	int any;                      /* a block with data or bounds was added */
	MPI_Aint lb, ub, mlb, mub;    /* data bounds, marker bounds */
	int has_lb, has_ub;
	int has_true;
	MPI_Aint true_lb, true_ub;
};

/* Defined in mpi/datatype/derived.c or constructors.c, used by the other. */
void b_init(struct builder *b);
void b_block(struct builder *b, const struct michi_dt_info *c, MPI_Count count,
	     MPI_Aint d);
uint8_t dense(const struct michi_dtype *t);
struct michi_dtype *dt_make_c(struct builder *b, int combiner, int ni, int na, int nc,
			      int nd);
struct michi_dtype *dt_make(struct builder *b, int combiner, int ni, int na, int nd);
int dt_finish(struct michi_dtype *t, const int *ints, const MPI_Aint *aints,
	      const MPI_Datatype *types, MPI_Datatype *newtype);
int dt_nomem(struct builder *b, const char *fname);
int dt_bad_type(const char *fname, const char *arg, MPI_Datatype dt);
int dt_args(const char *fname, MPI_Count count, MPI_Datatype old,
	    MPI_Datatype *newtype, struct michi_dt_info *in);



#endif
