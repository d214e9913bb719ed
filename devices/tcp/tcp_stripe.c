/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_stripe.c: a peer pair's rails, its rail connections,
 * large frames striped over them, and the receiver's reports that weigh
 * the rails (issue 31; paper B, ../GRID.md §2).
 *
 * Rails. At the first frame of tcp_stripe_min bytes or more to a peer of
 * this job (and when the peer opens a rail connection to us), the pair's
 * rails are worked out from the two business cards, the same on both
 * sides (tcp_rails_pair from the lower rank's view): each rail a local and
 * a peer address on one subnet. Peers on this host, or with no subnet in
 * common, have one rail: the main connection's path. Each rail holds
 * tcp_rail_socks connections (0: two when the pair has one rail, so that
 * the kernel works on two streams, else one), the main connection counting
 * on its own rail; the others are the pair's rail connections, numbered
 * 1.. in rail order on both sides (the slots), each bound to its rail's
 * local address. The rank that needs them first connects; when both do at
 * once, the lower rank's connection wins, slot by slot. A slot that cannot
 * connect, or that the peer refuses, stays unused.
 *
 * Striping. Each connection gets a part of the payload by its weight (its
 * rail's share over the rail's connections that are up), to the byte, so
 * that every part ends at once: a frame is done when its last part is.
 * (Paper B's burst rule deals packets of one stream to the links in
 * rounds; dealt so, 256 KiB chunks of 4 MiB frames over two rails of
 * 100 Mb/s with shares 0.51 : 0.49 went 2 : 1 a round and took 170
 * against 191 Mb/s for exact parts. Each connection here is a stream of
 * its own, so the order among them buys nothing.) The main connection's part
 * follows the frame header (after a TCP_SPLIT_LEN notice naming the bytes
 * that are elsewhere and the frame's stripe number); the others' parts
 * go in chunks of at most tcp_stripe_chunk bytes, each with its own
 * header (stripe number, offset, length) on its slot's connection. The
 * receiver reads chunks straight into MTMI's buffer at their offsets and
 * completes the frame when every byte is in; a chunk of a frame the main
 * connection has not begun yet waits in its socket (the connection's
 * EPOLLIN is off meanwhile). The sender's completion waits for every part.
 *
 * Weights. Each rail's share of the payload comes from tcp_rail_weights:
 * feedback (the default) and rate (RI2N++ in bytes with the rails'
 * measured rates), paper (RI2N++ as the paper has it), links (RI2N+),
 * static (by tcp_rail_rates or the interfaces' speeds), round-robin
 * (RI2N); tcp_rail.h has them. The
 * receiver sends a report at most every tcp_rail_interval seconds while
 * chunks arrive: per rail, the bytes it read from this peer (R_k), the
 * bytes it read on its link of that rail from every peer (R_jk), the
 * peers that sent on that link, everything it read (R_j), and the part of
 * the striped frames' time the rail carried this peer's bytes (b_k: from
 * each frame's begin to the end of the rail's part, which the last chunk
 * of each connection marks). The sender keeps decayed sums of the
 * reports (tcp_rail_memory) and gives them to the rule (tcp_rail.h:
 * R_k / b_k * R_k / R_jk for feedback); the rule's weights, smoothed
 * (tcp_rail_beta, tcp_rail_floor), set the parts. Byte counts are the
 * kernel's (TCP_INFO), read only when a report is made or taken, so no
 * send or receive path counts anything.
 */
#include "config.h"
#include "tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

size_t tcp_stripe_min = 1048576;
MICHI_TUNABLE(tcp_stripe_min, "tcp_stripe_min", MICHI_T_SIZE, "1048576", MICHI_LEVEL_TUNER,
	      "payload size from which the tcp device stripes a frame over the peer pair's "
	      "rails and rail connections (0: one connection per peer)");
static size_t tcp_stripe_chunk = 262144;
MICHI_TUNABLE(tcp_stripe_chunk, "tcp_stripe_chunk", MICHI_T_SIZE, "256k", MICHI_LEVEL_TUNER,
	      "largest chunk of a striped frame on a rail connection (each has a header)");
static int tcp_rail_socks;
MICHI_TUNABLE(tcp_rail_socks, "tcp_rail_socks", MICHI_T_INT, "0", MICHI_LEVEL_TUNER,
	      "tcp connections on each rail of a peer pair, the main one included (0: 2 when "
	      "the pair has one rail, else 1)");
static const char *tcp_rail_weights = "feedback";
MICHI_TUNABLE(tcp_rail_weights, "tcp_rail_weights", MICHI_T_STRING, "feedback",
	      MICHI_LEVEL_TUNER,
	      "how striped frames are shared among a peer pair's rails: feedback (RI2N++ in "
	      "bytes from the receiver's reports: our part of each of its links times our rate "
	      "on the rail), paper (our part of each link alone, as paper B has it, with the "
	      "rails' rates where we are alone on them), rate (each rail's rate while it "
	      "carried our bytes), links (RI2N+: inversely to the peers sharing the receiver's "
	      "link), static (by tcp_rail_rates), round-robin (alike)");
static const char *tcp_rail_rates = "";
MICHI_TUNABLE(tcp_rail_rates, "tcp_rail_rates", MICHI_T_STRING, "", MICHI_LEVEL_TUNER,
	      "line rates (any unit) of this rank's card addresses in their order, for "
	      "tcp_rail_weights=static; empty: the interfaces' speeds from sysfs");
static double tcp_rail_interval = 0.1;
MICHI_TUNABLE(tcp_rail_interval, "tcp_rail_interval", MICHI_T_DOUBLE, "0.1", MICHI_LEVEL_TUNER,
	      "seconds between a receiver's reports on the rails while striped data arrives");
static double tcp_rail_beta = 0.5;
MICHI_TUNABLE(tcp_rail_beta, "tcp_rail_beta", MICHI_T_DOUBLE, "0.5", MICHI_LEVEL_TUNER,
	      "how far one report moves the rails' shares toward its own (1: no memory)");
static double tcp_rail_memory = 0.7;
MICHI_TUNABLE(tcp_rail_memory, "tcp_rail_memory", MICHI_T_DOUBLE, "0.7", MICHI_LEVEL_TUNER,
	      "how much of the earlier reports' byte counts the feedback rule keeps at each "
	      "report (0: the last interval alone): the bytes in flight make one interval's "
	      "R/S noisy");
static double tcp_rail_floor = 0.05;
MICHI_TUNABLE(tcp_rail_floor, "tcp_rail_floor", MICHI_T_DOUBLE, "0.05", MICHI_LEVEL_TUNER,
	      "the least share of a live rail, so that a rail the feedback starved is tried again");

struct tcp_srail {
	struct in_addr local;     /* INADDR_ANY: not bound (this host, or no subnet shared) */
	struct sockaddr_in peer;  /* the peer's listening address on this rail */
	int lidx;                 /* index in tcp.local, or -1 */
	int socks;                /* connections on it, main's included */
	double rate;              /* for the static rule */
};

struct tcp_slot {
	struct tcp_conn *conn, *out;
	int rail;
	int off;                  /* could not connect or refused: unused */
	struct tcp_chunk *head, *tail;
	struct tcp_chunk hb;      /* its heartbeat, queued when the queue is empty */
};

struct tcp_stripe {
	struct tcp_stripe *next;  /* tcp.striped */
	int peer;
	int nrails, main_rail, nslots;
	struct tcp_srail rail[TCP_RAILS_MAX];
	struct tcp_slot slot[TCP_SLOTS_MAX + 1];   /* [1..nslots] */
	/* sending */
	uint64_t tx_seq;
	double w[TCP_SLOTS_MAX + 1];   /* [0]: the main connection, [k]: slot k */
	int on[TCP_SLOTS_MAX + 1];     /* the rail each is on now (-1: not up) */
	int stale;                /* connections or shares changed: set sched again */
	double share[TCP_RAILS_MAX];
	unsigned reports_in;
	/* the reports' counts and what was sent, decayed by tcp_rail_memory */
	double acc_arrive[TCP_RAILS_MAX], acc_path[TCP_RAILS_MAX];
	double acc_busy[TCP_RAILS_MAX];   /* sum of R_k * b_k, for b_k over them */
	double acc_total;
	/* receiving */
	uint64_t rx_seq;
	double report_at;
	/* the striped frame in progress: when it began, when each rail's
	 * part ended (0: not yet), parts still to end; and over the report
	 * interval, per rail the time it carried frames' bytes, and the
	 * frames' whole time */
	double fr_from, fr_end[TCP_RAILS_MAX];   /* fr_from: begin, or the last report */
	int fr_open;
	double busy[TCP_RAILS_MAX], span;
	uint64_t rx[TCP_RAILS_MAX], rx_mark[TCP_RAILS_MAX];  /* kernel's bytes read per rail */
	uint64_t link_mark[TCP_RAILS_MAX], all_mark;
};

/* striped payload bytes this rank put on rail k of its peer pairs, since
 * MPI_Init (MPI_T) */
static uint64_t rail_bytes[TCP_RAILS_MAX];

/* this rank's links: bytes read on each card address from every peer, and in all */
static uint64_t link_rx[TCP_MAX_ADDRS], all_rx;
static unsigned link_users[TCP_MAX_ADDRS];

static enum tcp_weight_rule stripe_rule(void)
{
	const char *r = tcp_rail_weights ? tcp_rail_weights : "";

	if (!strcmp(r, "round-robin") || !strcmp(r, "rr"))
		return TCP_WEIGHTS_ROUND_ROBIN;
	if (!strcmp(r, "links"))
		return TCP_WEIGHTS_LINKS;
	if (!strcmp(r, "static"))
		return TCP_WEIGHTS_STATIC;
	if (!strcmp(r, "rate"))
		return TCP_WEIGHTS_RATE;
	if (!strcmp(r, "feedback"))
		return TCP_WEIGHTS_FEEDBACK;
	return TCP_WEIGHTS_PAPER;
}

struct tcp_conn *tcp_stripe_conn(const struct tcp_peer *p, int slot)
{
	return p->stripe && slot >= 1 && slot <= p->stripe->nslots ? p->stripe->slot[slot].conn : NULL;
}

static void stripe_weigh(struct tcp_stripe *st, const struct tcp_rail_report *rep,
			 const uint64_t *sent);
static void stripe_marks(struct tcp_stripe *st);

/* ---- rails ------------------------------------------------------------ */

static int local_index(struct in_addr a)
{
	int i;

	for (i = 0; i < tcp.nlocal; i++)
		if (tcp.local[i].s_addr == a.s_addr)
			return i;
	return -1;
}

/* The line rate of card address i: tcp_rail_rates, else sysfs, else 1. */
static double local_rate(int i)
{
	const char *s = tcp_rail_rates ? tcp_rail_rates : "";
	char path[96];
	double v = 0;
	FILE *f;
	int k;

	for (k = 0; *s && k <= i; k++) {
		char *end;
		double x = strtod(s, &end);

		if (k == i && end != s)
			return x > 0 ? x : 1;
		s = strchr(s, ',');
		if (!s)
			break;
		s++;
	}
	if (i < 0 || !tcp.local_if[i][0])
		return 1;
	snprintf(path, sizeof(path), "/sys/class/net/%s/speed", tcp.local_if[i]);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lf", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v > 0 ? v : 1;
}

/* The rails of p: from the cards, or the main connection's path. */
static void stripe_rails(struct tcp_stripe *st, struct tcp_peer *p, int same_host)
{
	struct tcp_rail_addr l[TCP_MAX_ADDRS], r[TCP_MAX_ADDRS];
	struct tcp_rail_pair pr[TCP_RAILS_MAX];
	struct sockaddr_in me = { 0 }, him = { 0 };
	socklen_t len = sizeof(me);
	int i, n = 0, mine = 0;

	if (p->conn && getsockname(p->conn->fd, (struct sockaddr *)&me, &len) == 0) {
		len = sizeof(him);
		if (getpeername(p->conn->fd, (struct sockaddr *)&him, &len) != 0)
			memset(&him, 0, sizeof(him));
	}
	if (!same_host) {
		for (i = 0; i < tcp.nlocal; i++) {
			l[i].addr = tcp.local[i].s_addr;
			l[i].prefix = tcp.local_prefix[i];
		}
		for (i = 0; i < p->naddr; i++) {
			r[i].addr = p->addrs[i].sin_addr.s_addr;
			r[i].prefix = p->aprefix[i];
		}
		/* the lower rank's view, so that both sides pair alike */
		if (!tcp_peer_above((int)(p - tcp.peers))) {
			n = tcp_rails_pair(r, p->naddr, l, tcp.nlocal, pr, TCP_RAILS_MAX);
			for (i = 0; i < n; i++) {
				int t = pr[i].local;

				pr[i].local = pr[i].peer;
				pr[i].peer = t;
			}
		} else {
			n = tcp_rails_pair(l, tcp.nlocal, r, p->naddr, pr, TCP_RAILS_MAX);
		}
	}
	st->main_rail = -1;
	for (i = 0; i < n; i++) {
		struct tcp_srail *rl = &st->rail[i];

		rl->local = tcp.local[pr[i].local];
		rl->lidx = pr[i].local;
		rl->peer = p->addrs[pr[i].peer];
		rl->rate = local_rate(rl->lidx);
		if (rl->local.s_addr == me.sin_addr.s_addr &&
		    rl->peer.sin_addr.s_addr == him.sin_addr.s_addr)
			mine = 1, st->main_rail = i;
	}
	if (!mine) {
		/* one rail more, the main connection's path, when nothing
		 * pairs or the main connection took a path of its own */
		struct tcp_srail *rl;

		if (n >= TCP_RAILS_MAX)
			n--;
		rl = &st->rail[n];
		memset(rl, 0, sizeof(*rl));
		rl->local.s_addr = htonl(INADDR_ANY);
		rl->lidx = local_index(me.sin_addr);
		rl->peer = p->addrs[0];
		for (i = 0; i < p->naddr; i++)
			if (p->addrs[i].sin_addr.s_addr == him.sin_addr.s_addr)
				rl->peer = p->addrs[i];
		rl->rate = local_rate(rl->lidx);
		st->main_rail = n;
		n++;
	}
	st->nrails = n;
}

/* Stripe state of peer, made (rails worked out, nothing connected) at
 * first use; NULL when the peer gets none. */
struct tcp_stripe *tcp_stripe_get(int peer)
{
	struct tcp_peer *p = tcp_peer_of(peer);
	struct tcp_stripe *st;
	int k, j, same_host, socks;
	char buf[512];
	size_t n = 0;

	if (p->stripe)
		return p->stripe;
	if (p->stripe_off || p->dyn || tcp_mptcp || p->state != TCP_PEER_UP || !p->conn)
		return NULL;
	if (!p->naddr && tcp_peer_card(peer) < 0) {
		p->stripe_off = 1;
		return NULL;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		p->stripe_off = 1;
		return NULL;
	}
	st->peer = peer;
	same_host = tcp.job->host_of ? tcp.job->host_of[peer] == tcp.job->host_of[tcp.rank] :
		    tcp.all_local;
	stripe_rails(st, p, same_host || tcp.all_local);
	socks = tcp_rail_socks > 0 ? tcp_rail_socks : st->nrails == 1 ? 2 : 1;
	if (socks > TCP_SLOTS_MAX + 1)
		socks = TCP_SLOTS_MAX + 1;
	for (k = 0; k < st->nrails; k++) {
		st->rail[k].socks = socks;
		st->share[k] = 1.0 / st->nrails;
		for (j = k == st->main_rail; j < socks && st->nslots < TCP_SLOTS_MAX; j++)
			st->slot[++st->nslots].rail = k;
	}
	st->stale = 1;
	st->next = tcp.striped;
	tcp.striped = st;
	p->stripe = st;
	stripe_weigh(st, NULL, NULL);
	stripe_marks(st);
	for (k = 0; k < st->nrails && n < sizeof(buf); k++) {
		char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &st->rail[k].local, a, sizeof(a));
		inet_ntop(AF_INET, &st->rail[k].peer.sin_addr, b, sizeof(b));
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s%s -> %s%s", k ? ", " : "",
				      st->rail[k].local.s_addr ? "" : "(any)",
				      st->rail[k].local.s_addr ? a : "", b,
				      k == st->main_rail ? " (main)" : "");
	}
	michi_info("tcp: rank %d has %d rail%s to rank %d, %d connection%s each: %s",
		   tcp.rank, st->nrails, st->nrails == 1 ? "" : "s", peer, socks,
		   socks == 1 ? "" : "s", buf);
	return st;
}

/* Connect the slots nobody has connected yet. */
static void stripe_connect(struct tcp_peer *p, struct tcp_stripe *st)
{
	int k;

	for (k = 1; k <= st->nslots; k++) {
		struct tcp_slot *sl = &st->slot[k];
		struct tcp_srail *rl = &st->rail[sl->rail];

		if (sl->conn || sl->out || sl->off)
			continue;
		sl->out = tcp_conn_open((int)(p - tcp.peers), &rl->peer,
					rl->local.s_addr ? &rl->local : NULL);
		if (!sl->out) {
			sl->off = 1;
			continue;
		}
		sl->out->slot = k;
	}
}

/* At least one rail connection is up: striping pays. Connects them at
 * the first ask. */
int tcp_stripe_ready(struct tcp_peer *p)
{
	struct tcp_stripe *st = p->stripe ? p->stripe : tcp_stripe_get((int)(p - tcp.peers));
	int k, up = 0, pending = 0;

	if (!st)
		return 0;
	for (k = 1; k <= st->nslots; k++) {
		up |= st->slot[k].conn != NULL;
		pending |= !st->slot[k].conn && !st->slot[k].out && !st->slot[k].off;
	}
	if (pending)
		stripe_connect(p, st);
	return up;
}

static uint32_t slot_events(const struct tcp_conn *c, const struct tcp_slot *sl)
{
	return (c->parked ? 0 : EPOLLIN) | (sl->head ? EPOLLOUT : 0);
}

static void slot_up(struct tcp_stripe *st, int k, struct tcp_conn *c, size_t hs)
{
	struct tcp_slot *sl = &st->slot[k];

	tcp_conn_timed_del(c);
	c->state = TCP_CONN_UP;
	c->slot = k;
	sl->conn = c;
	st->stale = 1;
	if (st->nrails > 1 && !tcp_peer_of(st->peer)->no_failover)
		tcp_stream_make(c, sl->rail, hs);
	michi_debug("tcp: rank %d has rail connection %d to rank %d via %s", tcp.rank, k,
		    st->peer, c->name);
}

/* A hello for slot k from p's rank. */
void tcp_stripe_in(struct tcp_conn *c, struct tcp_peer *p, int k)
{
	int peer = (int)(p - tcp.peers);
	struct tcp_stripe *st = tcp_stripe_get(peer);
	struct tcp_slot *sl;

	if (!st || k < 1 || k > st->nslots) {
		tcp_conn_reject(c, TCP_REPLY_NORAIL, "no such rail connection");
		return;
	}
	sl = &st->slot[k];
	if (sl->conn || (sl->out && tcp_peer_above(peer))) {
		tcp_conn_reject(c, TCP_REPLY_DUPLICATE, "duplicate rail connection");
		return;
	}
	if (sl->out) {
		sl->out->abandoned = 1;
		sl->out = NULL;
	}
	tcp_conn_reply(c, TCP_REPLY_OK);
	sl->off = 0;
	slot_up(st, k, c, sizeof(struct tcp_hello));
}

/* The peer answered our rail connection c. */
void tcp_stripe_reply(struct tcp_conn *c, struct tcp_peer *p, int status)
{
	struct tcp_stripe *st = p->stripe;
	struct tcp_slot *sl = st && c->slot <= st->nslots ? &st->slot[c->slot] : NULL;

	if (sl && sl->out == c)
		sl->out = NULL;
	if (sl && status == TCP_REPLY_OK && p->state == TCP_PEER_UP && !sl->conn) {
		slot_up(st, c->slot, c, sizeof(struct tcp_reply));
		return;
	}
	tcp_conn_close(c);
	/* a duplicate: the peer's own connection for the slot is on its way */
	if (sl && status != TCP_REPLY_DUPLICATE)
		sl->off = 1;
}

/* Our rail connection c could not connect: the slot stays unused. */
void tcp_stripe_out_failed(struct tcp_conn *c)
{
	struct tcp_stripe *st = tcp_peer_of(c->peer)->stripe;

	if (st && c->slot <= st->nslots && st->slot[c->slot].out == c) {
		st->slot[c->slot].out = NULL;
		st->slot[c->slot].off = 1;
	}
}

/* ---- sending ---------------------------------------------------------- */

/* A connection up on its own rail (not lost, not moved to another). */
static int conn_home(const struct tcp_conn *c)
{
	return c && c->state == TCP_CONN_UP && (!c->sm || c->sm->rail == c->sm->home);
}

/* The rail connection c (its own rail: home) is on now, -1 when it is
 * not up (lost, resuming, or no rail of the pair). */
static int conn_on(const struct tcp_conn *c, int home, int nrails)
{
	int r;

	if (!c || c->state != TCP_CONN_UP)
		return -1;
	r = c->sm ? c->sm->rail : home;
	return r >= 0 && r < nrails ? r : -1;
}

/* Weights of the main connection (0) and the slots for the parts: a
 * rail's share over the connections that are up on it now, its own and
 * those moved there from a lost rail. A moved one keeps getting parts
 * (its rail's share is 0 while the rail is down), so that what it has
 * queued when it goes home goes out on its own rail at once, not behind
 * the parts the others were dealt meanwhile. */
static void stripe_sched(struct tcp_stripe *st)
{
	const struct tcp_conn *m = tcp.peers[st->peer].conn;
	double w[TCP_SLOTS_MAX + 1] = { 0 };
	int up[TCP_RAILS_MAX] = { 0 };
	int k;

	st->on[0] = conn_on(m, st->main_rail, st->nrails);
	for (k = 1; k <= st->nslots; k++)
		st->on[k] = conn_on(st->slot[k].conn, st->slot[k].rail, st->nrails);
	for (k = 0; k <= st->nslots; k++)
		if (st->on[k] >= 0)
			up[st->on[k]]++;
	for (k = 0; k <= st->nslots; k++)
		if (st->on[k] >= 0)
			w[k] = st->share[st->on[k]] / up[st->on[k]];
	memcpy(st->w, w, sizeof(st->w));
	st->stale = 0;
}

/*
 * A large frame to p: the main connection gets the notice, the header and
 * its pieces as one first part; the other pieces go as chunks to their
 * slots' queues. Returns what tcp_send returns.
 */
michi_status_t tcp_stripe_send(struct tcp_peer *p, int peer, const struct iovec *iov,
			       void *cookie)
{
	struct tcp_stripe *st = p->stripe;
	size_t len = iov[1].iov_len, C = tcp_stripe_chunk < 4096 ? 4096 : tcp_stripe_chunk;
	size_t npieces = (len + C - 1) / C + TCP_SLOTS_MAX, i, head = len, off, total;
	size_t quota[TCP_SLOTS_MAX + 1] = { 0 };
	double sum = 0;
	const char *base = iov[1].iov_base;
	struct tcp_split *s;
	struct iovec w[3];
	struct msghdr msg = { .msg_iov = w, .msg_iovlen = 3 };
	struct tcp_chunk *last[TCP_SLOTS_MAX + 1] = { NULL };
	unsigned touched = 0;
	michi_status_t stt;
	int nch = 0, k;
	ssize_t n = 0;

	if (st->stale)
		stripe_sched(st);
	s = malloc(sizeof(*s) + npieces * sizeof(s->chunk[0]));
	if (!s)
		return tcp_send_fast(peer, iov, 2, cookie);
	/* each connection's part by its weight, to the byte (every rail's
	 * part of the frame should end at once); the main connection's is
	 * what is left, the others are cut into chunks laid after it */
	for (k = 0; k <= st->nslots; k++)
		sum += st->w[k];
	for (k = 1; sum > 0 && k <= st->nslots; k++) {
		quota[k] = (size_t)((double)len * st->w[k] / sum);
		if (quota[k] > head)
			quota[k] = head;
		head -= quota[k];
	}
	for (k = 1; k <= st->nslots; k++) {
		size_t q;

		for (q = 0; q < quota[k]; q += C) {
			s->chunk[nch].h.len = quota[k] - q < C ? quota[k] - q : C;
			s->chunk[nch].hleft = (size_t)k;   /* the slot, for now */
			nch++;
		}
	}
	if (!nch) {
		free(s);
		return tcp_send_fast(peer, iov, 2, cookie);
	}
	s->cookie = cookie;
	s->parts = nch + 2;
	s->st = MICHI_OK;
	memset(s->hdr[0], 0, sizeof(s->hdr[0]));
	s->hdr[0][0] = TCP_SPLIT_LEN;
	s->hdr[0][1] = len - head;
	s->hdr[0][2] = ++st->tx_seq;
	memcpy(s->hdr[1], iov[0].iov_base, sizeof(s->hdr[1]));
	w[0].iov_base = s->hdr[0];
	w[0].iov_len = MICHI_FRAME_HDR_SIZE;
	w[1].iov_base = s->hdr[1];
	w[1].iov_len = MICHI_FRAME_HDR_SIZE;
	w[2].iov_base = (void *)base;
	w[2].iov_len = head;
	total = 2 * MICHI_FRAME_HDR_SIZE + head;

	if (tcp_fast_fd[peer] >= 0) {
		n = sendmsg(tcp_fast_fd[peer], &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
				free(s);
				return tcp_send_error(p, peer, errno);
			}
			n = 0;
		}
	}
	if ((size_t)n == total) {
		s->parts--;
	} else {
		stt = tcp_send_queue(p, w, 3, (size_t)n, NULL, 1);
		if (stt < 0) {
			/* the frame may be cut off on the wire: the peer cannot parse on */
			free(s);
			tcp_peer_fail(peer, stt);
			return stt;
		}
		p->sq_tail->split = s;
		if (p->conn->sm)
			tcp_send_flush(p);   /* resilient: nothing goes inline */
	}
	if (st->on[0] >= 0)
		rail_bytes[st->on[0]] += head;
	off = head;
	for (i = 0; i < (size_t)nch; i++) {
		struct tcp_chunk *ch = &s->chunk[i];
		struct tcp_slot *sl;

		k = (int)ch->hleft;
		sl = &st->slot[k];
		ch->next = NULL;
		ch->split = s;
		ch->h.seq = st->tx_seq;
		ch->h.off = off;
		ch->hleft = sizeof(ch->h);
		ch->ptr = base + off;
		ch->left = (size_t)ch->h.len;
		off += (size_t)ch->h.len;
		if (p->state != TCP_PEER_UP || !sl->conn) {
			tcp_split_part_done(s, p->fail_st < 0 ? p->fail_st : MICHI_ERR_PEER);
			continue;
		}
		if (st->on[k] >= 0)
			rail_bytes[st->on[k]] += (size_t)ch->h.len;
		last[k] = ch;
		tcp.nqueued++;
		if (sl->tail)
			sl->tail->next = ch;
		else
			sl->head = ch;
		sl->tail = ch;
		touched |= 1u << k;
	}
	/* each connection's last chunk of the frame says so: the receiver
	 * times the rails by it */
	for (k = 1; k <= st->nslots; k++)
		if (last[k])
			last[k]->h.len |= TCP_CHUNK_LAST;
	for (k = 1; k <= st->nslots; k++)
		if (touched & (1u << k) && p->stripe == st && st->slot[k].conn)
			tcp_stripe_flush(p, k);
	if (--s->parts)
		return MICHI_INPROGRESS;
	stt = s->st;
	free(s);
	return stt;
}

/* Write slot k's chunks in order; a full socket waits for EPOLLOUT. */
void tcp_stripe_flush(struct tcp_peer *p, int k)
{
	struct tcp_stripe *st = p->stripe;
	struct tcp_slot *sl = &st->slot[k];
	struct tcp_conn *c = sl->conn;

	if (!c || c->state != TCP_CONN_UP)
		return;               /* resuming: the chunks wait */
	if (c->sm) {
		int r = tcp_stream_replay(c);

		if (r < 0) {
			if (!tcp_stream_lost(c, errno))
				tcp_send_error(p, (int)(p - tcp.peers), errno);
			return;
		}
		if (r == 0) {
			tcp_conn_set_events(c, slot_events(c, sl) | EPOLLOUT);
			return;
		}
	}
	while (sl->head) {
		struct iovec iov[TCP_SENDQ_IOV];
		struct msghdr msg = { .msg_iov = iov };
		struct tcp_chunk *ch;
		size_t want = 0, m;
		ssize_t n;
		int j = 0;

		for (ch = sl->head; ch && j + 2 <= TCP_SENDQ_IOV; ch = ch->next) {
			if (ch->hleft) {
				iov[j].iov_base = (char *)&ch->h + sizeof(ch->h) - ch->hleft;
				iov[j++].iov_len = ch->hleft;
				want += ch->hleft;
			}
			iov[j].iov_base = (void *)ch->ptr;
			iov[j++].iov_len = ch->left;
			want += ch->left;
		}
		msg.msg_iovlen = (size_t)j;
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
		for (m = (size_t)n; sl->head;) {
			size_t t;

			ch = sl->head;
			t = m < ch->hleft ? m : ch->hleft;
			ch->hleft -= t;
			m -= t;
			t = m < ch->left ? m : ch->left;
			ch->ptr += t;
			ch->left -= t;
			m -= t;
			if (ch->hleft || ch->left)
				break;
			sl->head = ch->next;
			if (!sl->head)
				sl->tail = NULL;
			tcp.nqueued--;
			if (ch->split)   /* else a heartbeat */
				tcp_split_part_done(ch->split, MICHI_OK);
			/* the upcall may have failed the peer */
			if (p->stripe != st || sl->conn != c)
				return;
		}
		if ((size_t)n < want)
			break;
	}
	tcp_conn_set_events(c, slot_events(c, sl));
}

/* Has slot sl chunks to write, its heartbeat not counted? */
static int slot_owes(const struct tcp_slot *sl)
{
	return sl->head && (sl->head != &sl->hb || sl->hb.next);
}

/* Is its heartbeat alone in the queue, not begun? */
static int slot_beat_only(const struct tcp_slot *sl)
{
	return sl->head == &sl->hb && !sl->hb.next && sl->hb.hleft == sizeof(sl->hb.h);
}

/* A slot that goes owing no chunk: its heartbeat, if queued, goes too. */
static void slot_forget(struct tcp_slot *sl)
{
	if (sl->head == &sl->hb && !sl->hb.next) {
		sl->head = sl->tail = NULL;
		tcp.nqueued--;
	}
}

/* Chunks of frames still to write to p (heartbeats not counted). */
int tcp_stripe_owes(const struct tcp_peer *p)
{
	int k;

	for (k = 1; p->stripe && k <= p->stripe->nslots; k++)
		if (slot_owes(&p->stripe->slot[k]))
			return 1;
	return 0;
}

/* Chunks still to write to p, or a heartbeat half written (finalize
 * waits for them: the peer reads the stream to its end). */
int tcp_stripe_busy(const struct tcp_peer *p)
{
	int k;

	if (!p->stripe)
		return 0;
	for (k = 1; k <= p->stripe->nslots; k++) {
		const struct tcp_slot *sl = &p->stripe->slot[k];

		if (sl->head && !slot_beat_only(sl))
			return 1;
	}
	return 0;
}

/* Finalize: no more chunks go out; the peer sees EOF on idle slots. */
void tcp_stripe_shutdown(struct tcp_peer *p)
{
	int k;

	if (!p->stripe)
		return;
	for (k = 1; k <= p->stripe->nslots; k++) {
		struct tcp_slot *sl = &p->stripe->slot[k];

		if (slot_beat_only(sl))
			slot_forget(sl);
		if (sl->conn && !sl->head)
			shutdown(sl->conn->fd, SHUT_WR);
	}
}

/* p's rail connections go; chunks not written fail their frames. */
void tcp_stripe_close(struct tcp_peer *p)
{
	struct tcp_stripe *st = p->stripe;
	int k;

	p->stripe_off = 1;
	if (!st)
		return;
	for (k = 1; k <= st->nslots; k++) {
		struct tcp_slot *sl = &st->slot[k];
		struct tcp_chunk *ch = sl->head;

		if (sl->out)
			tcp_conn_close(sl->out);
		if (sl->conn)
			tcp_conn_close(sl->conn);
		sl->out = sl->conn = NULL;
		sl->off = 1;
		sl->head = sl->tail = NULL;
		while (ch) {
			struct tcp_chunk *next = ch->next;

			tcp.nqueued--;
			if (ch->split)
				tcp_split_part_done(ch->split, p->fail_st < 0 ? p->fail_st :
						    MICHI_ERR_PEER);
			ch = next;
		}
	}
	st->stale = 1;
}

void tcp_stripe_free(void)
{
	while (tcp.striped) {
		struct tcp_stripe *st = tcp.striped;

		tcp.striped = st->next;
		free(st);
	}
	memset(link_rx, 0, sizeof(link_rx));
	memset(link_users, 0, sizeof(link_users));
	all_rx = 0;
}

/* ---- receiving -------------------------------------------------------- */

static void stripe_fail(int peer, const char *what)
{
	tcp_peer_fail(peer, michi_err(MICHI_ERR_PEER, "tcp: rank %d sent rank %d %s", peer,
				      tcp.rank, what));
}

/* The main connection c has the header of striped frame seq, of whose
 * payload the last `tail` bytes come as chunks: note where they go and
 * let the rail connections be read. Returns 0 on a protocol error (the
 * peer failed). */
int tcp_stripe_begin(struct tcp_conn *c, uint64_t seq, uint64_t tail)
{
	struct tcp_peer *p = tcp_peer_of(c->peer);
	struct tcp_stripe *st = p->stripe;
	uint64_t head = c->rx_len - tail;
	int k;

	if (!st || tail == 0 || tail > c->rx_len || seq != st->rx_seq + 1) {
		stripe_fail(c->peer, "a striped frame out of order or with no rail connection");
		return 0;
	}
	st->rx_seq = seq;
	c->stripe_seq = seq;
	c->stripe_left = tail;
	c->stripe_len = c->rx_len;
	c->stripe_cap = c->rx_ulen;
	c->rx_len = head;
	if (c->rx_ulen > head)
		c->rx_ulen = head;
	c->special |= TCP_RX_STRIPE | TCP_RX_PART;
	st->fr_from = michi_wtime();
	st->fr_open = 1;
	memset(st->fr_end, 0, sizeof(st->fr_end));
	for (k = 1; k <= st->nslots; k++) {
		struct tcp_conn *l = st->slot[k].conn;

		if (l && l->parked) {
			l->parked = 0;
			tcp_conn_set_events(l, slot_events(l, &st->slot[k]));
		}
	}
	return 1;
}

static void stripe_report_send(struct tcp_peer *p, struct tcp_stripe *st);

/* Both the main connection's part and the chunks of the frame are in:
 * each rail's time in it, for the next report. */
static void stripe_frame_end(struct tcp_stripe *st)
{
	double span = 0;
	int k;

	st->fr_open = 0;
	for (k = 0; k < st->nrails; k++)
		if (st->fr_end[k] - st->fr_from > span)
			span = st->fr_end[k] - st->fr_from;
	if (span <= 0)
		return;
	for (k = 0; k < st->nrails; k++)
		if (st->fr_end[k] > st->fr_from)
			st->busy[k] += st->fr_end[k] - st->fr_from;
	st->span += span;
}

/* The main connection's part of a striped frame is in. */
void tcp_stripe_part_done(struct tcp_conn *c)
{
	struct tcp_stripe *st = tcp_peer_of(c->peer)->stripe;

	if (!st)
		return;
	if (st->main_rail >= 0)
		st->fr_end[st->main_rail] = michi_wtime();
	if (!(c->special & TCP_RX_STRIPE))
		stripe_frame_end(st);
}

/* Every chunk of c's striped frame is in. */
static void stripe_done(struct tcp_conn *c)
{
	c->special &= ~TCP_RX_STRIPE;
	if (!(c->special & TCP_RX_PART))
		stripe_frame_end(tcp_peer_of(c->peer)->stripe);
	if (c->wait_stripe) {
		c->wait_stripe = 0;
		c->rx_active = 0;
		tcp.up.recv_done(c->peer, &c->rx);
		if (c->state == TCP_CONN_UP)
			tcp_recv_parse(c);
	}
}

/* Read chunks of the frame in progress from rail connection l. Returns 1
 * when bytes arrived. */
int tcp_stripe_recv(struct tcp_conn *l)
{
	int peer = l->peer, i, got = 0;
	struct tcp_peer *p = tcp_peer_of(peer);
	struct tcp_stripe *st = p->stripe;
	struct tcp_conn *c = p->conn;
	ssize_t n;

	for (i = 0; i < 64 && l->state == TCP_CONN_UP && !l->parked; i++) {
		uint64_t off, want;
		char *dst;

		if (l->ch_got < sizeof(l->ch)) {
			n = read(l->fd, (char *)&l->ch + l->ch_got, sizeof(l->ch) - l->ch_got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				return got;
			if (n <= 0) {
				/* a resilient stream goes on over another socket,
				 * unless the peer said goodbye */
				if (!(c && c->goodbye) &&
				    tcp_stream_lost(l, n == 0 ? 0 : errno))
					return 1;
				/* between chunks with none owed: the peer is done with it */
				if (l->ch_got == 0 && !(c && (c->special & TCP_RX_STRIPE))) {
					struct tcp_slot *sl = &st->slot[l->slot];

					if (slot_owes(sl)) {
						tcp_peer_lost(l, n == 0 ? ECONNRESET : errno);
					} else {
						tcp_conn_close(l);
						slot_forget(sl);
						sl->conn = NULL;
						sl->off = 1;
						st->stale = 1;
					}
					return 1;
				}
				tcp_peer_fail(peer, michi_err(MICHI_ERR_PEER,
					"rank %d lost its rail connection %d to rank %d at %s: %s",
					tcp.rank, l->slot, peer, l->name,
					n == 0 ? "closed by the peer" : strerror(errno)));
				return 1;
			}
			got = 1;
			l->nread += (uint64_t)n;
			l->ch_got += (size_t)n;
			if (l->ch_got == sizeof(l->ch)) {
				l->ch_last = (l->ch.len & TCP_CHUNK_LAST) != 0;
				l->ch.len &= ~TCP_CHUNK_LAST;
				if (l->ch.seq == 0) {
					/* a heartbeat: it was here to be acknowledged */
					if (l->ch.len || l->ch.off || l->ch_last) {
						stripe_fail(peer, "a heartbeat with bytes");
						return 1;
					}
					l->ch_got = 0;
				}
			}
			continue;
		}
		if (!c || !(c->special & TCP_RX_STRIPE) || l->ch.seq != c->stripe_seq) {
			if (l->ch.seq <= st->rx_seq && !(c && (c->special & TCP_RX_STRIPE) &&
							  l->ch.seq == c->stripe_seq)) {
				stripe_fail(peer, "a chunk of a frame already complete");
				return 1;
			}
			/* a frame the main connection has not begun: later */
			l->parked = 1;
			tcp_conn_set_events(l, slot_events(l, &st->slot[l->slot]));
			return got;
		}
		if (!l->ch_done && (l->ch.len == 0 || l->ch.off < c->rx_len ||
				    l->ch.off > c->stripe_len || l->ch.len > c->stripe_len - l->ch.off ||
				    l->ch.len > c->stripe_left)) {
			stripe_fail(peer, "a chunk outside its frame");
			return 1;
		}
		off = l->ch.off + l->ch_done;
		want = l->ch.len - l->ch_done;
		if (off < c->stripe_cap) {
			dst = (char *)c->rx.buf + off;
			if (want > c->stripe_cap - off)
				want = c->stripe_cap - off;
		} else {
			dst = l->rbuf;    /* past MTMI's buffer: read and dropped */
			if (want > tcp_rbuf_size)
				want = tcp_rbuf_size;
		}
		n = read(l->fd, dst, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return got;
		if (n <= 0) {
			if (tcp_stream_lost(l, n == 0 ? 0 : errno))
				return 1;
			tcp_peer_fail(peer, michi_err(MICHI_ERR_PEER,
				"rank %d lost its rail connection %d to rank %d at %s: %s", tcp.rank,
				l->slot, peer, l->name, n == 0 ? "closed by the peer" : strerror(errno)));
			return 1;
		}
		got = 1;
		l->nread += (uint64_t)n;
		l->ch_done += (uint64_t)n;
		c->stripe_left -= (uint64_t)n;
		if (l->ch_done == l->ch.len) {
			double now;

			l->ch_got = 0;
			l->ch_done = 0;
			if (l->ch_last)
				st->fr_end[st->slot[l->slot].rail] = michi_wtime();
			if (!c->stripe_left)
				stripe_done(c);
			/* the upcall may have failed or finished the peer */
			if (p->stripe != st || l->state != TCP_CONN_UP || p->conn != c)
				return 1;
			now = michi_wtime();
			if (now >= st->report_at) {
				if (st->report_at > 0)
					stripe_report_send(p, st);
				else
					stripe_marks(st);
				st->report_at = now + tcp_rail_interval;
				if (p->stripe != st || l->state != TCP_CONN_UP || p->conn != c)
					return 1;
			}
		} else if ((uint64_t)n < want) {
			return got;
		}
	}
	return got;
}

/* The main connection c waits for chunks: read every rail connection. */
int tcp_stripe_recv_all(struct tcp_conn *c)
{
	struct tcp_peer *p = tcp_peer_of(c->peer);
	struct tcp_stripe *st = p->stripe;
	int k, got = 0;

	for (k = 1; st && k <= st->nslots && (c->special & TCP_RX_STRIPE); k++) {
		struct tcp_conn *l = st->slot[k].conn;

		if (l && !l->parked)
			got |= tcp_stripe_recv(l);
		if (p->stripe != st || p->conn != c)
			break;
	}
	return got;
}

/* ---- MPI_T ------------------------------------------------------------ */

/* What tcp_mpit.c's per-rail variables read: arg = TCP_PV_* * 16 + rail. */
uint64_t tcp_stripe_pvar(int arg)
{
	int k = arg % 16, what = arg / 16, n = 0;
	const struct tcp_stripe *st;
	double sum = 0;

	if (k >= TCP_RAILS_MAX)
		return 0;
	if (what == TCP_PV_BYTES)
		return rail_bytes[k];
	if (what == TCP_PV_FAILOVERS) {
		uint64_t f = 0;

		for (st = tcp.inited ? tcp.striped : NULL; st; st = st->next)
			if (k < st->nrails)
				f += tcp_stream_failovers(&tcp.peers[st->peer], k);
		return f;
	}
	for (st = tcp.inited ? tcp.striped : NULL; st; st = st->next) {
		const struct tcp_peer *p = &tcp.peers[st->peer];
		int j, live = k == st->main_rail && conn_home(p->conn);

		if (k >= st->nrails || p->stripe_off)
			continue;
		for (j = 1; j <= st->nslots; j++)
			live |= st->slot[j].rail == k && conn_home(st->slot[j].conn);
		if (what == TCP_PV_LIVE) {
			n += live;
		} else {
			sum += st->share[k];
			n++;
		}
	}
	if (what == TCP_PV_LIVE)
		return (uint64_t)n;
	return n ? (uint64_t)(sum / n * 1000 + 0.5) : 0;
}

/* ---- reports ---------------------------------------------------------- */

/* The kernel's counts of c since the last look, into the rail's and the
 * link's totals. */
static void fold_conn(struct tcp_conn *c, struct tcp_stripe *st, int rail, unsigned *seen,
		      double now)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	uint64_t rx;

	if (!c || c->fd < 0 || c->state != TCP_CONN_UP)
		return;
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
	    len < offsetof(struct tcp_info, tcpi_bytes_sent) + sizeof(ti.tcpi_bytes_sent))
		return;
	if (!c->lidx_set) {
		struct sockaddr_in me;
		socklen_t ml = sizeof(me);

		c->lidx = getsockname(c->fd, (struct sockaddr *)&me, &ml) == 0 ?
			  local_index(me.sin_addr) : -1;
		c->lidx_set = 1;
	}
	rx = ti.tcpi_bytes_received - c->info_rx;
	c->info_rx = ti.tcpi_bytes_received;
	if (st && rail >= 0)
		st->rx[rail] += rx;
	all_rx += rx;
	if (rx)
		c->rx_at = now;
	if (c->lidx >= 0) {
		link_rx[c->lidx] += rx;
		/* a user of the link: bytes came on it lately (three intervals,
		 * so that one short gap between two looks does not count) */
		if (c->rx_at > 0 && now - c->rx_at <= 3 * tcp_rail_interval)
			*seen |= 1u << c->lidx;
	}
}

/* Returns the links peer i used lately (bits of card addresses). */
static unsigned fold_peer(int i, double now)
{
	struct tcp_peer *p = &tcp.peers[i];
	struct tcp_stripe *st = p->stripe;
	unsigned seen = 0;
	int k;

	fold_conn(p->conn, st, st ? st->main_rail : -1, &seen, now);
	for (k = 1; st && k <= st->nslots; k++)
		fold_conn(st->slot[k].conn, st, st->slot[k].rail, &seen, now);
	return seen;
}

/* Every peer's counts; link_users: the peers that used each link lately. */
static void fold_all(void)
{
	double now = michi_wtime();
	int i, l;

	memset(link_users, 0, sizeof(link_users));
	for (i = 0; i < tcp.size; i++) {
		unsigned seen;

		if (i == tcp.rank || !tcp.peers[i].conn)
			continue;
		seen = fold_peer(i, now);
		for (l = 0; l < TCP_MAX_ADDRS; l++)
			link_users[l] += (seen >> l) & 1u;
	}
}

/* Start counting from now, both ways (a new stripe state). */
static void stripe_marks(struct tcp_stripe *st)
{
	int k;

	fold_all();
	st->all_mark = all_rx;
	for (k = 0; k < st->nrails; k++) {
		st->rx_mark[k] = st->rx[k];
		st->link_mark[k] = st->rail[k].lidx >= 0 ? link_rx[st->rail[k].lidx] : 0;
	}
}

/* Tell p what its rails delivered since the last report. */
static void stripe_report_send(struct tcp_peer *p, struct tcp_stripe *st)
{
	struct {
		uint64_t hdr[MICHI_FRAME_HDR_SIZE / 8];
		struct tcp_report_rail r[TCP_RAILS_MAX];
	} *f;
	struct iovec iov[2];
	double now, span_open;
	int k;

	if (p->state != TCP_PEER_UP || !p->conn || tcp.finalizing)
		return;
	f = calloc(1, sizeof(*f));
	if (!f)
		return;
	fold_all();
	now = michi_wtime();
	span_open = st->fr_open && now > st->fr_from ? now - st->fr_from : 0;
	f->hdr[0] = TCP_REPORT_LEN;
	f->hdr[1] = (uint64_t)st->nrails;
	f->hdr[2] = all_rx - st->all_mark;
	st->all_mark = all_rx;
	for (k = 0; k < st->nrails; k++) {
		int li = st->rail[k].lidx;

		f->r[k].arrive = st->rx[k] - st->rx_mark[k];
		st->rx_mark[k] = st->rx[k];
		/* a frame still open counts up to now: rails whose part has not
		 * ended are busy (so is a rail with no part in it: a guess
		 * that errs towards giving it little) */
		if (st->fr_open) {
			double e = st->fr_end[k] > 0 ? st->fr_end[k] : now;

			if (e > st->fr_from)
				st->busy[k] += e - st->fr_from;
		}
		f->r[k].busy = st->span + span_open > 0 ?
			       (uint64_t)(st->busy[k] / (st->span + span_open) * 1e6 + 0.5) : 0;
		st->busy[k] = 0;
		if (li >= 0) {
			f->r[k].path_total = link_rx[li] - st->link_mark[k];
			st->link_mark[k] = link_rx[li];
			f->r[k].users = link_users[li] ? link_users[li] : 1;
		} else {
			f->r[k].path_total = f->r[k].arrive;
			f->r[k].users = 1;
		}
	}
	st->span = 0;
	if (st->fr_open)
		st->fr_from = now;
	iov[0].iov_base = f->hdr;
	iov[0].iov_len = MICHI_FRAME_HDR_SIZE;
	iov[1].iov_base = f->r;
	iov[1].iov_len = (size_t)st->nrails * sizeof(f->r[0]);
	if (tcp_send_queue(p, iov, 2, 0, NULL, 1) != MICHI_INPROGRESS) {
		free(f);
		return;
	}
	p->sq_tail->owned = f;
	tcp_send_flush(p);
}

/* The rails' shares from the rule, a report (rep, sent: NULL before the
 * first) and the smoothing. */
static void stripe_weigh(struct tcp_stripe *st, const struct tcp_rail_report *rep,
			 const uint64_t *sent)
{
	double raw[TCP_RAILS_MAX], rate[TCP_RAILS_MAX];
	int live[TCP_RAILS_MAX], k, j;

	for (k = 0; k < st->nrails; k++) {
		const struct tcp_conn *m = tcp.peers[st->peer].conn;

		rate[k] = st->rail[k].rate;
		live[k] = k == st->main_rail && (!m || !m->sm || conn_home(m));
		/* a rail whose connections are up or may still come, and
		 * are not lost or moved off it */
		for (j = 1; j <= st->nslots; j++)
			live[k] |= st->slot[j].rail == k && !st->slot[j].off &&
				   (!st->slot[j].conn || conn_home(st->slot[j].conn));
	}
	/* the rates are the static rule's: feedback measures its own */
	tcp_weights_raw(stripe_rule(), st->nrails, live, rep, sent,
			stripe_rule() == TCP_WEIGHTS_STATIC ? rate : NULL, raw);
	tcp_weights_smooth(st->nrails, live, raw, rep ? tcp_rail_beta : 1, tcp_rail_floor,
			   st->share);
	st->stale = 1;
}

/* A report came in on the main connection c (c->hdr, c->report). */
void tcp_stripe_report_in(struct tcp_conn *c)
{
	struct tcp_peer *p = tcp_peer_of(c->peer);
	struct tcp_stripe *st = p->stripe;
	struct tcp_rail_report rep[TCP_RAILS_MAX];
	uint64_t sent[TCP_RAILS_MAX];
	double d = tcp_rail_memory >= 0 && tcp_rail_memory < 1 ? tcp_rail_memory : 0;
	int k;

	if (!st || c->hdr[1] != (uint64_t)st->nrails)
		return;   /* a report on rails we do not have: stale, ignored */
	/* one interval's counts are noisy (what was in flight at its ends:
	 * a 100 ms interval at 100 Mb/s holds 1.25 MB, a window some hundred
	 * kB): the rule sees decayed sums over several */
	st->acc_total = st->acc_total * d + (double)c->hdr[2];
	for (k = 0; k < st->nrails; k++) {
		double R = (double)c->report[k].arrive;
		/* b_k: the part of the frames' time rail k carried their bytes
		 * (none in the interval: as it was) */
		double b = c->report[k].busy && c->report[k].busy <= 1000000 ?
			   c->report[k].busy / 1e6 :
			   st->acc_arrive[k] > 0 ? st->acc_busy[k] / st->acc_arrive[k] : 1.0;

		st->acc_arrive[k] = st->acc_arrive[k] * d + R;
		st->acc_busy[k] = st->acc_busy[k] * d + R * b;
		st->acc_path[k] = st->acc_path[k] * d + (double)c->report[k].path_total;
		rep[k].arrive = (uint64_t)(st->acc_arrive[k] + 0.5);
		rep[k].path_total = (uint64_t)(st->acc_path[k] + 0.5);
		rep[k].arrive_total = (uint64_t)(st->acc_total + 0.5);
		rep[k].users = (uint32_t)c->report[k].users;
		rep[k].busy = st->acc_arrive[k] > 0 ?
			      (uint32_t)(st->acc_busy[k] / st->acc_arrive[k] * 1e6 + 0.5) : 0;
		/* A_k = R_k / S_k is the paper's sign of loss at a switch; TCP
		 * sends lost bytes again, and their cost shows in R_k / b_k,
		 * while the kernel's S_k (tcpi_bytes_sent) against R_k differed
		 * by 40 % on one rail of the multirail grid: S_k is taken as R_k */
		sent[k] = rep[k].arrive;
	}
	stripe_weigh(st, rep, sent);
	st->reports_in++;
	for (k = 0; k < st->nrails; k++)
		michi_debug("tcp: rank %d to rank %d: report %u, rail %d: R %llu of %llu, b %.3f, "
			    "share %.3f", tcp.rank, c->peer, st->reports_in, k,
			    (unsigned long long)rep[k].arrive, (unsigned long long)rep[k].path_total,
			    rep[k].busy / 1e6, st->share[k]);
}

/* ---- for failover (tcp_resume.c) --------------------------------------- */

/* p's main connection c is up: with more than one rail it becomes a
 * resilient stream (hs: the handshake bytes read on it). Both ends pair
 * the rails alike, so both make it so. */
void tcp_stripe_resilient(struct tcp_peer *p, size_t hs)
{
	int peer = (int)(p - tcp.peers);
	struct tcp_stripe *st;

	if (!tcp_rail_failover || p->dyn || tcp_mptcp || tcp.all_local || tcp.nlocal < 2 ||
	    (tcp.job->host_of && tcp.job->host_of[peer] == tcp.job->host_of[tcp.rank]))
		return;
	/* two addresses on each side at least, or one rail is all there is */
	if (!p->naddr && tcp_peer_card(peer) < 0)
		return;
	if (p->naddr < 2 || p->no_failover)
		return;
	st = tcp_stripe_get(peer);
	if (st && st->nrails > 1)
		tcp_stream_make(p->conn, st->main_rail, hs);
}

/* A connection of p was lost, resumed or moved: parts again. */
void tcp_stripe_changed(struct tcp_peer *p)
{
	struct tcp_stripe *st = p->stripe;

	if (!st)
		return;
	/* the reports so far describe rails that are not there now:
	 * start the rule afresh from its first shares */
	memset(st->acc_arrive, 0, sizeof(st->acc_arrive));
	memset(st->acc_path, 0, sizeof(st->acc_path));
	memset(st->acc_busy, 0, sizeof(st->acc_busy));
	st->acc_total = 0;
	stripe_weigh(st, NULL, NULL);
}

/* The rail of p whose local end is `local` (-1: none). */
int tcp_stripe_rail_of(struct tcp_peer *p, struct in_addr local)
{
	int k;

	for (k = 0; p->stripe && k < p->stripe->nrails; k++)
		if (p->stripe->rail[k].local.s_addr == local.s_addr)
			return k;
	return p->stripe ? p->stripe->main_rail : -1;
}

/* Where to connect to p on rail r: its address there, and ours when the
 * rail has one (*bound). */
int tcp_stripe_rail_addr(struct tcp_peer *p, int r, struct sockaddr_in *to,
			 struct in_addr *from, int *bound)
{
	if (!p->stripe || r < 0 || r >= p->stripe->nrails)
		return -1;
	*to = p->stripe->rail[r].peer;
	*from = p->stripe->rail[r].local;
	*bound = from->s_addr != htonl(INADDR_ANY);
	return 0;
}

int tcp_stripe_nrails(const struct tcp_peer *p)
{
	return p->stripe ? p->stripe->nrails : 1;
}

int tcp_stripe_nslots(const struct tcp_peer *p)
{
	return p->stripe ? p->stripe->nslots : 0;
}

struct tcp_stripe *tcp_stripe_next(const struct tcp_stripe *st)
{
	return st->next;
}

int tcp_stripe_peer(const struct tcp_stripe *st)
{
	return st->peer;
}

/* Rail connection k is idle: a heartbeat on it (a chunk header of stripe
 * 0 and no bytes), so that a cut rail shows as bytes its peer's kernel
 * does not acknowledge (tcp_resume.c) before a frame needs the rail. */
void tcp_stripe_heartbeat(struct tcp_peer *p, int k)
{
	struct tcp_slot *sl = &p->stripe->slot[k];

	if (sl->head || !sl->conn || sl->conn->state != TCP_CONN_UP)
		return;
	memset(&sl->hb, 0, sizeof(sl->hb));
	sl->hb.hleft = sizeof(sl->hb.h);
	sl->head = sl->tail = &sl->hb;
	tcp.nqueued++;
	tcp_stripe_flush(p, k);
}

/* Rail connection k's peer is in finalize: the slot goes, quietly. */
void tcp_stripe_drop_slot(struct tcp_peer *p, int k)
{
	struct tcp_slot *sl = &p->stripe->slot[k];

	if (sl->conn)
		tcp_conn_close(sl->conn);
	slot_forget(sl);
	sl->conn = NULL;
	sl->off = 1;
	p->stripe->stale = 1;
}

double tcp_rail_interval_get(void)
{
	return tcp_rail_interval;
}
