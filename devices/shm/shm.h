/* SPDX-License-Identifier: MIT */
/*
 * devices/shm/shm.h: the shared-memory byte device's state, shared by its
 * files and by the inline send path in shm_fast.h.
 *
 * One segment per host holds, for every ordered pair of local ranks, a
 * single-producer single-consumer ring of 64-byte cells, grouped by
 * receiver: rank r's rings are its receive queues, one per local sender,
 * and nothing but the sender and r ever touch one. A ring needs no lock
 * and no atomic read-modify-write: the producer writes a record (header
 * and payload in whole cells) and publishes it last with one release
 * store of its first word, the stamp; the consumer polls the stamp at its
 * head, copies the record out and publishes its new head in a line of its
 * own, which the producer reads only when its cached copy says the ring
 * is full. Each ring is mapped twice back to back, so a record that runs
 * past the end continues in the second mapping and neither side ever
 * splits a copy at the wrap.
 *
 * A record is [stamp][48-byte frame header][payload] for the first part
 * of a frame and [stamp][payload] for the rest of one too large for the
 * ring (streamed in chunks as the consumer frees cells: the pipelined
 * two-copy path). The stamp holds the record's position (cells since the
 * ring started) and length in cells, XORed with a per-ring random key, so
 * stale cells of the previous lap, payload included, never pass for a
 * record. A skip record (no frame) takes the consumer to the next lap:
 * a sender that finds the ring empty starts a frame of a kilobyte or more
 * at the ring's first cell again, so that a ping-pong reuses the same
 * cache lines (writing lines the peer read long ago costs the sender a
 * fetch of each, measured at nearly twice the time of a 4 KiB exchange).
 *
 * That needs every cell's first word to be either a whole stamp or no
 * part of one. A record whose payload ends 1 to 7 bytes into a cell
 * after its first leaves that cell's first word half payload, half the
 * stamp an earlier lap wrote there; a lap later, when positions differ
 * in the low byte only (small rings, and rewound frames, which revisit
 * the first cells lap after lap), it passed the position check about
 * once in 256 tries, a record of the wrong length was taken and the
 * stream was lost. So the consumer, which sees every record before its
 * cells go back, clears such a word before it publishes its head
 * (shm_rx_poll); the senders' paths pay nothing for it.
 */
/* device.h first and outside the guard: it includes shm_fast.h, which
 * needs this file's definitions whichever of the two comes first */
#include "device.h"

#ifndef MICHI_SHM_H
#define MICHI_SHM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define SHM_CELL 64
#define SHM_CELL_SHIFT 6
#define SHM_REC_HDR 8                              /* the stamp */
#define SHM_FIRST_HDR (SHM_REC_HDR + MICHI_FRAME_HDR_SIZE)
#define SHM_POS_MASK ((1ull << 47) - 1)
#define SHM_SKIP (1ull << 47)                      /* a record of no frame */
#define SHM_MAX_REC_CELLS 65535u                   /* 16 bits in the stamp */

/* pos stays below 2^47 (8 PiB through one ring); bit 47 marks a skip */
static inline uint64_t shm_stamp(uint64_t pos, uint64_t ncells, uint64_t key)
{
	return (pos | (ncells << 48)) ^ key;
}

/* Per local rank, in the segment: what peers read to reach it. */
struct shm_proc {
	/* line 0: written once at attach, before pid */
	int32_t pid;
	int32_t world_rank;
	uint64_t probe_addr;      /* address of a word CMA readers check */
	uint64_t probe_val;
	int32_t wakes;            /* it wakes sleeping peers (shm.wake) */
	char pad0[SHM_CELL - 28];
	/* line 1: written by the owner when it goes to sleep and wakes */
	_Atomic uint32_t sleeping;
	_Atomic uint32_t futex;
	char pad1[SHM_CELL - 8];
};

/* Per ring, in the segment: the consumer's head and the producer's
 * "I have frames waiting for room" flag, each in a line of its own. */
struct shm_ring_ctl {
	_Atomic uint64_t head;
	uint64_t key;             /* random, set by the segment's creator */
	char pad0[SHM_CELL - 16];
	_Atomic uint32_t tx_waiting;
	char pad1[SHM_CELL - 4];
};

struct shm_seg_hdr {
	uint64_t magic;
	uint32_t version;
	uint32_t nlocal;
	uint64_t ring_bytes;
	uint64_t size;
	uint64_t ctl_bytes;       /* header, procs and ring controls, page aligned */
	_Atomic uint32_t ready;   /* the creator finished laying it out */
	_Atomic uint32_t attached;
};

/* A frame the ring had no room for, waiting in send order. */
struct shm_txq {
	struct shm_txq *next;
	unsigned char hdr[MICHI_FRAME_HDR_SIZE];
	int hdr_sent;             /* the first record (with the header) is out */
	int iovcnt, iovi;         /* payload pieces, the one being copied */
	size_t iovoff;
	size_t left;              /* payload bytes not yet in the ring */
	void *cookie;
	struct iovec iov[4];      /* payload (the header's iov is not kept) */
};

/* Sending side of one ring, indexed by world rank in shm_tx[]: what the
 * inline path reads first, in one line; 128 bytes so that indexing is a
 * shift. */
struct shm_tx {
	char *cells;              /* double mapping: 2 * ring_bytes */
	uint64_t tail;            /* next cell to write, since start */
	uint64_t limit;           /* head_cache + ncells: first cell not free */
	uint64_t fast_lim;        /* first_max + 1 when nothing is queued, else 0
				   * (0 too for ranks shm does not serve): an
				   * in-place frame needs len < fast_lim */
	uint64_t mask;
	uint64_t key;
	struct shm_proc *peer;    /* the receiver, to wake it */
	uint64_t head_cache;      /* the consumer's head as last read */
	/* second line: the slow path's */
	uint64_t ncells;
	size_t first_max;         /* largest payload in one first record
				   * (shm_chunk bytes less the headers) */
	struct shm_ring_ctl *ctl;
	struct shm_txq *qhead, *qtail;
	size_t nqueued;
	/* the cost of reading the consumer's head, a line the peer's core
	 * wrote last: sampled (shm_ring.c, tx_rewind), in ticks, and whether
	 * it says the two cores are far apart */
	uint32_t head_ticks;
	uint32_t head_reads;
	int far;
	char pad[4];
};
_Static_assert(sizeof(struct shm_tx) == 128, "shm_tx is two lines");

/* Receiving side of one ring. */
struct shm_rx {
	char *cells;
	uint64_t head;
	uint64_t mask;
	uint64_t key;
	struct shm_ring_ctl *ctl;
	int peer;                 /* world rank of the sender */
	uint64_t left;            /* payload bytes of the current frame to come */
	size_t done;              /* payload bytes of it already taken */
	struct michi_rx rx;
};

struct shm_state {
	struct shm_tx *tx;        /* per world rank; cells NULL if not a shm peer */
	int ntx;                  /* its entries (shm_peers) */
	struct michi_upcalls up;  /* MTMI's, copied at init (job->up) */
	struct shm_rx *rx;        /* per local sender */
	int nrx;
	int ntxbusy;              /* rings with queued frames */
	int wake;                 /* peers may sleep: check them after publishing */
	struct shm_proc *me;
	struct shm_proc *procs;
	int *local_of;            /* world rank -> local index, -1 elsewhere */
	int nlocal, my_local;
	int nworld;
	void *ctl;
	size_t ctl_bytes;
	size_t ring_bytes;
	int cma;                  /* 1 usable, 0 unknown yet, -1 not permitted / off */
	int *peer_pidfd;
	double next_liveness;
	unsigned idle_ticks;
	/* idle polls between two looks at the clock for the liveness check:
	 * fewer where a poll may yield the core for a scheduler slice */
	unsigned idle_mask;
	size_t pending;           /* frames accepted and not yet fully in a ring */
	/* cold: the sleeping path's */
	int sleep_ok;             /* 1: every local peer wakes us; -1: one does not;
				   * 0: not known yet (shm_sleep_ok) */
};

extern struct shm_state shm MICHI_HIDDEN;
/* Futex sleeps since MPI_Init (MPI_T shm_sleeps); outside shm, which
 * MPI_Finalize clears, so that the total stays readable after it. */
extern uint64_t shm_sleeps MICHI_HIDDEN;

michi_status_t shm_send_slow(int peer, const struct iovec *iov, int iovcnt, void *cookie)
	__attribute__((noinline));
void shm_wake_slow(struct shm_proc *p) __attribute__((noinline));

/* After publishing a record: wake the receiver if it sleeps. The fence
 * orders our stamp store before the load of its flag (it sets the flag,
 * fences, then checks its rings), so one of the two sees the other. */
static inline void shm_notify(struct shm_proc *p)
{
	if (likely(!shm.wake))
		return;
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&p->sleeping, memory_order_relaxed))
		shm_wake_slow(p);
}

/* The stamp of the cell at r's head, unkeyed: it holds a record to take
 * when its position bits are the head's (shm_ring.c reads the rest). */
static inline uint64_t shm_rx_stamp(const struct shm_rx *r)
{
	const char *c = r->cells + ((r->head & r->mask) << SHM_CELL_SHIFT);

	return atomic_load_explicit((const _Atomic uint64_t *)c,
				    memory_order_acquire) ^ r->key;
}

/* Does r hold a record to take? Inline, so that an idle poll of a ring
 * costs a load and a compare, not a call. */
static inline int shm_rx_ready(const struct shm_rx *r)
{
	return !((shm_rx_stamp(r) ^ r->head) & SHM_POS_MASK);
}

/* shm_ring.c */
int shm_rx_poll(struct shm_rx *r, int budget);
int shm_tx_push(struct shm_tx *t, int peer);
int shm_tx_ready(struct shm_tx *t);
void shm_tx_fail(struct shm_tx *t, michi_status_t st);

size_t shm_chunk_bytes(size_t ring_bytes);

/* The per-rank send table, allocated by the device layer for every job
 * (zeroed: no rank served) so that inline paths can index it blindly. */
/* the per-peer send table, for n peers (device.h: peers) */
michi_status_t shm_peers(int n);

/* shm_seg.c */
michi_status_t shm_seg_attach(struct michi_job *job);
void shm_seg_detach(void);

#endif
