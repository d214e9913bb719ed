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

static inline __attribute__((always_inline)) michi_status_t
shm_send_fast(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	struct shm_tx *t = &shm.tx[peer];
	uint64_t len = michi_frame_payload_len(iov[0].iov_base);
	uint64_t nc = (SHM_FIRST_HDR + len + SHM_CELL - 1) >> SHM_CELL_SHIFT;
	uint64_t pos = t->tail;
	char *c;

	if (unlikely(len > t->first_max || t->qhead != NULL || iovcnt > 2 ||
		     pos + nc - t->head_cache > t->ncells))
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
 * In-place frames (device.h, michi_dev_frame_begin): the header slot of a
 * one-record frame of len payload bytes, or NULL when the frame would not
 * go out at once (then MTMI uses send, which queues). *nc_out carries the
 * record's cells to shm_frame_end, which publishes it.
 */
static inline __attribute__((always_inline)) void *
shm_frame_begin(int peer, uint64_t len, uint64_t *nc_out)
{
	struct shm_tx *t = &shm.tx[peer];
	uint64_t nc = (SHM_FIRST_HDR + len + SHM_CELL - 1) >> SHM_CELL_SHIFT;
	uint64_t pos = t->tail;

	if (unlikely(len > t->first_max || t->qhead != NULL ||
		     pos + nc - t->head_cache > t->ncells))
		return NULL;
	*nc_out = nc;
	return t->cells + ((pos & t->mask) << SHM_CELL_SHIFT) + SHM_REC_HDR;
}

static inline __attribute__((always_inline)) void
shm_frame_end(int peer, void *hdr, uint64_t nc)
{
	struct shm_tx *t = &shm.tx[peer];
	uint64_t pos = t->tail;

	atomic_store_explicit((_Atomic uint64_t *)((char *)hdr - SHM_REC_HDR),
			      shm_stamp(pos, nc, t->key), memory_order_release);
	t->tail = pos + nc;
	shm_notify(t->peer);
}

#endif
