/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_mtmi_queue.c: MPI matching semantics of MTMI's own
 * queues over the loopback fake device: exact and wildcard matching, the
 * earliest-posted rule across the hash and the wildcard list, the
 * earliest-arrived rule for receives, non-overtaking, contexts, and a
 * large unexpected queue.
 */
#include "config.h"
#include "check_mtmi_fake.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT 1024

static void setup(void)
{
	fake_setup(4, LIMIT);
}

static void teardown(void)
{
	fake_teardown();
}

/* send an int payload from "rank" peer (src_rank == peer) */
static void send_int(int peer, int tag, uint32_t ctx, int val)
{
	struct mtmi_req s = {0};

	ck_assert_int_ge(mtmi_isend(&val, sizeof(val), peer, peer, tag, ctx,
				    MTMI_MODE_STANDARD, &s), 0);
	ck_assert(fake_wait(&s));
	ck_assert_int_eq(s.error, 0);
}

static void post(struct mtmi_req *r, int *buf, int peer, int tag, uint32_t ctx)
{
	ck_assert_int_ge(mtmi_irecv(buf, sizeof(*buf), peer, peer, tag, ctx, r), 0);
}

static void check_recv(struct mtmi_req *r, int *buf, int src, int tag, int val)
{
	ck_assert(fake_wait(r));
	ck_assert_int_eq(r->error, 0);
	ck_assert_int_eq(r->source, src);
	ck_assert_int_eq(r->tag, tag);
	ck_assert_uint_eq(r->count, sizeof(int));
	ck_assert_int_eq(*buf, val);
}

START_TEST(posted_then_arrives)
{
	struct mtmi_req r = {0};
	int b = 0;

	post(&r, &b, 1, 7, 0);
	fake_drain();
	ck_assert_int_eq(r.done, 0);
	send_int(1, 7, 0, 42);
	fake_drain();
	check_recv(&r, &b, 1, 7, 42);
}
END_TEST

START_TEST(arrives_then_posted)
{
	struct mtmi_req r = {0};
	int b = 0;

	send_int(2, 9, 0, 43);
	fake_drain();
	post(&r, &b, 2, 9, 0);
	ck_assert_int_eq(r.done, 1);
	check_recv(&r, &b, 2, 9, 43);
}
END_TEST

START_TEST(wildcards)
{
	struct mtmi_req r1 = {0}, r2 = {0}, r3 = {0};
	int b1 = 0, b2 = 0, b3 = 0;

	ck_assert_int_ge(mtmi_irecv(&b1, 4, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, 5, 0, &r1), 0);
	ck_assert_int_ge(mtmi_irecv(&b2, 4, 3, 3, MTMI_ANY_TAG, 0, &r2), 0);
	ck_assert_int_ge(mtmi_irecv(&b3, 4, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE,
				    MTMI_ANY_TAG, 0, &r3), 0);
	send_int(1, 6, 0, 100);   /* only r3 matches */
	send_int(3, 8, 0, 101);   /* r2 */
	send_int(2, 5, 0, 102);   /* r1 */
	fake_drain();
	check_recv(&r1, &b1, 2, 5, 102);
	check_recv(&r2, &b2, 3, 8, 101);
	check_recv(&r3, &b3, 1, 6, 100);
}
END_TEST

/* A message goes to the earliest posted match, exact or wildcard. */
START_TEST(fair_hash_vs_wild)
{
	struct mtmi_req w = {0}, e = {0}, e2 = {0}, w2 = {0};
	int bw = 0, be = 0, be2 = 0, bw2 = 0;

	ck_assert_int_ge(mtmi_irecv(&bw, 4, 1, 1, MTMI_ANY_TAG, 0, &w), 0);
	post(&e, &be, 1, 5, 0);
	send_int(1, 5, 0, 1);
	fake_drain();
	ck_assert_int_eq(w.done, 1);
	ck_assert_int_eq(e.done, 0);
	send_int(1, 5, 0, 2);
	fake_drain();
	check_recv(&w, &bw, 1, 5, 1);
	check_recv(&e, &be, 1, 5, 2);

	/* exact first, wildcard second */
	post(&e2, &be2, 1, 5, 0);
	ck_assert_int_ge(mtmi_irecv(&bw2, 4, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE,
				    MTMI_ANY_TAG, 0, &w2), 0);
	send_int(1, 5, 0, 3);
	fake_drain();
	ck_assert_int_eq(e2.done, 1);
	ck_assert_int_eq(w2.done, 0);
	send_int(1, 5, 0, 4);
	fake_drain();
	check_recv(&e2, &be2, 1, 5, 3);
	check_recv(&w2, &bw2, 1, 5, 4);
}
END_TEST

START_TEST(non_overtaking_same_tag)
{
	struct mtmi_req r[50] = {{0}};
	int b[50], i;

	for (i = 0; i < 50; i++)
		send_int(1, 3, 0, i);
	fake_drain();
	for (i = 0; i < 25; i++)
		post(&r[i], &b[i], 1, 3, 0);
	for (i = 25; i < 50; i++)
		ck_assert_int_ge(mtmi_irecv(&b[i], 4, 1, 1, MTMI_ANY_TAG, 0, &r[i]), 0);
	for (i = 0; i < 50; i++)
		check_recv(&r[i], &b[i], 1, 3, i);
	/* posted first, in order, mixing exact and wildcard receives */
	for (i = 0; i < 50; i++) {
		if (i % 3)
			post(&r[i], &b[i], 1, 3, 0);
		else
			ck_assert_int_ge(mtmi_irecv(&b[i], 4, MTMI_ANY_SOURCE,
						    MTMI_ANY_SOURCE, 3, 0, &r[i]), 0);
	}
	for (i = 0; i < 50; i++)
		send_int(1, 3, 0, 1000 + i);
	fake_drain();
	for (i = 0; i < 50; i++)
		check_recv(&r[i], &b[i], 1, 3, 1000 + i);
}
END_TEST

/* ANY_TAG receives take messages of one sender in sending order. */
START_TEST(non_overtaking_any_tag)
{
	struct mtmi_req r[30] = {{0}};
	int b[30], i;

	for (i = 0; i < 30; i++)
		send_int(2, i % 4, 0, i);
	fake_drain();
	for (i = 0; i < 30; i++) {
		ck_assert_int_ge(mtmi_irecv(&b[i], 4, 2, 2, MTMI_ANY_TAG, 0, &r[i]), 0);
		check_recv(&r[i], &b[i], 2, i % 4, i);
	}
}
END_TEST

/* A receive takes the earliest arrived matching message. */
START_TEST(earliest_unexpected)
{
	struct mtmi_req r = {0};
	int b;

	send_int(1, 1, 0, 10);
	send_int(2, 2, 0, 20);
	send_int(1, 1, 0, 11);
	send_int(3, 1, 0, 30);
	fake_drain();
	ck_assert_int_ge(mtmi_irecv(&b, 4, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE,
				    MTMI_ANY_TAG, 0, &r), 0);
	check_recv(&r, &b, 1, 1, 10);
	post(&r, &b, 2, 2, 0);
	check_recv(&r, &b, 2, 2, 20);
	ck_assert_int_ge(mtmi_irecv(&b, 4, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, 1, 0, &r), 0);
	check_recv(&r, &b, 1, 1, 11);
	post(&r, &b, 3, 1, 0);
	check_recv(&r, &b, 3, 1, 30);
}
END_TEST

START_TEST(many_contexts)
{
	struct mtmi_req r[64] = {{0}};
	int b[64], i;

	for (i = 0; i < 64; i++)
		send_int(1, 0, (uint32_t)(i * 977), i);
	fake_drain();
	for (i = 63; i >= 32; i--)
		post(&r[i], &b[i], 1, 0, (uint32_t)(i * 977));
	for (i = 0; i < 32; i++)
		ck_assert_int_ge(mtmi_irecv(&b[i], 4, MTMI_ANY_SOURCE, MTMI_ANY_SOURCE,
					    MTMI_ANY_TAG, (uint32_t)(i * 977), &r[i]), 0);
	for (i = 0; i < 64; i++)
		check_recv(&r[i], &b[i], 1, 0, i);
	/* nothing left over in any context */
	for (i = 0; i < 64; i++) {
		int flag = 1;

		mtmi_iprobe(MTMI_ANY_SOURCE, MTMI_ANY_SOURCE, MTMI_ANY_TAG,
			    (uint32_t)(i * 977), &flag, NULL, NULL, NULL);
		ck_assert_int_eq(flag, 0);
	}
}
END_TEST

/* 10,000 unexpected messages over 5,000 distinct tags: more keys than
 * hash buckets, so chains are shared; order within a key is kept. */
START_TEST(ten_thousand_unexpected)
{
	struct mtmi_req r = {0};
	int i, b;

	for (i = 0; i < 10000; i++)
		send_int(1, i % 5000, 0, i);
	fake_drain();
	for (i = 0; i < 5000; i++) {
		post(&r, &b, 1, i, 0);
		check_recv(&r, &b, 1, i, i);
	}
	for (i = 5000; i < 10000; i++) {
		ck_assert_int_ge(mtmi_irecv(&b, 4, 1, 1, MTMI_ANY_TAG, 0, &r), 0);
		check_recv(&r, &b, 1, i % 5000, i);
	}
	ck_assert_int_ge(mtmi_irecv(&b, 4, 1, 1, MTMI_ANY_TAG, 0, &r), 0);
	fake_drain();
	ck_assert_int_eq(r.done, 0);
	mtmi_cancel(&r);
	ck_assert_int_eq(r.cancelled, 1);
}
END_TEST

START_TEST(src_rank_differs_from_peer)
{
	struct mtmi_req s = {0}, r = {0};
	int v = 5, b = 0;

	/* world rank 3 is rank 0 of some communicator with context 11 */
	ck_assert_int_ge(mtmi_irecv(&b, 4, 3, 0, 1, 11, &r), 0);
	ck_assert_int_ge(mtmi_isend(&v, 4, 3, 0, 1, 11, MTMI_MODE_STANDARD, &s), 0);
	fake_drain();
	check_recv(&r, &b, 0, 1, 5);
	ck_assert_int_eq(r.peer, 3);
}
END_TEST

/*
 * Random traffic against a reference matcher that keeps plain lists in
 * posting and arrival order: every receive must get exactly the message
 * the MPI rules give it, across exact and wildcard receives, contexts and
 * both protocols. Each message carries its number in its first bytes.
 */
#define M_SLOTS 48
#define M_MSGS 6000

struct model_recv {
	int used, src, tag;
	uint32_t ctx;
	int expect;           /* message number, -1 while posted */
	struct mtmi_req r;
	unsigned char buf[LIMIT + 200];
};

struct model_msg {
	int src, tag, id;
	uint32_t ctx;
};

static struct model_recv slots[M_SLOTS];
static int posted[M_SLOTS], nposted;     /* slot numbers in posting order */
static struct model_msg unexp[M_MSGS];
static int nunexp;

static int model_match(int rsrc, int rtag, uint32_t rctx, const struct model_msg *m)
{
	return rctx == m->ctx && (rsrc == MTMI_ANY_SOURCE || rsrc == m->src) &&
	       (rtag == MTMI_ANY_TAG || rtag == m->tag);
}

/* sends in flight: rendezvous ones wait for their match */
struct model_send {
	struct model_send *next;
	struct mtmi_req s;
	unsigned char pay[];
};
static struct model_send *sends;

static void model_reap_sends(int cancel)
{
	struct model_send **pp = &sends, *ms;

	while ((ms = *pp)) {
		if (cancel && !ms->s.done) {
			mtmi_cancel(&ms->s);
			ck_assert(fake_wait(&ms->s));
			ck_assert_int_eq(ms->s.cancelled, 1);
		}
		if (!ms->s.done) {
			pp = &ms->next;
			continue;
		}
		ck_assert_int_eq(ms->s.error, 0);
		*pp = ms->next;
		free(ms);
	}
}

static void model_send(int id, unsigned *seed)
{
	struct model_send *ms = calloc(1, sizeof(*ms) + LIMIT + 200);
	unsigned char *pay = ms->pay;
	struct model_msg m;
	size_t len = (rand_r(seed) % 4) ? 4 + rand_r(seed) % 40 : LIMIT + 1 + rand_r(seed) % 150;
	int i;

	m.src = 1 + rand_r(seed) % 3;
	m.tag = rand_r(seed) % 4;
	m.ctx = rand_r(seed) % 2;
	m.id = id;
	memset(pay, id & 0xff, len);
	memcpy(pay, &id, sizeof(id));
	ck_assert_int_ge(mtmi_isend(pay, len, m.src, m.src, m.tag, m.ctx,
				    MTMI_MODE_STANDARD, &ms->s), 0);
	ms->next = sends;
	sends = ms;
	fake_drain();
	for (i = 0; i < nposted; i++) {
		struct model_recv *mr = &slots[posted[i]];

		if (model_match(mr->src, mr->tag, mr->ctx, &m)) {
			mr->expect = id;
			memmove(&posted[i], &posted[i + 1], (size_t)(nposted - i - 1) * sizeof(int));
			nposted--;
			return;
		}
	}
	unexp[nunexp++] = m;
}

static void model_check_done(struct model_recv *mr)
{
	int got;

	ck_assert(fake_wait(&mr->r));
	ck_assert_int_eq(mr->r.error, 0);
	memcpy(&got, mr->buf, sizeof(got));
	ck_assert_int_eq(got, mr->expect);
	mr->used = 0;
}

static void model_post(int slot, unsigned *seed)
{
	struct model_recv *mr = &slots[slot];
	int i, peer;

	mr->src = rand_r(seed) % 4 ? 1 + rand_r(seed) % 3 : MTMI_ANY_SOURCE;
	mr->tag = rand_r(seed) % 4 ? rand_r(seed) % 4 : MTMI_ANY_TAG;
	mr->ctx = rand_r(seed) % 2;
	mr->expect = -1;
	mr->used = 1;
	peer = mr->src;
	memset(&mr->r, 0, sizeof(mr->r));
	ck_assert_int_ge(mtmi_irecv(mr->buf, sizeof(mr->buf), peer, mr->src, mr->tag,
				    mr->ctx, &mr->r), 0);
	fake_drain();
	for (i = 0; i < nunexp; i++) {
		if (model_match(mr->src, mr->tag, mr->ctx, &unexp[i])) {
			mr->expect = unexp[i].id;
			memmove(&unexp[i], &unexp[i + 1], (size_t)(nunexp - i - 1) * sizeof(unexp[0]));
			nunexp--;
			model_check_done(mr);
			return;
		}
	}
	ck_assert_int_eq(mr->r.done, 0);
	posted[nposted++] = slot;
}

START_TEST(random_against_model)
{
	unsigned seed = 12345u + (unsigned)_i;
	int id = 0, op, i;

	memset(slots, 0, sizeof(slots));
	nposted = nunexp = 0;
	sends = NULL;
	while (id < M_MSGS) {
		op = rand_r(&seed) % 10;
		if (op < 5) {
			model_send(id++, &seed);
		} else if (op < 9) {
			for (i = 0; i < M_SLOTS && slots[i].used; i++)
				;
			if (i < M_SLOTS)
				model_post(i, &seed);
		} else if (nposted) {
			/* cancel a random posted receive */
			int k = rand_r(&seed) % nposted, sl = posted[k];

			mtmi_cancel(&slots[sl].r);
			ck_assert_int_eq(slots[sl].r.cancelled, 1);
			slots[sl].used = 0;
			memmove(&posted[k], &posted[k + 1], (size_t)(nposted - k - 1) * sizeof(int));
			nposted--;
		}
		/* receives the model matched at a send must be complete now */
		for (i = 0; i < M_SLOTS; i++)
			if (slots[i].used && slots[i].expect >= 0)
				model_check_done(&slots[i]);
		model_reap_sends(0);
	}
	/* what no receive matched is withdrawn by its sender */
	model_reap_sends(1);
	ck_assert_ptr_null(sends);
}
END_TEST

static Suite *queue_suite(void)
{
	Suite *s = suite_create("mtmi_queue");
	TCase *tc = tcase_create("match");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, posted_then_arrives);
	tcase_add_test(tc, arrives_then_posted);
	tcase_add_test(tc, wildcards);
	tcase_add_test(tc, fair_hash_vs_wild);
	tcase_add_test(tc, non_overtaking_same_tag);
	tcase_add_test(tc, non_overtaking_any_tag);
	tcase_add_test(tc, earliest_unexpected);
	tcase_add_test(tc, many_contexts);
	tcase_add_test(tc, ten_thousand_unexpected);
	tcase_add_test(tc, src_rank_differs_from_peer);
	tcase_add_loop_test(tc, random_against_model, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(queue_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
