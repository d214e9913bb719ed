/* SPDX-License-Identifier: MIT */
/*
 * devices/ucx/ucx.c: the UCX matching device (docs/design.md §3 and §4). One
 * ucp context with the tag feature and one worker per process; every
 * rank's worker address is published through PMI, and the endpoint to a
 * rank (this one included: a wildcard receive must see every message in
 * one matching engine) is created on the first send to it. MTMI's native
 * backend (mtmi/mtmi_native.h) turns each MPI call into one of the tagged
 * operations below, each one call of ucp_tag_*_nbx: UCX matches, queues
 * unexpected messages and runs its own eager and rendezvous protocols;
 * synchronous sends are UCX's (ucp_tag_send_sync_nbx), so the device's
 * tag bit 63 stays unused.
 *
 * The operations keep their state in the 32 bytes MTMI gives each
 * request (struct ucx_op): the UCX request, for cancel, and the receive's
 * capacity, which a truncation reports. The ucp_request_param_t of each
 * kind of call is built once; a call only stores its user_data. The
 * standard send and the receive are inline in ucx_fast.h, for MPI_Isend
 * and MPI_Irecv; the ops below call them too.
 *
 * Built only when configure found UCX (HAVE_UCX); devices/Makefile.inc
 * compiles this file only then.
 */
#include "config.h"
#include "device.h"

#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ucp/api/ucp.h>

/*
 * UCX's functions, resolved when the device starts (michi_devlib_open)
 * rather than linked into libmpi, so that processes that do not use UCX
 * do not load it. After the table, each name stands for its pointer (one
 * more load on the call, no other cost); ucp_init is an inline wrapper
 * of ucp_init_version, called here directly.
 */
#define UCX_LIB_FUNCS(X) X(ucp_config_read) X(ucp_config_release) X(ucp_init_version) \
	X(ucp_cleanup) X(ucp_worker_create) X(ucp_worker_destroy) X(ucp_worker_get_address) \
	X(ucp_worker_release_address) X(ucp_worker_get_efd) X(ucp_worker_arm) \
	X(ucp_worker_progress) X(ucp_ep_create) X(ucp_ep_close_nbx) X(ucp_request_free) \
	X(ucp_request_cancel) X(ucp_request_check_status) X(ucp_tag_send_nbx) \
	X(ucp_tag_send_sync_nbx) X(ucp_tag_recv_nbx) X(ucp_tag_probe_nb) \
	X(ucp_tag_msg_recv_nbx) X(ucs_status_string)
#define UCX_LIB_DECL(f) __typeof__(f) *f;
#define UCX_LIB_SYM(f) { #f, (void **)&ucx_lib.f },
static struct {
	UCX_LIB_FUNCS(UCX_LIB_DECL)
	void *handle;
} ucx_lib;
static const struct michi_devlib_sym ucx_lib_syms[] = { UCX_LIB_FUNCS(UCX_LIB_SYM) { NULL, NULL } };
static const char *const ucx_lib_names[] = { "libucp.so.0", "libucp.so", NULL };
#define ucp_config_read ucx_lib.ucp_config_read
#define ucp_config_release ucx_lib.ucp_config_release
#define ucp_init_version ucx_lib.ucp_init_version
#define ucp_cleanup ucx_lib.ucp_cleanup
#define ucp_worker_create ucx_lib.ucp_worker_create
#define ucp_worker_destroy ucx_lib.ucp_worker_destroy
#define ucp_worker_get_address ucx_lib.ucp_worker_get_address
#define ucp_worker_release_address ucx_lib.ucp_worker_release_address
#define ucp_worker_get_efd ucx_lib.ucp_worker_get_efd
#define ucp_worker_arm ucx_lib.ucp_worker_arm
#define ucp_worker_progress ucx_lib.ucp_worker_progress
#define ucp_ep_create ucx_lib.ucp_ep_create
#define ucp_ep_close_nbx ucx_lib.ucp_ep_close_nbx
#define ucp_request_free ucx_lib.ucp_request_free
#define ucp_request_cancel ucx_lib.ucp_request_cancel
#define ucp_request_check_status ucx_lib.ucp_request_check_status
#define ucp_tag_send_nbx ucx_lib.ucp_tag_send_nbx
#define ucp_tag_send_sync_nbx ucx_lib.ucp_tag_send_sync_nbx
#define ucp_tag_recv_nbx ucx_lib.ucp_tag_recv_nbx
#define ucp_tag_probe_nb ucx_lib.ucp_tag_probe_nb
#define ucp_tag_msg_recv_nbx ucx_lib.ucp_tag_msg_recv_nbx
#define ucs_status_string ucx_lib.ucs_status_string

/* A rank's worker address goes into the key-value space hex-encoded,
 * split over keys ucx-<rank>, ucx-<rank>-1, ... of at most this many
 * characters each: PMI servers commonly take values up to 1024 bytes,
 * and an address with tcp, shared memory and InfiniBand transports runs
 * to several hundred bytes. */
#ifndef UCX_CARD_CHUNK
#define UCX_CARD_CHUNK 512
#endif

_Static_assert(sizeof(struct ucx_op) <= MICHI_TAG_CTX_SIZE, "ucx_op exceeds the tag ctx area");

static struct {
	ucp_context_h context;
	ucp_worker_h worker;
	ucp_ep_h *eps;          /* per world rank, created on first send; both
				 * copied to michi_ucx_fast */
	struct michi_job *job;
	int rank, size;
	int efd;                /* the worker's event fd, -1 when it has none */
	size_t nsend;           /* sends in flight (callback not run yet) */
	int inited;
} ucx;

static double ucx_finalize_timeout = 2.0;
MICHI_TUNABLE(ucx_finalize_timeout, "ucx_finalize_timeout", MICHI_T_DOUBLE, "2",
	      MICHI_LEVEL_TUNER, "seconds finalize waits for ucx sends in flight and for "
	      "endpoints to close");
static int ucx_wakeup = 1;
MICHI_TUNABLE(ucx_wakeup, "ucx_wakeup", MICHI_T_BOOL, "1", MICHI_LEVEL_TUNER,
	      "let a waiting rank sleep on the ucx worker's event fd (UCP_FEATURE_WAKEUP); "
	      "0: naps of at most 100 us instead");

static void ucx_send_cb(void *request, ucs_status_t s, void *user_data);
static void ucx_recv_cb(void *request, ucs_status_t s, const ucp_tag_recv_info_t *info,
			void *user_data);

/* The inline paths' state (ucx_fast.h); eps, worker and the functions
 * are set when the device starts. */
struct ucx_fast michi_ucx_fast = {
	.send_param = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
		.cb.send = ucx_send_cb,
	},
	.recv_param = {
#if UCX_RECV_IMM
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
				UCP_OP_ATTR_FIELD_RECV_INFO,
		.recv_info.tag_info = &michi_ucx_fast.imm_info,
#else
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
				UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
#endif
		.cb.recv = ucx_recv_cb,
	},
};
#define ucx_send_param michi_ucx_fast.send_param
#define ucx_recv_param michi_ucx_fast.recv_param
/* a matched receive never completes immediately with its tag info: the
 * callback reports it, inside the call or later */
static ucp_request_param_t ucx_mrecv_param = {
	.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
			UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
	.cb.recv = ucx_recv_cb,
};

/* A UCX failure as a Michi status, recorded with the call that failed. */
static __attribute__((cold)) michi_status_t ucx_fail(ucs_status_t s, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	switch (s) {
	case UCS_ERR_NO_MEMORY:
		return michi_err(MICHI_ERR_NOMEM, "ucx: %s: %s", what, ucs_status_string(s));
	case UCS_ERR_UNREACHABLE:
	case UCS_ERR_CONNECTION_RESET:
	case UCS_ERR_ENDPOINT_TIMEOUT:
	case UCS_ERR_REJECTED:
	case UCS_ERR_NOT_CONNECTED:
		return michi_err(MICHI_ERR_PEER, "ucx: %s: %s", what, ucs_status_string(s));
	default:
		return michi_err(MICHI_ERR_IO, "ucx: %s: %s", what, ucs_status_string(s));
	}
}

/* ---- completions ------------------------------------------------------ */

static void ucx_send_cb(void *request, ucs_status_t s, void *user_data)
{
	michi_status_t st = MICHI_OK;

	ucx.nsend--;
	if (unlikely(s != UCS_OK))
		st = ucx_fail(s, "rank %d: send failed", ucx.rank);
	michi_ucx_fast.up.tag_done(user_data, st, 0, 0);
	ucp_request_free(request);
}

static __attribute__((noinline, cold)) void
ucx_recv_failed(struct ucx_op *op, ucs_status_t s, ucp_tag_t tag)
{
	if (s == UCS_ERR_MESSAGE_TRUNCATED)
		michi_ucx_fast.up.tag_done(op, MICHI_ERR_TRUNCATE, tag, op->cap);
	else if (s == UCS_ERR_CANCELED)
		michi_ucx_fast.up.tag_done(op, MICHI_ERR_CANCELLED, 0, 0);
	else
		michi_ucx_fast.up.tag_done(op, ucx_fail(s, "rank %d: receive failed", ucx.rank), tag, 0);
}

static void ucx_recv_cb(void *request, ucs_status_t s, const ucp_tag_recv_info_t *info,
			void *user_data)
{
	michi_ucx_fast.nrecv--;
	/* info lives in the request: free that last */
	if (likely(s == UCS_OK))
		michi_ucx_fast.up.tag_done(user_data, MICHI_OK, info->sender_tag, info->length);
	else
		ucx_recv_failed(user_data, s, info->sender_tag);
	ucp_request_free(request);
}

/* ---- endpoints -------------------------------------------------------- */

/* Read rank's worker address from its card; *addr is malloc'd. */
static michi_status_t ucx_card_get(int rank, uint8_t **addr, size_t *alen)
{
	char key[48], val[UCX_CARD_CHUNK + 32], *hex;
	size_t len, have = 0, n;
	michi_status_t st;
	uint8_t *a;
	int i;

	snprintf(key, sizeof(key), "ucx-%d", rank);
	st = ucx.job->kvs_get(rank, key, val, sizeof(val));
	if (st < 0)
		return michi_err(st, "ucx: no business card %s of rank %d (does it run the ucx "
				 "device? MICHI_DEVICE must be the same for every rank)", key, rank);
	len = strtoul(val, &hex, 10);
	if (*hex != ':' || len == 0 || len > (1u << 20))
		return michi_err(MICHI_ERR_PMI, "ucx: malformed business card %s='%.40s'", key, val);
	a = malloc(len);
	if (!a)
		return michi_err(MICHI_ERR_NOMEM, "ucx: no memory for the address of rank %d", rank);
	hex++;
	for (i = 1;; i++) {
		n = strlen(hex);
		if (n % 2 || have + n / 2 > len || michi_hex_decode(hex, a + have, n / 2) < 0) {
			st = michi_err(MICHI_ERR_PMI, "ucx: malformed business card %s of rank %d",
				       key, rank);
			goto err_free;
		}
		have += n / 2;
		if (have == len)
			break;
		snprintf(key, sizeof(key), "ucx-%d-%d", rank, i);
		st = ucx.job->kvs_get(rank, key, val, sizeof(val));
		if (st < 0) {
			michi_err(st, "ucx: business card of rank %d lacks its part %s", rank, key);
			goto err_free;
		}
		hex = val;
	}
	*addr = a;
	*alen = len;
	return MICHI_OK;

err_free:
	free(a);
	return st;
}

/* Publish our worker address, split over as many keys as it needs. */
static michi_status_t ucx_card_put(const uint8_t *addr, size_t alen)
{
	char key[48], val[UCX_CARD_CHUNK + 32];
	size_t off = 0;
	michi_status_t st;
	int part;

	for (part = 0; off < alen; part++) {
		size_t n = 0, k = 0;

		if (part == 0) {
			snprintf(key, sizeof(key), "ucx-%d", ucx.rank);
			n = (size_t)snprintf(val, sizeof(val), "%zu:", alen);
		} else {
			snprintf(key, sizeof(key), "ucx-%d-%d", ucx.rank, part);
		}
		k = alen - off < UCX_CARD_CHUNK / 2 ? alen - off : UCX_CARD_CHUNK / 2;
		michi_hex_encode(addr + off, k, val + n);
		n += 2 * k;
		off += k;
		st = ucx.job->kvs_put(key, val);
		if (st < 0)
			return michi_err(st, "ucx: cannot publish business card %s (%zu bytes)",
					 key, n);
	}
	michi_debug("ucx: rank %d worker address %zu bytes in %d keys", ucx.rank, alen, part);
	return MICHI_OK;
}

/* The first send to peer: its address from PMI, then the endpoint. */
static __attribute__((noinline, cold)) michi_status_t ucx_ep_connect(int peer, ucp_ep_h *ep_out)
{
	ucp_ep_params_t p = { 0 };
	ucs_status_t s;
	michi_status_t st;
	uint8_t *addr = NULL;
	size_t alen = 0;

	if (peer < 0 || peer >= ucx.size)
		return michi_err(MICHI_ERR_INVAL, "ucx: rank %d out of range (%d ranks)", peer,
				 ucx.size);
	st = ucx_card_get(peer, &addr, &alen);
	if (st < 0)
		return st;
	p.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
	p.address = (const ucp_address_t *)addr;
	p.err_mode = UCP_ERR_HANDLING_MODE_NONE;
	s = ucp_ep_create(ucx.worker, &p, &ucx.eps[peer]);
	free(addr);
	if (s != UCS_OK) {
		ucx.eps[peer] = NULL;
		return ucx_fail(s, "ucp_ep_create to rank %d (UCX_TLS=%s: do the two ranks "
				"share a transport?)", peer, getenv("UCX_TLS") ? getenv("UCX_TLS")
				: "unset");
	}
	michi_debug("ucx: rank %d connected to rank %d (%zu-byte address)", ucx.rank, peer, alen);
	*ep_out = ucx.eps[peer];
	return MICHI_OK;
}

/* ---- tagged operations ------------------------------------------------ */

static __attribute__((noinline, cold)) michi_status_t ucx_send_err(void *req)
{
	return ucx_fail(UCS_PTR_STATUS(req), "rank %d: ucp_tag_send_nbx", ucx.rank);
}

static michi_status_t ucx_send_first(int peer, const void *buf, size_t len, uint64_t tag,
				     int sync, void *ctx);

static michi_status_t ucx_send(int peer, const void *buf, size_t len, uint64_t tag, int sync,
			       void *ctx)
{
	ucp_ep_h ep = ucx.eps[peer];
	void *req;

	if (unlikely(ep == NULL))
		return ucx_send_first(peer, buf, len, tag, sync, ctx);
	if (likely(!sync))    /* the inline path's, which finds ep */
		return ucx_send_fast(peer, buf, len, tag, ctx);
	ucx_send_param.user_data = ctx;
	req = ucp_tag_send_sync_nbx(ep, buf, len, tag, &ucx_send_param);
	if (likely(req == NULL))
		return MICHI_OK;
	return ucx_send_started(req);
}

michi_status_t ucx_send_started(void *req)
{
	if (unlikely(UCS_PTR_IS_ERR(req)))
		return ucx_send_err(req);
	ucx.nsend++;
	return MICHI_INPROGRESS;
}

/* The first send to peer: connect, then send. */
static __attribute__((noinline, cold)) michi_status_t
ucx_send_first(int peer, const void *buf, size_t len, uint64_t tag, int sync, void *ctx)
{
	ucp_ep_h ep;
	michi_status_t st = ucx_ep_connect(peer, &ep);

	if (st < 0)
		return st;
	return ucx_send(peer, buf, len, tag, sync, ctx);
}

/* An error at posting; with UCX_RECV_IMM also a message that completed
 * inside the call truncated (ucx_imm_info then describes it). */
michi_status_t ucx_recv_err(struct ucx_op *op, void *req)
{
	ucs_status_t s = UCS_PTR_STATUS(req);

	michi_ucx_fast.nrecv--;   /* no callback follows */
#if UCX_RECV_IMM
	if (s == UCS_ERR_MESSAGE_TRUNCATED) {
		michi_ucx_fast.up.tag_done(op, MICHI_ERR_TRUNCATE, michi_ucx_fast.imm_info.sender_tag,
				  op->cap);
		return MICHI_OK;
	}
#endif
	(void)op;
	return ucx_fail(s, "rank %d: posting a receive", ucx.rank);
}

static michi_status_t ucx_recv(int peer, void *buf, size_t len, uint64_t tag, uint64_t ignore,
			       void *ctx)
{
	return ucx_recv_fast(peer, buf, len, tag, ignore, ctx);
}

static int ucx_probe(int peer, uint64_t tag, uint64_t ignore, int claim, uint64_t *tag_out,
		     size_t *len_out, void **msg)
{
	ucp_tag_recv_info_t info;
	ucp_tag_message_h m;

	(void)peer;
	m = ucp_tag_probe_nb(ucx.worker, tag, ~ignore, claim, &info);
	if (!m) {
		/* probe_nb does not progress: pull in what has arrived */
		if (!ucp_worker_progress(ucx.worker))
			return 0;
		m = ucp_tag_probe_nb(ucx.worker, tag, ~ignore, claim, &info);
		if (!m)
			return 0;
	}
	*tag_out = info.sender_tag;
	*len_out = info.length;
	if (claim)
		*msg = m;
	return 1;
}

static michi_status_t ucx_mrecv(void *msg, void *buf, size_t len, void *ctx)
{
	struct ucx_op *op = ctx;
	void *req;

	op->cap = len;
	ucx_mrecv_param.user_data = ctx;
	michi_ucx_fast.nrecv++;
	req = ucp_tag_msg_recv_nbx(ucx.worker, buf, len, msg, &ucx_mrecv_param);
	if (UCS_PTR_IS_ERR(req)) {
		michi_ucx_fast.nrecv--;
		return ucx_fail(UCS_PTR_STATUS(req), "rank %d: ucp_tag_msg_recv_nbx", ucx.rank);
	}
	op->req = req;
	return MICHI_OK;
}

static michi_status_t ucx_cancel(void *ctx)
{
	struct ucx_op *op = ctx;

	/* MTMI asks only for receives still in flight; UCX withdraws one
	 * that is still unmatched (its callback then says UCS_ERR_CANCELED)
	 * and leaves a matched one to complete */
	if (op->req)
		ucp_request_cancel(ucx.worker, op->req);
	return MICHI_OK;
}

const struct michi_tag_ops michi_ucx_tag_ops = {
	.send = ucx_send,
	.recv = ucx_recv,
	.probe = ucx_probe,
	.mrecv = ucx_mrecv,
	.cancel = ucx_cancel,
};

/* ---- device entry points ---------------------------------------------- */

static michi_status_t ucx_frame_send(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	(void)iov;
	(void)iovcnt;
	(void)cookie;
	return michi_err(MICHI_ERR_UNSUPPORTED, "ucx: frame send to rank %d: the ucx device "
			 "only takes tagged operations (a matching device)", peer);
}

static int ucx_progress(void)
{
	return (int)ucp_worker_progress(ucx.worker);
}

static int ucx_wait_fd(void)
{
	/* the worker must be armed before each sleep: block() does both */
	return -1;
}

static size_t ucx_pending(void)
{
	return ucx.nsend;
}

/*
 * Sleep until the worker has an event or timeout_ms passes. Arming
 * fails with UCS_ERR_BUSY when events are already pending: return at
 * once so that the caller progresses them. Without an event fd, nap
 * briefly: nothing else would wake us.
 */
static int ucx_block(int timeout_ms)
{
	struct pollfd pfd;
	ucs_status_t s;

	if (ucx.efd < 0)
		goto nap;
	s = ucp_worker_arm(ucx.worker);
	if (s == UCS_ERR_BUSY)
		return 0;
	if (unlikely(s != UCS_OK)) {
		michi_debug("ucx: ucp_worker_arm: %s", ucs_status_string(s));
		goto nap;
	}
	pfd.fd = ucx.efd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, timeout_ms) <= 0)
		return 0;
	/* Readable with nothing to progress: a transport left the fd
	 * readable (UCX 1.13's tcp does after a send to this worker
	 * itself); nap, so that a waiting rank does not spin on it. */
	if (ucp_worker_progress(ucx.worker) > 0)
		return 1;

nap:
	if (timeout_ms > 0) {
		struct timespec ts = { 0, 100 * 1000 };

		nanosleep(&ts, NULL);
	}
	return 0;
}

static void ucx_cleanup_worker(void)
{
	free(ucx.eps);
	ucx.eps = NULL;
	if (ucx.worker)
		ucp_worker_destroy(ucx.worker);
	ucx.worker = NULL;
	michi_ucx_fast.eps = NULL;
	michi_ucx_fast.worker = NULL;
	if (ucx.context)
		ucp_cleanup(ucx.context);
	ucx.context = NULL;
}

static michi_status_t ucx_init(struct michi_job *job)
{
	ucp_params_t params = { 0 };
	ucp_worker_params_t wparams = { 0 };
	ucp_config_t *config;
	ucp_address_t *addr;
	size_t alen;
	ucs_status_t s;
	michi_status_t st;
	const char *tls = getenv("UCX_TLS");

	michi_tunables_load();
	/* loaded once, kept for the process (sessions may start it again) */
	if (!ucx_lib.handle) {
		st = michi_devlib_open("ucx", ucx_lib_names, ucx_lib_syms, &ucx_lib.handle);
		if (st < 0)
			return st;
	}
	memset(&ucx, 0, sizeof(ucx));
	ucx.job = job;
	ucx.rank = job->rank;
	ucx.size = job->size;
	ucx.efd = -1;
	michi_ucx_fast.tag_send_nbx = ucp_tag_send_nbx;
	michi_ucx_fast.tag_recv_nbx = ucp_tag_recv_nbx;
	michi_ucx_fast.nrecv = 0;
	michi_ucx_fast.up = *job->up;

	s = ucp_config_read(NULL, NULL, &config);
	if (s != UCS_OK)
		return ucx_fail(s, "ucp_config_read (check the UCX_* environment variables)");
	params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
			    UCP_PARAM_FIELD_MT_WORKERS_SHARED;
	params.features = UCP_FEATURE_TAG | (ucx_wakeup ? UCP_FEATURE_WAKEUP : 0);
	params.estimated_num_eps = (size_t)job->size;
	params.mt_workers_shared = 0;
	if (job->local_size > 0) {
		params.field_mask |= UCP_PARAM_FIELD_ESTIMATED_NUM_PPN;
		params.estimated_num_ppn = (size_t)job->local_size;
	}
	s = ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, config, &ucx.context);
	ucp_config_release(config);
	if (s != UCS_OK) {
		ucx.context = NULL;
		return ucx_fail(s, "ucp_init (UCX_TLS=%s%s)", tls ? tls : "unset",
				tls ? ": is it empty or naming transports this host lacks? "
				"`ucx_info -d` lists them" : "");
	}

	/* MPI threads share the worker under Michi's lock, one at a time */
	wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wparams.thread_mode = UCS_THREAD_MODE_SERIALIZED;
	s = ucp_worker_create(ucx.context, &wparams, &ucx.worker);
	if (s != UCS_OK) {
		ucx.worker = NULL;
		st = ucx_fail(s, "ucp_worker_create (UCX_TLS=%s)", tls ? tls : "unset");
		goto err_cleanup;
	}
	ucx.eps = calloc((size_t)job->size, sizeof(*ucx.eps));
	if (!ucx.eps) {
		st = michi_err(MICHI_ERR_NOMEM, "ucx: no memory for %d endpoints", job->size);
		goto err_cleanup;
	}

	s = ucp_worker_get_address(ucx.worker, &addr, &alen);
	if (s != UCS_OK) {
		st = ucx_fail(s, "ucp_worker_get_address");
		goto err_cleanup;
	}
	st = ucx_card_put((const uint8_t *)addr, alen);
	ucp_worker_release_address(ucx.worker, addr);
	if (st < 0)
		goto err_cleanup;

	if (ucx_wakeup) {
		s = ucp_worker_get_efd(ucx.worker, &ucx.efd);
		if (s != UCS_OK) {
			michi_debug("ucx: ucp_worker_get_efd: %s; waiting ranks nap instead",
				    ucs_status_string(s));
			ucx.efd = -1;
		}
	}
	michi_ucx_fast.worker = ucx.worker;
	michi_ucx_fast.eps = ucx.eps;
	ucx.inited = 1;
	return MICHI_OK;

err_cleanup:
	ucx_cleanup_worker();
	return st;
}

static michi_status_t ucx_post_fence(struct michi_job *job)
{
	/* cards are read on the first send to a rank: a rank talks to few */
	(void)job;
	return MICHI_OK;
}

/* Progress, napping on the event fd, until done() or the deadline. */
static int ucx_drain(int (*done)(void *), void *arg, double deadline)
{
	while (!done(arg)) {
		if (michi_wtime() >= deadline)
			return 0;
		if (!ucp_worker_progress(ucx.worker))
			ucx_block(1);
	}
	return 1;
}

static int ucx_sends_done(void *arg)
{
	(void)arg;
	return ucx.nsend == 0;
}

static int ucx_recvs_done(void *arg)
{
	(void)arg;
	return michi_ucx_fast.nrecv == 0;
}

struct ucx_closing {
	void **reqs;
	int n;
};

static int ucx_closes_done(void *arg)
{
	struct ucx_closing *c = arg;
	int i;

	for (i = 0; i < c->n; i++)
		if (c->reqs[i] && ucp_request_check_status(c->reqs[i]) == UCS_INPROGRESS)
			return 0;
	return 1;
}

static michi_status_t ucx_finalize(void)
{
	ucp_request_param_t cp = { 0 };
	struct ucx_closing c = { NULL, 0 };
	michi_status_t st = MICHI_OK;
	double deadline;
	int i;

	if (!ucx.inited)
		return MICHI_OK;
	deadline = michi_wtime() + ucx_finalize_timeout;
	if (!ucx_drain(ucx_sends_done, NULL, deadline))
		st = michi_err(MICHI_ERR_PEER, "rank %d finalize: %zu ucx sends still in flight "
			       "after %g s", ucx.rank, ucx.nsend, ucx_finalize_timeout);
	/*
	 * Receives still posted are those of freed requests (MPI_Request_free
	 * of an active receive), which MPI_Finalize must complete. Past the
	 * fence every rank's sends have left, so progress delivers their
	 * messages; a receive no message comes for is the program's error,
	 * given up after the same time (UCX then warns that its request was
	 * not returned).
	 */
	if (!ucx_drain(ucx_recvs_done, NULL, deadline))
		michi_debug("ucx: rank %d finalize: %zu receives unmatched after %g s", ucx.rank,
			    michi_ucx_fast.nrecv, ucx_finalize_timeout);

	/* flush mode (flags 0): what was sent still reaches the peer */
	c.reqs = calloc((size_t)ucx.size, sizeof(*c.reqs));
	for (i = 0; i < ucx.size; i++) {
		void *req;

		if (!ucx.eps[i])
			continue;
		req = ucp_ep_close_nbx(ucx.eps[i], &cp);
		ucx.eps[i] = NULL;
		if (UCS_PTR_IS_PTR(req)) {
			if (c.reqs) {
				c.reqs[c.n++] = req;
			} else {
				/* no room to track it: wait for this one alone */
				while (ucp_request_check_status(req) == UCS_INPROGRESS &&
				       michi_wtime() < deadline)
					ucp_worker_progress(ucx.worker);
				ucp_request_free(req);
			}
		} else if (UCS_PTR_IS_ERR(req)) {
			michi_debug("ucx: closing the endpoint to rank %d: %s", i,
				    ucs_status_string(UCS_PTR_STATUS(req)));
		}
	}
	if (c.n && !ucx_drain(ucx_closes_done, &c, deadline + 1.0))
		michi_debug("ucx: rank %d: endpoints still closing after %g s", ucx.rank,
			    ucx_finalize_timeout);
	for (i = 0; i < c.n; i++)
		ucp_request_free(c.reqs[i]);
	free(c.reqs);

	ucx_cleanup_worker();
	memset(&ucx, 0, sizeof(ucx));
	ucx.efd = -1;
	return st;
}

struct michi_device michi_device_ucx = {
	.name = "ucx",
	.init = ucx_init,
	.post_fence = ucx_post_fence,
	.finalize = ucx_finalize,
	.send = ucx_frame_send,
	.progress = ucx_progress,
	.wait_fd = ucx_wait_fd,
	.pending = ucx_pending,
	.eager_limit = 0,
	.block = ucx_block,
	.tagged = &michi_ucx_tag_ops,
	.tag_inline = MICHI_TAG_INLINE_UCX,
};
