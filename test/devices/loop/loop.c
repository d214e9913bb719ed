/* SPDX-License-Identifier: MIT */
/*
 * test/devices/loop/loop.c: the device that test/devices/added_device.sh
 * adds to a copy of the tree, as a new contributor would add one (a
 * folder, a row in devices/devices.def, a line in devices/Makefile.inc),
 * to prove that a device needs nothing else. It is a test input, not
 * part of the library.
 *
 * loop is a relay: it serves every other rank through another device of
 * the table (MICHI_LOOP_INNER, default tcp), which it starts itself and
 * hands a job whose upcalls are loop's own. Every frame passes through
 * loop both ways: its send counts and forwards to the inner device's
 * send; the inner device's upcalls come to loop, which counts and hands
 * them on to MTMI's. Finalize prints the counts, so that the test can
 * tell that the bytes went through it. It has priority 0: only
 * MICHI_DEVICE=loop chooses it.
 */
#include "config.h"
#include "device.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
	struct michi_device *inner;
	struct michi_job job;            /* the inner device's, up = &loop_up */
	struct michi_upcalls mtmi;       /* MTMI's, from the caller's job */
	int rank;
	unsigned long long frames_out, bytes_out, frames_in, bytes_in, done;
} loop;

extern struct michi_device michi_device_loop MICHI_HIDDEN;

/* ---- the inner device's upcalls: count, then hand on to MTMI -------- */

static void loop_recv_hdr(int peer, const void *hdr, struct michi_rx *rx)
{
	loop.frames_in++;
	loop.bytes_in += michi_frame_payload_len(hdr);
	loop.mtmi.recv_hdr(peer, hdr, rx);
}

static void loop_recv_done(int peer, struct michi_rx *rx)
{
	loop.mtmi.recv_done(peer, rx);
}

static void loop_send_done(void *cookie, michi_status_t st)
{
	loop.done++;
	loop.mtmi.send_done(cookie, st);
}

static void loop_peer_failed(int peer, michi_status_t st)
{
	loop.mtmi.peer_failed(peer, st);
}

static void loop_tag_done(void *ctx, michi_status_t st, uint64_t tag, size_t len)
{
	loop.mtmi.tag_done(ctx, st, tag, len);
}

static const struct michi_upcalls loop_up = {
	.recv_hdr = loop_recv_hdr,
	.recv_done = loop_recv_done,
	.send_done = loop_send_done,
	.peer_failed = loop_peer_failed,
	.tag_done = loop_tag_done,
};

/* ---- the device ------------------------------------------------------- */

static michi_status_t loop_init(struct michi_job *job)
{
	const char *name = getenv("MICHI_LOOP_INNER");
	michi_status_t st;

	if (!name || !*name)
		name = "tcp";
	memset(&loop, 0, sizeof(loop));
	loop.inner = michi_device_find(name);
	if (!loop.inner || loop.inner == &michi_device_loop || loop.inner->tagged ||
	    (loop.inner->caps & MICHI_DEV_OWN_RANK))
		return michi_err(MICHI_ERR_INVAL, "loop: MICHI_LOOP_INNER=%s: not a byte device "
				 "that serves other ranks", name);
	loop.mtmi = *job->up;
	loop.rank = job->rank;
	loop.job = *job;
	loop.job.up = &loop_up;
	st = loop.inner->init(&loop.job);
	if (st < 0)
		return st;
	michi_device_loop.eager_limit = loop.inner->eager_limit;
	return MICHI_OK;
}

static michi_status_t loop_post_fence(struct michi_job *job)
{
	/* the fence filled the host map and the key: the inner device reads
	 * them from its copy, which stays at the same address */
	loop.job = *job;
	loop.job.up = &loop_up;
	michi_device_loop.eager_limit = loop.inner->eager_limit;
	return loop.inner->post_fence ? loop.inner->post_fence(&loop.job) : MICHI_OK;
}

static michi_status_t loop_finalize(void)
{
	michi_status_t st = loop.inner->finalize();

	fprintf(stderr, "loop device: rank %d sent %llu frames (%llu payload bytes), received "
		"%llu frames (%llu payload bytes), %llu queued sends done, through %s\n",
		loop.rank, loop.frames_out, loop.bytes_out, loop.frames_in, loop.bytes_in,
		loop.done, loop.inner->name);
	return st;
}

static michi_status_t loop_send(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	loop.frames_out++;
	loop.bytes_out += michi_frame_payload_len(iov[0].iov_base);
	return loop.inner->send(peer, iov, iovcnt, cookie);
}

static int loop_progress(void)
{
	return loop.inner->progress();
}

static int loop_wait_fd(void)
{
	return loop.inner->wait_fd();
}

static size_t loop_pending(void)
{
	return loop.inner->pending();
}

static int loop_block(int timeout_ms)
{
	if (loop.inner->block)
		return loop.inner->block(timeout_ms);
	sched_yield();
	return -1;
}

static int loop_reaches(int rank)
{
	return !loop.inner->reaches || loop.inner->reaches(rank);
}

struct michi_device michi_device_loop = {
	.name = "loop",
	.priority = 0,
	.init = loop_init,
	.post_fence = loop_post_fence,
	.finalize = loop_finalize,
	.send = loop_send,
	.progress = loop_progress,
	.wait_fd = loop_wait_fd,
	.pending = loop_pending,
	.block = loop_block,
	.reaches = loop_reaches,
	.eager_limit = 65536,
};
