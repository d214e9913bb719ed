/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_conn.c: connections of the tcp device: listening,
 * lazy connect with retries, the handshake, and losing a peer.
 *
 * Handshake: the connector sends struct tcp_hello (magic, version,
 * byte-order mark, job key, its rank) and sends no frame until the
 * acceptor's struct tcp_reply says OK; the acceptor may send frames right
 * behind its reply. Anything else on a fresh socket (wrong key, garbage,
 * silence past tcp_handshake_timeout) closes that socket with a warning
 * naming the remote address; the job goes on.
 *
 * Simultaneous connect (both ranks connect to each other at once): the
 * connection initiated by the lower rank wins. An acceptor that has its
 * own attempt to the same peer in flight accepts the incoming one if the
 * peer's rank is lower (and abandons its own, which the peer will reject
 * as a duplicate), else rejects it as a duplicate. Frames are queued per
 * peer, never per socket, and only written on the winning connection, so
 * none is lost or reordered whichever socket wins.
 */
#include "config.h"
#include "tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

double tcp_connect_timeout = 10.0;
MICHI_TUNABLE(tcp_connect_timeout, "tcp_connect_timeout", MICHI_T_DOUBLE, "10",
	      MICHI_LEVEL_USER, "seconds to keep retrying a refused or unreachable tcp peer");
double tcp_handshake_timeout = 5.0;
MICHI_TUNABLE(tcp_handshake_timeout, "tcp_handshake_timeout", MICHI_T_DOUBLE, "5",
	      MICHI_LEVEL_TUNER, "seconds a new tcp connection may take to complete its handshake");
static size_t tcp_sockbuf;
MICHI_TUNABLE(tcp_sockbuf, "tcp_sockbuf", MICHI_T_SIZE, "0", MICHI_LEVEL_TUNER,
	      "SO_SNDBUF/SO_RCVBUF of tcp sockets (bytes); 0 keeps Linux autotuning, "
	      "which grows up to net.ipv4.tcp_wmem/tcp_rmem");

int tcp_mptcp;
MICHI_TUNABLE(tcp_mptcp, "tcp_mptcp", MICHI_T_BOOL, "no", MICHI_LEVEL_USER,
	      "make the tcp device's sockets Linux MPTCP sockets (IPPROTO_MPTCP), whose "
	      "subflows the kernel's path manager opens over the networks its endpoints "
	      "name (ip mptcp endpoint); the device's own rails are then off");

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

/* A nonblocking stream socket: MPTCP with tcp_mptcp, falling back to TCP
 * (once said) where the kernel has none. */
static int tcp_socket(void)
{
	static int warned;
	int fd;

	if (tcp_mptcp) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_MPTCP);
		if (fd >= 0)
			return fd;
		if (!warned++)
			michi_warn("tcp: MICHI_TCP_MPTCP: no MPTCP socket on %s (%m); plain TCP "
				   "instead", michi_hostname());
	}
	return socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

/* ---- strangers -------------------------------------------------------- */

/*
 * Anyone can connect to a rank's port, as often as they like: the drop of
 * each such connection is logged, but at most 5 a second, then one line
 * with the count of those left out, so that a flood does not flood the
 * job's stderr.
 */
static struct {
	double since;
	unsigned n, quiet;
} tcp_stranger_rl;

static void tcp_stranger_warn(const char *from, const char *what)
{
	double now = michi_wtime();

	if (now - tcp_stranger_rl.since >= 1.0) {
		tcp_stranger_rl.since = now;
		tcp_stranger_rl.n = 0;
	}
	if (tcp_stranger_rl.n >= 5) {
		tcp_stranger_rl.quiet++;
		return;
	}
	tcp_stranger_rl.n++;
	if (tcp_stranger_rl.quiet)
		michi_warn("tcp: rank %d: connection from %s dropped: %s (%u more dropped, not logged)",
			   tcp.rank, from, what, tcp_stranger_rl.quiet);
	else
		michi_warn("tcp: rank %d: connection from %s dropped: %s", tcp.rank, from, what);
	tcp_stranger_rl.quiet = 0;
}

/* ---- sockets and the connection list ---------------------------------- */

static void tcp_conn_timed_add(struct tcp_conn *c, double timeout)
{
	c->deadline = michi_wtime() + timeout;
	c->timed_next = tcp.timed.timed_next;
	c->timed_prev = &tcp.timed;
	tcp.timed.timed_next->timed_prev = c;
	tcp.timed.timed_next = c;
}

void tcp_conn_timed_del(struct tcp_conn *c)
{
	if (!c->timed_next)
		return;
	c->timed_prev->timed_next = c->timed_next;
	c->timed_next->timed_prev = c->timed_prev;
	c->timed_next = c->timed_prev = NULL;
}

void tcp_conn_set_events(struct tcp_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	if (c->events == events || c->state == TCP_CONN_CLOSED || c->fd < 0)
		return;
	if (epoll_ctl(tcp.epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->events = events;
	else
		michi_warn("tcp: epoll_ctl on connection to %s: %m", c->name);
}

static void tcp_sock_opts(int fd)
{
	int one = 1, sz = (int)tcp_sockbuf;

	/* small frames must not wait for Nagle; keepalive finds dead hosts */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	if (sz > 0) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
}

static struct tcp_conn *tcp_conn_new(int fd, int state, int peer, const struct sockaddr_in *sa)
{
	struct tcp_conn *c = calloc(1, sizeof(*c));
	struct epoll_event ev;
	char ip[INET_ADDRSTRLEN] = "?";

	if (!c)
		goto err;
	c->rbuf = malloc(tcp_rbuf_size);
	if (!c->rbuf)
		goto err_free_conn;
	c->fd = fd;
	c->state = state;
	c->peer = peer;
	c->outgoing = state == TCP_CONN_CONNECTING;
	inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof(ip));
	snprintf(c->name, sizeof(c->name), "%s:%u", ip, ntohs(sa->sin_port));
	c->events = EPOLLIN | (c->outgoing ? EPOLLOUT : 0);
	ev.events = c->events;
	ev.data.ptr = c;
	if (epoll_ctl(tcp.epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		goto err_free_rbuf;
	tcp_conn_timed_add(c, tcp_handshake_timeout);
	return c;

err_free_rbuf:
	free(c->rbuf);
err_free_conn:
	free(c);
err:
	michi_warn("tcp: cannot set up a connection: %m");
	return NULL;
}

/* Close now; free at the end of progress (an event for c may be pending). */
void tcp_conn_close(struct tcp_conn *c)
{
	if (c->state == TCP_CONN_CLOSED)
		return;
	tcp_stream_free(c);
	tcp_direct_del(c);
	tcp_conn_timed_del(c);
	epoll_ctl(tcp.epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->state = TCP_CONN_CLOSED;
	c->dead_next = tcp.dead;
	tcp.dead = c;
}

/* The socket of handshake connection c, for a stream that takes it over
 * (its epoll entry stays: the caller points it at the stream); c goes. */
int tcp_conn_take_fd(struct tcp_conn *c)
{
	int fd = c->fd;

	tcp_direct_del(c);
	tcp_conn_timed_del(c);
	c->fd = -1;
	c->state = TCP_CONN_CLOSED;
	c->dead_next = tcp.dead;
	tcp.dead = c;
	return fd;
}

void tcp_conn_reap(void)
{
	while (tcp.dead) {
		struct tcp_conn *c = tcp.dead;

		tcp.dead = c->dead_next;
		free(c->rbuf);
		free(c);
	}
}

michi_status_t tcp_conn_listen(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t salen = sizeof(sa);
	struct epoll_event ev;
	int fd, one = 1;

	tcp.timed.timed_next = tcp.timed.timed_prev = &tcp.timed;
	tcp_iface_bind_addr(tcp.all_local, &sa.sin_addr);
	fd = tcp_socket();
	if (fd < 0)
		return michi_err(MICHI_ERR_IO, "tcp: socket: %m");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* accepted sockets inherit these, and the window scale the handshake
	 * agrees on follows the listener's receive buffer: a buffer set only
	 * after accept can leave a window too small to move data */
	tcp_sock_opts(fd);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 1024) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &salen) != 0) {
		michi_err(MICHI_ERR_IO, "tcp: cannot listen on an ephemeral port: %m");
		goto err_close;
	}
	tcp.port = ntohs(sa.sin_port);
	tcp.listener.fd = fd;
	tcp.listener.state = TCP_CONN_LISTEN;
	tcp.listener.peer = -1;
	snprintf(tcp.listener.name, sizeof(tcp.listener.name), "listener:%u", tcp.port);
	ev.events = EPOLLIN;
	ev.data.ptr = &tcp.listener;
	if (epoll_ctl(tcp.epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		michi_err(MICHI_ERR_IO, "tcp: epoll_ctl: %m");
		goto err_close;
	}
	return MICHI_OK;

err_close:
	close(fd);
	return MICHI_ERR_IO;
}

static void tcp_conn_accept(void)
{
	for (;;) {
		struct sockaddr_in sa;
		socklen_t salen = sizeof(sa);
		int fd = accept4(tcp.listener.fd, (struct sockaddr *)&sa, &salen,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				michi_warn("tcp: accept: %m");
			return;
		}
		tcp_sock_opts(fd);
		if (!tcp_conn_new(fd, TCP_CONN_WAIT_HELLO, -1, &sa))
			close(fd);
	}
}

/* ---- connecting ------------------------------------------------------- */

static void tcp_peer_retry_later(struct tcp_peer *p, double delay);

/* Fill p->addrs (and their prefixes) from the peer's business card. */
michi_status_t tcp_peer_card(int peer)
{
	struct tcp_peer *p = tcp_peer_of(peer);
	struct michi_job *job = tcp.job;
	char key[32], card[1024], orig[1024], *s, *save = NULL;
	int same_host;
	michi_status_t st;

	if (p->dyn) {
		/* another job's process: the card came with MPI_Comm_connect's
		 * exchange (tcp_dyn.c), not from our key-value space */
		snprintf(card, sizeof(card), "%s", p->dyn_card);
		same_host = strcmp(p->dyn_host, job->hostname) == 0;
	} else {
		snprintf(key, sizeof(key), "tcp-%d", peer);
		st = job->kvs_get(peer, key, card, sizeof(card));
		if (st < 0)
			return michi_err(st, "rank %d cannot reach rank %d: no tcp business card (%s)",
					 tcp.rank, peer, key);
		same_host = job->host_of ? job->host_of[peer] == job->host_of[tcp.rank] :
			    tcp.all_local;
	}
	snprintf(orig, sizeof(orig), "%s", card);
	p->naddr = 0;
	p->no_failover = 0;
	for (s = strtok_r(card, ",", &save); s && p->naddr < TCP_MAX_ADDRS;
	     s = strtok_r(NULL, ",", &save)) {
		struct sockaddr_in *sa = &p->addrs[p->naddr];

		if (!strcmp(s, TCP_CARD_NOFAILOVER)) {
			p->no_failover = 1;
			continue;
		}
		if (!tcp_iface_parse(s, sa, &p->aprefix[p->naddr]))
			continue;
		/* loopback on another host is some other machine's loopback */
		if (!same_host && tcp_iface_is_loopback(sa->sin_addr))
			continue;
		p->naddr++;
	}
	/* same host: loopback reaches the peer's wildcard listener fastest */
	if (same_host && !tcp_iface_forced() && p->naddr && p->naddr < TCP_MAX_ADDRS &&
	    !tcp_iface_is_loopback(p->addrs[0].sin_addr)) {
		memmove(&p->addrs[1], &p->addrs[0], sizeof(p->addrs[0]) * (size_t)p->naddr);
		memmove(&p->aprefix[1], &p->aprefix[0], sizeof(p->aprefix[0]) * (size_t)p->naddr);
		p->addrs[0].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		p->aprefix[0] = 8;
		p->naddr++;
	}
	if (!p->naddr)
		return michi_err(MICHI_ERR_PEER,
				 "rank %d cannot reach rank %d: its tcp card '%s' has no address usable from %s",
				 tcp.rank, peer, orig, michi_hostname());
	return MICHI_OK;
}

/* Start a nonblocking connect to the next address of the card. */
static void tcp_peer_attempt(int peer)
{
	struct tcp_peer *p = tcp_peer_of(peer);

	while (p->addr_idx < p->naddr) {
		struct sockaddr_in *sa = &p->addrs[p->addr_idx];
		char ip[INET_ADDRSTRLEN];
		int fd;

		inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof(ip));
		snprintf(p->last_addr, sizeof(p->last_addr), "%s:%u", ip, ntohs(sa->sin_port));
		fd = tcp_socket();
		if (fd < 0) {
			p->last_errno = errno;
			break;
		}
		tcp_sock_opts(fd);
		if (connect(fd, (struct sockaddr *)sa, sizeof(*sa)) == 0 || errno == EINPROGRESS) {
			p->out = tcp_conn_new(fd, TCP_CONN_CONNECTING, peer, sa);
			if (p->out) {
				double end = p->connect_start + tcp_connect_timeout;

				/* the last attempt ends with the connect timeout */
				if (p->out->deadline > end)
					p->out->deadline = end;
				return;
			}
			p->last_errno = ENOMEM;
		} else {
			p->last_errno = errno;
		}
		close(fd);
		p->addr_idx++;
	}
	tcp_peer_retry_later(p, 0);
}

/* Every address failed this round: back off, or give up after the timeout. */
static void tcp_peer_retry_later(struct tcp_peer *p, double delay)
{
	int peer = (int)(p - tcp.peers);
	double now = michi_wtime();

	if (now - p->connect_start >= tcp_connect_timeout ||
	    tcp.finalizing == TCP_FIN_CLOSE) {
		michi_status_t st = michi_err(MICHI_ERR_PEER,
			"rank %d cannot reach rank %d at %s: %s (after %g s)", tcp.rank, peer,
			p->last_addr, strerror(p->last_errno ? p->last_errno : ETIMEDOUT),
			now - p->connect_start);

		tcp_peer_fail(peer, st);
		return;
	}
	if (delay <= 0) {
		delay = p->backoff;
		p->backoff = p->backoff * 2 < 1.0 ? p->backoff * 2 : 1.0;
	}
	p->retry_at = now + delay;
	p->addr_idx = 0;
	if (!p->retrying) {
		p->retrying = 1;
		tcp.n_retrying++;
		tcp.n_ticking++;
	}
}

static void tcp_peer_retry_clear(struct tcp_peer *p)
{
	if (p->retrying) {
		p->retrying = 0;
		tcp.n_retrying--;
		tcp.n_ticking--;
	}
}

/* First send to peer: connect lazily. */
michi_status_t tcp_peer_connect(int peer)
{
	struct tcp_peer *p = tcp_peer_of(peer);
	michi_status_t st;

	if (peer < 0 || peer >= tcp.size || peer == tcp.rank)
		return michi_err(MICHI_ERR_INVAL, "tcp: rank %d asked to connect to rank %d (world has %d)",
				 tcp.rank, peer, tcp.size);
	st = tcp_peer_card(peer);
	if (st < 0) {
		tcp_peer_fail(peer, st);
		return st;
	}
	p->state = TCP_PEER_CONNECTING;
	p->connect_start = michi_wtime();
	p->backoff = 0.01;
	p->addr_idx = 0;
	tcp_peer_attempt(peer);
	return p->state == TCP_PEER_FAILED ? p->fail_st : MICHI_OK;
}

/* Our connect attempt c failed with err: try the next address. */
static void tcp_conn_out_failed(struct tcp_conn *c, int err)
{
	int peer = c->peer;
	struct tcp_peer *p = tcp_peer_of(peer);
	int abandoned = c->abandoned;

	michi_debug("tcp: connect to rank %d at %s failed: %s", peer, c->name, strerror(err));
	tcp_conn_close(c);
	if (abandoned)
		return;
	if (c->resume) {
		tcp_stream_out_failed(c, err);
		return;
	}
	if (c->slot) {
		/* rail connections are an optimization: carry on without */
		tcp_stripe_out_failed(c);
		return;
	}
	p->out = NULL;
	if (p->state != TCP_PEER_CONNECTING)
		return;
	p->last_errno = err;
	snprintf(p->last_addr, sizeof(p->last_addr), "%s", c->name);
	p->addr_idx++;
	tcp_peer_attempt(peer);
}

static void tcp_conn_connected(struct tcp_conn *c)
{
	struct tcp_hello h = { .magic = TCP_HELLO_MAGIC, .version = TCP_VERSION,
			       .bom = TCP_BOM, .rank = tcp.rank };
	socklen_t len = sizeof(int);
	int err = 0;

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		err = errno;
	if (err) {
		tcp_conn_out_failed(c, err);
		return;
	}
	memcpy(h.key, tcp.job->key, sizeof(h.key));
	h.slot = (uint32_t)c->slot;
	if (c->resume)
		tcp_stream_hello(c, &h);
	/* a fresh socket's send buffer takes the hello's 48 bytes whole */
	if (send(c->fd, &h, sizeof(h), MSG_NOSIGNAL) != (ssize_t)sizeof(h)) {
		tcp_conn_out_failed(c, errno ? errno : EIO);
		return;
	}
	c->state = TCP_CONN_WAIT_REPLY;
	tcp_conn_set_events(c, EPOLLIN);
	/* The peer's kernel accepted us; its process answers from its next
	 * MPI call, which may be any time later (a rank computing before its
	 * first receive). Only TCP-level failures end the wait from here;
	 * but a resume may not wait long on a rail that may be cut again. */
	if (!c->resume)   /* a resume's wait is bounded (tcp_stream_hello) */
		tcp_conn_timed_del(c);
}

/* ---- handshake -------------------------------------------------------- */

/* A nonblocking connect to `to` (from `from` when not NULL) for peer:
 * the connection, or NULL (the reason logged). */
struct tcp_conn *tcp_conn_open(int peer, const struct sockaddr_in *to, const struct in_addr *from)
{
	struct tcp_conn *c;
	int fd = tcp_socket();

	if (fd < 0)
		return NULL;
	tcp_sock_opts(fd);
	if (from) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = *from };

		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
			michi_debug("tcp: rank %d cannot bind a connection to rank %d to its "
				    "address: %m", tcp.rank, peer);
			close(fd);
			return NULL;
		}
	}
	if (connect(fd, (const struct sockaddr *)to, sizeof(*to)) != 0 && errno != EINPROGRESS) {
		michi_debug("tcp: rank %d cannot connect to rank %d: %m", tcp.rank, peer);
		close(fd);
		return NULL;
	}
	c = tcp_conn_new(fd, TCP_CONN_CONNECTING, peer, to);
	if (!c)
		close(fd);
	return c;
}

/* c carries frames for its peer from now on. */
static void tcp_conn_up(struct tcp_conn *c)
{
	struct tcp_peer *p = tcp_peer_of(c->peer);

	tcp_conn_timed_del(c);
	c->state = TCP_CONN_UP;
	if (p->out == c)
		p->out = NULL;
	p->conn = c;
	p->state = TCP_PEER_UP;
	tcp_peer_retry_clear(p);
	michi_debug("tcp: rank %d connected to rank %d via %s (%s)", tcp.rank, c->peer,
		    c->name, c->outgoing ? "outgoing" : "incoming");
	/* a pair with several rails: the main connection is resilient */
	tcp_stripe_resilient(p, c->outgoing ? sizeof(struct tcp_reply) : sizeof(struct tcp_hello));
	tcp_send_flush(p);
	if (c->state == TCP_CONN_UP && c->rpos < c->rlen)
		tcp_recv_parse(c);
}

void tcp_conn_reply(struct tcp_conn *c, int status)
{
	tcp_conn_reply_read(c, status, 0);
}

void tcp_conn_reply_read(struct tcp_conn *c, int status, uint64_t read)
{
	struct tcp_reply r = { .magic = TCP_HELLO_MAGIC, .version = TCP_VERSION,
			       .status = status, .rank = tcp.rank, .read = read };

	if (send(c->fd, &r, sizeof(r), MSG_NOSIGNAL) != (ssize_t)sizeof(r))
		michi_debug("tcp: reply to %s: %m", c->name);
}

void tcp_conn_reject(struct tcp_conn *c, int status, const char *why)
{
	if (status == TCP_REPLY_BADKEY || status == TCP_REPLY_BADRANK)
		tcp_stranger_warn(c->name, why);
	else if (status == TCP_REPLY_GONE || status == TCP_REPLY_NORAIL)
		michi_debug("tcp: rejecting rank %d from %s: %s", c->peer, c->name, why);
	else
		michi_debug("tcp: simultaneous connect with rank %d: keeping the connection "
			    "rank %d initiated, closing %s", c->peer,
			    c->peer < tcp.rank ? c->peer : tcp.rank, c->name);
	tcp_conn_reply(c, status);
	tcp_conn_close(c);
}

/* A valid hello h (tcp_hello_check) came in on c. */
static void tcp_conn_hello_in(struct tcp_conn *c, const struct tcp_hello *h)
{
	struct tcp_peer *p;

	c->rpos = sizeof(*h);
	p = tcp_peer_of(h->rank);
	c->peer = h->rank;
	if (p->state == TCP_PEER_FAILED || p->state == TCP_PEER_DONE ||
	    tcp.finalizing == TCP_FIN_CLOSE) {
		tcp_conn_reject(c, TCP_REPLY_GONE, "rank is failed or finalized");
		return;
	}
	if (h->resume) {
		tcp_stream_resume_in(c, p, h);
		return;
	}
	if (h->slot) {
		tcp_stripe_in(c, p, (int)h->slot);
		return;
	}
	if (p->conn) {
		tcp_conn_reject(c, TCP_REPLY_DUPLICATE, "duplicate");
		return;
	}
	if (p->out) {
		/* simultaneous connect: the lower rank's connection wins (for
		 * another job's process: the lower job key's, tcp_dyn.c) */
		if (tcp_peer_above(h->rank)) {
			tcp_conn_reject(c, TCP_REPLY_DUPLICATE, "duplicate");
			return;
		}
		michi_debug("tcp: simultaneous connect with rank %d: its connection wins", h->rank);
		p->out->abandoned = 1;
		p->out = NULL;
	}
	tcp_conn_reply(c, TCP_REPLY_OK);
	tcp_conn_up(c);
}

static void tcp_conn_reply_in(struct tcp_conn *c)
{
	struct tcp_peer *p = tcp_peer_of(c->peer);
	struct tcp_reply r;
	michi_status_t st;

	memcpy(&r, c->rbuf, sizeof(r));
	c->rpos = sizeof(r);
	if (memcmp(r.magic, TCP_HELLO_MAGIC, sizeof(r.magic)) != 0 ||
	    r.rank != tcp_peer_wire_rank(c->peer)) {
		michi_warn("tcp: %s is not rank %d of this job (bad handshake reply)", c->name, c->peer);
		tcp_conn_out_failed(c, EPROTO);
		return;
	}
	if (c->abandoned) {
		tcp_conn_close(c);
		return;
	}
	if (c->resume) {
		tcp_stream_resume_reply(c, p, &r);
		return;
	}
	if (c->slot) {
		tcp_stripe_reply(c, p, r.status);
		return;
	}
	switch (r.status) {
	case TCP_REPLY_OK:
		tcp_conn_up(c);
		return;
	case TCP_REPLY_DUPLICATE:
		/* the peer's own connection wins and is on its way; retry only
		 * if it does not show up */
		tcp_conn_close(c);
		p->out = NULL;
		tcp_peer_retry_later(p, tcp_handshake_timeout);
		return;
	}
	st = michi_err(MICHI_ERR_PEER, "rank %d cannot connect to rank %d at %s: %s", tcp.rank,
		       c->peer, c->name,
		       r.status == TCP_REPLY_BADKEY ? "rejected: job key or version differs" :
		       r.status == TCP_REPLY_GONE ? "rejected: the peer is finalizing" :
		       "rejected");
	tcp_conn_close(c);
	p->out = NULL;
	tcp_peer_fail(c->peer, st);
}

/* Handshake bytes arrive on a fresh socket. */
static void tcp_conn_hs_read(struct tcp_conn *c)
{
	size_t need = c->outgoing ? sizeof(struct tcp_reply) : sizeof(struct tcp_hello);
	struct tcp_hello h;
	char why[96];
	/* a rail connection's chunks may follow its reply at once: leave
	 * them in the socket */
	ssize_t n = read(c->fd, c->rbuf + c->rlen,
			 c->slot || c->resume ? need - c->rlen : tcp_rbuf_size - c->rlen);

	if (n <= 0) {
		int err = n == 0 ? ECONNRESET : errno;

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		if (c->outgoing) {
			tcp_conn_out_failed(c, err);
			return;
		}
		snprintf(why, sizeof(why), "closed before its handshake (%zu bytes sent)", c->rlen);
		tcp_stranger_warn(c->name, why);
		tcp_conn_close(c);
		return;
	}
	c->rlen += (size_t)n;
	c->nread += (uint64_t)n;
	if (!c->outgoing) {
		int v, dyn = -1;

		/* another job's key: admitted when MPI_Comm_connect/accept (or
		 * spawn, join) made its sender our peer (tcp_dyn.c); its rank
		 * is then its own job's, which we map to our index for it */
		if (c->rlen >= sizeof(h)) {
			memcpy(&h, c->rbuf, sizeof(h));
			if (memcmp(h.key, tcp.job->key, sizeof(h.key)) != 0)
				dyn = tcp_dyn_find(h.key, h.rank);
		}
		if (dyn >= 0) {
			v = tcp_hello_check(c->rbuf, c->rlen, h.key, -1, h.rank + 1, &h, why,
					    sizeof(why));
			h.rank = dyn;
		} else {
			v = tcp_hello_check(c->rbuf, c->rlen, tcp.job->key, tcp.rank, tcp.size, &h,
					    why, sizeof(why));
		}

		if (v == TCP_REPLY_OK)
			tcp_conn_hello_in(c, &h);
		else if (v >= 0)
			tcp_conn_reject(c, v, why);
		return;
	}
	if (memcmp(c->rbuf, TCP_HELLO_MAGIC, c->rlen < 6 ? c->rlen : 6) != 0) {
		michi_warn("tcp: %s answered with something that is not a michi handshake", c->name);
		tcp_conn_out_failed(c, EPROTO);
		return;
	}
	if (c->rlen >= need)
		tcp_conn_reply_in(c);
}

/* ---- events, timers, failure ------------------------------------------ */

void tcp_conn_event(struct tcp_conn *c, uint32_t events)
{
	switch (c->state) {
	case TCP_CONN_UP:
		if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
			tcp_recv_event(c);
			/* rail connections are read along with their main one */
			if (c->state == TCP_CONN_UP && !c->slot)
				tcp_direct_add(c);
		}
		if ((events & EPOLLOUT) && c->state == TCP_CONN_UP) {
			if (c->slot)
				tcp_stripe_flush(tcp_peer_of(c->peer), c->slot);
			else
				tcp_send_flush(tcp_peer_of(c->peer));
		}
		return;
	case TCP_CONN_LISTEN:
		tcp_conn_accept();
		return;
	case TCP_CONN_CONNECTING:
		tcp_conn_connected(c);
		return;
	case TCP_CONN_WAIT_REPLY:
	case TCP_CONN_WAIT_HELLO:
		tcp_conn_hs_read(c);
		return;
	}
}

/* Deadlines of handshakes and connect retries; only runs while some exist. */
void tcp_conn_timers(void)
{
	double now = michi_wtime();
	struct tcp_conn *c, *next;
	int i;

	/* handling one may close others (upcalls send, a send may fail a
	 * peer): start over after each, expired ones have left the list */
	for (c = tcp.timed.timed_next; c != &tcp.timed; c = next) {
		next = c->timed_next;
		if (now < c->deadline)
			continue;
		next = tcp.timed.timed_next;
		if (c->outgoing) {
			tcp_conn_out_failed(c, ETIMEDOUT);
		} else {
			char why[64];

			snprintf(why, sizeof(why), "no handshake within %g s", tcp_handshake_timeout);
			tcp_stranger_warn(c->name, why);
			tcp_conn_close(c);
		}
	}
	for (i = 0; tcp.n_retrying && i < tcp.size; i++) {
		struct tcp_peer *p = &tcp.peers[i];

		if (!p->retrying || now < p->retry_at)
			continue;
		tcp_peer_retry_clear(p);
		if (p->state == TCP_PEER_CONNECTING && !p->conn && !p->out)
			tcp_peer_attempt(i);
	}
	if (tcp.n_ticking > tcp.n_retrying)
		tcp_stream_tick();
}

/* peer is gone: fail its queue now, tell MTMI from progress. */
void tcp_peer_fail(int peer, michi_status_t st)
{
	struct tcp_peer *p = tcp_peer_of(peer);

	if (p->state == TCP_PEER_FAILED)
		return;
	michi_debug("tcp: rank %d gives up on rank %d: %s", tcp.rank, peer, michi_err_msg());
	p->state = TCP_PEER_FAILED;
	p->fail_st = st;
	tcp_fast_fd[p - tcp.peers] = -1;
	tcp_peer_retry_clear(p);
	if (p->conn)
		tcp_conn_close(p->conn);
	if (p->out)
		tcp_conn_close(p->out);
	p->conn = p->out = NULL;
	p->notify_failed = 1;
	tcp.n_notify++;
	tcp_stripe_close(p);
	tcp_send_fail_queue(p, st);
}

void tcp_peer_notify(void)
{
	int i;

	for (i = 0; tcp.n_notify && i < tcp.size; i++) {
		struct tcp_peer *p = &tcp.peers[i];

		if (!p->notify_failed)
			continue;
		p->notify_failed = 0;
		tcp.n_notify--;
		if (!tcp.finalizing)
			tcp.up.peer_failed(i, p->fail_st);
	}
}

/* EOF or an error on a connection that carried frames. */
void tcp_peer_lost(struct tcp_conn *c, int err)
{
	int peer = c->peer;
	struct tcp_peer *p = tcp_peer_of(peer);
	michi_status_t st;

	/* a pair with rails: the stream goes on over another socket */
	if (tcp_stream_lost(c, err))
		return;
	if (c->goodbye || tcp.finalizing) {
		/* orderly: the peer said goodbye, or we are leaving. A reset
		 * after a goodbye only means it closed with our frames unread */
		c->eof = 1;
		tcp_conn_close(c);
		if (p->conn == c)
			tcp_stripe_close(p);
		if (p->conn == c) {
			p->conn = NULL;
			tcp_fast_fd[p - tcp.peers] = -1;
			if (p->state == TCP_PEER_UP)
				p->state = TCP_PEER_DONE;
		}
		if (p->sq_head) {
			st = michi_err(MICHI_ERR_PEER, "rank %d finalized with frames from rank %d still queued",
				       peer, tcp.rank);
			tcp_send_fail_queue(p, st);
		}
		return;
	}
	st = michi_err(MICHI_ERR_PEER, "rank %d lost its connection to rank %d at %s: %s",
		       tcp.rank, peer, c->name,
		       err ? strerror(err) : "closed by the peer (did the process exit?)");
	tcp_peer_fail(peer, st);
}
