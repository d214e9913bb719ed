/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_send.c: sending frames and the per-peer send queue.
 *
 * The fast path is one sendmsg() of header and payload straight from the
 * caller's buffers, taken when the peer's connection is up and nothing is
 * queued (tcp_fast_fd[peer] >= 0; inline in tcp_fast.h). Anything else (not connected yet, socket
 * full, frames already waiting) goes to the peer's FIFO queue, which keeps
 * frames in call order; the queue holds a copy of the 48-byte header and
 * pointers to the caller's payload, which MTMI keeps alive until
 * tcp.up.send_done(). sendmsg with MSG_NOSIGNAL is writev plus the
 * flag that turns a write to a closed peer into EPIPE instead of SIGPIPE.
 *
 * Large frames (rendezvous DATA, at least tcp_stripe_min bytes) are
 * striped over the peer pair's rails (tcp_stripe.c): every network both
 * hosts are on, and more than one socket on a rail where that pays (on
 * loopback one stream's kernel work is serial, and two sockets written in
 * turn move more bytes per second). The pair opens its rail connections
 * at its first large frame.
 */
#include "config.h"
#include "tcp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>


void tcp_split_part_done(struct tcp_split *s, michi_status_t st)
{
	if (st < 0 && s->st == MICHI_OK)
		s->st = st;
	if (--s->parts)
		return;
	tcp.up.send_done(s->cookie, s->st);
	free(s);
}

int tcp_connect_copy = 1;
MICHI_TUNABLE(tcp_connect_copy, "tcp_connect_copy", MICHI_T_BOOL, "yes", MICHI_LEVEL_DEVELOPER,
	      "copy eager frames queued while a connection opens, so their sends complete at once");

/* The out-of-line entry, for callers that go through the ops table
 * (rendezvous DATA among them): large frames are striped over the rails
 * once the pair has rail connections (the first one opens them). */
michi_status_t tcp_send(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	if (iovcnt == 2 && tcp_stripe_min && iov[1].iov_len >= tcp_stripe_min &&
	    *(const uint64_t *)iov[0].iov_base == iov[1].iov_len) {
		struct tcp_peer *p = tcp_peer_of(peer);

		if (p->state == TCP_PEER_UP && !p->stripe_off && tcp_stripe_ready(p))
			return tcp_stripe_send(p, peer, iov, cookie);
	}
	return tcp_send_fast(peer, iov, iovcnt, cookie);
}

/* The socket took part of the frame (n bytes), or nothing (n < 0): queue
 * the rest. */
michi_status_t tcp_send_partial(int peer, const struct iovec *iov, int iovcnt, void *cookie,
				ssize_t n)
{
	struct tcp_peer *p = tcp_peer_of(peer);

	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return tcp_send_error(p, peer, errno);
		n = 0;
	}
	return tcp_send_queue(p, iov, iovcnt, (size_t)n, cookie, 0);
}

/* A peer pair with rails: every frame is kept in the main stream's ring
 * as it goes out (tcp_resume.c), so the inline path is not taken. */
static michi_status_t tcp_send_stream(struct tcp_peer *p, int peer, const struct iovec *iov,
				      int iovcnt, void *cookie)
{
	struct msghdr m = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt };
	size_t total = iov[0].iov_len + *(const uint64_t *)iov[0].iov_base;
	ssize_t n = tcp_stream_sendmsg(p->conn, &m);

	if ((size_t)n == total)
		return MICHI_OK;
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		    !tcp_stream_lost(p->conn, errno))
			return tcp_send_error(p, peer, errno);
		n = 0;
	}
	return tcp_send_queue(p, iov, iovcnt, (size_t)n, cookie, 0);
}

/* Not connected, frames already queued, or the peer is gone. */
michi_status_t tcp_send_slow(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	struct tcp_peer *p = tcp_peer_of(peer);

	if (unlikely(p->state == TCP_PEER_FAILED)) {
		michi_err(p->fail_st, "rank %d cannot send to rank %d: its connection failed earlier",
			  tcp.rank, peer);
		return p->fail_st;
	}
	if (unlikely(p->state == TCP_PEER_DONE))
		return michi_err(MICHI_ERR_PEER, "rank %d cannot send to rank %d: it has finalized",
				 tcp.rank, peer);
	if (p->state == TCP_PEER_UP && p->conn && p->conn->sm && !p->sq_head)
		return tcp_send_stream(p, peer, iov, iovcnt, cookie);
	if (p->state == TCP_PEER_IDLE) {
		michi_status_t st = tcp_peer_connect(peer);

		if (st < 0)
			return st;
	}
	/* Small frames wait for a connection still opening as copies, so
	 * that an eager send completes now even while the peer has not
	 * answered yet (it answers from its next MPI call). */
	if (tcp_connect_copy && p->state != TCP_PEER_UP &&
	    michi_frame_payload_len(iov[0].iov_base) <= michi_device_tcp.eager_limit)
		return tcp_send_queue_copy(p, iov, iovcnt);
	return tcp_send_queue(p, iov, iovcnt, 0, cookie, 0);
}

/* Queue a copy of a whole frame: the caller's buffers are free at once
 * and no send_done upcall follows (MICHI_OK). */
michi_status_t tcp_send_queue_copy(struct tcp_peer *p, const struct iovec *iov, int iovcnt)
{
	size_t len = (size_t)michi_frame_payload_len(iov[0].iov_base), off = 0;
	struct iovec one[2];
	struct tcp_sendq *q;
	michi_status_t st;
	char *copy;
	int i;

	copy = malloc(len ? len : 1);
	if (!copy)
		return michi_err(MICHI_ERR_NOMEM, "tcp: no memory to queue a frame for rank %d",
				 (int)(p - tcp.peers));
	for (i = 1; i < iovcnt; i++) {
		memcpy(copy + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	one[0] = iov[0];
	one[1].iov_base = copy;
	one[1].iov_len = len;
	st = tcp_send_queue(p, one, 2, 0, copy, 1);
	if (st < 0) {
		free(copy);
		return st;
	}
	q = p->sq_tail;
	q->owned = copy;
	return MICHI_OK;
}

/* A write on an established connection failed (EPIPE, ECONNRESET): the
 * peer is gone. The upcall is deferred to progress so that MTMI is not
 * re-entered from inside its own send. */
michi_status_t tcp_send_error(struct tcp_peer *p, int peer, int err)
{
	const char *name = p->conn ? p->conn->name : "?";
	michi_status_t st;

	if (err == EMSGSIZE || err == EINVAL)   /* our call, not the peer */
		return michi_err(MICHI_ERR_INVAL, "tcp: cannot send a frame to rank %d: %s",
				 peer, strerror(err));

	st = michi_err(MICHI_ERR_PEER, "rank %d lost its connection to rank %d at %s: %s",
		       tcp.rank, peer, name, strerror(err));
	tcp_peer_fail(peer, st);
	return st;
}

/* Queue what is left of a frame after `sent` bytes went out. */
michi_status_t tcp_send_queue(struct tcp_peer *p, const struct iovec *iov,
			      int iovcnt, size_t sent, void *cookie, int internal)
{
	struct tcp_sendq *q;
	int i, skip = 0;

	while (skip < iovcnt && sent >= iov[skip].iov_len) {
		sent -= iov[skip].iov_len;
		skip++;
	}
	q = malloc(sizeof(*q) + sizeof(struct iovec) * (size_t)iovcnt);
	if (!q)
		return michi_err(MICHI_ERR_NOMEM, "tcp: no memory to queue a frame for rank %d",
				 (int)(p - tcp.peers));
	q->next = NULL;
	q->cookie = cookie;
	q->split = NULL;
	q->internal = internal;
	q->owned = NULL;
	q->cur = skip;
	q->iovcnt = iovcnt;
	for (i = 0; i < iovcnt; i++)
		q->iov[i] = iov[i];
	/* the header may live on the caller's stack */
	memcpy(q->hdr, iov[0].iov_base, MICHI_FRAME_HDR_SIZE);
	q->iov[0].iov_base = q->hdr;
	if (skip < iovcnt) {
		q->iov[skip].iov_base = (char *)q->iov[skip].iov_base + sent;
		q->iov[skip].iov_len -= sent;
	}
	if (p->sq_tail)
		p->sq_tail->next = q;
	else
		p->sq_head = q;
	p->sq_tail = q;
	tcp.nqueued++;
	tcp_fast_fd[p - tcp.peers] = -1;
	if (p->state == TCP_PEER_UP && p->conn)
		tcp_conn_set_events(p->conn, EPOLLIN | EPOLLOUT);
	return MICHI_INPROGRESS;
}

static void tcp_sendq_done(struct tcp_peer *p, michi_status_t st)
{
	struct tcp_sendq *q = p->sq_head;

	p->sq_head = q->next;
	if (!p->sq_head)
		p->sq_tail = NULL;
	tcp.nqueued--;
	/* unlink first: the upcall may send to this peer again */
	if (q->split)
		tcp_split_part_done(q->split, st);
	else if (!q->internal)
		tcp.up.send_done(q->cookie, st);
	free(q->owned);
	free(q);
}

/* Advance the queue by n written bytes, completing whole frames. */
static void tcp_sendq_advance(struct tcp_peer *p, size_t n)
{
	while (p->sq_head) {
		struct tcp_sendq *q = p->sq_head;

		while (q->cur < q->iovcnt && n >= q->iov[q->cur].iov_len) {
			n -= q->iov[q->cur].iov_len;
			q->cur++;
		}
		if (q->cur < q->iovcnt) {
			q->iov[q->cur].iov_base = (char *)q->iov[q->cur].iov_base + n;
			q->iov[q->cur].iov_len -= n;
			return;
		}
		tcp_sendq_done(p, MICHI_OK);
	}
}

/* Write queued frames until the socket is full or the queue is empty. */
void tcp_send_flush(struct tcp_peer *p)
{
	struct iovec iov[TCP_SENDQ_IOV];
	struct tcp_conn *c = p->conn;

	if (c && c->sm && p->state == TCP_PEER_UP) {
		int r;

		if (c->state != TCP_CONN_UP)
			return;       /* resuming: the queue waits */
		r = tcp_stream_replay(c);
		if (r < 0 && tcp_stream_lost(c, errno))
			return;
		if (r < 0) {
			tcp_send_error(p, (int)(p - tcp.peers), errno);
			return;
		}
		if (r == 0) {
			tcp_conn_set_events(c, EPOLLIN | EPOLLOUT);
			return;
		}
	}
	while (p->sq_head && p->state == TCP_PEER_UP && c->state == TCP_CONN_UP) {
		struct msghdr msg = { .msg_iov = iov };
		struct tcp_sendq *q;
		size_t want = 0;
		ssize_t n;
		int k = 0, i;

		for (q = p->sq_head; q && k < TCP_SENDQ_IOV; q = q->next) {
			for (i = q->cur; i < q->iovcnt && k < TCP_SENDQ_IOV; i++) {
				if (!q->iov[i].iov_len)
					continue;
				iov[k++] = q->iov[i];
				want += q->iov[i].iov_len;
			}
		}

		if (want == 0) {
			/* only empty frames left (should not happen: headers are 48 bytes) */
			tcp_sendq_advance(p, 0);
			continue;
		}
		msg.msg_iovlen = (size_t)k;
		n = tcp_stream_sendmsg(c, &msg);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (!tcp_stream_lost(c, errno))
				tcp_send_error(p, (int)(p - tcp.peers), errno);
			return;
		}
		tcp_sendq_advance(p, (size_t)n);
		if ((size_t)n < want)
			break;
	}
	if (p->state != TCP_PEER_UP || c->state != TCP_CONN_UP)
		return;
	if (p->sq_head) {
		tcp_conn_set_events(c, EPOLLIN | EPOLLOUT);
	} else {
		tcp_conn_set_events(c, EPOLLIN);
		if (!c->sm)
			tcp_fast_fd[p - tcp.peers] = c->fd;
	}
}

/* Fail every queued frame of p with st. */
void tcp_send_fail_queue(struct tcp_peer *p, michi_status_t st)
{
	while (p->sq_head)
		tcp_sendq_done(p, st);
}
