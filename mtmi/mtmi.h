/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi.h: the MPI-Transport Matching Interface, the only header the
 * MPI core includes from below.
 *
 * Tagged send, receive, probe and cancel with MPI matching semantics on a
 * context id. Addressing: `peer` is the world rank of the process (what a
 * device connects to); `src_rank` is the sender's rank in the
 * communicator, carried in the message and matched against a receive's
 * source. Completion is written into the struct mtmi_req the caller owns
 * (embedded in its MPI request); MTMI never allocates requests.
 *
 * Ordering: messages from one sender to one receiver on one context match
 * in the order they were sent (MPI non-overtaking).
 *
 * Two backends: the own-queue engine for byte devices (mtmi_inline.h,
 * mtmi_queue.c, mtmi_proto.c), and the native one (mtmi_native.h) that
 * hands each call to a matching device when the job runs over one.
 */
#ifndef MICHI_MTMI_H
#define MICHI_MTMI_H

#include <stddef.h>
#include <stdint.h>

#include "michi.h"

struct michi_job;

#define MTMI_ANY_SOURCE (-2)  /* same values as MPI_ANY_SOURCE/MPI_ANY_TAG */
#define MTMI_ANY_TAG    (-1)

enum mtmi_mode {
	MTMI_MODE_STANDARD = 0,
	MTMI_MODE_SYNC = 1,     /* complete only once matched */
	MTMI_MODE_READY = 2,    /* receiver guaranteed posted (sent as standard) */
};

enum mtmi_req_type {
	MTMI_REQ_NONE = 0,
	MTMI_REQ_SEND,
	MTMI_REQ_RECV,
};

struct mtmi_req;

/*
 * A request. The caller zeroes nothing: mtmi_isend/mtmi_irecv initialise
 * every field they need. Public fields are valid once done != 0.
 */
struct mtmi_req {
	/* ---- public ---- */
	volatile int done;     /* set to 1 last, after the status fields */
	int error;             /* 0, or a michi_status_t < 0 */
	int source;            /* recv: the sender's src_rank */
	int tag;               /* recv: the message tag */
	size_t count;          /* recv: bytes delivered (while it pulls a
				* streamed rendezvous, those in place so far:
				* mtmi_recv_have); send: bytes sent */
	int cancelled;         /* 1 when cancelled instead of completed */
	int type;              /* enum mtmi_req_type */

	/* ---- engine private (mtmi/) ---- */
	struct mtmi_req *next, *prev;   /* posted queue / pending lists */
	void *buf;
	size_t len;            /* buffer capacity (recv) or message size (send) */
	int peer;              /* world rank; recv: MTMI_ANY_SOURCE possible until matched */
	int src_match;         /* recv: comm rank to match, or MTMI_ANY_SOURCE */
	int tag_match;         /* recv: tag to match, or MTMI_ANY_TAG */
	uint32_t ctx;
	uint32_t flags;
	int mode;
	uint64_t post_seq;     /* posting order, to keep exact and wildcard queues fair */
	union {
		struct {
			uint64_t remote_id;    /* rendezvous: the peer's request id */
			uint64_t raddr;        /* rendezvous over a pulling device: the send
						* buffer's address (RTS payload) */
			union {
				size_t offset;     /* send: the message's frame sequence number */
				uint64_t rready;   /* recv, streamed rendezvous: the address of
						    * the sender's ready count (RTS payload,
						    * after raddr) */
			};
			size_t msg_len;        /* recv: length of the matched message; send,
						* streamed: bytes ready (the receiver reads it) */
		};
		/* a matching device's operation context (devices/device.h,
		 * MICHI_TAG_CTX_SIZE), where the own-queue engine keeps the
		 * fields above */
		void *dev_ctx[4];
	};
	void *priv;            /* engine use */
	/* ---- owner private: the MPI core may use these freely ---- */
	void (*on_complete)(struct mtmi_req *r); /* if set, called once when done */
};

/* A message matched by mtmi_improbe, waiting for mtmi_imrecv. */
struct mtmi_msg;

/*
 * The devices, which the MPI core starts and stops through MTMI only
 * (mtmi_dev.c). MPI_Init: mtmi_devices_start before the job's fence (each
 * device opens its endpoints and puts its business card in the key-value
 * space), mtmi_devices_post_fence after it (the cards of all ranks are
 * readable: the devices' own step, the wait policy and the choice of one
 * device per peer), then mtmi_init. MPI_Finalize: mtmi_finalize, the
 * fence, mtmi_devices_stop, then mtmi_release.
 */
michi_status_t mtmi_devices_start(struct michi_job *job);
michi_status_t mtmi_devices_post_fence(struct michi_job *job);
michi_status_t mtmi_devices_stop(void);

/* Init after the devices are up. Finalize waits for pending sends; the
 * engine still accepts frames until mtmi_release(), called after the
 * devices have closed. */
michi_status_t mtmi_init(struct michi_job *job);
michi_status_t mtmi_finalize(void);
void mtmi_release(void);

/*
 * The devices built into the library, in the device table's order, for
 * tools (MPI_T): the name of device i (0 up), NULL past the last
 * (mtmi_dev.c). mtmi_dev_frames: the frames MTMI sent (received 0) or
 * received (1) through device i since MPI_Init, kept after MPI_Finalize
 * (mtmi_mpit.c, which also declares MTMI's own MPI_T variables: see
 * util/tvars.h).
 */
const char *mtmi_dev_name(int i);
uint64_t mtmi_dev_frames(int i, int received);

/*
 * How this host's processors are shared, as the devices' wait policy
 * found after the fence (mtmi_devices_post_fence; mtmi_dev.c): the job's
 * ranks on this host, the processors they may use, and whether the ranks
 * outnumber them (waits then yield the processor early). For the MPI
 * core's progress thread (mpi/env/async.c).
 */
int mtmi_host_ranks(void);
int mtmi_host_cores(void);
int mtmi_oversubscribed(void);
/*
 * Processes of other jobs (mpi/comm/dynproc.c: connect/accept, spawn, join), the
 * core's one door to the devices that reach them. They take peer indices
 * above the world's. card: this process's address for another job,
 * starting the tcp device when needed. find: the index already given to
 * rank `rank` of the job with key `key`, or -1. add: make that process
 * peer `index` (on host `host`, reachable at `card`), growing MTMI's
 * per-peer tables first. MICHI_ERR_UNSUPPORTED over a matching device.
 */
michi_status_t mtmi_peer_card(struct michi_job *job, char *card, size_t len);
int mtmi_peer_find(const uint8_t key[16], int rank);
michi_status_t mtmi_peer_add(struct michi_job *job, int index, const uint8_t key[16],
			     int rank, const char *host, const char *card);

/*
 * Start a send of len contiguous bytes to peer. Returns MICHI_OK when the
 * request is already complete (done == 1), MICHI_INPROGRESS when it will
 * complete in progress, <0 on an immediate error (request not started).
 */
michi_status_t mtmi_isend(const void *buf, size_t len, int peer, int src_rank,
			  int tag, uint32_t ctx, int mode, struct mtmi_req *r);

/*
 * Post a receive into buf (capacity len). peer is the world rank of the
 * source or MTMI_ANY_SOURCE; src_rank the comm rank to match or
 * MTMI_ANY_SOURCE; tag or MTMI_ANY_TAG. A message longer than len
 * completes the request with error MICHI_ERR_TRUNCATE and count = len.
 */
michi_status_t mtmi_irecv(void *buf, size_t len, int peer, int src_rank,
			  int tag, uint32_t ctx, struct mtmi_req *r);

/*
 * Streamed rendezvous, for a sender that produces the bytes as it goes
 * (packing a derived datatype), over a device that pulls (shm with CMA):
 * the receiver reads what is ready while the sender fills the rest.
 * mtmi_stream_able says whether a send of len bytes to peer can stream.
 * mtmi_isend_stream starts it with the first `ready` bytes of buf in
 * place; mtmi_stream_ready publishes more, in order, up to len; the send
 * completes only after that, and buf stays until then. A receiver that
 * cannot pull after all answers CTS, and DATA leaves with the last byte.
 * While a receive pulls such a message, mtmi_recv_have tells the bytes
 * in place from the start, and mtmi_wait_some waits for more than seen.
 */
int mtmi_stream_able(int peer, size_t len);
michi_status_t mtmi_isend_stream(const void *buf, size_t len, size_t ready, int peer,
				 int src_rank, int tag, uint32_t ctx, int mode,
				 struct mtmi_req *r);
void mtmi_stream_ready(struct mtmi_req *r, size_t ready);
size_t mtmi_recv_have(const struct mtmi_req *r);
void mtmi_wait_some(struct mtmi_req *r, size_t seen);

/* Nonblocking probe; *flag 1 when a message matches, with its source, tag
 * and length in bytes. Makes progress once before looking. */
michi_status_t mtmi_iprobe(int peer, int src_rank, int tag, uint32_t ctx,
			   int *flag, int *source_out, int *tag_out, size_t *len_out);

/* Matched probe: on *flag 1, *msg holds the message, removed from
 * matching; only mtmi_imrecv can receive it. */
michi_status_t mtmi_improbe(int peer, int src_rank, int tag, uint32_t ctx,
			    int *flag, struct mtmi_msg **msg, int *source_out,
			    int *tag_out, size_t *len_out);
michi_status_t mtmi_imrecv(void *buf, size_t len, struct mtmi_msg *msg,
			   struct mtmi_req *r);

/*
 * Cancel: a posted receive not yet matched completes with cancelled = 1.
 * A send not yet matched by the receiver is withdrawn when the protocol
 * allows (rendezvous, or eager still queued locally); otherwise the send
 * completes normally and cancelled stays 0. Completion comes through
 * progress as for any request.
 */
michi_status_t mtmi_cancel(struct mtmi_req *r);

/* Poll the devices once, then run deferred work; returns events handled
 * (>= 0), <0 fatal. */
int mtmi_progress(void);
/* The same for calls that poll and may return empty-handed (MPI_Test,
 * MPI_Iprobe...): when nothing happened and the host's ranks outnumber
 * its cores, the core goes to another rank (sched_yield), as a waiting
 * rank's would, so a loop of such calls does not starve the ranks it
 * waits for. */
int mtmi_poll(void);
/* The smallest round trip to peer that its device's network stack
 * measured on open connections (seconds), or 0 when it does not know
 * (shared memory, a device without the query, no connection yet). */
double mtmi_peer_rtt(int peer);

/*
 * Work deferred to progress: when set, mtmi_progress() calls it after
 * polling the devices, outside every completion hook, so it may post new
 * sends and receives (coll/ schedules whose round ended). It returns the
 * items it ran and clears the pointer once it has none left.
 */
extern int (*mtmi_defer)(void) MICHI_HIDDEN;

/*
 * A progress thread (mpi/env/async.c) polls mtmi_progress() while no program
 * thread waits: each idle round of a waiting loop with michi_mt set
 * stamps mtmi_wait_tick (michi_ticks), and the progress thread stands
 * aside while the stamp is fresh, so the two do not pass the lock and the
 * progress state back and forth; the waiting thread polls as it would
 * alone. The progress thread calls mtmi_agent_thread() once, so that its
 * own rounds (a user op's wait) do not count.
 */
extern uint64_t mtmi_wait_tick MICHI_HIDDEN;
void mtmi_agent_thread(void);

/* Wait until r->done, spinning, then yielding, then blocking in the
 * devices' wait fds (tunable policy). Returns r->error. */
michi_status_t mtmi_wait(struct mtmi_req *r);

/* Wait for progress in general (for waitany/waitsome and probe loops):
 * makes progress, and idles politely if nothing happened for a while.
 * `spins` counts the caller's consecutive idle rounds. */
void mtmi_idle(unsigned *spins);

/*
 * Counters for tools (MPI_T performance variables, mtmi_mpit.c),
 * updated on out-of-line paths only, never on the inline send, receive
 * or wait paths. Read-only outside MTMI.
 */
struct mtmi_stats {
	uint64_t rndv_sends;   /* rendezvous sends started (RTS frames sent) */
	uint64_t unexp_len;    /* messages on the unexpected queues now */
	uint64_t unexp_max;    /* most of them at one time since mtmi_init */
	uint64_t unexp_cmp;    /* unexpected messages compared with a receive
				* or probe looking for its match */
};
extern struct mtmi_stats mtmi_stats MICHI_HIDDEN;

/*
 * Events for tools (MPI_T events, mpi/tools/mpit_events.c). While
 * mtmi_event_hook is set, MTMI calls it where an event happens, on
 * out-of-line paths only, inside progress with its queues in a consistent
 * state: the hook may read *ev and must not call back into MTMI. Byte
 * devices only: a matching device (ofi, ucx) keeps its unexpected queue
 * to itself, so no MTMI_EVENT_UNEXPECTED is raised for its peers.
 *
 * While mtmi_idle_hook is set, every idle round of a waiting thread
 * (mtmi_idle: a round whose progress found nothing) calls it first, with
 * no MTMI state in use, so it may run code that calls MPI again (events
 * the MPI layer held back for callbacks that may call any MPI function).
 */
enum mtmi_event_kind {
	MTMI_EVENT_UNEXPECTED,  /* a message arrived before its receive was posted */
};

enum mtmi_event_proto {
	MTMI_PROTO_EAGER,       /* payload in the first frame */
	MTMI_PROTO_EAGER_SYNC,  /* the same, from a synchronous send */
	MTMI_PROTO_RNDV,        /* a rendezvous offer (RTS); the data follows later */
};

struct mtmi_event {
	int kind;               /* enum mtmi_event_kind */
	int peer;               /* sender's process index (mtmi_nranks space) */
	int src_rank;           /* sender's rank in the communicator */
	int tag;
	uint32_t ctx;           /* context id of the communicator */
	int proto;              /* enum mtmi_event_proto */
	uint64_t len;           /* message size in bytes (RTS: the announced size) */
};

extern void (*mtmi_event_hook)(const struct mtmi_event *ev) MICHI_HIDDEN;
extern void (*mtmi_idle_hook)(void) MICHI_HIDDEN;

/* The fast paths of mtmi_isend/mtmi_irecv, inline for the MPI core's hot
 * paths: same arguments, same results as the out-of-line functions. */
#include "mtmi_inline.h"

#endif
