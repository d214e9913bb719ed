/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_mtmi_self.c: MTMI over the real self device, which
 * delivers synchronously from inside send(): every protocol step (CTS,
 * DATA, SYNC_ACK, CANCEL_ACK) then runs nested in the call that caused
 * it, and the engine must have its state in place before each send.
 */
#include "config.h"
#include "device.h"
#include "mtmi.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

extern struct michi_device michi_device_self MICHI_HIDDEN;   /* devices/self/self.c */

static struct michi_device *self_table[1] = { &michi_device_self };
struct michi_wait_policy michi_wait = { .spin = 1000, .yield = 100, .block_ms = 10 };
struct michi_device **michi_dev_for_peer = self_table;

int michi_devices_progress(void)
{
	return 0;
}

void michi_devices_block(int timeout_ms)
{
	(void)timeout_ms;
}

/* frames in this fake are on the wire at once: none wait in a device */
size_t michi_devices_pending(void)
{
	return 0;
}

/* byte devices only: MTMI runs its own queues */
const struct michi_tag_ops *michi_devices_tagged(void)
{
	return NULL;
}

#define BIG (1 << 18)
static unsigned char *sbuf, *rbuf;

static void setup(void)
{
	struct michi_job job;
	int i;

	memset(&job, 0, sizeof(job));
	job.size = 1;
	job.local_size = 1;
	job.up = &mtmi_upcalls;
	ck_assert_int_eq(michi_device_self.init(&job), 0);
	ck_assert_int_eq(mtmi_init(&job), 0);
	sbuf = malloc(BIG);
	rbuf = malloc(BIG);
	for (i = 0; i < BIG; i++)
		sbuf[i] = (unsigned char)(i * 13 + 1);
	memset(rbuf, 0, BIG);
}

static void teardown(void)
{
	mtmi_finalize();
	mtmi_release();
	michi_device_self.finalize();
	free(sbuf);
	free(rbuf);
}

static void one(size_t len, size_t cap, int posted_first, int mode)
{
	struct mtmi_req s = {0}, r = {0};

	memset(rbuf, 0, BIG);
	if (posted_first)
		ck_assert_int_eq(mtmi_irecv(rbuf, cap, 0, 0, 1, 0, &r), MICHI_INPROGRESS);
	ck_assert_int_ge(mtmi_isend(sbuf, len, 0, 0, 1, 0, mode, &s), 0);
	if (!posted_first)
		ck_assert_int_ge(mtmi_irecv(rbuf, cap, 0, 0, 1, 0, &r), 0);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(s.done, 1);
	ck_assert_int_eq(s.error, 0);
	ck_assert_int_eq(r.error, len > cap ? MICHI_ERR_TRUNCATE : 0);
	ck_assert_uint_eq(r.count, len < cap ? len : cap);
	ck_assert_int_eq(memcmp(rbuf, sbuf, r.count), 0);
}

START_TEST(all_protocols_nested)
{
	size_t lim = michi_device_self.eager_limit;
	int mode;

	for (mode = 0; mode <= 2; mode++) {
		one(0, 0, 1, mode);
		one(8, 8, 1, mode);
		one(lim, lim, 1, mode);
		one(lim + 1, lim + 1, 1, mode);
		one(lim + 1, 100, 1, mode);
		one(BIG, BIG, 1, mode);
		one(500, 100, 1, mode);
	}
	/* unexpected first: standard eager only (a sync or rendezvous send
	 * to self completes only once the receive is posted) */
	one(8, 8, 0, MTMI_MODE_STANDARD);
	one(lim, 10, 0, MTMI_MODE_STANDARD);
}
END_TEST

START_TEST(rendezvous_and_sync_wait_for_receive)
{
	struct mtmi_req s = {0}, s2 = {0}, r = {0};
	size_t lim = michi_device_self.eager_limit;

	ck_assert_int_eq(mtmi_isend(sbuf, lim + 5, 0, 0, 2, 0, MTMI_MODE_STANDARD, &s),
			 MICHI_INPROGRESS);
	ck_assert_int_eq(mtmi_isend(sbuf, 5, 0, 0, 2, 0, MTMI_MODE_SYNC, &s2),
			 MICHI_INPROGRESS);
	ck_assert_int_eq(mtmi_irecv(rbuf, BIG, 0, 0, 2, 0, &r), MICHI_OK);
	ck_assert_int_eq(s.done, 1);
	ck_assert_uint_eq(r.count, lim + 5);
	ck_assert_int_eq(s2.done, 0);
	ck_assert_int_eq(mtmi_irecv(rbuf, BIG, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE,
				    MTMI_ANY_TAG, 0, &r), MICHI_OK);
	ck_assert_int_eq(s2.done, 1);
	ck_assert_uint_eq(r.count, 5);
	/* cancel of an unmatched rendezvous answers inside the call */
	ck_assert_int_eq(mtmi_isend(sbuf, lim + 5, 0, 0, 3, 0, MTMI_MODE_STANDARD, &s),
			 MICHI_INPROGRESS);
	mtmi_cancel(&s);
	ck_assert_int_eq(s.done, 1);
	ck_assert_int_eq(s.cancelled, 1);
	ck_assert_int_eq(mtmi_irecv(rbuf, BIG, 0, 0, 3, 0, &r), MICHI_INPROGRESS);
	mtmi_cancel(&r);
	ck_assert_int_eq(r.cancelled, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mtmi_self");
	TCase *tc = tcase_create("self");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, all_protocols_nested);
	tcase_add_test(tc, rendezvous_and_sync_wait_for_receive);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
