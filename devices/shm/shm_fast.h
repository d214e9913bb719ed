/* SPDX-License-Identifier: MIT */
/*
 * devices/shm/shm_fast.h: the shm device's send fast path, inline.
 *
 * devices/device.h's michi_dev_send() compiles this into MPI_Isend for
 * peers on our host: when nothing is queued for the peer and the whole
 * frame fits in its ring as one record, the frame is copied in (header
 * and payload), published with one release store, and the send is done:
 * no lock, no atomic read-modify-write, no system call. Everything else
 * (a full ring, frames queued before this one, a frame larger than a
 * record) is out of line in shm_ring.c.
 */
#ifndef MICHI_SHM_FAST_H
#define MICHI_SHM_FAST_H

#include <string.h>

#include "shm/shm.h"

/* hidden: device.h's inline send compares with its address */
extern struct michi_device michi_device_shm MICHI_HIDDEN;

static inline __attribute__((always_inline)) michi_status_t
shm_send_fast(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	struct shm_tx *t = &shm.tx[peer];
	uint64_t len = michi_frame_payload_len(iov[0].iov_base);
	uint64_t nc = (SHM_FIRST_HDR + len + SHM_CELL - 1) >> SHM_CELL_SHIFT;
	uint64_t pos = t->tail;
	char *c;

	if (unlikely(len >= t->fast_lim || iovcnt > 2 || pos + nc > t->limit))
		return shm_send_slow(peer, iov, iovcnt, cookie);
	c = t->cells + ((pos & t->mask) << SHM_CELL_SHIFT);
	memcpy(c + SHM_REC_HDR, iov[0].iov_base, MICHI_FRAME_HDR_SIZE);
	if (iovcnt > 1)
		memcpy(c + SHM_FIRST_HDR, iov[1].iov_base, len);
	atomic_store_explicit((_Atomic uint64_t *)c, shm_stamp(pos, nc, t->key),
			      memory_order_release);
	t->tail = pos + nc;
	shm_notify(t->peer);
	return MICHI_OK;
}

/*
 * In-place frames (device.h, michi_dev_frame_begin): reserve a
 * one-record frame of len payload bytes when it can go out at once (else
 * MTMI uses send, which queues) and return its header slot. The record's
 * stamp travels in *tok to shm_frame_end, which publishes it and says
 * whether the receiver sleeps (then shm_frame_wake, out of line, wakes
 * it). Nothing else may be sent to the peer in between.
 */
static inline __attribute__((always_inline)) int
shm_frame_begin(int peer, uint64_t len, void **hdr, uint64_t *tok)
{
	struct shm_tx *t = &shm.tx[peer];
	uint64_t nc = (SHM_FIRST_HDR + len + SHM_CELL - 1) >> SHM_CELL_SHIFT;
	uint64_t pos = t->tail;

	if (unlikely(len >= t->fast_lim || pos + nc > t->limit))
		return 0;
	t->tail = pos + nc;
	*tok = shm_stamp(pos, nc, t->key);
	*hdr = t->cells + ((pos & t->mask) << SHM_CELL_SHIFT) + SHM_REC_HDR;
	return 1;
}

static inline __attribute__((always_inline)) int
shm_frame_end(int peer, void *hdr, uint64_t tok)
{
	atomic_store_explicit((_Atomic uint64_t *)((char *)hdr - SHM_REC_HDR), tok,
			      memory_order_release);
	if (likely(!shm.wake))
		return 0;
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(&shm.tx[peer].peer->sleeping, memory_order_relaxed) != 0;
}

int shm_frame_wake(int peer) __attribute__((noinline));

#endif
