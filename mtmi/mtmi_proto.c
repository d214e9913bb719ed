/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_proto.c: the protocols of MTMI's own-queue engine over byte
 * devices, and the upcalls those devices make.
 *
 * Eager: the payload follows the header in one frame; a receive posted in
 * time gets it straight into its buffer, else it waits in an unexpected
 * message. Synchronous eager sends wait for the receiver's SYNC_ACK,
 * sent when the message matches. Rendezvous (above the device's eager
 * limit): RTS with the size, the receiver answers CTS once matched with
 * how many bytes it takes (its capacity, so truncation costs no
 * bandwidth), the sender sends DATA from the user buffer and the device
 * writes it straight into the posted buffer. Over a device that can read
 * the sender's memory (shm with CMA) the RTS carries the buffer's address
 * and the receiver pulls the bytes itself once matched, then sends FIN:
 * one copy and no DATA frame; if the pull is not permitted it falls back
 * to CTS. From rndv_split_min up, when the device can also write into
 * the receiver's memory, the two split the copy: the receiver asks the
 * sender (PUSH) to write the second half while it pulls the first, where
 * the host has a processor per rank (below). A streamed rendezvous
 * (mtmi_isend_stream) carries also the address of the sender's count of
 * bytes ready: the receiver reads it and pulls what is ready, a piece at
 * a time from progress, while the sender still packs the rest; FIN once
 * all is in. Cancel of a send asks the receiver to withdraw the message
 * from its unexpected queue. A send completes when no wait flag is left
 * (MTMI_RF_WAIT_MASK), whatever the order the acknowledgements come in.
 */
#include "config.h"
#include "mtmi_priv.h"

#include <stdlib.h>
#include <string.h>

struct mtmi_rlist mtmi_pending_sends;   /* sends that did not complete in isend */
struct mtmi_rlist mtmi_active_recvs;    /* receives waiting for rendezvous DATA */
struct mtmi_rlist mtmi_stream_recvs;    /* receives pulling a streamed rendezvous */

_Static_assert(offsetof(struct mtmi_req, rready) == offsetof(struct mtmi_req, raddr) + 8,
	       "a streamed RTS's payload lands in raddr and rready");

/* The most a streamed receive pulls at a time, so that its owner can use
 * each piece while it is in cache. */
#define STREAM_PULL ((size_t)256 << 10)

/* The split needs the sender's core as well as the receiver's: where the
 * host's ranks outnumber its processors (michi_wait.oversubscribed) it only
 * adds a hand-over, the receiver waiting for the sender to be scheduled
 * for its PUSHED, and a sender of several messages (a scatter's root)
 * copies half of each of them in turn. 4 ranks on 2 cores, bench/oversub
 * medians of 5 runs, split against the receiver alone: 64 KiB scatter
 * 108 against 76 us, alltoall 325 against 265, bcast 77 against 65;
 * 1 MiB scatter 1409 against 1056, alltoall 4953 against 4820; even:
 * 64 KiB gather (126 and 126), 1 MiB allgather (4955 against 4962); the
 * one clear loss, 1 MiB bcast (925 against 992; on 8 ranks 1978 against
 * 2026). */
static size_t mtmi_split_min = 65536;
MICHI_TUNABLE(mtmi_split_min, "rndv_split_min", MICHI_T_SIZE, "64k", MICHI_LEVEL_TUNER,
	      "smallest rendezvous that receiver and sender copy together, half each, over a "
	      "device that can pull and push, where the host has a processor per rank (0: the "
	      "receiver copies alone)");
static int mtmi_split_oversub;
MICHI_TUNABLE(mtmi_split_oversub, "rndv_split_oversubscribed", MICHI_T_BOOL, "0",
	      MICHI_LEVEL_DEVELOPER, "split rendezvous copies (rndv_split_min) also where the "
	      "host's ranks outnumber its processors");

/* A header-only frame (no payload, no completion to track). */
static michi_status_t ctl_send_off(int peer, uint8_t type, uint8_t flags, uint64_t sid,
				   uint64_t aux, uint64_t size, uint64_t off)
{
	struct mtmi_hdr h;
	struct iovec iov;
	michi_status_t st;

	memset(&h, 0, sizeof(h));
	h.type = type;
	h.flags = flags;
	h.seq = mtmi_tx_seq[peer]++;
	h.size = size;
	h.off = off;
	h.sid = sid;
	h.aux = aux;
	iov.iov_base = &h;
	iov.iov_len = sizeof(h);
	st = michi_dev_for_peer[peer]->send(peer, &iov, 1, NULL);
	if (st < 0) {
		mtmi_tx_seq[peer]--;
		return st;
	}
	return MICHI_OK;
}

static michi_status_t ctl_send(int peer, uint8_t type, uint8_t flags, uint64_t sid,
			       uint64_t aux, uint64_t size)
{
	return ctl_send_off(peer, type, flags, sid, aux, size, 0);
}

/* ---- send side ---------------------------------------------------------- */

void mtmi_send_check_done(struct mtmi_req *r)
{
	if (r->done || (r->flags & MTMI_RF_WAIT_MASK))
		return;
	if (r->flags & MTMI_RF_PENDING) {
		mtmi_rlist_del(&mtmi_pending_sends, r);
		r->flags &= ~MTMI_RF_PENDING;
	}
	mtmi_req_finish(r);
}

static void pending_add(struct mtmi_req *r, int peer, uint32_t seq)
{
	r->peer = peer;
	r->offset = seq;
	r->flags |= MTMI_RF_PENDING;
	mtmi_rlist_append(&mtmi_pending_sends, r);
}

/* The device queued (or refused) an eager frame of mtmi_isend_iov. */
michi_status_t mtmi_isend_queued(struct mtmi_req *r, michi_status_t st, int peer)
{
	if (st < 0) {
		/* nothing left: the frame number goes to the next frame */
		mtmi_tx_seq[peer]--;
		return st;
	}
	r->flags = MTMI_RF_WAIT_SEND;
	pending_add(r, peer, mtmi_tx_seq[peer] - 1);
	return MICHI_INPROGRESS;
}

/*
 * Synchronous eager and rendezvous sends. r is set up before the device
 * call, and MTMI_RF_INCALL holds its completion back, because a device
 * may deliver (and get answers) before send() returns.
 */
/* The parts of a send that every protocol sets up: r, and the matching
 * header h with the next frame number to peer. */
static void send_setup(struct mtmi_req *r, struct mtmi_hdr *h, const void *buf, size_t len,
		       int peer, int src_rank, int tag, uint32_t ctx, int mode)
{
	r->done = 0;
	r->error = 0;
	r->cancelled = 0;
	r->type = MTMI_REQ_SEND;
	r->count = len;
	memset(h, 0, sizeof(*h));
	h->seq = mtmi_tx_seq[peer]++;
	h->ctx = ctx;
	h->src_rank = src_rank;
	h->tag = tag;
	h->sid = (uintptr_t)r;
	r->buf = (void *)buf;
	r->len = len;
	r->ctx = ctx;
	r->mode = mode;
}

michi_status_t mtmi_isend_slow(const void *buf, size_t len, int peer, int src_rank,
			       int tag, uint32_t ctx, int mode, struct mtmi_req *r)
{
	struct michi_device *d = michi_dev_for_peer[peer];
	struct mtmi_hdr h;
	struct iovec iov[2];
	michi_status_t st;
	int iovcnt = 1;

	send_setup(r, &h, buf, len, peer, src_rank, tag, ctx, mode);
	r->flags = MTMI_RF_INCALL;
	pending_add(r, peer, h.seq);
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	if (len <= d->eager_limit) {
		h.type = MTMI_F_EAGER_SYNC;
		h.len = len;
		iov[1].iov_base = (void *)buf;
		iov[1].iov_len = len;
		iovcnt = 2;
		r->flags |= MTMI_RF_WAIT_ACK | MTMI_RF_WAIT_SEND;
	} else {
		h.type = MTMI_F_RTS;
		h.aux = len;
		r->flags |= MTMI_RF_WAIT_CTS;
		if (d->pull) {
			/* in the request: the device may queue the frame */
			r->raddr = (uintptr_t)buf;
			h.len = sizeof(r->raddr);
			iov[1].iov_base = &r->raddr;
			iov[1].iov_len = sizeof(r->raddr);
			iovcnt = 2;
		}
	}
	st = michi_dev_send(d, peer, iov, iovcnt, (r->flags & MTMI_RF_WAIT_SEND) ? r : NULL);
	if (unlikely(st < 0)) {
		mtmi_rlist_del(&mtmi_pending_sends, r);
		r->flags = 0;
		mtmi_tx_seq[peer]--;
		return st;
	}
	if (h.type == MTMI_F_RTS)
		mtmi_stats.rndv_sends++;
	if (st == MICHI_OK)
		r->flags &= ~MTMI_RF_WAIT_SEND;
	r->flags &= ~MTMI_RF_INCALL;
	if (r->flags & MTMI_RF_WAIT_MASK)
		return MICHI_INPROGRESS;
	/* r's owner may free it from on_complete: not touched after this */
	mtmi_send_check_done(r);
	return MICHI_OK;
}

/* Rendezvous DATA of the first n bytes of s, for receive rid. */
static void send_data(struct mtmi_req *s, int peer, uint64_t rid, size_t n)
{
	struct mtmi_hdr d;
	struct iovec iov[2];
	michi_status_t st;

	memset(&d, 0, sizeof(d));
	d.len = n;
	d.type = MTMI_F_DATA;
	d.seq = mtmi_tx_seq[peer]++;
	d.sid = (uintptr_t)s;
	d.aux = rid;
	iov[0].iov_base = &d;
	iov[0].iov_len = sizeof(d);
	iov[1].iov_base = s->buf;
	iov[1].iov_len = n;
	s->flags |= MTMI_RF_WAIT_SEND;
	st = michi_dev_for_peer[peer]->send(peer, iov, 2, s);
	if (st != MICHI_INPROGRESS)
		s->flags &= ~MTMI_RF_WAIT_SEND;
	if (st < 0) {
		mtmi_tx_seq[peer]--;
		s->error = st;
	}
	mtmi_send_check_done(s);
}

static void on_cts(int peer, const struct mtmi_hdr *h)
{
	struct mtmi_req *s = (struct mtmi_req *)(uintptr_t)h->sid;
	size_t n = h->size;

	if (unlikely(!(s->flags & MTMI_RF_WAIT_CTS) || n > s->len)) {
		michi_error("mtmi: unexpected CTS from rank %d (bytes %zu), ignored",
			    peer, n);
		return;
	}
	if (unlikely(s->flags & MTMI_RF_WAIT_FILL)) {
		/* streamed, to a receiver that cannot pull: DATA leaves with
		 * the last byte (mtmi_stream_ready) */
		s->flags |= MTMI_RF_CTS_LATE;
		s->remote_id = h->aux;
		s->priv = (void *)(uintptr_t)n;
		return;
	}
	s->flags &= ~MTMI_RF_WAIT_CTS;
	send_data(s, peer, h->aux, n);
}

/* ---- streamed rendezvous, sender's side ------------------------------------ */

int mtmi_stream_able(int peer, size_t len)
{
	struct michi_device *d = michi_dev_for_peer[peer];

	return d->pull && len > d->eager_limit;
}

/*
 * An RTS whose 16-byte payload is the buffer's address and that of the
 * ready count: msg_len, which a send does not otherwise use. The second
 * address waits in remote_id, which a send does not use either, so the
 * device may queue the frame. WAIT_FILL holds completion until the last
 * byte is published.
 */
michi_status_t mtmi_isend_stream(const void *buf, size_t len, size_t ready, int peer,
				 int src_rank, int tag, uint32_t ctx, int mode,
				 struct mtmi_req *r)
{
	struct michi_device *d = michi_dev_for_peer[peer];
	struct mtmi_hdr h;
	struct iovec iov[3];
	michi_status_t st;

	if (!mtmi_stream_able(peer, len))
		return michi_err(MICHI_ERR_UNSUPPORTED,
				 "mtmi: no streamed send of %zu bytes to rank %d", len, peer);
	send_setup(r, &h, buf, len, peer, src_rank, tag, ctx, mode);
	h.type = MTMI_F_RTS;
	h.aux = len;
	h.len = 2 * sizeof(uint64_t);
	r->msg_len = ready < len ? ready : len;
	r->raddr = (uintptr_t)buf;
	r->remote_id = (uintptr_t)&r->msg_len;
	r->flags = MTMI_RF_INCALL | MTMI_RF_WAIT_CTS |
		   (r->msg_len < len ? MTMI_RF_WAIT_FILL : 0);
	pending_add(r, peer, h.seq);
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = &r->raddr;
	iov[1].iov_len = sizeof(r->raddr);
	iov[2].iov_base = &r->remote_id;
	iov[2].iov_len = sizeof(r->remote_id);
	st = d->send(peer, iov, 3, NULL);
	if (unlikely(st < 0)) {
		mtmi_rlist_del(&mtmi_pending_sends, r);
		r->flags = 0;
		mtmi_tx_seq[peer]--;
		return st;
	}
	mtmi_stats.rndv_sends++;
	r->flags &= ~MTMI_RF_INCALL;
	return MICHI_INPROGRESS;
}

void mtmi_stream_ready(struct mtmi_req *r, size_t ready)
{
	if (!(r->flags & MTMI_RF_WAIT_FILL) || ready <= r->msg_len)
		return;
	if (ready > r->len)
		ready = r->len;
	/* the bytes before the count (the receiver reads both with CMA) */
	__atomic_store_n(&r->msg_len, ready, __ATOMIC_RELEASE);
	if (ready < r->len)
		return;
	r->flags &= ~MTMI_RF_WAIT_FILL;
	if (r->flags & MTMI_RF_CTS_LATE) {
		r->flags &= ~(MTMI_RF_CTS_LATE | MTMI_RF_WAIT_CTS);
		send_data(r, r->peer, r->remote_id, (size_t)(uintptr_t)r->priv);
		return;
	}
	mtmi_send_check_done(r);
}

static void on_sync_ack(int peer, const struct mtmi_hdr *h)
{
	struct mtmi_req *s = (struct mtmi_req *)(uintptr_t)h->sid;

	if (unlikely(!(s->flags & MTMI_RF_WAIT_ACK))) {
		michi_error("mtmi: unexpected SYNC_ACK from rank %d, ignored", peer);
		return;
	}
	s->flags &= ~MTMI_RF_WAIT_ACK;
	mtmi_send_check_done(s);
}

/* The receiver pulled the data (FIN answers RTS in place of CTS). */
static void on_fin(int peer, const struct mtmi_hdr *h)
{
	struct mtmi_req *s = (struct mtmi_req *)(uintptr_t)h->sid;

	uint32_t want = h->flags ? MTMI_RF_WAIT_FIN2 : MTMI_RF_WAIT_CTS | MTMI_RF_WAIT_FIN;

	if (unlikely(!(s->flags & want) || h->size > s->len)) {
		michi_error("mtmi: unexpected FIN from rank %d, ignored", peer);
		return;
	}
	s->flags &= ~want;
	mtmi_send_check_done(s);
}

/*
 * Split rendezvous, sender's side: the receiver pulls the first part and
 * asks us to write the rest into its buffer, so both cores copy at once.
 * We complete on its FIN (it has stopped reading our buffer); if our
 * write is refused, it pulls that part too and says so with FIN flags 1.
 */
static void on_push(int peer, const struct mtmi_hdr *h)
{
	struct mtmi_req *s = (struct mtmi_req *)(uintptr_t)h->sid;
	struct michi_device *d = michi_dev_for_peer[peer];
	michi_status_t st = MICHI_ERR_UNSUPPORTED;

	if (unlikely(!(s->flags & MTMI_RF_WAIT_CTS) || h->off > s->len ||
		     h->size > s->len - h->off)) {
		michi_error("mtmi: unexpected PUSH from rank %d, ignored", peer);
		return;
	}
	s->flags = (s->flags & ~MTMI_RF_WAIT_CTS) | MTMI_RF_WAIT_FIN;
	if (d->push)
		st = d->push(peer, h->aux, (const char *)s->buf + h->off, h->size);
	if (st < 0)
		s->flags |= MTMI_RF_WAIT_FIN2;
	ctl_send(peer, MTMI_F_PUSHED, st < 0, h->sid, 0, 0);
	mtmi_send_check_done(s);
}

static void on_cancel_ack(int peer, const struct mtmi_hdr *h)
{
	struct mtmi_req *s = (struct mtmi_req *)(uintptr_t)h->sid;

	if (unlikely(!(s->flags & MTMI_RF_WAIT_CANCEL))) {
		michi_error("mtmi: unexpected CANCEL_ACK from rank %d, ignored", peer);
		return;
	}
	s->flags &= ~MTMI_RF_WAIT_CANCEL;
	if (h->flags) {
		s->flags &= ~(MTMI_RF_WAIT_ACK | MTMI_RF_WAIT_CTS);
		s->cancelled = 1;
	}
	mtmi_send_check_done(s);
}

void mtmi_dev_send_done(void *cookie, michi_status_t st)
{
	struct mtmi_req *r = cookie;

	if (!r)
		return;
	r->flags &= ~MTMI_RF_WAIT_SEND;
	if (st < 0 && r->error == 0)
		r->error = st;
	mtmi_send_check_done(r);
}

/* ---- receive side ------------------------------------------------------- */

void mtmi_recv_complete(struct mtmi_req *r, michi_status_t st)
{
	if (st == MICHI_OK && r->msg_len > r->len)
		st = MICHI_ERR_TRUNCATE;
	if (st == MICHI_OK || st == MICHI_ERR_TRUNCATE)
		r->count = r->msg_len < r->len ? r->msg_len : r->len;
	else
		r->count = 0;
	r->error = st;
	r->flags = 0;
	mtmi_req_finish(r);
}

static void cts_send(struct mtmi_req *r, int peer, uint64_t sid, size_t size);

/* A streamed receive ends: FIN tells the sender we read no more. */
static void stream_end(struct mtmi_req *r, michi_status_t st)
{
	mtmi_rlist_del(&mtmi_stream_recvs, r);
	r->flags = 0;
	if (!mtmi_peer_dead[r->peer])
		ctl_send(r->peer, MTMI_F_FIN, 0, r->remote_id, 0, r->count);
	mtmi_recv_complete(r, st);
}

/*
 * One step of a streamed receive: read the sender's ready count, pull up
 * to STREAM_PULL more of what is ready. Returns 1 when something moved
 * (or r ended), 0 when the sender has published nothing new. A pull
 * refused before any byte came falls back to CTS, which the sender
 * answers with DATA once it has all its bytes.
 */
static int stream_step(struct mtmi_req *r)
{
	struct michi_device *d = michi_dev_for_peer[r->peer];
	size_t n = r->msg_len < r->len ? r->msg_len : r->len, k;
	michi_status_t st;
	uint64_t ready;

	st = d->pull(r->peer, &ready, r->rready, sizeof(ready));
	if (st == MICHI_OK && ready > r->msg_len)
		st = michi_err(MICHI_ERR_INTERN, "mtmi: rank %d has %llu of %zu bytes ready",
			       r->peer, (unsigned long long)ready, r->msg_len);
	if (st == MICHI_ERR_UNSUPPORTED && r->count == 0) {
		mtmi_rlist_del(&mtmi_stream_recvs, r);
		cts_send(r, r->peer, r->remote_id, r->msg_len);
		return 1;
	}
	if (st < 0) {
		stream_end(r, st);
		return 1;
	}
	if (ready > n)
		ready = n;
	if (ready <= r->count)
		return 0;
	k = ready - r->count;
	if (k > STREAM_PULL)
		k = STREAM_PULL;
	st = d->pull(r->peer, (char *)r->buf + r->count, r->raddr + r->count, k);
	if (st < 0) {
		stream_end(r, st);
		return 1;
	}
	r->count += k;
	if (r->count == n)
		stream_end(r, MICHI_OK);
	return 1;
}

int mtmi_stream_poll(void)
{
	struct mtmi_req *r, *next;
	int n = 0;

	for (r = mtmi_stream_recvs.head; r; r = next) {
		next = r->next;
		n += stream_step(r);
	}
	return n;
}

/*
 * r matched an RTS. With the sender's address and a device that pulls,
 * take the bytes and say FIN; else ask for what fits with CTS, so the
 * device discards nothing.
 */
static void rts_matched(struct mtmi_req *r, int peer, uint64_t sid, size_t size,
			uint64_t raddr, uint64_t rready)
{
	struct michi_device *d = michi_dev_for_peer[peer];
	size_t n = size < r->len ? size : r->len;
	michi_status_t st;

	r->msg_len = size;
	r->remote_id = sid;
	r->peer = peer;
	if (rready && raddr && d->pull) {
		/* streamed: what is ready now, the rest from progress */
		r->raddr = raddr;
		r->rready = rready;
		r->count = 0;
		r->flags = MTMI_RF_WAIT_STREAM;
		mtmi_rlist_append(&mtmi_stream_recvs, r);
		stream_step(r);
		return;
	}
	if (raddr && d->pull && d->push && mtmi_split_min && n >= mtmi_split_min &&
	    (!michi_wait.oversubscribed || mtmi_split_oversub) &&
	    d->pull(peer, NULL, raddr, 0) == MICHI_OK) {
		/* half each, split on a page */
		size_t k = (n / 2) & ~(size_t)4095;

		r->raddr = raddr;
		r->flags = MTMI_RF_WAIT_PUSH;
		mtmi_rlist_append(&mtmi_active_recvs, r);
		ctl_send_off(peer, MTMI_F_PUSH, 0, sid, (uintptr_t)r->buf + k, n - k, k);
		st = d->pull(peer, r->buf, raddr, k);
		/* from here on we read no more of the sender's buffer */
		ctl_send(peer, MTMI_F_FIN, 0, sid, 0, k);
		r->error = st < 0 ? st : 0;   /* reported at PUSHED */
		return;
	}
	if (raddr && d->pull) {
		st = n ? d->pull(peer, r->buf, raddr, n) : MICHI_OK;
		if (st != MICHI_ERR_UNSUPPORTED) {
			/* on a failed pull the sender still completes; r reports it */
			ctl_send(peer, MTMI_F_FIN, 0, sid, 0, n);
			r->flags = 0;
			mtmi_recv_complete(r, st);
			return;
		}
	}
	cts_send(r, peer, sid, size);
}

/* Ask with CTS for the bytes that fit; DATA brings them. */
static void cts_send(struct mtmi_req *r, int peer, uint64_t sid, size_t size)
{
	michi_status_t st;

	r->flags = MTMI_RF_WAIT_DATA;
	mtmi_rlist_append(&mtmi_active_recvs, r);
	st = ctl_send(peer, MTMI_F_CTS, 0, sid, (uintptr_t)r,
		      size < r->len ? size : r->len);
	if (st < 0 && (r->flags & MTMI_RF_WAIT_DATA)) {
		mtmi_rlist_del(&mtmi_active_recvs, r);
		mtmi_recv_complete(r, st);
	}
}

/* A message counts as matched (for synchronous sends) at its match,
 * which for mprobe comes before the receive. */
static void msg_matched(struct mtmi_msg *m)
{
	if (m->type != MTMI_F_EAGER_SYNC)
		return;
	m->type = MTMI_F_EAGER;
	if (!mtmi_peer_dead[m->peer])
		ctl_send(m->peer, MTMI_F_SYNC_ACK, 0, m->sid, 0, 0);
}

/* An RTS message (with its address, if any, in data) goes to r. */
static void msg_rts_go(struct mtmi_req *r, struct mtmi_msg *m)
{
	int peer = m->peer;
	uint64_t sid = m->sid, raddr = 0, rready = 0;
	size_t size = m->len;

	if (m->has_addr)
		memcpy(&raddr, m->data, sizeof(raddr));
	if (m->has_addr == 2)
		memcpy(&rready, m->data + sizeof(raddr), sizeof(rready));
	mtmi_msg_free(m);
	rts_matched(r, peer, sid, size, raddr, rready);
}

static void msg_deliver(struct mtmi_req *r, struct mtmi_msg *m)
{
	michi_status_t st = m->error;

	if (m->type == MTMI_F_RTS && st == MICHI_OK) {
		msg_rts_go(r, m);
		return;
	}
	if (st == MICHI_OK)
		memcpy(r->buf, m->data, m->len < r->len ? m->len : r->len);
	mtmi_msg_free(m);
	mtmi_recv_complete(r, st);
}

/* Hand unexpected message m (already matched) to receive r. */
static void msg_take(struct mtmi_req *r, struct mtmi_msg *m)
{
	r->source = m->src_rank;
	r->tag = m->tag;
	r->peer = m->peer;
	r->msg_len = m->len;
	if (m->queued)
		mtmi_queue_unexp_del(m);
	if (!m->complete) {
		/* the payload is still coming: recv_done finishes r */
		r->flags = 0;
		m->bound = r;
		return;
	}
	msg_deliver(r, m);
}

michi_status_t mtmi_irecv_slow(struct mtmi_req *r, struct mtmi_bucket *b)
{
	struct mtmi_msg *m;

	m = mtmi_queue_find_unexp(r->ctx, r->src_match, r->tag_match, b);
	if (m) {
		msg_matched(m);
		msg_take(r, m);
		return r->done ? MICHI_OK : MICHI_INPROGRESS;
	}
	if (mtmi_peer_gone(r->peer))
		return r->peer >= 0
			? michi_err(MICHI_ERR_PEER, "receive from rank %d, which has failed or left",
				    r->peer)
			: michi_err(MICHI_ERR_PEER, "receive from any rank: every other rank has "
				    "failed or left");
	if (mtmi_queue_post(r, b) < 0)
		return MICHI_ERR_NOMEM;
	return MICHI_INPROGRESS;
}

static void __attribute__((noreturn, cold)) nomem_abort(int peer, size_t len)
{
	michi_error("mtmi: out of memory holding an unexpected message of %zu bytes "
		    "from rank %d; a message cannot be dropped, aborting", len, peer);
	abort();
}

/* A matchable frame (EAGER, EAGER_SYNC, RTS) arrived. */
static void on_msg(int peer, const struct mtmi_hdr *h, struct michi_rx *rx)
{
	struct mtmi_bucket *b = &mtmi_buckets[mtmi_hash(h->ctx, h->src_rank, h->tag)];
	struct mtmi_req *r;
	struct mtmi_msg *m;

	r = mtmi_queue_match_posted(h->ctx, h->src_rank, h->tag, b);
	if (likely(r != NULL)) {
		r->source = h->src_rank;
		r->tag = h->tag;
		r->peer = peer;
		if (h->type == MTMI_F_RTS) {
			if (h->len < sizeof(r->raddr)) {
				rts_matched(r, peer, h->sid, h->aux, 0, 0);
				return;
			}
			/* the address (and a streamed send's ready count's)
			 * is the payload: go on in recv_done */
			r->msg_len = h->aux;
			r->remote_id = h->sid;
			r->flags = MTMI_RF_WAIT_RADDR;
			r->raddr = 0;
			r->rready = 0;
			rx->buf = &r->raddr;
			rx->cap = h->len >= 2 * sizeof(uint64_t) ? 2 * sizeof(uint64_t)
								 : sizeof(r->raddr);
			rx->cookie = r;
			mtmi_rx_cur[peer] = r;
			return;
		}
		if (h->type == MTMI_F_EAGER_SYNC)
			ctl_send(peer, MTMI_F_SYNC_ACK, 0, h->sid, 0, 0);
		r->msg_len = h->len;
		if (h->len == 0) {
			mtmi_recv_complete(r, MICHI_OK);
			return;
		}
		rx->buf = r->buf;
		rx->cap = r->len;
		rx->cookie = r;
		mtmi_rx_cur[peer] = r;
		return;
	}
	m = mtmi_msg_alloc(h->len);
	if (!m)
		nomem_abort(peer, h->len);
	m->ctx = h->ctx;
	m->src_rank = h->src_rank;
	m->tag = h->tag;
	m->peer = peer;
	m->type = h->type;
	m->seq = h->seq;
	m->sid = h->sid;
	m->has_addr = h->type != MTMI_F_RTS ? 0 : h->len >= 2 * sizeof(uint64_t) ? 2
		    : h->len >= sizeof(uint64_t);
	if (h->type == MTMI_F_RTS)
		m->len = h->aux;
	if (mtmi_queue_unexp_add(m, b) < 0)
		nomem_abort(peer, h->len);
	if (h->len == 0) {
		m->complete = 1;
		return;
	}
	rx->buf = m->data;
	rx->cap = h->len;
	rx->cookie = (char *)m + MTMI_COOKIE_MSG;
	mtmi_rx_cur[peer] = rx->cookie;
}

static void on_data(int peer, const struct mtmi_hdr *h, struct michi_rx *rx)
{
	struct mtmi_req *r = (struct mtmi_req *)(uintptr_t)h->aux;

	if (unlikely(!(r->flags & MTMI_RF_WAIT_DATA) || r->peer != peer)) {
		michi_error("mtmi: DATA from rank %d for no waiting receive, discarded",
			    peer);
		return;
	}
	if (h->len == 0) {
		mtmi_rlist_del(&mtmi_active_recvs, r);
		mtmi_recv_complete(r, MICHI_OK);
		return;
	}
	rx->buf = r->buf;
	rx->cap = r->len;
	rx->cookie = r;
	mtmi_rx_cur[peer] = r;
}

/* Split rendezvous, receiver's side: the sender wrote its part (flags
 * 0), or could not, and we pull that part as well (flags 1). */
static void on_pushed(int peer, const struct mtmi_hdr *h)
{
	struct mtmi_req *r;
	michi_status_t st;
	size_t n, k;

	for (r = mtmi_active_recvs.head; r; r = r->next)
		if ((r->flags & MTMI_RF_WAIT_PUSH) && r->peer == peer && r->remote_id == h->sid)
			break;
	if (unlikely(!r)) {
		michi_error("mtmi: PUSHED from rank %d for no waiting receive, ignored", peer);
		return;
	}
	mtmi_rlist_del(&mtmi_active_recvs, r);
	st = r->error;
	if (h->flags) {
		michi_status_t s2;

		n = r->msg_len < r->len ? r->msg_len : r->len;
		k = (n / 2) & ~(size_t)4095;
		s2 = michi_dev_for_peer[peer]->pull(peer, (char *)r->buf + k, r->raddr + k, n - k);
		ctl_send(peer, MTMI_F_FIN, 1, h->sid, 0, n - k);
		if (st == MICHI_OK)
			st = s2;
	}
	mtmi_recv_complete(r, st);
}

static void on_cancel_req(int peer, const struct mtmi_hdr *h)
{
	struct mtmi_msg *m = mtmi_queue_find_seq(peer, (uint32_t)h->aux);
	int yes = m && m->sid == h->sid && m->complete;

	if (yes) {
		mtmi_queue_unexp_del(m);
		mtmi_msg_free(m);
	}
	ctl_send(peer, MTMI_F_CANCEL_ACK, (uint8_t)yes, h->sid, 0, 0);
}

void mtmi_dev_recv_hdr(int peer, const void *hdr, struct michi_rx *rx)
{
	const struct mtmi_hdr *h = hdr;

	rx->buf = NULL;
	rx->cap = 0;
	rx->cookie = NULL;
	if (unlikely(h->seq != mtmi_rx_seq[peer])) {
		michi_error("mtmi: frame %u from rank %d where %u was due (lost or reordered)",
			    h->seq, peer, mtmi_rx_seq[peer]);
		michi_err(MICHI_ERR_INTERN,
			  "mtmi: frame %u from rank %d where %u was due (lost or reordered)",
			  h->seq, peer, mtmi_rx_seq[peer]);
		mtmi_dev_peer_failed(peer, MICHI_ERR_INTERN);
		return;
	}
	mtmi_rx_seq[peer]++;
	switch (h->type) {
	case MTMI_F_EAGER:
	case MTMI_F_EAGER_SYNC:
	case MTMI_F_RTS:
		on_msg(peer, h, rx);
		return;
	case MTMI_F_CTS:
		on_cts(peer, h);
		return;
	case MTMI_F_DATA:
		on_data(peer, h, rx);
		return;
	case MTMI_F_SYNC_ACK:
		on_sync_ack(peer, h);
		return;
	case MTMI_F_CANCEL_REQ:
		on_cancel_req(peer, h);
		return;
	case MTMI_F_CANCEL_ACK:
		on_cancel_ack(peer, h);
		return;
	case MTMI_F_FIN:
		on_fin(peer, h);
		return;
	case MTMI_F_PUSH:
		on_push(peer, h);
		return;
	case MTMI_F_PUSHED:
		on_pushed(peer, h);
		return;
	}
	michi_error("mtmi: frame of unknown type %u from rank %d, discarded",
		    h->type, peer);
}

void mtmi_dev_recv_done(int peer, struct michi_rx *rx)
{
	void *ck = rx->cookie;
	struct mtmi_req *r;

	/* header-only frames, and frames of a peer already failed */
	if (!ck || ck != mtmi_rx_cur[peer])
		return;
	mtmi_rx_cur[peer] = NULL;
	if ((uintptr_t)ck & MTMI_COOKIE_MSG) {
		struct mtmi_msg *m = (void *)((char *)ck - MTMI_COOKIE_MSG);

		m->complete = 1;
		if (m->bound)
			msg_deliver(m->bound, m);
		return;
	}
	r = ck;
	if (r->flags & MTMI_RF_WAIT_RADDR) {
		rts_matched(r, peer, r->remote_id, r->msg_len, r->raddr, r->rready);
		return;
	}
	if (r->flags & MTMI_RF_WAIT_DATA)
		mtmi_rlist_del(&mtmi_active_recvs, r);
	mtmi_recv_complete(r, MICHI_OK);
}

/* ---- probe, matched probe ----------------------------------------------- */

static struct mtmi_msg *probe_find(int src_rank, int tag, uint32_t ctx)
{
	struct mtmi_bucket *b = NULL;

	if (src_rank >= 0 && tag >= 0)
		b = &mtmi_buckets[mtmi_hash(ctx, src_rank, tag)];
	return mtmi_queue_find_unexp(ctx, src_rank, tag, b);
}

static void probe_out(const struct mtmi_msg *m, int *source_out, int *tag_out,
		      size_t *len_out)
{
	if (source_out)
		*source_out = m->src_rank;
	if (tag_out)
		*tag_out = m->tag;
	if (len_out)
		*len_out = m->len;
}

michi_status_t mtmi_iprobe(int peer, int src_rank, int tag, uint32_t ctx,
			   int *flag, int *source_out, int *tag_out, size_t *len_out)
{
	struct mtmi_msg *m;
	int n;

	if (mtmi_tag)
		return mtmi_native_probe(peer, src_rank, tag, ctx, 0, flag, NULL, source_out,
					 tag_out, len_out);
	n = mtmi_poll();
	if (n < 0)
		return n;
	m = probe_find(src_rank, tag, ctx);
	if (!m) {
		*flag = 0;
		if (mtmi_peer_gone(peer))
			return michi_err(MICHI_ERR_PEER,
					 "probe for rank %d, which has failed or left (-2: any rank)",
					 peer);
		return MICHI_OK;
	}
	probe_out(m, source_out, tag_out, len_out);
	*flag = 1;
	return MICHI_OK;
}

michi_status_t mtmi_improbe(int peer, int src_rank, int tag, uint32_t ctx,
			    int *flag, struct mtmi_msg **msg, int *source_out,
			    int *tag_out, size_t *len_out)
{
	michi_status_t st;
	struct mtmi_msg *m;

	if (mtmi_tag)
		return mtmi_native_probe(peer, src_rank, tag, ctx, 1, flag, msg, source_out,
					 tag_out, len_out);
	st = mtmi_iprobe(peer, src_rank, tag, ctx, flag, NULL, NULL, NULL);
	if (st < 0 || !*flag)
		return st;
	m = probe_find(src_rank, tag, ctx);
	msg_matched(m);
	mtmi_queue_unexp_del(m);
	probe_out(m, source_out, tag_out, len_out);
	*msg = m;
	return MICHI_OK;
}

michi_status_t mtmi_imrecv(void *buf, size_t len, struct mtmi_msg *m,
			   struct mtmi_req *r)
{
	if (mtmi_tag)
		return mtmi_native_mrecv(buf, len, m, r);
	r->done = 0;
	r->error = 0;
	r->cancelled = 0;
	r->type = MTMI_REQ_RECV;
	r->buf = buf;
	r->len = len;
	r->src_match = m->src_rank;
	r->tag_match = m->tag;
	r->ctx = m->ctx;
	r->flags = 0;
	msg_take(r, m);
	return r->done ? MICHI_OK : MICHI_INPROGRESS;
}

/* ---- cancel ------------------------------------------------------------- */

michi_status_t mtmi_cancel(struct mtmi_req *r)
{
	michi_status_t st;

	if (mtmi_tag)
		return mtmi_native_cancel(r);
	if (r->done)
		return MICHI_OK;
	if (r->type == MTMI_REQ_RECV) {
		if (r->flags & MTMI_RF_POSTED) {
			mtmi_queue_post_del(r);
			r->cancelled = 1;
			r->msg_len = 0;
			r->source = MTMI_ANY_SOURCE;
			r->tag = MTMI_ANY_TAG;
			mtmi_recv_complete(r, MICHI_OK);
		}
		return MICHI_OK;
	}
	/* a send: only the receiver knows whether it matched; ask once */
	if ((r->flags & MTMI_RF_WAIT_CANCEL) || mtmi_peer_dead[r->peer] ||
	    !(r->flags & (MTMI_RF_WAIT_CTS | MTMI_RF_WAIT_ACK | MTMI_RF_WAIT_SEND)))
		return MICHI_OK;
	if ((r->flags & (MTMI_RF_WAIT_CTS | MTMI_RF_WAIT_ACK)) == 0 &&
	    r->len > michi_dev_for_peer[r->peer]->eager_limit)
		return MICHI_OK;   /* CTS came: the rendezvous matched */
	r->flags |= MTMI_RF_WAIT_CANCEL;
	st = ctl_send(r->peer, MTMI_F_CANCEL_REQ, 0, (uintptr_t)r, r->offset, 0);
	if (st < 0)
		r->flags &= ~MTMI_RF_WAIT_CANCEL;
	return MICHI_OK;
}

/* ---- peer failure ------------------------------------------------------- */

static void fail_rx_cur(int peer)
{
	void *ck = mtmi_rx_cur[peer];
	struct mtmi_req *r;

	if (!ck)
		return;
	mtmi_rx_cur[peer] = NULL;
	if ((uintptr_t)ck & MTMI_COOKIE_MSG) {
		struct mtmi_msg *m = (void *)((char *)ck - MTMI_COOKIE_MSG);

		m->error = MICHI_ERR_PEER;
		m->complete = 1;
		if (m->bound) {
			msg_deliver(m->bound, m);
		} else if (m->queued) {
			mtmi_queue_unexp_del(m);
			mtmi_msg_free(m);
		}
		/* else mprobe holds it: mtmi_imrecv reports the error */
		return;
	}
	r = ck;
	if (r->flags & MTMI_RF_WAIT_DATA)
		mtmi_rlist_del(&mtmi_active_recvs, r);
	mtmi_recv_complete(r, MICHI_ERR_PEER);
}

/*
 * Everything that needs peer completes with MICHI_ERR_PEER: sends to it,
 * receives posted for it, receives it was filling. Receives from
 * MTMI_ANY_SOURCE stay posted (another sender may match them), as in
 * MPICH without ULFM. A send whose payload the device still holds
 * completes at the device's send_done, which the contract promises.
 */
void mtmi_dev_peer_failed(int peer, michi_status_t st)
{
	struct mtmi_req *r, *next;

	(void)st;
	if (peer < 0 || peer >= mtmi_nranks)
		return;
	if (!mtmi_peer_dead[peer]) {
		mtmi_peer_dead[peer] = 1;
		mtmi_nfailed++;
	}
	fail_rx_cur(peer);
	for (r = mtmi_active_recvs.head; r; r = next) {
		next = r->next;
		if (r->peer != peer)
			continue;
		mtmi_rlist_del(&mtmi_active_recvs, r);
		mtmi_recv_complete(r, MICHI_ERR_PEER);
	}
	for (r = mtmi_stream_recvs.head; r; r = next) {
		next = r->next;
		if (r->peer != peer)
			continue;
		mtmi_rlist_del(&mtmi_stream_recvs, r);
		mtmi_recv_complete(r, MICHI_ERR_PEER);
	}
	for (r = mtmi_pending_sends.head; r; r = next) {
		next = r->next;
		if (r->peer != peer)
			continue;
		if (r->error == 0)
			r->error = MICHI_ERR_PEER;
		/* WAIT_FILL stays: the sender's buffer is in use until it
		 * has published everything */
		r->flags &= ~(MTMI_RF_WAIT_ACK | MTMI_RF_WAIT_CTS | MTMI_RF_WAIT_CANCEL |
			      MTMI_RF_WAIT_FIN | MTMI_RF_WAIT_FIN2 | MTMI_RF_CTS_LATE);
		mtmi_send_check_done(r);
	}
	mtmi_queue_fail_peer(peer, MICHI_ERR_PEER);
}

void mtmi_proto_fini(void)
{
	mtmi_pending_sends.head = mtmi_pending_sends.tail = NULL;
	mtmi_active_recvs.head = mtmi_active_recvs.tail = NULL;
	mtmi_stream_recvs.head = mtmi_stream_recvs.tail = NULL;
}
