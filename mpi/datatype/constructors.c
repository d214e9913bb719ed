/* SPDX-License-Identifier: MIT */
/*
 * mpi/datatype/constructors.c: the derived datatype constructors
 * (MPI_Type_contiguous to MPI_Type_create_f90_*), each a list of blocks
 * that the builder of mpi/datatype/derived.c turns into runs.
 */
#include "dtype_priv.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- constructors --------------------------------------------------------- */

/*
 * The MPI-4.0 _c constructors take MPI_Count where the others take int
 * (counts, and displacements but for MPI_Aint ones); the contents of the
 * types they make keep those arguments as large counts (get_envelope_c,
 * get_contents_c), in the order the int forms keep them in ints and
 * addresses (MPI-4.0 5.1.13). `large` marks them below.
 */
static int contiguous(const char *fname, MPI_Count count, MPI_Datatype old, MPI_Datatype *nt,
		      int large)
{
	struct michi_dt_info in;
	struct builder b;
	struct michi_dtype *t;
	int err = dt_args(fname, count, old, nt, &in), ci = (int)count;

	if (err)
		return err;
	b_init(&b);
	b_block(&b, &in, count, 0);
	t = dt_make_c(&b, MPI_COMBINER_CONTIGUOUS, !large, 0, large, 1);
	if (!t)
		return dt_nomem(&b, fname);
	if (large)
		michi_dt_counts(t)[0] = count;
	return dt_finish(t, &ci, NULL, &old, nt);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return contiguous("MPI_Type_contiguous", count, oldtype, newtype, 0);
}

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return contiguous("MPI_Type_contiguous_c", count, oldtype, newtype, 1);
}

/* vector and hvector: stride in old extents (bytes 0) or in bytes. */
static int vector(const char *fname, MPI_Count count, MPI_Count bl, MPI_Aint stride,
		  MPI_Datatype old, MPI_Datatype *nt, int bytes, int combiner, int large)
{
	struct michi_dt_info in;
	struct builder b;
	struct michi_dtype *t;
	MPI_Aint step;
	MPI_Count k;
	int err = dt_args(fname, count, old, nt, &in);

	if (err)
		return err;
	if (bl < 0)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(blocklength=%lld): block length is negative", (long long)bl);
	step = bytes ? stride : stride * (in.ub - in.lb);
	b_init(&b);
	/* Blocks that are one piece each make one strided run (or one piece)
	 * whatever the count: built from the first and the last block (the
	 * bounds are theirs) instead of block by block, which the _c form's
	 * counts above 2^31 would make minutes long. The run is the one
	 * b_put would have grown block by block. */
	if (count > 2 && step != 0) {
		b_block(&b, &in, bl, 0);
		if (!b.nomem && b.n == 1 && b.runs[0].count == 1) {
			struct michi_dt_run r0 = b.runs[0];
			MPI_Count bsize = b.size, belem = b.nelem;

			b_block(&b, &in, bl, (count - 1) * step);
			if (!b.nomem) {
				b.size += (count - 2) * bsize;
				b.nelem += (count - 2) * belem;
				b.n = 1;
				b.runs[0] = r0;
				if (step == r0.len) {
					b.runs[0].len = r0.len * count;
				} else {
					b.runs[0].stride = step;
					b.runs[0].count = count;
				}
				goto built;
			}
		}
		free(b.runs);
		b_init(&b);
	}
	for (k = 0; k < count; k++)
		b_block(&b, &in, bl, k * step);
built:
	t = large ? dt_make_c(&b, combiner, 0, 0, 3, 1)
		  : dt_make(&b, combiner, bytes ? 2 : 3, bytes ? 1 : 0, 1);
	if (!t)
		return dt_nomem(&b, fname);
	if (large) {
		michi_dt_counts(t)[0] = count;
		michi_dt_counts(t)[1] = bl;
		michi_dt_counts(t)[2] = stride;
		return dt_finish(t, NULL, NULL, &old, nt);
	}
	{
		int ints[3] = { (int)count, (int)bl, (int)stride };
		MPI_Aint a = stride;

		return dt_finish(t, ints, &a, &old, nt);
	}
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
		     MPI_Datatype *newtype)
{
	return vector("MPI_Type_vector", count, blocklength, stride, oldtype, newtype, 0,
		      MPI_COMBINER_VECTOR, 0);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
			     MPI_Datatype *newtype)
{
	return vector("MPI_Type_create_hvector", count, blocklength, stride, oldtype, newtype, 1,
		      MPI_COMBINER_HVECTOR, 0);
}

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
		      MPI_Datatype *newtype)
{
	return vector("MPI_Type_hvector", count, blocklength, stride, oldtype, newtype, 1,
		      MPI_COMBINER_HVECTOR, 0);
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
		       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return vector("MPI_Type_vector_c", count, blocklength, stride, oldtype, newtype, 0,
		      MPI_COMBINER_VECTOR, 1);
}

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
			       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return vector("MPI_Type_create_hvector_c", count, blocklength, stride, oldtype, newtype,
		      1, MPI_COMBINER_HVECTOR, 1);
}

/*
 * The indexed family and struct: n blocks, block i of bls[i] (or the one
 * bl when no lengths are given) instances of types[i] (or the one old
 * type) at displacement disp_i (ints in old extents, or bytes in aints).
 * The _c forms give lengths and displacements as MPI_Count arrays a
 * (the displacements in old extents for indexed and indexed_block, in
 * bytes for the others).
 */
struct idx_args {
	const int *bls, *idisp;
	const MPI_Aint *adisp;
	const MPI_Count *cbls, *cdisp;   /* the _c forms */
};

static int indexed(const char *fname, MPI_Count n, const struct idx_args *a, MPI_Count bl,
		   const MPI_Datatype *types, MPI_Datatype old, MPI_Datatype *nt, int combiner)
{
	struct michi_dt_info in;
	struct builder b;
	struct michi_dtype *t;
	int err = dt_args(fname, n, old, nt,
			  types || combiner == MPI_COMBINER_STRUCT ? NULL : &in);
	int block = combiner == MPI_COMBINER_INDEXED_BLOCK ||
		    combiner == MPI_COMBINER_HINDEXED_BLOCK;
	int large = a->cdisp != NULL, lens = a->bls || a->cbls, *ints;
	int in_bytes = combiner != MPI_COMBINER_INDEXED && combiner != MPI_COMBINER_INDEXED_BLOCK;
	MPI_Count i, ni, na, nc, nd, cap = large ? 0x3fffffff : 0x7fffffff;

	if (err)
		return err;
	if (n > 0 && ((!block && !lens) || (!a->idisp && !a->adisp && !a->cdisp)))
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(): NULL array argument");
	if (n > cap)
		return michi_mpi_err(NULL, MPI_ERR_COUNT, fname,
				     "(count=%lld): more blocks than a datatype's contents hold",
				     (long long)n);
	b_init(&b);
	for (i = 0; i < n; i++) {
		MPI_Count len = a->cbls ? a->cbls[i] : a->bls ? a->bls[i] : bl;
		MPI_Aint d;

		if (len < 0) {
			free(b.runs);
			return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
					     "(blocklengths[%lld]=%lld): block length is negative",
					     (long long)i, (long long)len);
		}
		if (types && michi_dt_info(types[i], &in)) {
			free(b.runs);
			return dt_bad_type(fname, "types[i]", types[i]);
		}
		if (a->cdisp)
			d = in_bytes ? (MPI_Aint)a->cdisp[i] : (MPI_Aint)a->cdisp[i] * (in.ub - in.lb);
		else
			d = a->adisp ? a->adisp[i] : (MPI_Aint)a->idisp[i] * (in.ub - in.lb);
		b_block(&b, &in, len, d);
	}
	/* get_contents layout (MPI-3.1 4.1.13; MPI-4.0 5.1.13 for _c) */
	nd = types ? n : 1;
	if (large) {
		ni = na = 0;
		nc = 1 + (lens ? n : 1) + n;
	} else {
		ni = 1 + (lens ? n : 1) + (a->adisp ? 0 : n);
		na = a->adisp ? n : 0;
		nc = 0;
	}
	t = dt_make_c(&b, combiner, (int)ni, (int)na, (int)nc, (int)nd);
	if (!t)
		return dt_nomem(&b, fname);
	if (large) {
		michi_dt_counts(t)[0] = n;
		if (a->cbls)
			memcpy(michi_dt_counts(t) + 1, a->cbls, (size_t)n * sizeof(MPI_Count));
		else
			michi_dt_counts(t)[1] = bl;
		memcpy(michi_dt_counts(t) + 1 + (lens ? n : 1), a->cdisp, (size_t)n * sizeof(MPI_Count));
		return dt_finish(t, NULL, NULL, types ? types : &old, nt);
	}
	ints = t->ints;
	ints[0] = (int)n;
	if (a->bls)
		memcpy(ints + 1, a->bls, (size_t)n * sizeof(int));
	else
		ints[1] = (int)bl;
	if (!a->adisp)
		memcpy(ints + 1 + (a->bls ? n : 1), a->idisp, (size_t)n * sizeof(int));
	return dt_finish(t, NULL, a->adisp, types ? types : &old, nt);
}

int PMPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
		      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct idx_args a = { .bls = blocklengths, .idisp = displacements };

	return indexed("MPI_Type_indexed", count, &a, 0, NULL, oldtype, newtype,
		       MPI_COMBINER_INDEXED);
}

int PMPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct idx_args a = { .bls = blocklengths, .adisp = displacements };

	return indexed("MPI_Type_create_hindexed", count, &a, 0, NULL, oldtype, newtype,
		       MPI_COMBINER_HINDEXED);
}

int PMPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[],
		       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct idx_args a = { .bls = blocklengths, .adisp = displacements };

	return indexed("MPI_Type_hindexed", count, &a, 0, NULL, oldtype, newtype,
		       MPI_COMBINER_HINDEXED);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
				   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct idx_args a = { .idisp = displacements };

	return indexed("MPI_Type_create_indexed_block", count, &a, blocklength, NULL, oldtype,
		       newtype, MPI_COMBINER_INDEXED_BLOCK);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
				    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct idx_args a = { .adisp = displacements };

	return indexed("MPI_Type_create_hindexed_block", count, &a, blocklength, NULL, oldtype,
		       newtype, MPI_COMBINER_HINDEXED_BLOCK);
}

int PMPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
			    const MPI_Datatype types[], MPI_Datatype *newtype)
{
	struct idx_args a = { .bls = blocklengths, .adisp = displacements };

	if (count > 0 && !types)
		return michi_err_null(NULL, "MPI_Type_create_struct", "types");
	return indexed("MPI_Type_create_struct", count, &a, 0, types, MPI_DATATYPE_NULL, newtype,
		       MPI_COMBINER_STRUCT);
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
			const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
			MPI_Datatype *newtype)
{
	struct idx_args a = { .cbls = array_of_blocklengths, .cdisp = array_of_displacements };

	return indexed("MPI_Type_indexed_c", count, &a, 0, NULL, oldtype, newtype,
		       MPI_COMBINER_INDEXED);
}

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
				const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
				MPI_Datatype *newtype)
{
	struct idx_args a = { .cbls = array_of_blocklengths, .cdisp = array_of_displacements };

	return indexed("MPI_Type_create_hindexed_c", count, &a, 0, NULL, oldtype, newtype,
		       MPI_COMBINER_HINDEXED);
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
				     const MPI_Count array_of_displacements[],
				     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct idx_args a = { .cdisp = array_of_displacements };

	if (blocklength < 0)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_create_indexed_block_c",
				     "(blocklength=%lld): block length is negative",
				     (long long)blocklength);
	return indexed("MPI_Type_create_indexed_block_c", count, &a, blocklength, NULL, oldtype,
		       newtype, MPI_COMBINER_INDEXED_BLOCK);
}

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
				      const MPI_Count array_of_displacements[],
				      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct idx_args a = { .cdisp = array_of_displacements };

	if (blocklength < 0)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_create_hindexed_block_c",
				     "(blocklength=%lld): block length is negative",
				     (long long)blocklength);
	return indexed("MPI_Type_create_hindexed_block_c", count, &a, blocklength, NULL,
		       oldtype, newtype, MPI_COMBINER_HINDEXED_BLOCK);
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
			      const MPI_Count array_of_displacements[],
			      const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
	struct idx_args a = { .cbls = array_of_blocklengths, .cdisp = array_of_displacements };

	if (count > 0 && !array_of_types)
		return michi_err_null(NULL, "MPI_Type_create_struct_c", "array_of_types");
	return indexed("MPI_Type_create_struct_c", count, &a, 0, array_of_types,
		       MPI_DATATYPE_NULL, newtype, MPI_COMBINER_STRUCT);
}

int PMPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[],
		     MPI_Datatype types[], MPI_Datatype *newtype)
{
	return PMPI_Type_create_struct(count, blocklengths, displacements, types, newtype);
}

static int resized(const char *fname, MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
		   MPI_Datatype *newtype, int large)
{
	struct michi_dt_info in;
	struct builder b;
	struct michi_dtype *t;
	MPI_Aint a[2] = { lb, extent };
	int err = dt_args(fname, 0, oldtype, newtype, &in);

	if (err)
		return err;
	b_init(&b);
	b_block(&b, &in, 1, 0);
	t = dt_make_c(&b, MPI_COMBINER_RESIZED, 0, large ? 0 : 2, large ? 2 : 0, 1);
	if (!t)
		return dt_nomem(&b, fname);
	if (large) {
		michi_dt_counts(t)[0] = lb;
		michi_dt_counts(t)[1] = extent;
	}
	t->lb = lb;
	t->ub = lb + extent;
	t->has_lb = t->has_ub = 1;
	t->contig = dense(t);
	return dt_finish(t, NULL, large ? NULL : a, &oldtype, newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
			     MPI_Datatype *newtype)
{
	return resized("MPI_Type_create_resized", oldtype, lb, extent, newtype, 0);
}

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
			       MPI_Datatype *newtype)
{
	return resized("MPI_Type_create_resized_c", oldtype, lb, extent, newtype, 1);
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	const char *fname = "MPI_Type_dup";
	struct michi_dt_info in;
	struct builder b;
	struct michi_dtype *t;
	int err = dt_args(fname, 0, oldtype, newtype, &in);

	if (err)
		return err;
	b_init(&b);
	b_block(&b, &in, 1, 0);
	t = dt_make(&b, MPI_COMBINER_DUP, 0, 0, 1);
	if (!t)
		return dt_nomem(&b, fname);
	/* the same bounds and padding as the original */
	t->lb = in.lb;
	t->ub = in.ub;
	t->has_lb = (uint8_t)in.has_lb;
	t->has_ub = (uint8_t)in.has_ub;
	t->contig = (uint8_t)in.contig;
	t->committed = michi_dt_get(oldtype) ? michi_dt_get(oldtype)->committed : 1;
	err = dt_finish(t, NULL, NULL, &oldtype, newtype);
	if (!err && michi_type_attrs_copy(oldtype, *newtype) != MPI_SUCCESS) {
		michi_dt_release(*newtype);
		*newtype = MPI_DATATYPE_NULL;
		return michi_mpi_err(NULL, MPI_ERR_OTHER, fname,
				     "(): an attribute copy callback failed");
	}
	return err;
}

/*
 * Subarray: the C-order (or Fortran-order) block subsizes[] at starts[]
 * of an array sizes[] of old elements; lb 0 and the whole array's extent,
 * as MPI-3.1 4.1.3 defines it. Built as nested hvectors placed with a
 * struct and resized.
 */
static int subarray(const char *fname, int ndims, const MPI_Count sizes[],
		    const MPI_Count subsizes[], const MPI_Count starts[], int order,
		    MPI_Datatype old, MPI_Datatype *nt, int large)
{
	struct michi_dt_info in;
	struct builder b;
	struct michi_dtype *t;
	MPI_Aint ext, stride, disp = 0, whole;
	int err = dt_args(fname, ndims, old, nt, &in), i, d, *ints;

	if (err)
		return err;
	if (ndims < 1 || !sizes || !subsizes || !starts)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(ndims=%d): need at least one "
				     "dimension and its arrays", ndims);
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(order=%d): not MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
	for (i = 0; i < ndims; i++)
		if (sizes[i] < 1 || subsizes[i] < 0 || subsizes[i] > sizes[i] || starts[i] < 0 ||
		    starts[i] > sizes[i] - subsizes[i])
			return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
					     "(dimension %d: size %lld, subsize %lld, start %lld): "
					     "the subarray does not lie in the array", i,
					     (long long)sizes[i], (long long)subsizes[i],
					     (long long)starts[i]);
	ext = in.ub - in.lb;
	/* innermost dimension first: the last in C order, the first in Fortran */
	b_init(&b);
	{
		struct michi_dt_info cur = in;
		struct michi_dtype *tmp = NULL;

		stride = ext;
		for (i = 0; i < ndims; i++) {
			struct builder s;
			MPI_Count k;

			d = order == MPI_ORDER_C ? ndims - 1 - i : i;
			b_init(&s);
			for (k = 0; k < subsizes[d]; k++)
				b_block(&s, &cur, 1, k * stride);
			disp += (MPI_Aint)starts[d] * stride;
			stride *= sizes[d];
			if (tmp)
				michi_dt_release((MPI_Datatype)michi_p2h(tmp));
			tmp = dt_make(&s, MPI_COMBINER_HVECTOR, 0, 0, 0);
			if (!tmp)
				return dt_nomem(&s, fname);
			michi_dt_info((MPI_Datatype)michi_p2h(tmp), &cur);
		}
		whole = stride;
		b_block(&b, &cur, 1, disp);
		michi_dt_release((MPI_Datatype)michi_p2h(tmp));
	}
	t = dt_make_c(&b, MPI_COMBINER_SUBARRAY, large ? 2 : 3 * ndims + 2, 0,
		      large ? 3 * ndims : 0, 1);
	if (!t)
		return dt_nomem(&b, fname);
	t->lb = 0;
	t->ub = whole;
	t->has_lb = t->has_ub = 1;
	t->contig = dense(t);
	ints = t->ints;
	ints[0] = ndims;
	if (large) {
		MPI_Count *c = michi_dt_counts(t);

		memcpy(c, sizes, (size_t)ndims * sizeof(MPI_Count));
		memcpy(c + ndims, subsizes, (size_t)ndims * sizeof(MPI_Count));
		memcpy(c + 2 * ndims, starts, (size_t)ndims * sizeof(MPI_Count));
		ints[1] = order;
	} else {
		for (i = 0; i < ndims; i++) {
			ints[1 + i] = (int)sizes[i];
			ints[1 + ndims + i] = (int)subsizes[i];
			ints[1 + 2 * ndims + i] = (int)starts[i];
		}
		ints[1 + 3 * ndims] = order;
	}
	return dt_finish(t, NULL, NULL, &old, nt);
}

/* The int arrays of the MPI-3 forms as MPI_Count (k arrays of n), in
 * one block the caller frees; NULL when out of memory or an array is
 * missing (the caller's checks say which). */
static MPI_Count *counts_of(int n, int k, const int *const *arrays)
{
	MPI_Count *c;
	int i, j;

	if (n < 0)
		n = 0;
	for (j = 0; j < k; j++)
		if (!arrays[j] && n)
			return NULL;
	if (!(c = malloc((size_t)(n * k + 1) * sizeof(MPI_Count))))
		return NULL;
	for (j = 0; j < k; j++)
		for (i = 0; i < n; i++)
			c[j * n + i] = arrays[j][i];
	return c;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
			      const int array_of_subsizes[], const int array_of_starts[],
			      int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	static const char fname[] = "MPI_Type_create_subarray";
	const int *arrays[3] = { array_of_sizes, array_of_subsizes, array_of_starts };
	MPI_Count *c;
	int err;

	if (ndims > 0 && (!array_of_sizes || !array_of_subsizes || !array_of_starts))
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(ndims=%d): NULL array argument",
				     ndims);
	if (!(c = counts_of(ndims, 3, arrays)))
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory");
	err = subarray(fname, ndims, c, c + (ndims > 0 ? ndims : 0),
		       c + 2 * (ndims > 0 ? ndims : 0), order, oldtype, newtype, 0);
	free(c);
	return err;
}

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
				const MPI_Count array_of_subsizes[],
				const MPI_Count array_of_starts[], int order,
				MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return subarray("MPI_Type_create_subarray_c", ndims, array_of_sizes, array_of_subsizes,
			array_of_starts, order, oldtype, newtype, 1);
}

/*
 * Darray (MPI-3.1 4.1.4): the part of a gsizes[] array of old elements
 * that process `rank` of a row-major psizes[] grid owns, block or cyclic
 * per dimension; lb 0 and the whole array's extent. Each dimension's
 * owned index ranges are found, then the type is built from the
 * innermost dimension outwards, each level repeating the level inside it
 * (one slice of the array) at its owned indices.
 */
struct range {
	MPI_Aint start, len;
};

static int dim_ranges(MPI_Aint gsize, int distrib, int darg, int psize, int coord,
		      struct range **out, int *n)
{
	struct range *r;
	MPI_Aint blk, cap;
	MPI_Aint s;
	int k = 0;

	*out = NULL;
	*n = 0;
	if (distrib == MPI_DISTRIBUTE_NONE) {
		if (psize != 1)
			return MPI_ERR_ARG;
		blk = gsize;
		cap = 1;
	} else if (distrib == MPI_DISTRIBUTE_BLOCK) {
		blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
		if (blk < 1 || (MPI_Aint)blk * psize < gsize)
			return MPI_ERR_ARG;
		cap = 1;
	} else if (distrib == MPI_DISTRIBUTE_CYCLIC) {
		blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
		if (blk < 1)
			return MPI_ERR_ARG;
		cap = gsize / (blk * psize) + 2;
	} else {
		return MPI_ERR_ARG;
	}
	r = malloc((size_t)cap * sizeof(*r));
	if (!r)
		return MPI_ERR_NO_MEM;
	for (s = (MPI_Aint)coord * blk; s < gsize && k < cap;
	     s += distrib == MPI_DISTRIBUTE_CYCLIC ? (MPI_Aint)blk * psize : gsize) {
		r[k].start = s;
		r[k].len = s + blk <= gsize ? blk : gsize - s;
		k++;
	}
	*out = r;
	*n = k;
	return MPI_SUCCESS;
}

static int darray(const char *fname, int size, int rank, int ndims,
		  const MPI_Count array_of_gsizes[], const int array_of_distribs[],
		  const int array_of_dargs[], const int array_of_psizes[], int order,
		  MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
	struct michi_dt_info in, cur;
	struct michi_dtype *t, *tmp = NULL;
	struct builder b;
	MPI_Aint stride;
	int err = dt_args(fname, ndims, oldtype, newtype, &in), i, d, procs = 1, left, *ints;
	int coords[64];

	if (err)
		return err;
	if (ndims < 1 || ndims > 64 || !array_of_gsizes || !array_of_distribs ||
	    !array_of_dargs || !array_of_psizes)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(ndims=%d): 1 to 64 dimensions and their arrays", ndims);
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(order=%d): not MPI_ORDER_C or MPI_ORDER_FORTRAN", order);
	for (i = 0; i < ndims; i++) {
		if (array_of_psizes[i] < 1 || array_of_gsizes[i] < 1)
			return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
					     "(gsizes[%d]=%lld, psizes[%d]=%d): must be positive", i,
					     (long long)array_of_gsizes[i], i, array_of_psizes[i]);
		procs *= array_of_psizes[i];
	}
	if (procs != size || rank < 0 || rank >= size)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(size=%d, rank=%d): the process grid has %d processes", size,
				     rank, procs);
	/* the process grid is row-major whatever the array's order */
	for (i = ndims - 1, left = rank; i >= 0; i--) {
		coords[i] = left % array_of_psizes[i];
		left /= array_of_psizes[i];
	}
	cur = in;
	stride = in.ub - in.lb;
	for (i = 0; i < ndims; i++) {
		struct range *r;
		struct builder s;
		int n, k;

		d = order == MPI_ORDER_C ? ndims - 1 - i : i;
		err = dim_ranges(array_of_gsizes[d], array_of_distribs[d], array_of_dargs[d],
				 array_of_psizes[d], coords[d], &r, &n);
		if (err) {
			if (tmp)
				michi_dt_release((MPI_Datatype)michi_p2h(tmp));
			return michi_mpi_err(NULL, err, fname,
					     "(dimension %d: gsize %lld, distrib %d, darg %d, psize %d): "
					     "%s", d, (long long)array_of_gsizes[d], array_of_distribs[d],
					     array_of_dargs[d], array_of_psizes[d],
					     err == MPI_ERR_NO_MEM ? "no memory"
					     : "not a valid distribution");
		}
		b_init(&s);
		for (k = 0; k < n; k++)
			b_block(&s, &cur, r[k].len, r[k].start * stride);
		free(r);
		if (tmp)
			michi_dt_release((MPI_Datatype)michi_p2h(tmp));
		tmp = dt_make(&s, MPI_COMBINER_HVECTOR, 0, 0, 0);
		if (!tmp)
			return dt_nomem(&s, fname);
		/* one slice of this level: what the next level repeats */
		stride *= array_of_gsizes[d];
		tmp->lb = 0;
		tmp->ub = stride;
		tmp->has_lb = tmp->has_ub = 1;
		michi_dt_info((MPI_Datatype)michi_p2h(tmp), &cur);
	}
	b_init(&b);
	b_block(&b, &cur, 1, 0);
	michi_dt_release((MPI_Datatype)michi_p2h(tmp));
	/* contents: the gsizes among the ints, or as large counts */
	t = dt_make_c(&b, MPI_COMBINER_DARRAY, (large ? 3 : 4) * ndims + 4, 0, large ? ndims : 0,
		      1);
	if (!t)
		return dt_nomem(&b, fname);
	t->lb = 0;
	t->ub = stride;
	t->contig = dense(t);
	ints = t->ints;
	ints[0] = size;
	ints[1] = rank;
	ints[2] = ndims;
	if (large)
		memcpy(michi_dt_counts(t), array_of_gsizes, (size_t)ndims * sizeof(MPI_Count));
	else
		for (i = 0; i < ndims; i++)
			ints[3 + i] = (int)array_of_gsizes[i];
	ints += large ? 3 : 3 + ndims;
	memcpy(ints, array_of_distribs, (size_t)ndims * sizeof(int));
	memcpy(ints + ndims, array_of_dargs, (size_t)ndims * sizeof(int));
	memcpy(ints + 2 * ndims, array_of_psizes, (size_t)ndims * sizeof(int));
	ints[3 * ndims] = order;
	return dt_finish(t, NULL, NULL, &oldtype, newtype);
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
			    const int array_of_distribs[], const int array_of_dargs[],
			    const int array_of_psizes[], int order, MPI_Datatype oldtype,
			    MPI_Datatype *newtype)
{
	static const char fname[] = "MPI_Type_create_darray";
	MPI_Count *g;
	int err;

	if (ndims > 0 && !array_of_gsizes)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(ndims=%d): NULL array argument",
				     ndims);
	if (!(g = counts_of(ndims, 1, &array_of_gsizes)))
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory");
	err = darray(fname, size, rank, ndims, g, array_of_distribs, array_of_dargs,
		     array_of_psizes, order, oldtype, newtype, 0);
	free(g);
	return err;
}

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
			      const int array_of_distribs[], const int array_of_dargs[],
			      const int array_of_psizes[], int order, MPI_Datatype oldtype,
			      MPI_Datatype *newtype)
{
	return darray("MPI_Type_create_darray_c", size, rank, ndims, array_of_gsizes,
		      array_of_distribs, array_of_dargs, array_of_psizes, order, oldtype, newtype,
		      1);
}

/*
 * The Fortran 90 parameterized types (MPI-3.1 17.1.9): the predefined
 * type of the requested precision and range, as a type whose envelope
 * says F90_REAL/COMPLEX/INTEGER with (p, r) or (r); one per (p, r) pair,
 * kept for the job, which the user may not free.
 */
struct f90_entry {
	struct f90_entry *next;
	int combiner, p, r;
	MPI_Datatype dt;
};

static struct f90_entry *f90_types;

static int f90_type(const char *fname, int combiner, int p, int r, MPI_Datatype base,
		    MPI_Datatype *newtype)
{
	struct f90_entry *e;
	struct michi_dt_info in;
	struct michi_dtype *t;
	struct builder b;
	int ints[2] = { p, r }, n = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;

	for (e = f90_types; e; e = e->next)
		if (e->combiner == combiner && e->p == p && e->r == r) {
			*newtype = e->dt;
			return MPI_SUCCESS;
		}
	e = malloc(sizeof(*e));
	if (!e)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory");
	michi_dt_info(base, &in);
	b_init(&b);
	b_block(&b, &in, 1, 0);
	t = dt_make(&b, combiner, n, 0, 0);
	if (!t) {
		free(e);
		return dt_nomem(&b, fname);
	}
	t->committed = 1;
	t->predef = 1;
	dt_finish(t, n == 1 ? &r : ints, NULL, NULL, newtype);
	e->combiner = combiner;
	e->p = p;
	e->r = r;
	e->dt = *newtype;
	e->next = f90_types;
	f90_types = e;
	return MPI_SUCCESS;
}

/* The real kind for precision p and range r (MPI_UNDEFINED: any). */
static MPI_Datatype real_kind(int p, int r)
{
	if ((p == MPI_UNDEFINED || p <= 6) && (r == MPI_UNDEFINED || r <= 37))
		return MPI_REAL4;
	if ((p == MPI_UNDEFINED || p <= 15) && (r == MPI_UNDEFINED || r <= 307))
		return MPI_REAL8;
	if ((p == MPI_UNDEFINED || p <= 18) && (r == MPI_UNDEFINED || r <= 4931))
		return MPI_REAL16;   /* x86 long double in 16 bytes */
	return MPI_DATATYPE_NULL;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
	MPI_Datatype k = real_kind(p, r);

	MICHI_CHECK_INIT("MPI_Type_create_f90_real");
	if (!newtype)
		return michi_err_null(NULL, "MPI_Type_create_f90_real", "newtype");
	if (k == MPI_DATATYPE_NULL)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_create_f90_real",
				     "(p=%d, r=%d): no real type has that precision and range", p, r);
	return f90_type("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, k, newtype);
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
	MPI_Datatype k = real_kind(p, r);

	MICHI_CHECK_INIT("MPI_Type_create_f90_complex");
	if (!newtype)
		return michi_err_null(NULL, "MPI_Type_create_f90_complex", "newtype");
	if (k == MPI_DATATYPE_NULL)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_create_f90_complex",
				     "(p=%d, r=%d): no complex type has that precision and range",
				     p, r);
	return f90_type("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r,
			k == MPI_REAL4 ? MPI_COMPLEX8 : k == MPI_REAL8 ? MPI_COMPLEX16
			: MPI_COMPLEX32, newtype);
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
	MPI_Datatype k = r == MPI_UNDEFINED || r <= 2 ? MPI_INTEGER1 : r <= 4 ? MPI_INTEGER2
			 : r <= 9 ? MPI_INTEGER4 : r <= 18 ? MPI_INTEGER8 : MPI_DATATYPE_NULL;

	MICHI_CHECK_INIT("MPI_Type_create_f90_integer");
	if (!newtype)
		return michi_err_null(NULL, "MPI_Type_create_f90_integer", "newtype");
	if (k == MPI_DATATYPE_NULL)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_create_f90_integer",
				     "(r=%d): no integer type has that decimal range", r);
	return f90_type("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, 0, r, k,
			newtype);
}

