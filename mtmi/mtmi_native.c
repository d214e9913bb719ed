/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_native.c: the out-of-line half of MTMI's native backend
 * (mtmi_native.h): the completion upcall of matching devices, probes and
 * matched receives, cancel. mtmi_init() chooses the backend: the
 * matching device's operations when the device layer chose one for the
 * job, else the own-queue engine.
 */
#include "config.h"
#include "mtmi_priv.h"

#include <stddef.h>

const struct michi_tag_ops *mtmi_tag;

void mtmi_native_choose(void)
{
	mtmi_tag = michi_devices_tagged();
}

void mtmi_dev_tag_done(void *ctx, michi_status_t st, uint64_t tag, size_t len)
{
	struct mtmi_req *r = (struct mtmi_req *)((char *)ctx - offsetof(struct mtmi_req, dev_ctx));

	if (r->type == MTMI_REQ_RECV) {
		if (st == MICHI_ERR_CANCELLED) {
			r->cancelled = 1;
			r->source = MTMI_ANY_SOURCE;
			r->tag = MTMI_ANY_TAG;
			r->count = 0;
			st = MICHI_OK;
		} else {
			r->source = (int)((tag & MTMI_NT_SRC_MASK) >> MTMI_NT_SRC_SHIFT);
			r->tag = (int)(uint32_t)tag;
			/* a truncated message fills the buffer, whatever length
			 * the library reports (libfabric's shm reports none) */
			r->count = st == MICHI_ERR_TRUNCATE && len > r->len ? r->len : len;
		}
	} else if (st == MICHI_ERR_CANCELLED) {
		st = MICHI_OK;    /* sends are not withdrawn: it left */
	}
	r->error = st;
	mtmi_req_finish(r);
}

michi_status_t mtmi_native_probe(int peer, int src_rank, int tag, uint32_t ctx, int claim,
				 int *flag, struct mtmi_msg **msg, int *source_out,
				 int *tag_out, size_t *len_out)
{
	uint64_t t = (uint64_t)ctx << MTMI_NT_CTX_SHIFT, ignore = 0, got = 0;
	size_t len = 0;
	void *m = NULL;
	int n;

	if (src_rank >= 0)
		t |= (uint64_t)(uint32_t)src_rank << MTMI_NT_SRC_SHIFT;
	else
		ignore = MTMI_NT_SRC_MASK;
	if (tag != MTMI_ANY_TAG)
		t |= (uint32_t)tag;
	else
		ignore |= MTMI_NT_TAG_MASK;
	/* the device's probe progresses its library; mtmi_poll also runs
	 * deferred work (schedules) and gives the core away when idle */
	n = mtmi_poll();
	if (n < 0)
		return n;
	n = mtmi_tag->probe(peer >= 0 ? peer : -1, t, ignore, claim, &got, &len, &m);
	if (n < 0)
		return n;
	*flag = n;
	if (!n)
		return MICHI_OK;
	if (source_out)
		*source_out = (int)((got & MTMI_NT_SRC_MASK) >> MTMI_NT_SRC_SHIFT);
	if (tag_out)
		*tag_out = (int)(uint32_t)got;
	if (len_out)
		*len_out = len;
	if (claim)
		*msg = m;
	return MICHI_OK;
}

michi_status_t mtmi_native_mrecv(void *buf, size_t len, struct mtmi_msg *msg,
				 struct mtmi_req *r)
{
	michi_status_t st;

	mtmi_native_recv_init(r, len, -1, 0);
	st = mtmi_tag->mrecv(msg, buf, len, r->dev_ctx);
	if (st < 0)
		return st;
	return r->done ? MICHI_OK : MICHI_INPROGRESS;
}

michi_status_t mtmi_native_cancel(struct mtmi_req *r)
{
	if (r->done || r->type != MTMI_REQ_RECV)
		return MICHI_OK;
	return mtmi_tag->cancel(r->dev_ctx);
}
