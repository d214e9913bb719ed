/* SPDX-License-Identifier: MIT */
/*
 * devices/shm/shm_ring.c: records in and out of the per-pair rings.
 *
 * The send side writes a frame as one record when it fits (the inline
 * fast path does the common case), else streams it: a first record with
 * the header and as much payload as a chunk holds, then continuation
 * records as the consumer frees room, so that the sender copies chunk k+1
 * in while the receiver copies chunk k out (the pipelined two-copy path
 * that large messages take when single-copy CMA is not available).
 * Frames that do not fit wait in a per-ring queue, in send order, and
 * progress pushes them. The receive side hands each frame's header to
 * MTMI, copies the payload where MTMI says, and gives the cells back by
 * publishing its head.
 */
#include "config.h"
#include "shm.h"

#include <stdlib.h>
#include <sys/types.h>
#include <string.h>

/* Copy n payload bytes of q into dst, advancing through its iovecs. */
static void txq_copy(struct shm_txq *q, char *dst, size_t n)
{
	while (n > 0) {
		struct iovec *v = &q->iov[q->iovi];
		size_t k = v->iov_len - q->iovoff;

		if (k > n)
			k = n;
		memcpy(dst, (const char *)v->iov_base + q->iovoff, k);
		dst += k;
		n -= k;
		q->iovoff += k;
		if (q->iovoff == v->iov_len) {
			q->iovi++;
			q->iovoff = 0;
		}
	}
	/* skip empty pieces so that the next copy starts on data */
	while (q->iovi < q->iovcnt && q->iov[q->iovi].iov_len == 0)
		q->iovi++;
}

static uint64_t tx_head(struct shm_tx *t);

static inline uint64_t tx_free_cells(struct shm_tx *t, uint64_t want)
{
	uint64_t used = t->tail - t->head_cache;

	if (t->ncells - used >= want)
		return t->ncells - used;
	t->head_cache = tx_head(t);
	t->limit = t->head_cache + t->ncells;
	return t->ncells - (t->tail - t->head_cache);
}

static size_t shm_chunk = 2048;
MICHI_TUNABLE(shm_chunk, "shm_chunk", MICHI_T_SIZE, "2k", MICHI_LEVEL_TUNER,
	      "largest record in a ring (bytes, header included): a frame above it streams in "
	      "records of this size, so the receiver copies one out while the sender copies "
	      "the next in");

/* At most shm_chunk and a quarter ring (a record never exceeds 16 bits
 * of cells), at least two cells. */
size_t shm_chunk_bytes(size_t ring_bytes)
{
	size_t b = shm_chunk < ring_bytes / 4 ? shm_chunk : ring_bytes / 4;

	if (b > (size_t)SHM_MAX_REC_CELLS << SHM_CELL_SHIFT)
		b = (size_t)SHM_MAX_REC_CELLS << SHM_CELL_SHIFT;
	b &= ~(size_t)(SHM_CELL - 1);
	return b < 2 * SHM_CELL ? 2 * SHM_CELL : b;
}

/* Continuation records of a long frame: a quarter ring, so that fewer
 * stamps, heads and wakes are paid per byte while the two sides still
 * copy in parallel. */
static inline size_t chunk_stream(const struct shm_tx *t)
{
	size_t b = (t->ncells << SHM_CELL_SHIFT) / 4;

	if (b > (size_t)SHM_MAX_REC_CELLS << SHM_CELL_SHIFT)
		b = (size_t)SHM_MAX_REC_CELLS << SHM_CELL_SHIFT;
	return b > t->first_max + SHM_FIRST_HDR ? b : t->first_max + SHM_FIRST_HDR;
}

static inline void tx_publish(struct shm_tx *t, char *c, uint64_t nc)
{
	atomic_store_explicit((_Atomic uint64_t *)c, shm_stamp(t->tail, nc, t->key),
			      memory_order_release);
	t->tail += nc;
}

/*
 * How far apart the two cores are decides whether a frame of a few
 * kilobytes should go in two records or one. On the 2-core AMD guest of
 * docs/performance.md the host moves the vCPUs between cores that share
 * a cache and cores that do not; reading a line the other rank wrote
 * last then takes 40-60 ns or 140-180 ns. Near, two records win: the
 * receiver copies the first out while the sender writes the second, and
 * the rewind (below) reuses lines. Far, the receiver's copy of the first
 * record has its hardware prefetcher pull lines of the second while the
 * sender is writing them, each of which then crosses twice, and the
 * rewind's read of the head and its skip record cost a crossing each.
 * So the sender times every 16th read of the consumer's head (before
 * each frame of a kilobyte or more, and once a lap), keeps a moving
 * average, and while that says far sends frames up to shm_far_record
 * bytes as one record, through the inline path (fast_lim), and does not
 * rewind. 4 KiB ping-pong (bench/results/2026-11-29-shm-placement):
 * near 0.225 us (two records always: 0.222, one always: 0.277; MPICH
 * 0.320), far 0.778 us (two records always: 1.124; MPICH 1.034).
 */
static int shm_far_ns = 100;
MICHI_TUNABLE(shm_far_ns, "shm_far_ns", MICHI_T_INT, "100", MICHI_LEVEL_TUNER,
	      "reading a line the peer's core wrote taking this many ns or more (a moving "
	      "average) says the two cores are far apart: frames up to shm_far_record bytes "
	      "then go in one record instead of two (0: never)");
static size_t shm_far_record = 8192;
MICHI_TUNABLE(shm_far_record, "shm_far_record", MICHI_T_SIZE, "8k", MICHI_LEVEL_TUNER,
	      "largest frame (payload bytes) sent as one record while the cores are far "
	      "apart (see shm_far_ns; at most a quarter ring)");

/* shm_far_ns in ticks, with 20 % of hysteresis below it (0: off), and
 * 5 us, above which a reading was an interrupt or a preemption */
static uint32_t far_ticks_hi, far_ticks_lo, far_ticks_max;
static int far_ready;

static void far_init(void)
{
	double t = shm_far_ns > 0 ? shm_far_ns * michi_ticks_per_us() / 1000.0 : 0;

	far_ticks_hi = t >= 1 && t < 1e8 ? (uint32_t)t : 0;
	far_ticks_lo = far_ticks_hi - far_ticks_hi / 5;
	far_ticks_max = (uint32_t)(5 * michi_ticks_per_us());
	far_ready = 1;
}

/* The largest payload (plus one) of a frame the inline path takes. */
static uint64_t tx_fast_lim(const struct shm_tx *t)
{
	uint64_t lim = shm_far_record, quarter = (t->ncells << SHM_CELL_SHIFT) / 4;

	if (!t->far)
		return t->first_max + 1;
	if (lim > michi_device_shm.eager_limit)
		lim = michi_device_shm.eager_limit;
	if (lim + SHM_FIRST_HDR > quarter)
		lim = quarter - SHM_FIRST_HDR;
	return (lim > t->first_max ? lim : t->first_max) + 1;
}

static void tx_far(struct shm_tx *t, int far)
{
	if (far == t->far)
		return;
	t->far = far;
	if (!t->nqueued)
		t->fast_lim = tx_fast_lim(t);
	michi_debug("shm: rank %d to rank %d: the cores are %s (reading the peer's line: %.0f ns)",
		    shm.me->world_rank, (int)(t - shm.tx),
		    far ? "far apart" : "near", t->head_ticks * 1000.0 / michi_ticks_per_us());
}

/* The consumer's head, read with a clock around it. */
static uint64_t tx_head_timed(struct shm_tx *t)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t h, t0, d;
	unsigned aux;

	if (unlikely(!far_ready))
		far_init();
	if (!far_ticks_hi)
		return atomic_load_explicit(&t->ctl->head, memory_order_acquire);
	_mm_lfence();
	t0 = __rdtsc();
	_mm_lfence();
	h = atomic_load_explicit(&t->ctl->head, memory_order_acquire);
	d = __rdtscp(&aux) - t0;
	/* an interrupt or a preemption in between says nothing of the cores */
	if (d < far_ticks_max) {
		t->head_ticks = t->head_ticks ? (uint32_t)((t->head_ticks * 7ull + d) / 8) : (uint32_t)d;
		if (t->head_ticks >= far_ticks_hi)
			tx_far(t, 1);
		else if (t->head_ticks < far_ticks_lo)
			tx_far(t, 0);
	}
	return h;
#else
	return atomic_load_explicit(&t->ctl->head, memory_order_acquire);
#endif
}

/* The consumer's head, timed every 16th read: tx_rewind reads it before
 * each frame of a kilobyte or more, tx_free_cells once a lap. */
static uint64_t tx_head(struct shm_tx *t)
{
	if (likely(++t->head_reads & 15))
		return atomic_load_explicit(&t->ctl->head, memory_order_acquire);
	return tx_head_timed(t);
}

static size_t shm_rewind_min = 1024;
MICHI_TUNABLE(shm_rewind_min, "shm_rewind_min", MICHI_T_SIZE, "1k", MICHI_LEVEL_TUNER,
	      "frames from this size start at the ring's first cell when the ring is empty, "
	      "so that a ping-pong reuses its cache lines (0: never)");

/*
 * Before the first record of a frame: if the receiver has taken every
 * record and we are not at the ring's first cell, a skip record takes
 * both sides there (see shm.h).
 */
static void tx_rewind(struct shm_tx *t, size_t len)
{
	uint64_t off = t->tail & t->mask, n;
	char *c;

	/* far apart, no rewind: the read and the skip record cost a
	 * crossing each, more than reused lines save */
	if (!shm_rewind_min || len < shm_rewind_min || off == 0 || t->far)
		return;
	t->head_cache = tx_head(t);
	t->limit = t->head_cache + t->ncells;
	if (t->head_cache != t->tail)
		return;
	n = t->ncells - off;
	c = t->cells + (off << SHM_CELL_SHIFT);
	atomic_store_explicit((_Atomic uint64_t *)c, shm_stamp(t->tail | SHM_SKIP, n, t->key),
			      memory_order_release);
	t->tail += n;
}

/*
 * Write as many records of q as the ring has room for; returns 1 when the
 * whole frame is in the ring. A record waits for room for a whole chunk
 * (or the rest of the frame) rather than trickling out in slivers.
 */
static int tx_write(struct shm_tx *t, struct shm_txq *q)
{
	if (!q->hdr_sent)
		tx_rewind(t, q->left);
	for (;;) {
		size_t hdr = q->hdr_sent ? SHM_REC_HDR : SHM_FIRST_HDR;
		/* the first record small: the receiver starts copying out soon
		 * (but whole, while the cores are far, what the inline path
		 * would take whole: tx_fast_lim) */
		size_t cmax = q->hdr_sent && q->left > t->first_max ? chunk_stream(t)
								   : t->first_max + SHM_FIRST_HDR;

		if (!q->hdr_sent && t->far && q->left < tx_fast_lim(t))
			cmax = q->left + SHM_FIRST_HDR + SHM_CELL - 1;
		/* the receiver takes a record's payload as all its cells hold
		 * (or the rest of the frame): every record but the last is
		 * filled to its last cell */
		size_t cap = (cmax & ~(size_t)(SHM_CELL - 1)) - hdr;
		size_t n, nc;

		if ((ssize_t)cap <= 0)
			cap = SHM_CELL - hdr;
		n = q->left < cap ? q->left : cap;
		nc = (hdr + n + SHM_CELL - 1) >> SHM_CELL_SHIFT;
		char *c;

		if (tx_free_cells(t, nc) < nc)
			return 0;
		c = t->cells + ((t->tail & t->mask) << SHM_CELL_SHIFT);
		if (!q->hdr_sent)
			memcpy(c + SHM_REC_HDR, q->hdr, MICHI_FRAME_HDR_SIZE);
		txq_copy(q, c + hdr, n);
		tx_publish(t, c, nc);
		q->hdr_sent = 1;
		q->left -= n;
		shm_notify(t->peer);
		if (q->left == 0)
			return 1;
	}
}

static void txq_init(struct shm_txq *q, const struct iovec *iov, int iovcnt, void *cookie)
{
	int i;

	memcpy(q->hdr, iov[0].iov_base, MICHI_FRAME_HDR_SIZE);
	q->next = NULL;
	q->hdr_sent = 0;
	q->iovcnt = iovcnt - 1;
	q->iovi = 0;
	q->iovoff = 0;
	q->left = michi_frame_payload_len(iov[0].iov_base);
	q->cookie = cookie;
	for (i = 1; i < iovcnt; i++)
		q->iov[i - 1] = iov[i];
	while (q->iovi < q->iovcnt && q->iov[q->iovi].iov_len == 0)
		q->iovi++;
}

static void tx_queue_add(struct shm_tx *t, struct shm_txq *q)
{
	if (t->qtail)
		t->qtail->next = q;
	else
		t->qhead = q;
	t->qtail = q;
	if (t->nqueued++ == 0) {
		shm.ntxbusy++;
		t->fast_lim = 0;   /* no frame may pass the queued ones */
		/* the consumer wakes us when it frees room (when we may sleep) */
		atomic_store_explicit(&t->ctl->tx_waiting, 1, memory_order_seq_cst);
	}
	shm.pending++;
}

static void tx_queue_pop(struct shm_tx *t)
{
	struct shm_txq *q = t->qhead;

	t->qhead = q->next;
	if (!t->qhead)
		t->qtail = NULL;
	if (--t->nqueued == 0) {
		shm.ntxbusy--;
		t->fast_lim = tx_fast_lim(t);
		atomic_store_explicit(&t->ctl->tx_waiting, 0, memory_order_relaxed);
	}
	shm.pending--;
	free(q);
}

/*
 * Out of line: a full ring, queued frames ahead, or a frame larger than
 * one record. A frame that gets all the way into the ring here returns
 * MICHI_OK (device.h: send_done only follows MICHI_INPROGRESS).
 */
michi_status_t shm_send_slow(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	struct shm_tx *t = &shm.tx[peer];
	struct shm_txq local, *q;

	if (unlikely(!t->cells))
		return michi_err(MICHI_ERR_INTERN, "shm: send to rank %d, which is not on this host",
				 peer);
	if (unlikely(iovcnt - 1 > (int)(sizeof(q->iov) / sizeof(q->iov[0]))))
		return michi_err(MICHI_ERR_UNSUPPORTED, "shm: frame in %d pieces (at most %zu)",
				 iovcnt - 1, sizeof(q->iov) / sizeof(q->iov[0]));
	txq_init(&local, iov, iovcnt, cookie);
	if (!t->qhead && tx_write(t, &local))
		return MICHI_OK;
	q = malloc(sizeof(*q));
	if (!q) {
		/* part of the frame may be in the ring already: the peer's
		 * stream is broken, so this is fatal for it */
		return michi_err(MICHI_ERR_NOMEM, "shm: no memory to queue a frame to rank %d",
				 peer);
	}
	*q = local;
	tx_queue_add(t, q);
	return MICHI_INPROGRESS;
}

/* Push queued frames of one ring; returns frames finished. */
int shm_tx_push(struct shm_tx *t, int peer)
{
	int n = 0;

	(void)peer;
	while (t->qhead && tx_write(t, t->qhead)) {
		void *cookie = t->qhead->cookie;

		tx_queue_pop(t);
		shm.up.send_done(cookie, MICHI_OK);
		n++;
	}
	return n;
}

/* The receiver failed: every queued frame completes with st. */
void shm_tx_fail(struct shm_tx *t, michi_status_t st)
{
	while (t->qhead) {
		void *cookie = t->qhead->cookie;

		tx_queue_pop(t);
		shm.up.send_done(cookie, st);
	}
}

int shm_tx_ready(struct shm_tx *t)
{
	return t->qhead && tx_free_cells(t, t->ncells) > 0;
}

static inline int rx_valid(const struct shm_rx *r, uint64_t *ncells)
{
	uint64_t s = shm_rx_stamp(r);

	if ((s ^ r->head) & SHM_POS_MASK)
		return 0;
	*ncells = s >> 48;
	return 1 + !!(s & SHM_SKIP);
}

/* Take n payload bytes at src; returns n. */
static inline size_t rx_take(struct shm_rx *r, const char *src, size_t n)
{
	if (r->rx.buf && r->done < r->rx.cap) {
		size_t k = r->rx.cap - r->done;

		memcpy((char *)r->rx.buf + r->done, src, n < k ? n : k);
	}
	r->done += n;
	r->left -= n;
	return n;
}

/* A record at c whose stamp, header and payload take used bytes ends 1 to
 * 7 bytes into a cell after its first: clear that cell's first word, part
 * of which is an older stamp (shm.h). */
static inline void rx_clear_tail(char *c, size_t used)
{
	if (unlikely(((used - 1) & (SHM_CELL - 1)) < 7 && used > SHM_CELL))
		atomic_store_explicit((_Atomic uint64_t *)(c + ((used - 1) & ~(size_t)(SHM_CELL - 1))),
				      0, memory_order_relaxed);
}

/* Take up to budget records from r; returns records taken. */
int shm_rx_poll(struct shm_rx *r, int budget)
{
	int n;

	for (n = 0; n < budget; n++) {
		char *c = r->cells + ((r->head & r->mask) << SHM_CELL_SHIFT);
		uint64_t nc, room;
		int v = rx_valid(r, &nc);

		if (!v)
			break;
		if (v == 2) {
			/* a skip record: on to the next lap (only between frames) */
			r->head += nc;
			atomic_store_explicit(&r->ctl->head, r->head, memory_order_release);
			continue;
		}
		room = (nc << SHM_CELL_SHIFT);
		if (r->left == 0) {
			const void *h = c + SHM_REC_HDR;
			uint64_t len = michi_frame_payload_len(h);

			room -= SHM_FIRST_HDR;
			r->done = 0;
			r->left = len;
			shm.up.recv_hdr(r->peer, h, &r->rx);
			rx_clear_tail(c, SHM_FIRST_HDR +
					 rx_take(r, c + SHM_FIRST_HDR, len < room ? len : room));
		} else {
			room -= SHM_REC_HDR;
			rx_clear_tail(c, SHM_REC_HDR +
					 rx_take(r, c + SHM_REC_HDR, r->left < room ? r->left : room));
		}
		r->head += nc;
		atomic_store_explicit(&r->ctl->head, r->head, memory_order_release);
		if (r->left == 0)
			shm.up.recv_done(r->peer, &r->rx);
		if (unlikely(shm.wake)) {
			/* a sender with frames queued for room: wake it if it
			 * sleeps (it raises `sleeping` with a full barrier and
			 * then looks at its rings' room, shm_block), not on
			 * every record while it polls or yields */
			struct shm_proc *p = &shm.procs[shm.local_of[r->peer]];

			atomic_thread_fence(memory_order_seq_cst);
			if (atomic_load_explicit(&r->ctl->tx_waiting, memory_order_relaxed) &&
			    atomic_load_explicit(&p->sleeping, memory_order_relaxed))
				shm_wake_slow(p);
		}
	}
	return n;
}
