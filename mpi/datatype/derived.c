/* SPDX-License-Identifier: MIT */
/*
 * mpi/datatype/derived.c: derived datatypes: what a type is made of, the
 * builder, commit, free, dup, envelope and contents, bounds, sizes and
 * names; the constructors that use the builder are in constructors.c.
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
#include "dtype_priv.h"

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

void b_init(struct builder *b)
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
void b_block(struct builder *b, const struct michi_dt_info *c, MPI_Count count,
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
uint8_t dense(const struct michi_dtype *t)
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
struct michi_dtype *dt_make_c(struct builder *b, int combiner, int ni, int na, int nc,
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

struct michi_dtype *dt_make(struct builder *b, int combiner, int ni, int na, int nd)
{
	return dt_make_c(b, combiner, ni, na, 0, nd);
}

/* Record the contents (ints NULL: filled in place), take references on
 * the children, return the handle. */
int dt_finish(struct michi_dtype *t, const int *ints, const MPI_Aint *aints,
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

int dt_nomem(struct builder *b, const char *fname)
{
	free(b->runs);
	return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory for the datatype");
}

int dt_bad_type(const char *fname, const char *arg, MPI_Datatype dt)
{
	if (dt == MPI_DATATYPE_NULL)
		return michi_mpi_err(NULL, MPI_ERR_TYPE, fname,
				     "(%s=MPI_DATATYPE_NULL): null datatype", arg);
	return michi_mpi_err(NULL, MPI_ERR_TYPE, fname, "(%s=0x%x): not a valid datatype", arg,
			     (unsigned)dt);
}

/* Checks shared by the constructors: the count, the output, the old type. */
int dt_args(const char *fname, MPI_Count count, MPI_Datatype old,
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
