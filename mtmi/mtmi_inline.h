/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_inline.h: the inline fast paths of MTMI's own-queue engine,
 * included at the end of mtmi.h so that the MPI core compiles them into
 * MPI_Isend/MPI_Irecv.
 *
 * Fast send: an eager standard or ready message (size <= the peer's
 * device eager limit) to a device with in-place frames (shm) is written
 * straight into the peer's ring, header and payload, and completes at
 * once. Over other devices (tcp) it is one header on the stack and one
 * device send, in mtmi_isend_eager, out of line so that the shared-memory
 * path stays short. Fast
 * receive: an exact (source, tag) receive looks at one hash bucket of the
 * unexpected queue and, when it is empty, appends itself to the same
 * bucket's posted list. Everything else (wildcards, rendezvous, sync
 * mode, a device that queued the send, a non-empty bucket) goes out of
 * line to mtmi_queue.c and mtmi_proto.c.
 */
#ifndef MICHI_MTMI_INLINE_H
#define MICHI_MTMI_INLINE_H

#include <string.h>
#include <sys/uio.h>

#include "device.h"
#include "mtmi_hdr.h"

/* struct mtmi_req.flags, engine private */
enum {
	MTMI_RF_WAIT_SEND = 0x01,    /* a payload frame of r is at the device */
	MTMI_RF_WAIT_ACK = 0x02,     /* eager sync: SYNC_ACK not yet back */
	MTMI_RF_WAIT_CTS = 0x04,     /* rendezvous: CTS not yet back */
	MTMI_RF_WAIT_CANCEL = 0x08,  /* CANCEL_REQ sent, CANCEL_ACK not back */
	MTMI_RF_INCALL = 0x10,       /* inside mtmi_isend's own device call */
	MTMI_RF_WAIT_MASK = 0x1f,    /* a send completes when none is left */
	MTMI_RF_PENDING = 0x100,     /* on the pending-send list */
	MTMI_RF_POSTED = 0x200,      /* recv on a posted list (priv = list) */
	MTMI_RF_WAIT_DATA = 0x400,   /* recv matched an RTS, on the active list */
	MTMI_RF_WAIT_RADDR = 0x800,  /* recv matched an RTS whose address is coming */
};

struct mtmi_msg;

struct mtmi_rlist {
	struct mtmi_req *head, *tail;
};

struct mtmi_ulist {
	struct mtmi_msg *head, *tail;
};

/* One bucket of the exact-match hash keyed on (ctx, src_rank, tag): both
 * queues side by side so the fast receive touches one cache line. */
struct mtmi_bucket {
	struct mtmi_rlist posted;    /* in posting order */
	struct mtmi_ulist unexp;     /* in arrival order */
};

extern struct mtmi_bucket *mtmi_buckets;
extern uint32_t mtmi_bucket_mask;
extern uint64_t mtmi_post_seq;
extern uint32_t *mtmi_tx_seq;        /* per peer: next frame number to send */
extern unsigned mtmi_nfailed;        /* peers that failed so far */

michi_status_t mtmi_isend_slow(const void *buf, size_t len, int peer, int src_rank,
			       int tag, uint32_t ctx, int mode, struct mtmi_req *r);
michi_status_t mtmi_isend_eager(const void *buf, size_t len, int peer, int src_rank,
				int tag, uint32_t ctx, struct mtmi_req *r);
michi_status_t mtmi_irecv_slow(struct mtmi_req *r, struct mtmi_bucket *b);

static inline uint32_t mtmi_hash(uint32_t ctx, int src_rank, int tag)
{
	uint32_t h = ctx * 0x9e3779b1u ^ (uint32_t)src_rank * 0x85ebca77u ^
		     (uint32_t)tag * 0xc2b2ae3du;

	return (h ^ (h >> 16)) & mtmi_bucket_mask;
}

static inline void mtmi_rlist_append(struct mtmi_rlist *l, struct mtmi_req *r)
{
	r->next = NULL;
	r->prev = l->tail;
	if (l->tail)
		l->tail->next = r;
	else
		l->head = r;
	l->tail = r;
}

static inline void mtmi_rlist_del(struct mtmi_rlist *l, struct mtmi_req *r)
{
	if (r->prev)
		r->prev->next = r->next;
	else
		l->head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		l->tail = r->prev;
}

/* Mark r complete: status fields first, done last, then the owner's hook. */
static inline void mtmi_req_finish(struct mtmi_req *r)
{
	r->done = 1;
	if (unlikely(r->on_complete != NULL))
		r->on_complete(r);
}

/* Copy a payload that is usually a few bytes without a call: two
 * overlapping loads and stores cover any length within each range. */
static inline __attribute__((always_inline)) void mtmi_copy(void *dst, const void *src,
							     size_t n)
{
	char *d = dst;
	const char *s = src;

	if (likely(n <= 16)) {
		if (n >= 8) {
			uint64_t a, b;

			__builtin_memcpy(&a, s, 8);
			__builtin_memcpy(&b, s + n - 8, 8);
			__builtin_memcpy(d, &a, 8);
			__builtin_memcpy(d + n - 8, &b, 8);
		} else if (n >= 4) {
			uint32_t a, b;

			__builtin_memcpy(&a, s, 4);
			__builtin_memcpy(&b, s + n - 4, 4);
			__builtin_memcpy(d, &a, 4);
			__builtin_memcpy(d + n - 4, &b, 4);
		} else if (n) {
			d[0] = s[0];
			d[n / 2] = s[n / 2];
			d[n - 1] = s[n - 1];
		}
		return;
	}
	memcpy(d, s, n);
}

static inline __attribute__((always_inline)) michi_status_t
mtmi_isend_inline(const void *buf, size_t len, int peer, int src_rank, int tag,
		  uint32_t ctx, int mode, struct mtmi_req *r)
{
	struct michi_device *d = michi_dev_for_peer[peer];
	struct mtmi_hdr *hp;
	uint64_t tok;

	if (unlikely(len > d->eager_limit || mode == MTMI_MODE_SYNC))
		return mtmi_isend_slow(buf, len, peer, src_rank, tag, ctx, mode, r);
	hp = michi_dev_frame_begin(d, peer, len, &tok);
	if (unlikely(hp == NULL))
		return mtmi_isend_eager(buf, len, peer, src_rank, tag, ctx, r);
	/* complete before the frame goes out: nothing can tell the
	 * difference, and the stores into the frame come after */
	r->done = 1;
	r->error = 0;
	r->cancelled = 0;
	r->type = MTMI_REQ_SEND;
	r->count = len;
	hp->len = len;
	hp->type = MTMI_F_EAGER;
	hp->flags = 0;
	hp->rsvd = 0;
	hp->seq = mtmi_tx_seq[peer]++;
	hp->ctx = ctx;
	hp->src_rank = src_rank;
	hp->tag = tag;
	hp->rsvd2 = 0;
	hp->sid = (uintptr_t)r;
	hp->aux = 0;
	mtmi_copy(hp + 1, buf, len);
	michi_dev_frame_end(peer, hp, tok);
	if (unlikely(r->on_complete != NULL))
		r->on_complete(r);
	return MICHI_OK;
}

static inline __attribute__((always_inline)) michi_status_t
mtmi_irecv_inline(void *buf, size_t len, int peer, int src_rank, int tag,
		  uint32_t ctx, struct mtmi_req *r)
{
	struct mtmi_bucket *b;

	r->done = 0;
	r->error = 0;
	r->cancelled = 0;
	r->type = MTMI_REQ_RECV;
	r->buf = buf;
	r->len = len;
	r->peer = peer;
	r->src_match = src_rank;
	r->tag_match = tag;
	r->ctx = ctx;
	if (unlikely((src_rank | tag) < 0))
		return mtmi_irecv_slow(r, NULL);
	b = &mtmi_buckets[mtmi_hash(ctx, src_rank, tag)];
	if (unlikely(b->unexp.head != NULL || mtmi_nfailed))
		return mtmi_irecv_slow(r, b);
	r->post_seq = mtmi_post_seq++;
	r->flags = MTMI_RF_POSTED;
	r->priv = &b->posted;
	mtmi_rlist_append(&b->posted, r);
	return MICHI_INPROGRESS;
}

#endif
