/* SPDX-License-Identifier: MIT */
/*
 * test/fuzz/fuzz_tcp.c: libFuzzer harness over what the tcp device makes
 * of bytes from the network. The first byte picks the target:
 *  - even: the acceptor's hello check (tcp_hello_check in tcp.h) on every
 *    prefix of the input, against a fixed job key;
 *  - odd: the frame decoder (devices/tcp/tcp_recv.c, compiled in) on a
 *    connection that is up: the input goes into a socketpair, and
 *    tcp_recv_event() reads and cuts it into frames as in a job, with a
 *    receive buffer of 4 to 8 KiB (so headers and payloads straddle
 *    reads) and MTMI stubs that give each frame a buffer of a size taken
 *    from its header (smaller, equal, larger than the payload, or none).
 * Built and run by test/fuzz/run.
 */
#include "config.h"
#include "tcp.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- what tcp_recv.c needs from the rest of the device and MTMI ------- */

struct tcp_state tcp;
int tcp_direct_poll = 4;
static int fz_failed;
static char fz_buf[1 << 16];

void tcp_peer_fail(int peer, michi_status_t st)
{
	struct tcp_peer *p = &tcp.peers[peer];

	(void)st;
	fz_failed = 1;
	if (p->conn)
		p->conn->state = TCP_CONN_CLOSED;
	p->state = TCP_PEER_FAILED;
}

void tcp_peer_lost(struct tcp_conn *c, int err)
{
	(void)err;
	fz_failed = 1;
	c->state = TCP_CONN_CLOSED;
}

/* rails: the stripe state is a flag here (on some inputs); a striped
 * frame's chunks never come, so the decoder stops at its first one */
static int fz_rails;

int tcp_stripe_begin(struct tcp_conn *c, uint64_t seq, uint64_t tail)
{
	(void)seq;
	if (!fz_rails || tail == 0 || tail > c->rx_len) {
		tcp_peer_fail(c->peer, MICHI_ERR_PEER);
		return 0;
	}
	c->stripe_left = tail;
	c->stripe_len = c->rx_len;
	c->stripe_cap = c->rx_ulen;
	c->rx_len -= tail;
	if (c->rx_ulen > c->rx_len)
		c->rx_ulen = c->rx_len;
	c->special |= TCP_RX_STRIPE | TCP_RX_PART;
	return 1;
}

void tcp_stripe_part_done(struct tcp_conn *c)
{
	(void)c;
}

int tcp_stripe_recv(struct tcp_conn *l)
{
	(void)l;
	return 0;
}

int tcp_stripe_recv_all(struct tcp_conn *c)
{
	(void)c;
	return 0;
}

void tcp_stream_ack_in(struct tcp_conn *c)
{
	/* the decoder must have refused an ack on too many streams */
	if (c->hdr[1] > TCP_SLOTS_MAX + 1)
		abort();
}

void tcp_stripe_report_in(struct tcp_conn *c)
{
	/* the decoder must have refused a report on too many rails */
	if (c->hdr[1] > TCP_RAILS_MAX)
		abort();
}

static void fz_recv_hdr(int peer, const void *hdr, struct michi_rx *rx)
{
	uint64_t h[MICHI_FRAME_HDR_SIZE / 8];

	(void)peer;
	memcpy(h, hdr, sizeof(h));
	switch (h[1] & 3) {
	case 0:
		rx->buf = NULL;   /* discard */
		break;
	default:
		rx->buf = fz_buf;
		rx->cap = (size_t)(h[1] >> 2) % sizeof(fz_buf);
	}
}

static void fz_recv_done(int peer, struct michi_rx *rx)
{
	(void)peer;
	/* the payload must lie within the buffer given */
	if (rx->buf && rx->cap > sizeof(fz_buf))
		abort();
}

/* ---- the harness ------------------------------------------------------ */

static const uint8_t fz_key[16] = "0123456789abcdef";

static void fz_hello(const uint8_t *data, size_t size)
{
	struct tcp_hello h;
	char why[96];
	size_t n;

	for (n = 0; n <= size && n <= 2 * sizeof(h); n++) {
		int v = tcp_hello_check(data, n, fz_key, 1, 4, &h, why, sizeof(why));

		if (v == TCP_REPLY_OK && (h.rank < 0 || h.rank >= 4 || h.rank == 1))
			abort();
		if (v < 0 && n >= sizeof(h))
			abort();   /* a whole hello must be judged */
	}
}

static void fz_frames(const uint8_t *data, size_t size)
{
	static struct tcp_peer peers[2];
	struct tcp_conn c;
	int sv[2], i;

	if (size > 200000 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return;
	memset(peers, 0, sizeof(peers));
	memset(&c, 0, sizeof(c));
	tcp.peers = peers;
	tcp.up.recv_hdr = fz_recv_hdr;
	tcp.up.recv_done = fz_recv_done;
	tcp.size = 2;
	tcp.rank = 0;
	tcp_rbuf_size = 4096 + (size ? data[0] : 0) * 16;
	c.rbuf = malloc(tcp_rbuf_size);
	c.fd = sv[0];
	c.state = TCP_CONN_UP;
	c.peer = 1;
	peers[1].conn = &c;
	peers[1].state = TCP_PEER_UP;
	/* rails to stripe frames over, on some inputs */
	fz_rails = size > 1 && data[1] & 1;
	fz_failed = 0;
	if (write(sv[1], data, size) != (ssize_t)size) {
		close(sv[0]);
		close(sv[1]);
		free(c.rbuf);
		return;
	}
	close(sv[1]);
	for (i = 0; i < 100000 && c.state == TCP_CONN_UP && !fz_failed && !c.wait_stripe; i++)
		tcp_recv_event(&c);
	close(sv[0]);
	free(c.rbuf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		fz_frames(data + 1, size - 1);
	else
		fz_hello(data + 1, size - 1);
	return 0;
}
