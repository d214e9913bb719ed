/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_mtmi_proto.c: MTMI's protocols over the loopback fake
 * device: eager/rendezvous boundary, truncation in both, synchronous
 * mode, probe/mprobe, cancel, peer failure, queued device sends, split
 * header/payload delivery, completion hooks and the waiting policy.
 */
#include "config.h"
#include "check_mtmi_fake.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT 1000

static unsigned char *sbuf, *rbuf;
#define BUFSZ (1 << 20)

static void setup(void)
{
	size_t i;

	fake_setup(4, LIMIT);
	sbuf = malloc(BUFSZ);
	rbuf = malloc(BUFSZ + 64);
	for (i = 0; i < BUFSZ; i++)
		sbuf[i] = (unsigned char)(i * 7 + 3);
	memset(rbuf, 0xee, BUFSZ + 64);
}

static void teardown(void)
{
	fake_teardown();
	free(sbuf);
	free(rbuf);
}

static int rbuf_untouched_from(size_t off, size_t n)
{
	size_t i;

	for (i = off; i < off + n; i++)
		if (rbuf[i] != 0xee)
			return 0;
	return 1;
}

/* one message of len bytes, receive posted before or after it arrives */
static void roundtrip(size_t len, int posted_first, int mode)
{
	struct mtmi_req s = {0}, r = {0};

	memset(rbuf, 0xee, len + 64);
	if (posted_first)
		ck_assert_int_ge(mtmi_irecv(rbuf, len, 1, 1, 4, 0, &r), 0);
	ck_assert_int_ge(mtmi_isend(sbuf, len, 1, 1, 4, 0, mode, &s), 0);
	fake_drain();
	if (!posted_first)
		ck_assert_int_ge(mtmi_irecv(rbuf, len, 1, 1, 4, 0, &r), 0);
	ck_assert(fake_wait(&r));
	ck_assert(fake_wait(&s));
	fake_drain();
	ck_assert_int_eq(r.error, 0);
	ck_assert_int_eq(s.error, 0);
	ck_assert_int_eq(s.cancelled, 0);
	ck_assert_uint_eq(r.count, len);
	ck_assert_uint_eq(s.count, len);
	ck_assert_int_eq(memcmp(rbuf, sbuf, len), 0);
	ck_assert(rbuf_untouched_from(len, 64));
}

START_TEST(boundary_sizes)
{
	static const size_t sizes[] = { 0, 1, LIMIT - 1, LIMIT, LIMIT + 1, 65536, BUFSZ };
	size_t i;
	int pf, mode;

	for (mode = 0; mode <= 2; mode++)
		for (pf = 0; pf < 2; pf++)
			for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
				unsigned rts = fake_sent[MTMI_F_RTS];

				roundtrip(sizes[i], pf, mode);
				ck_assert_uint_eq(fake_sent[MTMI_F_RTS] - rts,
						  sizes[i] > LIMIT ? 1 : 0);
			}
	ck_assert_uint_gt(fake_sent[MTMI_F_EAGER_SYNC], 0);
}
END_TEST

START_TEST(boundary_sizes_queued_split)
{
	static const size_t sizes[] = { 0, LIMIT - 1, LIMIT, LIMIT + 1, BUFSZ };
	size_t i;
	int pf;

	fake_inprogress = 1;
	fake_split = 1;
	for (pf = 0; pf < 2; pf++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			roundtrip(sizes[i], pf, MTMI_MODE_STANDARD);
			roundtrip(sizes[i], pf, MTMI_MODE_SYNC);
		}
}
END_TEST

/* A queued eager send completes only once the device is done with it. */
START_TEST(queued_send)
{
	struct mtmi_req s = {0}, r = {0};

	fake_inprogress = 1;
	ck_assert_int_eq(mtmi_isend(sbuf, 100, 2, 2, 1, 0, MTMI_MODE_STANDARD, &s),
			 MICHI_INPROGRESS);
	ck_assert_int_eq(s.done, 0);
	ck_assert_int_ge(mtmi_irecv(rbuf, 100, 2, 2, 1, 0, &r), 0);
	ck_assert(fake_wait(&s));
	ck_assert(fake_wait(&r));
	ck_assert_int_eq(memcmp(rbuf, sbuf, 100), 0);
}
END_TEST

static void truncation(size_t len, size_t cap, int posted_first)
{
	struct mtmi_req s = {0}, r = {0};

	memset(rbuf, 0xee, len + 64);
	if (posted_first)
		ck_assert_int_ge(mtmi_irecv(rbuf, cap, 1, 1, 2, 0, &r), 0);
	ck_assert_int_ge(mtmi_isend(sbuf, len, 1, 1, 2, 0, MTMI_MODE_STANDARD, &s), 0);
	fake_drain();
	if (!posted_first)
		ck_assert_int_ge(mtmi_irecv(rbuf, cap, 1, 1, 2, 0, &r), 0);
	ck_assert(fake_wait(&r));
	ck_assert(fake_wait(&s));
	ck_assert_int_eq(r.error, MICHI_ERR_TRUNCATE);
	ck_assert_uint_eq(r.count, cap);
	ck_assert_int_eq(memcmp(rbuf, sbuf, cap), 0);
	ck_assert(rbuf_untouched_from(cap, len - cap));
	ck_assert_int_eq(s.error, 0);
	ck_assert_uint_eq(s.count, len);
}

START_TEST(truncate_eager)
{
	truncation(500, 100, 1);
	truncation(500, 100, 0);
	truncation(LIMIT, 0, 1);
	truncation(LIMIT, 0, 0);
}
END_TEST

START_TEST(truncate_rendezvous)
{
	fake_sent[MTMI_F_DATA] = 0;
	truncation(200000, 5000, 1);
	ck_assert_uint_eq(fake_last_len[MTMI_F_DATA], 5000);
	truncation(200000, 5000, 0);
	ck_assert_uint_eq(fake_last_len[MTMI_F_DATA], 5000);
	truncation(LIMIT + 1, 0, 0);
	ck_assert_uint_eq(fake_last_len[MTMI_F_DATA], 0);
	ck_assert_uint_eq(fake_sent[MTMI_F_DATA], 3);
}
END_TEST

static void sync_case(size_t len)
{
	struct mtmi_req s = {0}, r = {0};
	int i;

	ck_assert_int_eq(mtmi_isend(sbuf, len, 3, 3, 8, 5, MTMI_MODE_SYNC, &s),
			 MICHI_INPROGRESS);
	for (i = 0; i < 10; i++)
		mtmi_progress();
	ck_assert_int_eq(s.done, 0);
	ck_assert_int_ge(mtmi_irecv(rbuf, len, 3, 3, 8, 5, &r), 0);
	ck_assert(fake_wait(&s));
	ck_assert(fake_wait(&r));
	ck_assert_int_eq(s.error, 0);
	ck_assert_int_eq(memcmp(rbuf, sbuf, len), 0);
}

START_TEST(sync_completes_after_match)
{
	struct mtmi_req s = {0}, r = {0};

	sync_case(10);
	sync_case(0);
	sync_case(LIMIT + 1);
	/* standard rendezvous waits for the receiver too */
	ck_assert_int_eq(mtmi_isend(sbuf, 5000, 3, 3, 8, 5, MTMI_MODE_STANDARD, &s),
			 MICHI_INPROGRESS);
	fake_drain();
	ck_assert_int_eq(s.done, 0);
	ck_assert_int_ge(mtmi_irecv(rbuf, 5000, 3, 3, 8, 5, &r), 0);
	ck_assert(fake_wait(&s));
	ck_assert(fake_wait(&r));
	ck_assert_int_eq(memcmp(rbuf, sbuf, 5000), 0);
	/* sync send matched by a posted receive at arrival */
	ck_assert_int_ge(mtmi_irecv(rbuf, 10, 3, 3, 8, 5, &r), 0);
	ck_assert_int_eq(mtmi_isend(sbuf, 10, 3, 3, 8, 5, MTMI_MODE_SYNC, &s),
			 MICHI_INPROGRESS);
	ck_assert(fake_wait(&s));
	ck_assert(fake_wait(&r));
}
END_TEST

START_TEST(probe_mprobe)
{
	struct mtmi_req s1 = {0}, s2 = {0}, s3 = {0}, r = {0};
	struct mtmi_msg *m = NULL;
	int flag = 0, src = -1, tag = -1;
	size_t len = 0;

	ck_assert_int_eq(mtmi_iprobe(1, 1, 6, 0, &flag, &src, &tag, &len), 0);
	ck_assert_int_eq(flag, 0);
	mtmi_isend(sbuf, 300, 1, 1, 6, 0, MTMI_MODE_STANDARD, &s1);
	mtmi_isend(sbuf + 1, 4000, 1, 1, 6, 0, MTMI_MODE_STANDARD, &s2);
	mtmi_isend(sbuf + 2, 20, 1, 1, 6, 0, MTMI_MODE_SYNC, &s3);
	fake_drain();
	ck_assert_int_eq(mtmi_iprobe(MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, MTMI_ANY_TAG, 0,
				     &flag, &src, &tag, &len), 0);
	ck_assert_int_eq(flag, 1);
	ck_assert_int_eq(src, 1);
	ck_assert_int_eq(tag, 6);
	ck_assert_uint_eq(len, 300);
	/* mprobe takes the first; a plain receive then gets the second (RTS) */
	ck_assert_int_eq(mtmi_improbe(1, 1, 6, 0, &flag, &m, &src, &tag, &len), 0);
	ck_assert_int_eq(flag, 1);
	ck_assert_uint_eq(len, 300);
	ck_assert_int_eq(mtmi_iprobe(1, 1, 6, 0, &flag, NULL, NULL, &len), 0);
	ck_assert_uint_eq(len, 4000);
	ck_assert_int_ge(mtmi_irecv(rbuf, 4000, 1, 1, 6, 0, &r), 0);
	ck_assert(fake_wait(&r));
	ck_assert_uint_eq(r.count, 4000);
	ck_assert_int_eq(memcmp(rbuf, sbuf + 1, 4000), 0);
	ck_assert(fake_wait(&s2));
	ck_assert_int_eq(mtmi_imrecv(rbuf, 300, m, &r), MICHI_OK);
	ck_assert_uint_eq(r.count, 300);
	ck_assert_int_eq(memcmp(rbuf, sbuf, 300), 0);
	/* mprobe of a sync message completes its sender */
	ck_assert_int_eq(s3.done, 0);
	ck_assert_int_eq(mtmi_improbe(MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, 6, 0, &flag,
				      &m, NULL, NULL, &len), 0);
	ck_assert_int_eq(flag, 1);
	ck_assert(fake_wait(&s3));
	ck_assert_int_eq(mtmi_imrecv(rbuf, 20, m, &r), MICHI_OK);
	ck_assert_int_eq(memcmp(rbuf, sbuf + 2, 20), 0);
}
END_TEST

START_TEST(mprobe_rts)
{
	struct mtmi_req s = {0}, r = {0};
	struct mtmi_msg *m = NULL;
	int flag = 0;
	size_t len = 0;

	mtmi_isend(sbuf, 70000, 2, 2, 1, 0, MTMI_MODE_STANDARD, &s);
	fake_drain();
	ck_assert_int_eq(mtmi_improbe(2, 2, 1, 0, &flag, &m, NULL, NULL, &len), 0);
	ck_assert_int_eq(flag, 1);
	ck_assert_uint_eq(len, 70000);
	/* taken by mprobe: a cancel finds nothing, the send goes on */
	mtmi_cancel(&s);
	fake_drain();
	ck_assert_int_eq(s.done, 0);
	ck_assert_int_eq(mtmi_imrecv(rbuf, 70000, m, &r), MICHI_INPROGRESS);
	ck_assert(fake_wait(&r));
	ck_assert(fake_wait(&s));
	ck_assert_int_eq(s.cancelled, 0);
	ck_assert_int_eq(memcmp(rbuf, sbuf, 70000), 0);
}
END_TEST

START_TEST(cancel_posted_recv)
{
	struct mtmi_req r1 = {0}, r2 = {0}, s = {0};

	ck_assert_int_ge(mtmi_irecv(rbuf, 10, 1, 1, 1, 0, &r1), 0);
	ck_assert_int_ge(mtmi_irecv(rbuf + 100, 10, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE,
				    MTMI_ANY_TAG, 0, &r2), 0);
	mtmi_cancel(&r1);
	mtmi_cancel(&r2);
	ck_assert_int_eq(r1.done, 1);
	ck_assert_int_eq(r1.cancelled, 1);
	ck_assert_int_eq(r2.cancelled, 1);
	/* a later message is unexpected, not delivered to a cancelled recv */
	mtmi_isend(sbuf, 10, 1, 1, 1, 0, MTMI_MODE_STANDARD, &s);
	fake_drain();
	ck_assert(rbuf_untouched_from(0, 10));
	ck_assert(rbuf_untouched_from(100, 10));
}
END_TEST

static void cancel_unmatched(size_t len, int mode)
{
	struct mtmi_req s = {0}, s2 = {0}, r = {0};

	ck_assert_int_eq(mtmi_isend(sbuf, len, 1, 1, 3, 0, mode, &s), MICHI_INPROGRESS);
	mtmi_isend(sbuf + 1, 10, 1, 1, 3, 0, MTMI_MODE_STANDARD, &s2);
	fake_drain();
	ck_assert_int_eq(mtmi_cancel(&s), 0);
	ck_assert(fake_wait(&s));
	ck_assert_int_eq(s.cancelled, 1);
	ck_assert_int_eq(s.error, 0);
	/* the receiver gets the message after it */
	ck_assert_int_ge(mtmi_irecv(rbuf, len, 1, 1, 3, 0, &r), 0);
	ck_assert(fake_wait(&r));
	ck_assert_uint_eq(r.count, 10);
	ck_assert_int_eq(memcmp(rbuf, sbuf + 1, 10), 0);
}

START_TEST(cancel_unmatched_send)
{
	cancel_unmatched(50000, MTMI_MODE_STANDARD);
	cancel_unmatched(LIMIT + 1, MTMI_MODE_SYNC);
	cancel_unmatched(10, MTMI_MODE_SYNC);
	ck_assert_uint_eq(fake_sent[MTMI_F_CANCEL_ACK], 3);
}
END_TEST

/* An eager send the device still holds can be withdrawn too. */
START_TEST(cancel_queued_eager)
{
	struct mtmi_req s = {0}, r = {0};

	fake_inprogress = 1;
	ck_assert_int_eq(mtmi_isend(sbuf, 10, 1, 1, 3, 0, MTMI_MODE_STANDARD, &s),
			 MICHI_INPROGRESS);
	mtmi_cancel(&s);
	ck_assert_int_eq(s.done, 0);
	ck_assert(fake_wait(&s));
	ck_assert_int_eq(s.cancelled, 1);
	ck_assert_int_ge(mtmi_irecv(rbuf, 10, 1, 1, 3, 0, &r), 0);
	fake_drain();
	ck_assert_int_eq(r.done, 0);
	mtmi_cancel(&r);
	ck_assert_int_eq(r.cancelled, 1);
}
END_TEST

START_TEST(cancel_matched_send)
{
	struct mtmi_req s = {0}, r = {0};

	/* rendezvous matched, CTS still on its way when cancel is asked */
	ck_assert_int_ge(mtmi_irecv(rbuf, 50000, 1, 1, 3, 0, &r), 0);
	mtmi_isend(sbuf, 50000, 1, 1, 3, 0, MTMI_MODE_STANDARD, &s);
	mtmi_progress();          /* RTS matched, CTS queued */
	ck_assert_int_eq(fake_sent[MTMI_F_CTS], 1);
	mtmi_cancel(&s);
	ck_assert(fake_wait(&s));
	ck_assert(fake_wait(&r));
	fake_drain();
	ck_assert_int_eq(s.cancelled, 0);
	ck_assert_int_eq(s.error, 0);
	ck_assert_int_eq(r.cancelled, 0);
	ck_assert_int_eq(memcmp(rbuf, sbuf, 50000), 0);
	/* an eager send that completed: cancel does nothing */
	mtmi_isend(sbuf, 10, 1, 1, 3, 0, MTMI_MODE_STANDARD, &s);
	ck_assert_int_eq(s.done, 1);
	mtmi_cancel(&s);
	ck_assert_int_eq(s.cancelled, 0);
	/* sync eager matched before the cancel request arrives */
	ck_assert_int_ge(mtmi_irecv(rbuf, 10, 1, 1, 4, 0, &r), 0);
	mtmi_isend(sbuf, 10, 1, 1, 4, 0, MTMI_MODE_SYNC, &s);
	mtmi_cancel(&s);
	ck_assert(fake_wait(&s));
	ck_assert_int_eq(s.cancelled, 0);
	ck_assert(fake_wait(&r));
	ck_assert_int_eq(r.error, 0);
	fake_drain();
}
END_TEST

START_TEST(peer_failure)
{
	struct mtmi_req s_rdv = {0}, s_sync = {0}, r_peer = {0}, r_any = {0};
	struct mtmi_req r_other = {0}, r_old = {0}, r_late = {0}, s2 = {0}, s_e = {0};

	/* an eager message from 1 is here before it fails: still receivable */
	mtmi_isend(sbuf, 16, 1, 1, 9, 0, MTMI_MODE_STANDARD, &s_e);
	fake_drain();
	mtmi_isend(sbuf, 50000, 1, 1, 1, 0, MTMI_MODE_STANDARD, &s_rdv);
	mtmi_isend(sbuf, 10, 1, 1, 2, 0, MTMI_MODE_SYNC, &s_sync);
	ck_assert_int_ge(mtmi_irecv(rbuf, 10, 1, 1, 7, 0, &r_peer), 0);
	ck_assert_int_ge(mtmi_irecv(rbuf, 10, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, 7, 0,
				    &r_any), 0);
	ck_assert_int_ge(mtmi_irecv(rbuf, 10, 2, 2, 7, 0, &r_other), 0);
	fake_fail(1);
	ck_assert_int_eq(s_rdv.done, 1);
	ck_assert_int_eq(s_rdv.error, MICHI_ERR_PEER);
	ck_assert_int_eq(s_sync.done, 1);
	ck_assert_int_eq(s_sync.error, MICHI_ERR_PEER);
	ck_assert_int_eq(r_peer.done, 1);
	ck_assert_int_eq(r_peer.error, MICHI_ERR_PEER);
	ck_assert_int_eq(r_any.done, 0);
	ck_assert_int_eq(r_other.done, 0);
	/* new operations with 1 fail at once */
	ck_assert_int_eq(mtmi_irecv(rbuf, 10, 1, 1, 8, 0, &r_late), MICHI_ERR_PEER);
	ck_assert_int_eq(mtmi_isend(sbuf, 10, 1, 1, 8, 0, MTMI_MODE_STANDARD, &s2),
			 MICHI_ERR_PEER);
	ck_assert_int_eq(mtmi_irecv(rbuf + 200, 16, 1, 1, 9, 0, &r_old), MICHI_OK);
	ck_assert_int_eq(r_old.error, 0);
	ck_assert_int_eq(memcmp(rbuf + 200, sbuf, 16), 0);
	/* the others still work; ANY_SOURCE is matched by rank 3 */
	mtmi_isend(sbuf, 10, 3, 3, 7, 0, MTMI_MODE_STANDARD, &s2);
	mtmi_isend(sbuf, 10, 2, 2, 7, 0, MTMI_MODE_STANDARD, &s2);
	ck_assert(fake_wait(&r_any));
	ck_assert(fake_wait(&r_other));
	ck_assert_int_eq(r_any.source, 3);
	ck_assert_int_eq(r_any.error, 0);
	ck_assert_int_eq(r_other.error, 0);
}
END_TEST

/* Once every other rank has failed, nothing can match MTMI_ANY_SOURCE:
 * posted wildcard receives and new ones fail instead of waiting forever. */
START_TEST(peer_failure_all)
{
	struct mtmi_req r_any = {0}, r_anytag = {0}, r_late = {0};
	int flag = 1, src, tag;
	size_t len;

	ck_assert_int_ge(mtmi_irecv(rbuf, 10, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, 7, 0, &r_any), 0);
	ck_assert_int_ge(mtmi_irecv(rbuf, 10, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, MTMI_ANY_TAG, 0,
				    &r_anytag), 0);
	fake_fail(1);
	fake_fail(2);
	ck_assert_int_eq(r_any.done, 0);   /* rank 3 may still send */
	fake_fail(3);
	ck_assert_int_eq(r_any.done, 1);
	ck_assert_int_eq(r_any.error, MICHI_ERR_PEER);
	ck_assert_int_eq(r_anytag.done, 1);
	ck_assert_int_eq(r_anytag.error, MICHI_ERR_PEER);
	ck_assert_int_eq(mtmi_irecv(rbuf, 10, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, 7, 0, &r_late),
			 MICHI_ERR_PEER);
	ck_assert_int_eq(mtmi_iprobe(MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, 7, 0, &flag, &src, &tag,
				     &len), MICHI_ERR_PEER);
	ck_assert_int_eq(flag, 0);
}
END_TEST

/* The connection breaks in the middle of payloads. */
START_TEST(peer_failure_mid_payload)
{
	struct mtmi_req s = {0}, r = {0}, r2 = {0};

	fake_split = 1;
	/* rendezvous DATA being received */
	ck_assert_int_ge(mtmi_irecv(rbuf, 50000, 1, 1, 1, 0, &r), 0);
	mtmi_isend(sbuf, 50000, 1, 1, 1, 0, MTMI_MODE_STANDARD, &s);
	while (fake_sent[MTMI_F_DATA] == 0)
		mtmi_progress();
	mtmi_progress();   /* DATA header up, payload pending */
	fake_fail(1);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.error, MICHI_ERR_PEER);
	ck_assert_int_eq(s.done, 1);
	/* eager from 2: header up, a receive binds to the incomplete message */
	mtmi_isend(sbuf, 500, 2, 2, 1, 0, MTMI_MODE_STANDARD, &s);
	mtmi_progress();
	ck_assert_int_ge(mtmi_irecv(rbuf, 500, 2, 2, 1, 0, &r2), 0);
	ck_assert_int_eq(r2.done, 0);
	fake_fail(2);
	ck_assert_int_eq(r2.done, 1);
	ck_assert_int_eq(r2.error, MICHI_ERR_PEER);
}
END_TEST

static int hook_calls;
static void hook(struct mtmi_req *r)
{
	ck_assert_int_eq(r->done, 1);
	hook_calls++;
}

START_TEST(on_complete_once)
{
	struct mtmi_req s = {0}, r = {0}, s2 = {0}, r2 = {0};

	s.on_complete = r.on_complete = s2.on_complete = r2.on_complete = hook;
	mtmi_irecv(rbuf, 10, 1, 1, 1, 0, &r);
	mtmi_isend(sbuf, 10, 1, 1, 1, 0, MTMI_MODE_STANDARD, &s);
	ck_assert_int_eq(hook_calls, 1);
	mtmi_isend(sbuf, 5000, 1, 1, 2, 0, MTMI_MODE_STANDARD, &s2);
	mtmi_irecv(rbuf, 5000, 1, 1, 2, 0, &r2);
	fake_drain();
	ck_assert(fake_wait(&r));
	ck_assert_int_eq(hook_calls, 4);
}
END_TEST

START_TEST(wait_and_idle)
{
	struct mtmi_req s = {0}, r = {0};
	unsigned spins = 0;
	int i;

	mtmi_isend(sbuf, 5000, 1, 1, 1, 0, MTMI_MODE_STANDARD, &s);
	mtmi_irecv(rbuf, 5000, 1, 1, 1, 0, &r);
	ck_assert_int_eq(mtmi_wait(&s), 0);
	ck_assert_int_eq(mtmi_wait(&r), 0);
	ck_assert_int_eq(memcmp(rbuf, sbuf, 5000), 0);
	/* nothing to do: spin (1000 with one rank per core), yield, then block */
	for (i = 0; i < 1100; i++)
		mtmi_idle(&spins);
	ck_assert_uint_eq(fake_blocks, 0);
	for (i = 0; i < 10; i++)
		mtmi_idle(&spins);
	ck_assert_uint_eq(fake_blocks, 10);
	mtmi_isend(sbuf, 10, 1, 1, 1, 0, MTMI_MODE_STANDARD, &s);
	mtmi_idle(&spins);
	ck_assert_uint_eq(spins, 0);
}
END_TEST

/* The frame numbers catch a lost frame. */
START_TEST(sequence_gap)
{
	struct mtmi_req r = {0};
	struct mtmi_hdr h;
	struct michi_rx rx;

	mtmi_irecv(rbuf, 10, 1, 1, 1, 0, &r);
	memset(&h, 0, sizeof(h));
	h.type = MTMI_F_EAGER;
	h.seq = 5;
	h.src_rank = 1;
	h.tag = 1;
	mtmi_dev_recv_hdr(1, &h, &rx);
	ck_assert_ptr_null(rx.buf);
	ck_assert_int_eq(r.done, 1);
	ck_assert_int_eq(r.error, MICHI_ERR_PEER);
}
END_TEST

static Suite *proto_suite(void)
{
	Suite *s = suite_create("mtmi_proto");
	TCase *tc = tcase_create("proto");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, boundary_sizes);
	tcase_add_test(tc, boundary_sizes_queued_split);
	tcase_add_test(tc, queued_send);
	tcase_add_test(tc, truncate_eager);
	tcase_add_test(tc, truncate_rendezvous);
	tcase_add_test(tc, sync_completes_after_match);
	tcase_add_test(tc, probe_mprobe);
	tcase_add_test(tc, mprobe_rts);
	tcase_add_test(tc, cancel_posted_recv);
	tcase_add_test(tc, cancel_unmatched_send);
	tcase_add_test(tc, cancel_queued_eager);
	tcase_add_test(tc, cancel_matched_send);
	tcase_add_test(tc, peer_failure);
	tcase_add_test(tc, peer_failure_all);
	tcase_add_test(tc, peer_failure_mid_payload);
	tcase_add_test(tc, on_complete_once);
	tcase_add_test(tc, wait_and_idle);
	tcase_add_test(tc, sequence_gap);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(proto_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
