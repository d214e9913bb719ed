/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp.c: the tcp byte device's entry points: init (listening
 * socket, epoll set, business card), progress, finalize, and its ops
 * table.
 *
 * Finalize is orderly in three bounded steps: flush every queued frame
 * (connecting where needed), send each connected peer a goodbye frame and
 * shut down our write side, then read until every peer's EOF. A peer's
 * EOF after its goodbye, or at any time during our own finalize, is not a
 * failure.
 */
#include "config.h"
#include "tcp.h"
#include "tcp_rtt.h"

int *tcp_fast_fd;
struct msghdr tcp_fast_msg;

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

struct tcp_state tcp;

static size_t tcp_eager_limit = 65536;
MICHI_TUNABLE(tcp_eager_limit, "tcp_eager_limit", MICHI_T_SIZE, "65536",
	      MICHI_LEVEL_TUNER, "largest message tcp sends eagerly (bytes, at least 256)");
static double tcp_finalize_timeout = 10.0;
MICHI_TUNABLE(tcp_finalize_timeout, "tcp_finalize_timeout", MICHI_T_DOUBLE, "10",
	      MICHI_LEVEL_TUNER, "seconds finalize waits to flush queued tcp frames and "
	      "for peers to close");

/* epoll_wait on the set and handle what it reports. */
static int tcp_poll(int timeout_ms)
{
	struct epoll_event ev[32];
	int i, n;

	n = epoll_wait(tcp.epfd, ev, 32, timeout_ms);
	for (i = 0; i < n; i++)
		tcp_conn_event(ev[i].data.ptr, ev[i].events);
	if (unlikely(tcp.timed.timed_next != &tcp.timed || tcp.n_ticking))
		tcp_conn_timers();
	if (unlikely(tcp.n_notify))
		tcp_peer_notify();
	if (unlikely(tcp.dead))
		tcp_conn_reap();
	return n > 0 ? n : 0;
}

int tcp_direct_poll = 4;
MICHI_TUNABLE(tcp_direct_poll, "tcp_direct_poll", MICHI_T_INT, "4", MICHI_LEVEL_TUNER,
	      "busy connections that progress reads directly instead of through epoll (0: none)");

/*
 * Read the directly polled connections; epoll still watches every socket
 * and is consulted on every sixteenth call (accepts, handshakes,
 * connections not in the direct set), and on every call while frames
 * wait in send queues or when no connection is polled directly.
 */
static int tcp_progress(void)
{
	int i, n = 0;

	if (likely(tcp.ndirect > 0)) {
		for (i = 0; i < tcp.ndirect;) {
			struct tcp_conn *c = tcp.direct[i];

			n += tcp_recv_event(c);
			if (i < tcp.ndirect && tcp.direct[i] == c)
				i++;
		}
		/* queued frames wait for EPOLLOUT: then epoll every time */
		if (likely(++tcp.poll_tick & 15) && !tcp.nqueued)
			return n;
	}
	return n + tcp_poll(0);
}

static size_t tcp_pending(void)
{
	return tcp.nqueued;
}

static int tcp_wait_fd(void)
{
	return tcp.epfd;
}

static michi_status_t tcp_init(struct michi_job *job)
{
	return tcp_open(job, job->local_size == job->size, 1);
}

michi_status_t tcp_open(struct michi_job *job, int all_local, int publish)
{
	char key[32], card[512];
	michi_status_t st;
	int i;

	michi_tunables_load();
	if (tcp_rbuf_size < 4096)
		tcp_rbuf_size = 4096;
	memset(&tcp, 0, sizeof(tcp));
	tcp.job = job;
	tcp.up = *job->up;
	tcp.rank = job->rank;
	tcp.size = job->size;
	tcp.all_local = all_local;
	tcp.timed.timed_next = tcp.timed.timed_prev = &tcp.timed;
	tcp.peers = calloc((size_t)job->size, sizeof(*tcp.peers));
	tcp_fast_fd = malloc((size_t)job->size * sizeof(*tcp_fast_fd));
	if (!tcp.peers || !tcp_fast_fd) {
		free(tcp.peers);
		free(tcp_fast_fd);
		tcp.peers = NULL;
		tcp_fast_fd = NULL;
		return michi_err(MICHI_ERR_NOMEM, "tcp: no memory for %d peers", job->size);
	}
	for (i = 0; i < job->size; i++)
		tcp_fast_fd[i] = -1;
	tcp.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (tcp.epfd < 0) {
		st = michi_err(MICHI_ERR_IO, "tcp: epoll_create1: %m");
		goto err_free_peers;
	}
	st = tcp_conn_listen();
	if (st < 0)
		goto err_close_epoll;
	st = tcp_iface_card(tcp.port, tcp.all_local, card, sizeof(card));
	if (st < 0)
		goto err_close_listener;
	/* a pair keeps resilient streams only when both ends do (a ring
	 * that no acknowledgement empties would grow without end): the card
	 * says so, and a card that cannot say it is cut short */
	if (!tcp_rail_failover && strlen(card) + sizeof(TCP_CARD_NOFAILOVER) + 1 > sizeof(card)) {
		st = michi_err(MICHI_ERR_INTERN, "tcp: business card longer than %zu bytes",
			       sizeof(card));
		goto err_close_listener;
	}
	if (!tcp_rail_failover)
		strcat(strcat(card, ","), TCP_CARD_NOFAILOVER);
	snprintf(key, sizeof(key), "tcp-%d", tcp.rank);
	st = publish ? job->kvs_put(key, card) : MICHI_OK;
	if (st < 0) {
		michi_err(st, "tcp: cannot publish business card %s=%s", key, card);
		goto err_close_listener;
	}
	michi_debug("tcp: rank %d card %s", tcp.rank, card);
	/* at least what MPI_Isend's fast path copies inline (256 B), which
	 * then never needs to ask: smaller limits buy nothing over tcp */
	michi_device_tcp.eager_limit = tcp_eager_limit < 256 ? 256 : tcp_eager_limit;
	tcp.inited = 1;
	return MICHI_OK;

err_close_listener:
	close(tcp.listener.fd);
err_close_epoll:
	close(tcp.epfd);
err_free_peers:
	free(tcp.peers);
	tcp.peers = NULL;
	free(tcp_fast_fd);
	tcp_fast_fd = NULL;
	return st;
}

static michi_status_t tcp_post_fence(struct michi_job *job)
{
	/* cards are read on first connect: a rank talks to few peers */
	return MICHI_OK;
}

static int tcp_busy_sending(void)
{
	int i;

	for (i = 0; i < tcp.size; i++) {
		struct tcp_peer *p = &tcp.peers[i];

		if ((p->sq_head || tcp_stripe_busy(p)) &&
		    (p->state == TCP_PEER_UP || p->state == TCP_PEER_CONNECTING))
			return 1;
	}
	return 0;
}

/* A peer that said goodbye sends nothing more: closing on it now cannot
 * reset a stream with unread bytes, so only the others are waited for. */
static int tcp_any_open(void)
{
	int i;

	for (i = 0; i < tcp.size; i++)
		if (tcp.peers[i].conn && !tcp.peers[i].conn->goodbye)
			return 1;
	return 0;
}

static void tcp_say_goodbye(void)
{
	static const uint64_t bye[MICHI_FRAME_HDR_SIZE / 8] = { TCP_GOODBYE_LEN };
	struct iovec iov = { (void *)bye, MICHI_FRAME_HDR_SIZE };
	int i;

	for (i = 0; i < tcp.size; i++) {
		struct tcp_peer *p = &tcp.peers[i];

		if (p->state != TCP_PEER_UP || !p->conn)
			continue;
		if (tcp_send_queue(p, &iov, 1, 0, NULL, 1) == MICHI_INPROGRESS)
			tcp_send_flush(p);
	}
}

static michi_status_t tcp_finalize(void)
{
	double deadline;
	michi_status_t st = MICHI_OK;
	int i;

	if (!tcp.inited)
		return MICHI_OK;
	deadline = michi_wtime() + tcp_finalize_timeout;
	tcp.finalizing = TCP_FIN_FLUSH;
	while (tcp_busy_sending() && michi_wtime() < deadline)
		tcp_poll(10);
	tcp.finalizing = TCP_FIN_CLOSE;
	tcp_say_goodbye();
	while (tcp_busy_sending() && michi_wtime() < deadline)
		tcp_poll(10);
	for (i = 0; i < tcp.size; i++) {
		if (tcp.peers[i].conn && !tcp.peers[i].sq_head)
			shutdown(tcp.peers[i].conn->fd, SHUT_WR);
		tcp_stripe_shutdown(&tcp.peers[i]);
	}
	while (tcp_any_open() && michi_wtime() < deadline)
		tcp_poll(10);

	for (i = 0; i < tcp.size; i++) {
		struct tcp_peer *p = &tcp.peers[i];
		int left = 0;
		struct tcp_sendq *q;

		for (q = p->sq_head; q; q = q->next)
			left += !q->internal;
		if (left) {
			st = michi_err(MICHI_ERR_PEER, "rank %d finalize: %d frames to rank %d not sent "
				       "within %g s", tcp.rank, left, i, tcp_finalize_timeout);
		}
		tcp_stripe_close(p);
		tcp_send_fail_queue(p, MICHI_ERR_PEER);
		if (p->conn)
			tcp_conn_close(p->conn);
		if (p->out)
			tcp_conn_close(p->out);
	}
	while (tcp.timed.timed_next != &tcp.timed)
		tcp_conn_close(tcp.timed.timed_next);
	tcp_conn_reap();
	tcp_stripe_free();
	close(tcp.listener.fd);
	close(tcp.epfd);
	tcp_dyn_free();
	free(tcp.peers);
	free(tcp_fast_fd);
	tcp_fast_fd = NULL;
	memset(&tcp, 0, sizeof(tcp));
	return st;
}

/* The kernel's smallest round trip over the connections to peer. */
static double tcp_rtt(int peer)
{
	struct tcp_peer *p;
	double best = 0;
	int k;

	if (!tcp.peers || peer < 0 || peer >= tcp.size)   /* the world's ranks */
		return 0;
	p = tcp_peer_of(peer);
	for (k = 0; k <= TCP_SLOTS_MAX; k++) {
		struct tcp_conn *c = k ? tcp_stripe_conn(p, k) : p->conn;
		double t = c ? tcp_sock_min_rtt(c->fd) : 0;

		if (t > 0 && (best == 0 || t < best))
			best = t;
	}
	return best;
}

/* some rank is on another host (local_size -1: the launcher did not say) */
static int tcp_wanted(const struct michi_job *job)
{
	return job->local_size != job->size;
}

static const struct michi_dyn_ops tcp_dyn_ops = {
	.start = tcp_dyn_start,
	.card = tcp_dyn_card,
	.add = tcp_dyn_add,
	.find = tcp_dyn_find,
};

struct michi_device michi_device_tcp = {
	.name = "tcp",
	.priority = 10,
	.wanted = tcp_wanted,
	.dyn = &tcp_dyn_ops,
	.init = tcp_init,
	.post_fence = tcp_post_fence,
	.finalize = tcp_finalize,
	.send = tcp_send,
	.progress = tcp_progress,
	.wait_fd = tcp_wait_fd,
	.pending = tcp_pending,
	.rtt = tcp_rtt,
	.eager_limit = 65536,
};
