/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_slab.c: the object arena, slabs and handles
 * (mpi/env/arena.c, mpi/mpiimpl.h): handle layout, one-OR decoding, O(1)
 * reuse, and that validation rejects every kind of bad handle without
 * touching unmapped memory.
 */
#include "mpiimpl.h"

#include <check.h>
#include <stdlib.h>

/* The MPI core's globals that mpiimpl.h's inline functions refer to. */
struct michi_state michi_state;
struct michi_comm michi_comm_world, michi_comm_self;
uint64_t michi_dt_valid[1024];

static void setup(void)
{
	ck_assert_int_eq(michi_arena_init(), MICHI_OK);
}

START_TEST(test_handle_layout)
{
	int k;

	for (k = 0; k < MICHI_KIND_MAX; k++) {
		void *p;
		uint32_t h;

		if (k == MICHI_KIND_RESERVED || michi_slabs[k].objsize == 0)
			continue;
		p = michi_obj_alloc(k);
		ck_assert_ptr_nonnull(p);
		h = michi_p2h(p);
		ck_assert_uint_ne(h & MICHI_HANDLE_USER, 0);
		ck_assert_uint_eq((h >> MICHI_REGION_SHIFT) & 0xf, (unsigned)k);
		ck_assert_ptr_eq(michi_h2p(h), p);
		ck_assert_ptr_eq(michi_obj_check(h, k), p);
		/* never collides with MPICH's pair datatypes 0x8c000000.. */
		ck_assert(h < 0x88000000u || h >= 0x90000000u);
		michi_obj_free(k, p);
	}
}
END_TEST

START_TEST(test_lifo_reuse)
{
	void *a = michi_obj_alloc(MICHI_KIND_REQUEST);
	void *b = michi_obj_alloc(MICHI_KIND_REQUEST);

	ck_assert_ptr_ne(a, b);
	michi_obj_free(MICHI_KIND_REQUEST, a);
	michi_obj_free(MICHI_KIND_REQUEST, b);
	/* the free stack hands back the last freed object first */
	ck_assert_ptr_eq(michi_obj_alloc(MICHI_KIND_REQUEST), b);
	ck_assert_ptr_eq(michi_obj_alloc(MICHI_KIND_REQUEST), a);
	michi_obj_free(MICHI_KIND_REQUEST, a);
	michi_obj_free(MICHI_KIND_REQUEST, b);
}
END_TEST

START_TEST(test_many_objects)
{
	enum { N = 100000 };
	void **v = malloc(N * sizeof(*v));
	char *bump;
	int i;

	for (i = 0; i < N; i++) {
		v[i] = michi_obj_alloc(MICHI_KIND_REQUEST);
		ck_assert_ptr_nonnull(v[i]);
		memset((char *)v[i] + sizeof(struct michi_obj), 0xab,
		       michi_slabs[MICHI_KIND_REQUEST].objsize - sizeof(struct michi_obj));
	}
	for (i = 0; i < N; i++)
		ck_assert_ptr_eq(michi_obj_check(michi_p2h(v[i]), MICHI_KIND_REQUEST), v[i]);
	for (i = 0; i < N; i++)
		michi_obj_free(MICHI_KIND_REQUEST, v[i]);
	/* a second round reuses the freed objects: the slab does not grow */
	bump = michi_slabs[MICHI_KIND_REQUEST].bump;
	for (i = 0; i < N; i++)
		ck_assert_ptr_nonnull(v[i] = michi_obj_alloc(MICHI_KIND_REQUEST));
	ck_assert_ptr_eq(michi_slabs[MICHI_KIND_REQUEST].bump, bump);
	for (i = 0; i < N; i++)
		michi_obj_free(MICHI_KIND_REQUEST, v[i]);
	free(v);
}
END_TEST

START_TEST(test_bad_handles)
{
	void *p = michi_obj_alloc(MICHI_KIND_COMM);
	uint32_t h = michi_p2h(p);
	uint32_t garbage[] = {
		0, 1, 0x12345678, 0x44000000, 0x4c000405, 0x8c000001, 0xffffffff,
		0x80000000, 0x7fffffff, 0x90000000, 0xa0000000,
		/* in the comm region but beyond anything allocated */
		(MICHI_HANDLE_USER | (MICHI_KIND_COMM << MICHI_REGION_SHIFT)) + 0x07fff000,
	};
	size_t i;

	for (i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++)
		ck_assert_ptr_null(michi_obj_check(garbage[i], MICHI_KIND_COMM));
	/* right region, wrong kind asked for */
	ck_assert_ptr_null(michi_obj_check(h, MICHI_KIND_REQUEST));
	/* misaligned inside a live object */
	ck_assert_ptr_null(michi_obj_check(h + 8, MICHI_KIND_COMM));
	ck_assert_ptr_eq(michi_obj_check(h, MICHI_KIND_COMM), p);
	/* a freed object's handle is stale */
	michi_obj_free(MICHI_KIND_COMM, p);
	ck_assert_ptr_null(michi_obj_check(h, MICHI_KIND_COMM));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("slab");
	TCase *tc = tcase_create("arena");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_handle_layout);
	tcase_add_test(tc, test_lifo_reuse);
	tcase_add_test(tc, test_many_objects);
	tcase_add_test(tc, test_bad_handles);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
