/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_priv.h: what the files of MTMI's own-queue engine share and
 * nobody else sees: unexpected messages, per-context state, the request
 * lists used for failure handling, and the functions that mtmi.c,
 * mtmi_queue.c and mtmi_proto.c call in one another.
 */
#ifndef MICHI_MTMI_PRIV_H
#define MICHI_MTMI_PRIV_H

#include "mtmi.h"

/*
 * An unexpected message: arrived before a matching receive was posted.
 * It sits on its hash bucket's list and on its context's arrival list
 * (wildcard receives and probes walk the latter), until a receive or an
 * mprobe takes it. Eager payloads live in data[].
 */
struct mtmi_msg {
	struct mtmi_msg *hnext, *hprev;    /* bucket->unexp */
	struct mtmi_msg *anext, *aprev;    /* ctx->arrival */
	struct mtmi_bucket *bucket;
	struct mtmi_ctx *c;
	uint32_t ctx;
	int src_rank;
	int tag;
	int peer;
	uint8_t type;          /* MTMI_F_EAGER, _EAGER_SYNC or _RTS */
	uint8_t queued;        /* on the queues (not taken by mprobe/recv) */
	uint8_t complete;      /* payload fully here */
	uint8_t has_addr;      /* RTS: data holds the sender's buffer address
				* (1), then its ready count's (2: streamed) */
	michi_status_t error;  /* the sender failed before the payload came */
	uint32_t seq;          /* frame number, for CANCEL_REQ */
	uint64_t sid;
	size_t len;            /* message size (RTS: the announced size) */
	size_t alloc;          /* bytes usable at data */
	struct mtmi_req *bound;  /* recv that matched before the payload came */
	char data[];
};

/* Per context id: its wildcard receives and its unexpected messages in
 * arrival order. Created on first use, kept until finalize. */
struct mtmi_ctx {
	struct mtmi_ctx *hnext;
	struct mtmi_ctx *all_next;
	uint32_t id;
	struct mtmi_rlist wild;
	struct mtmi_ulist arrival;
};

/* cookies handed to devices: requests as they are, messages tagged */
#define MTMI_COOKIE_MSG 1u

extern struct mtmi_rlist mtmi_pending_sends MICHI_HIDDEN;
extern struct mtmi_rlist mtmi_active_recvs MICHI_HIDDEN;
extern struct mtmi_rlist mtmi_stream_recvs MICHI_HIDDEN;
int mtmi_stream_poll(void) MICHI_HIDDEN;
extern unsigned mtmi_nwild MICHI_HIDDEN;
extern int mtmi_nranks MICHI_HIDDEN;
extern uint32_t *mtmi_rx_seq MICHI_HIDDEN;
extern uint8_t *mtmi_peer_dead MICHI_HIDDEN;

/* A receive or probe from peer can never be satisfied by a new message:
 * that rank failed, or, for MTMI_ANY_SOURCE, every other rank did. */
static inline int mtmi_peer_gone(int peer)
{
	if (peer >= 0)
		return mtmi_peer_dead[peer];
	return peer == MTMI_ANY_SOURCE && mtmi_nranks > 1 &&
	       mtmi_nfailed >= (unsigned)mtmi_nranks - 1;
}
extern void **mtmi_rx_cur MICHI_HIDDEN;       /* per peer: cookie of the frame being received */

/* mtmi_queue.c */
michi_status_t mtmi_queue_init(size_t nbuckets);
void mtmi_queue_fini(void);
struct mtmi_ctx *mtmi_ctx_get(uint32_t id);
struct mtmi_ctx *mtmi_ctx_find(uint32_t id);
struct mtmi_req *mtmi_queue_match_posted(uint32_t ctx, int src_rank, int tag,
					 struct mtmi_bucket *b);
michi_status_t mtmi_queue_post(struct mtmi_req *r, struct mtmi_bucket *b);
void mtmi_queue_post_del(struct mtmi_req *r);
struct mtmi_msg *mtmi_queue_find_unexp(uint32_t ctx, int src_rank, int tag,
				       struct mtmi_bucket *b);
struct mtmi_msg *mtmi_msg_alloc(size_t len);
void mtmi_msg_free(struct mtmi_msg *m);
michi_status_t mtmi_queue_unexp_add(struct mtmi_msg *m, struct mtmi_bucket *b);
void mtmi_queue_unexp_del(struct mtmi_msg *m);
struct mtmi_msg *mtmi_queue_find_seq(int peer, uint32_t seq);
void mtmi_queue_fail_peer(int peer, michi_status_t st);

/* mtmi_native.c: the backend, from the device layer's choice */
void mtmi_native_choose(void);

/* mtmi_proto.c */
void mtmi_proto_fini(void);
void mtmi_recv_complete(struct mtmi_req *r, michi_status_t st);
void mtmi_send_check_done(struct mtmi_req *r);

static inline int mtmi_matches(const struct mtmi_req *r, int src_rank, int tag)
{
	return (r->src_match == src_rank || r->src_match == MTMI_ANY_SOURCE) &&
	       (r->tag_match == tag || r->tag_match == MTMI_ANY_TAG);
}

static inline void mtmi_ulist_append_h(struct mtmi_ulist *l, struct mtmi_msg *m)
{
	m->hnext = NULL;
	m->hprev = l->tail;
	if (l->tail)
		l->tail->hnext = m;
	else
		l->head = m;
	l->tail = m;
}

static inline void mtmi_ulist_del_h(struct mtmi_ulist *l, struct mtmi_msg *m)
{
	if (m->hprev)
		m->hprev->hnext = m->hnext;
	else
		l->head = m->hnext;
	if (m->hnext)
		m->hnext->hprev = m->hprev;
	else
		l->tail = m->hprev;
}

static inline void mtmi_ulist_append_a(struct mtmi_ulist *l, struct mtmi_msg *m)
{
	m->anext = NULL;
	m->aprev = l->tail;
	if (l->tail)
		l->tail->anext = m;
	else
		l->head = m;
	l->tail = m;
}

static inline void mtmi_ulist_del_a(struct mtmi_ulist *l, struct mtmi_msg *m)
{
	if (m->aprev)
		m->aprev->anext = m->anext;
	else
		l->head = m->anext;
	if (m->anext)
		m->anext->aprev = m->aprev;
	else
		l->tail = m->aprev;
}

/* Room for peer indices up to n - 1 (processes of other jobs, mtmi_dyn.c);
 * MICHI_ERR_UNSUPPORTED over a matching device. */
michi_status_t mtmi_peers_grow(int n);

#endif
