/* SPDX-License-Identifier: MIT */
/*
 * devices/ofi/ofi.c: the libfabric matching device (docs/design.md §3, §4).
 *
 * One FI_EP_RDM endpoint with FI_TAGGED (and FI_DIRECTED_RECV where the
 * provider offers it), one tagged completion queue, one FI_AV_TABLE
 * address vector in which fi_addr_t is the world rank: every rank's
 * business card (fi_getname, hex) is inserted in rank order after the
 * fence. MTMI's 64-bit match tag (mtmi/mtmi_native.h) goes to the
 * library unchanged and MTMI's 32-byte request area is the operation's
 * struct fi_context, so a send or receive is one libfabric call with no
 * queue, copy or allocation here: fi_tinject up to the provider's
 * inject size (complete at once, nothing reported), else fi_tsend or
 * fi_trecv, whose completion progress() hands to MTMI (its tag_done upcall).
 *
 * The rest uses operations of the device's own (struct ofi_op, from a
 * pool whose address ranges tell their contexts from MTMI's):
 *
 *  - synchronous sends: the 63 low tag bits are MTMI's, so the flag
 *    travels in remote CQ data, (our world rank << 1) | 1. The receiver
 *    of such a message (on completion, truncated too, or when a probe
 *    claims it) injects a zero-byte ack tagged with bit 63 and its own
 *    world rank in the source field; the sender posted the receive for
 *    it before sending, and reports the send once both its send
 *    completion and the ack are in.
 *  - probes: fi_trecvmsg with FI_PEEK (| FI_CLAIM), answered through the
 *    CQ (an entry when found, FI_ENOMSG when not); a claimed message's
 *    op is the handle that mrecv receives on (FI_CLAIM, same context).
 *    rxm (1.17) cannot claim: FI_CLAIM of a segmented (SAR) message
 *    receives its first segment only and hangs or truncates, and its
 *    peek reports no remote CQ data. There a claiming probe peeks
 *    without FI_CLAIM and at once posts a receive of exactly the
 *    message's tag (which names the sender: nothing earlier in the
 *    unexpected queue has it, or the peek would have found that) into a
 *    buffer of the device's, which mrecv copies out. A synchronous
 *    sender's ack goes once per message: at the claim when the peek
 *    showed the data, else when the claimed message's receive completes.
 *  - finalize flushes: a provider with manual progress (tcp, which is
 *    rxm over tcp) may still hold injected bytes when MPI_Finalize enters
 *    the fence, where nobody progresses it. The first pending() call
 *    after the last send sends a zero-byte message to every rank that an
 *    inject went to: its completion, ordered after the injects, says
 *    they left. The flushes count as pending for at most
 *    ofi_finalize_timeout, since a rank already in the fence may never
 *    accept the connection they need.
 */
#include "config.h"
#include "../device.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_tagged.h>

/*
 * libfabric's functions that are not inline (the rest go through the
 * provider's ops tables), resolved when the device starts
 * (michi_devlib_open): linked into libmpi, libfabric's dependencies cost
 * every Michi process start-up time. After the table, each name stands
 * for its pointer.
 */
#define OFI_LIB_FUNCS(X) X(fi_getinfo) X(fi_freeinfo) X(fi_dupinfo) X(fi_fabric) \
	X(fi_strerror) X(fi_version)
#define OFI_LIB_DECL(f) __typeof__(f) *f;
#define OFI_LIB_SYM(f) { #f, (void **)&ofi_lib.f },
static struct {
	OFI_LIB_FUNCS(OFI_LIB_DECL)
	void *handle;
} ofi_lib;
static const struct michi_devlib_sym ofi_lib_syms[] = { OFI_LIB_FUNCS(OFI_LIB_SYM) { NULL, NULL } };
static const char *const ofi_lib_names[] = { "libfabric.so.1", "libfabric.so", NULL };
#define fi_getinfo ofi_lib.fi_getinfo
#define fi_freeinfo ofi_lib.fi_freeinfo
#define fi_dupinfo ofi_lib.fi_dupinfo
#define fi_fabric ofi_lib.fi_fabric
#define fi_strerror ofi_lib.fi_strerror
#define fi_version ofi_lib.fi_version

_Static_assert(sizeof(struct fi_context) <= MICHI_TAG_CTX_SIZE,
	       "libfabric's operation context fits MTMI's request area");

static double ofi_send_timeout = 60.0;
MICHI_TUNABLE(ofi_send_timeout, "ofi_send_timeout", MICHI_T_DOUBLE, "60", MICHI_LEVEL_TUNER,
	      "seconds a send or receive may keep finding libfabric's queues full (-FI_EAGAIN) "
	      "before it fails");
static double ofi_finalize_timeout = 2.0;
MICHI_TUNABLE(ofi_finalize_timeout, "ofi_finalize_timeout", MICHI_T_DOUBLE, "2",
	      MICHI_LEVEL_TUNER, "seconds finalize waits for the ofi device's sends in flight");
static int ofi_allow_shm = 0;
MICHI_TUNABLE(ofi_allow_shm, "ofi_allow_shm", MICHI_T_BOOL, "0", MICHI_LEVEL_DEVELOPER,
	      "run over libfabric's shm provider even where it is known to lose messages "
	      "(libfabric 1.17 and older)");
static size_t ofi_inject_limit = 4096;
MICHI_TUNABLE(ofi_inject_limit, "ofi_inject_limit", MICHI_T_SIZE, "4096", MICHI_LEVEL_TUNER,
	      "largest message the ofi device injects (capped by the provider's inject size)");

/* The source-rank field of MTMI's match tag (devices/device.h). */
#define OFI_SRC_SHIFT MICHI_TAG_SRC_SHIFT
#define OFI_SRC_MASK MICHI_TAG_SRC_MASK
/* The ack's tag: the message's, bit 63 set, the acking (receiving)
 * world rank as the source. */
#define OFI_ACK_TAG(tag, world_rank) \
	(MICHI_TAG_DEVICE_BIT | ((tag) & ~OFI_SRC_MASK) | \
	 (uint64_t)(uint32_t)(world_rank) << OFI_SRC_SHIFT)
/* A tag no ack takes (context 4095, the largest rank and tag -1, which
 * is MTMI_ANY_TAG and never sent), and that no receive is posted for. */
#define OFI_FLUSH_TAG (~0ull)
#define OFI_CQ_BATCH 16
/* a truncated receive whose capacity the provider did not say */
#define OFI_LEN_UNKNOWN SIZE_MAX
#define OFI_POOL_CHUNK 256
#define OFI_POOL_CHUNKS 64

enum ofi_op_kind {
	OFI_OP_FREE,
	OFI_OP_SYNC,     /* a synchronous send: [0] the ack's receive, [1] the send */
	OFI_OP_PEEK,     /* a probe waiting for its answer */
	OFI_OP_CLAIMED,  /* a claimed message: its handle, then its receive */
	OFI_OP_BUFFERED, /* a claimed message received into our buffer (rxm) */
	OFI_OP_ACK,      /* an ack the provider refused (-FI_EAGAIN), retried */
	OFI_OP_FLUSH,    /* finalize's zero-byte send */
	OFI_OP_QSEND,    /* a send the provider refused (-FI_EAGAIN), queued */
};

struct ofi_op {
	struct fi_context fctx[2];
	struct ofi_op *next;      /* free list, ack retry list */
	void *mtmi_ctx;           /* sync send, claimed receive: MTMI's; NULL: nobody's */
	uint64_t tag;
	uint64_t data;
	size_t len;               /* claimed: the receive's capacity; peek: message length */
	int kind;
	int left;                 /* sync: completions still due (send, ack) */
	int peer;                 /* ack: whom to */
	int answered, found;      /* peek; buffered: the receive completed */
	int has_data;             /* claimed: the message carried remote CQ data */
	int acked;                /* claimed, buffered: the sender's ack went */
	const void *buf;          /* queued send: its payload (copy or MTMI's buffer) */
	void *copy;               /* queued send of an inject's size, buffered: our copy */
	void *dst;                /* buffered: mrecv's buffer */
	size_t cap;               /* buffered: mrecv's capacity */
	double deadline;          /* queued send: fails after it */
	michi_status_t st;
};

struct ofi_state {
	/* hot: read by every send and receive */
	struct fid_ep *ep;
	size_t inject_size;
	uint64_t addr_mask;       /* ~0 (FI_ADDR_UNSPEC) when receives are not directed */
	size_t inflight;          /* sends and own operations that pending() counts */
	uint8_t *touched;         /* per rank: injected to since the last flush */
	uintptr_t pool_lo, pool_hi;

	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	int wait_fd;              /* the CQ's, or -1 */
	/* the CQ flags that say remote data came: sockets (1.17) delivers
	 * the data without FI_REMOTE_CQ_DATA, and 0 when none was sent */
	uint64_t data_flag;
	const char *prov;
	int rank, size;
	int inited, directed;
	int claim_buffered;       /* rxm: claims receive into our buffer */
	int progress_depth;
	int flushing;             /* 0 none, 1 flushes out */
	size_t nflush;
	double flush_deadline;

	struct ofi_op *chunks[OFI_POOL_CHUNKS];
	int nchunks;
	struct ofi_op *free_ops;
	struct ofi_op *acks, **acks_tail;   /* refused acks, in order */
	struct ofi_op *sendq, **sendq_tail; /* refused sends, in order */
};

static struct ofi_state ofi;
/* MTMI's upcalls, copied at init (job->up) */
static struct michi_upcalls ofi_up;
/* what the inline paths read (ofi_fast.h), kept by ofi_fast_sync() */
struct ofi_fast michi_ofi_fast;

/* After ofi's ep, sendq, inject_size, addr_mask or touched changed. */
static void ofi_fast_sync(void)
{
	michi_ofi_fast.ep = ofi.ep;
	michi_ofi_fast.inject_lim = ofi.ep && !ofi.sendq ? ofi.inject_size + 1 : 0;
	michi_ofi_fast.addr_mask = ofi.addr_mask;
	michi_ofi_fast.touched = ofi.touched;
}

static int ofi_progress(void);
static void ofi_sendq_drain(void);

/* ---- the pool of the device's own operations -------------------------- */

static __attribute__((noinline)) struct ofi_op *ofi_op_get(int kind)
{
	struct ofi_op *op = ofi.free_ops;
	int i;

	if (!op) {
		struct ofi_op *c;

		if (ofi.nchunks == OFI_POOL_CHUNKS) {
			michi_err(MICHI_ERR_NOMEM, "ofi: more than %d device operations in flight "
				  "(synchronous sends, claimed messages)",
				  OFI_POOL_CHUNKS * OFI_POOL_CHUNK);
			return NULL;
		}
		c = calloc(OFI_POOL_CHUNK, sizeof(*c));
		if (!c) {
			michi_err(MICHI_ERR_NOMEM, "ofi: no memory for device operations");
			return NULL;
		}
		ofi.chunks[ofi.nchunks++] = c;
		for (i = OFI_POOL_CHUNK - 1; i >= 0; i--) {
			c[i].next = ofi.free_ops;
			ofi.free_ops = &c[i];
		}
		if (!ofi.pool_lo || (uintptr_t)c < ofi.pool_lo)
			ofi.pool_lo = (uintptr_t)c;
		if ((uintptr_t)(c + OFI_POOL_CHUNK) > ofi.pool_hi)
			ofi.pool_hi = (uintptr_t)(c + OFI_POOL_CHUNK);
		op = ofi.free_ops;
	}
	ofi.free_ops = op->next;
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	return op;
}

static void ofi_op_put(struct ofi_op *op)
{
	op->kind = OFI_OP_FREE;
	op->next = ofi.free_ops;
	ofi.free_ops = op;
}

/* The op whose fi_context ctx is, or NULL when ctx is MTMI's. */
static inline struct ofi_op *ofi_op_of(void *ctx)
{
	uintptr_t a = (uintptr_t)ctx;
	int i;

	if (likely(a < ofi.pool_lo || a >= ofi.pool_hi))
		return NULL;
	for (i = 0; i < ofi.nchunks; i++) {
		uintptr_t lo = (uintptr_t)ofi.chunks[i];

		if (a >= lo && a < lo + OFI_POOL_CHUNK * sizeof(struct ofi_op))
			return &ofi.chunks[i][(a - lo) / sizeof(struct ofi_op)];
	}
	return NULL;
}

/* ---- errors ------------------------------------------------------------ */

static __attribute__((cold)) michi_status_t ofi_fail(const char *call, ssize_t rc)
{
	return michi_err(MICHI_ERR_IO, "ofi: %s failed (provider %s): %s", call,
			 ofi.prov ? ofi.prov : "?", fi_strerror((int)-rc));
}

static __attribute__((cold)) michi_status_t ofi_fail_peer(const char *call, int peer, ssize_t rc)
{
	return michi_err(MICHI_ERR_PEER, "ofi: %s to rank %d failed (provider %s): %s", call,
			 peer, ofi.prov ? ofi.prov : "?", fi_strerror((int)-rc));
}

/* ---- acks of synchronous sends ---------------------------------------- */

static void ofi_ack_queue(int peer, uint64_t tag)
{
	struct ofi_op *op = ofi_op_get(OFI_OP_ACK);

	if (!op) {
		michi_error("ofi: the ack of a synchronous send from rank %d is lost: %s", peer,
			    michi_err_msg());
		return;
	}
	op->peer = peer;
	op->tag = tag;
	*ofi.acks_tail = op;
	ofi.acks_tail = &op->next;
	ofi.inflight++;
}

/* A receive matched a message that a synchronous send sent: tell it. */
static void ofi_ack_send(uint64_t data, uint64_t tag)
{
	int peer = (int)(data >> 1);
	uint64_t t = OFI_ACK_TAG(tag, ofi.rank);
	ssize_t rc;

	if (unlikely(peer >= ofi.size)) {
		michi_error("ofi: remote data %#llx names no rank", (unsigned long long)data);
		return;
	}
	/* behind refused acks: acks to one rank keep their order */
	if (!ofi.acks) {
		rc = fi_tinject(ofi.ep, NULL, 0, (fi_addr_t)peer, t);
		if (rc == 0) {
			ofi.touched[peer] = 1;
			return;
		}
		if (rc != -FI_EAGAIN) {
			ofi_fail_peer("fi_tinject (synchronous send's ack)", peer, rc);
			michi_error("%s", michi_err_msg());
			return;
		}
	}
	ofi_ack_queue(peer, t);
}

static void ofi_ack_retry(void)
{
	while (ofi.acks) {
		struct ofi_op *op = ofi.acks;
		ssize_t rc = fi_tinject(ofi.ep, NULL, 0, (fi_addr_t)op->peer, op->tag);

		if (rc == -FI_EAGAIN)
			return;
		if (rc != 0) {
			ofi_fail_peer("fi_tinject (synchronous send's ack)", op->peer, rc);
			michi_error("%s", michi_err_msg());
		} else {
			ofi.touched[op->peer] = 1;
		}
		ofi.acks = op->next;
		if (!ofi.acks)
			ofi.acks_tail = &ofi.acks;
		ofi.inflight--;
		ofi_op_put(op);
	}
}

/* ---- completions -------------------------------------------------------- */

/* A synchronous send's half (send or ack) ended with st. */
static void ofi_sync_half(struct ofi_op *op, michi_status_t st)
{
	if (st < 0 && op->st == MICHI_OK)
		op->st = st;
	if (--op->left > 0)
		return;
	if (op->mtmi_ctx) {
		ofi.inflight--;
		ofi_up.tag_done(op->mtmi_ctx, op->st, op->tag, op->len);
	}
	ofi_op_put(op);
}

/* A message received into our buffer met its mrecv: hand it over. */
static void ofi_buffered_done(struct ofi_op *op)
{
	michi_status_t st = op->st;
	size_t n = op->len;

	if (st == MICHI_OK && n > op->cap) {
		st = MICHI_ERR_TRUNCATE;
		n = op->cap;
	}
	if ((st == MICHI_OK || st == MICHI_ERR_TRUNCATE) && n > 0)
		memcpy(op->dst, op->copy, n);
	free(op->copy);
	op->copy = NULL;
	ofi_up.tag_done(op->mtmi_ctx, st, op->tag, op->len);
	ofi_op_put(op);
}

/* One of the device's own operations completed (st 0) or failed. */
static void ofi_own_done(struct ofi_op *op, void *ctx, michi_status_t st, uint64_t flags,
			 uint64_t tag, size_t len, uint64_t data)
{
	switch (op->kind) {
	case OFI_OP_SYNC:
		/* a failed ack receive (cancelled after a failed send) is no
		 * news; a failed send is */
		ofi_sync_half(op, ctx == &op->fctx[1] ? st : MICHI_OK);
		break;
	case OFI_OP_PEEK:
		op->answered = 1;
		if (st == MICHI_OK) {
			op->found = 1;
			op->tag = tag;
			op->len = len;
			op->has_data = !!(flags & ofi.data_flag);
			op->data = data;
		} else {
			op->st = st;
		}
		break;
	case OFI_OP_CLAIMED:
		if (!op->acked && (flags & ofi.data_flag) && (data & 1))
			ofi_ack_send(data, op->tag);
		if (st == MICHI_ERR_TRUNCATE)
			len = op->len;
		ofi_up.tag_done(op->mtmi_ctx, st, op->tag, len);
		ofi_op_put(op);
		break;
	case OFI_OP_BUFFERED:
		if (!op->acked && (flags & ofi.data_flag) && (data & 1))
			ofi_ack_send(data, op->tag);
		op->acked = 1;
		op->answered = 1;
		op->st = st;
		/* our buffer has the probed length: a shorter message says so */
		if (st == MICHI_OK && len < op->len)
			op->len = len;
		if (op->mtmi_ctx)
			ofi_buffered_done(op);
		break;
	case OFI_OP_FLUSH:
		if (ofi.nflush > 0) {
			ofi.nflush--;
			ofi.inflight--;
		}
		ofi_op_put(op);
		break;
	default:
		michi_error("ofi: completion of a free device operation (%d)", op->kind);
		break;
	}
}

static __attribute__((noinline, cold)) int ofi_cq_error(void)
{
	struct fi_cq_err_entry e;
	michi_status_t st;
	struct ofi_op *op;
	ssize_t rc;
	size_t len;

	memset(&e, 0, sizeof(e));
	rc = fi_cq_readerr(ofi.cq, &e, 0);
	if (rc == -FI_EAGAIN)
		return 0;
	if (rc < 0)
		return ofi_fail("fi_cq_readerr", rc);
	op = ofi_op_of(e.op_context);
	/* shm (1.17) reports its errors negated */
	if (e.err < 0)
		e.err = -e.err;
	if (e.err == FI_ETRUNC) {
		st = MICHI_ERR_TRUNCATE;
	} else if (e.err == FI_ECANCELED) {
		st = MICHI_ERR_CANCELLED;
	} else if (e.err == FI_ENOMSG && op && op->kind == OFI_OP_PEEK) {
		op->answered = 1;
		return 1;
	} else {
		char buf[256];

		st = michi_err(MICHI_ERR_IO, "ofi: %s failed (provider %s): %s (%s)",
			       e.flags & FI_SEND ? "a send" : e.flags & FI_RECV ? "a receive" :
			       "an operation", ofi.prov, fi_strerror(e.err),
			       fi_cq_strerror(ofi.cq, e.prov_errno, e.err_data, buf, sizeof(buf)));
	}
	/* a truncated receive delivered its capacity: rxm and sockets
	 * report the message's length and olen what was cut; shm reports
	 * neither (0, 0), and MTMI then keeps the capacity it knows */
	len = e.len;
	if (st == MICHI_ERR_TRUNCATE)
		len = e.olen > 0 && e.olen <= e.len ? e.len - e.olen : OFI_LEN_UNKNOWN;
	michi_debug("ofi: completion error %d (%s), len %zu olen %zu, flags %#llx buf %p", e.err,
		    fi_strerror(e.err), e.len, e.olen, (unsigned long long)e.flags, e.buf);
	if (op) {
		ofi_own_done(op, e.op_context, st, e.flags, e.tag, len, e.data);
		return 1;
	}
	if (e.flags & FI_SEND)
		ofi.inflight--;
	else
		michi_ofi_fast.nrecv--;
	if (!(e.flags & FI_SEND) && st == MICHI_ERR_TRUNCATE && (e.flags & ofi.data_flag) &&
	    (e.data & 1))
		ofi_ack_send(e.data, e.tag);
	ofi_up.tag_done(e.op_context, st, e.tag, len);
	return 1;
}

static __attribute__((noinline)) void ofi_entry_own(struct fi_cq_tagged_entry *e,
						    struct ofi_op *op)
{
	ofi_own_done(op, e->op_context, MICHI_OK, e->flags, e->tag, e->len, e->data);
}

/*
 * Read the CQ in batches. Upcalls may start sends, whose -FI_EAGAIN
 * path comes back here: the nested call reads the entries after ours.
 */
static int ofi_progress(void)
{
	struct fi_cq_tagged_entry e[OFI_CQ_BATCH];
	ssize_t n, i;

	n = fi_cq_read(ofi.cq, e, OFI_CQ_BATCH);
	if (n <= 0) {
		if (unlikely(ofi.acks != NULL))
			ofi_ack_retry();
		if (unlikely(ofi.sendq != NULL))
			ofi_sendq_drain();
		if (likely(n == -FI_EAGAIN))
			return 0;
		if (n == -FI_EAVAIL)
			return ofi_cq_error();
		return n == 0 ? 0 : ofi_fail("fi_cq_read", n);
	}
	for (i = 0; i < n; i++) {
		struct ofi_op *op = ofi_op_of(e[i].op_context);

		if (unlikely(op != NULL)) {
			ofi_entry_own(&e[i], op);
			continue;
		}
		if (e[i].flags & FI_SEND) {
			ofi.inflight--;
			ofi_up.tag_done(e[i].op_context, MICHI_OK, 0, 0);
			continue;
		}
		michi_ofi_fast.nrecv--;
		if (unlikely(e[i].flags & ofi.data_flag) && (e[i].data & 1))
			ofi_ack_send(e[i].data, e[i].tag);
		ofi_up.tag_done(e[i].op_context, MICHI_OK, e[i].tag, e[i].len);
	}
	if (unlikely(ofi.acks != NULL))
		ofi_ack_retry();
	if (unlikely(ofi.sendq != NULL))
		ofi_sendq_drain();
	return (int)n;
}

/* -FI_EAGAIN: progress, and tell whether to try again. */
static __attribute__((noinline)) int ofi_again(double *deadline)
{
	double now = michi_wtime();

	if (*deadline == 0)
		*deadline = now + ofi_send_timeout;
	else if (ofi_send_timeout > 0 && now > *deadline)
		return 0;
	ofi.progress_depth++;
	if (ofi_progress() < 0) {
		ofi.progress_depth--;
		return 0;
	}
	ofi.progress_depth--;
	return 1;
}

/* ---- tagged operations ------------------------------------------------- */

/* Put the queue's sends out in order, until the provider refuses one. */
static void ofi_sendq_drain(void)
{
	while (ofi.sendq) {
		struct ofi_op *op = ofi.sendq;
		ssize_t rc;

		if (op->mtmi_ctx)
			rc = fi_tsend(ofi.ep, op->buf, op->len, NULL, (fi_addr_t)op->peer, op->tag,
				      op->mtmi_ctx);
		else
			rc = fi_tinject(ofi.ep, op->buf, op->len, (fi_addr_t)op->peer, op->tag);
		if (rc == -FI_EAGAIN) {
			if (ofi_send_timeout <= 0 || michi_wtime() < op->deadline)
				return;
			rc = -FI_ETIMEDOUT;
		}
		ofi.sendq = op->next;
		if (!ofi.sendq) {
			ofi.sendq_tail = &ofi.sendq;
			ofi_fast_sync();
		}
		if (rc == 0) {
			/* a send with a context stays counted until its completion */
			if (!op->mtmi_ctx) {
				ofi.inflight--;
				ofi.touched[op->peer] = 1;
			}
		} else {
			michi_status_t st = michi_err(MICHI_ERR_PEER, "ofi: send of %zu bytes to "
						      "rank %d failed (provider %s): %s%s",
						      op->len, op->peer, ofi.prov,
						      fi_strerror((int)-rc),
						      rc == -FI_ETIMEDOUT ? " (refused for longer "
						      "than ofi_send_timeout)" : "");

			ofi.inflight--;
			if (op->mtmi_ctx)
				ofi_up.tag_done(op->mtmi_ctx, st, op->tag, op->len);
			else
				michi_error("%s", michi_err_msg());
		}
		free(op->copy);
		ofi_op_put(op);
	}
}

/*
 * The provider refused a send for now (-FI_EAGAIN: rxm while it
 * connects to a peer that has not made progress yet, full queues), or
 * sends wait before it: queue it, behind them (MPI's order). A message
 * small enough to inject is copied and complete, as it would have been;
 * a larger one keeps MTMI's buffer and context.
 */
static __attribute__((noinline, cold)) michi_status_t
ofi_send_queue(int peer, const void *buf, size_t len, uint64_t tag, void *ctx, ssize_t rc)
{
	int inject = len <= ofi.inject_size;
	struct ofi_op *op;

	if (rc != -FI_EAGAIN) {
		if (peer < 0 || peer >= ofi.size)
			return michi_err(MICHI_ERR_INVAL, "ofi: send to rank %d, the job has %d",
					 peer, ofi.size);
		return ofi_fail_peer(inject ? "fi_tinject" : "fi_tsend", peer, rc);
	}
	op = ofi_op_get(OFI_OP_QSEND);
	if (!op)
		return michi_err(MICHI_ERR_NOMEM, "ofi: send to rank %d: %s", peer,
				 michi_err_msg());
	op->peer = peer;
	op->tag = tag;
	op->len = len;
	op->deadline = michi_wtime() + ofi_send_timeout;
	if (inject) {
		op->copy = malloc(len ? len : 1);
		if (!op->copy) {
			ofi_op_put(op);
			return michi_err(MICHI_ERR_NOMEM, "ofi: no memory to queue a send of %zu "
					 "bytes to rank %d", len, peer);
		}
		memcpy(op->copy, buf, len);
		op->buf = op->copy;
	} else {
		op->buf = buf;
		op->mtmi_ctx = ctx;
	}
	*ofi.sendq_tail = op;
	ofi.sendq_tail = &op->next;
	ofi_fast_sync();
	ofi.inflight++;
	ofi_sendq_drain();
	return inject ? MICHI_OK : MICHI_INPROGRESS;
}

static __attribute__((noinline)) michi_status_t
ofi_ssend(int peer, const void *buf, size_t len, uint64_t tag, void *ctx)
{
	struct ofi_op *op = ofi_op_get(OFI_OP_SYNC);
	uint64_t data = (uint64_t)ofi.rank << 1 | 1;
	double deadline = 0;
	ssize_t rc;

	if (!op)
		return michi_err(MICHI_ERR_NOMEM, "ofi: synchronous send to rank %d: %s", peer,
				 michi_err_msg());
	/* behind the queued sends: wait for them (a synchronous send may) */
	while (ofi.sendq)
		if (!ofi_again(&deadline)) {
			ofi_op_put(op);
			return michi_err(MICHI_ERR_PEER, "ofi: synchronous send to rank %d: "
					 "earlier sends still refused after %g s", peer,
					 ofi_send_timeout);
		}
	op->tag = tag;
	op->len = len;
	op->left = 2;
	/* the ack's receive first: the ack may overtake the send's completion */
	while ((rc = fi_trecv(ofi.ep, NULL, 0, NULL, (fi_addr_t)(int64_t)peer | ofi.addr_mask,
			      OFI_ACK_TAG(tag, peer), 0, &op->fctx[0])) == -FI_EAGAIN)
		if (!ofi_again(&deadline))
			break;
	if (rc != 0) {
		ofi_op_put(op);
		return ofi_fail_peer("fi_trecv (synchronous send's ack)", peer, rc);
	}
	while ((rc = fi_tsenddata(ofi.ep, buf, len, NULL, data, (fi_addr_t)peer, tag,
				  &op->fctx[1])) == -FI_EAGAIN)
		if (!ofi_again(&deadline))
			break;
	if (rc != 0) {
		/* the send never started: the ack's receive goes, its
		 * cancellation frees op, nobody is told */
		op->left = 1;
		fi_cancel(&ofi.ep->fid, &op->fctx[0]);
		return ofi_fail_peer("fi_tsenddata (synchronous send)", peer, rc);
	}
	op->mtmi_ctx = ctx;
	ofi.inflight++;
	return MICHI_INPROGRESS;
}

static michi_status_t ofi_tag_send(int peer, const void *buf, size_t len, uint64_t tag, int sync,
				   void *ctx)
{
	ssize_t rc;

	if (unlikely(sync))
		return ofi_ssend(peer, buf, len, tag, ctx);
	if (unlikely(ofi.sendq != NULL))
		return ofi_send_queue(peer, buf, len, tag, ctx, -FI_EAGAIN);
	if (len <= ofi.inject_size) {
		rc = fi_tinject(ofi.ep, buf, len, (fi_addr_t)peer, tag);
		if (likely(rc == 0)) {
			ofi.touched[peer] = 1;
			return MICHI_OK;
		}
	} else {
		rc = fi_tsend(ofi.ep, buf, len, NULL, (fi_addr_t)peer, tag, ctx);
		if (likely(rc == 0)) {
			ofi.inflight++;
			return MICHI_INPROGRESS;
		}
	}
	return ofi_send_queue(peer, buf, len, tag, ctx, rc);
}

michi_status_t ofi_inject_refused(void *ctx)
{
	struct ofi_inject_args a = *(struct ofi_inject_args *)ctx;

	_Static_assert(sizeof(struct ofi_inject_args) <= MICHI_TAG_CTX_SIZE,
		       "an inject's arguments fit MTMI's request area");
	return ofi_tag_send(a.peer, a.buf, a.len, a.tag, 0, ctx);
}

static __attribute__((noinline, cold)) michi_status_t
ofi_recv_slow(int peer, void *buf, size_t len, uint64_t tag, uint64_t ignore, void *ctx,
	      ssize_t rc)
{
	double deadline = 0;

	while (rc == -FI_EAGAIN) {
		if (!ofi_again(&deadline))
			return michi_err(MICHI_ERR_IO, "ofi: receive of %zu bytes: the provider "
					 "(%s) refused it for %g s (tunable ofi_send_timeout)",
					 len, ofi.prov, ofi_send_timeout);
		rc = fi_trecv(ofi.ep, buf, len, NULL, (fi_addr_t)(int64_t)peer | ofi.addr_mask,
			      tag, ignore, ctx);
	}
	if (rc == 0)
		return MICHI_OK;
	return ofi_fail("fi_trecv", rc);
}

static michi_status_t ofi_tag_recv(int peer, void *buf, size_t len, uint64_t tag, uint64_t ignore,
				   void *ctx)
{
	return ofi_recv_fast(peer, buf, len, tag, ignore, ctx);
}

michi_status_t ofi_recv_refused(ssize_t rc)
{
	michi_status_t st = ofi_recv_slow(michi_ofi_fast.rx.peer, michi_ofi_fast.rx.buf,
					  michi_ofi_fast.rx.len, michi_ofi_fast.rx.tag,
					  michi_ofi_fast.rx.ignore, michi_ofi_fast.rx.ctx, rc);

	if (st < 0)
		michi_ofi_fast.nrecv--;   /* never posted: no completion comes */
	return st;
}

/*
 * rxm: take the message a peek found out of matching by receiving it,
 * exactly its tag, into a buffer of ours (the header comment says why).
 */
static __attribute__((noinline)) int ofi_claim_buffered(struct ofi_op *op, fi_addr_t addr,
							 void **msg)
{
	double deadline = 0;
	ssize_t rc;

	op->kind = OFI_OP_BUFFERED;
	op->answered = 0;
	op->st = MICHI_OK;
	op->copy = malloc(op->len ? op->len : 1);
	if (!op->copy) {
		ofi_op_put(op);
		return michi_err(MICHI_ERR_NOMEM, "ofi: no memory to claim a message of %zu bytes",
				 op->len);
	}
	while ((rc = fi_trecv(ofi.ep, op->copy, op->len, NULL, addr, op->tag, 0,
			      &op->fctx[0])) == -FI_EAGAIN)
		if (!ofi_again(&deadline))
			break;
	if (rc != 0) {
		free(op->copy);
		ofi_op_put(op);
		return ofi_fail("fi_trecv (claimed message)", rc);
	}
	*msg = op;
	return 1;
}

static int ofi_tag_probe(int peer, uint64_t tag, uint64_t ignore, int claim, uint64_t *tag_out,
			 size_t *len_out, void **msg)
{
	struct ofi_op *op = ofi_op_get(OFI_OP_PEEK);
	struct fi_msg_tagged m;
	double deadline = 0, answer_by;
	ssize_t rc;
	int found;

	if (!op)
		return michi_err(MICHI_ERR_NOMEM, "ofi: probe: %s", michi_err_msg());
	memset(&m, 0, sizeof(m));
	m.addr = (fi_addr_t)(int64_t)peer | ofi.addr_mask;
	m.tag = tag;
	m.ignore = ignore;
	m.context = &op->fctx[0];
	while ((rc = fi_trecvmsg(ofi.ep, &m, FI_PEEK | (claim && !ofi.claim_buffered ?
							 FI_CLAIM : 0))) == -FI_EAGAIN)
		if (!ofi_again(&deadline))
			break;
	if (rc != 0) {
		ofi_op_put(op);
		return ofi_fail("fi_trecvmsg (FI_PEEK)", rc);
	}
	/* the answer comes through the CQ, at once on the providers here */
	answer_by = michi_wtime() + (ofi_send_timeout > 0 ? ofi_send_timeout : 60);
	while (!op->answered) {
		int n = ofi_progress();

		if (n < 0) {
			/* op stays: the answer may still come and must find it */
			return n;
		}
		if (n == 0 && michi_wtime() > answer_by)
			return michi_err(MICHI_ERR_IO, "ofi: the provider (%s) did not answer a "
					 "probe (FI_PEEK) within %g s", ofi.prov,
					 ofi_send_timeout > 0 ? ofi_send_timeout : 60);
	}
	if (op->st < 0) {
		michi_status_t st = op->st;

		ofi_op_put(op);
		return st;
	}
	found = op->found;
	if (found) {
		*tag_out = op->tag;
		*len_out = op->len;
	}
	if (found && claim) {
		if (ofi.claim_buffered)
			return ofi_claim_buffered(op, m.addr, msg);
		/* claimed: matched, as far as a synchronous sender cares */
		if (op->has_data && (op->data & 1)) {
			ofi_ack_send(op->data, op->tag);
			op->acked = 1;
		}
		op->kind = OFI_OP_CLAIMED;
		op->answered = 0;
		*msg = op;
		return 1;
	}
	ofi_op_put(op);
	return found;
}

static michi_status_t ofi_tag_mrecv(void *msg, void *buf, size_t len, void *ctx)
{
	struct ofi_op *op = msg;
	struct fi_msg_tagged m;
	struct iovec iov = { buf, len };
	double deadline = 0;
	ssize_t rc;

	if (op && op->kind == OFI_OP_BUFFERED) {
		op->dst = buf;
		op->cap = len;
		op->mtmi_ctx = ctx;
		if (op->answered)
			ofi_buffered_done(op);
		return MICHI_OK;
	}
	if (!op || op->kind != OFI_OP_CLAIMED)
		return michi_err(MICHI_ERR_INVAL, "ofi: matched receive of a message no probe "
				 "claimed");
	op->mtmi_ctx = ctx;
	op->len = len;
	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.iov_count = 1;
	m.addr = FI_ADDR_UNSPEC;
	m.tag = op->tag;
	m.context = &op->fctx[0];   /* the peek's: FI_CLAIM finds the message by it */
	while ((rc = fi_trecvmsg(ofi.ep, &m, FI_CLAIM)) == -FI_EAGAIN)
		if (!ofi_again(&deadline))
			break;
	if (rc != 0)
		return ofi_fail("fi_trecvmsg (FI_CLAIM)", rc);
	return MICHI_OK;
}

static michi_status_t ofi_tag_cancel(void *ctx)
{
	ssize_t rc = fi_cancel(&ofi.ep->fid, ctx);

	/* -FI_ENOENT: it completed first, and the CQ says so */
	if (rc != 0 && rc != -FI_ENOENT)
		michi_debug("ofi: fi_cancel: %s", fi_strerror((int)-rc));
	return MICHI_OK;
}

const struct michi_tag_ops michi_ofi_tag_ops = {
	.send = ofi_tag_send,
	.recv = ofi_tag_recv,
	.probe = ofi_tag_probe,
	.mrecv = ofi_tag_mrecv,
	.cancel = ofi_tag_cancel,
};

/* ---- device entry points ----------------------------------------------- */

static michi_status_t ofi_send_frame(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	(void)iov;
	(void)iovcnt;
	(void)cookie;
	return michi_err(MICHI_ERR_UNSUPPORTED, "ofi: a matching device carries no frames "
			 "(rank %d)", peer);
}

static void ofi_flush_start(void)
{
	int i;

	ofi.flushing = 1;
	ofi.flush_deadline = michi_wtime() + ofi_finalize_timeout;
	for (i = 0; i < ofi.size; i++) {
		struct ofi_op *op;
		ssize_t rc;

		if (!ofi.touched[i])
			continue;
		ofi.touched[i] = 0;
		op = ofi_op_get(OFI_OP_FLUSH);
		if (!op)
			return;
		rc = fi_tsend(ofi.ep, NULL, 0, NULL, (fi_addr_t)i, OFI_FLUSH_TAG, &op->fctx[0]);
		if (rc != 0) {
			/* a full queue is a queue that progress is draining */
			michi_debug("ofi: flush to rank %d: %s", i, fi_strerror((int)-rc));
			ofi_op_put(op);
			continue;
		}
		ofi.nflush++;
		ofi.inflight++;
	}
}

static size_t ofi_pending(void)
{
	if (!ofi.inited)
		return 0;
	/* called by MPI_Finalize only: once the sends are out, flush */
	if (ofi.inflight > ofi.nflush)
		return ofi.inflight;
	if (!ofi.flushing) {
		ofi_flush_start();
	} else if (ofi.nflush && michi_wtime() > ofi.flush_deadline) {
		michi_debug("ofi: %zu finalize flushes unanswered after %g s", ofi.nflush,
			    ofi_finalize_timeout);
		ofi.inflight -= ofi.nflush;
		ofi.nflush = 0;
	}
	return ofi.inflight;
}

static int ofi_wait_fd(void)
{
	return -1;
}

/*
 * fi_trywait says whether sleeping on the CQ's fd is safe (nothing
 * ready, the provider armed it); with no fd the sleep stays short.
 */
static int ofi_block(int timeout_ms)
{
	if (ofi.wait_fd >= 0) {
		struct fid *f = &ofi.cq->fid;
		struct pollfd p = { ofi.wait_fd, POLLIN, 0 };

		if (fi_trywait(ofi.fabric, &f, 1) != FI_SUCCESS)
			return 0;
		return poll(&p, 1, timeout_ms);
	} else {
		struct timespec ts = { 0, 50 * 1000 };

		if (timeout_ms)
			nanosleep(&ts, NULL);
		return 0;
	}
}

static void ofi_close_all(void)
{
	int i;

	if (ofi.ep)
		fi_close(&ofi.ep->fid);
	if (ofi.av)
		fi_close(&ofi.av->fid);
	if (ofi.cq)
		fi_close(&ofi.cq->fid);
	if (ofi.domain)
		fi_close(&ofi.domain->fid);
	if (ofi.fabric)
		fi_close(&ofi.fabric->fid);
	if (ofi.info)
		fi_freeinfo(ofi.info);
	for (; ofi.sendq; ofi.sendq = ofi.sendq->next)
		free(ofi.sendq->copy);
	for (i = 0; i < ofi.nchunks; i++) {
		int j;

		for (j = 0; j < OFI_POOL_CHUNK; j++)   /* claimed, never received */
			if (ofi.chunks[i][j].kind == OFI_OP_BUFFERED)
				free(ofi.chunks[i][j].copy);
		free(ofi.chunks[i]);
	}
	free(ofi.touched);
	memset(&ofi, 0, sizeof(ofi));
	ofi.wait_fd = -1;
	ofi.acks_tail = &ofi.acks;
	ofi.sendq_tail = &ofi.sendq;
	michi_ofi_fast.nrecv = 0;
	ofi_fast_sync();
}

static struct fi_info *ofi_hints(uint64_t caps)
{
	struct fi_info *h = fi_dupinfo(NULL);   /* fi_allocinfo, through the table */

	if (!h)
		return NULL;
	h->caps = caps;
	h->mode = FI_CONTEXT;
	h->ep_attr->type = FI_EP_RDM;
	h->domain_attr->av_type = FI_AV_TABLE;
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->domain_attr->mr_mode = 0;   /* we register no memory */
	/* the sync flag and the sender's rank: (rank << 1) | 1 < 2^21 */
	h->domain_attr->cq_data_size = 4;
	/* MPI's non-overtaking rule */
	h->tx_attr->msg_order = FI_ORDER_SAS;
	h->rx_attr->msg_order = FI_ORDER_SAS;
	return h;
}

static michi_status_t ofi_open(void)
{
	static const uint64_t tries[] = { FI_TAGGED | FI_DIRECTED_RECV, FI_TAGGED };
	const char *want = getenv("FI_PROVIDER");
	struct fi_cq_attr cq_attr;
	struct fi_av_attr av_attr;
	ssize_t rc = -FI_ENODATA;
	unsigned i;

	/* rxm (FI_PROVIDER=tcp) placing messages straight into receive
	 * buffers (1.17) drops the connection when one is truncated; its
	 * bounce buffers report truncation properly. Read at the first
	 * fi_getinfo: the user's own setting wins. */
	setenv("FI_OFI_RXM_ENABLE_DYN_RBUF", "0", 0);
	/* with bounce buffers, rxm's segmented protocol (SAR, up to 128 KiB
	 * by default) copies every segment once more on the receiver;
	 * rendezvous reads into the receive buffer itself: take it above
	 * the eager size (16 KiB). Streams of 64 KiB and 128 KiB messages
	 * went from 1,492 and 1,522 MB/s to 2,261 and 2,935, level with
	 * Open MPI's ofi mtl (bench/results/2026-11-26-matching-*) */
	setenv("FI_OFI_RXM_SAR_LIMIT", "16384", 0);
	/* posted receives are MPI's to count (thousands are legal), and a
	 * full queue refuses them (-FI_EAGAIN) until messages arrive that a
	 * sender may hold back until they are posted: room for more than
	 * the providers' 1024 (shm) or 2048 (rxm) (test/mpi/manyreqs) */
	setenv("FI_OFI_RXM_RX_SIZE", "65536", 0);
	setenv("FI_OFI_RXM_TX_SIZE", "65536", 0);
	setenv("FI_SHM_RX_SIZE", "16384", 0);   /* shm 1.17 crashes at 65536 */
	for (i = 0; i < sizeof(tries) / sizeof(tries[0]) && !ofi.info; i++) {
		struct fi_info *h = ofi_hints(tries[i]);

		if (!h)
			return michi_err(MICHI_ERR_NOMEM, "ofi: no memory for fi_getinfo hints");
		rc = fi_getinfo(FI_VERSION(1, 11), NULL, NULL, 0, h, &ofi.info);
		fi_freeinfo(h);
		if (rc != 0)
			ofi.info = NULL;
	}
	if (!ofi.info)
		return michi_err(MICHI_ERR_UNSUPPORTED, "ofi: no libfabric provider%s%s offers a "
				 "reliable tagged endpoint (FI_EP_RDM, FI_TAGGED, remote CQ data, "
				 "send-after-send order): %s; `fi_info -t FI_EP_RDM -c FI_TAGGED` "
				 "lists candidates, FI_PROVIDER=tcp|shm|sockets picks one",
				 want ? " named by FI_PROVIDER=" : "", want ? want : "",
				 fi_strerror((int)-rc));
	ofi.prov = ofi.info->fabric_attr->prov_name;
	/*
	 * libfabric 1.17's shm provider (Debian bookworm's) cannot carry MPI:
	 * FI_PEEK receives the message into an empty buffer (a 0-byte one is
	 * gone, a larger one reports truncation, one above the inject size
	 * hangs), and messages that arrived before a wildcard receive was
	 * posted are lost or reordered. Refuse it rather than lose data;
	 * later releases are tried, with a warning.
	 */
	if (strcmp(ofi.prov, "shm") == 0 && !ofi_allow_shm) {
		if (fi_version() <= FI_VERSION(1, 17))
			return michi_err(MICHI_ERR_UNSUPPORTED, "ofi: libfabric %u.%u's shm "
					 "provider loses or reorders messages under wildcard "
					 "receives and consumes them on probes; use "
					 "FI_PROVIDER=tcp, or MICHI_DEVICE=shm (Michi's own "
					 "shared memory); MICHI_OFI_ALLOW_SHM=1 takes it anyway",
					 FI_MAJOR(fi_version()), FI_MINOR(fi_version()));
		michi_warn("ofi: the shm provider of libfabric 1.17 lost messages; this is %u.%u",
			   FI_MAJOR(fi_version()), FI_MINOR(fi_version()));
	}
	ofi.directed = !!(ofi.info->caps & FI_DIRECTED_RECV);
	ofi.data_flag = strcmp(ofi.prov, "sockets") == 0 ? ~0ull : FI_REMOTE_CQ_DATA;
	ofi.addr_mask = ofi.directed ? 0 : FI_ADDR_UNSPEC;
	ofi.claim_buffered = strstr(ofi.prov, "ofi_rxm") != NULL;
	ofi.inject_size = ofi.info->tx_attr->inject_size;
	if (ofi.inject_size > ofi_inject_limit)
		ofi.inject_size = ofi_inject_limit;
	michi_debug("ofi: provider %s, fabric %s, domain %s, inject %zu, %sdirected receives",
		    ofi.prov, ofi.info->fabric_attr->name, ofi.info->domain_attr->name,
		    ofi.inject_size, ofi.directed ? "" : "un");

	rc = fi_fabric(ofi.info->fabric_attr, &ofi.fabric, NULL);
	if (rc != 0)
		return ofi_fail("fi_fabric", rc);
	rc = fi_domain(ofi.fabric, ofi.info, &ofi.domain, NULL);
	if (rc != 0)
		return ofi_fail("fi_domain", rc);

	memset(&cq_attr, 0, sizeof(cq_attr));
	cq_attr.format = FI_CQ_FORMAT_TAGGED;
	cq_attr.wait_obj = FI_WAIT_FD;
	rc = fi_cq_open(ofi.domain, &cq_attr, &ofi.cq, NULL);
	if (rc == 0) {
		rc = fi_control(&ofi.cq->fid, FI_GETWAIT, &ofi.wait_fd);
		if (rc != 0) {
			michi_debug("ofi: no wait fd from %s's CQ: %s", ofi.prov,
				    fi_strerror((int)-rc));
			fi_close(&ofi.cq->fid);
			ofi.cq = NULL;
			ofi.wait_fd = -1;
		}
	} else {
		michi_debug("ofi: %s has no CQ with a wait fd: %s", ofi.prov,
			    fi_strerror((int)-rc));
		ofi.cq = NULL;
	}
	if (!ofi.cq) {
		cq_attr.wait_obj = FI_WAIT_NONE;
		rc = fi_cq_open(ofi.domain, &cq_attr, &ofi.cq, NULL);
		if (rc != 0) {
			ofi.cq = NULL;
			return ofi_fail("fi_cq_open", rc);
		}
	}

	memset(&av_attr, 0, sizeof(av_attr));
	av_attr.type = FI_AV_TABLE;
	av_attr.count = (size_t)ofi.size;
	rc = fi_av_open(ofi.domain, &av_attr, &ofi.av, NULL);
	if (rc != 0)
		return ofi_fail("fi_av_open", rc);
	rc = fi_endpoint(ofi.domain, ofi.info, &ofi.ep, NULL);
	if (rc != 0)
		return ofi_fail("fi_endpoint", rc);
	rc = fi_ep_bind(ofi.ep, &ofi.cq->fid, FI_TRANSMIT | FI_RECV);
	if (rc != 0)
		return ofi_fail("fi_ep_bind (cq)", rc);
	rc = fi_ep_bind(ofi.ep, &ofi.av->fid, 0);
	if (rc != 0)
		return ofi_fail("fi_ep_bind (av)", rc);
	rc = fi_enable(ofi.ep);
	if (rc != 0)
		return ofi_fail("fi_enable", rc);
	return MICHI_OK;
}

/* A card's hex into at most max bytes: their number, or -1. */
static int ofi_unhex(const char *in, uint8_t *out, size_t max)
{
	size_t n = strlen(in);

	if (n % 2 || n / 2 > max || michi_hex_decode(in, out, n / 2) < 0)
		return -1;
	return (int)(n / 2);
}

#define OFI_NAME_MAX 256

static michi_status_t ofi_init(struct michi_job *job)
{
	uint8_t name[OFI_NAME_MAX];
	char card[2 * OFI_NAME_MAX + 1], key[32];
	size_t namelen = sizeof(name);
	michi_status_t st;
	ssize_t rc;

	michi_tunables_load();
	/* loaded once, kept for the process (sessions may start it again) */
	if (!ofi_lib.handle) {
		st = michi_devlib_open("ofi", ofi_lib_names, ofi_lib_syms, &ofi_lib.handle);
		if (st < 0)
			return st;
	}
	ofi_close_all();
	ofi_up = *job->up;
	ofi.rank = job->rank;
	ofi.size = job->size;
	ofi.touched = calloc((size_t)job->size, 1);
	if (!ofi.touched)
		return michi_err(MICHI_ERR_NOMEM, "ofi: no memory for %d ranks", job->size);
	st = ofi_open();
	if (st < 0)
		goto err_close;
	rc = fi_getname(&ofi.ep->fid, name, &namelen);
	if (rc != 0) {
		st = ofi_fail("fi_getname", rc);
		goto err_close;
	}
	michi_hex_encode(name, namelen, card);
	snprintf(key, sizeof(key), "ofi-%d", ofi.rank);
	st = job->kvs_put(key, card);
	if (st < 0) {
		michi_err(st, "ofi: cannot publish business card %s=%s", key, card);
		goto err_close;
	}
	michi_debug("ofi: rank %d card %s (provider %s)", ofi.rank, card, ofi.prov);
	ofi_fast_sync();
	ofi.inited = 1;
	return MICHI_OK;

err_close:
	ofi_close_all();
	return st;
}

/* Every rank's address, in rank order: fi_addr_t is then the rank. */
static michi_status_t ofi_post_fence(struct michi_job *job)
{
	uint8_t name[OFI_NAME_MAX];
	char card[2 * OFI_NAME_MAX + 1], key[32];
	int i;

	for (i = 0; i < job->size; i++) {
		fi_addr_t a = FI_ADDR_NOTAVAIL;
		michi_status_t st;
		int n;

		snprintf(key, sizeof(key), "ofi-%d", i);
		st = job->kvs_get(i, key, card, sizeof(card));
		if (st < 0)
			return michi_err(st, "ofi: no business card %s from rank %d (provider %s)",
					 key, i, ofi.prov);
		n = ofi_unhex(card, name, sizeof(name));
		if (n <= 0)
			return michi_err(MICHI_ERR_PEER, "ofi: rank %d's business card is "
					 "malformed: %s", i, card);
		n = fi_av_insert(ofi.av, name, 1, &a, 0, NULL);
		if (n != 1)
			return michi_err(MICHI_ERR_PEER, "ofi: fi_av_insert of rank %d (provider "
					 "%s): %s", i, ofi.prov, n < 0 ? fi_strerror(-n) :
					 "address not taken");
		if (a != (fi_addr_t)i)
			return michi_err(MICHI_ERR_INTERN, "ofi: rank %d got address %llu from "
					 "provider %s's address table", i,
					 (unsigned long long)a, ofi.prov);
	}
	return MICHI_OK;
}

static michi_status_t ofi_finalize(void)
{
	michi_status_t st = MICHI_OK;
	double deadline;

	if (!ofi.inited)
		return MICHI_OK;
	deadline = michi_wtime() + ofi_finalize_timeout;
	while (ofi.inflight > ofi.nflush && michi_wtime() < deadline)
		if (ofi_progress() < 0)
			break;
	if (ofi.inflight > ofi.nflush)
		st = michi_err(MICHI_ERR_PEER, "ofi: finalize leaves %zu sends in flight after %g s "
			       "(provider %s)", ofi.inflight - ofi.nflush, ofi_finalize_timeout,
			       ofi.prov);
	/* receives still posted are those of freed requests, which MPI_Finalize
	 * must complete: past the fence every rank's sends have left, so
	 * progress delivers their messages (a receive no message comes for is
	 * the program's error, given up after the same time) */
	while (michi_ofi_fast.nrecv > 0 && michi_wtime() < deadline)
		if (ofi_progress() < 0)
			break;
	if (michi_ofi_fast.nrecv > 0)
		michi_debug("ofi: rank %d finalize: %zu receives unmatched after %g s", ofi.rank,
			    michi_ofi_fast.nrecv, ofi_finalize_timeout);
	ofi_close_all();
	return st;
}

struct michi_device michi_device_ofi = {
	.name = "ofi",
	.init = ofi_init,
	.post_fence = ofi_post_fence,
	.finalize = ofi_finalize,
	.send = ofi_send_frame,
	.progress = ofi_progress,
	.wait_fd = ofi_wait_fd,
	.pending = ofi_pending,
	.eager_limit = 0,
	.block = ofi_block,
	.tagged = &michi_ofi_tag_ops,
	.tag_inline = MICHI_TAG_INLINE_OFI,
};
