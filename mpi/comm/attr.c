/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/attr.c: attribute keys and attributes on communicators and
 * datatypes (MPI-3.1 6.7), and the MPI-1 names for them.
 *
 * A keyval is a slab object holding the copy and delete callbacks and the
 * extra state; every attribute that uses it holds a reference, so freeing
 * a keyval in use only invalidates the handle. Attributes are a list per
 * object, newest first: deleting them all (MPI_Comm_free, MPI_Finalize
 * for MPI_COMM_SELF) runs the delete callbacks in the reverse order of
 * setting. A communicator keeps its list; datatypes, predefined ones
 * included, have theirs in a side table keyed by handle. MPI_Comm_dup
 * asks each copy callback whether the duplicate gets the attribute.
 * Window keyvals can be made and freed; attributes on windows come with
 * windows.
 *
 * Languages (MPI 3.1 section 17.2.7): an attribute set from Fortran is an
 * integer, not a pointer. It is kept as the void * value all the same,
 * marked, with a copy of the integer: C's get then returns the address of
 * that integer, as the standard asks, and Fortran's get returns the value
 * either way (a C pointer as an integer). libmpifort reaches these through
 * michi_fortran_attr().
 */
#include "mpiimpl.h"
#include "dtype.h"
#include "attr.h"
#include "pt2pt.h"

#include <stdlib.h>

enum { KV_COMM = 1, KV_TYPE, KV_WIN };

struct michi_keyval {
	struct michi_obj h;
	int kind;
	int freed;            /* the user's handle is gone */
	void *copy, *del;     /* callbacks of the kind's types, or NULL */
	void *extra;
};

struct michi_attr {
	struct michi_attr *next;
	struct michi_keyval *kv;
	void *val;
	int fortran;          /* set from Fortran: val is an integer */
	MPI_Aint fval;        /* that integer, for C's get to point to */
};

typedef int (attr_copy_fn)(int oldobj, int keyval, void *extra, void *in, void *out, int *flag);
typedef int (attr_delete_fn)(int obj, int keyval, void *val, void *extra);

static const char *const kind_name[] = { "", "communicator", "datatype", "window" };

static struct michi_keyval *keyval_get(int keyval, int kind)
{
	struct michi_keyval *kv = michi_obj_check((uint32_t)keyval, MICHI_KIND_KEYVAL);

	return kv && !kv->freed && kv->kind == kind ? kv : NULL;
}

/* A key the user freed lives on while attributes use it (MPI-3.1
 * 6.7.2): they can still be read and deleted through it, and freeing it
 * again (a delete callback's copy of the handle, say) changes nothing. */
static struct michi_keyval *keyval_live(int keyval, int kind)
{
	struct michi_keyval *kv = michi_obj_check((uint32_t)keyval, MICHI_KIND_KEYVAL);

	return kv && kv->kind == kind ? kv : NULL;
}

static void keyval_put(struct michi_keyval *kv)
{
	if (--kv->h.refs == 0)
		michi_obj_free(MICHI_KIND_KEYVAL, kv);
}

static int keyval_bad(struct michi_comm *c, const char *fname, int keyval, int kind)
{
	return michi_mpi_err(c, MPI_ERR_KEYVAL, fname, "(keyval=0x%x): not a %s attribute key",
			     (unsigned)keyval, kind_name[kind]);
}

static int keyval_create(const char *fname, int kind, void *copy, void *del, int *keyval,
			 void *extra)
{
	struct michi_keyval *kv;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK && !keyval)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(keyval=NULL): NULL pointer");
	kv = michi_obj_alloc(MICHI_KIND_KEYVAL);
	if (!kv)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory");
	kv->kind = kind;
	kv->freed = 0;
	kv->copy = copy;
	kv->del = del;
	kv->extra = extra;
	*keyval = (int)michi_p2h(kv);
	return MPI_SUCCESS;
}

static int keyval_free(const char *fname, int kind, int *keyval)
{
	struct michi_keyval *kv;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK && !keyval)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(keyval=NULL): NULL pointer");
	kv = keyval_live(*keyval, kind);
	if (!kv)
		return keyval_bad(NULL, fname, *keyval, kind);
	if (!kv->freed) {
		kv->freed = 1;
		keyval_put(kv);
	}
	*keyval = MPI_KEYVAL_INVALID;
	return MPI_SUCCESS;
}

static struct michi_attr **attr_find(struct michi_attr **list, const struct michi_keyval *kv)
{
	for (; *list; list = &(*list)->next)
		if ((*list)->kv == kv)
			return list;
	return NULL;
}

/* Run a's delete callback for object obj; MPI_SUCCESS or its code. */
static int attr_delete_cb(int obj, const struct michi_attr *a)
{
	attr_delete_fn *fn = (attr_delete_fn *)a->kv->del;

	return fn ? fn(obj, (int)michi_p2h(a->kv), a->val, a->kv->extra) : MPI_SUCCESS;
}

static int attr_set(struct michi_comm *c, const char *fname, struct michi_attr **list, int obj,
		    struct michi_keyval *kv, void *val, int fortran)
{
	struct michi_attr **at = attr_find(list, kv), *a;
	int err;

	if (at) {
		/* replacing runs the delete callback on the old value */
		if ((err = attr_delete_cb(obj, *at)))
			return michi_mpi_err(c, err < MPI_ERR_LASTCODE ? err : MPI_ERR_OTHER, fname,
					     "(): the delete callback of the old value failed (%d)",
					     err);
		(*at)->val = val;
		(*at)->fortran = fortran;
		(*at)->fval = (MPI_Aint)(uintptr_t)val;
		return MPI_SUCCESS;
	}
	a = malloc(sizeof(*a));
	if (!a)
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
	a->kv = kv;
	a->val = val;
	a->fortran = fortran;
	a->fval = (MPI_Aint)(uintptr_t)val;
	a->next = *list;
	kv->h.refs++;
	*list = a;
	return MPI_SUCCESS;
}

/* out: a void * for C, an MPI_Aint for Fortran */
static int attr_get(struct michi_attr *list, struct michi_keyval *kv, void *out, int *flag,
		    int fortran)
{
	struct michi_attr **at = attr_find(&list, kv);

	*flag = at != NULL;
	if (!at)
		return MPI_SUCCESS;
	if (fortran)
		*(MPI_Aint *)out = (MPI_Aint)(uintptr_t)(*at)->val;
	else if ((*at)->fortran)
		*(void **)out = &(*at)->fval;
	else
		*(void **)out = (*at)->val;
	return MPI_SUCCESS;
}

static int attr_delete(struct michi_comm *c, const char *fname, struct michi_attr **list, int obj,
		       struct michi_keyval *kv)
{
	struct michi_attr **at = attr_find(list, kv), *a;
	int err;

	if (!at)
		return michi_mpi_err(c, MPI_ERR_KEYVAL, fname,
				     "(keyval=0x%x): no such attribute on the object",
				     (unsigned)michi_p2h(kv));
	a = *at;
	if ((err = attr_delete_cb(obj, a)))
		return michi_mpi_err(c, MPI_ERR_OTHER, fname,
				     "(): the attribute's delete callback returned %d", err);
	*at = a->next;
	keyval_put(a->kv);
	free(a);
	return MPI_SUCCESS;
}

int michi_attrs_delete_all(int obj, struct michi_attr **list)
{
	int first = MPI_SUCCESS;

	while (*list) {
		struct michi_attr *a = *list;
		int err = attr_delete_cb(obj, a);

		if (err && first == MPI_SUCCESS)
			first = err;
		*list = a->next;
		keyval_put(a->kv);
		free(a);
	}
	return first;
}

int michi_attrs_copy(int oldobj, struct michi_attr *src, struct michi_attr **dst)
{
	struct michi_attr *a, *tail = NULL;
	int err;

	*dst = NULL;
	for (a = src; a; a = a->next) {
		attr_copy_fn *fn = (attr_copy_fn *)a->kv->copy;
		struct michi_attr *n;
		void *out = NULL;
		int flag = 0;

		if (!fn)
			continue;
		err = fn(oldobj, (int)michi_p2h(a->kv), a->kv->extra, a->val, &out, &flag);
		if (err)
			return err;
		if (!flag)
			continue;
		n = malloc(sizeof(*n));
		if (!n)
			return MPI_ERR_NO_MEM;
		n->kv = a->kv;
		n->val = out;
		n->fortran = a->fortran;
		n->fval = (MPI_Aint)(uintptr_t)out;
		n->next = NULL;
		a->kv->h.refs++;
		/* keep the order of the original */
		if (tail)
			tail->next = n;
		else
			*dst = n;
		tail = n;
	}
	return MPI_SUCCESS;
}

/* ---- communicators ------------------------------------------------------ */

#define COMM_ATTR_ARG(fname, comm, c) do { \
	MICHI_CHECK_INIT(fname); \
	(c) = michi_comm_get(comm); \
	if (ERRCHK && unlikely(!(c))) \
		return michi_check_comm_slow(comm, fname); \
} while (0)

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
			    int *keyval, void *extra_state)
{
	return keyval_create("MPI_Comm_create_keyval", KV_COMM, (void *)copy, (void *)del, keyval,
			     extra_state);
}

int PMPI_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *keyval,
		       void *extra_state)
{
	return keyval_create("MPI_Keyval_create", KV_COMM, (void *)copy, (void *)del, keyval,
			     extra_state);
}

int PMPI_Comm_free_keyval(int *keyval)
{
	return keyval_free("MPI_Comm_free_keyval", KV_COMM, keyval);
}

int PMPI_Keyval_free(int *keyval)
{
	return keyval_free("MPI_Keyval_free", KV_COMM, keyval);
}

static int comm_set_attr(const char *fname, MPI_Comm comm, int keyval, void *val, int fortran)
{
	struct michi_comm *c;
	struct michi_keyval *kv;

	COMM_ATTR_ARG(fname, comm, c);
	kv = keyval_get(keyval, KV_COMM);
	if (!kv)
		return keyval_bad(c, fname, keyval, KV_COMM);
	return attr_set(c, fname, &c->attrs, (int)c->handle, kv, val, fortran);
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
	return comm_set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val, 0);
}

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
	return comm_set_attr("MPI_Attr_put", comm, keyval, attribute_val, 0);
}

static int comm_delete_attr(const char *fname, MPI_Comm comm, int keyval)
{
	struct michi_comm *c;
	struct michi_keyval *kv;

	COMM_ATTR_ARG(fname, comm, c);
	kv = keyval_live(keyval, KV_COMM);
	if (!kv)
		return keyval_bad(c, fname, keyval, KV_COMM);
	return attr_delete(c, fname, &c->attrs, (int)c->handle, kv);
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
	return comm_delete_attr("MPI_Comm_delete_attr", comm, comm_keyval);
}

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
	return comm_delete_attr("MPI_Attr_delete", comm, keyval);
}

/* A user key's value for MPI_Comm_get_attr (mpi/comm/comm_query.c does the
 * predefined ones); 0 when keyval is not a communicator key. */
int michi_comm_user_attr(struct michi_comm *c, int keyval, void *out, int *flag)
{
	struct michi_keyval *kv = keyval_live(keyval, KV_COMM);

	if (!kv)
		return 0;
	attr_get(c->attrs, kv, out, flag, 0);
	return 1;
}

/* ---- datatypes ---------------------------------------------------------- */

struct type_attrs {
	struct type_attrs *next;
	MPI_Datatype dt;
	struct michi_attr *attrs;
};

static struct type_attrs *type_table;

static struct type_attrs *type_entry(MPI_Datatype dt, int create)
{
	struct type_attrs *t;

	for (t = type_table; t; t = t->next)
		if (t->dt == dt)
			return t;
	if (!create || !(t = calloc(1, sizeof(*t))))
		return NULL;
	t->dt = dt;
	t->next = type_table;
	type_table = t;
	return t;
}

int michi_type_attrs_copy(MPI_Datatype from, MPI_Datatype to)
{
	struct type_attrs *f = type_entry(from, 0), *t;
	struct michi_attr *list;
	int err;

	if (!f || !f->attrs)
		return MPI_SUCCESS;
	err = michi_attrs_copy((int)from, f->attrs, &list);
	if (err) {
		michi_attrs_delete_all((int)to, &list);
		return err;
	}
	t = type_entry(to, 1);
	if (!t) {
		michi_attrs_delete_all((int)to, &list);
		return MPI_ERR_NO_MEM;
	}
	t->attrs = list;
	return MPI_SUCCESS;
}

/* The type's handle may be reused once freed: its entry goes too. */
int michi_type_attrs_free(MPI_Datatype dt)
{
	struct type_attrs **pp, *t;
	int err;

	for (pp = &type_table; *pp && (*pp)->dt != dt; pp = &(*pp)->next)
		;
	if (!(t = *pp))
		return MPI_SUCCESS;
	err = michi_attrs_delete_all((int)dt, &t->attrs);
	*pp = t->next;
	free(t);
	return err;
}

/* The checks every MPI_Type_*_attr call opens with; finds the keyval. */
static int type_attr_key(const char *fname, MPI_Datatype dt, int keyval,
			 struct michi_keyval **kv)
{
	MICHI_CHECK_INIT(fname);
	if (ERRCHK && !michi_dt_valid(dt))
		return michi_mpi_err(NULL, MPI_ERR_TYPE, fname,
				     "(datatype=0x%x): not a valid datatype", (unsigned)dt);
	*kv = keyval_live(keyval, KV_TYPE);
	return *kv ? MPI_SUCCESS : keyval_bad(NULL, fname, keyval, KV_TYPE);
}

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy, MPI_Type_delete_attr_function *del,
			    int *keyval, void *extra_state)
{
	return keyval_create("MPI_Type_create_keyval", KV_TYPE, (void *)copy, (void *)del, keyval,
			     extra_state);
}

int PMPI_Type_free_keyval(int *keyval)
{
	return keyval_free("MPI_Type_free_keyval", KV_TYPE, keyval);
}

static int type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val,
			 int fortran)
{
	struct michi_keyval *kv;
	struct type_attrs *t;

	int err = type_attr_key("MPI_Type_set_attr", datatype, type_keyval, &kv);

	if (err)
		return err;
	t = type_entry(datatype, 1);
	if (!t)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Type_set_attr", "(): no memory");
	return attr_set(NULL, "MPI_Type_set_attr", &t->attrs, (int)datatype, kv, attribute_val,
			fortran);
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
	return type_set_attr(datatype, type_keyval, attribute_val, 0);
}

static int type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag,
			 int fortran)
{
	struct michi_keyval *kv;
	struct type_attrs *t;

	int err = type_attr_key("MPI_Type_get_attr", datatype, type_keyval, &kv);

	if (err)
		return err;
	if (ERRCHK && (!attribute_val || !flag))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Type_get_attr", "(): NULL output pointer");
	t = type_entry(datatype, 0);
	*flag = 0;
	return t ? attr_get(t->attrs, kv, attribute_val, flag, fortran) : MPI_SUCCESS;
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
	return type_get_attr(datatype, type_keyval, attribute_val, flag, 0);
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
	struct michi_keyval *kv;
	struct type_attrs *t;

	int err = type_attr_key("MPI_Type_delete_attr", datatype, type_keyval, &kv);

	if (err)
		return err;
	t = type_entry(datatype, 0);
	if (!t)
		return michi_mpi_err(NULL, MPI_ERR_KEYVAL, "MPI_Type_delete_attr",
				     "(keyval=0x%x): no such attribute on the datatype",
				     (unsigned)type_keyval);
	return attr_delete(NULL, "MPI_Type_delete_attr", &t->attrs, (int)datatype, kv);
}

/* ---- windows: keys only, until windows exist ----------------------------- */

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy, MPI_Win_delete_attr_function *del,
			   int *keyval, void *extra_state)
{
	return keyval_create("MPI_Win_create_keyval", KV_WIN, (void *)copy, (void *)del, keyval,
			     extra_state);
}

int PMPI_Win_free_keyval(int *keyval)
{
	return keyval_free("MPI_Win_free_keyval", KV_WIN, keyval);
}

/* ---- the Fortran bindings' attribute calls ------------------------------ */

/*
 * For libmpifort: set (set != 0, from *val) or get (into *val and *flag)
 * an attribute from Fortran, on a communicator (kind 'c') or a datatype
 * ('t'). Returns -1, having done nothing, for a communicator key that is
 * not a user key (the predefined ones, and bad keys, go through
 * MPI_Comm_get_attr) and for windows, which have no attributes yet.
 */
MICHI_EXPORT int michi_fortran_attr(int set, int kind, int obj, int keyval, MPI_Aint *val,
				    int *flag)
{
	void *v = (void *)(uintptr_t)*val;

	if (kind == 't')
		return set ? type_set_attr(obj, keyval, v, 1) :
			     type_get_attr(obj, keyval, val, flag, 1);
	if (kind != 'c')
		return -1;
	if (set)
		return comm_set_attr("MPI_Comm_set_attr", obj, keyval, v, 1);
	if (!keyval_live(keyval, KV_COMM))
		return -1;
	{
		struct michi_comm *c;

		COMM_ATTR_ARG("MPI_Comm_get_attr", obj, c);
		if (ERRCHK && !flag)
			return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Comm_get_attr",
					     "(): NULL output pointer");
		return attr_get(c->attrs, keyval_live(keyval, KV_COMM), val, flag, 1);
	}
}
