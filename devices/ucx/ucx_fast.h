/* SPDX-License-Identifier: MIT */
/*
 * devices/ucx/ucx_fast.h: the ucx device's tagged send and receive,
 * inline (docs/design.md §2: a small message reaches its device with no
 * function pointer of ours). michi_tag_send() and michi_tag_recv() of
 * devices/device.h take these when the job runs over ucx, so that MPI_Isend
 * and MPI_Irecv make one call, UCX's. Everything else (the first send to
 * a rank, which connects; a send UCX keeps; errors) is out of line in
 * ucx.c, which also keeps what these read in michi_ucx_fast.
 */
#ifndef MICHI_UCX_FAST_H
#define MICHI_UCX_FAST_H

#include <ucp/api/ucp.h>

#include "michi.h"

/*
 * ucp_tag_recv_nbx fills recv_info on an immediate completion only from
 * UCX 1.16 (openucx/ucx#9425, fixed by #9440); before, the length and
 * tag of a message that completed inside the call are lost. There the
 * receive asks for no immediate completion: the callback then runs
 * inside the call with the message's tag info.
 */
#if UCP_API_VERSION >= UCP_VERSION(1, 16)
#define UCX_RECV_IMM 1
#else
#define UCX_RECV_IMM 0
#endif

/* What a tagged operation keeps in the caller's MICHI_TAG_CTX_SIZE bytes. */
struct ucx_op {
	void *req;      /* UCX's request while a receive is posted */
	size_t cap;     /* the receive's capacity: a truncation reports it */
};

/*
 * The state the inline paths read. The ucp_request_param_t of each kind
 * of call is built once; a call stores only its user_data (the worker is
 * used by one thread at a time, and no callback runs between that store
 * and UCX's reading of it).
 */
struct ucx_fast {
	ucp_worker_h worker;
	ucp_ep_h *eps;          /* per world rank, NULL until the first send to it */
	/* UCX's, resolved when the device starts (ucx.c: michi_devlib_open) */
	__typeof__(ucp_tag_send_nbx) *tag_send_nbx;
	__typeof__(ucp_tag_recv_nbx) *tag_recv_nbx;
	ucp_request_param_t send_param, recv_param;
	/* receives posted whose callback has not run: MPI_Finalize must
	 * complete those of freed requests (ucx.c: ucx_finalize) */
	size_t nrecv;
#if UCX_RECV_IMM
	ucp_tag_recv_info_t imm_info;   /* a receive that completed inside the call */
#endif
	struct michi_upcalls up;        /* MTMI's, copied at init (job->up) */
};
extern struct ucx_fast michi_ucx_fast MICHI_HIDDEN;
extern const struct michi_tag_ops michi_ucx_tag_ops MICHI_HIDDEN;

/* ucx.c: a send UCX did not finish inside the call (or refused), and a
 * receive it refused (no callback follows: it uncounts it) */
michi_status_t ucx_send_started(void *req) MICHI_HIDDEN __attribute__((noinline));
michi_status_t ucx_recv_err(struct ucx_op *op, void *req) MICHI_HIDDEN
	__attribute__((noinline, cold));

static inline __attribute__((always_inline)) michi_status_t
ucx_send_fast(int peer, const void *buf, size_t len, uint64_t tag, void *ctx)
{
	ucp_ep_h ep = michi_ucx_fast.eps[peer];
	void *req;

	if (unlikely(ep == NULL))     /* connects first */
		return michi_ucx_tag_ops.send(peer, buf, len, tag, 0, ctx);
	michi_ucx_fast.send_param.user_data = ctx;
	req = michi_ucx_fast.tag_send_nbx(ep, buf, len, tag, &michi_ucx_fast.send_param);
	if (likely(req == NULL))
		return MICHI_OK;
	return ucx_send_started(req);
}

/* UCX matches on tags only; the source rank is in the tag (peer unused). */
static inline __attribute__((always_inline)) michi_status_t
ucx_recv_fast(int peer, void *buf, size_t len, uint64_t tag, uint64_t ignore, void *ctx)
{
	struct ucx_op *op = ctx;
	void *req;

	/* before the call: the callback may run inside it */
	op->cap = len;
	michi_ucx_fast.nrecv++;
	michi_ucx_fast.recv_param.user_data = ctx;
	req = michi_ucx_fast.tag_recv_nbx(michi_ucx_fast.worker, buf, len, tag, ~ignore,
					  &michi_ucx_fast.recv_param);
#if UCX_RECV_IMM
	if (req == NULL) {
		michi_ucx_fast.nrecv--;
		michi_ucx_fast.up.tag_done(ctx, MICHI_OK, michi_ucx_fast.imm_info.sender_tag,
					   michi_ucx_fast.imm_info.length);
		return MICHI_OK;
	}
#endif
	if (unlikely(UCS_PTR_IS_ERR(req)))
		return ucx_recv_err(op, req);
	/* When the callback already ran inside the call the request is
	 * freed and MTMI's request done: cancel never reads this then. */
	op->req = req;
	return MICHI_OK;
}

#endif
