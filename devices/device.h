/* SPDX-License-Identifier: MIT */
/*
 * devices/device.h: the contract between MTMI and the devices.
 *
 * A byte device (self, shm, tcp) moves frames: a fixed-size header
 * that MTMI fills, followed by a payload. The device never looks inside
 * the header except for its first 8 bytes, the payload length. Incoming
 * frames go up through the upcalls (struct michi_upcalls) that MTMI hands
 * every device at init in job->up: the device hands MTMI the header, MTMI
 * says where the payload goes (a posted receive buffer, so that large
 * payloads land with no staging copy), the device fills it and reports
 * the frame done.
 *
 * One device serves each peer; the choice is made after the fence from
 * each started device's priority and reach (michi_dev_for_peer[]), not
 * per message. The devices are the rows of devices/devices.def; their
 * inline fast paths, where they have some, are listed in devices/fast.h
 * (devices/README.md).
 */
#ifndef MICHI_DEVICE_H
#define MICHI_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "michi.h"

/* Every frame starts with a header of this size; its first 8 bytes are
 * the payload length (uint64_t, host order: byte devices only connect
 * hosts of one byte order, checked in the handshake). */
#define MICHI_FRAME_HDR_SIZE 48

static inline uint64_t michi_frame_payload_len(const void *hdr)
{
	return *(const uint64_t *)hdr;
}

struct michi_upcalls;

/*
 * What the bootstrap knows about the job, handed to every device at init.
 * The key-value calls reach the PMI client without devices including any
 * mpi/ header: put before fence, get after it.
 */
struct michi_job {
	int rank;              /* this process in the world */
	int size;              /* processes in the world */
	int local_rank;        /* among processes on this host */
	int local_size;
	int kernel_size;       /* processes on this kernel: hosts that are network
				* namespaces or containers of one machine share its
				* processors (0: as local_size) */
	int appnum;
	const char *hostname;  /* host identity (launcher's name for the host) */
	uint8_t key[16];       /* the job's 128-bit key, same on every rank */
	int *host_of;          /* host index of every rank, filled after fence */

	michi_status_t (*kvs_put)(const char *key, const char *val);
	michi_status_t (*kvs_fence)(void);
	/* val gets the value; returns MICHI_ERR_PMI when the key is absent */
	michi_status_t (*kvs_get)(int from_rank, const char *key, char *val, size_t len);

	/* MTMI's upcalls (below), for the device to keep a copy of: a device
	 * that wraps another hands that one a copy of the job whose up is its
	 * own table. */
	const struct michi_upcalls *up;
};

/* Receive side of a frame: where the payload goes, filled by MTMI. */
struct michi_rx {
	void *buf;      /* destination, or NULL to discard the whole payload */
	size_t cap;     /* bytes that fit at buf; the rest of the payload is discarded */
	void *cookie;   /* MTMI's, handed back in the recv_done upcall */
};

/* ---- upcalls into MTMI, called by devices from their progress --------- */
/*
 * MTMI hands this table to every device at init (job->up). A device keeps
 * a copy in its own static data: a call through a pointer at a fixed
 * address costs the instructions of a direct call (one), where a call
 * through job->up would load the table first.
 *
 * Upcalls may call a device's send() but never progress(). The self
 * device delivers synchronously inside send(). A queued send that was
 * given a NULL cookie reports to send_done(NULL, st), which MTMI
 * ignores.
 */
struct michi_upcalls {
	/* A frame's header arrived from peer; MTMI fills rx. */
	void (*recv_hdr)(int peer, const void *hdr, struct michi_rx *rx);
	/* The payload of that frame is in rx->buf (min(len, cap) bytes). */
	void (*recv_done)(int peer, struct michi_rx *rx);
	/* A send that returned MICHI_INPROGRESS finished (st 0) or failed (<0). */
	void (*send_done)(void *cookie, michi_status_t st);
	/* peer's connection is gone: fail everything that involves it. The
	 * reason was recorded with michi_err(). */
	void (*peer_failed)(int peer, michi_status_t st);
	/* A matching device's operation ended: st 0, MICHI_ERR_TRUNCATE (the
	 * message did not fit: the status counts the receive's capacity, len
	 * may say so or be larger; the library may have delivered a prefix or
	 * nothing, which MPI allows), MICHI_ERR_CANCELLED, or another error;
	 * tag and len are the matched message's (receives). */
	void (*tag_done)(void *ctx, michi_status_t st, uint64_t tag, size_t len);
};

/* MTMI's table (mtmi/mtmi.c), which its caller puts in job->up. */
extern const struct michi_upcalls mtmi_upcalls MICHI_HIDDEN;

/* Capabilities a device declares in michi_device.caps. */
enum {
	/* Serves only a rank sending to itself (self): started whatever
	 * MICHI_DEVICE says, never forced, never polled. */
	MICHI_DEV_OWN_RANK = 1 << 0,
	/* In-place frames (michi_dev_frame_begin): its inline frame path
	 * (devices/fast.h, MICHI_FAST_FRAMES) is asked for every peer and
	 * refuses the ones it does not serve from a per-peer table, which
	 * peers() sizes for every peer whether or not the device started. */
	MICHI_DEV_FRAMES = 1 << 1,
};

struct michi_dyn_ops;

struct michi_device {
	const char *name;
	/*
	 * Device choice (device.c), as data: after the fence each rank is
	 * served by the started device of highest priority whose reaches()
	 * says yes (self 30, shm 20, tcp 10). Priority 0: only when
	 * MICHI_DEVICE names it (the matching devices). wanted, optional,
	 * says before the fence whether some peer of the job may need the
	 * device (shm: ranks share this host; tcp: some do not); NULL: yes.
	 */
	int priority;
	int (*wanted)(const struct michi_job *job);
	unsigned caps;                          /* MICHI_DEV_* */
	/* Optional (MICHI_DEV_FRAMES): size the per-peer table of the
	 * inline paths for n peers, keeping what is there (n above the
	 * world's: peers of other jobs); 0 frees it. */
	michi_status_t (*peers)(int n);
	/* Optional: processes of other jobs (dynproc): the first device of
	 * the table with these serves them. */
	const struct michi_dyn_ops *dyn;
	/* Matching devices with an inline path (devices/fast.h,
	 * MICHI_TAG_INLINE_*): the value michi_tag_inline takes when this
	 * device serves the job; 0 (NONE) for the others. */
	int tag_inline;
	/* Called once in MPI_Init before the fence: open endpoints, put the
	 * business card in the key-value space. */
	michi_status_t (*init)(struct michi_job *job);
	/* After the fence: cards of all ranks readable. Connections still open lazily. */
	michi_status_t (*post_fence)(struct michi_job *job);
	/* Finish pending sends (bounded in time), close everything. */
	michi_status_t (*finalize)(void);
	/*
	 * Send one frame: iov[0] is the header (MICHI_FRAME_HDR_SIZE bytes,
	 * may live on the caller's stack: copy it if it cannot go out now),
	 * iov[1..] the payload, total payload bytes = header's length.
	 * Returns MICHI_OK when every byte left (payload buffers reusable),
	 * MICHI_INPROGRESS when the device queued the rest: it then calls
	 * the send_done upcall (cookie, status) exactly once later, from
	 * progress. <0 on an immediate error (recorded with michi_err()).
	 * Frames to one peer leave in the order of the send calls.
	 */
	michi_status_t (*send)(int peer, const struct iovec *iov, int iovcnt, void *cookie);
	/* Make progress on every connection without blocking; returns the
	 * number of events handled (0 when idle), <0 on a fatal error. */
	int (*progress)(void);
	/* A file descriptor that becomes readable when progress would find
	 * work (epoll set, eventfd), or -1: lets a waiting rank sleep. */
	int (*wait_fd)(void);
	/* Frames that send() accepted and that have not left yet (queued
	 * behind a connection still opening, or behind a full socket).
	 * MPI_Finalize makes progress until every device says 0 before its
	 * fence, since a rank blocked in the fence makes no progress. */
	size_t (*pending)(void);
	/* Largest payload that MTMI should send eagerly through this device. */
	size_t eager_limit;
	/* Optional. Sleep until this device may have work (a peer wakes us)
	 * or timeout_ms passes; for devices without a wait_fd. Returns -1,
	 * having yielded the processor instead, when sleeping could
	 * oversleep a peer's message (shm: a local peer that does not wake
	 * sleepers); timeout_ms 0 does not sleep and only gives that
	 * answer. */
	int (*block)(int timeout_ms);
	/* Optional: copy len bytes at address raddr in peer's memory into
	 * dst, synchronously (single-copy rendezvous). MICHI_ERR_UNSUPPORTED
	 * when not possible with this peer: MTMI then asks for the data.
	 * len 0 only asks whether it is possible. */
	michi_status_t (*pull)(int peer, void *dst, uint64_t raddr, size_t len);
	/* Optional: the other way, len bytes at src into peer's memory at
	 * raddr (the sender's half of a split rendezvous). */
	michi_status_t (*push)(int peer, uint64_t raddr, const void *src, size_t len);
	/* Optional, after post_fence: whether this device can serve rank
	 * (NULL: every rank). */
	int (*reaches)(int rank);
	/* Optional: the smallest round-trip time to peer that the network
	 * stack measured on this device's open connections (seconds), free
	 * of the time the processes took to answer; 0 when unknown. The
	 * site inference prefers it to its own timing (mpi/coll/site.c). */
	double (*rtt)(int peer);
	/* Matching devices only (NULL for byte devices): the tagged
	 * operations below. Such a device's send() is a stub: MTMI never
	 * sends it frames. */
	const struct michi_tag_ops *tagged;
};

/*
 * Matching devices (ofi, ucx: docs/design.md §3, the native backend) match
 * MPI messages in their library. MTMI packs (context, source rank, tag)
 * into a 64-bit match tag (mtmi/mtmi_native.h) and hands each call to
 * one of these operations; the device adds no queue of its own on the
 * common path. A matching device, when chosen, serves every rank, this
 * one included, since a wildcard receive must see every message in one
 * matching engine.
 *
 * Match tags use bits 0..62 (MICHI_TAG_* below). Bit 63 is the
 * device's own, for its protocol messages (the acknowledgement of a synchronous send): MTMI
 * never sends or matches a tag with it set and never ignores it.
 *
 * `ctx` points at MICHI_TAG_CTX_SIZE bytes of the caller's request,
 * 8-byte aligned, that the device may use from the call until the
 * operation's completion (libfabric's struct fi_context lives there);
 * the same pointer identifies the operation to MTMI in
 * the tag_done upcall. Every operation but a send that returned
 * MICHI_OK is reported there exactly once.
 */
#define MICHI_TAG_CTX_SIZE 32
#define MICHI_TAG_DEVICE_BIT (1ull << 63)
/* The fields of MTMI's match tag, bit 0 up: the MPI tag (32 bits: the
 * library's internal calls use negative tags too), the sender's rank in
 * the communicator (19 bits), the context id (12 bits). A device that
 * addresses its own messages by rank (an acknowledgement) uses the
 * source field for a world rank. */
#define MICHI_TAG_SRC_SHIFT 32
#define MICHI_TAG_SRC_BITS 19
#define MICHI_TAG_SRC_MASK (((1ull << MICHI_TAG_SRC_BITS) - 1) << MICHI_TAG_SRC_SHIFT)
#define MICHI_TAG_CTX_SHIFT 51

struct michi_tag_ops {
	/* Send len bytes at buf to peer. sync: complete only once a
	 * receive matched it. MICHI_OK: complete already (buf reusable;
	 * nothing is reported later). MICHI_INPROGRESS: tag_done
	 * follows, from progress. <0: not started (error recorded). The
	 * device may use bit 63 and its library's remote data for its own
	 * protocol (a synchronous send's acknowledgement). */
	michi_status_t (*send)(int peer, const void *buf, size_t len, uint64_t tag, int sync,
			       void *ctx);
	/* Post a receive from peer (-1: any rank) of a message whose tag
	 * equals `tag` in every bit that `ignore` does not set. Completion
	 * is always reported through tag_done, possibly inside
	 * this call. MICHI_OK when posted, <0 when not (nothing reported). */
	michi_status_t (*recv)(int peer, void *buf, size_t len, uint64_t tag, uint64_t ignore,
			       void *ctx);
	/* Look for a message that such a receive would match, without
	 * receiving it: 1 and its tag and length when there is one, 0 when
	 * not, <0 on error. claim: take it out of matching and return it
	 * in *msg, for mrecv (the device frees what it allocated there). */
	int (*probe)(int peer, uint64_t tag, uint64_t ignore, int claim, uint64_t *tag_out,
		     size_t *len_out, void **msg);
	/* Receive a message claimed by probe; completion as for recv. */
	michi_status_t (*mrecv)(void *msg, void *buf, size_t len, void *ctx);
	/* Withdraw a receive not yet matched: it completes through
	 * tag_done with MICHI_ERR_CANCELLED, or normally when it
	 * matched first. Sends are not withdrawn (MICHI_OK, no effect). */
	michi_status_t (*cancel)(void *ctx);
};

/*
 * Peers of other jobs (mpi/comm/dynproc.c through michi_devices_dyn_*). start:
 * bring the device up for them when it did not start with the job (no
 * business card put). card: this process's address for another job. add:
 * make rank `rank` of the job with key `key` (on host, at card) peer
 * `index`. find: the index already given to that process, or -1.
 */
struct michi_dyn_ops {
	michi_status_t (*start)(struct michi_job *job);
	michi_status_t (*card)(char *card, size_t len);
	michi_status_t (*add)(int index, const uint8_t key[16], int rank, const char *host,
			      const char *card);
	int (*find)(const uint8_t key[16], int rank);
};

/*
 * How a rank with nothing to do waits (device.c decides it after the
 * fence from the wait_* tunables and from ranks per core on this host):
 * `spin` idle polls, then `yield` rounds of sched_yield, then sleeps of
 * at most block_ms in the devices' wait. may_block is 0 when the policy
 * never sleeps, so that devices without a kernel wait (shm) skip waking
 * their peers.
 */
struct michi_wait_policy {
	unsigned long long spin, yield;
	int block_ms;
	int may_block;
	int oversubscribed;
	int cores;
	int ranks;             /* ranks of the job on these processors */
	/* oversubscribed: the least michi_ticks() between two yields of the
	 * polling calls (mtmi_poll) */
	uint64_t poll_yield_ticks;
};
extern struct michi_wait_policy michi_wait MICHI_HIDDEN;

/* The device that serves each world rank, filled at init. */
extern struct michi_device **michi_dev_for_peer MICHI_HIDDEN;
/* The rows of devices/devices.def, NULL-terminated. */
extern struct michi_device *michi_devices[] MICHI_HIDDEN;
/* The device of that table named name, or NULL (a device that wraps
 * another finds it so). */
struct michi_device *michi_device_find(const char *name);

/* Bring up the devices, choose one per peer (MICHI_DEVICE forces one). */
michi_status_t michi_devices_init(struct michi_job *job);
/* After the job's fence (cards, key and host_of readable): each started
 * device's post_fence. */
michi_status_t michi_devices_post_fence(struct michi_job *job);
michi_status_t michi_devices_finalize(void);
/* Poll every active device; returns events handled. */
int michi_devices_progress(void);
/* Frames still queued in the active devices. */
size_t michi_devices_pending(void);
/* Block until some device may have work or timeout_ms passes. */
void michi_devices_block(int timeout_ms);
/*
 * A device's library loaded when the device starts, not with libmpi:
 * linking libfabric made every Michi process pay for its dependencies'
 * constructors (libinfinipath's slept some 250 ms at start-up) whether
 * or not it used the device. Opens the first of sonames that loads and
 * resolves every symbol of syms (NULL-terminated) into its address, or
 * fails with an error naming the device, the library and the symbol.
 */
struct michi_devlib_sym {
	const char *name;
	void **addr;
};
michi_status_t michi_devlib_open(const char *dev, const char *const *sonames,
				 const struct michi_devlib_sym *syms, void **handle);

/*
 * Peers from other jobs (MTMI's mtmi_peer_* for mpi/comm/dynproc.c: connect/
 * accept, spawn, join).
 * They take the indices above the world's, in the order added; the first
 * device of the table with dyn ops (tcp) serves them, started here for a
 * process that had none.
 * card: this process's address for another job, starting that device
 * when needed. add: make rank `rank` of the job with key `key` (on
 * host `host`, reachable at `card`) peer `index` (the caller sized MTMI's
 * tables for it first); MICHI_ERR_UNSUPPORTED under a matching device.
 * find: the index already given to that process, or -1.
 */
michi_status_t michi_devices_dyn_card(struct michi_job *job, char *card, size_t len);
michi_status_t michi_devices_dyn_add(struct michi_job *job, int index, const uint8_t key[16],
				     int rank, const char *host, const char *card);
int michi_devices_dyn_find(const uint8_t key[16], int rank);

/* After post_fence: the tagged operations of the matching device that
 * serves every rank, or NULL when byte devices serve them (MTMI's own
 * queues). */
const struct michi_tag_ops *michi_devices_tagged(void);

/* The devices' inline fast paths (the tcp and shm sends, shm's in-place
 * frames, the matching devices' tagged send and receive): which ones,
 * is data in devices/fast.h. */
#ifndef MICHI_DEV_NO_INLINE
#include "fast.h"
#endif

#define MICHI_CAT_(a, b) a##b
#define MICHI_CAT(a, b) MICHI_CAT_(a, b)

/*
 * Send through the device that serves peer. Devices with an inline fast
 * path (fast.h: MICHI_FAST_SEND_1, _2) are called directly, so the common
 * case has no function pointer (docs/design.md §2); the others go through
 * their ops table.
 */
static inline __attribute__((always_inline)) michi_status_t michi_dev_send(struct michi_device *d, int peer,
					    const struct iovec *iov, int iovcnt, void *cookie)
{
#ifdef MICHI_FAST_SEND_1
	if (likely(d == &MICHI_CAT(michi_device_, MICHI_FAST_SEND_1)))
		return MICHI_CAT(MICHI_FAST_SEND_1, _send_fast)(peer, iov, iovcnt, cookie);
#endif
#ifdef MICHI_FAST_SEND_2
	if (likely(d == &MICHI_CAT(michi_device_, MICHI_FAST_SEND_2)))
		return MICHI_CAT(MICHI_FAST_SEND_2, _send_fast)(peer, iov, iovcnt, cookie);
#endif
	return d->send(peer, iov, iovcnt, cookie);
}

/*
 * In-place frames (capability MICHI_DEV_FRAMES): a device whose frames
 * live in memory that both ends map (shm) lets MTMI write a small frame
 * where it will be read, with no header on the stack and no second copy.
 * begin reserves the frame and returns 1 and where the
 * MICHI_FRAME_HDR_SIZE-byte header goes (the payload follows it), or
 * returns 0, changing nothing, when the device has no slot now, none at
 * all, or len is above its eager limit: send() then. A reserved frame
 * must be ended before anything else is sent to the peer: end publishes
 * it; *tok carries device state from begin to end. end returns nonzero
 * when the peer must be woken: the caller then calls
 * michi_dev_frame_wake(peer) (out of line, so that callers' fast paths
 * make no call; it returns 0). The device named MICHI_FAST_FRAMES in
 * fast.h serves them, asked for every peer: its per-peer table refuses
 * the ones it does not serve. With none, every frame goes through send.
 */
static inline __attribute__((always_inline)) int
michi_dev_frame_begin(struct michi_device *d, int peer, uint64_t len, void **hdr,
		      uint64_t *tok)
{
	(void)d;
#ifdef MICHI_FAST_FRAMES
	return MICHI_CAT(MICHI_FAST_FRAMES, _frame_begin)(peer, len, hdr, tok);
#else
	return 0;
#endif
}

static inline __attribute__((always_inline)) int
michi_dev_frame_end(int peer, void *hdr, uint64_t tok)
{
#ifdef MICHI_FAST_FRAMES
	return MICHI_CAT(MICHI_FAST_FRAMES, _frame_end)(peer, hdr, tok);
#else
	return 0;
#endif
}

static inline int michi_dev_frame_wake(int peer)
{
#ifdef MICHI_FAST_FRAMES
	return MICHI_CAT(MICHI_FAST_FRAMES, _frame_wake)(peer);
#else
	return 0;
#endif
}

/* MTMI's implementations of the upcalls (the entries of mtmi_upcalls;
 * devices call them through their copy of job->up, never by name). */
void mtmi_dev_recv_hdr(int peer, const void *hdr, struct michi_rx *rx);
void mtmi_dev_recv_done(int peer, struct michi_rx *rx);
void mtmi_dev_send_done(void *cookie, michi_status_t st);
void mtmi_dev_peer_failed(int peer, michi_status_t st);
void mtmi_dev_tag_done(void *ctx, michi_status_t st, uint64_t tag, size_t len);

/* ---- a matching device's send and receive ----------------------------- */


/* The matching device whose inline path a caller of michi_tag_send()
 * and michi_tag_recv() should name (fast.h's MICHI_TAG_INLINE_*), set
 * from the job's device's tag_inline (device.c; NONE also when a byte
 * device serves the job). */
#define MICHI_TAG_INLINE_NONE 0
extern int michi_tag_inline MICHI_HIDDEN;

/*
 * A standard send and a receive through the job's matching device, ops
 * (mtmi_tag). dev, a constant, names the device (michi_tag_inline) whose
 * inline path is compiled in, so that MTMI's native backend makes no
 * call of ours before the library's (docs/design.md §2): a caller's hot path
 * is compiled once per device and chosen at MPI_Init. NONE goes through
 * the ops. Arguments as the ops'.
 */
static inline __attribute__((always_inline)) michi_status_t
michi_tag_send(const struct michi_tag_ops *ops, int dev, int peer, const void *buf, size_t len,
	       uint64_t tag, void *ctx)
{
#ifdef MICHI_FAST_TAG_1
	if (dev == MICHI_CAT(MICHI_FAST_TAG_1, _TAG_INLINE))
		return MICHI_CAT(MICHI_FAST_TAG_1, _send_fast)(peer, buf, len, tag, ctx);
#endif
#ifdef MICHI_FAST_TAG_2
	if (dev == MICHI_CAT(MICHI_FAST_TAG_2, _TAG_INLINE))
		return MICHI_CAT(MICHI_FAST_TAG_2, _send_fast)(peer, buf, len, tag, ctx);
#endif
	(void)dev;
	return ops->send(peer, buf, len, tag, 0, ctx);
}

static inline __attribute__((always_inline)) michi_status_t
michi_tag_recv(const struct michi_tag_ops *ops, int dev, int peer, void *buf, size_t len,
	       uint64_t tag, uint64_t ignore, void *ctx)
{
#ifdef MICHI_FAST_TAG_1
	if (dev == MICHI_CAT(MICHI_FAST_TAG_1, _TAG_INLINE))
		return MICHI_CAT(MICHI_FAST_TAG_1, _recv_fast)(peer, buf, len, tag, ignore, ctx);
#endif
#ifdef MICHI_FAST_TAG_2
	if (dev == MICHI_CAT(MICHI_FAST_TAG_2, _TAG_INLINE))
		return MICHI_CAT(MICHI_FAST_TAG_2, _recv_fast)(peer, buf, len, tag, ignore, ctx);
#endif
	(void)dev;
	return ops->recv(peer, buf, len, tag, ignore, ctx);
}

#endif
