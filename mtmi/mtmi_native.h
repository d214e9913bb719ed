/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_native.h: MTMI's native backend (docs/design.md §3), inline. When
 * the job runs over a matching device (ofi, ucx), every MTMI call becomes
 * one call of the device's tagged operations (devices/device.h, struct
 * michi_tag_ops): MTMI packs (context, source rank, tag) into the 64-bit
 * match tag, and turns the device's completion back into the request's
 * status. No queue, no copy, no allocation in MTMI on this path.
 *
 * The match tag (devices/device.h, MICHI_TAG_*), bit 0 up:
 *
 *   bits  0..31  the tag: MPI's are 0..0x7fffffff (the collectives number
 *                their calls in bits 20..30), the library's own calls
 *                (communicator creation) use negative ones
 *   bits 32..50  the sender's rank in the communicator (19 bits)
 *   bits 51..62  the context id (12 bits: mpi/comm/comm_create.c hands out
 *                fewer than 4096)
 *   bit  63      the device's own (MICHI_TAG_DEVICE_BIT)
 *
 * MTMI_ANY_SOURCE and MTMI_ANY_TAG become ignored bits. The source rank
 * travels in the tag rather than in the library's source address, so
 * that UCX (which matches tags only) and every libfabric provider match
 * the same way; a device may still narrow a receive to its peer.
 */
#ifndef MICHI_MTMI_NATIVE_H
#define MICHI_MTMI_NATIVE_H

#define MTMI_NT_SRC_SHIFT MICHI_TAG_SRC_SHIFT
#define MTMI_NT_CTX_SHIFT MICHI_TAG_CTX_SHIFT
#define MTMI_NT_TAG_MASK 0xffffffffull
#define MTMI_NT_SRC_MASK MICHI_TAG_SRC_MASK
#define MTMI_NT_RANKS_MAX (1 << MICHI_TAG_SRC_BITS)   /* ranks a communicator may have */

/* The matching device's operations when the job runs over one, else
 * NULL (the own-queue engine of mtmi_inline.h). */
extern const struct michi_tag_ops *mtmi_tag MICHI_HIDDEN;

/*
 * The inline paths of the matching devices (michi_tag_send and
 * michi_tag_recv compile one in for a constant `dev`, devices/device.h):
 * MTMI_NATIVE_INLINES(X) is X(name, dev) for each device built with one
 * (devices/fast.h's MICHI_FAST_TAG_1 and _2),
 * so that a caller compiles its native fast path once per device (plus
 * once for MTMI_NATIVE_OPS, through the ops) without naming any, and
 * chooses at MPI_Init the one that mtmi_native_inline() names (after
 * mtmi_init; MTMI_NATIVE_OPS when no device with an inline path serves
 * the job).
 */
#define MTMI_NATIVE_OPS MICHI_TAG_INLINE_NONE
/* through one more macro, so that X gets the slot's device name */
#define MTMI_NATIVE_X_(X, name, dev) X(name, dev)
#if defined(MICHI_FAST_TAG_1) && !defined(MICHI_DEV_NO_INLINE)
#define MTMI_NATIVE_INLINE_1_(X) MTMI_NATIVE_X_(X, MICHI_FAST_TAG_1, MICHI_CAT(MICHI_FAST_TAG_1, _TAG_INLINE))
#else
#define MTMI_NATIVE_INLINE_1_(X)
#endif
#if defined(MICHI_FAST_TAG_2) && !defined(MICHI_DEV_NO_INLINE)
#define MTMI_NATIVE_INLINE_2_(X) MTMI_NATIVE_X_(X, MICHI_FAST_TAG_2, MICHI_CAT(MICHI_FAST_TAG_2, _TAG_INLINE))
#else
#define MTMI_NATIVE_INLINE_2_(X)
#endif
#define MTMI_NATIVE_INLINES(X) MTMI_NATIVE_INLINE_1_(X) MTMI_NATIVE_INLINE_2_(X)

int mtmi_native_inline(void);   /* mtmi_dev.c */

/* The context and source bits of a match tag: a communicator keeps its
 * sends' (mpi/: native_base), so that a send only adds the tag. */
static inline __attribute__((always_inline)) uint64_t
mtmi_native_base(uint32_t ctx, int src_rank)
{
	return (uint64_t)ctx << MTMI_NT_CTX_SHIFT | (uint64_t)(uint32_t)src_rank << MTMI_NT_SRC_SHIFT;
}

static inline __attribute__((always_inline)) uint64_t
mtmi_native_tag(uint32_t ctx, int src_rank, int tag)
{
	return mtmi_native_base(ctx, src_rank) | (uint32_t)tag;
}

/* done and error, adjacent, in one store: done 0 or 1, error 0 */
static inline __attribute__((always_inline)) void mtmi_native_state(struct mtmi_req *r, int done)
{
	uint64_t v = (uint64_t)(uint32_t)done;

	_Static_assert(offsetof(struct mtmi_req, error) == offsetof(struct mtmi_req, done) +
		       sizeof(int), "done and error are adjacent");
	memcpy((void *)&r->done, &v, sizeof(v));
}

/*
 * A send of the whole match tag mt (mtmi_native_base | tag). hook 0: the
 * request has no on_complete (not called), which the caller knows at
 * compile time; dev: the device whose inline send to compile in
 * (michi_tag_send). Most sends complete inside the call, so the request
 * is done before it and undone after it when not: nothing looks at the
 * request in between (the device runs no progress there, and this
 * request's completion is reported only from progress).
 */
static inline __attribute__((always_inline)) michi_status_t
mtmi_native_isend_mt(const void *buf, size_t len, int peer, uint64_t mt, int mode,
		     struct mtmi_req *r, int hook, int dev)
{
	michi_status_t st;

	mtmi_native_state(r, !hook);
	r->cancelled = 0;
	r->type = MTMI_REQ_SEND;
	r->count = len;
	if (likely(mode != MTMI_MODE_SYNC))
		st = michi_tag_send(mtmi_tag, dev, peer, buf, len, mt, r->dev_ctx);
	else
		st = mtmi_tag->send(peer, buf, len, mt, 1, r->dev_ctx);
	if (likely(st == MICHI_OK)) {
		if (hook)
			mtmi_req_finish(r);
	} else if (!hook) {
		r->done = 0;
	}
	return st;
}

static inline __attribute__((always_inline)) michi_status_t
mtmi_native_isend(const void *buf, size_t len, int peer, int src_rank, int tag, uint32_t ctx,
		  int mode, struct mtmi_req *r)
{
	return mtmi_native_isend_mt(buf, len, peer, mtmi_native_tag(ctx, src_rank, tag), mode, r, 1,
				    MICHI_TAG_INLINE_NONE);
}

static inline __attribute__((always_inline)) void
mtmi_native_recv_init(struct mtmi_req *r, size_t len, int peer, uint32_t ctx)
{
	r->done = 0;
	r->error = 0;
	r->cancelled = 0;
	r->type = MTMI_REQ_RECV;
	r->flags = 0;          /* mtmi_recv_have: never a streamed receive */
	r->len = len;
	r->peer = peer;
	r->ctx = ctx;
}

static inline __attribute__((always_inline)) michi_status_t
mtmi_native_irecv(void *buf, size_t len, int peer, int src_rank, int tag, uint32_t ctx,
		  struct mtmi_req *r)
{
	uint64_t t = (uint64_t)ctx << MTMI_NT_CTX_SHIFT, ignore = 0;
	michi_status_t st;

	mtmi_native_recv_init(r, len, peer, ctx);
	if (likely(src_rank >= 0))
		t |= (uint64_t)(uint32_t)src_rank << MTMI_NT_SRC_SHIFT;
	else
		ignore = MTMI_NT_SRC_MASK;
	if (likely(tag != MTMI_ANY_TAG))
		t |= (uint32_t)tag;
	else
		ignore |= MTMI_NT_TAG_MASK;
	st = mtmi_tag->recv(peer >= 0 ? peer : -1, buf, len, t, ignore, r->dev_ctx);
	if (unlikely(st < 0))
		return st;
	return r->done ? MICHI_OK : MICHI_INPROGRESS;
}

/*
 * The MPI fast path's receive: its caller has made the match tag t and
 * the ignore mask, and needs no answer but an error (a receive that
 * completed inside the call has its request done).
 */
static inline __attribute__((always_inline)) michi_status_t
mtmi_native_irecv_mt(void *buf, size_t len, int peer, uint64_t t, uint64_t ignore,
		     struct mtmi_req *r, int dev)
{
	/* as mtmi_native_recv_init, less peer and ctx, which only the
	 * own-queue engine reads */
	mtmi_native_state(r, 0);
	r->cancelled = 0;
	r->type = MTMI_REQ_RECV;
	r->flags = 0;
	r->len = len;
	return michi_tag_recv(mtmi_tag, dev, peer, buf, len, t, ignore, r->dev_ctx);
}

/* The out-of-line rest: probes, matched receives, cancel (mtmi_native.c). */
michi_status_t mtmi_native_probe(int peer, int src_rank, int tag, uint32_t ctx, int claim,
				 int *flag, struct mtmi_msg **msg, int *source_out,
				 int *tag_out, size_t *len_out) MICHI_HIDDEN;
michi_status_t mtmi_native_mrecv(void *buf, size_t len, struct mtmi_msg *msg,
				 struct mtmi_req *r) MICHI_HIDDEN;
michi_status_t mtmi_native_cancel(struct mtmi_req *r) MICHI_HIDDEN;

#endif
