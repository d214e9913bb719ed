/* SPDX-License-Identifier: MIT */
/*
 * Attributes: keys with copy and delete callbacks on communicators
 * (MPI_COMM_DUP_FN copies, MPI_COMM_NULL_COPY_FN does not, a user copy
 * callback changes the value), replacing and deleting run the delete
 * callback, a freed key keeps its attributes until they go, the MPI-1
 * names, attributes on datatypes (predefined ones too), the predefined
 * attributes still answer, and attributes on MPI_COMM_SELF are deleted
 * at the start of MPI_Finalize, newest first.
 */
#include <stdint.h>
#include <stdio.h>

#include "mtest.h"

static int deleted[16], ndeleted;
static int self_order[2], nself;

static int del_count(MPI_Comm comm, int keyval, void *val, void *extra)
{
	(void)comm;
	(void)keyval;
	(void)extra;
	if (ndeleted < 16)
		deleted[ndeleted++] = (int)(intptr_t)val;
	return MPI_SUCCESS;
}

static int copy_plus(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
	(void)old;
	(void)keyval;
	*(void **)out = (void *)((intptr_t)in + (intptr_t)extra);
	*flag = 1;
	return MPI_SUCCESS;
}

static int del_self(MPI_Comm comm, int keyval, void *val, void *extra)
{
	int initialized = 0;

	(void)comm;
	(void)keyval;
	(void)extra;
	MPI_Initialized(&initialized);   /* MPI still usable here */
	if (nself < 2 && initialized)
		self_order[nself++] = (int)(intptr_t)val;
	return MPI_SUCCESS;
}

static int type_del(MPI_Datatype t, int keyval, void *val, void *extra)
{
	(void)t;
	(void)keyval;
	(void)extra;
	if (ndeleted < 16)
		deleted[ndeleted++] = (int)(intptr_t)val;
	return MPI_SUCCESS;
}

static void test_comm(void)
{
	int kdup, knull, kplus, kold, flag, *tagub;
	void *v;
	MPI_Comm d;

	MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_count, &kdup, NULL);
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_count, &knull, NULL);
	MPI_Comm_create_keyval(copy_plus, del_count, &kplus, (void *)(intptr_t)100);
	MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, (void *)(intptr_t)1);
	MPI_Comm_set_attr(MPI_COMM_WORLD, knull, (void *)(intptr_t)2);
	MPI_Comm_set_attr(MPI_COMM_WORLD, kplus, (void *)(intptr_t)3);
	MPI_Comm_get_attr(MPI_COMM_WORLD, knull, &v, &flag);
	mtest_check(flag && (intptr_t)v == 2, "get: flag %d value %ld", flag, (long)(intptr_t)v);
	MPI_Comm_dup(MPI_COMM_WORLD, &d);
	MPI_Comm_get_attr(d, kdup, &v, &flag);
	mtest_check(flag && (intptr_t)v == 1, "MPI_COMM_DUP_FN: flag %d value %ld", flag,
		    (long)(intptr_t)v);
	MPI_Comm_get_attr(d, knull, &v, &flag);
	mtest_check(!flag, "MPI_COMM_NULL_COPY_FN copied the attribute");
	MPI_Comm_get_attr(d, kplus, &v, &flag);
	mtest_check(flag && (intptr_t)v == 103, "user copy gave %ld", (long)(intptr_t)v);
	/* replacing runs the delete callback on the old value */
	ndeleted = 0;
	MPI_Comm_set_attr(d, kdup, (void *)(intptr_t)7);
	mtest_check(ndeleted == 1 && deleted[0] == 1, "replace: %d deletions", ndeleted);
	/* a freed key: its attributes stay until deleted with the object */
	MPI_Comm_free_keyval(&kplus);
	mtest_check(kplus == MPI_KEYVAL_INVALID, "free_keyval left the handle");
	ndeleted = 0;
	MPI_Comm_free(&d);
	mtest_check(ndeleted == 2, "free of the dup deleted %d attributes, want 2", ndeleted);
	if (ndeleted == 2)
		mtest_check(deleted[0] + deleted[1] == 7 + 103, "deleted values %d %d", deleted[0],
			    deleted[1]);
	ndeleted = 0;
	MPI_Comm_delete_attr(MPI_COMM_WORLD, knull);
	mtest_check(ndeleted == 1 && deleted[0] == 2, "delete_attr: %d", ndeleted);
	MPI_Comm_get_attr(MPI_COMM_WORLD, knull, &v, &flag);
	mtest_check(!flag, "deleted attribute still there");
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagub, &flag);
	mtest_check(flag && *tagub >= 32767, "MPI_TAG_UB %d", flag ? *tagub : -1);
	/* the MPI-1 names */
	MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kold, NULL);
	MPI_Attr_put(MPI_COMM_WORLD, kold, (void *)(intptr_t)42);
	MPI_Attr_get(MPI_COMM_WORLD, kold, &v, &flag);
	mtest_check(flag && (intptr_t)v == 42, "Attr_get %ld", (long)(intptr_t)v);
	MPI_Attr_delete(MPI_COMM_WORLD, kold);
	MPI_Keyval_free(&kold);
	MPI_Comm_delete_attr(MPI_COMM_WORLD, kdup);
	MPI_Comm_free_keyval(&kdup);
	MPI_Comm_free_keyval(&knull);
}

static void test_type(void)
{
	int k, flag;
	void *v;

	MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_del, &k, NULL);
	MPI_Type_set_attr(MPI_INT, k, (void *)(intptr_t)5);
	MPI_Type_get_attr(MPI_INT, k, &v, &flag);
	mtest_check(flag && (intptr_t)v == 5, "type attr %ld", (long)(intptr_t)v);
	MPI_Type_get_attr(MPI_DOUBLE, k, &v, &flag);
	mtest_check(!flag, "attribute on MPI_DOUBLE it was not set on");
	ndeleted = 0;
	MPI_Type_delete_attr(MPI_INT, k);
	mtest_check(ndeleted == 1 && deleted[0] == 5, "type delete callback: %d", ndeleted);
	MPI_Type_free_keyval(&k);
}

/* A freed key still serves the attributes that use it (MPI-3.1 6.7.2):
 * they can be deleted through a saved copy of the handle, whose delete
 * callback runs, and the handle freed again from that callback is no
 * error (MPICH's attr/fkeyval and keyval_double_free do both). */
static int nfree_cb;

static int del_frees_key(MPI_Comm comm, int key, void *val, void *extra)
{
	(void)comm;
	(void)val;
	(void)extra;
	nfree_cb++;
	return MPI_Comm_free_keyval(&key);
}

static void test_freed_key(void)
{
	MPI_Comm d;
	int key, saved, err;

	MPI_Comm_dup(MPI_COMM_WORLD, &d);
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_frees_key, &key, NULL);
	saved = key;
	MPI_Comm_set_attr(d, key, (void *)(intptr_t)9);
	MPI_Comm_free_keyval(&key);
	err = MPI_Comm_delete_attr(d, saved);
	mtest_check(err == MPI_SUCCESS && nfree_cb == 1,
		    "delete through a freed key: error %d, callback ran %d times", err, nfree_cb);
	MPI_Comm_free(&d);
}

int main(int argc, char **argv)
{
	int k1, k2, rc;

	mtest_init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	test_comm();
	test_type();
	test_freed_key();
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_self, &k1, NULL);
	MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_self, &k2, NULL);
	MPI_Comm_set_attr(MPI_COMM_SELF, k1, (void *)(intptr_t)1);
	MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void *)(intptr_t)2);
	rc = mtest_finalize();
	if (nself != 2 || self_order[0] != 2 || self_order[1] != 1) {
		fprintf(stderr, "MPI_COMM_SELF attributes deleted %d times, order %d %d "
			"(want 2 then 1)\n", nself, self_order[0], self_order[1]);
		return 1;
	}
	return rc;
}
