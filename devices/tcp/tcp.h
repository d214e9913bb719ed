/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp.h: private state of the tcp byte device.
 *
 * One listening socket and one epoll set per process. Each world rank
 * has a struct tcp_peer (its send queue, connect state, the connection in
 * use); each socket has a struct tcp_conn (handshake and receive state).
 * A peer owns at most one connection that carries frames; during a
 * simultaneous connect a second one may exist for a moment until the
 * handshake settles which one wins (tcp_conn.c).
 *
 * Wire format after the handshake: frames of a 48-byte header (first 8
 * bytes: payload length, host order) and the payload. A header whose
 * length is TCP_GOODBYE_LEN is the device's own goodbye: the sender is in
 * finalize and its EOF that follows is orderly, not a failure.
 *
 * Rails (tcp_stripe.c): a peer pair's rails are the networks both hosts
 * are on (tcp_rail.h pairs their addresses). For large frames the pair
 * opens rail connections (hello with slot = k >= 1): one on each rail the
 * main connection is not on, and more where a rail holds several sockets.
 * A large frame is striped: a TCP_SPLIT_LEN notice, the header and a
 * first part of the payload go on the main connection, the rest as
 * chunks (struct tcp_chunk_hdr and bytes) on the rail connections, each
 * chunk naming the frame's stripe number and its place in the payload.
 * Frame order and matching stay with the main connection: it parses no
 * further frame until every chunk of a striped one is in. The receiver
 * reports what each rail delivered (TCP_REPORT_LEN frames), from which the
 * sender weighs the rails (tcp_rail.h's rules).
 *
 * Failover (tcp_resume.c): with more than one rail, every connection of
 * the pair is a resilient stream (struct tcp_stream): what it sent is
 * kept until TCP_ACK_LEN frames say the peer read it, and a lost socket
 * is replaced by a new one on another rail (a hello with `resume`), the
 * stream going on from what each end has read.
 */
#ifndef MICHI_TCP_H
#define MICHI_TCP_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "device.h"
#include "michi.h"
#include "tcp_fast.h"
#include "tcp_rail.h"

#define TCP_MAX_ADDRS   8
#define TCP_GOODBYE_LEN UINT64_MAX
/* A device frame: hdr[1] bytes of the next frame's payload come as chunks
 * on the peer's rail connections, with stripe number hdr[2]. */
#define TCP_SPLIT_LEN   (UINT64_MAX - 1)
/* A device frame: the receiver's report on the rails, hdr[1] of struct
 * tcp_report_rail in the payload, hdr[2] R_j (tcp_rail.h). */
#define TCP_REPORT_LEN  (UINT64_MAX - 2)
/* A device frame: how much of each of the pair's resilient streams the
 * sender has read, hdr[1] uint64_t counts in the payload, the main
 * stream's first, then rail connection 1.. (tcp_resume.c). */
#define TCP_ACK_LEN     (UINT64_MAX - 3)
#define TCP_SLOTS_MAX   7    /* rail connections a peer pair, main not counted */
#define TCP_HELLO_MAGIC "MICHI"
#define TCP_VERSION     3
#define TCP_BOM         0x01020304u
#define TCP_SENDQ_IOV   64   /* iovecs gathered per sendmsg when flushing */
#define TCP_DIRECT_MAX  16   /* cap of the tcp_direct_poll tunable */

/* First bytes on every new connection, connector to acceptor. */
struct tcp_hello {
	char magic[6];        /* "MICHI\0" */
	uint16_t version;
	uint32_t bom;         /* TCP_BOM in the sender's byte order */
	uint8_t key[16];      /* the job key */
	int32_t rank;         /* connector's world rank */
	uint32_t slot;        /* 0: main connection; k: rail connection k of the pair */
	uint32_t resume;      /* n > 0: a new socket for that stream, the
			       * connector's n-th try (tcp_resume.c) */
	uint64_t read;        /* resume: the stream bytes the connector has read */
};

/* Before each chunk on a rail connection. A header of stripe number 0
 * and length 0 is a heartbeat (tcp_resume.c), and nothing follows it. */
struct tcp_chunk_hdr {
	uint64_t seq;         /* the frame's stripe number (from 1) */
	uint64_t off, len;    /* its place in the frame's payload; len's top bit
			       * (TCP_CHUNK_LAST): the connection's last of the frame */
};
#define TCP_CHUNK_LAST (UINT64_C(1) << 63)

/* A report's entry for one rail (tcp_rail.h's struct tcp_rail_report). */
struct tcp_report_rail {
	uint64_t arrive, path_total, users;
	uint64_t busy;        /* millionths of the striped frames' time that the
			       * rail carried their bytes (0: no frame ended) */
};

enum tcp_reply_status {
	TCP_REPLY_OK = 0,
	TCP_REPLY_DUPLICATE = 1,  /* lost a simultaneous connect: not an error */
	TCP_REPLY_BADKEY = 2,
	TCP_REPLY_BADRANK = 3,
	TCP_REPLY_GONE = 4,       /* acceptor is finalizing or failed us */
	TCP_REPLY_NORAIL = 5,     /* no such rail connection: not an error */
};

/*
 * Judge the first len bytes a stranger sent on an accepted socket (untrusted,
 * any length): -1 while they are a prefix of a hello that may still be
 * valid; TCP_REPLY_OK with *h filled when they hold a hello of this job
 * (key) from a rank other than self of size; else the status to reject
 * with (TCP_REPLY_BADKEY or TCP_REPLY_BADRANK) and a reason in why. Pure:
 * the fuzz harness (test/fuzz/) calls it on raw bytes.
 */
static inline int tcp_hello_check(const void *buf, size_t len, const uint8_t key[16],
				  int self, int size, struct tcp_hello *h, char *why, size_t wl)
{
	struct tcp_hello in;

	if (memcmp(buf, TCP_HELLO_MAGIC, len < sizeof(in.magic) ? len : sizeof(in.magic)) != 0) {
		snprintf(why, wl, "not a michi handshake (bad magic)");
		return TCP_REPLY_BADKEY;
	}
	/* another version's hello may have another length: judge it by
	 * its version field as soon as that is in */
	if (len >= offsetof(struct tcp_hello, bom)) {
		uint16_t v;

		memcpy(&v, (const char *)buf + offsetof(struct tcp_hello, version), sizeof(v));
		if (v != TCP_VERSION) {
			snprintf(why, wl, "version %u differs from ours (%u)", v, TCP_VERSION);
			return TCP_REPLY_BADKEY;
		}
	}
	if (len < sizeof(in))
		return -1;
	memcpy(&in, buf, sizeof(in));
	if (in.version != TCP_VERSION || in.bom != TCP_BOM) {
		snprintf(why, wl, "version %u or byte order %#x differs from ours (%u, %#x)",
			 in.version, in.bom, TCP_VERSION, TCP_BOM);
		return TCP_REPLY_BADKEY;
	}
	if (memcmp(in.key, key, sizeof(in.key)) != 0) {
		snprintf(why, wl, "job key differs (a process of another job?)");
		return TCP_REPLY_BADKEY;
	}
	if (in.rank < 0 || in.rank >= size || in.rank == self) {
		snprintf(why, wl, "claims rank %d in a world of %d", in.rank, size);
		return TCP_REPLY_BADRANK;
	}
	*h = in;
	return TCP_REPLY_OK;
}

/* Acceptor's answer. */
struct tcp_reply {
	char magic[6];
	uint16_t version;
	int32_t status;       /* enum tcp_reply_status */
	int32_t rank;         /* acceptor's world rank */
	uint32_t pad;
	uint64_t read;        /* resume: the stream bytes the acceptor has read */
};

enum tcp_conn_state {
	TCP_CONN_CONNECTING,  /* nonblocking connect in flight */
	TCP_CONN_WAIT_REPLY,  /* hello sent, waiting for the acceptor */
	TCP_CONN_WAIT_HELLO,  /* accepted, waiting for the connector's hello */
	TCP_CONN_UP,          /* carries frames */
	TCP_CONN_CLOSED,      /* on the dead list, freed at the end of progress */
	TCP_CONN_LISTEN,
	TCP_CONN_DOWN,        /* a resilient stream whose socket was lost: no fd */
};

/* A resilient stream's state (tcp_resume.c): stream offsets count the
 * bytes after the handshake, over every socket it had. */
struct tcp_stream {
	char *buf;            /* ring: stream bytes [acked, tx) */
	size_t cap;
	uint64_t base;        /* the stream offset at buf[0] */
	uint64_t tx;          /* bytes written */
	uint64_t acked;       /* bytes the peer has read (its acks) */
	uint64_t replay;      /* next byte to write again after a resume */
	uint64_t rx_base;     /* bytes read on earlier sockets */
	uint64_t told;        /* the count of ours the peer last heard */
	size_t hs;            /* handshake bytes read on this socket (in its nread) */
	int rail, home;       /* the rail of its socket now, and its own */
	int down, tries, noring;
	int old_fd;           /* a move's old socket, closed when the new one is taken */
	double down_since, retry_at, backoff, move_at, ack_at;
	uint64_t hb_tx;       /* tx when the tick last looked: unchanged, the stream is idle */
	double hb_at;         /* when an idle stream sends its heartbeat */
	unsigned failovers;
	uint32_t attempt;     /* our last resume connection's number (its hello's) */
	uint32_t peer_attempt;   /* the peer's last one we took: older ones are stale */
	double reach_at;      /* when a resume connection of ours last connected */
	struct tcp_conn *out; /* our connection to resume it, in flight */
};

struct tcp_conn {
	int fd;
	int state;
	int peer;             /* world rank; -1 until the hello names it */
	int outgoing;
	int abandoned;        /* our connect lost a simultaneous connect */
	int goodbye;          /* peer sent its goodbye: EOF is orderly */
	int eof;
	int direct;           /* in tcp.direct[]: polled by reading, not by epoll */
	int slot;             /* 0: main connection; k: the pair's rail connection k */
	int resume;           /* a connection that resumes stream `slot` */
	struct tcp_stream *sm;   /* resilient: a peer pair with rails (tcp_resume.c) */
	int special;          /* main: TCP_RX_* of the frame in progress */
	int wait_stripe;      /* main: its part of a striped frame is in, chunks are not */
	uint32_t events;      /* epoll mask now registered */
	double deadline;      /* handshake/connect deadline */
	char name[64];        /* remote "a.b.c.d:port", for messages */
	uint64_t nread;       /* bytes read from its socket, the handshake's included */

	/* receive state: rbuf[rpos, rlen) is unparsed */
	char *rbuf;
	size_t rpos, rlen;
	int rx_active;        /* a payload is being received */
	uint64_t rx_len, rx_got, rx_ulen;  /* ulen = min(len, cap) */
	struct michi_rx rx;
	uint64_t hdr[MICHI_FRAME_HDR_SIZE / 8];
	uint64_t split_next, split_seq;  /* main: the next frame's bytes on rails, stripe number */
	/* main: the striped frame in progress: its number, bytes still to
	 * come on the rails, its whole length and what of it MTMI keeps */
	uint64_t stripe_seq, stripe_left, stripe_len, stripe_cap;
	/* rail connection: the chunk being read */
	struct tcp_chunk_hdr ch;
	size_t ch_got;        /* header bytes read */
	uint64_t ch_done;     /* payload bytes read */
	int parked;           /* its next chunk is of a frame not begun: EPOLLIN off */
	int ch_last;          /* the chunk is its connection's last of the frame */
	/* main: a report being received */
	struct tcp_report_rail report[TCP_RAILS_MAX];
	uint64_t acks[TCP_SLOTS_MAX + 1];   /* main: an ack frame being received */
	/* the kernel's byte counts at the last look (tcp_stripe.c), and
	 * which card address is its local end (-1: none) */
	uint64_t info_rx;
	double rx_at;         /* when a look last found bytes read */
	int lidx_set, lidx;

	struct tcp_conn *timed_next, *timed_prev;  /* conns with a deadline */
	struct tcp_conn *dead_next;
};

/* main: TCP_RX_STRIPE while chunks are to come, TCP_RX_PART while the
 * main connection's own part of a striped frame is (tcp_stripe.c times
 * both), TCP_RX_REPORT while a report's payload is */
enum { TCP_RX_STRIPE = 1, TCP_RX_REPORT = 2, TCP_RX_PART = 4, TCP_RX_ACK = 8 };

struct tcp_split;

/* A chunk queued on a rail connection. */
struct tcp_chunk {
	struct tcp_chunk *next;
	struct tcp_split *split;
	struct tcp_chunk_hdr h;
	size_t hleft;         /* header bytes not written */
	const char *ptr;      /* payload not written */
	size_t left;
};

/* A striped frame: the caller's completion waits for every part. */
struct tcp_split {
	void *cookie;
	int parts;            /* parts not written yet, plus one while in send */
	michi_status_t st;
	uint64_t hdr[2][MICHI_FRAME_HDR_SIZE / 8];  /* split notice, frame header */
	struct tcp_chunk chunk[];
};

/* One queued frame; iov[cur..iovcnt) is what is left to write. */
struct tcp_sendq {
	struct tcp_sendq *next;
	void *cookie;
	struct tcp_split *split;  /* main part of a split frame, else NULL */
	int internal;         /* device's own frame or a copy: no send_done upcall */
	void *owned;          /* payload copy freed with the frame, or NULL */
	int cur, iovcnt;
	uint64_t hdr[MICHI_FRAME_HDR_SIZE / 8];
	struct iovec iov[];
};

enum tcp_peer_state {
	TCP_PEER_IDLE,        /* never connected */
	TCP_PEER_CONNECTING,
	TCP_PEER_UP,
	TCP_PEER_DONE,        /* said goodbye: orderly closed */
	TCP_PEER_FAILED,
};

struct tcp_peer {
	int state;                /* the fast path's socket is tcp_fast_fd[rank] */
	struct tcp_conn *conn;    /* the connection that carries frames */
	struct tcp_conn *out;     /* our connect attempt, until it settles */
	struct tcp_sendq *sq_head, *sq_tail;
	/* rails and rail connections (tcp_stripe.c), made at the first large frame */
	struct tcp_stripe *stripe;
	int no_failover;          /* its card says MICHI_TCP_RAIL_FAILOVER=no */
	int stripe_off;           /* none to this peer (another job's, or none could open) */
	michi_status_t fail_st;
	int notify_failed;        /* the peer_failed upcall still to be made */

	/* connect: addresses from the card, tried in order */
	int naddr, addr_idx, retrying;
	struct sockaddr_in addrs[TCP_MAX_ADDRS];
	int aprefix[TCP_MAX_ADDRS];   /* their prefix lengths */
	double connect_start, retry_at, backoff;
	int last_errno;
	char last_addr[64];

	/* a process of another job (MPI_Comm_connect/accept, spawn, join:
	 * tcp_dyn.c): its job key and its rank there, which its hello
	 * carries, its card and host name; none for the job's own ranks */
	int dyn;
	int dyn_rank;
	uint8_t dyn_key[16];
	char *dyn_card, *dyn_host;
};

/* tcp_state.finalizing: flush first, then refuse new connections */
enum tcp_fin {
	TCP_FIN_NO = 0,
	TCP_FIN_FLUSH,        /* sending what is queued; EOFs are orderly */
	TCP_FIN_CLOSE,        /* goodbyes sent; new connections refused */
};

struct tcp_state {
	struct michi_job *job;
	struct michi_upcalls up;  /* MTMI's, copied at start (job->up) */
	int rank, size;
	int epfd;
	int all_local;            /* every rank on this host */
	uint16_t port;
	struct tcp_conn listener;
	struct tcp_peer *peers;
	struct tcp_conn timed;    /* list head of conns with deadlines */
	int n_retrying;           /* peers waiting for a connect retry */
	int n_ticking;            /* retrying peers and resilient streams: timers run */
	double tick_at;
	int n_notify;             /* peers with a pending peer_failed upcall */
	struct tcp_conn *dead;
	int finalizing;           /* enum tcp_fin */
	int inited;
	/* connections that progress reads directly (tcp_direct_poll) */
	struct tcp_conn *direct[TCP_DIRECT_MAX];
	int ndirect;
	unsigned poll_tick;
	size_t nqueued;           /* frames and chunks waiting in send queues */
	/* this rank's card addresses and their prefixes, for the rails */
	int nlocal;
	struct in_addr local[TCP_MAX_ADDRS];
	int local_prefix[TCP_MAX_ADDRS];
	char local_if[TCP_MAX_ADDRS][16];
	struct tcp_stripe *striped;   /* peers with rails, a list (tcp_stripe.c) */
};

extern struct tcp_state tcp MICHI_HIDDEN;

/* tunables shared between the files */
extern size_t tcp_rbuf_size MICHI_HIDDEN;
extern double tcp_connect_timeout MICHI_HIDDEN;
extern double tcp_handshake_timeout MICHI_HIDDEN;
extern int tcp_direct_poll MICHI_HIDDEN;
extern size_t tcp_stripe_min MICHI_HIDDEN;
extern int tcp_mptcp MICHI_HIDDEN;

/* tcp_iface.c */
michi_status_t tcp_iface_card(uint16_t port, int all_local, char *card, size_t len);
int tcp_iface_parse(const char *s, struct sockaddr_in *sa, int *prefix);
michi_status_t tcp_iface_bind_addr(int all_local, struct in_addr *addr);
int tcp_iface_is_loopback(struct in_addr a);
int tcp_iface_forced(void);

/* tcp_conn.c */
michi_status_t tcp_conn_listen(void);
void tcp_conn_event(struct tcp_conn *c, uint32_t events);
void tcp_conn_close(struct tcp_conn *c);
void tcp_conn_reap(void);
void tcp_conn_timers(void);
void tcp_conn_set_events(struct tcp_conn *c, uint32_t events);
void tcp_conn_timed_del(struct tcp_conn *c);
michi_status_t tcp_peer_connect(int peer);
void tcp_peer_fail(int peer, michi_status_t st);
void tcp_peer_notify(void);
void tcp_peer_lost(struct tcp_conn *c, int err);
michi_status_t tcp_peer_card(int peer);
struct tcp_conn *tcp_conn_open(int peer, const struct sockaddr_in *to, const struct in_addr *from);
void tcp_conn_reply(struct tcp_conn *c, int status);
void tcp_conn_reject(struct tcp_conn *c, int status, const char *why);
void tcp_conn_reply_read(struct tcp_conn *c, int status, uint64_t read);
int tcp_conn_take_fd(struct tcp_conn *c);

/* tcp_send.c */
michi_status_t tcp_send(int peer, const struct iovec *iov, int iovcnt, void *cookie);
michi_status_t tcp_send_queue(struct tcp_peer *p, const struct iovec *iov,
			      int iovcnt, size_t sent, void *cookie, int internal);
void tcp_send_flush(struct tcp_peer *p);
michi_status_t tcp_send_queue_copy(struct tcp_peer *p, const struct iovec *iov, int iovcnt);
void tcp_send_fail_queue(struct tcp_peer *p, michi_status_t st);
void tcp_split_part_done(struct tcp_split *s, michi_status_t st);
michi_status_t tcp_send_error(struct tcp_peer *p, int peer, int err);

/* tcp_stripe.c: rails, rail connections, striped frames, reports */
struct tcp_stripe *tcp_stripe_get(int peer);
int tcp_stripe_ready(struct tcp_peer *p);
michi_status_t tcp_stripe_send(struct tcp_peer *p, int peer, const struct iovec *iov,
			       void *cookie);
void tcp_stripe_flush(struct tcp_peer *p, int slot);
void tcp_stripe_in(struct tcp_conn *c, struct tcp_peer *p, int slot);
void tcp_stripe_reply(struct tcp_conn *c, struct tcp_peer *p, int status);
void tcp_stripe_out_failed(struct tcp_conn *c);
void tcp_stripe_close(struct tcp_peer *p);
int tcp_stripe_busy(const struct tcp_peer *p);
int tcp_stripe_owes(const struct tcp_peer *p);
void tcp_stripe_shutdown(struct tcp_peer *p);
struct tcp_conn *tcp_stripe_conn(const struct tcp_peer *p, int slot);
int tcp_stripe_begin(struct tcp_conn *c, uint64_t seq, uint64_t tail);
void tcp_stripe_part_done(struct tcp_conn *c);
int tcp_stripe_recv(struct tcp_conn *l);
int tcp_stripe_recv_all(struct tcp_conn *c);
void tcp_stripe_report_in(struct tcp_conn *c);
void tcp_stripe_free(void);
void tcp_stripe_resilient(struct tcp_peer *p, size_t hs);
void tcp_stripe_changed(struct tcp_peer *p);
int tcp_stripe_rail_of(struct tcp_peer *p, struct in_addr local);
int tcp_stripe_rail_addr(struct tcp_peer *p, int r, struct sockaddr_in *to,
			 struct in_addr *from, int *bound);
int tcp_stripe_nrails(const struct tcp_peer *p);
int tcp_stripe_nslots(const struct tcp_peer *p);
struct tcp_stripe *tcp_stripe_next(const struct tcp_stripe *st);
int tcp_stripe_peer(const struct tcp_stripe *st);
void tcp_stripe_drop_slot(struct tcp_peer *p, int k);
void tcp_stripe_heartbeat(struct tcp_peer *p, int k);
double tcp_rail_interval_get(void);
enum { TCP_PV_BYTES, TCP_PV_SHARE, TCP_PV_LIVE, TCP_PV_FAILOVERS };

/* tcp_resume.c: resilient streams (failover) */
#define TCP_CARD_NOFAILOVER "nofailover"   /* a card's word: the rank keeps none */
extern int tcp_rail_failover MICHI_HIDDEN;
ssize_t tcp_stream_sendmsg(struct tcp_conn *c, struct msghdr *msg);
int tcp_stream_replay(struct tcp_conn *c);
void tcp_stream_make(struct tcp_conn *c, int rail, size_t hs);
void tcp_stream_free(struct tcp_conn *c);
int tcp_stream_lost(struct tcp_conn *c, int err);
void tcp_stream_hello(struct tcp_conn *c, struct tcp_hello *h);
void tcp_stream_resume_in(struct tcp_conn *c, struct tcp_peer *p, const struct tcp_hello *h);
void tcp_stream_resume_reply(struct tcp_conn *c, struct tcp_peer *p, const struct tcp_reply *r);
void tcp_stream_out_failed(struct tcp_conn *c, int err);
void tcp_stream_ack_in(struct tcp_conn *c);
void tcp_stream_tick(void);
uint64_t tcp_stream_failovers(struct tcp_peer *p, int rail);
uint64_t tcp_stripe_pvar(int arg);

/* tcp_dyn.c: peers of other jobs */
int tcp_dyn_find(const uint8_t key[16], int rank);
int tcp_peer_above(int peer);
int tcp_peer_wire_rank(int peer);
michi_status_t tcp_dyn_start(struct michi_job *job);
michi_status_t tcp_dyn_card(char *card, size_t len);
michi_status_t tcp_dyn_add(int index, const uint8_t key[16], int rank, const char *host,
			   const char *card);
void tcp_dyn_free(void);
/* tcp.c: the device's setup; publish: put the card in the job's
 * key-value space (MPI_Init), not for a late start (tcp_dyn_start) */
michi_status_t tcp_open(struct michi_job *job, int all_local, int publish);

/* tcp_recv.c */
int tcp_recv_event(struct tcp_conn *c);
void tcp_direct_add(struct tcp_conn *c);
void tcp_direct_del(struct tcp_conn *c);
void tcp_recv_parse(struct tcp_conn *c);

static inline struct tcp_peer *tcp_peer_of(int rank)
{
	return &tcp.peers[rank];
}

#endif
