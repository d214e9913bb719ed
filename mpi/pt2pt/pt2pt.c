/* SPDX-License-Identifier: MIT */
/*
 * mpi/pt2pt/pt2pt.c: the point-to-point calls.
 *
 * Each call checks its arguments (compiled out without error checking),
 * resolves the communicator and becomes one MTMI call. Blocking calls keep
 * their MTMI request on the stack; nonblocking ones take a request from
 * the slab. Nothing here allocates or makes a system call on the path of
 * a small message to a connected peer.
 */
#include "pt2pt.h"
#include "dtype.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- blocking send and receive --------------------------------------------- */

static inline __attribute__((always_inline)) int
send_blocking(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
				int tag, MPI_Comm comm, int mode, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct mtmi_req m;
	michi_status_t st;
	int err;

	if (ERRCHK && (err = michi_check_send(c, comm, buf, count, datatype, dest, tag, fname)))
		return err;
	if (unlikely(dest == MPI_PROC_NULL))
		return MPI_SUCCESS;
	if (unlikely(!michi_dt_builtin_valid(datatype)))
		return michi_dt_send_blocking(c, buf, count, datatype, dest, tag, mode, fname);
	m.on_complete = NULL;
	st = mtmi_isend_inline(buf, michi_dt_bytes(datatype, count), c->peers[dest], c->rank,
			       tag, c->ctx, mode, &m);
	if (unlikely(st < 0))
		return michi_start_error(c, st, fname);
	if (st == MICHI_INPROGRESS)
		mtmi_wait(&m);
	if (unlikely(m.error))
		return michi_mtmi_error(c, &m, fname);
	return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	MICHI_GATE("MPI_Send", Send, (buf, count, datatype, dest, tag, comm));
	return send_blocking(buf, count, datatype, dest, tag, comm, MTMI_MODE_STANDARD, "MPI_Send");
}
MICHI_ALIAS(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	MICHI_GATE("MPI_Ssend", Ssend, (buf, count, datatype, dest, tag, comm));
	return send_blocking(buf, count, datatype, dest, tag, comm, MTMI_MODE_SYNC, "MPI_Ssend");
}
MICHI_ALIAS(Ssend)

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	MICHI_GATE("MPI_Rsend", Rsend, (buf, count, datatype, dest, tag, comm));
	return send_blocking(buf, count, datatype, dest, tag, comm, MTMI_MODE_READY, "MPI_Rsend");
}
MICHI_ALIAS(Rsend)

static inline int recv_peer(struct michi_comm *c, int source)
{
	return source == MPI_ANY_SOURCE ? MTMI_ANY_SOURCE : c->peers[source];
}

static inline __attribute__((always_inline)) int
recv_blocking(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
	      MPI_Comm comm, MPI_Status *status, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct mtmi_req m;
	michi_status_t st;
	int err;

	if (ERRCHK && (err = michi_check_recv(c, comm, buf, count, datatype, source, tag, fname)))
		return err;
	if (unlikely(source == MPI_PROC_NULL)) {
		if (status != MPI_STATUS_IGNORE)
			michi_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, 0);
		return MPI_SUCCESS;
	}
	if (unlikely(!michi_dt_builtin_valid(datatype)))
		return michi_dt_recv_blocking(c, buf, count, datatype, source, tag, status, fname);
	m.on_complete = NULL;
	st = mtmi_irecv_inline(buf, michi_dt_bytes(datatype, count), recv_peer(c, source),
			       source, tag, c->ctx, &m);
	if (unlikely(st < 0))
		return michi_start_error(c, st, fname);
	if (!m.done)
		mtmi_wait(&m);
	if (status != MPI_STATUS_IGNORE)
		michi_status_set(status, m.source, m.tag, m.count, m.cancelled);
	if (unlikely(m.error))
		return michi_mtmi_error(c, &m, fname);
	return MPI_SUCCESS;
}

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
	      MPI_Comm comm, MPI_Status *status)
{
	MICHI_GATE("MPI_Recv", Recv, (buf, count, datatype, source, tag, comm, status));
	return recv_blocking(buf, count, datatype, source, tag, comm, status, "MPI_Recv");
}
MICHI_ALIAS(Recv)

/* ---- nonblocking send and receive ----------------------------------------- */

/* A request already complete: PROC_NULL peers and buffered sends. */
static int req_done_new(struct michi_comm *c, int source, MPI_Request *request, const char *fname)
{
	struct michi_request *r = michi_req_alloc();

	if (unlikely(!r))
		return michi_err_nomem(c, fname);
	r->kind = MICHI_REQ_DONE;
	r->comm = c;
	michi_req_done_now(r, source, MPI_ANY_TAG);
	*request = (MPI_Request)michi_p2h(r);
	return MPI_SUCCESS;
}

/* A nonblocking send whose arguments were checked; iov: a standard
 * eager send known not to fit in place (MTMI's device send path). */
static inline __attribute__((always_inline)) int
isend_start(struct michi_comm *c, const void *buf, size_t len, int dest, int tag,
	    MPI_Request *request, int mode, const char *fname, int iov)
{
	struct michi_request *r;
	michi_status_t st;

	r = michi_req_alloc();
	if (unlikely(!r))
		return michi_err_nomem(c, fname);
	r->kind = MICHI_REQ_SEND;
	r->comm = c;
	r->m.on_complete = NULL;
	if (iov && len <= mtmi_eager_limit(c->peers[dest]))
		st = mtmi_isend_iov(buf, len, c->peers[dest], c->rank, tag, c->ctx, &r->m);
	else
		st = mtmi_isend_inline(buf, len, c->peers[dest], c->rank, tag, c->ctx, mode,
				       &r->m);
	if (unlikely(st < 0)) {
		michi_req_free(r);
		return michi_start_error(c, st, fname);
	}
	*request = (MPI_Request)michi_p2h(r);
	return MPI_SUCCESS;
}

/* A nonblocking send or receive with a derived or pair datatype. */
static __attribute__((noinline)) int
istart_dt(struct michi_comm *c, void *buf, MPI_Count count, MPI_Datatype dt, int rank, int tag,
	  MPI_Request *request, int mode, int kind, const char *fname)
{
	struct michi_request *r = michi_req_alloc();
	int err;

	if (unlikely(!r))
		return michi_err_nomem(c, fname);
	r->kind = (uint8_t)kind;
	r->comm = c;
	err = michi_dt_istart(c, r, buf, count, dt, rank, tag, mode, kind == MICHI_REQ_SEND,
			      fname);
	if (err) {
		michi_req_free(r);
		return err;
	}
	*request = (MPI_Request)michi_p2h(r);
	return MPI_SUCCESS;
}

static inline __attribute__((always_inline)) int
isend(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
			MPI_Comm comm, MPI_Request *request, int mode, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int err;

	if (ERRCHK && (err = michi_check_send(c, comm, buf, count, datatype, dest, tag, fname)))
		return err;
	if (ERRCHK && unlikely(!request))
		return michi_err_null(c, fname, "request");
	if (unlikely(dest == MPI_PROC_NULL))
		return req_done_new(c, MPI_PROC_NULL, request, fname);
	if (unlikely(!michi_dt_builtin_valid(datatype)))
		return istart_dt(c, (void *)buf, count, datatype, dest, tag, request, mode,
				 MICHI_REQ_SEND, fname);
	return isend_start(c, buf, michi_dt_bytes(datatype, count), dest, tag, request, mode,
			   fname, 0);
}

/*
 * Leaf fast paths of MPI_Isend and MPI_Irecv. They make every check the
 * general path makes, then take the common case: an in-place eager send
 * of a small payload (a peer on this host) or an exact receive that no
 * unexpected message matches. Anything else (an error to report,
 * PROC_NULL, wildcards, a device without in-place frames, a full ring, an
 * empty request slab) leaves before any state changed, and a tail call
 * hands the arguments to the general path, which checks again and does
 * the rest. Every call on the fast path is a tail call, so the compiler
 * saves no register and builds no frame.
 */
static __attribute__((noinline)) int
isend_standard(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
	       MPI_Comm comm, MPI_Request *request)
{
	MICHI_GATE("MPI_Isend", Isend, (buf, count, datatype, dest, tag, comm, request));
	return isend(buf, count, datatype, dest, tag, comm, request, MTMI_MODE_STANDARD, "MPI_Isend");
}

/* Arguments checked by the fast path (a valid rank and a builtin type),
 * which did not send in place: a larger payload or no free request
 * (checked), or a frame the device cannot take in place now: over tcp,
 * a full ring (checked_iov, the device's send). */
static __attribute__((noinline)) int
isend_checked(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
	      MPI_Comm comm, MPI_Request *request)
{
	return isend_start(michi_comm_get(comm), buf,
			   (size_t)count * (((uint32_t)datatype >> 8) & 0xff), dest, tag,
			   request, MTMI_MODE_STANDARD, "MPI_Isend", 0);
}

/* A checked eager send to a peer of MTMI's direct device
 * (mtmi_peer_direct): the fast path hands over what it computed (in the
 * argument registers it came with, so that the call stays a jump), and
 * only that device's inline send is compiled in. */
static __attribute__((noinline)) int
isend_checked_direct(const void *buf, size_t len, int peer, int tag, struct michi_comm *c,
		     int unused, MPI_Request *request)
{
	struct michi_request *r;
	michi_status_t st;

	(void)unused;
	r = michi_req_alloc();
	if (unlikely(!r))
		return michi_err_nomem(c, "MPI_Isend");
	r->kind = MICHI_REQ_SEND;
	r->comm = c;
	r->m.on_complete = NULL;
	st = mtmi_isend_direct(buf, len, peer, michi_comm_ctx_src(c), tag, &r->m);
	if (unlikely(st < 0)) {
		michi_req_free(r);
		return michi_start_error(c, st, "MPI_Isend");
	}
	*request = (MPI_Request)michi_p2h(r);
	return MPI_SUCCESS;
}

static __attribute__((noinline)) int
isend_checked_iov(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		  MPI_Comm comm, MPI_Request *request)
{
	return isend_start(michi_comm_get(comm), buf,
			   (size_t)count * (((uint32_t)datatype >> 8) & 0xff), dest, tag,
			   request, MTMI_MODE_STANDARD, "MPI_Isend", 1);
}

/*
 * MPI_Isend and MPI_Irecv over a matching device (MTMI's native backend):
 * MPI_Isend and MPI_Irecv send every call here on their first check
 * (fast_tag_end is 0), and after its own checks one call of the device's
 * tagged send or receive does the rest; the communicator keeps the
 * context and rank bits of the match tag. Anything unusual (a bad
 * argument, PROC_NULL, no free request, an error to report) goes to the
 * general path, which checks again. The handle is stored before the
 * device's call, so that nothing but the request lives across it. Each
 * is compiled once per matching device with an inline path
 * (michi_tag_send), and michi_pt2pt_choose() picks at MPI_Init.
 */
static int irecv_any(void *buf, int count, MPI_Datatype datatype, int source, int tag,
		     MPI_Comm comm, MPI_Request *request);

static __attribute__((noinline, cold)) int
native_start_error(struct michi_request *r, michi_status_t st, MPI_Request *request,
		   const char *fname)
{
	struct michi_comm *c = r->comm;

	*request = MPI_REQUEST_NULL;
	michi_req_free(r);
	return michi_start_error(c, st, fname);
}

static inline __attribute__((always_inline)) int
isend_native(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
	     MPI_Comm comm, MPI_Request *request, int dev)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct michi_request *r;
	michi_status_t st;

	if (unlikely(!c || !request || !buf || count < 0 ||
		     (unsigned)dest >= (unsigned)c->size ||
		     (unsigned)tag >= michi_state.native_tag_end ||
		     !michi_dt_builtin_valid(datatype)))
		return isend_standard(buf, count, datatype, dest, tag, comm, request);
	r = michi_obj_pop(MICHI_KIND_REQUEST);
	if (unlikely(!r))
		return isend_checked(buf, count, datatype, dest, tag, comm, request);
	r->kind = MICHI_REQ_SEND;
	r->comm = c;
	r->m.on_complete = NULL;
	*request = (MPI_Request)michi_p2h(r);
	st = mtmi_native_isend_mt(buf, (size_t)count * (((uint32_t)datatype >> 8) & 0xff),
				  c->peers[dest], c->native_base | (uint32_t)tag,
				  MTMI_MODE_STANDARD, &r->m, 0, dev);
	if (unlikely(st < 0))
		return native_start_error(r, st, request, "MPI_Isend");
	return MPI_SUCCESS;
}

static inline __attribute__((always_inline)) int
irecv_native(void *buf, int count, MPI_Datatype datatype, int source, int tag,
	     MPI_Comm comm, MPI_Request *request, int dev)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct michi_request *r;
	uint64_t t, ignore = 0;
	michi_status_t st;
	int peer = -1;

	if (unlikely(!c || !request || !buf || count < 0 || !michi_dt_builtin_valid(datatype)))
		return irecv_any(buf, count, datatype, source, tag, comm, request);
	t = (uint64_t)c->ctx << MTMI_NT_CTX_SHIFT;
	if (likely((unsigned)source < (unsigned)c->size)) {
		t |= (uint64_t)(uint32_t)source << MTMI_NT_SRC_SHIFT;
		peer = c->peers[source];
	} else if (source == MPI_ANY_SOURCE) {
		ignore = MTMI_NT_SRC_MASK;
	} else {
		return irecv_any(buf, count, datatype, source, tag, comm, request);
	}
	if (likely((unsigned)tag < michi_state.native_tag_end))
		t |= (uint32_t)tag;
	else if (tag == MPI_ANY_TAG)
		ignore |= MTMI_NT_TAG_MASK;
	else
		return irecv_any(buf, count, datatype, source, tag, comm, request);
	r = michi_obj_pop(MICHI_KIND_REQUEST);
	if (unlikely(!r))
		return irecv_any(buf, count, datatype, source, tag, comm, request);
	r->kind = MICHI_REQ_RECV;
	r->comm = c;
	r->m.on_complete = NULL;
	*request = (MPI_Request)michi_p2h(r);
	st = mtmi_native_irecv_mt(buf, (size_t)count * (((uint32_t)datatype >> 8) & 0xff),
				  peer, t, ignore, &r->m, dev);
	if (unlikely(st < 0))
		return native_start_error(r, st, request, "MPI_Irecv");
	return MPI_SUCCESS;
}

#define NATIVE_PT2PT(name, dev) \
	static __attribute__((noinline)) int \
	isend_native_##name(const void *buf, int count, MPI_Datatype datatype, int dest, \
			    int tag, MPI_Comm comm, MPI_Request *request) \
	{ \
		return isend_native(buf, count, datatype, dest, tag, comm, request, dev); \
	} \
	static __attribute__((noinline)) int \
	irecv_native_##name(void *buf, int count, MPI_Datatype datatype, int source, \
			    int tag, MPI_Comm comm, MPI_Request *request) \
	{ \
		return irecv_native(buf, count, datatype, source, tag, comm, request, dev); \
	}
NATIVE_PT2PT(ops, MTMI_NATIVE_OPS)
MTMI_NATIVE_INLINES(NATIVE_PT2PT)

/* Where MPI_Isend and MPI_Irecv send what their tag check refuses (named
 * for the dispatchers below). */
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*irecv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
static isend_fn isend_other __asm__("michi_isend_other") __attribute__((used)) = isend_standard;
static irecv_fn irecv_other __asm__("michi_irecv_other") __attribute__((used)) = irecv_any;

void michi_pt2pt_choose(void)
{
	isend_other = isend_standard;
	irecv_other = irecv_any;
	if (!mtmi_tag)
		return;
	isend_other = isend_native_ops;
	irecv_other = irecv_native_ops;
#define NATIVE_CHOOSE(name, dev) \
	if (mtmi_native_inline() == (dev)) { \
		isend_other = isend_native_##name; \
		irecv_other = irecv_native_##name; \
	}
	MTMI_NATIVE_INLINES(NATIVE_CHOOSE)
#undef NATIVE_CHOOSE
}

/* MPI_Isend over the byte devices, its tag checked (MPI_Isend below). */
static int isend_bytes(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		       MPI_Comm comm, MPI_Request *request)
	__asm__("michi_isend_bytes") __attribute__((used, noinline));
static int isend_bytes(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		       MPI_Comm comm, MPI_Request *request)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct michi_request *r;
	struct mtmi_hdr *hp;
	uint64_t tok;
	size_t len;
	int peer;

	/* outside MPI_Init..MPI_Finalize every communicator's size is 0
	 * (mpi/env/init.c), so the rank check also sends those calls on */
	if (unlikely(!c || !request || !buf || count < 0 ||
		     (unsigned)dest >= (unsigned)c->size ||
		     !michi_dt_builtin_valid(datatype)))
		goto general;
	len = (size_t)count * (((uint32_t)datatype >> 8) & 0xff);
	peer = c->peers[dest];
	/* larger payloads are copied by memcpy: the general path's call;
	 * the request slab is looked at first since a reserved frame must
	 * be committed */
	if (unlikely(len > MTMI_COPY_INLINE_MAX || !michi_slabs[MICHI_KIND_REQUEST].free))
		goto checked;
	if (unlikely(!mtmi_eager_begin(len, peer, &hp, &tok))) {
		/* the direct device's eager limit is at least MTMI_COPY_INLINE_MAX */
		if (mtmi_peer_direct(peer))
			return isend_checked_direct(buf, len, peer, tag, c, 0, request);
		goto checked_iov;
	}
	r = michi_obj_pop(MICHI_KIND_REQUEST);
	r->kind = MICHI_REQ_SEND;
	r->comm = c;
	r->m.on_complete = NULL;
	*request = (MPI_Request)michi_p2h(r);
	if (unlikely(mtmi_eager_commit(hp, tok, buf, len, peer, michi_comm_ctx_src(c), tag,
				       &r->m)))
		return mtmi_eager_wake(peer);
	return MPI_SUCCESS;
general:
	return isend_standard(buf, count, datatype, dest, tag, comm, request);
checked:
	return isend_checked(buf, count, datatype, dest, tag, comm, request);
checked_iov:
	return isend_checked_iov(buf, count, datatype, dest, tag, comm, request);
}

/*
 * MPI_Isend and MPI_Irecv are a tag check and a jump: below fast_tag_end
 * to the byte devices' fast path, else to the native path of the job's
 * matching device (fast_tag_end is 0 then; it checks the tag against
 * native_tag_end) or, without one, to the general path (a tag the fast
 * path does not take, MPI_THREAD_MULTIPLE where both are 0, calls outside
 * MPI_Init..MPI_Finalize). On x86-64 the dispatcher is three
 * instructions of assembly: GCC saves the byte path's registers before
 * the check and passes the stack argument (request) through a register,
 * which cost both paths four more. Elsewhere, C.
 */
#if defined(__x86_64__) && defined(__ELF__)
_Static_assert(offsetof(struct michi_state, fast_tag_end) == 4,
	       "the dispatchers read michi_state+4");
#ifdef __CET__
#define MICHI_ENDBR "	endbr64\n"
#else
#define MICHI_ENDBR ""
#endif
#define MICHI_TAG_DISPATCH(name, fast, other) \
	__asm__(".text\n" \
		".globl PMPI_" #name "\n" \
		".weak MPI_" #name "\n" \
		".set MPI_" #name ", PMPI_" #name "\n" \
		".type PMPI_" #name ", @function\n" \
		".p2align 4\n" \
		"PMPI_" #name ":\n" \
		"	.cfi_startproc\n" \
		MICHI_ENDBR \
		"	cmpl michi_state+4(%rip), %r8d\n" \
		"	jae 1f\n" \
		"	jmp " #fast "\n" \
		"1:	jmp *" #other "(%rip)\n" \
		"	.cfi_endproc\n" \
		".size PMPI_" #name ", .-PMPI_" #name "\n")
#endif

#if defined(__x86_64__) && defined(__ELF__)
MICHI_TAG_DISPATCH(Isend, michi_isend_bytes, michi_isend_other);   /* and MPI_Isend */
#else
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
	       MPI_Comm comm, MPI_Request *request)
{
	if (likely((unsigned)tag < michi_state.fast_tag_end))
		return isend_bytes(buf, count, datatype, dest, tag, comm, request);
	return isend_other(buf, count, datatype, dest, tag, comm, request);
}
MICHI_ALIAS(Isend)
#endif

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	MICHI_GATE("MPI_Issend", Issend, (buf, count, datatype, dest, tag, comm, request));
	return isend(buf, count, datatype, dest, tag, comm, request, MTMI_MODE_SYNC, "MPI_Issend");
}
MICHI_ALIAS(Issend)

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	MICHI_GATE("MPI_Irsend", Irsend, (buf, count, datatype, dest, tag, comm, request));
	return isend(buf, count, datatype, dest, tag, comm, request, MTMI_MODE_READY, "MPI_Irsend");
}
MICHI_ALIAS(Irsend)

static inline __attribute__((always_inline)) int
irecv(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
      MPI_Comm comm, MPI_Request *request, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct michi_request *r;
	michi_status_t st;
	int err;

	if (ERRCHK && (err = michi_check_recv(c, comm, buf, count, datatype, source, tag, fname)))
		return err;
	if (ERRCHK && unlikely(!request))
		return michi_err_null(c, fname, "request");
	if (unlikely(source == MPI_PROC_NULL))
		return req_done_new(c, MPI_PROC_NULL, request, fname);
	if (unlikely(!michi_dt_builtin_valid(datatype)))
		return istart_dt(c, buf, count, datatype, source, tag, request, MTMI_MODE_STANDARD,
				 MICHI_REQ_RECV, fname);
	r = michi_req_alloc();
	if (unlikely(!r))
		return michi_err_nomem(c, fname);
	r->kind = MICHI_REQ_RECV;
	r->comm = c;
	r->m.on_complete = NULL;
	st = mtmi_irecv_inline(buf, michi_dt_bytes(datatype, count), recv_peer(c, source),
			       source, tag, c->ctx, &r->m);
	if (unlikely(st < 0)) {
		michi_req_free(r);
		return michi_start_error(c, st, fname);
	}
	*request = (MPI_Request)michi_p2h(r);
	return MPI_SUCCESS;
}

static inline __attribute__((always_inline)) int
irecv_fast(void *buf, int count, MPI_Datatype datatype, int source, int tag,
	   MPI_Comm comm, MPI_Request *request)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct michi_request *r;
	struct mtmi_bucket *b;

	/* the tag was checked against fast_tag_end by MPI_Irecv */
	if (unlikely(!c || !request || !buf || count < 0 ||
		     (unsigned)source >= (unsigned)c->size ||
		     !michi_dt_builtin_valid(datatype)))
		return 0;
	b = mtmi_recv_bucket(source, tag, c->ctx);
	if (unlikely(!b))
		return 0;
	r = michi_obj_pop(MICHI_KIND_REQUEST);
	if (unlikely(!r))
		return 0;
	r->kind = MICHI_REQ_RECV;
	r->comm = c;
	r->m.on_complete = NULL;
	mtmi_recv_post(b, buf, (size_t)count * (((uint32_t)datatype >> 8) & 0xff),
		       c->peers[source], source, tag, c->ctx, &r->m);
	*request = (MPI_Request)michi_p2h(r);
	return 1;
}

static __attribute__((noinline)) int
irecv_any(void *buf, int count, MPI_Datatype datatype, int source, int tag,
	  MPI_Comm comm, MPI_Request *request)
{
	MICHI_GATE("MPI_Irecv", Irecv, (buf, count, datatype, source, tag, comm, request));
	return irecv(buf, count, datatype, source, tag, comm, request, "MPI_Irecv");
}

/* MPI_Irecv over the byte devices, its tag checked (MPI_Irecv below). */
static int irecv_bytes(void *buf, int count, MPI_Datatype datatype, int source, int tag,
		       MPI_Comm comm, MPI_Request *request)
	__asm__("michi_irecv_bytes") __attribute__((used, noinline));
static int irecv_bytes(void *buf, int count, MPI_Datatype datatype, int source, int tag,
		       MPI_Comm comm, MPI_Request *request)
{
	if (likely(irecv_fast(buf, count, datatype, source, tag, comm, request)))
		return MPI_SUCCESS;
	return irecv_any(buf, count, datatype, source, tag, comm, request);
}

/* As MPI_Isend; wildcard tags, too, leave on the tag check. */
#if defined(__x86_64__) && defined(__ELF__)
MICHI_TAG_DISPATCH(Irecv, michi_irecv_bytes, michi_irecv_other);   /* and MPI_Irecv */
#else
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
	       MPI_Comm comm, MPI_Request *request)
{
	if (likely((unsigned)tag < michi_state.fast_tag_end))
		return irecv_bytes(buf, count, datatype, source, tag, comm, request);
	return irecv_other(buf, count, datatype, source, tag, comm, request);
}
MICHI_ALIAS(Irecv)
#endif

/* ---- MPI-4 large-count forms ----------------------------------------------------- */

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm)
{
	MICHI_CHECK_INIT("MPI_Send_c");
	return send_blocking(buf, count, datatype, dest, tag, comm, MTMI_MODE_STANDARD, "MPI_Send_c");
}

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		 MPI_Comm comm)
{
	MICHI_CHECK_INIT("MPI_Ssend_c");
	return send_blocking(buf, count, datatype, dest, tag, comm, MTMI_MODE_SYNC, "MPI_Ssend_c");
}

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		 MPI_Comm comm)
{
	MICHI_CHECK_INIT("MPI_Rsend_c");
	return send_blocking(buf, count, datatype, dest, tag, comm, MTMI_MODE_READY, "MPI_Rsend_c");
}

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		 MPI_Comm comm, MPI_Request *request)
{
	MICHI_CHECK_INIT("MPI_Isend_c");
	return isend(buf, count, datatype, dest, tag, comm, request, MTMI_MODE_STANDARD,
		     "MPI_Isend_c");
}

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		  MPI_Comm comm, MPI_Request *request)
{
	MICHI_CHECK_INIT("MPI_Issend_c");
	return isend(buf, count, datatype, dest, tag, comm, request, MTMI_MODE_SYNC,
		     "MPI_Issend_c");
}

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		  MPI_Comm comm, MPI_Request *request)
{
	MICHI_CHECK_INIT("MPI_Irsend_c");
	return isend(buf, count, datatype, dest, tag, comm, request, MTMI_MODE_READY,
		     "MPI_Irsend_c");
}

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
		MPI_Comm comm, MPI_Status *status)
{
	MICHI_CHECK_INIT("MPI_Recv_c");
	return recv_blocking(buf, count, datatype, source, tag, comm, status, "MPI_Recv_c");
}

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
		 MPI_Comm comm, MPI_Request *request)
{
	MICHI_CHECK_INIT("MPI_Irecv_c");
	return irecv(buf, count, datatype, source, tag, comm, request, "MPI_Irecv_c");
}

/* ---- buffered sends ---------------------------------------------------------- */

static int bsend(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		 MPI_Comm comm, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int err;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK && (err = michi_check_send(c, comm, buf, count, datatype, dest, tag, fname)))
		return err;
	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	return michi_bsend_start(c, buf, count, datatype, dest, tag, fname);
}

static int ibsend(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		  MPI_Comm comm, MPI_Request *request, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int err;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK && (err = michi_check_send(c, comm, buf, count, datatype, dest, tag, fname)))
		return err;
	if (ERRCHK && unlikely(!request))
		return michi_err_null(c, fname, "request");
	if (dest != MPI_PROC_NULL) {
		err = michi_bsend_start(c, buf, count, datatype, dest, tag, fname);
		if (err)
			return err;
	}
	/* the data now lives in the attached buffer: the request is complete */
	return req_done_new(c, dest == MPI_PROC_NULL ? MPI_PROC_NULL : MPI_ANY_SOURCE,
			    request, fname);
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
	return bsend(buf, count, datatype, dest, tag, comm, "MPI_Bsend");
}

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		 MPI_Comm comm)
{
	return bsend(buf, count, datatype, dest, tag, comm, "MPI_Bsend_c");
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return ibsend(buf, count, datatype, dest, tag, comm, request, "MPI_Ibsend");
}

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		  MPI_Comm comm, MPI_Request *request)
{
	return ibsend(buf, count, datatype, dest, tag, comm, request, "MPI_Ibsend_c");
}

/* ---- combined send-receive --------------------------------------------------- */

/* Sendrecv with a derived or pair type: as the nonblocking pair. */
static __attribute__((noinline)) int
sendrecv_dt(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
	    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source,
	    int recvtag, MPI_Comm comm, MPI_Status *status, const char *fname)
{
	MPI_Request rr, sr;
	int err = irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rr, fname);

	if (err)
		return err;
	err = isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &sr, MTMI_MODE_STANDARD,
		    fname);
	if (err) {
		PMPI_Cancel(&rr);
		PMPI_Wait(&rr, MPI_STATUS_IGNORE);
		return err;
	}
	err = PMPI_Wait(&sr, MPI_STATUS_IGNORE);
	if (err) {
		PMPI_Wait(&rr, status);
		return err;
	}
	return PMPI_Wait(&rr, status);
}

/* MPI_Sendrecv and MPI_Sendrecv_c; counts are MPI_Count inside. */
static int sendrecv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
		    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
		    int source, int recvtag, MPI_Comm comm, MPI_Status *status, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct mtmi_req sm, rm;
	michi_status_t st;
	int err;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK && (err = michi_check_send(c, comm, sendbuf, sendcount, sendtype, dest,
					       sendtag, fname)))
		return err;
	if (ERRCHK && (err = michi_check_recv(c, comm, recvbuf, recvcount, recvtype, source,
					       recvtag, fname)))
		return err;
	if (unlikely(!michi_dt_builtin_valid(sendtype) || !michi_dt_builtin_valid(recvtype)))
		return sendrecv_dt(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
				   recvtype, source, recvtag, comm, status, fname);
	sm.done = rm.done = 1;
	sm.error = rm.error = 0;
	sm.on_complete = rm.on_complete = NULL;
	if (source != MPI_PROC_NULL) {
		st = mtmi_irecv(recvbuf, michi_dt_bytes(recvtype, recvcount), recv_peer(c, source),
				source, recvtag, c->ctx, &rm);
		if (st < 0)
			return michi_start_error(c, st, fname);
	} else {
		rm.source = MPI_PROC_NULL;
		rm.tag = MPI_ANY_TAG;
		rm.count = 0;
		rm.cancelled = 0;
	}
	if (dest != MPI_PROC_NULL) {
		st = mtmi_isend(sendbuf, michi_dt_bytes(sendtype, sendcount), c->peers[dest],
				c->rank, sendtag, c->ctx, MTMI_MODE_STANDARD, &sm);
		if (st < 0) {
			err = michi_start_error(c, st, fname);
			if (source != MPI_PROC_NULL) {
				mtmi_cancel(&rm);
				mtmi_wait(&rm);
			}
			return err;
		}
	}
	if (!sm.done)
		mtmi_wait(&sm);
	if (!rm.done)
		mtmi_wait(&rm);
	if (status != MPI_STATUS_IGNORE)
		michi_status_set(status, rm.source, rm.tag, rm.count, 0);
	if (unlikely(sm.error))
		return michi_mtmi_error(c, &sm, fname);
	if (unlikely(rm.error))
		return michi_mtmi_error(c, &rm, fname);
	return MPI_SUCCESS;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
		  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	return sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
			source, recvtag, comm, status, "MPI_Sendrecv");
}

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
		    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
		    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	return sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
			source, recvtag, comm, status, "MPI_Sendrecv_c");
}

/* The message received goes to a scratch buffer while the send reads
 * buf; it is copied back once both are done. A derived type's data
 * travels packed: packed out, and unpacked back. */
static int sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
			    int sendtag, int source, int recvtag, MPI_Comm comm,
			    MPI_Status *status, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int packed = !michi_dt_builtin_valid(datatype);
	MPI_Status st;
	size_t bytes;
	char *tmp;
	int err;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK && (err = michi_check_send(c, comm, buf, count, datatype, dest, sendtag,
					       fname)))
		return err;
	if (ERRCHK && (err = michi_check_recv(c, comm, buf, count, datatype, source, recvtag,
					       fname)))
		return err;
	bytes = packed ? michi_dt_packed(datatype, count) : michi_dt_bytes(datatype, count);
	tmp = malloc(packed ? 2 * bytes + 1 : bytes ? bytes : 1);
	if (!tmp)
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname,
				     "(count=%lld): cannot allocate %zu bytes of scratch space",
				     (long long)count, packed ? 2 * bytes : bytes);
	if (packed) {
		michi_dt_pack(buf, count, datatype, tmp, bytes);
		err = sendrecv(tmp, (MPI_Count)bytes, MPI_BYTE, dest, sendtag, tmp + bytes,
			       (MPI_Count)bytes, MPI_BYTE, source, recvtag, comm, &st, fname);
	} else {
		err = sendrecv(buf, count, datatype, dest, sendtag, tmp, count, datatype, source,
			       recvtag, comm, &st, fname);
	}
	/* only what arrived replaces the buffer (nothing from PROC_NULL) */
	if (source != MPI_PROC_NULL &&
	    (err == MPI_SUCCESS || (err & 0x3ff) == MPI_ERR_TRUNCATE)) {
		size_t got = (size_t)michi_status_bytes(&st);

		if (packed)
			michi_dt_unpack(tmp + bytes, got, buf, count, datatype);
		else
			memcpy(buf, tmp, got < bytes ? got : bytes);
	}
	free(tmp);
	if (status != MPI_STATUS_IGNORE)
		*status = st;
	return err;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
			  int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
	return sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status,
				"MPI_Sendrecv_replace");
}

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
			    int sendtag, int source, int recvtag, MPI_Comm comm,
			    MPI_Status *status)
{
	return sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status,
				"MPI_Sendrecv_replace_c");
}

/* ---- probe ------------------------------------------------------------------- */

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
	struct michi_comm *c = michi_comm_get(comm);
	michi_status_t st;
	int src, tg, err;
	size_t len;

	MICHI_GATE("MPI_Iprobe", Iprobe, (source, tag, comm, flag, status));
	if (ERRCHK && (err = michi_check_recv(c, comm, NULL, 0, MPI_BYTE, source, tag, "MPI_Iprobe")))
		return err;
	if (ERRCHK && !flag)
		return michi_err_null(c, "MPI_Iprobe", "flag");
	if (source == MPI_PROC_NULL) {
		*flag = 1;
		if (status != MPI_STATUS_IGNORE)
			michi_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, 0);
		return MPI_SUCCESS;
	}
	st = mtmi_iprobe(recv_peer(c, source), source, tag, c->ctx, flag, &src, &tg, &len);
	if (st < 0)
		return michi_start_error(c, st, "MPI_Iprobe");
	if (*flag && status != MPI_STATUS_IGNORE)
		michi_status_set(status, src, tg, len, 0);
	return MPI_SUCCESS;
}
MICHI_ALIAS(Iprobe)

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	unsigned spins = 0;
	int flag = 0, err;

	for (;;) {
		err = PMPI_Iprobe(source, tag, comm, &flag, status);
		if (err || flag)
			return err;
		mtmi_idle(&spins);
	}
}

/* A matched message (MPI_Message): the MTMI message and its communicator. */
struct michi_message {
	struct michi_obj h;
	struct mtmi_msg *msg;
	struct michi_comm *comm;
};

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
		 MPI_Status *status)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct michi_message *mm;
	struct mtmi_msg *msg;
	michi_status_t st;
	int src, tg, err;
	size_t len;

	MICHI_CHECK_INIT("MPI_Improbe");
	if (ERRCHK && (err = michi_check_recv(c, comm, NULL, 0, MPI_BYTE, source, tag, "MPI_Improbe")))
		return err;
	if (ERRCHK && (!flag || !message))
		return michi_err_null(c, "MPI_Improbe", !flag ? "flag" : "message");
	if (source == MPI_PROC_NULL) {
		*flag = 1;
		*message = MPI_MESSAGE_NO_PROC;
		if (status != MPI_STATUS_IGNORE)
			michi_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, 0);
		return MPI_SUCCESS;
	}
	st = mtmi_improbe(recv_peer(c, source), source, tag, c->ctx, flag, &msg, &src, &tg, &len);
	if (st < 0)
		return michi_start_error(c, st, "MPI_Improbe");
	if (!*flag)
		return MPI_SUCCESS;
	mm = michi_obj_alloc(MICHI_KIND_MESSAGE);
	if (!mm) {
		/* the message is claimed: keep it receivable by re-probing is not
		 * possible, so this is fatal to the call */
		return michi_err_nomem(c, "MPI_Improbe");
	}
	mm->msg = msg;
	mm->comm = c;
	*message = (MPI_Message)michi_p2h(mm);
	if (status != MPI_STATUS_IGNORE)
		michi_status_set(status, src, tg, len, 0);
	return MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
	unsigned spins = 0;
	int flag = 0, err;

	for (;;) {
		err = PMPI_Improbe(source, tag, comm, &flag, message, status);
		if (err || flag)
			return err;
		mtmi_idle(&spins);
	}
}

/*
 * A matched receive into a derived or pair type: the message is taken
 * into a staging buffer, unpacked at completion (MPI_Mrecv: r is NULL and
 * m on its stack, so it unpacks once it waited; see PMPI_Mrecv).
 */
static int imrecv_dt(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *message,
		     struct michi_message *mm, struct michi_request *r, struct mtmi_req *m,
		     const char *fname)
{
	size_t bytes = michi_dt_packed(dt, count);
	void *tmp = michi_stage_alloc(bytes);
	michi_status_t st;

	if (!tmp)
		return michi_err_nomem(mm->comm, fname);
	if (r) {
		/* the completion hook unpacks, as for MPI_Irecv */
		michi_dt_hold(dt);
		r->stage = tmp;
		r->buf = buf;
		r->count = count;
		r->dtype = dt;
		m->on_complete = michi_dt_staged_recv_hook();
	}
	st = mtmi_imrecv(tmp, bytes, mm->msg, m);
	if (st < 0) {
		if (r) {
			r->stage = NULL;
			m->on_complete = NULL;
			michi_dt_release(dt);
		}
		michi_stage_free(tmp);
		return michi_start_error(mm->comm, st, fname);
	}
	if (!r) {
		/* MPI_Mrecv: wait and unpack here */
		if (!m->done)
			mtmi_wait(m);
		michi_dt_unpack(tmp, m->count, buf, count, dt);
		michi_stage_free(tmp);
	}
	michi_obj_free(MICHI_KIND_MESSAGE, mm);
	*message = MPI_MESSAGE_NULL;
	return MPI_SUCCESS;
}

static int imrecv(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
		  struct michi_request *r, struct mtmi_req *m, struct michi_comm **cp,
		  const char *fname)
{
	struct michi_message *mm;
	struct michi_comm *c;
	michi_status_t st;

	if (ERRCHK && !message)
		return michi_err_null(NULL, fname, "message");
	if (*message == MPI_MESSAGE_NO_PROC) {
		m->done = 1;
		m->error = 0;
		m->source = MPI_PROC_NULL;
		m->tag = MPI_ANY_TAG;
		m->count = 0;
		m->cancelled = 0;
		*message = MPI_MESSAGE_NULL;
		*cp = &michi_comm_world;
		return MPI_SUCCESS;
	}
	mm = michi_obj_check((uint32_t)*message, MICHI_KIND_MESSAGE);
	if (!mm)
		return michi_mpi_err(NULL, MPI_ERR_REQUEST, fname,
				     "(message=0x%x): not a valid matched message", (unsigned)*message);
	c = mm->comm;
	*cp = c;
	if (ERRCHK && count < 0)
		return michi_err_count(c, fname, count);
	if (ERRCHK && !michi_dt_ok(datatype))
		return michi_err_type(c, fname, datatype);
	if (ERRCHK && !buf && count > 0 && michi_dt_null_buf_bad(datatype))
		return michi_err_buf(c, fname, count);
	m->on_complete = NULL;
	if (unlikely(!michi_dt_builtin_valid(datatype)))
		return imrecv_dt(buf, count, datatype, message, mm, r, m, fname);
	st = mtmi_imrecv(buf, michi_dt_bytes(datatype, count), mm->msg, m);
	if (st < 0)
		return michi_start_error(c, st, fname);
	michi_obj_free(MICHI_KIND_MESSAGE, mm);
	*message = MPI_MESSAGE_NULL;
	(void)r;
	return MPI_SUCCESS;
}

static int mrecv(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
		 MPI_Status *status, const char *fname)
{
	struct michi_comm *c;
	struct mtmi_req m;
	int err;

	MICHI_CHECK_INIT(fname);
	err = imrecv(buf, count, datatype, message, NULL, &m, &c, fname);
	if (err)
		return err;
	if (!m.done)
		mtmi_wait(&m);
	if (status != MPI_STATUS_IGNORE)
		michi_status_set(status, m.source, m.tag, m.count, 0);
	if (m.error)
		return michi_mtmi_error(c, &m, fname);
	return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
	       MPI_Status *status)
{
	return mrecv(buf, count, datatype, message, status, "MPI_Mrecv");
}

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
		 MPI_Status *status)
{
	return mrecv(buf, count, datatype, message, status, "MPI_Mrecv_c");
}

static int imrecv_req(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
		      MPI_Request *request, const char *fname)
{
	struct michi_request *r;
	struct michi_comm *c;
	int err;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK && !request)
		return michi_err_null(NULL, fname, "request");
	r = michi_req_alloc();
	if (!r)
		return michi_err_nomem(NULL, fname);
	r->kind = MICHI_REQ_RECV;
	err = imrecv(buf, count, datatype, message, r, &r->m, &c, fname);
	if (err) {
		michi_req_free(r);
		return err;
	}
	r->comm = c;
	*request = (MPI_Request)michi_p2h(r);
	return MPI_SUCCESS;
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
		MPI_Request *request)
{
	return imrecv_req(buf, count, datatype, message, request, "MPI_Imrecv");
}

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
		  MPI_Request *request)
{
	return imrecv_req(buf, count, datatype, message, request, "MPI_Imrecv_c");
}
