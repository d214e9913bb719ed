/* SPDX-License-Identifier: MIT */
/*
 * devices/ofi/ofi_fast.h: the ofi device's small send and its receive,
 * inline (docs/design.md §2), for michi_tag_send() and michi_tag_recv() of
 * devices/device.h when the job runs over ofi: MPI_Isend of a message up
 * to the inject size and MPI_Irecv then make one call,
 * libfabric's (fi_tinject: inline in libfabric's headers, a call through
 * the provider's ops). Larger sends, sends while refused ones wait in the
 * device's queue, and every error are out of line in ofi.c, which also
 * keeps what this reads in michi_ofi_fast. The receive, fi_trecv, is
 * inline too.
 */
#ifndef MICHI_OFI_FAST_H
#define MICHI_OFI_FAST_H

#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_tagged.h>

#include "michi.h"

struct ofi_fast {
	struct fid_ep *ep;
	/*
	 * The inject size + 1 while no refused send waits in the device's
	 * queue, else 0: one compare sends everything that may not be
	 * injected now (a larger message, or one that must stay behind the
	 * queued ones) out of line.
	 */
	size_t inject_lim;
	uint64_t addr_mask;       /* ~0 (FI_ADDR_UNSPEC) when receives are not directed */
	uint8_t *touched;         /* per rank: injected to since the last flush */
	/* receives posted through the tag ops whose completion has not come:
	 * MPI_Finalize must complete those of freed requests (ofi_finalize) */
	size_t nrecv;
	/* the arguments of the receive being posted inline, for its retry
	 * when the provider refuses it (used by one thread at a time: the
	 * inline paths run only below MPI_THREAD_MULTIPLE) */
	struct {
		void *buf, *ctx;
		size_t len;
		uint64_t tag, ignore;
		int peer;
	} rx;
};
extern struct ofi_fast michi_ofi_fast MICHI_HIDDEN;
extern const struct michi_tag_ops michi_ofi_tag_ops MICHI_HIDDEN;

/* An inject's arguments, kept in the context area that fi_tinject does
 * not take, for the out-of-line path when the provider refuses it. */
struct ofi_inject_args {
	const void *buf;
	size_t len;
	uint64_t tag;
	int peer;
};

/* ofi.c: an inject the provider refused (ctx holds struct
 * ofi_inject_args): it goes the way of any send, fi_tinject again or the
 * device's queue. */
michi_status_t ofi_inject_refused(void *ctx) MICHI_HIDDEN __attribute__((noinline, cold));
/* ofi.c: the receive in michi_ofi_fast.rx, refused with rc (uncounted
 * when it fails for good) */
michi_status_t ofi_recv_refused(ssize_t rc) MICHI_HIDDEN __attribute__((noinline, cold));

/*
 * A send to inject now goes here; the rest through the ops. The arguments
 * are saved in ctx rather than kept across the call, which would cost the
 * caller more registers to save than the stores.
 */
static inline __attribute__((always_inline)) michi_status_t
ofi_send_fast(int peer, const void *buf, size_t len, uint64_t tag, void *ctx)
{
	struct ofi_inject_args *a = ctx;

	if (unlikely(len >= michi_ofi_fast.inject_lim))   /* fi_tsend, or the queue */
		return michi_ofi_tag_ops.send(peer, buf, len, tag, 0, ctx);
	a->buf = buf;
	a->len = len;
	a->tag = tag;
	a->peer = peer;
	michi_ofi_fast.touched[peer] = 1;
	if (likely(fi_tinject(michi_ofi_fast.ep, buf, len, (fi_addr_t)peer, tag) == 0))
		return MICHI_OK;
	return ofi_inject_refused(ctx);
}

/* peer -1 is FI_ADDR_UNSPEC once widened; addr_mask makes every receive
 * undirected when the provider has no FI_DIRECTED_RECV. The arguments
 * are saved for a refused receive's retry, as the send's. */
static inline __attribute__((always_inline)) michi_status_t
ofi_recv_fast(int peer, void *buf, size_t len, uint64_t tag, uint64_t ignore, void *ctx)
{
	ssize_t rc;

	michi_ofi_fast.rx.buf = buf;
	michi_ofi_fast.rx.ctx = ctx;
	michi_ofi_fast.rx.len = len;
	michi_ofi_fast.rx.tag = tag;
	michi_ofi_fast.rx.ignore = ignore;
	michi_ofi_fast.rx.peer = peer;
	michi_ofi_fast.nrecv++;
	rc = fi_trecv(michi_ofi_fast.ep, buf, len, NULL,
		      (fi_addr_t)(int64_t)peer | michi_ofi_fast.addr_mask, tag, ignore, ctx);
	if (likely(rc == 0))
		return MICHI_OK;
	return ofi_recv_refused(rc);
}

#endif
