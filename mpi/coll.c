/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll.c: the MPI collective calls, blocking and nonblocking, on
 * intra- and intercommunicators (at the end of the file), and the
 * neighbourhood collectives. Each checks its arguments, builds the
 * schedule of the algorithm it selects (coll/schedule.h) on the
 * communicator's collective context, and then either runs it to the end
 * (MPI_Bcast) or hands it to progress behind a request (MPI_Ibcast): one
 * code path for both forms. Which algorithm builds it is for the
 * collective's table (coll/select.c) to say.
 *
 * Datatypes: the algorithms move bytes. A type whose instances are not
 * contiguous at the buffer is packed into the schedule's scratch when the
 * call starts (the data it sends) and unpacked when the schedule ends
 * (the data it receives). Reductions take predefined and contiguous
 * types, and user ops also types whose data lies within their extent.
 */
#include "mpiimpl.h"
#include "op.h"
#include "pt2pt.h"
#include "schedule.h"
#include "dtype.h"

#include <stdio.h>
#include <stdlib.h>

static int coll_host_ranks;
MICHI_TUNABLE(coll_host_ranks, "coll_host_ranks", MICHI_T_INT, "0", MICHI_LEVEL_TUNER,
	      "fake host boundaries for the collectives: every this many consecutive world "
	      "ranks count as one host for the node-aware algorithms (0: the real hosts)");

static int coll_host_id(int world)
{
	if (coll_host_ranks > 0)
		return world / coll_host_ranks;
	return michi_state.host_of ? michi_state.host_of[world] : 0;
}

/*
 * The hosts of c's ranks (coll/coll.h): NULL when they share one host,
 * coll_hosts_apart when no two do, else a map the communicator keeps.
 * Every rank builds the same one from the job's host map; out of memory
 * it stays NULL (the flat algorithms, correct but not node-aware).
 */
static const struct coll_hosts *coll_hosts_build(struct michi_comm *c)
{
	int n = c->size, nh = 0, i, h, *id, *host, *lrank_of, *members, *first, *lw, *hw, nl;
	struct coll_hosts *hs;
	size_t words;

	if (c->local || n < 2 || !(id = malloc((size_t)michi_state.npeers * sizeof(int))))
		return NULL;
	for (i = 0; i < n; i++)
		id[coll_host_id(c->peers[i])] = -1;
	for (i = 0; i < n; i++)
		if (id[coll_host_id(c->peers[i])] < 0)
			id[coll_host_id(c->peers[i])] = nh++;
	if (nh == 1 || nh == n) {
		free(id);
		return nh == 1 ? NULL : &coll_hosts_apart;
	}
	words = 4 * (size_t)n + 2 * (size_t)nh + 1;
	if (!(hs = malloc(sizeof(*hs) + words * sizeof(int)))) {
		free(id);
		return NULL;
	}
	host = (int *)(hs + 1);
	lrank_of = host + n;
	members = lrank_of + n;
	first = members + n;
	hw = first + nh + 1;
	lw = hw + nh;
	memset(first, 0, (size_t)(nh + 1) * sizeof(int));
	for (i = 0; i < n; i++) {
		host[i] = id[coll_host_id(c->peers[i])];
		first[host[i] + 1]++;
	}
	free(id);
	for (h = 0; h < nh; h++)
		first[h + 1] += first[h];
	for (h = 0; h < nh; h++)   /* fill pointers, put back below */
		hw[h] = first[h];
	for (i = 0; i < n; i++) {
		lrank_of[i] = hw[host[i]] - first[host[i]];
		members[hw[host[i]]++] = i;
	}
	hs->nhosts = nh;
	hs->myhost = host[c->rank];
	hs->lrank = lrank_of[c->rank];
	nl = first[hs->myhost + 1] - first[hs->myhost];
	for (h = 0; h < nh; h++)
		hw[h] = c->peers[members[first[h]]];
	for (i = 0; i < nl; i++)
		lw[i] = c->peers[members[first[hs->myhost] + i]];
	hs->host = host;
	hs->lrank_of = lrank_of;
	hs->members = members;
	hs->first = first;
	hs->leader_world = hw;
	hs->local_world = lw;
	c->hosts_mem = hs;
	return hs;
}

/* the call's number sits above the tag bits MTMI hashes, the kind below */
_Static_assert((1u << COLL_SEQ_SHIFT) > MTMI_HASH_TAG_MASK &&
	       COLL_TAG_MAX - 1 <= MTMI_HASH_TAG_MASK &&
	       (COLL_SEQ_MASK << COLL_SEQ_SHIFT) <= 0x7fffffffu,
	       "collective tags: sequence above MTMI's hashed bits, positive");

void michi_coll_comm(struct michi_comm *c, struct coll_comm *cc)
{
	cc->rank = c->rank;
	cc->size = c->size;
	cc->ctx = c->ctx + 1;
	cc->tag_ofs = (int)((c->coll_seq++ & COLL_SEQ_MASK) << COLL_SEQ_SHIFT);
	cc->peers = c->peers;
	if (unlikely(!c->hosts_done)) {
		c->hosts = coll_hosts_build(c);
		c->hosts_done = 1;
	}
	cc->hosts = c->hosts;
}

/* The calls MPI defines on intracommunicators only. */
static int coll_intra_only(struct michi_comm *c, const char *fname)
{
	return michi_mpi_err(c, MPI_ERR_COMM, fname,
			     "(comm): an intercommunicator; MPI defines this collective on "
			     "intracommunicators only");
}

static int coll_done(struct michi_comm *c, michi_status_t st, const char *fname)
{
	if (unlikely(st < 0))
		return michi_mpi_err_status(c, st, fname);
	return MPI_SUCCESS;
}

/*
 * Run a built schedule: to the end when request is NULL (the blocking
 * call), else behind a new request of kind MICHI_REQ_COLL whose MTMI part
 * the schedule completes (mpi/request.c waits on it as on any request).
 */
int michi_coll_go(struct michi_comm *c, struct coll_sched *s, MPI_Request *request,
		  const char *fname)
{
	struct michi_request *r;
	michi_status_t st;
	size_t bytes;
	int user_code;

	if (!request)
		return s ? coll_done(c, coll_sched_run(s), fname) : MPI_SUCCESS;
	r = michi_req_alloc();
	if (unlikely(!r)) {
		coll_sched_free(s);
		return michi_err_nomem(c, fname);
	}
	r->kind = MICHI_REQ_COLL;
	r->active = 1;
	r->freed = 0;
	r->mode = 0;
	r->comm = c;
	r->dtype = MPI_DATATYPE_NULL;
	r->buf = NULL;
	r->count = 0;
	r->rank = MPI_PROC_NULL;
	r->tag = MPI_ANY_TAG;
	r->stage = NULL;
	r->m.source = MPI_ANY_SOURCE;
	r->m.tag = MPI_ANY_TAG;
	r->m.type = MTMI_REQ_NONE;
	r->m.on_complete = NULL;
	if (!s) {
		michi_req_done_now(r, MPI_ANY_SOURCE, MPI_ANY_TAG);
		*request = (MPI_Request)michi_p2h(r);
		return MPI_SUCCESS;
	}
	bytes = coll_sched_bytes(s);
	user_code = s->on_free != NULL;   /* a user op's or an idup's */
	st = coll_sched_start(s, &r->m, 1);
	if (st < 0) {
		michi_req_free(r);
		return coll_done(c, st, fname);
	}
	*request = (MPI_Request)michi_p2h(r);
	/* last: from here on the progress thread may run the schedule */
	if (!r->m.done)
		michi_async_kick(bytes, user_code);
	return MPI_SUCCESS;
}

static void coll_op_drop(struct coll_sched *s)
{
	michi_op_release((MPI_Op)s->op.op);
}

/* A new schedule (NULL: no memory); one with a user op holds it. */
/* A schedule on the collective view cc of c (michi_coll_comm). */
static struct coll_sched *coll_new_cc(const struct coll_comm *cc, int tag,
				      const struct coll_op *op)
{
	struct coll_sched *s = coll_sched_new(cc, tag, op);

	if (s && op && !michi_op_is_predefined((MPI_Op)op->op)) {
		michi_op_hold((MPI_Op)op->op);
		s->on_free = coll_op_drop;
	}
	return s;
}

static struct coll_sched *coll_new(struct michi_comm *c, int tag, const struct coll_op *op)
{
	struct coll_comm cc;

	michi_coll_comm(c, &cc);
	return coll_new_cc(&cc, tag, op);
}

/* A schedule over intercommunicator c, with its local group as the
 * other view. */
static struct coll_sched *coll_new_inter(struct michi_comm *c, int tag, const struct coll_op *op)
{
	struct coll_sched *s = coll_new(c, tag, op);
	struct coll_comm lc;

	if (s) {
		michi_coll_comm(c->local, &lc);
		coll_sched_set_alt(s, &lc, tag);
	}
	return s;
}

/* The intercommunicator forms (at the end of this file). */
static int inter_bcast(struct michi_comm *c, void *buf, int count, MPI_Datatype dt, int root,
		       MPI_Request *request, const char *fname);
static int inter_reduce(struct michi_comm *c, const void *sbuf, void *rbuf, int count,
			const int *counts, int rcount, MPI_Datatype dt, MPI_Op op, int root,
			MPI_Request *request, const char *fname);
static int inter_rooted(struct michi_comm *c, int gather, const void *mine, int mcount,
			MPI_Datatype mtype, const void *rootbuf, const int *counts,
			const int *displs, int ucount, MPI_Datatype rtype, int root, int vform,
			MPI_Request *request, const char *fname);
static int inter_allgather(struct michi_comm *c, const void *sbuf, int scount, MPI_Datatype stype,
			   void *rbuf, const int *counts, const int *displs, int rcount,
			   MPI_Datatype rtype, MPI_Request *request, const char *fname);
#define INTER_ALLREDUCE (-4)
#define INTER_REDSCAT (-5)

/* Built: errors of the builder are the schedule's (coll_go reports them). */
#define COLL_BUILD_AND_GO(c, s, build, request, fname) do { \
	if (unlikely(!(s))) \
		return michi_err_nomem(c, fname); \
	(void)(build); \
	return michi_coll_go(c, s, request, fname); \
} while (0)

/* ---- argument checks ---------------------------------------------------- */

/* A (buf, count, datatype) triple; buf may be NULL only when empty. */
static int coll_check_buf(struct michi_comm *c, const char *fname, const char *arg,
			  const void *buf, int count, MPI_Datatype dt)
{
	if (unlikely(count < 0))
		return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(%scount=%d): negative count",
				     arg, count);
	if (unlikely(!michi_dt_ok(dt)))
		return michi_err_type(c, fname, dt);
	if (unlikely(!buf) && count > 0 && michi_dt_null_buf_bad(dt))
		return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
				     "(%sbuf=NULL, %scount=%d): NULL buffer with a positive count",
				     arg, arg, count);
	return MPI_SUCCESS;
}

static int coll_check_root(struct michi_comm *c, const char *fname, int root)
{
	if (unlikely((unsigned)root >= (unsigned)c->size))
		return michi_mpi_err(c, MPI_ERR_ROOT, fname,
				     "(root=%d): root out of range, communicator has %d ranks",
				     root, c->size);
	return MPI_SUCCESS;
}

static int coll_err_inplace(struct michi_comm *c, const char *fname, const char *arg,
			    const char *why)
{
	return michi_mpi_err(c, MPI_ERR_BUFFER, fname, "(%s=MPI_IN_PLACE): %s", arg, why);
}

static int coll_err_alias(struct michi_comm *c, const char *fname)
{
	return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
			     "(sendbuf=recvbuf): the buffers alias; use MPI_IN_PLACE");
}

/* counts/displs arrays of a v collective: present, counts non-negative */
static int coll_check_v(struct michi_comm *c, const char *fname, const char *arg,
			const void *buf, const int *counts, const int *displs, MPI_Datatype dt)
{
	int i, err;

	if (unlikely(!counts))
		return michi_mpi_err(c, MPI_ERR_ARG, fname, "(%scounts=NULL): NULL pointer", arg);
	if (unlikely(!displs))
		return michi_mpi_err(c, MPI_ERR_ARG, fname,
				     "(displs=NULL): NULL pointer for the %s side", arg);
	for (i = 0; i < c->size; i++) {
		if (unlikely(counts[i] < 0))
			return michi_mpi_err(c, MPI_ERR_COUNT, fname,
					     "(%scounts[%d]=%d): negative count", arg, i, counts[i]);
		if ((err = coll_check_buf(c, fname, arg, buf, counts[i], dt)))
			return err;
	}
	return MPI_SUCCESS;
}

/* The start of every collective: initialised, an intracommunicator, and
 * for the nonblocking form a place for the request. */
static int coll_enter(struct michi_comm *c, MPI_Comm comm, MPI_Request *request, int nb,
		      const char *fname)
{
	if (ERRCHK && unlikely(!michi_state.active))
		return michi_not_initialized(fname);
	if (unlikely(!c))
		return michi_check_comm_slow(comm, fname);
	if (nb && unlikely(!request))
		return michi_err_null(c, fname, "request");
	return MPI_SUCCESS;
}

/* ---- datatypes -------------------------------------------------------------- */

/* 1 when count instances of dt are count * extent bytes at the buffer. */
static inline int coll_contig(MPI_Datatype dt)
{
	return likely(michi_dt_builtin_valid(dt)) || michi_dt_check(dt) == 0;
}

/* Bytes of count instances as the algorithms move them. */
static size_t coll_bytes(MPI_Datatype dt, int count)
{
	return coll_contig(dt) ? (size_t)count * (size_t)michi_dt_extent(dt)
			       : michi_dt_packed(dt, count);
}

/* Blocks of received data to unpack when the schedule ends. */
struct unstage_blk {
	char *user;
	const char *packed;
	int count;
	MPI_Datatype dt;
};

struct unstage {
	int n;
	struct unstage_blk b[];
};

static michi_status_t unstage_fn(struct coll_sched *s, void *arg)
{
	struct unstage *u = arg;
	int i;

	(void)s;
	for (i = 0; i < u->n; i++) {
		struct unstage_blk *b = &u->b[i];

		if (b->count > 0) {
			michi_dt_unpack(b->packed, michi_dt_packed(b->dt, b->count), b->user,
					b->count, b->dt);
			michi_dt_release(b->dt);
		}
	}
	return MICHI_OK;
}

static struct unstage *unstage_new(struct coll_sched *s, int n)
{
	struct unstage *u = coll_sched_tmp(s, sizeof(*u) + (size_t)n * sizeof(struct unstage_blk));

	if (u)
		u->n = 0;
	return u;
}

static void unstage_add(struct unstage *u, void *user, const char *packed, int count,
			MPI_Datatype dt)
{
	struct unstage_blk *b = &u->b[u->n++];

	b->user = user;
	b->packed = packed;
	b->count = count;
	b->dt = dt;
	if (count > 0)
		michi_dt_hold(dt);   /* MPI_Type_free may come before the end */
}

/* Append the unpacking of u at the end of the schedule. */
static void unstage_finish(struct coll_sched *s, struct unstage *u)
{
	if (!u || !u->n)
		return;
	coll_sched_fence(s);
	coll_sched_call(s, unstage_fn, u);
}

/*
 * A buffer of n blocks as the algorithms see it (coll_block): block i is
 * counts[i] (or ucount) elements of dt at displs[i] (or i * ucount)
 * extents from buf. A type that is not contiguous is replaced by its
 * packed form in scratch, the blocks back to back: `pack` fills it now
 * (data to send, or in place), `*u` (when given) gets the blocks to
 * unpack at the end (data received). Returns 0, or -1 out of memory.
 */
struct side {
	void *buf;
	const int *displs;
	size_t unit;           /* bytes per element as laid out */
};

static int side_of(struct coll_sched *s, struct side *out, const void *buf, const int *counts,
		   const int *displs, size_t ucount, MPI_Datatype dt, int n, int pack,
		   struct unstage **u)
{
	size_t size, total = 0;
	int *pd = NULL, i;
	char *packed;

	if (coll_contig(dt)) {
		out->buf = (void *)buf;
		out->displs = displs;
		out->unit = (size_t)michi_dt_extent(dt);
		return 0;
	}
	size = (size_t)michi_dt_size(dt);
	if (counts && !(pd = coll_sched_tmp(s, (size_t)n * sizeof(int))))
		return -1;
	for (i = 0; i < n; i++) {
		if (pd)
			pd[i] = (int)total;
		total += counts ? (size_t)counts[i] : ucount;
	}
	if (!(packed = coll_sched_tmp(s, total * size)))
		return -1;
	if (u && !(*u = unstage_new(s, n)))
		return -1;
	for (i = 0; i < n; i++) {
		size_t cnt = counts ? (size_t)counts[i] : ucount;
		char *ub = (char *)buf + (counts ? (ptrdiff_t)displs[i] : (ptrdiff_t)i * (ptrdiff_t)ucount) *
			   michi_dt_extent(dt);
		char *pb = packed + (pd ? (size_t)pd[i] : (size_t)i * ucount) * size;

		if (pack && cnt)
			michi_dt_pack(ub, (MPI_Count)cnt, dt, pb, cnt * size);
		if (u)
			unstage_add(*u, ub, pb, (int)cnt, dt);
	}
	out->buf = packed;
	out->displs = pd;
	out->unit = size;
	return 0;
}

/* ---- barrier and broadcast --------------------------------------------------- */

static int barrier_common(MPI_Comm comm, MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local) {
		s = coll_new_inter(c, COLL_TAG_BARRIER, NULL);
		COLL_BUILD_AND_GO(c, s, coll_build_inter_barrier(s), nb ? request : NULL, fname);
	}
	s = coll_new(c, COLL_TAG_BARRIER, NULL);
	COLL_BUILD_AND_GO(c, s, coll_build_barrier(s), nb ? request : NULL, fname);
}

int PMPI_Barrier(MPI_Comm comm)
{
	return barrier_common(comm, NULL, 0, "MPI_Barrier");
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	return barrier_common(comm, request, 1, "MPI_Ibarrier");
}

static int bcast_common(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm,
			MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct unstage *u = NULL;
	struct coll_sched *s;
	struct coll_comm cc;
	struct side sd;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_bcast(c, buffer, count, dt, root, nb ? request : NULL, fname);
	if (ERRCHK) {
		if ((err = coll_check_buf(c, fname, "", buffer, count, dt)) ||
		    (err = coll_check_root(c, fname, root)))
			return err;
		if (buffer == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "buffer", "not allowed in a broadcast");
	}
	michi_coll_comm(c, &cc);
	/* small, blocking and contiguous: the tree without a schedule */
	if (!nb && michi_dt_builtin_valid(dt) &&
	    coll_direct_bcast_ok(&cc, (size_t)count * michi_dt_size(dt)))
		return coll_done(c, coll_direct_bcast(&cc, buffer, (size_t)count * michi_dt_size(dt),
						      root), fname);
	if (!(s = coll_new_cc(&cc, COLL_TAG_BCAST, NULL)))
		return michi_err_nomem(c, fname);
	if (!side_of(s, &sd, buffer, NULL, NULL, (size_t)count, dt, 1, c->rank == root,
		     c->rank == root ? NULL : &u) &&
	    !coll_build_bcast(s, sd.buf, (size_t)count * sd.unit, root))
		unstage_finish(s, u);
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	return bcast_common(buffer, count, datatype, root, comm, NULL, 0, "MPI_Bcast");
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
		MPI_Request *request)
{
	return bcast_common(buffer, count, datatype, root, comm, request, 1, "MPI_Ibcast");
}

/* ---- reductions ------------------------------------------------------------ */

static void coll_op_apply(const struct coll_op *o, const void *in, void *inout, size_t count)
{
	michi_op_apply((MPI_Op)o->op, in, inout, (MPI_Count)count, (MPI_Datatype)o->dtype);
}

static void coll_op_of(struct coll_op *o, MPI_Op op, MPI_Datatype dt)
{
	o->apply = coll_op_apply;
	o->op = (uint32_t)op;
	o->dtype = (uint32_t)dt;
	o->extent = (size_t)michi_dt_extent(dt);
	o->commute = michi_op_commutes(op);
}

/*
 * User ops over types that are not contiguous: the algorithms move and
 * combine whole extents, holes and all (the op's function reads the
 * layout), which needs every instance's data inside [0, extent). The
 * result goes through scratch and is copied into recvbuf element by
 * element at the end, so the holes of recvbuf stay as they were.
 */
static int within_extent(MPI_Datatype dt)
{
	struct michi_dt_info in;

	return michi_dt_info(dt, &in) == 0 && in.lb == 0 && in.true_lb >= 0 &&
	       in.true_ub <= in.ub;
}

struct typed_out {
	const char *scratch;
	char *packed;
	void *user;
	int count;
	MPI_Datatype dt;
};

static michi_status_t typed_out_fn(struct coll_sched *s, void *arg)
{
	struct typed_out *t = arg;
	size_t bytes = michi_dt_packed(t->dt, t->count);

	(void)s;
	michi_dt_pack(t->scratch, t->count, t->dt, t->packed, bytes);
	michi_dt_unpack(t->packed, bytes, t->user, t->count, t->dt);
	michi_dt_release(t->dt);
	return MICHI_OK;
}

/* The buffer the algorithm writes the result of count instances of dt
 * into: rbuf itself for contiguous types, else scratch (holding rbuf's
 * bytes first when `in` says the input is there) that *t copies back. */
static void *result_buf(struct coll_sched *s, void *rbuf, int count, MPI_Datatype dt, int in,
			struct typed_out **t)
{
	size_t bytes = (size_t)count * (size_t)michi_dt_extent(dt);
	char *scratch;

	*t = NULL;
	if (coll_contig(dt) || !rbuf || count <= 0)
		return rbuf;
	if (!(scratch = coll_sched_tmp(s, bytes)) || !(*t = coll_sched_tmp(s, sizeof(**t))) ||
	    !((*t)->packed = coll_sched_tmp(s, michi_dt_packed(dt, count))))
		return NULL;
	if (in)
		memcpy(scratch, rbuf, bytes);
	(*t)->scratch = scratch;
	(*t)->user = rbuf;
	(*t)->count = count;
	(*t)->dt = dt;
	michi_dt_hold(dt);
	return scratch;
}

static void typed_out_finish(struct coll_sched *s, struct typed_out *t)
{
	if (!t)
		return;
	coll_sched_fence(s);
	coll_sched_call(s, typed_out_fn, t);
}

/*
 * The checks every reduction shares: the op on the type (predefined ops
 * are defined on predefined types only, MPI-3.1 5.9.2; user ops over
 * types that are not contiguous are not supported yet), the send side,
 * and, where this rank receives, the receive side.
 */
static int coll_check_reduce(struct michi_comm *c, const char *fname, const void *sendbuf,
			     const void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
			     int receives)
{
	int err;

	if (unlikely(count < 0))
		return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(count=%d): negative count", count);
	if (unlikely(!coll_contig(dt)) && michi_dt_ok(dt)) {
		if (michi_op_is_predefined(op))
			return michi_mpi_err(c, MPI_ERR_OP, fname,
					     "(op=%s, datatype=0x%x): predefined ops are defined "
					     "on predefined datatypes only", michi_op_name(op),
					     (unsigned)dt);
		if (!within_extent(dt))
			return michi_mpi_err(c, MPI_ERR_TYPE, fname,
					     "(datatype=0x%x): user ops over derived datatypes whose "
					     "data reaches outside [lb, ub) or whose lb is not 0 are "
					     "not supported", (unsigned)dt);
	}
	if (sendbuf != MPI_IN_PLACE && (err = coll_check_buf(c, fname, "", sendbuf, count, dt)))
		return err;
	if (unlikely(!michi_dt_ok(dt)))
		return michi_err_type(c, fname, dt);
	if (unlikely(michi_op_check(op, dt)))
		return michi_err_op(c, fname, op, dt);
	if (!receives)
		return MPI_SUCCESS;
	if (unlikely(!recvbuf) && count > 0)
		return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
				     "(recvbuf=NULL, count=%d): NULL buffer with a positive count",
				     count);
	if (unlikely(recvbuf == MPI_IN_PLACE))
		return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
	if (unlikely(sendbuf == recvbuf) && count > 0)
		return coll_err_alias(c, fname);
	return MPI_SUCCESS;
}

static int reduce_common(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
			 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request, int nb,
			 const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct typed_out *t = NULL;
	struct coll_comm cc;
	struct coll_op o;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_reduce(c, sendbuf, recvbuf, count, NULL, 0, dt, op, root, nb ? request : NULL, fname);
	if (ERRCHK) {
		if ((err = coll_check_root(c, fname, root)) ||
		    (err = coll_check_reduce(c, fname, sendbuf, recvbuf, count, dt, op,
					     c->rank == root)))
			return err;
		if (c->rank != root && sendbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "sendbuf", "only the root may pass it");
	}
	coll_op_of(&o, op, dt);
	michi_coll_comm(c, &cc);
	/* small, blocking and contiguous: the tree without a schedule */
	if (!nb && count > 0 && michi_dt_builtin_valid(dt) &&
	    coll_direct_reduce_ok(&cc, &o, (size_t)count))
		return coll_done(c, coll_direct_reduce(&cc, &o, sendbuf == MPI_IN_PLACE ? NULL :
						       sendbuf, recvbuf, (size_t)count, root),
				 fname);
	if (!(s = coll_new_cc(&cc, COLL_TAG_REDUCE, &o)))
		return michi_err_nomem(c, fname);
	if (count > 0) {
		int inplace = sendbuf == MPI_IN_PLACE;
		void *rb = c->rank == root ? result_buf(s, recvbuf, count, dt, inplace, &t) : NULL;

		if ((c->rank != root || rb) &&
		    !coll_build_reduce(s, inplace ? NULL : sendbuf, rb, (size_t)count, root))
			typed_out_finish(s, t);
	}
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		MPI_Op op, int root, MPI_Comm comm)
{
	return reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm, NULL, 0,
			     "MPI_Reduce");
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	return reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm, request, 1,
			     "MPI_Ireduce");
}

static int allreduce_common(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
			    MPI_Op op, MPI_Comm comm, MPI_Request *request, int nb,
			    const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct typed_out *t = NULL;
	struct coll_op o;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_reduce(c, sendbuf, recvbuf, count, NULL, 0, dt, op, INTER_ALLREDUCE,
				    nb ? request : NULL, fname);
	if (ERRCHK && (err = coll_check_reduce(c, fname, sendbuf, recvbuf, count, dt, op, 1)))
		return err;
	coll_op_of(&o, op, dt);
	if (!(s = coll_new(c, COLL_TAG_ALLREDUCE, &o)))
		return michi_err_nomem(c, fname);
	if (count > 0) {
		int inplace = sendbuf == MPI_IN_PLACE;
		void *rb = result_buf(s, recvbuf, count, dt, inplace, &t);

		if (rb && !coll_build_allreduce(s, inplace ? NULL : sendbuf, rb, (size_t)count))
			typed_out_finish(s, t);
	}
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		   MPI_Op op, MPI_Comm comm)
{
	return allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, 0,
				"MPI_Allreduce");
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, request, 1,
				"MPI_Iallreduce");
}

/* Reduce-scatter(_block): counts NULL is the block form of rcount each. */
static int reduce_scatter_common(const void *sendbuf, void *recvbuf, const int *counts,
				 int rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
				 MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct typed_out *t = NULL;
	struct coll_op o;
	long total = 0;
	int err, i;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_reduce(c, sendbuf, recvbuf, 0, counts, rcount, dt, op, INTER_REDSCAT,
				    nb ? request : NULL, fname);
	if (ERRCHK && counts == NULL && rcount < 0)
		return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(recvcount=%d): negative count",
				     rcount);
	for (i = 0; counts && i < c->size; i++) {
		if (ERRCHK && counts[i] < 0)
			return michi_mpi_err(c, MPI_ERR_COUNT, fname,
					     "(recvcounts[%d]=%d): negative count", i, counts[i]);
		total += counts[i];
	}
	if (!counts)
		total = (long)rcount * c->size;
	if (ERRCHK && total > 0x7fffffff)
		return michi_mpi_err(c, MPI_ERR_COUNT, fname,
				     "(): %ld elements in all: too many for now", total);
	if (ERRCHK && (err = coll_check_reduce(c, fname, sendbuf, recvbuf, (int)total, dt, op,
					       0)))
		return err;
	if (ERRCHK && (counts ? counts[c->rank] : rcount) > 0) {
		if (!recvbuf)
			return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
					     "(recvbuf=NULL): NULL buffer with a positive count");
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf",
						"only sendbuf may be MPI_IN_PLACE");
		if (sendbuf == recvbuf)
			return coll_err_alias(c, fname);
	}
	coll_op_of(&o, op, dt);
	if (!(s = coll_new(c, COLL_TAG_REDUCE_SCATTER, &o)))
		return michi_err_nomem(c, fname);
	if (total > 0) {
		const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
		void *rb = result_buf(s, recvbuf, counts ? counts[c->rank] : rcount, dt, 0, &t);

		if ((rb || !recvbuf) &&
		    !coll_build_reduce_scatter(s, in == rb ? NULL : in, rb, counts,
					       (size_t)rcount))
			typed_out_finish(s, t);
	}
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
			MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Reduce_scatter", "recvcounts");
	return reduce_scatter_common(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, NULL,
				     0, "MPI_Reduce_scatter");
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
			 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Ireduce_scatter", "recvcounts");
	return reduce_scatter_common(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm,
				     request, 1, "MPI_Ireduce_scatter");
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, NULL,
				     0, "MPI_Reduce_scatter_block");
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			       MPI_Request *request)
{
	return reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm,
				     request, 1, "MPI_Ireduce_scatter_block");
}

static int scan_common(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt,
		       MPI_Op op, MPI_Comm comm, MPI_Request *request, int nb, int exclusive,
		       const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct typed_out *t = NULL;
	struct coll_op o;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return coll_intra_only(c, fname);
	if (ERRCHK && (err = coll_check_reduce(c, fname, sendbuf, recvbuf, count, dt, op, 1)))
		return err;
	coll_op_of(&o, op, dt);
	if (!(s = coll_new(c, COLL_TAG_SCAN, &o)))
		return michi_err_nomem(c, fname);
	if (count > 0) {
		int inplace = sendbuf == MPI_IN_PLACE;
		/* exscan leaves rank 0's recvbuf alone */
		void *rb = result_buf(s, recvbuf, exclusive && c->rank == 0 ? 0 : count, dt,
				      inplace, &t);

		if ((rb || (exclusive && c->rank == 0)) &&
		    !coll_build_scan_recdbl(s, inplace ? NULL : sendbuf, rb ? rb : recvbuf,
					    (size_t)count, exclusive))
			typed_out_finish(s, t);
	}
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	      MPI_Comm comm)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, 0, 0, "MPI_Scan");
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       MPI_Comm comm, MPI_Request *request)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, request, 1, 0,
			   "MPI_Iscan");
}

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		MPI_Op op, MPI_Comm comm)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, 0, 1, "MPI_Exscan");
}

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, request, 1, 1,
			   "MPI_Iexscan");
}

/* ---- gather and scatter ------------------------------------------------------ */

/* The root's receive side of a gather / send side of a scatter. */
static int coll_check_rootbuf(struct michi_comm *c, const char *fname, const char *arg,
			      const void *buf, const int *counts, const int *displs, int count,
			      MPI_Datatype dt)
{
	if (counts)
		return coll_check_v(c, fname, arg, buf, counts, displs, dt);
	return coll_check_buf(c, fname, arg, buf, count, dt);
}

/*
 * The argument checks a rooted gather or scatter shares: every rank's own
 * buffer ("send" for a gather, "recv" for a scatter), which only the root may
 * pass as MPI_IN_PLACE, and the root's buffer on the other side.
 */
static int coll_check_rooted(struct michi_comm *c, const char *fname, int root, int gather,
			     const void *mine, int count, MPI_Datatype dt, const void *rootbuf,
			     const int *counts, const int *displs, int rootcount,
			     MPI_Datatype roottype)
{
	const char *side = gather ? "send" : "recv", *other = gather ? "recv" : "send";
	const char *sidebuf = gather ? "sendbuf" : "recvbuf";
	const char *otherbuf = gather ? "recvbuf" : "sendbuf";
	int err;

	if ((err = coll_check_root(c, fname, root)))
		return err;
	if (mine == MPI_IN_PLACE) {
		if (c->rank != root)
			return coll_err_inplace(c, fname, sidebuf, "only the root may pass it");
	} else if ((err = coll_check_buf(c, fname, side, mine, count, dt))) {
		return err;
	}
	if (c->rank != root)
		return MPI_SUCCESS;
	if ((err = coll_check_rootbuf(c, fname, other, rootbuf, counts, displs, rootcount,
				      roottype)))
		return err;
	if (rootbuf == MPI_IN_PLACE)
		return coll_err_inplace(c, fname, otherbuf, gather ?
					"only sendbuf may be MPI_IN_PLACE" :
					"only recvbuf may be MPI_IN_PLACE");
	return MPI_SUCCESS;
}

static int gather_common(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			 void *recvbuf, const int *recvcounts, const int *displs, int recvcount,
			 MPI_Datatype recvtype, int root, int vform, MPI_Comm comm,
			 MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE, isroot;
	struct side snd = { NULL, NULL, 0 }, rcv = { NULL, NULL, 0 };
	struct unstage *u = NULL;
	struct coll_sched *s;
	struct coll_comm cc;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_rooted(c, 1, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
				    recvcount, recvtype, root, vform, nb ? request : NULL, fname);
	if (ERRCHK && (err = coll_check_rooted(c, fname, root, 1, sendbuf, sendcount, sendtype,
					       recvbuf, recvcounts, displs, recvcount, recvtype)))
		return err;
	isroot = c->rank == root;
	michi_coll_comm(c, &cc);
	/* small, blocking, uniform and predefined: the tree without a schedule */
	if (!nb && !vform && michi_dt_builtin_valid(inplace ? recvtype : sendtype) &&
	    (!isroot || michi_dt_builtin_valid(recvtype))) {
		size_t blen = inplace ? (size_t)recvcount * michi_dt_size(recvtype)
				      : (size_t)sendcount * michi_dt_size(sendtype);

		if ((!isroot || blen == (size_t)recvcount * michi_dt_size(recvtype)) &&
		    coll_direct_gather_ok(&cc, blen))
			return coll_done(c, coll_direct_gather(&cc, inplace ? NULL : sendbuf,
							       isroot ? recvbuf : NULL, blen, root),
					 fname);
	}
	if (!(s = coll_new_cc(&cc, COLL_TAG_GATHER, NULL)))
		return michi_err_nomem(c, fname);
	if ((inplace || !side_of(s, &snd, sendbuf, NULL, NULL, (size_t)sendcount, sendtype, 1, 1,
				 NULL)) &&
	    (!isroot || !side_of(s, &rcv, recvbuf, recvcounts, displs, (size_t)recvcount,
				 recvtype, c->size, inplace, &u)) &&
	    !coll_build_gather(s, inplace ? NULL : snd.buf, inplace ? 0 : (size_t)sendcount * snd.unit,
			       rcv.buf, recvcounts, rcv.displs, (size_t)recvcount, rcv.unit, root,
			       vform))
		unstage_finish(s, u);
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
			     recvtype, root, 0, comm, NULL, 0, "MPI_Gather");
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		 MPI_Request *request)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
			     recvtype, root, 0, comm, request, 1, "MPI_Igather");
}

/* only the root reads the arrays of a rooted v collective; a NULL one
 * elsewhere is legal */
static int rooted_v_counts(MPI_Comm comm, int root, const int *counts, const char *fname,
			   const char *arg, const int **out)
{
	struct michi_comm *c = michi_comm_get(comm);

	*out = NULL;
	if (!c || (c->local ? root != MPI_ROOT
		   : (unsigned)root >= (unsigned)c->size || c->rank != root))
		return MPI_SUCCESS;
	if (ERRCHK && !counts)
		return michi_err_null(c, fname, arg);
	*out = counts;
	return MPI_SUCCESS;
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		 MPI_Comm comm)
{
	const int *counts;
	int err = rooted_v_counts(comm, root, recvcounts, "MPI_Gatherv", "recvcounts", &counts);

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, counts, displs, 0,
					 recvtype, root, 1, comm, NULL, 0, "MPI_Gatherv");
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		  MPI_Comm comm, MPI_Request *request)
{
	const int *counts;
	int err = rooted_v_counts(comm, root, recvcounts, "MPI_Igatherv", "recvcounts", &counts);

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, counts, displs, 0,
					 recvtype, root, 1, comm, request, 1, "MPI_Igatherv");
}

static int scatter_common(const void *sendbuf, const int *sendcounts, const int *displs,
			  int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
			  MPI_Datatype recvtype, int root, int vform, MPI_Comm comm,
			  MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = recvbuf == MPI_IN_PLACE, isroot;
	struct side snd = { NULL, NULL, 0 }, rcv = { NULL, NULL, 0 };
	struct unstage *u = NULL;
	struct coll_sched *s;
	struct coll_comm cc;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_rooted(c, 0, recvbuf, recvcount, recvtype, sendbuf, sendcounts, displs,
				    sendcount, sendtype, root, vform, nb ? request : NULL, fname);
	if (ERRCHK && (err = coll_check_rooted(c, fname, root, 0, recvbuf, recvcount, recvtype,
					       sendbuf, sendcounts, displs, sendcount, sendtype)))
		return err;
	isroot = c->rank == root;
	michi_coll_comm(c, &cc);
	/* small, blocking, uniform and predefined: the tree without a schedule */
	if (!nb && !vform && michi_dt_builtin_valid(inplace ? sendtype : recvtype) &&
	    (!isroot || michi_dt_builtin_valid(sendtype))) {
		size_t blen = inplace ? (size_t)sendcount * michi_dt_size(sendtype)
				      : (size_t)recvcount * michi_dt_size(recvtype);

		if ((!isroot || blen == (size_t)sendcount * michi_dt_size(sendtype)) &&
		    coll_direct_scatter_ok(&cc, blen))
			return coll_done(c, coll_direct_scatter(&cc, isroot ? sendbuf : NULL,
								inplace ? NULL : recvbuf, blen, root),
					 fname);
	}
	if (!(s = coll_new_cc(&cc, COLL_TAG_SCATTER, NULL)))
		return michi_err_nomem(c, fname);
	if ((!isroot || !side_of(s, &snd, sendbuf, sendcounts, displs, (size_t)sendcount,
				 sendtype, c->size, 1, NULL)) &&
	    (inplace || !side_of(s, &rcv, recvbuf, NULL, NULL, (size_t)recvcount, recvtype, 1, 0,
				 &u)) &&
	    !coll_build_scatter(s, snd.buf, sendcounts, snd.displs, (size_t)sendcount, snd.unit,
				inplace ? NULL : rcv.buf, inplace ? 0 : (size_t)recvcount * rcv.unit,
				root, vform))
		unstage_finish(s, u);
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return scatter_common(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
			      recvtype, root, 0, comm, NULL, 0, "MPI_Scatter");
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	return scatter_common(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
			      recvtype, root, 0, comm, request, 1, "MPI_Iscatter");
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  int root, MPI_Comm comm)
{
	const int *counts;
	int err = rooted_v_counts(comm, root, sendcounts, "MPI_Scatterv", "sendcounts", &counts);

	return err ? err : scatter_common(sendbuf, counts, displs, 0, sendtype, recvbuf,
					  recvcount, recvtype, root, 1, comm, NULL, 0,
					  "MPI_Scatterv");
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		   int root, MPI_Comm comm, MPI_Request *request)
{
	const int *counts;
	int err = rooted_v_counts(comm, root, sendcounts, "MPI_Iscatterv", "sendcounts", &counts);

	return err ? err : scatter_common(sendbuf, counts, displs, 0, sendtype, recvbuf,
					  recvcount, recvtype, root, 1, comm, request, 1,
					  "MPI_Iscatterv");
}

/* ---- allgather and alltoall ---------------------------------------------------- */

static int allgather_common(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    void *recvbuf, const int *recvcounts, const int *displs,
			    int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			    MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	struct side snd = { NULL, NULL, 0 }, rcv;
	struct unstage *u = NULL;
	struct coll_sched *s;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_allgather(c, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
				       recvcount, recvtype, nb ? request : NULL, fname);
	if (ERRCHK) {
		if (!inplace && (err = coll_check_buf(c, fname, "send", sendbuf, sendcount, sendtype)))
			return err;
		if ((err = coll_check_rootbuf(c, fname, "recv", recvbuf, recvcounts, displs,
					      recvcount, recvtype)))
			return err;
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
	}
	if (!(s = coll_new(c, COLL_TAG_ALLGATHER, NULL)))
		return michi_err_nomem(c, fname);
	if ((inplace || !side_of(s, &snd, sendbuf, NULL, NULL, (size_t)sendcount, sendtype, 1, 1,
				 NULL)) &&
	    !side_of(s, &rcv, recvbuf, recvcounts, displs, (size_t)recvcount, recvtype, c->size,
		     inplace, &u) &&
	    !coll_build_allgather(s, inplace ? NULL : snd.buf, inplace ? 0 : (size_t)sendcount * snd.unit,
			     rcv.buf, recvcounts, rcv.displs, (size_t)recvcount, rcv.unit))
		unstage_finish(s, u);
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
				recvtype, comm, NULL, 0, "MPI_Allgather");
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
				recvtype, comm, request, 1, "MPI_Iallgather");
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		    MPI_Comm comm)
{
	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Allgatherv", "recvcounts");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
				recvtype, comm, NULL, 0, "MPI_Allgatherv");
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		     MPI_Comm comm, MPI_Request *request)
{
	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Iallgatherv", "recvcounts");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
				recvtype, comm, request, 1, "MPI_Iallgatherv");
}

/* Alltoall(v) on an intercommunicator: the blocks of both sides for the
 * pairwise exchange with the remote group. */
static int inter_alltoall(struct coll_sched *s, const struct side *snd, const int *scounts,
			  size_t sucount, const struct side *rcv, const int *rcounts,
			  size_t rucount)
{
	int i, n = s->c.size;
	size_t *lens = coll_sched_tmp(s, 2 * (size_t)n * (sizeof(size_t) + sizeof(char *)));
	char **ptrs;

	if (!lens)
		return -1;
	ptrs = (char **)(lens + 2 * n);
	for (i = 0; i < n; i++) {
		ptrs[i] = coll_block(snd->buf, scounts, snd->displs, sucount, snd->unit, i, &lens[i]);
		ptrs[n + i] = coll_block(rcv->buf, rcounts, rcv->displs, rucount, rcv->unit, i,
					 &lens[n + i]);
	}
	return coll_build_inter_alltoallw(s, (const char *const *)ptrs, lens, ptrs + n, lens + n);
}

static int alltoall_common(const void *sendbuf, const int *sendcounts, const int *sdispls,
			   int sendcount, MPI_Datatype sendtype, void *recvbuf,
			   const int *recvcounts, const int *rdispls, int recvcount,
			   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int nb,
			   const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	struct side snd = { NULL, NULL, 0 }, rcv;
	struct unstage *u = NULL;
	struct coll_sched *s;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (ERRCHK) {
		if (!inplace && (err = coll_check_rootbuf(c, fname, "send", sendbuf, sendcounts,
							  sdispls, sendcount, sendtype)))
			return err;
		if ((err = coll_check_rootbuf(c, fname, "recv", recvbuf, recvcounts, rdispls,
					      recvcount, recvtype)))
			return err;
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
		if (!inplace && sendbuf == recvbuf && (recvcounts || recvcount > 0))
			return coll_err_alias(c, fname);
	}
	if (ERRCHK && c->local && inplace)
		return coll_err_inplace(c, fname, "sendbuf", "not allowed on an intercommunicator");
	s = c->local ? coll_new_inter(c, COLL_TAG_ALLTOALL, NULL)
		     : coll_new(c, COLL_TAG_ALLTOALL, NULL);
	if (!s)
		return michi_err_nomem(c, fname);
	if ((inplace || !side_of(s, &snd, sendbuf, sendcounts, sdispls, (size_t)sendcount,
				 sendtype, c->size, 1, NULL)) &&
	    !side_of(s, &rcv, recvbuf, recvcounts, rdispls, (size_t)recvcount, recvtype, c->size,
		     inplace, &u) &&
	    !(c->local
	      ? inter_alltoall(s, &snd, sendcounts, (size_t)sendcount, &rcv, recvcounts,
			       (size_t)recvcount)
	      : coll_build_alltoall(s, inplace ? NULL : snd.buf, sendcounts, snd.displs,
				    (size_t)sendcount, snd.unit, rcv.buf, recvcounts, rcv.displs,
				    (size_t)recvcount, rcv.unit)))
		unstage_finish(s, u);
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return alltoall_common(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, NULL, NULL,
			       recvcount, recvtype, comm, NULL, 0, "MPI_Alltoall");
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return alltoall_common(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, NULL, NULL,
			       recvcount, recvtype, comm, request, 1, "MPI_Ialltoall");
}

static int alltoallv_arrays(MPI_Comm comm, const void *sendbuf, const int *sendcounts,
			    const int *recvcounts, const char *fname)
{
	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), fname, "recvcounts");
	if (ERRCHK && sendbuf != MPI_IN_PLACE && !sendcounts)
		return michi_err_null(michi_comm_get(comm), fname, "sendcounts");
	return MPI_SUCCESS;
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	int err = alltoallv_arrays(comm, sendbuf, sendcounts, recvcounts, "MPI_Alltoallv");

	return err ? err : alltoall_common(sendbuf, sendbuf == MPI_IN_PLACE ? NULL : sendcounts,
					   sdispls, 0, sendtype, recvbuf, recvcounts, rdispls, 0,
					   recvtype, comm, NULL, 0, "MPI_Alltoallv");
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
		    MPI_Request *request)
{
	int err = alltoallv_arrays(comm, sendbuf, sendcounts, recvcounts, "MPI_Ialltoallv");

	return err ? err : alltoall_common(sendbuf, sendbuf == MPI_IN_PLACE ? NULL : sendcounts,
					   sdispls, 0, sendtype, recvbuf, recvcounts, rdispls, 0,
					   recvtype, comm, request, 1, "MPI_Ialltoallv");
}

/*
 * Alltoallw: a type per peer and displacements in bytes. Blocks of types
 * that are not contiguous go through scratch one by one; in place, the
 * receive layout describes both sides and the builder sends from a copy.
 */
static int alltoallw_common(const void *sendbuf, const int *scounts, const int *sdispls,
			    const MPI_Datatype *stypes, void *recvbuf, const int *rcounts,
			    const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm,
			    MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE, n, i, err;
	struct unstage *u = NULL;
	struct coll_sched *s;
	size_t *lens;
	char **ptrs, *base = NULL;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	n = c->size;
	if (ERRCHK) {
		char arg[32];

		if (!rcounts || !rdispls || !rtypes)
			return michi_err_null(c, fname, !rcounts ? "recvcounts" : !rdispls ?
					      "rdispls" : "recvtypes");
		if (!inplace && (!scounts || !sdispls || !stypes))
			return michi_err_null(c, fname, !scounts ? "sendcounts" : !sdispls ?
					      "sdispls" : "sendtypes");
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
		for (i = 0; i < n; i++) {
			snprintf(arg, sizeof(arg), "recv[%d]: ", i);
			if ((err = coll_check_buf(c, fname, arg, recvbuf, rcounts[i], rtypes[i])))
				return err;
			snprintf(arg, sizeof(arg), "send[%d]: ", i);
			if (!inplace && (err = coll_check_buf(c, fname, arg, sendbuf, scounts[i],
							      stypes[i])))
				return err;
		}
	}
	if (ERRCHK && c->local && inplace)
		return coll_err_inplace(c, fname, "sendbuf", "not allowed on an intercommunicator");
	s = c->local ? coll_new_inter(c, COLL_TAG_ALLTOALL, NULL)
		     : coll_new(c, COLL_TAG_ALLTOALL, NULL);
	if (!s)
		return michi_err_nomem(c, fname);
	if (!(lens = coll_sched_tmp(s, 2 * (size_t)n * (sizeof(size_t) + sizeof(char *)))) ||
	    !(u = unstage_new(s, n)))
		goto go;
	ptrs = (char **)(lens + 2 * n);
	if (inplace) {
		/* the data to send is what the receive buffer holds now */
		size_t span = 0;

		for (i = 0; i < n; i++) {
			size_t end = (size_t)rdispls[i] +
				     (size_t)rcounts[i] * (size_t)michi_dt_extent(rtypes[i]);

			span = end > span ? end : span;
		}
		if (!(base = coll_sched_tmp(s, span)))
			goto go;
		memcpy(base, recvbuf, span);
		sendbuf = base;
		scounts = rcounts;
		sdispls = rdispls;
		stypes = rtypes;
	}
	for (i = 0; i < n; i++) {
		MPI_Datatype st = stypes[i], rt = rtypes[i];

		ptrs[i] = (char *)sendbuf + sdispls[i];
		ptrs[n + i] = (char *)recvbuf + rdispls[i];
		lens[i] = coll_bytes(st, scounts[i]);
		lens[n + i] = coll_bytes(rt, rcounts[i]);
		if (!coll_contig(st) && scounts[i]) {
			char *p = coll_sched_tmp(s, lens[i]);

			if (!p)
				goto go;
			michi_dt_pack(ptrs[i], scounts[i], st, p, lens[i]);
			ptrs[i] = p;
		}
		if (!coll_contig(rt) && rcounts[i]) {
			char *p = coll_sched_tmp(s, lens[n + i]);

			if (!p)
				goto go;
			unstage_add(u, ptrs[n + i], p, rcounts[i], rt);
			ptrs[n + i] = p;
		}
	}
	if (!(c->local ? coll_build_inter_alltoallw(s, (const char *const *)ptrs, lens, ptrs + n,
						   lens + n)
	      : coll_build_alltoallw_pairwise(s, (const char *const *)ptrs, lens, ptrs + n,
					      lens + n)))
		unstage_finish(s, u);
go:
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
		   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
		   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	return alltoallw_common(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
				rdispls, recvtypes, comm, NULL, 0, "MPI_Alltoallw");
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
		    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
		    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
		    MPI_Request *request)
{
	return alltoallw_common(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
				rdispls, recvtypes, comm, request, 1, "MPI_Ialltoallw");
}

/* ---- neighbourhood collectives ---------------------------------------------------- */

/*
 * The neighbourhood collectives of one topology communicator. Block i of
 * the receive side comes from in-neighbour i; the send side is one block
 * for every out-neighbour (allgather: the same block) or block j for
 * out-neighbour j. Layouts: counts NULL is the uniform one of ucount
 * elements; displacements count elements (v forms), or bytes with a type
 * per block (w forms, stypes/rtypes non-NULL).
 */
struct nbr_side {
	const void *buf;
	const int *counts;
	const int *displs;       /* elements */
	const MPI_Aint *bdispls; /* bytes (w forms) */
	const MPI_Datatype *types;
	int ucount;
	MPI_Datatype dt;
	int same;                /* one block for every neighbour */
};

static int nbr_check(struct michi_comm *c, const char *fname, const char *arg,
		     const struct nbr_side *sd, int n)
{
	char a[32];
	int i, err;

	for (i = 0; i < (sd->same ? 1 : n); i++) {
		int cnt = sd->counts ? sd->counts[i] : sd->ucount;
		MPI_Datatype dt = sd->types ? sd->types[i] : sd->dt;

		snprintf(a, sizeof(a), "%s[%d]: ", arg, i);
		if ((err = coll_check_buf(c, fname, sd->same ? arg : a, sd->buf, cnt, dt)))
			return err;
	}
	return MPI_SUCCESS;
}

/* Address and bytes of block i, packed into scratch (send) or to be
 * unpacked at the end (receive, into u) when its type is not contiguous. */
static int nbr_block(struct coll_sched *s, const struct nbr_side *sd, int i, int recv,
		     struct unstage *u, char **p, size_t *len)
{
	int k = sd->same ? 0 : i;
	int cnt = sd->counts ? sd->counts[k] : sd->ucount;
	MPI_Datatype dt = sd->types ? sd->types[k] : sd->dt;
	char *b = (char *)sd->buf + (sd->same ? 0 : sd->bdispls ? sd->bdispls[k] :
		  (ptrdiff_t)(sd->displs ? sd->displs[k] : k * sd->ucount) * michi_dt_extent(dt));

	*len = coll_bytes(dt, cnt);
	*p = b;
	if (coll_contig(dt) || !cnt)
		return 0;
	if (!(*p = coll_sched_tmp(s, *len)))
		return -1;
	if (recv)
		unstage_add(u, b, *p, cnt, dt);
	else
		michi_dt_pack(b, cnt, dt, *p, *len);
	return 0;
}

static int neighbor_common(MPI_Comm comm, const struct nbr_side *snd, const struct nbr_side *rcv,
			   MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int nin, nout, cart, i, err;
	struct unstage *u;
	struct coll_sched *s;
	size_t *lens;
	char **ptrs;
	int *in, *out;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return coll_intra_only(c, fname);
	cart = michi_topo_neighbors(c, &nin, &nout, NULL, NULL);
	if (cart < 0)
		return michi_mpi_err(c, MPI_ERR_TOPOLOGY, fname,
				     "(comm): the communicator has no virtual topology");
	if (ERRCHK && ((err = nbr_check(c, fname, "send", snd, nout)) ||
		       (err = nbr_check(c, fname, "recv", rcv, nin))))
		return err;
	if (!(s = coll_new(c, COLL_TAG_NEIGHBOR, NULL)))
		return michi_err_nomem(c, fname);
	if (!(in = coll_sched_tmp(s, (size_t)(nin + nout + 1) * sizeof(int))) ||
	    !(lens = coll_sched_tmp(s, (size_t)(nin + nout + 1) * (sizeof(size_t) + sizeof(char *)))) ||
	    !(u = unstage_new(s, nin)))
		goto go;
	out = in + nin;
	ptrs = (char **)(lens + nin + nout + 1);
	michi_topo_neighbors(c, &nin, &nout, in, out);
	/* MPI_PROC_NULL neighbours move nothing: their blocks stay as they are */
	for (i = 0; i < nin; i++)
		if (in[i] != MPI_PROC_NULL && nbr_block(s, rcv, i, 1, u, &ptrs[i], &lens[i]))
			goto go;
	for (i = 0; i < nout; i++)
		if (out[i] != MPI_PROC_NULL &&
		    nbr_block(s, snd, i, 0, NULL, &ptrs[nin + i], &lens[nin + i]))
			goto go;
	if (!coll_build_neighbor(s, nin, in, ptrs, lens, nout, out,
				 (const char *const *)ptrs + nin, lens + nin, cart))
		unstage_finish(s, u);
go:
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

#define NBR_SEND_ONE(b, n, t) { .buf = (b), .ucount = (n), .dt = (t), .same = 1 }
#define NBR_BLOCKS(b, n, t) { .buf = (b), .ucount = (n), .dt = (t) }
#define NBR_V(b, cs, ds, t) { .buf = (b), .counts = (cs), .displs = (ds), .dt = (t) }
#define NBR_W(b, cs, ds, ts) { .buf = (b), .counts = (cs), .bdispls = (ds), .types = (ts) }

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	struct nbr_side s = NBR_SEND_ONE(sendbuf, sendcount, sendtype),
			r = NBR_BLOCKS(recvbuf, recvcount, recvtype);

	return neighbor_common(comm, &s, &r, NULL, 0, "MPI_Neighbor_allgather");
}

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			     MPI_Request *request)
{
	struct nbr_side s = NBR_SEND_ONE(sendbuf, sendcount, sendtype),
			r = NBR_BLOCKS(recvbuf, recvcount, recvtype);

	return neighbor_common(comm, &s, &r, request, 1, "MPI_Ineighbor_allgather");
}

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			     void *recvbuf, const int recvcounts[], const int displs[],
			     MPI_Datatype recvtype, MPI_Comm comm)
{
	struct nbr_side s = NBR_SEND_ONE(sendbuf, sendcount, sendtype),
			r = NBR_V(recvbuf, recvcounts, displs, recvtype);

	if (ERRCHK && (!recvcounts || !displs))
		return michi_err_null(michi_comm_get(comm), "MPI_Neighbor_allgatherv",
				      !recvcounts ? "recvcounts" : "displs");
	return neighbor_common(comm, &s, &r, NULL, 0, "MPI_Neighbor_allgatherv");
}

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			      void *recvbuf, const int recvcounts[], const int displs[],
			      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	struct nbr_side s = NBR_SEND_ONE(sendbuf, sendcount, sendtype),
			r = NBR_V(recvbuf, recvcounts, displs, recvtype);

	if (ERRCHK && (!recvcounts || !displs))
		return michi_err_null(michi_comm_get(comm), "MPI_Ineighbor_allgatherv",
				      !recvcounts ? "recvcounts" : "displs");
	return neighbor_common(comm, &s, &r, request, 1, "MPI_Ineighbor_allgatherv");
}

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	struct nbr_side s = NBR_BLOCKS(sendbuf, sendcount, sendtype),
			r = NBR_BLOCKS(recvbuf, recvcount, recvtype);

	return neighbor_common(comm, &s, &r, NULL, 0, "MPI_Neighbor_alltoall");
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			    MPI_Request *request)
{
	struct nbr_side s = NBR_BLOCKS(sendbuf, sendcount, sendtype),
			r = NBR_BLOCKS(recvbuf, recvcount, recvtype);

	return neighbor_common(comm, &s, &r, request, 1, "MPI_Ineighbor_alltoall");
}

static int nbr_v_arrays(MPI_Comm comm, const void *sc, const void *sd, const void *rc,
			const void *rd, const char *fname)
{
	if (ERRCHK && (!sc || !sd || !rc || !rd))
		return michi_err_null(michi_comm_get(comm), fname, !sc ? "sendcounts" :
				      !sd ? "sdispls" : !rc ? "recvcounts" : "rdispls");
	return MPI_SUCCESS;
}

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
			    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
			    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	struct nbr_side s = NBR_V(sendbuf, sendcounts, sdispls, sendtype),
			r = NBR_V(recvbuf, recvcounts, rdispls, recvtype);
	int err = nbr_v_arrays(comm, sendcounts, sdispls, recvcounts, rdispls,
			       "MPI_Neighbor_alltoallv");

	return err ? err : neighbor_common(comm, &s, &r, NULL, 0, "MPI_Neighbor_alltoallv");
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
			     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
			     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
			     MPI_Request *request)
{
	struct nbr_side s = NBR_V(sendbuf, sendcounts, sdispls, sendtype),
			r = NBR_V(recvbuf, recvcounts, rdispls, recvtype);
	int err = nbr_v_arrays(comm, sendcounts, sdispls, recvcounts, rdispls,
			       "MPI_Ineighbor_alltoallv");

	return err ? err : neighbor_common(comm, &s, &r, request, 1, "MPI_Ineighbor_alltoallv");
}

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
			    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	struct nbr_side s = NBR_W(sendbuf, sendcounts, sdispls, sendtypes),
			r = NBR_W(recvbuf, recvcounts, rdispls, recvtypes);
	int err = nbr_v_arrays(comm, sendcounts, sdispls, recvcounts, rdispls,
			       "MPI_Neighbor_alltoallw");

	if (!err && ERRCHK && (!sendtypes || !recvtypes))
		err = michi_err_null(michi_comm_get(comm), "MPI_Neighbor_alltoallw",
				     !sendtypes ? "sendtypes" : "recvtypes");
	return err ? err : neighbor_common(comm, &s, &r, NULL, 0, "MPI_Neighbor_alltoallw");
}

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
			     const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
			     void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
			     const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
	struct nbr_side s = NBR_W(sendbuf, sendcounts, sdispls, sendtypes),
			r = NBR_W(recvbuf, recvcounts, rdispls, recvtypes);
	int err = nbr_v_arrays(comm, sendcounts, sdispls, recvcounts, rdispls,
			       "MPI_Ineighbor_alltoallw");

	if (!err && ERRCHK && (!sendtypes || !recvtypes))
		err = michi_err_null(michi_comm_get(comm), "MPI_Ineighbor_alltoallw",
				     !sendtypes ? "sendtypes" : "recvtypes");
	return err ? err : neighbor_common(comm, &s, &r, request, 1, "MPI_Ineighbor_alltoallw");
}

/* ---- intercommunicators --------------------------------------------------------- */

/* The caller's part in a rooted collective on intercommunicator c. */
static int inter_role(struct michi_comm *c, int root, const char *fname, int *role)
{
	if (root == MPI_ROOT)
		*role = COLL_ROOT_SELF;
	else if (root == MPI_PROC_NULL)
		*role = COLL_ROOT_NONE;
	else if ((unsigned)root < (unsigned)c->size)
		*role = COLL_ROOT_REMOTE;
	else
		return michi_mpi_err(c, MPI_ERR_ROOT, fname, "(root=%d): on an intercommunicator "
				     "the root is MPI_ROOT, MPI_PROC_NULL or a rank of the remote "
				     "group, which has %d ranks", root, c->size);
	return MPI_SUCCESS;
}

static int inter_no_inplace(struct michi_comm *c, const void *a, const void *b,
			    const char *fname)
{
	if (a == MPI_IN_PLACE || b == MPI_IN_PLACE)
		return coll_err_inplace(c, fname, a == MPI_IN_PLACE ? "sendbuf" : "recvbuf",
					"not allowed on an intercommunicator");
	return MPI_SUCCESS;
}

static int inter_bcast(struct michi_comm *c, void *buf, int count, MPI_Datatype dt, int root,
		       MPI_Request *request, const char *fname)
{
	struct unstage *u = NULL;
	struct coll_sched *s;
	struct side sd;
	int role, err;

	if ((err = inter_role(c, root, fname, &role)))
		return err;
	if (ERRCHK && role != COLL_ROOT_NONE &&
	    (err = coll_check_buf(c, fname, "", buf, count, dt)))
		return err;
	if (!(s = coll_new_inter(c, COLL_TAG_BCAST, NULL)))
		return michi_err_nomem(c, fname);
	if (role == COLL_ROOT_NONE ||
	    (!side_of(s, &sd, buf, NULL, NULL, (size_t)count, dt, 1, role == COLL_ROOT_SELF,
		      role == COLL_ROOT_SELF ? NULL : &u) &&
	     !coll_build_inter_bcast(s, sd.buf, (size_t)count * sd.unit, role, root)))
		unstage_finish(s, u);
	return michi_coll_go(c, s, request, fname);
}

/* Reduce (root >= -3), allreduce (INTER_ALLREDUCE) and reduce-scatter
 * (counts or rcount, INTER_REDSCAT) on an intercommunicator. */
static int inter_reduce(struct michi_comm *c, const void *sbuf, void *rbuf, int count,
			const int *counts, int rcount, MPI_Datatype dt, MPI_Op op, int root,
			MPI_Request *request, const char *fname)
{
	int role = COLL_ROOT_REMOTE, err, i, tag;
	int lsize = c->local->size, receives;
	struct typed_out *t = NULL;
	struct coll_sched *s;
	struct coll_op o;
	void *rb;

	if (root >= -3 && (err = inter_role(c, root, fname, &role)))
		return err;
	if (ERRCHK && (err = inter_no_inplace(c, sbuf, rbuf, fname)))
		return err;
	if (root == INTER_REDSCAT) {
		long total = 0;

		for (i = 0; i < lsize; i++) {
			int k = counts ? counts[i] : rcount;

			if (ERRCHK && k < 0)
				return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(recvcount%s[%d]=%d): "
						     "negative count", counts ? "s" : "", i, k);
			total += k;
		}
		if (ERRCHK && total > 0x7fffffff)
			return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(): %ld elements in all: "
					     "too many for now", total);
		count = (int)total;
	}
	receives = root == INTER_ALLREDUCE || role == COLL_ROOT_SELF;
	if (ERRCHK && role != COLL_ROOT_NONE &&
	    (err = coll_check_reduce(c, fname, role == COLL_ROOT_SELF ? MPI_IN_PLACE : sbuf,
				     rbuf, count, dt, op, receives)))
		return err;
	coll_op_of(&o, op, dt);
	tag = root == INTER_ALLREDUCE ? COLL_TAG_ALLREDUCE :
	      root == INTER_REDSCAT ? COLL_TAG_REDUCE_SCATTER : COLL_TAG_REDUCE;
	if (!(s = coll_new_inter(c, tag, &o)))
		return michi_err_nomem(c, fname);
	if (role == COLL_ROOT_NONE || count == 0)
		goto go;
	if (root == INTER_REDSCAT) {
		int mine = counts ? counts[c->local->rank] : rcount;

		if ((rb = result_buf(s, rbuf, mine, dt, 0, &t)) || !mine)
			if (!coll_build_inter_reduce_scatter(s, sbuf, rb, counts, (size_t)rcount))
				typed_out_finish(s, t);
		goto go;
	}
	rb = receives ? result_buf(s, rbuf, count, dt, 0, &t) : NULL;
	if (receives && !rb)
		goto go;
	if (!(root == INTER_ALLREDUCE
	      ? coll_build_inter_allreduce(s, sbuf, rb, (size_t)count)
	      : coll_build_inter_reduce(s, sbuf, rb, (size_t)count, role, root)))
		typed_out_finish(s, t);
go:
	return michi_coll_go(c, s, request, fname);
}

/* Gather (gather 1) and scatter (0): `mine` is every non-root rank's
 * buffer, the root's is described by counts/displs or ucount. */
static int inter_rooted(struct michi_comm *c, int gather, const void *mine, int mcount,
			MPI_Datatype mtype, const void *rootbuf, const int *counts,
			const int *displs, int ucount, MPI_Datatype rtype, int root, int vform,
			MPI_Request *request, const char *fname)
{
	struct side own = { NULL, NULL, 0 }, all = { NULL, NULL, 0 };
	struct unstage *u = NULL;
	struct coll_sched *s;
	int role, err;

	if ((err = inter_role(c, root, fname, &role)))
		return err;
	if (ERRCHK && role != COLL_ROOT_NONE &&
	    (err = inter_no_inplace(c, mine, rootbuf, fname)))
		return err;
	if (ERRCHK && role == COLL_ROOT_REMOTE &&
	    (err = coll_check_buf(c, fname, gather ? "send" : "recv", mine, mcount, mtype)))
		return err;
	if (ERRCHK && role == COLL_ROOT_SELF &&
	    (err = coll_check_rootbuf(c, fname, gather ? "recv" : "send", rootbuf, counts, displs,
				      ucount, rtype)))
		return err;
	if (!(s = coll_new_inter(c, gather ? COLL_TAG_GATHER : COLL_TAG_SCATTER, NULL)))
		return michi_err_nomem(c, fname);
	if (role == COLL_ROOT_NONE)
		goto go;
	if (role == COLL_ROOT_SELF
	    ? side_of(s, &all, rootbuf, counts, displs, (size_t)ucount, rtype, c->size, !gather,
		      gather ? &u : NULL)
	    : side_of(s, &own, mine, NULL, NULL, (size_t)mcount, mtype, 1, gather,
		      gather ? NULL : &u))
		goto go;
	if (!(gather
	      ? coll_build_inter_gather(s, own.buf, (size_t)mcount * own.unit, all.buf, counts,
					all.displs, (size_t)ucount, all.unit, role, root, vform)
	      : coll_build_inter_scatter(s, all.buf, counts, all.displs, (size_t)ucount, all.unit,
					 own.buf, (size_t)mcount * own.unit, role, root, vform)))
		unstage_finish(s, u);
go:
	return michi_coll_go(c, s, request, fname);
}

static int inter_allgather(struct michi_comm *c, const void *sbuf, int scount, MPI_Datatype stype,
			   void *rbuf, const int *counts, const int *displs, int rcount,
			   MPI_Datatype rtype, MPI_Request *request, const char *fname)
{
	struct side snd, rcv;
	struct unstage *u = NULL;
	struct coll_sched *s;
	int err;

	if (ERRCHK && ((err = inter_no_inplace(c, sbuf, rbuf, fname)) ||
		       (err = coll_check_buf(c, fname, "send", sbuf, scount, stype)) ||
		       (err = coll_check_rootbuf(c, fname, "recv", rbuf, counts, displs, rcount,
						 rtype))))
		return err;
	if (!(s = coll_new_inter(c, COLL_TAG_ALLGATHER, NULL)))
		return michi_err_nomem(c, fname);
	if (!side_of(s, &snd, sbuf, NULL, NULL, (size_t)scount, stype, 1, 1, NULL) &&
	    !side_of(s, &rcv, rbuf, counts, displs, (size_t)rcount, rtype, c->size, 0, &u) &&
	    !coll_build_inter_allgather(s, snd.buf, (size_t)scount * snd.unit, rcv.buf, counts,
					rcv.displs, (size_t)rcount, rcv.unit))
		unstage_finish(s, u);
	return michi_coll_go(c, s, request, fname);
}
