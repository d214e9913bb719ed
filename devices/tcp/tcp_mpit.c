/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_mpit.c: the tcp device's MPI_T variables (util/tvars.h)
 * and the tunables it reads again at every use.
 *
 * Bytes sent: the kernel's count on each connection (TCP_INFO
 * tcpi_bytes_sent, Linux 4.19), main and rail connections, folded into a
 * total at every read and at MPI_Finalize's snapshot, before the
 * connections close; no counter on a send path.
 */
#include "config.h"
#include "tcp.h"
#include "tvars.h"

#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/tcp.h>   /* struct tcp_info with tcpi_bytes_sent */

/* What a connection's count said at the last fold. */
struct tcp_mark {
	const void *conn;     /* connection the mark belongs to */
	int fd;
	uint64_t sent;
};

static uint64_t bytes;           /* since MPI_Init */
#define MARKS (TCP_SLOTS_MAX + 1)   /* a peer: main and rail connections */
static struct tcp_mark *marks;
static int nmarks_peers;

/* Bytes the kernel sent on c since the last fold (0 when unknown). */
static uint64_t conn_sent(const struct tcp_conn *c, struct tcp_mark *mark)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	uint64_t v, d;

	if (!c || c->fd < 0 || c->state != TCP_CONN_UP)
		return 0;
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
	    len < offsetof(struct tcp_info, tcpi_bytes_sent) + sizeof(ti.tcpi_bytes_sent))
		return 0;
	v = ti.tcpi_bytes_sent;
	/* another connection than last time (one opened again): it
	 * counts from its own start */
	if (mark->conn != c || mark->fd != c->fd || v < mark->sent) {
		mark->conn = c;
		mark->fd = c->fd;
		mark->sent = 0;
	}
	d = v - mark->sent;
	mark->sent = v;
	return d;
}

/* Only while the device is up; peers of other jobs (spawn, connect)
 * count from the first fold after they were added. */
static void fold(void)
{
	int p;

	if (!tcp.inited || !tcp.peers || tcp.size <= 0)
		return;
	if (tcp.size > nmarks_peers) {
		struct tcp_mark *m = realloc(marks, MARKS * (size_t)tcp.size * sizeof(*m));

		if (!m)
			return;
		memset(m + MARKS * nmarks_peers, 0,
		       MARKS * (size_t)(tcp.size - nmarks_peers) * sizeof(*m));
		marks = m;
		nmarks_peers = tcp.size;
	}
	for (p = 0; p < tcp.size; p++) {
		int k;

		if (p == tcp.rank)
			continue;
		bytes += conn_sent(tcp.peers[p].conn, &marks[MARKS * p]);
		for (k = 1; k <= TCP_SLOTS_MAX; k++)
			bytes += conn_sent(tcp_stripe_conn(&tcp.peers[p], k), &marks[MARKS * p + k]);
	}
}

static uint64_t read_bytes(int arg)
{
	(void)arg;
	fold();
	return bytes;
}

static void describe_bytes(char *buf, size_t len)
{
	snprintf(buf, len,
		 "bytes the kernel sent on this rank's tcp connections to other "
		 "ranks (TCP_INFO tcpi_bytes_sent, rail connections included): %d-byte frame "
		 "headers and payloads, retransmissions included; sampled when "
		 "read, so bytes of a connection that closed since the last read "
		 "are missed", MICHI_FRAME_HDR_SIZE);
}

#define RAIL_PVARS(k) \
	{ "tcp_rail" #k "_bytes", MICHI_TVAR_COUNTER, MICHI_TVAR_USER_DETAIL, tcp_stripe_pvar, \
	  TCP_PV_BYTES * 16 + k, "striped payload bytes this rank put on rail " #k " of its " \
	  "peer pairs (rails in each pair's order: the main connection's first when it pairs), " \
	  "since MPI_Init", NULL }, \
	{ "tcp_rail" #k "_share", MICHI_TVAR_LEVEL, MICHI_TVAR_TUNER_DETAIL, tcp_stripe_pvar, \
	  TCP_PV_SHARE * 16 + k, "the share of striped bytes rail " #k " gets now, in " \
	  "thousandths, the mean over this rank's peer pairs with such a rail", NULL }, \
	{ "tcp_rail" #k "_live", MICHI_TVAR_LEVEL, MICHI_TVAR_TUNER_DETAIL, tcp_stripe_pvar, \
	  TCP_PV_LIVE * 16 + k, "peers to which this rank's rail " #k " has a connection up", NULL }, \
	{ "tcp_rail" #k "_failovers", MICHI_TVAR_COUNTER, MICHI_TVAR_USER_DETAIL, tcp_stripe_pvar, \
	  TCP_PV_FAILOVERS * 16 + k, "times a connection of this rank's whose own rail is " #k \
	  " lost its socket (or moved back home) and went on over a new one, since its peer " \
	  "pair connected", NULL }

static const struct michi_tvar_pvar tcp_pvars[] = {
	{ "tcp_bytes_sent", MICHI_TVAR_COUNTER, MICHI_TVAR_USER_DETAIL, read_bytes, 0,
	  NULL, describe_bytes },
	RAIL_PVARS(0), RAIL_PVARS(1), RAIL_PVARS(2), RAIL_PVARS(3),
};

/* read whenever the device uses them, so an MPI_T write takes effect at
 * any time */
static const char *const tcp_live[] = {
	"tcp_finalize_timeout",
	"tcp_connect_timeout",
	"tcp_handshake_timeout",
	"tcp_direct_poll",
	NULL,
};

MICHI_TVARS(tcp, "tcp", "the tcp device, between hosts (or all ranks with device=tcp)",
	    tcp_pvars, MICHI_TVARS_N(tcp_pvars), fold, tcp_live);
