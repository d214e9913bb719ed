/* SPDX-License-Identifier: MIT */
/*
 * devices/self/self.c: the device for a rank sending to itself.
 *
 * Delivery is synchronous: send() calls self_up.recv_hdr(), copies the
 * payload into the buffer MTMI names, calls self_up.recv_done() and
 * returns MICHI_OK, all before it returns. MTMI must therefore be ready
 * to take an incoming frame from inside its own send to itself, and the
 * upcalls may send to self again (the nesting is plain recursion, each
 * level with its own frame; there is no state in this file to corrupt).
 * Nothing is ever queued, so progress has nothing to do.
 */
#include "config.h"
#include "device.h"

#include <stdint.h>
#include <string.h>

extern struct michi_device michi_device_self MICHI_HIDDEN;

static int self_rank = -1;
static struct michi_upcalls self_up;   /* MTMI's, copied at init (job->up) */

static size_t self_eager_limit = 65536;
MICHI_TUNABLE(self_eager_limit, "self_eager_limit", MICHI_T_SIZE, "65536",
	      MICHI_LEVEL_TUNER, "largest message a rank sends to itself eagerly (bytes); "
	      "above it the receiver's buffer gets the data with no buffering copy");

static michi_status_t self_init(struct michi_job *job)
{
	michi_tunables_load();
	self_rank = job->rank;
	self_up = *job->up;
	michi_device_self.eager_limit = self_eager_limit;
	return MICHI_OK;
}

static michi_status_t self_post_fence(struct michi_job *job)
{
	return MICHI_OK;
}

static michi_status_t self_finalize(void)
{
	self_rank = -1;
	return MICHI_OK;
}

static michi_status_t self_send(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	uint64_t hdr[MICHI_FRAME_HDR_SIZE / 8];
	struct michi_rx rx = { NULL, 0, NULL };
	size_t off = 0, room;
	int i;

	if (unlikely(peer != self_rank))
		return michi_err(MICHI_ERR_INTERN, "self device asked to send to rank %d, "
				 "but this is rank %d", peer, self_rank);
	/* the upcalls may change the caller's header memory only through
	 * their own copy: hand them a private one */
	memcpy(hdr, iov[0].iov_base, MICHI_FRAME_HDR_SIZE);
	self_up.recv_hdr(peer, hdr, &rx);
	room = rx.buf ? rx.cap : 0;
	for (i = 1; i < iovcnt && off < room; i++) {
		size_t n = iov[i].iov_len < room - off ? iov[i].iov_len : room - off;

		memcpy((char *)rx.buf + off, iov[i].iov_base, n);
		off += n;
	}
	self_up.recv_done(peer, &rx);
	return MICHI_OK;
}

static int self_progress(void)
{
	return 0;
}

static int self_wait_fd(void)
{
	return -1;
}

/* self delivers inside send(): nothing ever waits */
static size_t self_pending(void)
{
	return 0;
}

static int self_reaches(int rank)
{
	return rank == self_rank;
}

struct michi_device michi_device_self = {
	.name = "self",
	.priority = 30,
	.caps = MICHI_DEV_OWN_RANK,
	.reaches = self_reaches,
	.init = self_init,
	.post_fence = self_post_fence,
	.finalize = self_finalize,
	.send = self_send,
	.progress = self_progress,
	.wait_fd = self_wait_fd,
	.pending = self_pending,
	.eager_limit = 65536,
};
