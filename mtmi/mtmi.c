/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi.c: setup, progress and waiting of MTMI's own-queue engine.
 *
 * Init sizes the per-peer state (frame numbers, failure flags) and the
 * matching hash; progress is the devices' progress. Waiting follows the
 * device layer's policy (devices/device.c): poll for a while, then
 * sched_yield, so that a rank sharing its core with the peer it waits
 * for (more ranks than cores) hands the core over instead of burning it;
 * sleep in the devices' wait only where the policy asks for it
 * (MICHI_WAIT_YIELD, MICHI_WAIT_POLICY=block). The out-of-line mtmi_isend/mtmi_irecv are the inline fast
 * paths of mtmi_inline.h for callers that want a plain function.
 */
#include "config.h"
#include "mtmi_priv.h"
#include "mtlock.h"

#include <sched.h>
#include <time.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* mtmi_eager_commit writes the header as six words */
_Static_assert(offsetof(struct mtmi_hdr, type) == 8 && offsetof(struct mtmi_hdr, seq) == 12 &&
	       offsetof(struct mtmi_hdr, ctx) == 16 && offsetof(struct mtmi_hdr, src_rank) == 20 &&
	       offsetof(struct mtmi_hdr, tag) == 24 && offsetof(struct mtmi_hdr, sid) == 32 &&
	       offsetof(struct mtmi_hdr, aux) == 40, "mtmi header word layout");
_Static_assert(sizeof(((struct mtmi_req *)0)->dev_ctx) == MICHI_TAG_CTX_SIZE,
	       "a matching device's operation context fits the request");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "mtmi_eager_commit packs header words little-endian");

uint64_t mtmi_post_seq;
uint32_t *mtmi_tx_seq;
uint32_t *mtmi_rx_seq;
uint8_t *mtmi_peer_dead;
void **mtmi_rx_cur;
unsigned mtmi_nfailed;
int mtmi_nranks;

static size_t mtmi_hash_buckets = 4096;
MICHI_TUNABLE(mtmi_hash_buckets, "mtmi_hash_buckets", MICHI_T_SIZE, "4096",
	      MICHI_LEVEL_DEVELOPER,
	      "buckets of the exact-match hash of posted and unexpected messages");
static double mtmi_finalize_timeout = 0;
MICHI_TUNABLE(mtmi_finalize_timeout, "mtmi_finalize_timeout", MICHI_T_DOUBLE, "0",
	      MICHI_LEVEL_TUNER,
	      "seconds finalize waits for unmatched pending sends before leaving them (0: no limit)");

/* What the devices call (device.h); MTMI's caller hands it to them in
 * job->up. */
const struct michi_upcalls mtmi_upcalls = {
	.recv_hdr = mtmi_dev_recv_hdr,
	.recv_done = mtmi_dev_recv_done,
	.send_done = mtmi_dev_send_done,
	.peer_failed = mtmi_dev_peer_failed,
	.tag_done = mtmi_dev_tag_done,
};

michi_status_t mtmi_init(struct michi_job *job)
{
	size_t n = (size_t)job->size;
	michi_status_t st;

	michi_tunables_load();
	mtmi_tx_seq = calloc(n, sizeof(*mtmi_tx_seq));
	mtmi_rx_seq = calloc(n, sizeof(*mtmi_rx_seq));
	mtmi_peer_dead = calloc(n, sizeof(*mtmi_peer_dead));
	mtmi_rx_cur = calloc(n, sizeof(*mtmi_rx_cur));
	if (!mtmi_tx_seq || !mtmi_rx_seq || !mtmi_peer_dead || !mtmi_rx_cur) {
		st = michi_err(MICHI_ERR_NOMEM, "mtmi: no memory for %zu peers", n);
		goto err_free_peers;
	}
	st = mtmi_queue_init(mtmi_hash_buckets);
	if (st < 0)
		goto err_free_peers;
	mtmi_native_choose();
	if (mtmi_tag && job->size > MTMI_NT_RANKS_MAX) {
		st = michi_err(MICHI_ERR_INVAL, "mtmi: %d ranks, more than a matching device's "
			       "tags can name (%d)", job->size, MTMI_NT_RANKS_MAX);
		goto err_free_queue;
	}
	mtmi_nranks = job->size;
	mtmi_nfailed = 0;
	mtmi_post_seq = 0;
	return MICHI_OK;

err_free_queue:
	mtmi_queue_fini();
err_free_peers:
	free(mtmi_tx_seq);
	free(mtmi_rx_seq);
	free(mtmi_peer_dead);
	free(mtmi_rx_cur);
	mtmi_tx_seq = mtmi_rx_seq = NULL;
	mtmi_peer_dead = NULL;
	mtmi_rx_cur = NULL;
	return st;
}

/*
 * Pending sends (freed requests, buffered sends) must reach their
 * receivers before the process leaves: a rendezvous send waits for its
 * receiver to match, however late (MPI_Finalize may block on that, as in
 * MPICH). Sends to failed peers complete with an error and end the wait.
 * A positive mtmi_finalize_timeout bounds it. State stays in place for
 * frames that still arrive while the devices close; mtmi_release() frees
 * it after them.
 */
michi_status_t mtmi_finalize(void)
{
	double deadline = michi_wtime() + mtmi_finalize_timeout;
	unsigned spins = 0;

	/* then the frames the devices still hold (a peer that has not
	 * answered our connect yet), which must leave before the fence */
	while ((mtmi_pending_sends.head || michi_devices_pending()) &&
	       (mtmi_finalize_timeout <= 0 || michi_wtime() < deadline))
		mtmi_idle(&spins);
	if (mtmi_pending_sends.head || michi_devices_pending()) {
		michi_warn("mtmi: finalize leaves sends that no receiver took within %g s",
			   mtmi_finalize_timeout);
		return MICHI_INPROGRESS;
	}
	return MICHI_OK;
}

/*
 * Room for peers up to index n - 1 (processes of other jobs, mpi/comm/dynproc.c):
 * their frame numbers start at zero like anyone's. Called outside
 * progress, before the devices can deliver their frames.
 */
michi_status_t mtmi_peers_grow(int n)
{
	size_t old = (size_t)mtmi_nranks, k = (size_t)n;
	uint32_t *tx, *rx;
	uint8_t *dead;
	void **cur;

	if (n <= mtmi_nranks)
		return MICHI_OK;
	if (mtmi_tag)
		return michi_err(MICHI_ERR_UNSUPPORTED, "mtmi: processes of other jobs (spawn, "
				 "connect/accept, join) need a byte device; a matching device "
				 "serves this job");
	tx = realloc(mtmi_tx_seq, k * sizeof(*tx));
	if (tx)
		mtmi_tx_seq = tx;
	rx = realloc(mtmi_rx_seq, k * sizeof(*rx));
	if (rx)
		mtmi_rx_seq = rx;
	dead = realloc(mtmi_peer_dead, k * sizeof(*dead));
	if (dead)
		mtmi_peer_dead = dead;
	cur = realloc(mtmi_rx_cur, k * sizeof(*cur));
	if (cur)
		mtmi_rx_cur = cur;
	if (!tx || !rx || !dead || !cur)
		return michi_err(MICHI_ERR_NOMEM, "mtmi: no memory for %d peers", n);
	memset(tx + old, 0, (k - old) * sizeof(*tx));
	memset(rx + old, 0, (k - old) * sizeof(*rx));
	memset(dead + old, 0, (k - old) * sizeof(*dead));
	memset(cur + old, 0, (k - old) * sizeof(*cur));
	mtmi_nranks = n;
	return MICHI_OK;
}

void mtmi_release(void)
{
	if (!mtmi_nranks)
		return;
	mtmi_proto_fini();
	mtmi_queue_fini();
	mtmi_tag = NULL;
	free(mtmi_tx_seq);
	free(mtmi_rx_seq);
	free(mtmi_peer_dead);
	free(mtmi_rx_cur);
	mtmi_tx_seq = mtmi_rx_seq = NULL;
	mtmi_peer_dead = NULL;
	mtmi_rx_cur = NULL;
	mtmi_nranks = 0;
}

michi_status_t mtmi_isend(const void *buf, size_t len, int peer, int src_rank,
			  int tag, uint32_t ctx, int mode, struct mtmi_req *r)
{
	return mtmi_isend_inline(buf, len, peer, src_rank, tag, ctx, mode, r);
}

michi_status_t mtmi_irecv(void *buf, size_t len, int peer, int src_rank,
			  int tag, uint32_t ctx, struct mtmi_req *r)
{
	return mtmi_irecv_inline(buf, len, peer, src_rank, tag, ctx, r);
}

int (*mtmi_defer)(void);
void (*mtmi_event_hook)(const struct mtmi_event *ev);
void (*mtmi_idle_hook)(void);

int mtmi_progress(void)
{
	int n = michi_devices_progress();

	if (unlikely(mtmi_stream_recvs.head != NULL) && n >= 0)
		n += mtmi_stream_poll();
	if (unlikely(mtmi_defer != NULL) && n >= 0)
		n += mtmi_defer();
	return n;
}

/* An oversubscribed poll that found nothing: yield, unless the last
 * such yield is less than poll_yield_ticks old (devices/device.c). */
static __attribute__((noinline, cold)) void mtmi_poll_idle(void)
{
	static uint64_t next;
	uint64_t now = michi_ticks();

	if ((int64_t)(now - next) < 0)	/* too soon (wrap-safe) */
		return;
	sched_yield();
	next = michi_ticks() + michi_wait.poll_yield_ticks;
}

double mtmi_peer_rtt(int peer)
{
	struct michi_device *d;

	if (peer < 0 || peer >= mtmi_nranks || !(d = michi_dev_for_peer[peer]) || !d->rtt)
		return 0;
	return d->rtt(peer);
}

int mtmi_poll(void)
{
	int n = mtmi_progress();

	if (n == 0 && unlikely(michi_wait.oversubscribed))
		mtmi_poll_idle();
	return n;
}

uint64_t mtmi_wait_tick;
static int agent_exists;          /* a progress thread was started */
static __thread int agent_self;   /* this thread is the progress thread */

void mtmi_agent_thread(void)
{
	agent_self = 1;
	__atomic_store_n(&agent_exists, 1, __ATOMIC_RELAXED);
}

/*
 * An idle round of a thread that shares the process with other MPI
 * threads: it gives the lock up (util/mtlock.h) and never sleeps in a
 * device's kernel wait, since another thread may take the very event it
 * would wait for. It yields; where the policy lets ranks sleep it takes
 * short sleeps instead, which bound the latency they add. With a
 * core per rank and no thread waiting for the lock it only pauses. It
 * says that it waits (mtmi_wait_tick), so that a progress thread leaves
 * the polling to it.
 */
static void mtmi_idle_mt(unsigned long long n)
{
	unsigned depth;

	if (agent_exists && !agent_self)
		__atomic_store_n(&mtmi_wait_tick, michi_ticks(), __ATOMIC_RELAXED);
	depth = michi_mt_release();
	if (n <= michi_wait.spin && !michi_wait.oversubscribed && !michi_mt_waiting()) {
		michi_cpu_relax();
	} else if (n <= michi_wait.spin + michi_wait.yield || !michi_wait.may_block) {
		sched_yield();
	} else {
		struct timespec ts = { 0, 50 * 1000 };

		nanosleep(&ts, NULL);
	}
	michi_mt_reacquire(depth);
}

void mtmi_idle(unsigned *spins)
{
	unsigned long long n;

	if (mtmi_progress() > 0) {
		*spins = 0;
		return;
	}
	n = ++*spins;
	if (unlikely(mtmi_idle_hook != NULL))
		mtmi_idle_hook();
	if (unlikely(michi_mt)) {
		mtmi_idle_mt(n);
		return;
	}
	if (n <= michi_wait.spin)
		michi_cpu_relax();
	else if (n <= michi_wait.spin + michi_wait.yield || mtmi_stream_recvs.head)
		sched_yield();   /* a streamed sender wakes nobody: never block then */
	else
		michi_devices_block(michi_wait.block_ms);
	/* stay in the last stage instead of wrapping back to spinning */
	if (*spins == ~0u)
		*spins = ~0u - 1;
}

size_t mtmi_recv_have(const struct mtmi_req *r)
{
	return !r->done && (r->flags & MTMI_RF_WAIT_STREAM) ? r->count : 0;
}

void mtmi_wait_some(struct mtmi_req *r, size_t seen)
{
	unsigned spins = 0;

	while (!r->done && mtmi_recv_have(r) <= seen)
		mtmi_idle(&spins);
}

michi_status_t mtmi_wait(struct mtmi_req *r)
{
	unsigned spins = 0;

	while (!r->done)
		mtmi_idle(&spins);
	return r->error;
}
