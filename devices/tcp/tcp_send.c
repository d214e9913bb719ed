/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_send.c: sending frames and the per-peer send queue.
 *
 * The fast path is one sendmsg() of header and payload straight from the
 * caller's buffers, taken when the peer's connection is up and nothing is
 * queued (peer->fast_fd >= 0). Anything else (not connected yet, socket
 * full, frames already waiting) goes to the peer's FIFO queue, which keeps
 * frames in call order; the queue holds a copy of the 48-byte header and
 * pointers to the caller's payload, which MTMI keeps alive until
 * mtmi_dev_send_done(). sendmsg with MSG_NOSIGNAL is writev plus the
 * flag that turns a write to a closed peer into EPIPE instead of SIGPIPE.
 */
#include "config.h"
#include "tcp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

static michi_status_t tcp_send_error(struct tcp_peer *p, int peer, int err);

#ifndef NDEBUG
static size_t tcp_iov_total(const struct iovec *iov, int iovcnt)
{
	size_t n = 0;

	while (iovcnt-- > 0)
		n += iov[iovcnt].iov_len;
	return n;
}
#endif

/*
 * What the rare paths after sendmsg need, kept on the stack rather than in
 * registers: then the fast path saves one register, not six, around the
 * call. sendmsg takes the msghdr as const, so it is still intact after.
 */
struct tcp_send_args {
	struct msghdr msg;
	void *cookie;
	int peer;
};

static michi_status_t tcp_send_partial(struct tcp_send_args *a, ssize_t n)
	__attribute__((noinline, cold));
static michi_status_t tcp_send_slow(int peer, const struct iovec *iov, int iovcnt,
				    void *cookie) __attribute__((noinline));

michi_status_t tcp_send(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	int fd = tcp_peer_of(peer)->fast_fd;
	struct tcp_send_args a;
	size_t total;
	ssize_t n;

	if (unlikely(fd < 0))
		return tcp_send_slow(peer, iov, iovcnt, cookie);
	a.msg = (struct msghdr){ .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt };
	a.cookie = cookie;
	a.peer = peer;
	total = MICHI_FRAME_HDR_SIZE + michi_frame_payload_len(iov[0].iov_base);
	/* the stream's framing depends on it */
	MICHI_ASSERT(iov[0].iov_len == MICHI_FRAME_HDR_SIZE &&
		     tcp_iov_total(iov, iovcnt) == total);
	n = sendmsg(fd, &a.msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (likely((size_t)n == total))
		return MICHI_OK;
	return tcp_send_partial(&a, n);
}

/* The socket took part of the frame, or nothing: queue the rest. */
static michi_status_t tcp_send_partial(struct tcp_send_args *a, ssize_t n)
{
	struct tcp_peer *p = tcp_peer_of(a->peer);

	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return tcp_send_error(p, a->peer, errno);
		n = 0;
	}
	return tcp_send_queue(p, a->msg.msg_iov, (int)a->msg.msg_iovlen, (size_t)n,
			      a->cookie, 0);
}

/* Not connected, frames already queued, or the peer is gone. */
static michi_status_t tcp_send_slow(int peer, const struct iovec *iov, int iovcnt,
				    void *cookie)
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
	if (p->state == TCP_PEER_IDLE) {
		michi_status_t st = tcp_peer_connect(peer);

		if (st < 0)
			return st;
	}
	return tcp_send_queue(p, iov, iovcnt, 0, cookie, 0);
}

/* A write on an established connection failed (EPIPE, ECONNRESET): the
 * peer is gone. The upcall is deferred to progress so that MTMI is not
 * re-entered from inside its own send. */
static michi_status_t tcp_send_error(struct tcp_peer *p, int peer, int err)
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
	q->internal = internal;
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
	p->fast_fd = -1;
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
	/* unlink first: the upcall may send to this peer again */
	if (!q->internal)
		mtmi_dev_send_done(q->cookie, st);
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

	while (p->sq_head && p->state == TCP_PEER_UP) {
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
		n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			tcp_send_error(p, (int)(p - tcp.peers), errno);
			return;
		}
		tcp_sendq_advance(p, (size_t)n);
		if ((size_t)n < want)
			break;
	}
	if (p->state != TCP_PEER_UP)
		return;
	if (p->sq_head) {
		tcp_conn_set_events(c, EPOLLIN | EPOLLOUT);
	} else {
		tcp_conn_set_events(c, EPOLLIN);
		p->fast_fd = c->fd;
	}
}

/* Fail every queued frame of p with st. */
void tcp_send_fail_queue(struct tcp_peer *p, michi_status_t st)
{
	while (p->sq_head)
		tcp_sendq_done(p, st);
}
