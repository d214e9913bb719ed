/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_resume.c: failover. A peer pair with more than one rail
 * keeps each of its connections (the main one and every rail connection)
 * as a resumable stream: a socket that dies, or stalls, is replaced by a
 * new one on another rail, and the byte stream goes on where the peer
 * stopped reading it, so no frame or chunk is lost, doubled or reordered
 * and MTMI sees nothing but a pause (issue 31).
 *
 * The sender keeps a copy of every byte it wrote to a resilient stream
 * (its ring) until the peer says it has read it. The receiver counts what
 * it has read (each connection's nread, less the handshake: one addition
 * a read; the kernel's count, TCP_INFO's bytes received less what is
 * queued, holds a FIN or not by the socket's state, which a reset after
 * the FIN hides, and once counted the peer's FIN as a byte of the
 * stream); it tells the sender in TCP_ACK_LEN frames
 * on the main stream, every tcp_rail_interval / 2 while bytes come in or
 * every 256 KiB. The ring holds what the kernels' buffers and one ack
 * interval hold, so it needs no limit of its own.
 *
 * A stream is lost on a socket error or EOF that is not the peer's
 * goodbye, or when it has bytes the peer's kernel has not acknowledged
 * and no acknowledgement came for tcp_rail_timeout seconds (a cut link
 * drops everything and errs nothing for minutes). So that an idle
 * stream's cut shows too, before a striped frame deals a part to its
 * rail, a stream that has written nothing for tcp_rail_heartbeat seconds
 * writes a heartbeat, bytes for the peer's kernel to acknowledge: a rail
 * connection an empty chunk header, the main connection an ack frame.
 * An idle rail's cut is found within tcp_rail_heartbeat +
 * tcp_rail_timeout (0.5 s) while the rank is in MPI. Then both ends may
 * connect anew: a hello with `resume` set names the stream (its slot) and
 * how much of it the connector has read; the reply says how much the
 * acceptor has read. Each end takes the new socket into the stream's
 * connection (its receive state, half a frame or chunk included, stays)
 * and writes its ring again from the point the other has read, then what
 * was queued. When both ends connect at once the lower rank's connection
 * wins, as for any connection. A new socket is tried on each rail in
 * turn, the lost one last, every tcp_rail_retry seconds at first and
 * backing off to a second; a refused connect means the peer's process is
 * gone, and a stream down for tcp_rail_deadline seconds fails the peer,
 * with an error naming it.
 *
 * A stream that runs on another rail than its own goes home once its
 * rail connects again: the lower rank tries every tcp_rail_retry seconds
 * and moves it the same way (the old socket is closed when the new one
 * is connected). While off its rail a connection shares the rail it is
 * on with that rail's own (tcp_stripe.c), so that what it holds when it
 * goes home goes out there at once.
 */
#include "config.h"
#include "tcp.h"
#include "tcp_rtt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/tcp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

int tcp_rail_failover = 1;
MICHI_TUNABLE(tcp_rail_failover, "tcp_rail_failover", MICHI_T_BOOL, "yes", MICHI_LEVEL_USER,
	      "move a peer pair's connections to another rail when theirs fails, losing "
	      "nothing (pairs with more than one rail, where both ranks have it on)");
static double tcp_rail_timeout = 0.3;
MICHI_TUNABLE(tcp_rail_timeout, "tcp_rail_timeout", MICHI_T_DOUBLE, "0.3", MICHI_LEVEL_TUNER,
	      "seconds a resilient connection may have bytes out with no acknowledgement "
	      "from the peer's kernel before it counts as lost");
static double tcp_rail_retry = 0.05;
MICHI_TUNABLE(tcp_rail_retry, "tcp_rail_retry", MICHI_T_DOUBLE, "0.05", MICHI_LEVEL_TUNER,
	      "seconds between tries to connect a lost stream again (doubling to 1 s while "
	      "no rail connects), and between tries to move a stream back to its own rail "
	      "(each try waits three of the pair's round trips, 50 ms at least, for its "
	      "connect)");
static double tcp_rail_heartbeat = 0.2;
MICHI_TUNABLE(tcp_rail_heartbeat, "tcp_rail_heartbeat", MICHI_T_DOUBLE, "0.2", MICHI_LEVEL_TUNER,
	      "seconds a resilient connection may send nothing before it sends a heartbeat, "
	      "so that a cut rail is found before a message needs it (0: none)");
static double tcp_rail_deadline = 30;
MICHI_TUNABLE(tcp_rail_deadline, "tcp_rail_deadline", MICHI_T_DOUBLE, "30", MICHI_LEVEL_USER,
	      "seconds a peer pair's connection may stay lost, every rail tried, before the "
	      "peer counts as failed");

#define ACK_BYTES 262144

/* ---- the ring --------------------------------------------------------- */

static int ring_grow(struct tcp_stream *sm, size_t need)
{
	size_t cap = sm->cap ? sm->cap : 65536, used = (size_t)(sm->tx - sm->acked), i;
	char *b;

	while (cap < used + need)
		cap *= 2;
	b = malloc(cap);
	if (!b)
		return -1;
	/* linear again: [acked, tx) from the front, in its two runs */
	if (used) {
		size_t at = (size_t)((sm->acked - sm->base) % sm->cap), run = sm->cap - at;

		i = run < used ? run : used;
		memcpy(b, sm->buf + at, i);
		memcpy(b + i, sm->buf, used - i);
	}
	free(sm->buf);
	sm->buf = b;
	sm->cap = cap;
	sm->base = sm->acked;
	return 0;
}

/* Offset of stream byte x in the ring. */
static size_t ring_at(const struct tcp_stream *sm, uint64_t x)
{
	return (size_t)((x - sm->base) % sm->cap);
}

static int ring_put(struct tcp_stream *sm, const struct iovec *iov, size_t n)
{
	size_t k = 0;

	if (sm->tx - sm->acked + n > sm->cap && ring_grow(sm, n) < 0)
		return -1;
	while (n) {
		size_t take = iov[k].iov_len < n ? iov[k].iov_len : n;
		const char *src = iov[k].iov_base;

		while (take) {
			size_t at = ring_at(sm, sm->tx), run = sm->cap - at;

			if (run > take)
				run = take;
			memcpy(sm->buf + at, src, run);
			src += run;
			take -= run;
			n -= run;
			sm->tx += run;
		}
		k++;
	}
	return 0;
}

/* sendmsg on c: on a resilient stream, what went out is copied to its
 * ring (nothing goes out while the ring still has bytes to write again). */
ssize_t tcp_stream_sendmsg(struct tcp_conn *c, struct msghdr *msg)
{
	struct tcp_stream *sm = c->sm;
	ssize_t n;

	if (sm && (c->fd < 0 || sm->replay < sm->tx)) {
		errno = EAGAIN;
		return -1;
	}
	n = sendmsg(c->fd, msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n > 0 && sm && ring_put(sm, msg->msg_iov, (size_t)n) < 0) {
		/* the bytes are out but not kept: a later failover could
		 * not send them again, so this stream can fail no more */
		michi_warn("tcp: rank %d: no memory to keep what it sent to rank %d: that "
			   "connection has no failover now", tcp.rank, c->peer);
		sm->tx += (uint64_t)n;
		sm->noring = 1;
	}
	if (n > 0 && sm)
		sm->replay = sm->tx;   /* nothing to write again */
	return n;
}

/* Write the ring again from sm->replay. Returns 1 when all is out, 0 when
 * the socket is full, -1 on an error (errno). */
int tcp_stream_replay(struct tcp_conn *c)
{
	struct tcp_stream *sm = c->sm;

	while (sm->replay < sm->tx) {
		size_t at = ring_at(sm, sm->replay), run = sm->cap - at;
		ssize_t n;

		if (run > sm->tx - sm->replay)
			run = (size_t)(sm->tx - sm->replay);
		n = send(c->fd, sm->buf + at, run, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		sm->replay += (uint64_t)n;
		if ((size_t)n < run)
			return 0;
	}
	return 1;
}

/* ---- the streams of a peer -------------------------------------------- */

static struct tcp_conn *stream_conn(struct tcp_peer *p, int k)
{
	return k ? tcp_stripe_conn(p, k) : p->conn;
}

/* The bytes of c's stream this rank has read: before this socket, and on
 * it. */
static uint64_t stream_read(struct tcp_conn *c)
{
	struct tcp_stream *sm = c->sm;

	if (c->fd < 0 || c->nread < sm->hs)
		return sm->rx_base;
	return sm->rx_base + (c->nread - sm->hs);
}

/* Make c a resilient stream on rail `rail` (its home), handshake bytes
 * hs read on its socket. */
void tcp_stream_make(struct tcp_conn *c, int rail, size_t hs)
{
	if (c->sm || !tcp_rail_failover)
		return;
	c->sm = calloc(1, sizeof(*c->sm));
	if (!c->sm)
		return;
	c->sm->hs = hs;
	c->sm->old_fd = -1;
	c->sm->rail = c->sm->home = rail;
	tcp.n_ticking++;
}

void tcp_stream_free(struct tcp_conn *c)
{
	struct tcp_stream *sm = c->sm;

	if (!sm)
		return;
	if (sm->out) {
		sm->out->abandoned = 1;
		tcp_conn_close(sm->out);
	}
	if (sm->old_fd >= 0)
		close(sm->old_fd);
	free(sm->buf);
	free(sm);
	c->sm = NULL;
	tcp.n_ticking--;
}

/* Take the socket away from c's stream, having counted what was read on
 * it: what is still in it comes again. keep: a move, whose old socket
 * stays open (unread) until the new one is taken, so that the peer sees
 * no EOF on it meanwhile. */
static void stream_drop_fd(struct tcp_conn *c, int keep)
{
	struct tcp_stream *sm = c->sm;

	if (c->fd < 0)
		return;
	sm->rx_base = stream_read(c);
	c->nread = 0;
	tcp_direct_del(c);
	epoll_ctl(tcp.epfd, EPOLL_CTL_DEL, c->fd, NULL);
	if (keep && sm->old_fd < 0)
		sm->old_fd = c->fd;
	else
		close(c->fd);
	c->fd = -1;
	c->events = 0;
	c->state = TCP_CONN_DOWN;
	if (!c->slot)
		tcp_fast_fd[c->peer] = -1;
	if (!sm->down) {
		sm->down = 1;
		sm->down_since = michi_wtime();
		sm->retry_at = 0;
		sm->backoff = tcp_rail_retry;
		sm->tries = 0;
	}
	sm->failovers++;
	tcp_stripe_changed(tcp_peer_of(c->peer));
}

/* c's socket failed (err, 0: stalled) or the peer closed it: keep the
 * stream, find it another socket. Returns 1 when the stream is kept, 0
 * when c is not resilient (the caller fails the peer as before). */
int tcp_stream_lost(struct tcp_conn *c, int err)
{
	struct tcp_peer *p;

	if (!c->sm || c->sm->noring || tcp.finalizing || c->goodbye)
		return 0;
	p = tcp_peer_of(c->peer);
	if (p->state != TCP_PEER_UP)
		return 0;
	if (c->fd >= 0)
		michi_info("tcp: rank %d lost %s %d to rank %d on rail %d (%s): %s", tcp.rank,
			   c->slot ? "rail connection" : "its main connection", c->slot, c->peer,
			   c->sm->rail, c->name, err ? strerror(err) : "closed by the peer");
	stream_drop_fd(c, 0);
	return 1;
}

/* The rail a socket's local address is on, for peer p (-1: none). */
static int rail_of_fd(struct tcp_peer *p, int fd)
{
	struct sockaddr_in me;
	socklen_t len = sizeof(me);

	if (getsockname(fd, (struct sockaddr *)&me, &len) != 0)
		return -1;
	return tcp_stripe_rail_of(p, me.sin_addr);
}

/* s takes the socket of handshake connection from; the peer has read
 * `peer_read` bytes of the stream; hs handshake bytes were read on it. */
static int stream_adopt(struct tcp_conn *s, struct tcp_conn *from, uint64_t peer_read, size_t hs)
{
	struct tcp_stream *sm = s->sm;
	struct tcp_peer *p = tcp_peer_of(s->peer);
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT, .data.ptr = s };
	double dt = michi_wtime() - sm->down_since;
	int fd;

	if (peer_read > sm->tx || peer_read < sm->acked) {
		tcp_peer_fail(s->peer, michi_err(MICHI_ERR_PEER, "tcp: rank %d resumed stream %d "
			      "from rank %d at byte %llu, outside what was sent (%llu..%llu)",
			      s->peer, s->slot, tcp.rank, (unsigned long long)peer_read,
			      (unsigned long long)sm->acked, (unsigned long long)sm->tx));
		return 0;
	}
	if (sm->old_fd >= 0) {
		close(sm->old_fd);
		sm->old_fd = -1;
	}
	fd = tcp_conn_take_fd(from);
	if (epoll_ctl(tcp.epfd, EPOLL_CTL_MOD, fd, &ev) != 0) {
		close(fd);
		return 0;
	}
	s->fd = fd;
	s->events = ev.events;
	s->state = TCP_CONN_UP;
	snprintf(s->name, sizeof(s->name), "%s", from->name);
	s->lidx_set = 0;
	s->info_rx = 0;
	sm->hs = hs;
	s->nread = from->nread;
	sm->acked = peer_read;
	sm->replay = peer_read;
	sm->rail = rail_of_fd(p, fd);
	sm->down = 0;
	sm->move_at = michi_wtime() + tcp_rail_retry;
	michi_info("tcp: rank %d resumed %s %d to rank %d on rail %d (%s) after %.3f s, "
		   "%llu bytes sent again", tcp.rank,
		   s->slot ? "rail connection" : "its main connection", s->slot, s->peer, sm->rail,
		   s->name, dt, (unsigned long long)(sm->tx - peer_read));
	tcp_stripe_changed(p);
	if (s->slot) {
		tcp_stripe_flush(p, s->slot);
	} else {
		tcp_send_flush(p);
		if (s->state == TCP_CONN_UP && s->rpos < s->rlen && !s->wait_stripe)
			tcp_recv_parse(s);
	}
	return 1;
}

/* How long a resume connection may take to connect: three of the pair's
 * round trips (the kernel's least on its sockets up), 50 ms at least,
 * tcp_rail_timeout at most. */
static double connect_wait(struct tcp_peer *p)
{
	double rtt = 0, w;
	int k;

	for (k = 0; k <= tcp_stripe_nslots(p); k++) {
		struct tcp_conn *c = stream_conn(p, k);
		double t = c && c->fd >= 0 && c->state == TCP_CONN_UP ? tcp_sock_min_rtt(c->fd) : 0;

		if (t > 0 && (rtt == 0 || t < rtt))
			rtt = t;
	}
	w = 3 * rtt;
	if (w < 0.05)
		w = 0.05;
	return w < tcp_rail_timeout ? w : tcp_rail_timeout;
}

/* A try of a lost stream failed: the next rail; after a round of them
 * all, wait (backing off to a second). */
static void stream_next(struct tcp_stream *sm, int nrails)
{
	sm->tries++;
	if (sm->tries % nrails == 0) {
		sm->retry_at = michi_wtime() + sm->backoff;
		sm->backoff = sm->backoff * 2 < 1.0 ? sm->backoff * 2 : 1.0;
	}
}

/* Connect stream k of p anew on rail r (moving: its socket still works). */
static void stream_try(struct tcp_peer *p, struct tcp_conn *s, int r)
{
	struct sockaddr_in to;
	struct in_addr from;
	int bound;

	if (tcp_stripe_rail_addr(p, r, &to, &from, &bound) == 0)
		s->sm->out = tcp_conn_open((int)(p - tcp.peers), &to, bound ? &from : NULL);
	if (!s->sm->out) {
		if (s->sm->down)
			stream_next(s->sm, tcp_stripe_nrails(p));
		else
			s->sm->move_at = michi_wtime() + tcp_rail_retry;
		return;
	}
	s->sm->out->slot = s->slot;
	s->sm->out->resume = 1;
	s->sm->attempt++;
	/* a cut rail swallows the SYN (the kernel sends it again only after
	 * a second): the next try soon */
	s->sm->out->deadline = michi_wtime() + connect_wait(p);
}

/* Our resume connection c is connected: send its hello (the caller's
 * hello filled but for the stream's count). */
void tcp_stream_hello(struct tcp_conn *c, struct tcp_hello *h)
{
	struct tcp_conn *s = stream_conn(tcp_peer_of(c->peer), c->slot);

	h->resume = UINT32_MAX;   /* abandoned: refused as stale or unknown */
	if (s && s->sm && s->sm->out == c) {
		h->resume = s->sm->attempt;
		s->sm->reach_at = michi_wtime();
		/* the peer's process answers from its next MPI call; a path
		 * that fails meanwhile shows in the hello's acknowledgement
		 * (the tick), so the wait itself may be long */
		c->deadline = s->sm->reach_at + tcp_rail_deadline;
		/* a move home: the old socket goes now, before the count */
		if (s->fd >= 0)
			stream_drop_fd(s, 1);
		h->read = s->sm->rx_base;
	}
}

/* A hello resuming stream k came in on c from p's rank. */
void tcp_stream_resume_in(struct tcp_conn *c, struct tcp_peer *p, const struct tcp_hello *h)
{
	int peer = (int)(p - tcp.peers);
	struct tcp_conn *s = p->state == TCP_PEER_UP ? stream_conn(p, (int)h->slot) : NULL;

	if (!s || !s->sm) {
		tcp_conn_reject(c, TCP_REPLY_NORAIL, "no such stream to resume");
		return;
	}
	/* a try the peer gave up on, accepted late (we were busy) */
	if (h->resume == UINT32_MAX || h->resume <= s->sm->peer_attempt) {
		tcp_conn_reject(c, TCP_REPLY_DUPLICATE, "a stale resume");
		return;
	}
	if (s->sm->out) {
		if (tcp_peer_above(peer)) {
			tcp_conn_reject(c, TCP_REPLY_DUPLICATE, "duplicate resume");
			return;
		}
		s->sm->out->abandoned = 1;
		tcp_conn_close(s->sm->out);
		s->sm->out = NULL;
	}
	if (s->fd >= 0) {
		michi_info("tcp: rank %d: rank %d resumes %s %d (on %s)", tcp.rank, peer,
			   s->slot ? "rail connection" : "the main connection", s->slot, s->name);
		stream_drop_fd(s, 0);
	}
	tcp_conn_reply_read(c, TCP_REPLY_OK, s->sm->rx_base);
	s->sm->peer_attempt = h->resume;
	stream_adopt(s, c, h->read, sizeof(*h));
}

/* The peer answered our resume connection c. */
void tcp_stream_resume_reply(struct tcp_conn *c, struct tcp_peer *p, const struct tcp_reply *r)
{
	struct tcp_conn *s = stream_conn(p, c->slot);

	if (!s || !s->sm || s->sm->out != c) {
		tcp_conn_close(c);
		return;
	}
	s->sm->out = NULL;
	if (r->status == TCP_REPLY_OK) {
		stream_adopt(s, c, r->read, sizeof(*r));
		return;
	}
	tcp_conn_close(c);
	if (r->status == TCP_REPLY_DUPLICATE) {
		/* the peer's own connection wins and is on its way */
		s->sm->retry_at = michi_wtime() + 1.0;
		return;
	}
	if (r->status == TCP_REPLY_GONE && s->slot && !tcp_stripe_owes(p)) {
		/* the peer is in finalize and closed its rail connections */
		tcp_stripe_drop_slot(p, s->slot);
		return;
	}
	tcp_peer_fail(c->peer, michi_err(MICHI_ERR_PEER, "rank %d cannot resume its connection "
		      "%d to rank %d: %s", tcp.rank, c->slot, c->peer,
		      r->status == TCP_REPLY_GONE ? "the peer is finalizing" : "refused"));
}

/* Our resume connection c failed (err). */
void tcp_stream_out_failed(struct tcp_conn *c, int err)
{
	struct tcp_peer *p = tcp_peer_of(c->peer);
	struct tcp_conn *s = stream_conn(p, c->slot);

	if (!s || !s->sm || s->sm->out != c)
		return;
	s->sm->out = NULL;
	if (err == ECONNREFUSED && s->sm->down) {
		/* a host that answers with nobody listening: the process is gone */
		tcp_peer_fail(c->peer, michi_err(MICHI_ERR_PEER, "rank %d lost its connection "
			      "to rank %d at %s, and reconnecting is refused: the process is gone",
			      tcp.rank, c->peer, c->name));
		return;
	}
	if (!s->sm->down) {
		/* a move home that did not connect: later */
		s->sm->move_at = michi_wtime() + tcp_rail_retry;
		return;
	}
	stream_next(s->sm, tcp_stripe_nrails(p));
}

/* ---- the clock -------------------------------------------------------- */

/* Has c's socket bytes out with no acknowledgement for tcp_rail_timeout? */
static int conn_stalled(struct tcp_conn *c)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
		return 0;
	return ti.tcpi_unacked > 0 && ti.tcpi_last_ack_recv >= (uint32_t)(tcp_rail_timeout * 1000);
}

/* Tell p how much of each of its streams this rank has read (beat: even
 * with nothing new, as the main connection's heartbeat). */
static void stream_ack(struct tcp_peer *p, double now, int beat)
{
	struct {
		uint64_t hdr[MICHI_FRAME_HDR_SIZE / 8];
		uint64_t read[TCP_SLOTS_MAX + 1];
	} *f;
	struct tcp_conn *m = p->conn;
	struct iovec iov[2];
	int k, n = tcp_stripe_nslots(p) + 1, news = 0, due;

	due = now - m->sm->ack_at >= tcp_rail_interval_get() / 2;
	for (k = 0; k < n; k++) {
		struct tcp_conn *s = stream_conn(p, k);

		if (s && s->sm && s->fd >= 0) {
			uint64_t r = stream_read(s);

			if (r - s->sm->told >= ACK_BYTES || (due && r != s->sm->told))
				news = 1;
		}
	}
	if (!news && !beat)
		return;
	f = calloc(1, sizeof(*f));
	if (!f)
		return;
	f->hdr[0] = TCP_ACK_LEN;
	f->hdr[1] = (uint64_t)n;
	for (k = 0; k < n; k++) {
		struct tcp_conn *s = stream_conn(p, k);

		if (s && s->sm) {
			s->sm->told = s->fd >= 0 ? stream_read(s) : s->sm->rx_base;
			f->read[k] = s->sm->told;
		}
	}
	m->sm->ack_at = now;
	iov[0].iov_base = f->hdr;
	iov[0].iov_len = MICHI_FRAME_HDR_SIZE;
	iov[1].iov_base = f->read;
	iov[1].iov_len = (size_t)n * sizeof(f->read[0]);
	if (tcp_send_queue(p, iov, 2, 0, NULL, 1) != MICHI_INPROGRESS) {
		free(f);
		return;
	}
	p->sq_tail->owned = f;
	tcp_send_flush(p);
}

/* An ack frame is in on the main connection c (c->acks, c->hdr[1] of them). */
void tcp_stream_ack_in(struct tcp_conn *c)
{
	struct tcp_peer *p = tcp_peer_of(c->peer);
	uint64_t k, n = c->hdr[1];

	for (k = 0; k < n; k++) {
		struct tcp_conn *s = stream_conn(p, (int)k);

		if (!s || !s->sm)
			continue;
		if (c->acks[k] > s->sm->tx) {
			tcp_peer_fail(c->peer, michi_err(MICHI_ERR_PEER, "tcp: rank %d acknowledged "
				      "%llu bytes of stream %llu from rank %d, which sent %llu",
				      c->peer, (unsigned long long)c->acks[k], (unsigned long long)k,
				      tcp.rank, (unsigned long long)s->sm->tx));
			return;
		}
		if (c->acks[k] > s->sm->acked)
			s->sm->acked = c->acks[k];
	}
}

/* Is stream sm due a heartbeat: nothing written to it for
 * tcp_rail_heartbeat seconds? (The heartbeat's own bytes start the
 * next wait.) */
static int stream_idle(struct tcp_stream *sm, double now)
{
	if (tcp_rail_heartbeat <= 0 || tcp.finalizing)
		return 0;
	if (sm->tx != sm->hb_tx) {
		sm->hb_tx = sm->tx;
		sm->hb_at = now + tcp_rail_heartbeat;
		return 0;
	}
	if (now < sm->hb_at)
		return 0;
	sm->hb_at = now + tcp_rail_heartbeat;
	return 1;
}

/* Every stream of p, once per tick. */
static void stream_tick_peer(struct tcp_peer *p, double now)
{
	int k, n = tcp_stripe_nslots(p) + 1, nr = tcp_stripe_nrails(p), beat = 0;

	for (k = 0; k < n && p->state == TCP_PEER_UP; k++) {
		struct tcp_conn *s = stream_conn(p, k);
		struct tcp_stream *sm = s ? s->sm : NULL;

		if (!sm)
			continue;
		if (sm->out && sm->out->state == TCP_CONN_WAIT_REPLY && conn_stalled(sm->out)) {
			/* connected, and then its hello went nowhere */
			struct tcp_conn *o = sm->out;

			tcp_stream_out_failed(o, ETIMEDOUT);
			tcp_conn_close(o);
		}
		if (sm->down) {
			/* gone only while no try even connects: a peer busy
			 * outside MPI answers late, but its kernel answers */
			if (now - sm->down_since > tcp_rail_deadline &&
			    now - sm->reach_at > tcp_rail_deadline) {
				tcp_peer_fail(s->peer, michi_err(MICHI_ERR_PEER, "rank %d lost every "
					      "rail to rank %d for %g s (tcp_rail_deadline)", tcp.rank,
					      s->peer, tcp_rail_deadline));
				return;
			}
			if (!sm->out && now >= sm->retry_at)
				/* the other rails first, the lost one last */
				stream_try(p, s, (sm->rail + 1 + sm->tries) % nr);
			continue;
		}
		if (s->fd < 0)
			continue;
		if (sm->tx != sm->acked && conn_stalled(s)) {
			tcp_stream_lost(s, ETIMEDOUT);
			continue;
		}
		/* an idle stream's heartbeat: bytes that its peer's kernel
		 * must acknowledge, so that a cut shows as a stall above
		 * (none to a peer that said goodbye: it is closing them) */
		if (!p->conn->goodbye && stream_idle(sm, now)) {
			if (k)
				tcp_stripe_heartbeat(p, k);
			else
				beat = 1;
		}
		/* home again once its rail connects (the lower rank moves) */
		if (sm->rail != sm->home && !sm->out && now >= sm->move_at &&
		    tcp_peer_above(s->peer)) {
			sm->move_at = now + tcp_rail_retry;
			stream_try(p, s, sm->home);
		}
	}
	if (p->state == TCP_PEER_UP && p->conn && p->conn->sm)
		stream_ack(p, now, beat);
}

/* From the device's timers: acks, stalls, retries, moves. */
void tcp_stream_tick(void)
{
	double now = michi_wtime();
	struct tcp_stripe *st;

	if (now < tcp.tick_at)
		return;
	tcp.tick_at = now + 0.02;
	for (st = tcp.striped; st; st = tcp_stripe_next(st)) {
		struct tcp_peer *p = &tcp.peers[tcp_stripe_peer(st)];

		if (p->state == TCP_PEER_UP && p->conn && p->conn->sm)
			stream_tick_peer(p, now);
	}
}

/* Failovers of p's streams on rail k, for MPI_T. */
uint64_t tcp_stream_failovers(struct tcp_peer *p, int rail)
{
	int k, n = tcp_stripe_nslots(p) + 1;
	uint64_t f = 0;

	for (k = 0; k < n; k++) {
		struct tcp_conn *s = stream_conn(p, k);

		if (s && s->sm && s->sm->home == rail)
			f += s->sm->failovers;
	}
	return f;
}
