/* SPDX-License-Identifier: MIT */
/*
 * mpi/fortran/fortran_special.c: the Fortran wrappers gen_fortran.py cannot
 * derive from a C prototype, the predefined Fortran callbacks, the common
 * blocks of mpif.h's sentinels, and the helpers of fortran_impl.h.
 *
 * Attributes. A Fortran attribute value is an INTEGER(KIND=MPI_ADDRESS_KIND)
 * (a default INTEGER in the MPI-1 calls): it is stored as the C void *
 * itself, so C and Fortran see the same bits, as MPI 3.1 section 17.2.7
 * asks. The predefined attributes are the exception: C stores a pointer to
 * their value, and Fortran gets the value (under keys of their own, below). A keyval created from Fortran
 * gets C trampolines that call the Fortran copy and delete procedures with
 * Fortran's by-reference arguments; the trampolines' state lives as long
 * as the process (MPI has no hook at MPI_Comm_free_keyval to free it).
 */
#include <stdint.h>
#include "fortran_impl.h"

/* The common blocks of mpif.h (see fortran_impl.h), aligned as gfortran
 * aligns a common block (the mpi module, compiled into this library,
 * declares them too). */
#define F_COMMON F_EXPORT __attribute__((aligned(16)))
F_COMMON struct michi_f_priv1 mpipriv1_;
F_COMMON struct michi_f_priv2 mpipriv2_;
F_COMMON struct michi_f_privc mpiprivc_;
F_COMMON MPI_Fint mpifcmb5_;
F_COMMON MPI_Fint mpifcmb9_;

/* ---- helpers ------------------------------------------------------------ */

int michi_f_nomem(const char *fname)
{
	return michi_binding_error(MPI_ERR_NO_MEM, fname, "out of memory converting a Fortran argument");
}

char *michi_f_str_in(const char *s, size_t len)
{
	size_t a = 0, b = len;
	char *c;

	while (a < b && s[a] == ' ')
		a++;
	while (b > a && s[b - 1] == ' ')
		b--;
	c = malloc(b - a + 1);
	if (c) {
		memcpy(c, s + a, b - a);
		c[b - a] = '\0';
	}
	return c;
}

/* The longest string MPI writes: the library version. */
#define F_STR_MAX MPI_MAX_LIBRARY_VERSION_STRING

char *michi_f_str_buf(size_t len)
{
	char *c = malloc((len > F_STR_MAX ? len : F_STR_MAX) + 1);

	if (c)
		c[0] = '\0';
	return c;
}

void michi_f_str_out(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n > len)
		n = len;
	memcpy(dst, src, n);
	memset(dst + n, ' ', len - n);
}

MPI_Aint *f_aint_array(const MPI_Fint *a, MPI_Fint n)
{
	MPI_Aint *c;

	if (n <= 0)
		return NULL;
	c = malloc((size_t)n * sizeof(*c));
	if (c)
		for (MPI_Fint i = 0; i < n; i++)
			c[i] = a[i];
	return c;
}

/* ---- environment -------------------------------------------------------- */

F_EXPORT void pmpi_init_(MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	*ierr = PMPI_Init(NULL, NULL);
}
F_ALIASES(init, INIT)

F_EXPORT void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	*ierr = PMPI_Init_thread(NULL, NULL, *required, provided);
}
F_ALIASES(init_thread, INIT_THREAD)

F_EXPORT double pmpi_wtime_(void)
{
	return PMPI_Wtime();
}
F_ALIASES(wtime, WTIME)

F_EXPORT double pmpi_wtick_(void)
{
	return PMPI_Wtick();
}
F_ALIASES(wtick, WTICK)

F_EXPORT MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp)
{
	return PMPI_Aint_add(*base, *disp);
}
F_ALIASES(aint_add, AINT_ADD)

F_EXPORT MPI_Aint pmpi_aint_diff_(MPI_Aint *addr1, MPI_Aint *addr2)
{
	return PMPI_Aint_diff(*addr1, *addr2);
}
F_ALIASES(aint_diff, AINT_DIFF)

/* Fortran's MPI_PCONTROL(LEVEL) has no error argument. */
F_EXPORT void pmpi_pcontrol_(MPI_Fint *level)
{
	PMPI_Pcontrol(*level);
}
F_ALIASES(pcontrol, PCONTROL)

/* BASEPTR is an INTEGER(KIND=MPI_ADDRESS_KIND) (a Cray pointer's value). */
F_EXPORT void pmpi_alloc_mem_(MPI_Aint *size, MPI_Fint *info, MPI_Aint *baseptr, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	void *p = NULL;

	*ierr = PMPI_Alloc_mem(*size, (MPI_Info)*info, &p);
	if (*ierr == MPI_SUCCESS)
		*baseptr = (MPI_Aint)(uintptr_t)p;
}
F_ALIASES(alloc_mem, ALLOC_MEM)

/* Fortran cannot use the detached buffer's address; BUFFER_ADDR is left. */
F_EXPORT void pmpi_buffer_detach_(void *buffer_addr, MPI_Fint *size, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	void *p;

	(void)buffer_addr;
	*ierr = PMPI_Buffer_detach(&p, size);
}
F_ALIASES(buffer_detach, BUFFER_DETACH)

F_EXPORT void pmpi_buffer_detach_c_(void *buffer_addr, MPI_Count *size, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	void *p;

	(void)buffer_addr;
	*ierr = PMPI_Buffer_detach_c(&p, size);
}
F_ALIASES(buffer_detach_c, BUFFER_DETACH_C)

/* ---- info: the C call's length bounded by the Fortran string's --------- */

/* Fortran's MPI_INFO_CREATE_ENV(INFO, IERROR) has no argc and argv. */
F_EXPORT void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	*ierr = PMPI_Info_create_env(0, NULL, info);
}
F_ALIASES(info_create_env, INFO_CREATE_ENV)

/*
 * MPI_INFO_GET (string 0) and MPI_INFO_GET_STRING (string 1): the C call
 * writes into a buffer of its own, bounded by the Fortran string's length,
 * which is then copied back blank padded. Info_get's VALUELEN is a length
 * in characters; Info_get_string's BUFLEN too, where C's counts the
 * terminator, and 0 only asks for the length (VALUE is left alone).
 */
static void f_info_get(int string, MPI_Fint info, char *key, MPI_Fint *len, char *value,
		       MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
	char *k = michi_f_str_in(key, key_len), *v = michi_f_str_buf(value_len);
	int fl = 0, n = *len < (MPI_Fint)value_len ? *len : (int)value_len;
	int length_only = string && *len <= 0;

	if (!k || !v) {
		*ierr = michi_f_nomem(string ? "MPI_Info_get_string" : "MPI_Info_get");
	} else {
		if (length_only)
			n = *len;	/* 0, or negative: the C call's error */
		else if (string)
			n++;		/* C counts the terminator */
		if (string)
			*ierr = PMPI_Info_get_string(info, k, &n, length_only ? NULL : v, &fl);
		else
			*ierr = PMPI_Info_get(info, k, n, v, &fl);
		if (*ierr == MPI_SUCCESS) {
			*flag = F_LOGICAL(fl);
			if (fl && !length_only)
				michi_f_str_out(value, value_len, v);
			if (fl && string)
				*len = n - 1;
		}
	}
	free(k);
	free(v);
}

F_EXPORT void pmpi_info_get_(MPI_Fint *info, char *key, MPI_Fint *valuelen, char *value,
			     MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
	F_IERR_OPTIONAL(ierr);
	f_info_get(0, *info, key, valuelen, value, flag, ierr, key_len, value_len);
}
F_ALIASES(info_get, INFO_GET)

F_EXPORT void pmpi_info_get_string_(MPI_Fint *info, char *key, MPI_Fint *buflen, char *value,
				    MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
	F_IERR_OPTIONAL(ierr);
	f_info_get(1, *info, key, buflen, value, flag, ierr, key_len, value_len);
}
F_ALIASES(info_get_string, INFO_GET_STRING)

/* ---- attributes --------------------------------------------------------- */

/*
 * The predefined attribute keys of mpif.h are the C keys plus one, as in
 * MPICH (a program built against MPICH's mpif.h passes those values):
 * f_attr_key gives the C key, and whether it is predefined.
 */
static int f_attr_key(MPI_Fint fkey, int *predefined)
{
	*predefined = 1;
	switch (fkey) {
	case MPI_TAG_UB + 1: case MPI_HOST + 1: case MPI_IO + 1: case MPI_WTIME_IS_GLOBAL + 1:
	case MPI_UNIVERSE_SIZE + 1: case MPI_LASTUSEDCODE + 1: case MPI_APPNUM + 1:
	case MPI_WIN_BASE + 1: case MPI_WIN_SIZE + 1: case MPI_WIN_DISP_UNIT + 1:
	case MPI_WIN_CREATE_FLAVOR + 1: case MPI_WIN_MODEL + 1:
		return fkey - 1;
	}
	*predefined = 0;
	return fkey;
}

/* The value Fortran sees of an attribute C holds as v: a predefined one's
 * C value points to it (MPI_WIN_BASE is the base address itself). */
static MPI_Aint attr_value(int ckey, int predefined, void *v)
{
	if (!predefined || ckey == MPI_WIN_BASE)
		return (MPI_Aint)(uintptr_t)v;
	if (ckey == MPI_WIN_SIZE)
		return *(MPI_Aint *)v;
	return *(int *)v;
}

typedef void f_copy_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
		       MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void f_delete_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra,
			 MPI_Fint *ierr);
/* MPI-1's MPI_KEYVAL_CREATE: default INTEGER values and extra state */
typedef void f_copy1_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in,
			MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void f_delete1_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *extra,
			  MPI_Fint *ierr);

struct f_keyval {
	void *copy, *del;	/* the Fortran procedures */
	MPI_Aint extra;		/* Fortran's EXTRA_STATE */
	int mpi1;		/* MPI_KEYVAL_CREATE's INTEGER arguments */
};

/* One trampoline pair for every object kind: the handles are ints. */
static int f_copy_tramp(int obj, int keyval, void *extra, void *in, void *out, int *flag)
{
	struct f_keyval *k = extra;
	MPI_Fint o = obj, kv = keyval, fl = 0, err = MPI_SUCCESS;

	if (k->mpi1) {
		MPI_Fint e = (MPI_Fint)k->extra, vin = (MPI_Fint)(intptr_t)in, vout = 0;

		((f_copy1_fn *)k->copy)(&o, &kv, &e, &vin, &vout, &fl, &err);
		*(void **)out = (void *)(intptr_t)vout;
	} else {
		MPI_Aint vin = (MPI_Aint)(uintptr_t)in, vout = 0;

		((f_copy_fn *)k->copy)(&o, &kv, &k->extra, &vin, &vout, &fl, &err);
		*(void **)out = (void *)(uintptr_t)vout;
	}
	*flag = fl != F_FALSE;
	return err;
}

static int f_delete_tramp(int obj, int keyval, void *val, void *extra)
{
	struct f_keyval *k = extra;
	MPI_Fint o = obj, kv = keyval, err = MPI_SUCCESS;

	if (k->mpi1) {
		MPI_Fint e = (MPI_Fint)k->extra, v = (MPI_Fint)(intptr_t)val;

		((f_delete1_fn *)k->del)(&o, &kv, &v, &e, &err);
	} else {
		MPI_Aint v = (MPI_Aint)(uintptr_t)val;

		((f_delete_fn *)k->del)(&o, &kv, &v, &k->extra, &err);
	}
	return err;
}

static struct f_keyval *f_keyval_new(void *copy, void *del, MPI_Aint extra, int mpi1)
{
	struct f_keyval *k = malloc(sizeof(*k));

	if (k) {
		k->copy = copy;
		k->del = del;
		k->extra = extra;
		k->mpi1 = mpi1;
	}
	return k;
}

#define F_KEYVAL_CREATE(lc, UC, Cname, copy_t, delete_t) \
F_EXPORT void pmpi_##lc##_(void *copy_fn, void *delete_fn, MPI_Fint *keyval, MPI_Aint *extra_state, \
			   MPI_Fint *ierr) \
{ \
	F_IERR_OPTIONAL(ierr); \
	struct f_keyval *k = f_keyval_new(copy_fn, delete_fn, *extra_state, 0); \
 \
	if (!k) { \
		*ierr = michi_f_nomem("MPI_" #Cname); \
		return; \
	} \
	*ierr = PMPI_##Cname((copy_t *)(void (*)(void))f_copy_tramp, \
			     (delete_t *)(void (*)(void))f_delete_tramp, keyval, k); \
	if (*ierr != MPI_SUCCESS) \
		free(k); \
} \
F_ALIASES(lc, UC)

F_KEYVAL_CREATE(comm_create_keyval, COMM_CREATE_KEYVAL, Comm_create_keyval,
		MPI_Comm_copy_attr_function, MPI_Comm_delete_attr_function)
F_KEYVAL_CREATE(type_create_keyval, TYPE_CREATE_KEYVAL, Type_create_keyval,
		MPI_Type_copy_attr_function, MPI_Type_delete_attr_function)
F_KEYVAL_CREATE(win_create_keyval, WIN_CREATE_KEYVAL, Win_create_keyval,
		MPI_Win_copy_attr_function, MPI_Win_delete_attr_function)

F_EXPORT void pmpi_keyval_create_(void *copy_fn, void *delete_fn, MPI_Fint *keyval,
				  MPI_Fint *extra_state, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	struct f_keyval *k = f_keyval_new(copy_fn, delete_fn, *extra_state, 1);

	if (!k) {
		*ierr = michi_f_nomem("MPI_Keyval_create");
		return;
	}
	*ierr = PMPI_Keyval_create((MPI_Copy_function *)(void (*)(void))f_copy_tramp,
				   (MPI_Delete_function *)(void (*)(void))f_delete_tramp, keyval, k);
	if (*ierr != MPI_SUCCESS)
		free(k);
}
F_ALIASES(keyval_create, KEYVAL_CREATE)

/* libmpi's attribute calls with Fortran's integer values (mpi/comm/attr.c):
 * -1 when the key is not a user key of the object's kind. */
int michi_fortran_attr(int set, int kind, int obj, int keyval, MPI_Aint *val, int *flag);

/* MPI_x_GET_ATTR: the predefined keys through the C call, their values
 * dereferenced; the user keys from the attribute list, as integers. */
static int f_get_attr(int kind, int (*cget)(int, int, void *, int *), MPI_Fint obj,
		      MPI_Fint keyval, MPI_Aint *val, MPI_Fint *flag)
{
	void *v = NULL;
	int fl = 0, pre, key = f_attr_key(keyval, &pre), err = -1;

	if (!pre)
		err = michi_fortran_attr(0, kind, obj, key, val, &fl);
	if (err == -1) {
		err = cget(obj, key, &v, &fl);
		if (err == MPI_SUCCESS && fl)
			*val = attr_value(key, pre, v);
	}
	if (err == MPI_SUCCESS)
		*flag = F_LOGICAL(fl);
	return err;
}

static int f_set_attr(int kind, int (*cset)(int, int, void *), MPI_Fint obj, MPI_Fint keyval,
		      MPI_Aint *val)
{
	int err = michi_fortran_attr(1, kind, obj, keyval, val, NULL);

	return err == -1 ? cset(obj, keyval, (void *)(uintptr_t)*val) : err;
}

#define F_ATTR_SET_GET(kind, KIND, Kind, k) \
F_EXPORT void pmpi_##kind##_set_attr_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr) \
{ \
	F_IERR_OPTIONAL(ierr); \
	*ierr = f_set_attr(k, PMPI_##Kind##_set_attr, *obj, *keyval, val); \
} \
F_ALIASES(kind##_set_attr, KIND##_SET_ATTR) \
F_EXPORT void pmpi_##kind##_get_attr_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, \
				      MPI_Fint *flag, MPI_Fint *ierr) \
{ \
	F_IERR_OPTIONAL(ierr); \
	*ierr = f_get_attr(k, PMPI_##Kind##_get_attr, *obj, *keyval, val, flag); \
} \
F_ALIASES(kind##_get_attr, KIND##_GET_ATTR)

F_ATTR_SET_GET(comm, COMM, Comm, 'c')
F_ATTR_SET_GET(type, TYPE, Type, 't')
F_ATTR_SET_GET(win, WIN, Win, 'w')

/* MPI-1: default INTEGER values */
F_EXPORT void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	MPI_Aint v = *val;

	*ierr = f_set_attr('c', PMPI_Comm_set_attr, *comm, *keyval, &v);
}
F_ALIASES(attr_put, ATTR_PUT)

F_EXPORT void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
			     MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	MPI_Aint v = 0;

	*ierr = f_get_attr('c', PMPI_Comm_get_attr, *comm, *keyval, &v, flag);
	if (*ierr == MPI_SUCCESS && *flag)
		*val = (MPI_Fint)v;
}
F_ALIASES(attr_get, ATTR_GET)

/*
 * The predefined Fortran copy and delete procedures (mpif.h declares them
 * EXTERNAL). MPI_*_DUP_FN copies the value, the NULL copy procedures say
 * "do not copy", the NULL delete procedures do nothing.
 */
#undef MPI_COMM_DUP_FN
#undef MPI_TYPE_DUP_FN
#undef MPI_WIN_DUP_FN
#undef MPI_DUP_FN
#undef MPI_COMM_NULL_COPY_FN
#undef MPI_TYPE_NULL_COPY_FN
#undef MPI_WIN_NULL_COPY_FN
#undef MPI_NULL_COPY_FN
#undef MPI_COMM_NULL_DELETE_FN
#undef MPI_TYPE_NULL_DELETE_FN
#undef MPI_WIN_NULL_DELETE_FN
#undef MPI_NULL_DELETE_FN
#undef MPI_CONVERSION_FN_NULL

#define F_DUP_FN(lc, UC, T) \
F_EXPORT void pmpi_##lc##_(MPI_Fint *obj, MPI_Fint *keyval, T *extra, T *in, T *out, \
			   MPI_Fint *flag, MPI_Fint *ierr) \
{ \
	F_IERR_OPTIONAL(ierr); \
	(void)obj, (void)keyval, (void)extra; \
	*out = *in; \
	*flag = F_TRUE; \
	*ierr = MPI_SUCCESS; \
} \
F_ALIASES(lc, UC)
#define F_NULL_COPY_FN(lc, UC, T) \
F_EXPORT void pmpi_##lc##_(MPI_Fint *obj, MPI_Fint *keyval, T *extra, T *in, T *out, \
			   MPI_Fint *flag, MPI_Fint *ierr) \
{ \
	F_IERR_OPTIONAL(ierr); \
	(void)obj, (void)keyval, (void)extra, (void)in, (void)out; \
	*flag = F_FALSE; \
	*ierr = MPI_SUCCESS; \
} \
F_ALIASES(lc, UC)
#define F_NULL_DELETE_FN(lc, UC, T) \
F_EXPORT void pmpi_##lc##_(MPI_Fint *obj, MPI_Fint *keyval, T *val, T *extra, MPI_Fint *ierr) \
{ \
	F_IERR_OPTIONAL(ierr); \
	(void)obj, (void)keyval, (void)val, (void)extra; \
	*ierr = MPI_SUCCESS; \
} \
F_ALIASES(lc, UC)

F_DUP_FN(comm_dup_fn, COMM_DUP_FN, MPI_Aint)
F_DUP_FN(type_dup_fn, TYPE_DUP_FN, MPI_Aint)
F_DUP_FN(win_dup_fn, WIN_DUP_FN, MPI_Aint)
F_DUP_FN(dup_fn, DUP_FN, MPI_Fint)
F_NULL_COPY_FN(comm_null_copy_fn, COMM_NULL_COPY_FN, MPI_Aint)
F_NULL_COPY_FN(type_null_copy_fn, TYPE_NULL_COPY_FN, MPI_Aint)
F_NULL_COPY_FN(win_null_copy_fn, WIN_NULL_COPY_FN, MPI_Aint)
F_NULL_COPY_FN(null_copy_fn, NULL_COPY_FN, MPI_Fint)
F_NULL_DELETE_FN(comm_null_delete_fn, COMM_NULL_DELETE_FN, MPI_Aint)
F_NULL_DELETE_FN(type_null_delete_fn, TYPE_NULL_DELETE_FN, MPI_Aint)
F_NULL_DELETE_FN(win_null_delete_fn, WIN_NULL_DELETE_FN, MPI_Aint)
F_NULL_DELETE_FN(null_delete_fn, NULL_DELETE_FN, MPI_Fint)

/* MPI_CONVERSION_FN_NULL (mpif.h declares it EXTERNAL): the conversion
 * function that stands for "none" in MPI_REGISTER_DATAREP. */
F_EXPORT void pmpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count,
				       void *filebuf, MPI_Offset *position, MPI_Aint *extra_state,
				       MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	(void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position;
	(void)extra_state;
	*ierr = MPI_SUCCESS;
}
F_ALIASES(conversion_fn_null, CONVERSION_FN_NULL)

/* MPI_F_SYNC_REG(buf) (MPI-3.1 17.1.7): an external call the compiler
 * cannot see into, so that it keeps buf in memory around it; nothing to do. */
F_EXPORT void pmpi_f_sync_reg_(void *buf)
{
	(void)buf;
}
F_ALIASES(f_sync_reg, F_SYNC_REG)

/* ---- generalized requests ------------------------------------------------ */

typedef void f_query_fn(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierr);
typedef void f_free_fn(MPI_Aint *extra, MPI_Fint *ierr);
typedef void f_cancel_fn(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierr);

/* EXTRA_STATE is the program's own variable: the callbacks get its
 * address, so what one stores there the program and the others see (as in
 * MPICH, whose tests rely on it). */
struct f_greq {
	f_query_fn *query;
	f_free_fn *free;
	f_cancel_fn *cancel;
	MPI_Aint *extra;
};

static int f_greq_query(void *extra, MPI_Status *status)
{
	struct f_greq *g = extra;
	MPI_Fint err = MPI_SUCCESS;

	g->query(g->extra, (MPI_Fint *)(void *)status, &err);
	return err;
}

/* MPI calls free_fn once, last: the trampoline's state goes with it. */
static int f_greq_free(void *extra)
{
	struct f_greq *g = extra;
	MPI_Fint err = MPI_SUCCESS;

	g->free(g->extra, &err);
	free(g);
	return err;
}

static int f_greq_cancel(void *extra, int complete)
{
	struct f_greq *g = extra;
	MPI_Fint c = F_LOGICAL(complete), err = MPI_SUCCESS;

	g->cancel(g->extra, &c, &err);
	return err;
}

F_EXPORT void pmpi_grequest_start_(f_query_fn *query_fn, f_free_fn *free_fn, f_cancel_fn *cancel_fn,
				   MPI_Aint *extra_state, MPI_Fint *request, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	struct f_greq *g = malloc(sizeof(*g));

	if (!g) {
		*ierr = michi_f_nomem("MPI_Grequest_start");
		return;
	}
	g->query = query_fn;
	g->free = free_fn;
	g->cancel = cancel_fn;
	g->extra = extra_state;
	*ierr = PMPI_Grequest_start(f_greq_query, f_greq_free, f_greq_cancel, g, request);
	if (*ierr != MPI_SUCCESS)
		free(g);
}
F_ALIASES(grequest_start, GREQUEST_START)

/* ---- one-sided: base addresses as INTEGER(KIND=MPI_ADDRESS_KIND) -------- */

F_EXPORT void pmpi_win_allocate_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
				 MPI_Aint *baseptr, MPI_Fint *win, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	void *p = NULL;

	*ierr = PMPI_Win_allocate(*size, *disp_unit, *info, *comm, &p, win);
	if (*ierr == MPI_SUCCESS)
		*baseptr = (MPI_Aint)(uintptr_t)p;
}
F_ALIASES(win_allocate, WIN_ALLOCATE)

F_EXPORT void pmpi_win_allocate_shared_(MPI_Aint *size, MPI_Fint *disp_unit, MPI_Fint *info,
					MPI_Fint *comm, MPI_Aint *baseptr, MPI_Fint *win, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	void *p = NULL;

	*ierr = PMPI_Win_allocate_shared(*size, *disp_unit, *info, *comm, &p, win);
	if (*ierr == MPI_SUCCESS)
		*baseptr = (MPI_Aint)(uintptr_t)p;
}
F_ALIASES(win_allocate_shared, WIN_ALLOCATE_SHARED)

F_EXPORT void pmpi_win_shared_query_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size,
				     MPI_Fint *disp_unit, MPI_Aint *baseptr, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	void *p = NULL;

	*ierr = PMPI_Win_shared_query(*win, *rank, size, disp_unit, &p);
	if (*ierr == MPI_SUCCESS)
		*baseptr = (MPI_Aint)(uintptr_t)p;
}
F_ALIASES(win_shared_query, WIN_SHARED_QUERY)

/* The large-count forms: DISP_UNIT an INTEGER(KIND=MPI_ADDRESS_KIND). */
F_EXPORT void pmpi_win_allocate_c_(MPI_Aint *size, MPI_Aint *disp_unit, MPI_Fint *info, MPI_Fint *comm,
				   MPI_Aint *baseptr, MPI_Fint *win, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	void *p = NULL;

	*ierr = PMPI_Win_allocate_c(*size, *disp_unit, *info, *comm, &p, win);
	if (*ierr == MPI_SUCCESS)
		*baseptr = (MPI_Aint)(uintptr_t)p;
}
F_ALIASES(win_allocate_c, WIN_ALLOCATE_C)

F_EXPORT void pmpi_win_allocate_shared_c_(MPI_Aint *size, MPI_Aint *disp_unit, MPI_Fint *info,
					  MPI_Fint *comm, MPI_Aint *baseptr, MPI_Fint *win, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	void *p = NULL;

	*ierr = PMPI_Win_allocate_shared_c(*size, *disp_unit, *info, *comm, &p, win);
	if (*ierr == MPI_SUCCESS)
		*baseptr = (MPI_Aint)(uintptr_t)p;
}
F_ALIASES(win_allocate_shared_c, WIN_ALLOCATE_SHARED_C)

F_EXPORT void pmpi_win_shared_query_c_(MPI_Fint *win, MPI_Fint *rank, MPI_Aint *size,
				       MPI_Aint *disp_unit, MPI_Aint *baseptr, MPI_Fint *ierr)
{
	F_IERR_OPTIONAL(ierr);
	void *p = NULL;

	*ierr = PMPI_Win_shared_query_c(*win, *rank, size, disp_unit, &p);
	if (*ierr == MPI_SUCCESS)
		*baseptr = (MPI_Aint)(uintptr_t)p;
}
F_ALIASES(win_shared_query_c, WIN_SHARED_QUERY_C)

/* ---- process creation --------------------------------------------------- */

/*
 * Fortran's argument lists are CHARACTER*(*) arrays, each entry len
 * characters, ended by an entry of blanks; MPI_COMM_SPAWN_MULTIPLE's is
 * a 2-d ARRAY_OF_ARGV(COUNT, *) in column order, so command i's
 * argument j is entry i + j * count. f_argv makes the C NULL-terminated
 * list of strings starting at entry 0 of base with that stride (NULL
 * with *bad set when out of memory); f_argv_free frees it.
 */
static char **f_argv(const char *base, size_t len, size_t stride, int *bad)
{
	size_t n = 0, i, k;
	char **v;

	for (;; n++) {
		const char *e = base + n * stride * len;

		for (k = 0; k < len && e[k] == ' '; k++)
			;
		if (k == len)
			break;
	}
	v = calloc(n + 1, sizeof(char *));
	if (!v) {
		*bad = 1;
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (!(v[i] = michi_f_str_in(base + i * stride * len, len)))
			*bad = 1;
	return v;
}

static void f_argv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

F_EXPORT void pmpi_comm_spawn_(char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
			       MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
			       MPI_Fint *errcodes, MPI_Fint *ierr, size_t command_len, size_t argv_len)
{
	char *cmd, **v = NULL;
	int bad = 0;

	F_IERR_OPTIONAL(ierr);
	cmd = michi_f_str_in(command, command_len);
	if (argv != &mpiprivc_.argv_null)
		v = f_argv(argv, argv_len, 1, &bad);
	if (!cmd || bad)
		*ierr = michi_f_nomem("MPI_Comm_spawn");
	else
		*ierr = PMPI_Comm_spawn(cmd, v, *maxprocs, *info, *root, *comm, intercomm,
					F_ERRCODES(errcodes));
	free(cmd);
	f_argv_free(v);
}
F_ALIASES(comm_spawn, COMM_SPAWN)

F_EXPORT void pmpi_comm_spawn_multiple_(MPI_Fint *count, char *commands, char *argvs,
					MPI_Fint *maxprocs, MPI_Fint *infos, MPI_Fint *root,
					MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *errcodes,
					MPI_Fint *ierr, size_t commands_len, size_t argvs_len)
{
	int n = *count > 0 ? *count : 0, bad = 0, i;
	char **cmds = calloc((size_t)n + 1, sizeof(char *));
	char ***v = argvs == &mpiprivc_.argvs_null ? NULL : calloc((size_t)n + 1, sizeof(char **));

	F_IERR_OPTIONAL(ierr);
	bad = !cmds || (argvs != &mpiprivc_.argvs_null && !v);
	for (i = 0; !bad && i < n; i++) {
		if (!(cmds[i] = michi_f_str_in(commands + (size_t)i * commands_len, commands_len)))
			bad = 1;
		if (v)
			v[i] = f_argv(argvs + (size_t)i * argvs_len, argvs_len, (size_t)n, &bad);
	}
	if (bad)
		*ierr = michi_f_nomem("MPI_Comm_spawn_multiple");
	else
		*ierr = PMPI_Comm_spawn_multiple(*count, cmds, v, maxprocs, infos, *root, *comm,
						 intercomm, F_ERRCODES(errcodes));
	for (i = 0; i < n; i++) {
		if (cmds)
			free(cmds[i]);
		if (v)
			f_argv_free(v[i]);
	}
	free(cmds);
	free(v);
}
F_ALIASES(comm_spawn_multiple, COMM_SPAWN_MULTIPLE)

/* ---- not implemented in C yet ------------------------------------------- */

/* User data representations have no C implementation yet (docs/status.md's
 * status table): this wrapper calls the C stub, which reports
 * MPI_ERR_UNSUPPORTED_OPERATION naming the function. When the C call is
 * implemented, it must convert the conversion callbacks. */

F_EXPORT void pmpi_register_datarep_(char *datarep, void *read_fn, void *write_fn, void *extent_fn,
				     MPI_Aint *extra_state, MPI_Fint *ierr, size_t datarep_len)
{
	F_IERR_OPTIONAL(ierr);
	(void)datarep, (void)read_fn, (void)write_fn, (void)extent_fn, (void)extra_state;
	(void)datarep_len;
	*ierr = PMPI_Register_datarep(NULL, NULL, NULL, NULL, NULL);
}
F_ALIASES(register_datarep, REGISTER_DATAREP)

F_EXPORT void pmpi_register_datarep_c_(char *datarep, void *read_fn, void *write_fn, void *extent_fn,
				       MPI_Aint *extra_state, MPI_Fint *ierr, size_t datarep_len)
{
	F_IERR_OPTIONAL(ierr);
	(void)datarep, (void)read_fn, (void)write_fn, (void)extent_fn, (void)extra_state;
	(void)datarep_len;
	*ierr = PMPI_Register_datarep_c(NULL, NULL, NULL, NULL, NULL);
}
F_ALIASES(register_datarep_c, REGISTER_DATAREP_C)
