/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_inline.h: the inline fast paths of MTMI's own-queue engine,
 * included at the end of mtmi.h so that the MPI core compiles them into
 * MPI_Isend/MPI_Irecv.
 *
 * Fast send: an eager standard or ready message (size <= the peer's
 * device eager limit) to a device with in-place frames (shm) is written
 * straight into the peer's ring, header and payload, and completes at
 * once. Over other devices (tcp), or when the ring has no room, it is
 * one header on the stack and one device send (mtmi_isend_iov). Fast
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
	MTMI_RF_WAIT_FIN = 0x20,     /* split rendezvous: receiver still reading */
	MTMI_RF_WAIT_FIN2 = 0x40,    /* ... and reading the part our push missed */
	MTMI_RF_WAIT_FILL = 0x80,    /* streamed: the sender has not published all */
	MTMI_RF_WAIT_MASK = 0xff,    /* a send completes when none is left */
	MTMI_RF_PENDING = 0x100,     /* on the pending-send list */
	MTMI_RF_POSTED = 0x200,      /* recv on a posted list (priv = list) */
	MTMI_RF_WAIT_DATA = 0x400,   /* recv matched an RTS, on the active list */
	MTMI_RF_WAIT_RADDR = 0x800,  /* recv matched an RTS whose address is coming */
	MTMI_RF_WAIT_PUSH = 0x1000,  /* split rendezvous: sender's half not written yet */
	MTMI_RF_CTS_LATE = 0x2000,   /* streamed send: CTS came before its last byte */
	MTMI_RF_WAIT_STREAM = 0x4000, /* recv pulling a streamed rendezvous */
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

extern struct mtmi_bucket *mtmi_buckets MICHI_HIDDEN;
extern uint32_t mtmi_bucket_mask MICHI_HIDDEN;
extern uint64_t mtmi_post_seq MICHI_HIDDEN;
extern uint32_t *mtmi_tx_seq MICHI_HIDDEN;        /* per peer: next frame number to send */
extern unsigned mtmi_nfailed MICHI_HIDDEN;        /* peers that failed so far */

michi_status_t mtmi_isend_slow(const void *buf, size_t len, int peer, int src_rank,
			       int tag, uint32_t ctx, int mode, struct mtmi_req *r);
michi_status_t mtmi_isend_queued(struct mtmi_req *r, michi_status_t st, int peer);
michi_status_t mtmi_irecv_slow(struct mtmi_req *r, struct mtmi_bucket *b);

/*
 * The bucket of (ctx, src_rank, tag). Only the tag's low 20 bits count:
 * tags that differ above them share a bucket, in arrival order. The
 * collectives number their calls up there (coll/coll.h, COLL_SEQ_SHIFT),
 * so a source that runs many calls ahead (the leaves of a reduce tree)
 * queues them in one bucket, oldest first, where the next receive finds
 * its message at the head instead of walking buckets full of later calls.
 */
#define MTMI_HASH_TAG_MASK 0xfffffu

static inline uint32_t mtmi_hash(uint32_t ctx, int src_rank, int tag)
{
	uint32_t h = ctx * 0x9e3779b1u ^ (uint32_t)src_rank * 0x85ebca77u ^
		     ((uint32_t)tag & MTMI_HASH_TAG_MASK) * 0xc2b2ae3du;

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

#include "mtmi_native.h"

/* Payloads up to this many bytes are copied inline, with no call. */
#define MTMI_COPY_INLINE_MAX 256

/* Copy a payload that is usually a few bytes without a call: two
 * overlapping loads and stores cover any length within each range, and
 * 16-byte steps up to MTMI_COPY_INLINE_MAX. */
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
	if (n <= MTMI_COPY_INLINE_MAX) {
		size_t i;
		char last[16];

		__builtin_memcpy(last, s + n - 16, 16);
		for (i = 0; i + 16 < n; i += 16)
			__builtin_memcpy(d + i, s + i, 16);
		__builtin_memcpy(d + n - 16, last, 16);
		return;
	}
	memcpy(d, s, n);
}

/* The header's (ctx, src_rank) word, as the MPI core keeps it per
 * communicator (struct michi_comm: ctx then rank). */
static inline uint64_t mtmi_ctx_src(uint32_t ctx, int src_rank)
{
	return ctx | (uint64_t)(uint32_t)src_rank << 32;
}

/* An eager send's request fields (all but done) and its header, written
 * as whole words: type, flags and rsvd with seq; ctx with src_rank; tag
 * with rsvd2 (the layout is checked in mtmi.c). */
static inline __attribute__((always_inline)) void
mtmi_eager_start(struct mtmi_req *r, uint64_t *w, size_t len, int peer, uint64_t ctx_src,
		 int tag)
{
	r->error = 0;
	r->cancelled = 0;
	r->type = MTMI_REQ_SEND;
	r->count = len;
	w[0] = len;
	w[1] = MTMI_F_EAGER | (uint64_t)mtmi_tx_seq[peer]++ << 32;
	w[2] = ctx_src;
	w[3] = (uint32_t)tag;
	w[4] = (uintptr_t)r;
	w[5] = 0;
}

/*
 * The eager in-place send in two steps, for callers that want to check
 * everything before changing anything (the MPI core's leaf fast paths):
 * mtmi_eager_begin reserves the frame and returns 1 with its header
 * slot, or returns 0 changing nothing when this send cannot take the
 * in-place path (too large, a device without in-place frames, no room
 * now); a reserved frame must be committed at once: mtmi_eager_commit
 * fills the frame, publishes it and completes r, whose
 * owner has set no on_complete hook (it is not called); when it returns
 * nonzero the caller calls mtmi_eager_wake(peer), out of line.
 */
static inline __attribute__((always_inline)) int
mtmi_eager_begin(size_t len, int peer, struct mtmi_hdr **hp, uint64_t *tok)
{
	/* the device refuses frames above its eager limit */
	return michi_dev_frame_begin(michi_dev_for_peer[peer], peer, len, (void **)hp, tok);
}


/* Returns nonzero when the receiver must be woken: mtmi_eager_wake. */
static inline __attribute__((always_inline)) int
mtmi_eager_commit(struct mtmi_hdr *hp, uint64_t tok, const void *buf, size_t len, int peer,
		  uint64_t ctx_src, int tag, struct mtmi_req *r)
{
	uint64_t *w = (uint64_t *)hp;

	r->done = 1;
	mtmi_eager_start(r, w, len, peer, ctx_src, tag);
	mtmi_copy(hp + 1, buf, len);
	return michi_dev_frame_end(peer, hp, tok);
}

static inline int mtmi_eager_wake(int peer)
{
	return michi_dev_frame_wake(peer);
}

/* An eager send through device d's send() (d serves peer): header on
 * the stack, payload from the caller's buffer (tcp's inline sendmsg). A
 * caller that knows d at compile time gets only that device's path. */
static inline __attribute__((always_inline)) michi_status_t
mtmi_isend_dev_hook(struct michi_device *d, const void *buf, size_t len, int peer,
		    uint64_t ctx_src, int tag, struct mtmi_req *r, int hook)
{
	uint64_t h[MICHI_FRAME_HDR_SIZE / 8];   /* a struct mtmi_hdr, as words */
	struct iovec iov[2];
	michi_status_t st;

	/* done stays as it was until the device answers: devices call
	 * send_done only from progress, never inside send */
	mtmi_eager_start(r, h, len, peer, ctx_src, tag);
	iov[0].iov_base = h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = (void *)buf;
	iov[1].iov_len = len;
	st = michi_dev_send(d, peer, iov, 2, r);
	if (unlikely(st != MICHI_OK)) {
		r->done = 0;
		return mtmi_isend_queued(r, st, peer);
	}
	if (hook)
		mtmi_req_finish(r);
	else
		r->done = 1;
	return MICHI_OK;
}

/* For callers whose request has no on_complete hook (not called);
 * ctx_src as mtmi_ctx_src() makes it. */
static inline __attribute__((always_inline)) michi_status_t
mtmi_isend_dev(struct michi_device *d, const void *buf, size_t len, int peer,
	       uint64_t ctx_src, int tag, struct mtmi_req *r)
{
	return mtmi_isend_dev_hook(d, buf, len, peer, ctx_src, tag, r, 0);
}

/* The largest payload MTMI sends eagerly to peer (its device's limit). */
static inline __attribute__((always_inline)) size_t mtmi_eager_limit(int peer)
{
	return michi_dev_for_peer[peer]->eager_limit;
}

/*
 * The direct send: the byte device whose send() michi_dev_send() puts
 * inline first (devices/fast.h's MICHI_FAST_SEND_1: tcp's sendmsg, the
 * path of a device without in-place frames). A caller whose mtmi_eager_begin() refused
 * asks mtmi_peer_direct(peer) whether that device serves peer, and then
 * mtmi_isend_direct() compiles in that device's path alone, with no
 * pointer to follow: the MPI core's Isend knows no device by name.
 * mtmi_isend_direct is mtmi_isend_dev for that device: eager only (its
 * eager limit is at least MTMI_COPY_INLINE_MAX), no on_complete hook.
 */
#ifdef MICHI_FAST_SEND_1
#define MTMI_DIRECT_DEV (&MICHI_CAT(michi_device_, MICHI_FAST_SEND_1))

static inline __attribute__((always_inline)) int mtmi_peer_direct(int peer)
{
	return michi_dev_for_peer[peer] == MTMI_DIRECT_DEV;
}

static inline __attribute__((always_inline)) michi_status_t
mtmi_isend_direct(const void *buf, size_t len, int peer, uint64_t ctx_src, int tag,
		  struct mtmi_req *r)
{
	return mtmi_isend_dev(MTMI_DIRECT_DEV, buf, len, peer, ctx_src, tag, r);
}
#else
/* no device with an inline send (devices/fast.h): never direct */
static inline int mtmi_peer_direct(int peer)
{
	(void)peer;
	return 0;
}

static inline michi_status_t mtmi_isend_direct(const void *buf, size_t len, int peer,
					       uint64_t ctx_src, int tag, struct mtmi_req *r)
{
	(void)buf, (void)len, (void)peer, (void)ctx_src, (void)tag, (void)r;
	return MICHI_ERR_INTERN;
}
#endif

static inline __attribute__((always_inline)) michi_status_t
mtmi_isend_iov(const void *buf, size_t len, int peer, int src_rank, int tag, uint32_t ctx,
	       struct mtmi_req *r)
{
	return mtmi_isend_dev_hook(michi_dev_for_peer[peer], buf, len, peer,
				   mtmi_ctx_src(ctx, src_rank), tag, r, 1);
}

static inline __attribute__((always_inline)) michi_status_t
mtmi_isend_inline(const void *buf, size_t len, int peer, int src_rank, int tag,
		  uint32_t ctx, int mode, struct mtmi_req *r)
{
	struct mtmi_hdr *hp;
	uint64_t tok;

	if (unlikely(mtmi_tag != NULL))
		return mtmi_native_isend(buf, len, peer, src_rank, tag, ctx, mode, r);
	if (unlikely(mode == MTMI_MODE_SYNC ||
		     len > michi_dev_for_peer[peer]->eager_limit))
		return mtmi_isend_slow(buf, len, peer, src_rank, tag, ctx, mode, r);
	if (!mtmi_eager_begin(len, peer, &hp, &tok))
		return mtmi_isend_iov(buf, len, peer, src_rank, tag, ctx, r);
	/* complete before the frame goes out: nothing can tell the difference */
	if (unlikely(mtmi_eager_commit(hp, tok, buf, len, peer, mtmi_ctx_src(ctx, src_rank),
				       tag, r)))
		mtmi_eager_wake(peer);
	if (unlikely(r->on_complete != NULL))
		r->on_complete(r);
	return MICHI_OK;
}

/*
 * The fast receive in two steps, as the send: mtmi_recv_bucket changes
 * nothing and returns the bucket an exact (src_rank >= 0, tag >= 0)
 * receive would be posted on, or NULL when it must look further (an
 * unexpected message may match, or a peer failed); mtmi_recv_post posts.
 */
static inline __attribute__((always_inline)) struct mtmi_bucket *
mtmi_recv_bucket(int src_rank, int tag, uint32_t ctx)
{
	struct mtmi_bucket *b = &mtmi_buckets[mtmi_hash(ctx, src_rank, tag)];

	if (unlikely(b->unexp.head != NULL || mtmi_nfailed))
		return NULL;
	return b;
}

/* A receive's request fields, before it is posted or matched. */
static inline __attribute__((always_inline)) void
mtmi_recv_init(struct mtmi_req *r, void *buf, size_t len, int peer, int src_rank, int tag,
	       uint32_t ctx)
{
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
}

static inline __attribute__((always_inline)) void
mtmi_recv_post(struct mtmi_bucket *b, void *buf, size_t len, int peer, int src_rank,
	       int tag, uint32_t ctx, struct mtmi_req *r)
{
	mtmi_recv_init(r, buf, len, peer, src_rank, tag, ctx);
	r->post_seq = mtmi_post_seq++;
	r->flags = MTMI_RF_POSTED;
	r->priv = &b->posted;
	mtmi_rlist_append(&b->posted, r);
}

static inline __attribute__((always_inline)) michi_status_t
mtmi_irecv_inline(void *buf, size_t len, int peer, int src_rank, int tag,
		  uint32_t ctx, struct mtmi_req *r)
{
	struct mtmi_bucket *b;

	if (unlikely(mtmi_tag != NULL))
		return mtmi_native_irecv(buf, len, peer, src_rank, tag, ctx, r);
	mtmi_recv_init(r, buf, len, peer, src_rank, tag, ctx);
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
