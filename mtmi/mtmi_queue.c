/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_queue.c: the matching queues of MTMI's own-queue engine.
 *
 * Posted receives and unexpected messages share one exact-match hash keyed
 * on (ctx, src_rank, the tag's low bits) (mtmi_hash); each bucket keeps both
 * lists in order. Receives
 * with MTMI_ANY_SOURCE or MTMI_ANY_TAG wait on their context's wildcard
 * list instead, and every unexpected message is also on its context's
 * arrival list. MPI's rule that a message matches the earliest posted
 * matching receive holds across the two posted structures through the
 * requests' post_seq; a receive matches the earliest arrived message
 * because exact receives look at one bucket (in arrival order for their
 * key) and wildcard receives walk the arrival list.
 */
#include "config.h"
#include "mtmi_priv.h"

#include <stdlib.h>
#include <string.h>

#define MTMI_CTX_TAB   256   /* context table slots; chains beyond */
#define MTMI_MSG_SMALL 256   /* eager payloads up to this come from the pool */

struct mtmi_bucket *mtmi_buckets;
uint32_t mtmi_bucket_mask;
unsigned mtmi_nwild;
struct mtmi_stats mtmi_stats;

static struct mtmi_ctx *ctx_tab[MTMI_CTX_TAB];
static struct mtmi_ctx *ctx_all;
/* Free small messages: unexpected traffic comes in bursts, and a freed
 * entry is likely to be needed again soon. */
static struct mtmi_msg *msg_pool;
static size_t msg_pool_n;
static size_t msg_pool_max = 4096;

michi_status_t mtmi_queue_init(size_t nbuckets)
{
	size_t n = 16;

	while (n < nbuckets && n < ((size_t)1 << 30))
		n <<= 1;
	mtmi_buckets = calloc(n, sizeof(*mtmi_buckets));
	if (!mtmi_buckets)
		return michi_err(MICHI_ERR_NOMEM,
				 "mtmi: cannot allocate %zu matching buckets", n);
	mtmi_bucket_mask = (uint32_t)(n - 1);
	return MICHI_OK;
}

static void msg_free_all(struct mtmi_ulist *l)
{
	struct mtmi_msg *m, *next;

	for (m = l->head; m; m = next) {
		next = m->anext;
		free(m);
	}
	l->head = l->tail = NULL;
}

void mtmi_queue_fini(void)
{
	struct mtmi_ctx *c, *next;
	struct mtmi_msg *m;

	for (c = ctx_all; c; c = next) {
		next = c->all_next;
		msg_free_all(&c->arrival);
		free(c);
	}
	ctx_all = NULL;
	mtmi_stats.unexp_len = 0;   /* freed above without mtmi_queue_unexp_del */
	memset(ctx_tab, 0, sizeof(ctx_tab));
	while ((m = msg_pool)) {
		msg_pool = m->hnext;
		free(m);
	}
	msg_pool_n = 0;
	free(mtmi_buckets);
	mtmi_buckets = NULL;
	mtmi_bucket_mask = 0;
	mtmi_nwild = 0;
}

struct mtmi_ctx *mtmi_ctx_find(uint32_t id)
{
	struct mtmi_ctx *c;

	for (c = ctx_tab[id % MTMI_CTX_TAB]; c; c = c->hnext)
		if (c->id == id)
			return c;
	return NULL;
}

struct mtmi_ctx *mtmi_ctx_get(uint32_t id)
{
	struct mtmi_ctx *c = mtmi_ctx_find(id);

	if (likely(c != NULL))
		return c;
	c = calloc(1, sizeof(*c));
	if (!c) {
		michi_err(MICHI_ERR_NOMEM, "mtmi: no memory for context %u", id);
		return NULL;
	}
	c->id = id;
	c->hnext = ctx_tab[id % MTMI_CTX_TAB];
	ctx_tab[id % MTMI_CTX_TAB] = c;
	c->all_next = ctx_all;
	ctx_all = c;
	return c;
}

/*
 * The earliest posted receive matching a message, removed from its queue.
 * The first match in the bucket is the earliest exact one; the first match
 * on the wildcard list the earliest wildcard one; post_seq decides.
 */
struct mtmi_req *mtmi_queue_match_posted(uint32_t ctx, int src_rank, int tag,
					 struct mtmi_bucket *b)
{
	struct mtmi_req *r, *w = NULL;
	struct mtmi_ctx *c;

	for (r = b->posted.head; r; r = r->next)
		if (r->ctx == ctx && r->src_match == src_rank && r->tag_match == tag)
			break;
	if (unlikely(mtmi_nwild != 0) && (c = mtmi_ctx_find(ctx)) != NULL) {
		for (w = c->wild.head; w; w = w->next)
			if (mtmi_matches(w, src_rank, tag))
				break;
		if (w && (!r || w->post_seq < r->post_seq)) {
			r = w;
			mtmi_nwild--;
		}
	}
	if (r) {
		mtmi_rlist_del(r->priv, r);
		r->flags &= ~MTMI_RF_POSTED;
	}
	return r;
}

/* Post r (its match fields set); b is its bucket, NULL for a wildcard. */
michi_status_t mtmi_queue_post(struct mtmi_req *r, struct mtmi_bucket *b)
{
	struct mtmi_ctx *c;

	r->post_seq = mtmi_post_seq++;
	r->flags = MTMI_RF_POSTED;
	if (b) {
		r->priv = &b->posted;
	} else {
		c = mtmi_ctx_get(r->ctx);
		if (!c)
			return MICHI_ERR_NOMEM;
		r->priv = &c->wild;
		mtmi_nwild++;
	}
	mtmi_rlist_append(r->priv, r);
	return MICHI_OK;
}

void mtmi_queue_post_del(struct mtmi_req *r)
{
	mtmi_rlist_del(r->priv, r);
	r->flags &= ~MTMI_RF_POSTED;
	if (r->src_match < 0 || r->tag_match < 0)
		mtmi_nwild--;
}

/* The earliest arrived unexpected message matching a receive's triple
 * (either may be a wildcard); b is the bucket of an exact triple. */
struct mtmi_msg *mtmi_queue_find_unexp(uint32_t ctx, int src_rank, int tag,
				       struct mtmi_bucket *b)
{
	struct mtmi_msg *m;
	struct mtmi_ctx *c;
	uint64_t n = 0;

	if (b) {
		for (m = b->unexp.head; m; m = m->hnext) {
			n++;
			if (m->ctx == ctx && m->src_rank == src_rank && m->tag == tag)
				break;
		}
	} else {
		c = mtmi_ctx_find(ctx);
		for (m = c ? c->arrival.head : NULL; m; m = m->anext) {
			n++;
			if ((src_rank == MTMI_ANY_SOURCE || m->src_rank == src_rank) &&
			    (tag == MTMI_ANY_TAG || m->tag == tag))
				break;
		}
	}
	mtmi_stats.unexp_cmp += n;
	return m;
}

struct mtmi_msg *mtmi_msg_alloc(size_t len)
{
	struct mtmi_msg *m;

	if (len <= MTMI_MSG_SMALL && msg_pool) {
		m = msg_pool;
		msg_pool = m->hnext;
		msg_pool_n--;
	} else {
		size_t cap = len <= MTMI_MSG_SMALL ? MTMI_MSG_SMALL : len;

		m = malloc(sizeof(*m) + cap);
		if (!m) {
			michi_err(MICHI_ERR_NOMEM,
				  "mtmi: no memory for an unexpected message of %zu bytes",
				  len);
			return NULL;
		}
		m->alloc = cap;
	}
	m->queued = 0;
	m->complete = 0;
	m->error = 0;
	m->bound = NULL;
	m->len = len;
	return m;
}

void mtmi_msg_free(struct mtmi_msg *m)
{
	if (m->alloc == MTMI_MSG_SMALL && msg_pool_n < msg_pool_max) {
		m->hnext = msg_pool;
		msg_pool = m;
		msg_pool_n++;
		return;
	}
	free(m);
}

/* A tool listens (mtmi_event_hook): say that m arrived unexpected. */
static __attribute__((noinline, cold)) void unexp_event(const struct mtmi_msg *m)
{
	struct mtmi_event ev;

	ev.kind = MTMI_EVENT_UNEXPECTED;
	ev.peer = m->peer;
	ev.src_rank = m->src_rank;
	ev.tag = m->tag;
	ev.ctx = m->ctx;
	ev.proto = m->type == MTMI_F_RTS ? MTMI_PROTO_RNDV
		 : m->type == MTMI_F_EAGER_SYNC ? MTMI_PROTO_EAGER_SYNC : MTMI_PROTO_EAGER;
	ev.len = m->len;
	mtmi_event_hook(&ev);
}

/* Append m (its triple set) to its bucket and its context's arrival list. */
michi_status_t mtmi_queue_unexp_add(struct mtmi_msg *m, struct mtmi_bucket *b)
{
	struct mtmi_ctx *c = mtmi_ctx_get(m->ctx);

	if (!c)
		return MICHI_ERR_NOMEM;
	m->c = c;
	m->bucket = b;
	mtmi_ulist_append_h(&b->unexp, m);
	mtmi_ulist_append_a(&c->arrival, m);
	m->queued = 1;
	if (++mtmi_stats.unexp_len > mtmi_stats.unexp_max)
		mtmi_stats.unexp_max = mtmi_stats.unexp_len;
	if (unlikely(mtmi_event_hook != NULL))
		unexp_event(m);
	return MICHI_OK;
}

void mtmi_queue_unexp_del(struct mtmi_msg *m)
{
	mtmi_ulist_del_h(&m->bucket->unexp, m);
	mtmi_ulist_del_a(&m->c->arrival, m);
	m->queued = 0;
	mtmi_stats.unexp_len--;
}

/* CANCEL_REQ is rare: a walk over every context is fine. */
struct mtmi_msg *mtmi_queue_find_seq(int peer, uint32_t seq)
{
	struct mtmi_ctx *c;
	struct mtmi_msg *m;

	for (c = ctx_all; c; c = c->all_next)
		for (m = c->arrival.head; m; m = m->anext)
			if (m->peer == peer && m->seq == seq)
				return m;
	return NULL;
}

static void fail_posted(struct mtmi_rlist *l, int peer, michi_status_t st)
{
	struct mtmi_req *r, *next;

	for (r = l->head; r; r = next) {
		next = r->next;
		if (r->peer != peer)
			continue;
		mtmi_queue_post_del(r);
		mtmi_recv_complete(r, st);
	}
}

/*
 * peer is gone: receives posted for it fail, and its unexpected
 * rendezvous offers are dropped (their data can never come). Eager
 * messages already here stay receivable: their data is complete.
 * Receives from MTMI_ANY_SOURCE stay posted while another sender may
 * still match them, and fail once every other rank is gone.
 */
void mtmi_queue_fail_peer(int peer, michi_status_t st)
{
	struct mtmi_msg *m, *next;
	struct mtmi_ctx *c;
	size_t i;

	for (i = 0; i <= mtmi_bucket_mask; i++)
		if (mtmi_buckets[i].posted.head)
			fail_posted(&mtmi_buckets[i].posted, peer, st);
	for (c = ctx_all; c; c = c->all_next) {
		fail_posted(&c->wild, peer, st);
		if (mtmi_peer_gone(MTMI_ANY_SOURCE))
			fail_posted(&c->wild, MTMI_ANY_SOURCE, st);
		for (m = c->arrival.head; m; m = next) {
			next = m->anext;
			if (m->peer != peer || m->type != MTMI_F_RTS)
				continue;
			mtmi_queue_unexp_del(m);
			mtmi_msg_free(m);
		}
	}
}
