/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_mtmi_native.c: MTMI's native backend (mtmi_native.h)
 * over a fake matching device that matches 64-bit tags in process, as
 * libfabric and UCX do: posted receives and unexpected messages in
 * order, ignore masks, truncation to the receive's capacity, cancel,
 * probe and claim. It checks what MTMI adds on top: the packing of
 * (context, source rank, tag) into the match tag and back into the
 * request's status, wildcards as ignored bits, completion and errors.
 */
#include "config.h"
#include "device.h"
#include "mtmi.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct michi_wait_policy michi_wait = { .spin = 1000, .yield = 100, .block_ms = 10 };
static struct michi_device *fake_table[4];
struct michi_device **michi_dev_for_peer = fake_table;

/* ---- the fake matching device ----------------------------------------- */

#define FAKE_MAX 64
struct fake_msg {
	int used;
	uint64_t tag;
	size_t len;
	char data[256];
	int sync;
	void *send_ctx;        /* sync: the sender's operation, done on match */
};
struct fake_recv {
	int used;
	uint64_t tag, ignore;
	void *buf;
	size_t cap;
	void *ctx;
};
static struct fake_msg unexp[FAKE_MAX];       /* in arrival order */
static struct fake_recv posted[FAKE_MAX];     /* in posting order */
static int n_unexp, n_posted;
static unsigned fake_sends, fake_recvs;        /* calls into the fake */
/* completions the fake reports from progress, as real devices do */
static struct { void *ctx; michi_status_t st; uint64_t tag; size_t len; } done_q[FAKE_MAX];
static int n_done;

static int tag_matches(uint64_t want, uint64_t ignore, uint64_t got)
{
	return ((want ^ got) & ~ignore) == 0;
}

static void deliver(struct fake_recv *r, struct fake_msg *m)
{
	size_t n = m->len < r->cap ? m->len : r->cap;

	memcpy(r->buf, m->data, n);
	done_q[n_done].ctx = r->ctx;
	done_q[n_done].st = m->len > r->cap ? MICHI_ERR_TRUNCATE : MICHI_OK;
	done_q[n_done].tag = m->tag;
	done_q[n_done].len = n;
	n_done++;
	if (m->sync) {
		done_q[n_done].ctx = m->send_ctx;
		done_q[n_done].st = MICHI_OK;
		done_q[n_done].tag = 0;
		done_q[n_done].len = 0;
		n_done++;
	}
}

static michi_status_t fake_send(int peer, const void *buf, size_t len, uint64_t tag, int sync,
				void *ctx)
{
	struct fake_msg m = { .used = 1, .tag = tag, .len = len, .sync = sync, .send_ctx = ctx };
	int i;

	(void)peer;
	fake_sends++;
	ck_assert(!(tag & MICHI_TAG_DEVICE_BIT));
	ck_assert_uint_le(len, sizeof(m.data));
	memcpy(m.data, buf, len);
	for (i = 0; i < n_posted; i++)
		if (tag_matches(posted[i].tag, posted[i].ignore, tag)) {
			deliver(&posted[i], &m);
			memmove(&posted[i], &posted[i + 1], (size_t)(n_posted - i - 1) * sizeof(*posted));
			n_posted--;
			return sync ? MICHI_INPROGRESS : MICHI_OK;
		}
	unexp[n_unexp++] = m;
	return sync ? MICHI_INPROGRESS : MICHI_OK;
}

static michi_status_t fake_recv(int peer, void *buf, size_t len, uint64_t tag, uint64_t ignore,
				void *ctx)
{
	struct fake_recv r = { 1, tag, ignore, buf, len, ctx };
	int i;

	(void)peer;
	fake_recvs++;
	ck_assert(!(ignore & MICHI_TAG_DEVICE_BIT));
	for (i = 0; i < n_unexp; i++)
		if (tag_matches(tag, ignore, unexp[i].tag)) {
			deliver(&r, &unexp[i]);
			memmove(&unexp[i], &unexp[i + 1], (size_t)(n_unexp - i - 1) * sizeof(*unexp));
			n_unexp--;
			return MICHI_OK;
		}
	posted[n_posted++] = r;
	return MICHI_OK;
}

static int fake_probe(int peer, uint64_t tag, uint64_t ignore, int claim, uint64_t *tag_out,
		      size_t *len_out, void **msg)
{
	int i;

	(void)peer;
	for (i = 0; i < n_unexp; i++)
		if (tag_matches(tag, ignore, unexp[i].tag)) {
			*tag_out = unexp[i].tag;
			*len_out = unexp[i].len;
			if (claim) {
				struct fake_msg *m = malloc(sizeof(*m));

				*m = unexp[i];
				memmove(&unexp[i], &unexp[i + 1],
					(size_t)(n_unexp - i - 1) * sizeof(*unexp));
				n_unexp--;
				*msg = m;
			}
			return 1;
		}
	return 0;
}

static michi_status_t fake_mrecv(void *msg, void *buf, size_t len, void *ctx)
{
	struct fake_recv r = { 1, 0, 0, buf, len, ctx };

	deliver(&r, msg);
	free(msg);
	return MICHI_OK;
}

static michi_status_t fake_cancel(void *ctx)
{
	int i;

	for (i = 0; i < n_posted; i++)
		if (posted[i].ctx == ctx) {
			memmove(&posted[i], &posted[i + 1], (size_t)(n_posted - i - 1) * sizeof(*posted));
			n_posted--;
			done_q[n_done].ctx = ctx;
			done_q[n_done].st = MICHI_ERR_CANCELLED;
			n_done++;
			return MICHI_OK;
		}
	return MICHI_OK;
}

static const struct michi_tag_ops fake_ops = {
	.send = fake_send, .recv = fake_recv, .probe = fake_probe,
	.mrecv = fake_mrecv, .cancel = fake_cancel,
};

const struct michi_tag_ops *michi_devices_tagged(void)
{
	return &fake_ops;
}

int michi_devices_progress(void)
{
	int i, n = n_done;

	for (i = 0; i < n; i++)
		mtmi_dev_tag_done(done_q[i].ctx, done_q[i].st, done_q[i].tag, done_q[i].len);
	n_done = 0;
	return n;
}

void michi_devices_block(int timeout_ms)
{
	(void)timeout_ms;
}

size_t michi_devices_pending(void)
{
	return 0;
}

/* ---- tests --------------------------------------------------------------- */

static void setup(void)
{
	struct michi_job job;

	memset(&job, 0, sizeof(job));
	job.size = 4;
	job.local_size = 4;
	n_unexp = n_posted = n_done = 0;
	ck_assert_int_eq(mtmi_init(&job), 0);
}

static void teardown(void)
{
	mtmi_finalize();
	mtmi_release();
}

/* Every field survives the match tag: the largest tag, a large source
 * rank, the largest context, received through both wildcards. */
START_TEST(status_from_tag)
{
	struct mtmi_req s, r;
	char out[8] = "payload", in[8] = "";

	s.on_complete = r.on_complete = NULL;
	ck_assert_int_eq(mtmi_irecv(in, sizeof(in), MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, MTMI_ANY_TAG,
				    4095, &r), MICHI_INPROGRESS);
	ck_assert_int_eq(mtmi_isend(out, sizeof(out), 1, 524287, 0x7fffffff, 4095,
				    MTMI_MODE_STANDARD, &s), MICHI_OK);
	ck_assert(s.done && s.error == 0 && s.count == sizeof(out));
	ck_assert_int_eq(mtmi_wait(&r), 0);
	ck_assert_int_eq(r.source, 524287);
	ck_assert_int_eq(r.tag, 0x7fffffff);
	ck_assert_uint_eq(r.count, sizeof(out));
	ck_assert_int_eq(r.cancelled, 0);
	ck_assert_str_eq(in, "payload");
}
END_TEST

/* A receive matches only its context, source and tag; wildcards widen
 * only the field they stand for. */
START_TEST(fields_match_separately)
{
	struct mtmi_req s[4], r[3];
	int v[4] = { 10, 11, 12, 13 }, got[3] = { 0, 0, 0 }, i;

	for (i = 0; i < 4; i++)
		s[i].on_complete = NULL;
	for (i = 0; i < 3; i++)
		r[i].on_complete = NULL;
	/* ctx 6, source 2, tag 7 */
	ck_assert_int_ge(mtmi_irecv(&got[0], sizeof(int), 0, 2, 7, 6, &r[0]), 0);
	/* ctx 6, any source, tag 8 */
	ck_assert_int_ge(mtmi_irecv(&got[1], sizeof(int), MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, 8, 6,
				    &r[1]), 0);
	/* ctx 8, source 3, any tag */
	ck_assert_int_ge(mtmi_irecv(&got[2], sizeof(int), 0, 3, MTMI_ANY_TAG, 8, &r[2]), 0);
	/* none of these match any receive: other context, source or tag */
	ck_assert_int_ge(mtmi_isend(&v[0], sizeof(int), 0, 2, 7, 8, 0, &s[0]), 0);
	ck_assert_int_ge(mtmi_isend(&v[1], sizeof(int), 0, 1, 7, 6, 0, &s[1]), 0);
	mtmi_progress();
	ck_assert(!r[0].done && !r[1].done && !r[2].done);
	/* now each receive's own */
	ck_assert_int_ge(mtmi_isend(&v[2], sizeof(int), 0, 5, 8, 6, 0, &s[2]), 0);
	ck_assert_int_ge(mtmi_isend(&v[3], sizeof(int), 0, 2, 7, 6, 0, &s[3]), 0);
	mtmi_wait(&r[0]);
	mtmi_wait(&r[1]);
	ck_assert_int_eq(got[0], 13);
	ck_assert_int_eq(got[1], 12);
	ck_assert_int_eq(r[1].source, 5);
	ck_assert(!r[2].done);
	/* the earlier ctx-8 message from source 2 is not for source 3 */
	ck_assert_int_eq(mtmi_cancel(&r[2]), 0);
	mtmi_wait(&r[2]);
	ck_assert_int_eq(r[2].cancelled, 1);
	ck_assert_int_eq(r[2].error, 0);
	ck_assert_int_eq(r[2].source, MTMI_ANY_SOURCE);
	ck_assert_int_eq(r[2].tag, MTMI_ANY_TAG);
}
END_TEST

/* The library's own calls use negative tags (communicator creation):
 * each matches only itself, and none is a wildcard. */
START_TEST(negative_tags)
{
	struct mtmi_req s[2], r[2];
	int v[2] = { 7, 8 }, got[2] = { 0, 0 };

	s[0].on_complete = s[1].on_complete = r[0].on_complete = r[1].on_complete = NULL;
	ck_assert_int_ge(mtmi_irecv(&got[0], sizeof(int), 0, 1, -3228, 1, &r[0]), 0);
	ck_assert_int_ge(mtmi_irecv(&got[1], sizeof(int), 0, 1, 0x7ffff364, 1, &r[1]), 0);
	/* the same low 31 bits as -3228: for the second receive only */
	ck_assert_int_ge(mtmi_isend(&v[1], sizeof(int), 0, 1, 0x7ffff364, 1, 0, &s[1]), 0);
	ck_assert_int_ge(mtmi_isend(&v[0], sizeof(int), 0, 1, -3228, 1, 0, &s[0]), 0);
	mtmi_wait(&r[0]);
	mtmi_wait(&r[1]);
	ck_assert_int_eq(got[0], 7);
	ck_assert_int_eq(r[0].tag, -3228);
	ck_assert_int_eq(r[0].source, 1);
	ck_assert_int_eq(got[1], 8);
	ck_assert_int_eq(r[1].tag, 0x7ffff364);
}
END_TEST

/* A library that reports no length for a truncated receive (libfabric's
 * shm): the count is the receive's capacity. */
START_TEST(truncation_unknown_length)
{
	struct mtmi_req r;
	char in[16];

	r.on_complete = NULL;
	ck_assert_int_ge(mtmi_irecv(in, sizeof(in), 0, 0, 4, 0, &r), 0);
	ck_assert_int_eq(n_posted, 1);
	n_posted = 0;
	mtmi_dev_tag_done(r.dev_ctx, MICHI_ERR_TRUNCATE, mtmi_native_tag(0, 0, 4), SIZE_MAX);
	ck_assert(r.done);
	ck_assert_int_eq(r.error, MICHI_ERR_TRUNCATE);
	ck_assert_uint_eq(r.count, sizeof(in));
}
END_TEST

START_TEST(truncation)
{
	struct mtmi_req s, r;
	char out[64], in[16];

	s.on_complete = r.on_complete = NULL;
	memset(out, 'x', sizeof(out));
	ck_assert_int_ge(mtmi_isend(out, sizeof(out), 0, 0, 3, 0, 0, &s), 0);
	ck_assert_int_ge(mtmi_irecv(in, sizeof(in), 0, 0, 3, 0, &r), 0);
	ck_assert_int_eq(mtmi_wait(&r), MICHI_ERR_TRUNCATE);
	ck_assert_uint_eq(r.count, sizeof(in));
	ck_assert_int_eq(r.tag, 3);
}
END_TEST

/* Synchronous sends complete when matched, not before. */
START_TEST(sync_waits_for_match)
{
	struct mtmi_req s, r;
	int v = 42, got = 0;

	s.on_complete = r.on_complete = NULL;
	ck_assert_int_eq(mtmi_isend(&v, sizeof(v), 0, 0, 1, 0, MTMI_MODE_SYNC, &s),
			 MICHI_INPROGRESS);
	mtmi_progress();
	ck_assert(!s.done);
	ck_assert_int_ge(mtmi_irecv(&got, sizeof(got), 0, 0, 1, 0, &r), 0);
	mtmi_wait(&s);
	mtmi_wait(&r);
	ck_assert_int_eq(got, 42);
}
END_TEST

START_TEST(probe_and_claim)
{
	struct mtmi_req s[2], r;
	struct mtmi_msg *m = NULL;
	int v[2] = { 1, 2 }, got = 0, flag = -1, src = -1, tag = -1;
	size_t len = 0;

	s[0].on_complete = s[1].on_complete = r.on_complete = NULL;
	ck_assert_int_eq(mtmi_iprobe(0, 0, 9, 0, &flag, &src, &tag, &len), 0);
	ck_assert_int_eq(flag, 0);
	ck_assert_int_ge(mtmi_isend(&v[0], sizeof(int), 0, 3, 9, 0, 0, &s[0]), 0);
	ck_assert_int_ge(mtmi_isend(&v[1], sizeof(int), 0, 3, 9, 0, 0, &s[1]), 0);
	ck_assert_int_eq(mtmi_iprobe(MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, MTMI_ANY_TAG, 0, &flag, &src,
				     &tag, &len), 0);
	ck_assert(flag == 1 && src == 3 && tag == 9 && len == sizeof(int));
	ck_assert_int_eq(mtmi_improbe(0, 3, 9, 0, &flag, &m, &src, &tag, &len), 0);
	ck_assert(flag == 1 && m != NULL);
	/* the claimed message is out of matching: a receive gets the next */
	ck_assert_int_ge(mtmi_irecv(&got, sizeof(got), 0, 3, 9, 0, &r), 0);
	mtmi_wait(&r);
	ck_assert_int_eq(got, 2);
	ck_assert_int_ge(mtmi_imrecv(&got, sizeof(got), m, &r), 0);
	mtmi_wait(&r);
	ck_assert_int_eq(got, 1);
	ck_assert_int_eq(r.source, 3);
	ck_assert_int_eq(r.tag, 9);
}
END_TEST

static int hook_calls;
static void hook(struct mtmi_req *r)
{
	(void)r;
	hook_calls++;
}

/* The owner's hook runs once per request, for sends that complete in
 * the call and for receives that complete in progress. */
START_TEST(hooks_once)
{
	struct mtmi_req s, r;
	int v = 5, got = 0;

	hook_calls = 0;
	s.on_complete = r.on_complete = hook;
	ck_assert_int_ge(mtmi_irecv(&got, sizeof(got), 0, 0, 2, 0, &r), 0);
	ck_assert_int_ge(mtmi_isend(&v, sizeof(v), 0, 0, 2, 0, 0, &s), 0);
	mtmi_wait(&r);
	mtmi_progress();
	ck_assert_int_eq(hook_calls, 2);
	ck_assert_uint_eq(fake_sends + fake_recvs > 0, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mtmi_native");
	TCase *tc = tcase_create("native");
	SRunner *sr;
	int failed;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, status_from_tag);
	tcase_add_test(tc, fields_match_separately);
	tcase_add_test(tc, truncation);
	tcase_add_test(tc, truncation_unknown_length);
	tcase_add_test(tc, negative_tags);
	tcase_add_test(tc, sync_waits_for_match);
	tcase_add_test(tc, probe_and_claim);
	tcase_add_test(tc, hooks_once);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
