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
 * A striped frame (a TCP_SPLIT_LEN notice before it) has its first part
 * on the main connection and the rest in chunks on the rail connections
 * (tcp_stripe.c); the main connection parses nothing further until all
 * of it is in, so frames still reach MTMI one at a time, in order. A
 * TCP_REPORT_LEN frame is the peer's report on the rails, for the device.
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

/* The frame in progress was a report, or is striped with chunks still
 * to come. */
static void __attribute__((noinline)) tcp_recv_frame_special(struct tcp_conn *c)
{
	if (c->special & TCP_RX_REPORT) {
		c->special &= ~TCP_RX_REPORT;
		c->rx_active = 0;
		tcp_stripe_report_in(c);
		return;
	}
	if (c->special & TCP_RX_ACK) {
		c->special &= ~TCP_RX_ACK;
		c->rx_active = 0;
		tcp_stream_ack_in(c);
		return;
	}
	if (c->special & TCP_RX_PART) {
		c->special &= ~TCP_RX_PART;
		tcp_stripe_part_done(c);
	}
	if (!(c->special & TCP_RX_STRIPE)) {
		c->rx_active = 0;
		tcp.up.recv_done(c->peer, &c->rx);
		return;
	}
	/* the chunks complete the frame (tcp_stripe.c) */
	c->wait_stripe = 1;
}

static inline void tcp_recv_frame_done(struct tcp_conn *c)
{
	if (unlikely(c->special)) {
		tcp_recv_frame_special(c);
		return;
	}
	c->rx_active = 0;
	tcp.up.recv_done(c->peer, &c->rx);
}

/* A device frame of hdr[1] entries of `size` bytes (at most max) comes
 * into buf; `what` and `unit` name it and its entries in the error. */
static void tcp_recv_device_payload(struct tcp_conn *c, void *buf, uint64_t max, size_t size,
				    int flag, const char *what, const char *unit)
{
	uint64_t n = c->hdr[1];

	if (n > max) {
		tcp_peer_fail(c->peer, michi_err(MICHI_ERR_PEER, "tcp: rank %d sent rank %d %s "
						 "%llu %s", c->peer, tcp.rank, what,
						 (unsigned long long)n, unit));
		return;
	}
	c->rx.buf = buf;
	c->rx.cap = n * size;
	c->rx.cookie = NULL;
	c->rx_len = c->rx_ulen = c->rx.cap;
	c->rx_got = 0;
	c->rx_active = 1;
	c->special |= flag;
	if (!n)
		tcp_recv_frame_done(c);
}

/* A device frame's header (len one of the markers). */
static void __attribute__((noinline)) tcp_recv_marker(struct tcp_conn *c, uint64_t len)
{
	if (len == TCP_GOODBYE_LEN) {
		c->goodbye = 1;
	} else if (len == TCP_SPLIT_LEN) {
		c->split_next = c->hdr[1];
		c->split_seq = c->hdr[2];
	} else if (len == TCP_REPORT_LEN) {
		tcp_recv_device_payload(c, c->report, TCP_RAILS_MAX, sizeof(c->report[0]),
					TCP_RX_REPORT, "a report on", "rails");
	} else if (len == TCP_ACK_LEN) {
		tcp_recv_device_payload(c, c->acks, TCP_SLOTS_MAX + 1, sizeof(c->acks[0]),
					TCP_RX_ACK, "an ack on", "streams");
	} else {
		tcp_peer_fail(c->peer, michi_err(MICHI_ERR_PEER, "tcp: rank %d sent rank %d a "
			      "device frame of an unknown kind", c->peer, tcp.rank));
	}
}

/* A header is complete at rbuf + rpos: ask MTMI where the payload goes. */
static inline void tcp_recv_hdr(struct tcp_conn *c)
{
	uint64_t len;

	memcpy(c->hdr, c->rbuf + c->rpos, MICHI_FRAME_HDR_SIZE);
	c->rpos += MICHI_FRAME_HDR_SIZE;
	len = c->hdr[0];
	if (unlikely(len >= TCP_ACK_LEN)) {
		tcp_recv_marker(c, len);
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
		uint64_t tail = c->split_next;

		c->split_next = 0;
		if (!tcp_stripe_begin(c, c->split_seq, tail))
			return;
	}
	if (len == 0)
		tcp_recv_frame_done(c);
}

/* Hand every complete frame in rbuf[rpos, rlen) to MTMI. */
void tcp_recv_parse(struct tcp_conn *c)
{
	while (c->rpos < c->rlen && c->state == TCP_CONN_UP && !c->wait_stripe) {
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
		c->nread += (uint64_t)n;
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
	if (n > 0) {
		c->rlen += (size_t)n;
		c->nread += (uint64_t)n;
	}
	return n;
}

static int tcp_recv_loop(struct tcp_conn *c);

/* A rail connection, or a main connection whose frame has chunks to come. */
static int __attribute__((noinline)) tcp_recv_event_stripe(struct tcp_conn *c)
{
	int n;

	if (c->slot)
		return tcp_stripe_recv(c);
	n = tcp_stripe_recv_all(c);
	if (c->state != TCP_CONN_UP || c->wait_stripe)
		return n;
	return tcp_recv_loop(c) | n;
}

/* The socket of an established connection is readable. */
int tcp_recv_event(struct tcp_conn *c)
{
	if (unlikely(c->slot | c->special))
		return tcp_recv_event_stripe(c);
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
		if ((size_t)n < want || c->state != TCP_CONN_UP || c->wait_stripe)
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
