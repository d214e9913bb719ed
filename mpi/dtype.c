/* SPDX-License-Identifier: MIT */
/*
 * mpi/dtype.c: derived datatypes: the constructors, commit, free, dup,
 * envelope and contents, bounds, sizes and names.
 *
 * Every constructor is a list of blocks, each `count` instances of a
 * child type at a byte displacement; the builder appends each block's
 * runs (the child's runs repeated count times, one child extent apart)
 * and folds what it can as it goes: adjacent pieces into one longer
 * piece, equal pieces at an equal spacing into one strided run. A vector
 * of doubles is thus one run, and so is an indexed type whose blocks are
 * regular; only irregular layouts cost a run per block. Bounds follow
 * MPI-3.1 4.1.6-4.1.7: sticky MPI_LB/MPI_UB markers (and resized bounds)
 * win over the data's bounds, and a struct's extent is padded to its
 * widest element's alignment, as C pads a struct.
 */
#include "dtype.h"
#include "pt2pt.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- what a datatype is made of ---------------------------------------- */

static int complex_type(MPI_Datatype dt)
{
	return dt == MPI_COMPLEX || dt == MPI_DOUBLE_COMPLEX || dt == MPI_COMPLEX8 ||
	       dt == MPI_COMPLEX16 || dt == MPI_COMPLEX32 || dt == MPI_C_FLOAT_COMPLEX ||
	       dt == MPI_C_DOUBLE_COMPLEX || dt == MPI_C_LONG_DOUBLE_COMPLEX ||
	       dt == MPI_CXX_FLOAT_COMPLEX || dt == MPI_CXX_DOUBLE_COMPLEX ||
	       dt == MPI_CXX_LONG_DOUBLE_COMPLEX;
}

static int two_elements(MPI_Datatype dt)
{
	return dt == MPI_2INT || dt == MPI_2INTEGER || dt == MPI_2REAL ||
	       dt == MPI_2DOUBLE_PRECISION;
}

int michi_dt_info(MPI_Datatype dt, struct michi_dt_info *in)
{
	struct michi_dtype *t;

	memset(in, 0, sizeof(*in));
	if (michi_dt_builtin_valid(dt)) {
		MPI_Count sz = ((uint32_t)dt >> 8) & 0xff;

		in->size = sz;
		in->ub = in->true_ub = sz;
		in->contig = 1;
		in->elem = dt;
		if (dt == MPI_LB || dt == MPI_UB) {
			/* markers: no data, a sticky bound at their place */
			in->has_lb = dt == MPI_LB;
			in->has_ub = dt == MPI_UB;
			in->align = 1;
			return 0;
		}
		in->nelem = two_elements(dt) ? 2 : 1;
		in->align = (int)(complex_type(dt) || two_elements(dt) ? sz / 2 : sz);
		in->own[0] = (struct michi_dt_run){ 0, 0, sz, 1, dt };
		in->runs = in->own;
		in->nruns = 1;
		return 0;
	}
	if (michi_dt_is_pair(dt)) {
		MPI_Aint off[2];
		MPI_Count len[2];
		MPI_Count sz;
		MPI_Aint ext;
		MPI_Datatype first;

		in->align = michi_dt_pair_layout(dt, off, len, &first);
		michi_dt_size_extent_slow(dt, &sz, &ext);
		in->size = sz;
		in->ub = ext;
		in->true_ub = off[1] + len[1];
		in->nelem = 2;
		in->elem = MPI_DATATYPE_NULL;
		in->own[0] = (struct michi_dt_run){ 0, 0, len[0], 1, first };
		in->own[1] = (struct michi_dt_run){ off[1], 0, len[1], 1, MPI_INT };
		in->nruns = 2;
		in->contig = off[1] == len[0] && sz == ext;
		in->runs = in->own;
		return 0;
	}
	t = michi_dt_get(dt);
	if (!t)
		return MPI_ERR_TYPE;
	in->size = t->size;
	in->lb = t->lb;
	in->ub = t->ub;
	in->true_lb = t->true_lb;
	in->true_ub = t->true_ub;
	in->nelem = t->nelem;
	in->elem = t->elem;
	in->align = t->align;
	in->has_lb = t->has_lb;
	in->has_ub = t->has_ub;
	in->contig = t->contig;
	in->runs = t->runs;
	in->nruns = t->nruns;
	in->blocks = michi_dt_blocks(t);
	return 0;
}

int michi_dt_usable(MPI_Datatype dt)
{
	struct michi_dtype *t;

	if (michi_dt_builtin_valid(dt) || michi_dt_is_pair(dt))
		return 0;
	t = michi_dt_get(dt);
	return t && t->committed ? 0 : MPI_ERR_TYPE;
}

int michi_dt_valid(MPI_Datatype dt)
{
	return michi_dt_builtin_valid(dt) || michi_dt_is_pair(dt) || michi_dt_get(dt) != NULL;
}

int michi_dt_contig_at(const void *buf, MPI_Datatype dt, const void **start)
{
	struct michi_dt_info in;

	if (michi_dt_builtin_valid(dt)) {
		*start = buf;
		return 1;
	}
	if (michi_dt_info(dt, &in) || !in.contig)
		return 0;
	*start = (const char *)buf + in.true_lb;
	return 1;
}

void michi_dt_hold(MPI_Datatype dt)
{
	struct michi_dtype *t = michi_dt_get(dt);

	if (t)
		t->h.refs++;
}

void michi_dt_release(MPI_Datatype dt)
{
	struct michi_dtype *t = michi_dt_get(dt);
	int i;

	if (!t || --t->h.refs > 0)
		return;
	for (i = 0; i < t->nd; i++)
		michi_dt_release(t->types[i]);
	free(t->runs);
	free(t->aints);
	michi_obj_free(MICHI_KIND_DATATYPE, t);
}

/* ---- the builder --------------------------------------------------------- */

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

static void b_init(struct builder *b)
{
	memset(b, 0, sizeof(*b));
	b->align = 1;
}

static void b_put(struct builder *b, MPI_Aint off, MPI_Aint stride, MPI_Count len,
		  MPI_Count count, MPI_Datatype elem)
{
	struct michi_dt_run *y;

	if (len <= 0 || count <= 0 || b->nomem)
		return;
	if (count > 1 && stride == len) {
		len *= count;
		count = 1;
	}
	if (b->n && b->runs[b->n - 1].elem == elem) {
		y = &b->runs[b->n - 1];
		if (count == 1 && y->count == 1 && y->off + y->len == off) {
			y->len += len;   /* continues the last piece */
			return;
		}
		if (count == 1 && y->len == len &&
		    ((y->count == 1 && off != y->off) ||
		     (y->count > 1 && off == y->off + y->count * y->stride))) {
			if (y->count == 1)
				y->stride = off - y->off;
			y->count++;    /* one more at the same spacing */
			return;
		}
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 8;
		struct michi_dt_run *r = realloc(b->runs, cap * sizeof(*r));

		if (!r) {
			b->nomem = 1;
			return;
		}
		b->runs = r;
		b->cap = cap;
	}
	b->runs[b->n++] = (struct michi_dt_run){ off, count > 1 ? stride : 0, len, count, elem };
}

static inline MPI_Aint min_a(MPI_Aint a, MPI_Aint b)
{
	return a < b ? a : b;
}

static inline MPI_Aint max_a(MPI_Aint a, MPI_Aint b)
{
	return a > b ? a : b;
}

/* count instances of the type described by c at displacement d. */
static void b_block(struct builder *b, const struct michi_dt_info *c, MPI_Count count,
		    MPI_Aint d)
{
	MPI_Aint ext = c->ub - c->lb, span = (MPI_Aint)(count - 1) * ext;
	MPI_Aint lo, hi;
	MPI_Count k;
	size_t i;

	if (count <= 0)
		return;
	lo = d + c->lb + min_a(0, span);
	hi = d + c->ub + max_a(0, span);
	if (c->has_lb)
		b->mlb = b->has_lb ? min_a(b->mlb, lo) : lo;
	if (c->has_ub)
		b->mub = b->has_ub ? max_a(b->mub, hi) : hi;
	b->has_lb |= c->has_lb;
	b->has_ub |= c->has_ub;
	if (c->size == 0 && (c->has_lb || c->has_ub))
		return;   /* a bare marker: no data and no data bounds */
	b->lb = b->any ? min_a(b->lb, lo) : lo;
	b->ub = b->any ? max_a(b->ub, hi) : hi;
	b->any = 1;
	if (c->align > b->align)
		b->align = c->align;
	if (c->size == 0)
		return;
	lo = d + c->true_lb + min_a(0, span);
	hi = d + c->true_ub + max_a(0, span);
	b->true_lb = b->has_true ? min_a(b->true_lb, lo) : lo;
	b->true_ub = b->has_true ? max_a(b->true_ub, hi) : hi;
	b->has_true = 1;
	b->size += count * c->size;
	b->nelem += count * c->nelem;
	if (!b->elem_set) {
		b->elem = c->elem;
		b->elem_set = 1;
	} else if (b->elem != c->elem) {
		b->elem = MPI_DATATYPE_NULL;
	}
	/* the child's runs, count times, one extent apart */
	if (c->nruns == 1 && c->runs[0].count == 1 && c->runs[0].len == ext) {
		/* dense: one piece */
		b_put(b, d + c->runs[0].off, ext, ext, count, c->runs[0].elem);
		return;
	}
	if (c->nruns == 1 && c->runs[0].count == 1) {
		b_put(b, d + c->runs[0].off, ext, c->runs[0].len, count, c->runs[0].elem);
		return;
	}
	if (c->nruns == 1 && c->runs[0].stride * c->runs[0].count == ext) {
		b_put(b, d + c->runs[0].off, c->runs[0].stride, c->runs[0].len,
		      c->runs[0].count * count, c->runs[0].elem);
		return;
	}
	for (k = 0; k < count; k++)
		for (i = 0; i < c->nruns; i++) {
			const struct michi_dt_run *r = &c->runs[i];
			MPI_Count j;

			if (r->count == 1) {
				b_put(b, d + k * ext + r->off, 0, r->len, 1, r->elem);
				continue;
			}
			if (b->n == 0 || b->runs[b->n - 1].count == 1) {
				b_put(b, d + k * ext + r->off, r->stride, r->len, r->count,
				      r->elem);
				continue;
			}
			for (j = 0; j < r->count; j++)
				b_put(b, d + k * ext + r->off + j * r->stride, 0, r->len, 1,
				      r->elem);
		}
}

/* ---- objects --------------------------------------------------------------- */

/* Instances lie back to back as size bytes each from true_lb: the data
 * is one gapless piece (of one or more element types) as long as the
 * extent. */
static uint8_t dense(const struct michi_dtype *t)
{
	MPI_Aint at = t->true_lb;
	size_t i;

	if (t->size == 0)
		return 1;
	if (t->ub - t->lb != t->size)
		return 0;
	for (i = 0; i < t->nruns; i++) {
		if (t->runs[i].off != at || (t->runs[i].count > 1 &&
					     t->runs[i].stride != t->runs[i].len))
			return 0;
		at += t->runs[i].len * t->runs[i].count;
	}
	return at - t->true_lb == t->size;
}

/* A new type from the builder, with room for its contents; NULL with
 * MPI_ERR_NO_MEM in *err. */
static struct michi_dtype *dt_make_c(struct builder *b, int combiner, int ni, int na, int nc,
				     int nd)
{
	struct michi_dtype *t;
	size_t bytes = (size_t)na * sizeof(MPI_Aint) + (size_t)nc * sizeof(MPI_Count) +
		       (size_t)nd * sizeof(MPI_Datatype) + (size_t)ni * sizeof(int);
	void *blk;

	if (b->nomem || !(blk = malloc(bytes ? bytes : 1)))
		return NULL;
	t = michi_obj_alloc(MICHI_KIND_DATATYPE);
	if (!t) {
		free(blk);
		return NULL;
	}
	memset((char *)t + sizeof(t->h), 0, sizeof(*t) - sizeof(t->h));
	t->aints = blk;
	t->types = (MPI_Datatype *)((MPI_Count *)(t->aints + na) + nc);
	t->ints = (int *)(t->types + nd);
	t->ni = ni;
	t->na = na;
	t->nc = nc;
	t->nd = nd;
	t->combiner = combiner;
	t->runs = b->runs;
	t->nruns = b->n;
	b->runs = NULL;
	t->size = b->size;
	t->nelem = b->nelem;
	t->elem = b->elem_set ? b->elem : MPI_DATATYPE_NULL;
	t->align = b->align;
	t->has_lb = (uint8_t)b->has_lb;
	t->has_ub = (uint8_t)b->has_ub;
	t->lb = b->has_lb ? b->mlb : b->any ? b->lb : 0;
	t->ub = b->has_ub ? b->mub : b->any ? b->ub : 0;
	if (combiner == MPI_COMBINER_STRUCT && !b->has_ub && t->align > 1) {
		MPI_Aint ext = t->ub - t->lb, pad = ext % t->align;

		if (pad)
			t->ub += t->align - pad;
	}
	t->true_lb = b->has_true ? b->true_lb : 0;
	t->true_ub = b->has_true ? b->true_ub : 0;
	t->contig = dense(t);
	return t;
}

static struct michi_dtype *dt_make(struct builder *b, int combiner, int ni, int na, int nd)
{
	return dt_make_c(b, combiner, ni, na, 0, nd);
}

/* Record the contents (ints NULL: filled in place), take references on
 * the children, return the handle. */
static int dt_finish(struct michi_dtype *t, const int *ints, const MPI_Aint *aints,
		     const MPI_Datatype *types, MPI_Datatype *newtype)
{
	int i;

	if (t->ni && ints)
		memcpy(t->ints, ints, (size_t)t->ni * sizeof(int));
	if (t->na)
		memcpy(t->aints, aints, (size_t)t->na * sizeof(MPI_Aint));
	for (i = 0; i < t->nd; i++) {
		t->types[i] = types[i];
		michi_dt_hold(types[i]);
	}
	*newtype = (MPI_Datatype)michi_p2h(t);
	return MPI_SUCCESS;
}

static int dt_nomem(struct builder *b, const char *fname)
{
	free(b->runs);
	return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory for the datatype");
}

static int dt_bad_type(const char *fname, const char *arg, MPI_Datatype dt)
{
	if (dt == MPI_DATATYPE_NULL)
		return michi_mpi_err(NULL, MPI_ERR_TYPE, fname,
				     "(%s=MPI_DATATYPE_NULL): null datatype", arg);
	return michi_mpi_err(NULL, MPI_ERR_TYPE, fname, "(%s=0x%x): not a valid datatype", arg,
			     (unsigned)dt);
}

/* Checks shared by the constructors: the count, the output, the old type. */
static int dt_args(const char *fname, MPI_Count count, MPI_Datatype old,
		   MPI_Datatype *newtype, struct michi_dt_info *in)
{
	MICHI_CHECK_INIT(fname);
	if (count < 0)
		return michi_mpi_err(NULL, MPI_ERR_COUNT, fname, "(count=%lld): count is negative",
				     (long long)count);
	if (!newtype)
		return michi_err_null(NULL, fname, "newtype");
	if (in && michi_dt_info(old, in))
		return dt_bad_type(fname, "oldtype", old);
	return MPI_SUCCESS;
}

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

/* ---- commit, free, names ------------------------------------------------- */

/* A derived type the user may operate on; predefined ones get `what`. */
static struct michi_dtype *user_type(const char *fname, MPI_Datatype dt, int *err)
{
	struct michi_dtype *t = michi_dt_get(dt);

	*err = MPI_SUCCESS;
	if (t && !t->predef)
		return t;
	if (t) {
		*err = michi_mpi_err(NULL, MPI_ERR_TYPE, fname,
				     "(datatype=0x%x): a type from MPI_Type_create_f90_* is "
				     "predefined and cannot be changed or freed", (unsigned)dt);
		return NULL;
	}
	if (michi_dt_builtin_valid(dt) || michi_dt_is_pair(dt))
		*err = michi_mpi_err(NULL, MPI_ERR_TYPE, fname,
				     "(datatype=%s): a predefined datatype cannot be changed or "
				     "freed", michi_dt_name(dt));
	else
		*err = dt_bad_type(fname, "datatype", dt);
	return NULL;
}

/*
 * At commit, a type of many runs that are each one block (irregular
 * indexed and struct types) gets them also as pairs of 32-bit gap and
 * length: packing then reads 8 bytes of description a block instead of a
 * 40-byte run, which took a third of the time of packing an indexed type
 * of 1 to 8 doubles a block. Types whose gaps or lengths do not fit 32
 * bits, or when memory is short, keep the runs alone.
 */
#define DT_BLOCKS_MIN 16

static void dt_compact(struct michi_dtype *t)
{
	struct michi_dt_run *runs;
	MPI_Aint at = 0, gap;
	int32_t *b;
	size_t i;

	if (t->blocked || t->nruns < DT_BLOCKS_MIN)
		return;
	for (i = 0; i < t->nruns; i++) {
		const struct michi_dt_run *r = &t->runs[i];

		gap = r->off - at;
		if (r->count != 1 || r->len > INT32_MAX || gap > INT32_MAX || gap < INT32_MIN)
			return;
		at = r->off + (MPI_Aint)r->len;
	}
	runs = realloc(t->runs, t->nruns * (sizeof(*runs) + 2 * sizeof(*b)));
	if (!runs)
		return;
	t->runs = runs;
	b = (int32_t *)(void *)(runs + t->nruns);
	for (i = 0, at = 0; i < t->nruns; i++) {
		b[2 * i] = (int32_t)(runs[i].off - at);
		b[2 * i + 1] = (int32_t)runs[i].len;
		at = runs[i].off + (MPI_Aint)runs[i].len;
	}
	t->blocked = 1;
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
	struct michi_dtype *t;
	int err;

	MICHI_CHECK_INIT("MPI_Type_commit");
	if (!datatype)
		return michi_err_null(NULL, "MPI_Type_commit", "datatype");
	if (michi_dt_builtin_valid(*datatype) || michi_dt_is_pair(*datatype))
		return MPI_SUCCESS;   /* predefined types are committed */
	/* so are MPI_Type_create_f90_*'s (predefined too, MPI-3.1 17.1.9):
	 * committing one is allowed and does nothing */
	t = michi_dt_get(*datatype);
	if (t && t->predef)
		return MPI_SUCCESS;
	t = user_type("MPI_Type_commit", *datatype, &err);
	if (t) {
		t->committed = 1;
		dt_compact(t);
	}
	return err;
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
	struct michi_dtype *t;
	int err;

	MICHI_CHECK_INIT("MPI_Type_free");
	if (!datatype)
		return michi_err_null(NULL, "MPI_Type_free", "datatype");
	t = user_type("MPI_Type_free", *datatype, &err);
	if (!t)
		return err;
	err = michi_type_attrs_free(*datatype);
	if (err)
		return michi_mpi_err(NULL, err, "MPI_Type_free",
				     "(): an attribute delete callback failed");
	michi_dt_release(*datatype);
	*datatype = MPI_DATATYPE_NULL;
	return MPI_SUCCESS;
}

/* Names given to predefined types (MPI-3.1 6.8 lets a program rename
 * them), kept for the job. */
struct named {
	struct named *next;
	MPI_Datatype dt;
	char name[MPI_MAX_OBJECT_NAME];
};

static struct named *renamed;

static struct named *renamed_entry(MPI_Datatype dt, int create)
{
	struct named *e;

	for (e = renamed; e; e = e->next)
		if (e->dt == dt)
			return e;
	if (!create || !(e = calloc(1, sizeof(*e))))
		return NULL;
	e->dt = dt;
	e->next = renamed;
	renamed = e;
	return e;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
	struct michi_dtype *t = michi_dt_get(datatype);
	struct named *e;

	MICHI_CHECK_INIT("MPI_Type_set_name");
	if (!type_name)
		return michi_err_null(NULL, "MPI_Type_set_name", "type_name");
	if (t) {
		snprintf(t->name, sizeof(t->name), "%s", type_name);
		return MPI_SUCCESS;
	}
	if (!michi_dt_builtin_valid(datatype) && !michi_dt_is_pair(datatype))
		return dt_bad_type("MPI_Type_set_name", "datatype", datatype);
	e = renamed_entry(datatype, 1);
	if (!e)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Type_set_name", "(): no memory");
	snprintf(e->name, sizeof(e->name), "%s", type_name);
	return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
	struct michi_dtype *t = michi_dt_get(datatype);
	const char *n;

	MICHI_CHECK_INIT("MPI_Type_get_name");
	if (!type_name || !resultlen)
		return michi_err_null(NULL, "MPI_Type_get_name", "type_name");
	if (t) {
		n = t->name;
	} else if (renamed_entry(datatype, 0)) {
		n = renamed_entry(datatype, 0)->name;
	} else {
		n = michi_dt_name(datatype);
		if (!n)
			return dt_bad_type("MPI_Type_get_name", "datatype", datatype);
	}
	snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", n);
	*resultlen = (int)strlen(type_name);
	return MPI_SUCCESS;
}

/* ---- sizes and bounds ------------------------------------------------------ */

static int query(const char *fname, MPI_Datatype dt, struct michi_dt_info *in, const void *out)
{
	MICHI_CHECK_INIT(fname);
	if (likely(michi_dt_builtin_valid(dt) && dt != MPI_LB && dt != MPI_UB && out)) {
		/* the common question, answered from the handle (tests and
		 * libraries ask it per element) */
		MPI_Count sz = ((uint32_t)dt >> 8) & 0xff;

		in->size = sz;
		in->lb = in->true_lb = 0;
		in->ub = in->true_ub = sz;
		return MPI_SUCCESS;
	}
	if (michi_dt_info(dt, in))
		return dt_bad_type(fname, "datatype", dt);
	if (!out)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(): output pointer is NULL");
	return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
	struct michi_dt_info in;
	int err = query("MPI_Type_size", datatype, &in, size);

	if (!err)
		*size = in.size > 0x7fffffff ? (int)MPI_UNDEFINED : (int)in.size;
	return err;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
	struct michi_dt_info in;
	int err = query("MPI_Type_size_x", datatype, &in, size);

	if (!err)
		*size = in.size > INT64_MAX ? (MPI_Count)MPI_UNDEFINED : (MPI_Count)in.size;
	return err;
}

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
	struct michi_dt_info in;
	int err = query("MPI_Type_size_c", datatype, &in, size);

	if (!err)
		*size = in.size > INT64_MAX ? (MPI_Count)MPI_UNDEFINED : (MPI_Count)in.size;
	return err;
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	struct michi_dt_info in;
	int err = query("MPI_Type_get_extent", datatype, &in, lb && extent ? lb : NULL);

	if (!err) {
		*lb = (MPI_Aint)in.lb;
		*extent = (MPI_Aint)(in.ub - in.lb);
	}
	return err;
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	struct michi_dt_info in;
	int err = query("MPI_Type_get_extent_x", datatype, &in, lb && extent ? lb : NULL);

	if (!err) {
		*lb = (MPI_Count)in.lb;
		*extent = (MPI_Count)(in.ub - in.lb);
	}
	return err;
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	struct michi_dt_info in;
	int err = query("MPI_Type_get_extent_c", datatype, &in, lb && extent ? lb : NULL);

	if (!err) {
		*lb = (MPI_Count)in.lb;
		*extent = (MPI_Count)(in.ub - in.lb);
	}
	return err;
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
	struct michi_dt_info in;
	int err = query("MPI_Type_get_true_extent", datatype, &in, lb && extent ? lb : NULL);

	if (!err) {
		*lb = (MPI_Aint)in.true_lb;
		*extent = (MPI_Aint)(in.true_ub - in.true_lb);
	}
	return err;
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	struct michi_dt_info in;
	int err = query("MPI_Type_get_true_extent_x", datatype, &in, lb && extent ? lb : NULL);

	if (!err) {
		*lb = (MPI_Count)in.true_lb;
		*extent = (MPI_Count)(in.true_ub - in.true_lb);
	}
	return err;
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
	struct michi_dt_info in;
	int err = query("MPI_Type_get_true_extent_c", datatype, &in, lb && extent ? lb : NULL);

	if (!err) {
		*lb = (MPI_Count)in.true_lb;
		*extent = (MPI_Count)(in.true_ub - in.true_lb);
	}
	return err;
}

/* The deprecated MPI-1 queries. */
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
	MPI_Aint lb;

	return PMPI_Type_get_extent(datatype, &lb, extent);
}

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
	MPI_Aint ext;

	return PMPI_Type_get_extent(datatype, displacement, &ext);
}

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
	MPI_Aint lb, ext;
	int err = PMPI_Type_get_extent(datatype, &lb, &ext);

	if (!err)
		*displacement = lb + ext;
	return err;
}

/* ---- envelope and contents ----------------------------------------------- */

static int envelope(const char *fname, MPI_Datatype dt, MPI_Count *ni, MPI_Count *na,
		    MPI_Count *nc, MPI_Count *nd, int *combiner)
{
	struct michi_dtype *t = michi_dt_get(dt);

	MICHI_CHECK_INIT(fname);
	if (!combiner || !ni || !na || !nd)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(): output pointer is NULL");
	if (nc)
		*nc = 0;
	if (!t) {
		if (!michi_dt_builtin_valid(dt) && !michi_dt_is_pair(dt))
			return dt_bad_type(fname, "datatype", dt);
		*ni = *na = *nd = 0;
		*combiner = MPI_COMBINER_NAMED;
		return MPI_SUCCESS;
	}
	if (!nc && t->nc)
		return michi_mpi_err(NULL, MPI_ERR_TYPE, fname,
				     "(datatype=0x%x): made by a large-count (_c) constructor; "
				     "MPI_Type_get_envelope_c describes it", (unsigned)dt);
	*ni = t->ni;
	*na = t->na;
	if (nc)
		*nc = t->nc;
	*nd = t->nd;
	*combiner = t->combiner;
	return MPI_SUCCESS;
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
			   int *num_datatypes, int *combiner)
{
	MPI_Count ni, na, nd;
	int err = envelope("MPI_Type_get_envelope", datatype, &ni, &na, NULL, &nd, combiner);

	if (!err && num_integers && num_addresses && num_datatypes) {
		*num_integers = (int)ni;
		*num_addresses = (int)na;
		*num_datatypes = (int)nd;
	}
	return err;
}

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
			     MPI_Count *num_addresses, MPI_Count *num_large_counts,
			     MPI_Count *num_datatypes, int *combiner)
{
	return envelope("MPI_Type_get_envelope_c", datatype, num_integers, num_addresses,
			num_large_counts, num_datatypes, combiner);
}

static int contents(const char *fname, MPI_Datatype dt, MPI_Count mi, MPI_Count ma,
		    MPI_Count mc, MPI_Count md, int *ints, MPI_Aint *aints, MPI_Count *counts,
		    MPI_Datatype *types)
{
	struct michi_dtype *t = michi_dt_get(dt);
	int i;

	MICHI_CHECK_INIT(fname);
	if (!t) {
		if (michi_dt_builtin_valid(dt) || michi_dt_is_pair(dt))
			return michi_mpi_err(NULL, MPI_ERR_TYPE, fname,
					     "(datatype=%s): a predefined datatype has no contents",
					     michi_dt_name(dt));
		return dt_bad_type(fname, "datatype", dt);
	}
	if (mc < 0 && t->nc)
		return michi_mpi_err(NULL, MPI_ERR_TYPE, fname,
				     "(datatype=0x%x): made by a large-count (_c) constructor; "
				     "MPI_Type_get_contents_c gives its contents", (unsigned)dt);
	if (mi < t->ni || ma < t->na || md < t->nd || (mc >= 0 && mc < t->nc))
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(max_integers=%lld, max_addresses=%lld, max_large_counts=%lld, "
				     "max_datatypes=%lld): the contents need %d, %d, %d and %d",
				     (long long)mi, (long long)ma, (long long)(mc < 0 ? 0 : mc),
				     (long long)md, t->ni, t->na, t->nc, t->nd);
	if ((t->ni && !ints) || (t->na && !aints) || (t->nc && !counts) || (t->nd && !types))
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(): NULL array argument");
	if (t->ni)
		memcpy(ints, t->ints, (size_t)t->ni * sizeof(int));
	if (t->na)
		memcpy(aints, t->aints, (size_t)t->na * sizeof(MPI_Aint));
	if (t->nc)
		memcpy(counts, michi_dt_counts(t), (size_t)t->nc * sizeof(MPI_Count));
	for (i = 0; i < t->nd; i++) {
		types[i] = t->types[i];
		/* derived types returned here are new references (4.1.13) */
		michi_dt_hold(t->types[i]);
	}
	return MPI_SUCCESS;
}

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
			     MPI_Count max_addresses, MPI_Count max_large_counts,
			     MPI_Count max_datatypes, int array_of_integers[],
			     MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
			     MPI_Datatype array_of_datatypes[])
{
	return contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses,
			max_large_counts < 0 ? 0 : max_large_counts, max_datatypes,
			array_of_integers, array_of_addresses, array_of_large_counts,
			array_of_datatypes);
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
			   int max_datatypes, int array_of_integers[],
			   MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
	return contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, -1,
			max_datatypes, array_of_integers, array_of_addresses, NULL,
			array_of_datatypes);
}

/* ---- matching a size --------------------------------------------------------- */

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
	static const MPI_Datatype reals[] = { MPI_REAL4, MPI_REAL8, MPI_REAL16 };
	static const MPI_Datatype ints[] = { MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4,
					     MPI_INTEGER8 };
	static const MPI_Datatype cplx[] = { MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32 };
	const MPI_Datatype *set;
	size_t i, n;

	MICHI_CHECK_INIT("MPI_Type_match_size");
	if (!datatype)
		return michi_err_null(NULL, "MPI_Type_match_size", "datatype");
	switch (typeclass) {
	case MPI_TYPECLASS_REAL:
		set = reals;
		n = 3;
		break;
	case MPI_TYPECLASS_INTEGER:
		set = ints;
		n = 4;
		break;
	case MPI_TYPECLASS_COMPLEX:
		set = cplx;
		n = 3;
		break;
	default:
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_match_size",
				     "(typeclass=%d): not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX",
				     typeclass);
	}
	for (i = 0; i < n; i++)
		if (michi_dt_size(set[i]) == size) {
			*datatype = set[i];
			return MPI_SUCCESS;
		}
	return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_match_size",
			     "(size=%d): no predefined type of that class has that size", size);
}
