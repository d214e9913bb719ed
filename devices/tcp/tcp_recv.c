/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_recv.c: cutting the byte stream of a connection into
 * frames and handing them to MTMI.
 *
 * Small frames: one read() per readiness into the connection's receive
 * buffer, then every complete frame in it goes up (the recv_hdr upcall, copy
 * of the payload bytes already buffered, recv_done). Large
 * payloads: once the buffered bytes are used up, the rest is read with
 * readv() straight into MTMI's buffer, the receive buffer behind it for
 * whatever follows, so a large message lands with no staging copy. Bytes
 * beyond rx.cap are read into the receive buffer and dropped.
 *
 * A frame split over the lane (a TCP_SPLIT_LEN notice before it) has its
 * head on the main connection and its tail on the lane; the main
 * connection parses nothing further until both are in, so frames still
 * reach MTMI one at a time, in order.
 *
 * MTMI's upcalls may send (to any peer) but must not call the device's
 * progress: the connection's receive state is in use during them.
 */
#include "config.h"
#include "tcp.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

size_t tcp_rbuf_size = 65536;
MICHI_TUNABLE(tcp_rbuf_size, "tcp_rbuf_size", MICHI_T_SIZE, "65536",
	      MICHI_LEVEL_TUNER, "receive buffer per tcp connection (bytes, at least 4k)");

static inline void tcp_recv_frame_done(struct tcp_conn *c)
{
	if (unlikely(c->lane_rx)) {
		/* the tail on the lane is not in yet: it completes the frame */
		c->wait_lane = 1;
		return;
	}
	c->rx_active = 0;
	tcp.up.recv_done(c->peer, &c->rx);
}

/* The main connection's frame has its last `tail` bytes on the lane:
 * note their place in MTMI's buffer. The lane may still be waiting for
 * its handshake reply: the peer writes tails as soon as it accepted it. */
static void tcp_recv_split(struct tcp_conn *c, uint64_t tail)
{
	struct tcp_peer *p = tcp_peer_of(c->peer);
	uint64_t head = c->rx_len - tail;
	michi_status_t st;

	c->split_next = 0;
	if (unlikely((!p->lane && !p->lane_out) || tail >= c->rx_len)) {
		st = michi_err(MICHI_ERR_PEER, "tcp: rank %d sent rank %d a frame split over a lane "
			       "that is not there", c->peer, tcp.rank);
		tcp_peer_fail(c->peer, st);
		return;
	}
	c->rx_len = head;
	if (c->rx_ulen > head) {
		c->lbuf = (char *)c->rx.buf + head;
		c->lkeep = c->rx_ulen - head;
		c->rx_ulen = head;
	} else {
		c->lbuf = NULL;
		c->lkeep = 0;
	}
	c->lleft = tail;
	c->lane_rx = 1;
}

/* A header is complete at rbuf + rpos: ask MTMI where the payload goes. */
static inline void tcp_recv_hdr(struct tcp_conn *c)
{
	uint64_t len;

	memcpy(c->hdr, c->rbuf + c->rpos, MICHI_FRAME_HDR_SIZE);
	c->rpos += MICHI_FRAME_HDR_SIZE;
	len = c->hdr[0];
	if (unlikely(len >= TCP_SPLIT_LEN)) {
		if (len == TCP_GOODBYE_LEN)
			c->goodbye = 1;
		else
			c->split_next = c->hdr[1];
		return;
	}
	c->rx.buf = NULL;
	c->rx.cap = 0;
	c->rx.cookie = NULL;
	tcp.up.recv_hdr(c->peer, c->hdr, &c->rx);
	c->rx_len = len;
	c->rx_got = 0;
	c->rx_ulen = c->rx.buf ? (c->rx.cap < len ? c->rx.cap : len) : 0;
	c->rx_active = 1;
	if (unlikely(c->split_next)) {
		tcp_recv_split(c, c->split_next);
		return;
	}
	if (len == 0)
		tcp_recv_frame_done(c);
}

/* Hand every complete frame in rbuf[rpos, rlen) to MTMI. */
void tcp_recv_parse(struct tcp_conn *c)
{
	while (c->rpos < c->rlen && c->state == TCP_CONN_UP && !c->wait_lane) {
		size_t avail = c->rlen - c->rpos;
		uint64_t take;

		if (!c->rx_active) {
			if (avail < MICHI_FRAME_HDR_SIZE)
				break;
			tcp_recv_hdr(c);
			continue;
		}
		take = c->rx_len - c->rx_got;
		if (take > avail)
			take = avail;
		if (c->rx_got < c->rx_ulen) {
			uint64_t k = c->rx_ulen - c->rx_got;

			memcpy((char *)c->rx.buf + c->rx_got, c->rbuf + c->rpos,
			       k < take ? k : take);
		}
		c->rx_got += take;
		c->rpos += take;
		if (c->rx_got == c->rx_len)
			tcp_recv_frame_done(c);
	}
	if (c->rpos == c->rlen) {
		c->rpos = c->rlen = 0;
	} else if (c->rpos && c->rlen - c->rpos < MICHI_FRAME_HDR_SIZE) {
		/* a split header: move it to the front so the next read completes it */
		memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
		c->rlen -= c->rpos;
		c->rpos = 0;
	}
}

/*
 * One read into the user's buffer (with rbuf behind it) when a payload is
 * in progress and nothing is buffered, else one read into rbuf. Returns
 * bytes read, 0 at EOF, -1 with errno.
 */
static inline ssize_t tcp_recv_read(struct tcp_conn *c, size_t *want)
{
	ssize_t n;

	if (c->rx_active && c->rpos == c->rlen && c->rx_got < c->rx_ulen) {
		size_t ulen = (size_t)(c->rx_ulen - c->rx_got);
		struct iovec iov[2] = {
			{ (char *)c->rx.buf + c->rx_got, ulen },
			{ c->rbuf, tcp_rbuf_size },
		};

		c->rpos = c->rlen = 0;
		*want = ulen + tcp_rbuf_size;
		n = readv(c->fd, iov, 2);
		if (n <= 0)
			return n;
		if ((size_t)n <= ulen) {
			c->rx_got += (uint64_t)n;
		} else {
			c->rx_got += ulen;
			c->rlen = (size_t)n - ulen;
		}
		if (c->rx_got == c->rx_len)
			tcp_recv_frame_done(c);
		return n;
	}
	*want = tcp_rbuf_size - c->rlen;
	n = read(c->fd, c->rbuf + c->rlen, *want);
	if (n > 0)
		c->rlen += (size_t)n;
	return n;
}

/*
 * The lane's tail is read straight into MTMI's buffer; bytes past its
 * capacity are read into rbuf and dropped. A lane with no tail expected
 * is not read: its bytes belong to a split notice not parsed yet.
 * Returns 1 when bytes arrived.
 */
static int tcp_lane_recv(struct tcp_conn *l)
{
	struct tcp_peer *p = tcp_peer_of(l->peer);
	struct tcp_conn *c = p->conn;
	int got = 0;
	char b;

	if (!c || !c->lleft) {
		ssize_t n = recv(l->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

		/* EOF between tails: the peer is done with its lane */
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			tcp_lane_close(p);
		return 0;
	}
	while (c->lleft) {
		size_t want = c->lkeep ? c->lkeep :
			(c->lleft < tcp_rbuf_size ? c->lleft : tcp_rbuf_size);
		ssize_t n = read(l->fd, c->lkeep ? c->lbuf : l->rbuf, want);

		if (n <= 0) {
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				break;
			if (n < 0 && errno == EINTR)
				continue;
			tcp_peer_fail(l->peer, michi_err(MICHI_ERR_PEER,
				"rank %d lost its lane to rank %d at %s: %s", tcp.rank, l->peer,
				l->name, n == 0 ? "closed by the peer" : strerror(errno)));
			return 1;
		}
		got = 1;
		if (c->lkeep) {
			c->lbuf += n;
			c->lkeep -= (uint64_t)n;
		}
		c->lleft -= (uint64_t)n;
		if ((size_t)n < want)
			break;
	}
	if (c->lleft)
		return got;
	c->lane_rx = 0;
	if (c->wait_lane) {
		c->wait_lane = 0;
		tcp_recv_frame_done(c);
		tcp_recv_parse(c);
	}
	return 1;
}

static int tcp_recv_loop(struct tcp_conn *c);

/* A lane, or a main connection whose payload has a tail on the lane. */
static int __attribute__((noinline)) tcp_recv_event_lane(struct tcp_conn *c)
{
	struct tcp_conn *l;
	int n;

	if (c->lane)
		return tcp_lane_recv(c);
	l = tcp_peer_of(c->peer)->lane;
	n = l ? tcp_lane_recv(l) : 0;
	if (c->state != TCP_CONN_UP || c->wait_lane)
		return n;
	return tcp_recv_loop(c) | n;
}

/* The socket of an established connection is readable. */
int tcp_recv_event(struct tcp_conn *c)
{
	if (unlikely(c->lane | c->lane_rx))
		return tcp_recv_event_lane(c);
	return tcp_recv_loop(c);
}

static int tcp_recv_loop(struct tcp_conn *c)
{
	int i;

	/* a short read means the socket is drained: level-triggered epoll
	 * reports it again when more arrives, so small messages cost one
	 * read per readiness; a full read loops (bounded, to stay fair).
	 * Returns 1 when bytes arrived, 0 when the socket was empty. */
	for (i = 0; i < 64; i++) {
		size_t want;
		ssize_t n = tcp_recv_read(c, &want);

		if (unlikely(n <= 0)) {
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				return i > 0;
			if (n < 0 && errno == EINTR)
				continue;
			tcp_peer_lost(c, n == 0 ? 0 : errno);
			return 1;
		}
		tcp_recv_parse(c);
		if ((size_t)n < want || c->state != TCP_CONN_UP || c->wait_lane)
			return 1;
	}
	return 1;
}

/*
 * Direct polling: with few busy connections, reading each socket is
 * cheaper than asking epoll first (one system call per poll instead of
 * epoll_wait plus read when a message is there). A connection joins the
 * set the first time epoll reports data on it, and leaves when closed.
 */
void tcp_direct_add(struct tcp_conn *c)
{
	if (c->direct || tcp.ndirect >= tcp_direct_poll || tcp.ndirect >= TCP_DIRECT_MAX)
		return;
	c->direct = 1;
	tcp.direct[tcp.ndirect++] = c;
}

void tcp_direct_del(struct tcp_conn *c)
{
	int i;

	if (!c->direct)
		return;
	c->direct = 0;
	for (i = 0; i < tcp.ndirect; i++) {
		if (tcp.direct[i] == c) {
			tcp.direct[i] = tcp.direct[--tcp.ndirect];
			return;
		}
	}
}
