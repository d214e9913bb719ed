/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll/coll_calls.c: the collective calls on intracommunicators (and their
 * intercommunicator forms through coll_inter.c): barrier, broadcast,
 * the reductions, gather and scatter, allgather and alltoall.
 * (mpi/coll/coll.c says how every collective call is built and run;
 * coll_priv.h holds what these files share).
 */
#include "coll_priv.h"

#include <stdlib.h>
#include <string.h>

/* ---- barrier and broadcast --------------------------------------------------- */

int barrier_common(MPI_Comm comm, MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct coll_comm cc;
	int err, flat;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local) {
		s = coll_new_inter(c, COLL_TAG_BARRIER, NULL);
		COLL_BUILD_AND_GO(c, s, coll_build_inter_barrier(s), request, nb, fname);
	}
	michi_coll_comm(c, &cc);
	/* blocking, on a few ranks of one host: without a schedule */
	if (!nb && coll_direct_barrier_ok(&cc, &flat))
		return coll_done(c, coll_direct_barrier(&cc, flat), fname);
	s = coll_new_cc(&cc, COLL_TAG_BARRIER, NULL);
	COLL_BUILD_AND_GO(c, s, coll_build_barrier(s), request, nb, fname);
}

int PMPI_Barrier(MPI_Comm comm)
{
	return barrier_common(comm, NULL, 0, "MPI_Barrier");
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	return barrier_common(comm, request, 1, "MPI_Ibarrier");
}

int bcast_common(void *buffer, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
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
		return inter_bcast(c, buffer, count, dt, root, request, nb, fname);
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
	if (!side_of(s, &sd, buffer, NULL, (size_t)count, dt, 1, c->rank == root,
		     c->rank == root ? NULL : &u) &&
	    !coll_build_bcast(s, sd.buf, (size_t)count * sd.unit, root))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
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

void coll_op_of(struct coll_op *o, MPI_Op op, MPI_Datatype dt)
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

static michi_status_t typed_out_fn(struct coll_sched *s, void *arg)
{
	struct typed_out *t = arg;
	size_t bytes = michi_dt_packed(t->dt, t->count);

	(void)s;
	michi_dt_pack(t->scratch, t->count, t->dt, t->packed, bytes);
	michi_dt_unpack(t->packed, bytes, t->user, t->count, t->dt);
	return MICHI_OK;
}

/* The buffer the algorithm writes the result of count instances of dt
 * into: rbuf itself for contiguous types, else scratch (holding rbuf's
 * bytes first when `in` says the input is there) that *t copies back. */
void *result_buf(struct coll_sched *s, void *rbuf, MPI_Count count, MPI_Datatype dt,
		 int in, struct typed_out **t)
{
	size_t bytes = (size_t)count * (size_t)michi_dt_extent(dt);
	char *scratch;

	*t = NULL;
	if (coll_contig(dt) || !rbuf || count <= 0)
		return rbuf;
	if (!(scratch = coll_sched_tmp(s, bytes)) || !(*t = coll_sched_tmp(s, sizeof(**t))) ||
	    !((*t)->packed = coll_sched_tmp(s, michi_dt_packed(dt, count))))
		return NULL;
	/* a step: a persistent collective's input is in rbuf at every start */
	if ((in && coll_sched_copy(s, rbuf, scratch, bytes)) || coll_keep_dt(s, dt))
		return NULL;
	(*t)->scratch = scratch;
	(*t)->user = rbuf;
	(*t)->count = count;
	(*t)->dt = dt;
	return scratch;
}

void typed_out_finish(struct coll_sched *s, struct typed_out *t)
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
int coll_check_reduce(struct michi_comm *c, const char *fname, const void *sendbuf,
		      const void *recvbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
		      int receives)
{
	int err;

	if (unlikely(count < 0))
		return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(count=%lld): negative count",
				     (long long)count);
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
				     "(recvbuf=NULL, count=%lld): NULL buffer with a positive count",
				     (long long)count);
	if (unlikely(recvbuf == MPI_IN_PLACE))
		return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
	if (unlikely(sendbuf == recvbuf) && count > 0)
		return coll_err_alias(c, fname);
	return MPI_SUCCESS;
}

int reduce_common(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
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
		return inter_reduce(c, sendbuf, recvbuf, count, NULL, 0, dt, op, root, request, nb,
				    fname);
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
	return coll_go(c, s, request, nb, fname);
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

int allreduce_common(const void *sendbuf, void *recvbuf, MPI_Count count,
		     MPI_Datatype dt,
		     MPI_Op op, MPI_Comm comm, MPI_Request *request, int nb,
		     const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct typed_out *t = NULL;
	struct coll_op o;
	struct coll_comm cc;
	int err, flat;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_reduce(c, sendbuf, recvbuf, count, NULL, 0, dt, op, INTER_ALLREDUCE,
				    request, nb, fname);
	if (ERRCHK && (err = coll_check_reduce(c, fname, sendbuf, recvbuf, count, dt, op, 1)))
		return err;
	coll_op_of(&o, op, dt);
	michi_coll_comm(c, &cc);
	/* small, blocking and contiguous, on a few ranks of one host: the
	 * flat or recursive-doubling exchange without a schedule */
	if (!nb && count > 0 && michi_dt_builtin_valid(dt) &&
	    coll_direct_allreduce_ok(&cc, &o, (size_t)count, &flat))
		return coll_done(c, coll_direct_allreduce(&cc, &o, sendbuf == MPI_IN_PLACE ? NULL :
							  sendbuf, recvbuf, (size_t)count, flat),
				 fname);
	if (!(s = coll_new_cc(&cc, COLL_TAG_ALLREDUCE, &o)))
		return michi_err_nomem(c, fname);
	if (count > 0) {
		int inplace = sendbuf == MPI_IN_PLACE;
		void *rb = result_buf(s, recvbuf, count, dt, inplace, &t);

		if (rb && !coll_build_allreduce(s, inplace ? NULL : sendbuf, rb, (size_t)count))
			typed_out_finish(s, t);
	}
	return coll_go(c, s, request, nb, fname);
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

/* Reduce-scatter(_block): counts NULL is the block form of rcount each
 * (counts->displs unused). */
int reduce_scatter_common(const void *sendbuf, void *recvbuf, const struct coll_v *counts,
			  MPI_Count rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
			  MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct typed_out *t = NULL;
	struct coll_op o;
	MPI_Count total = 0, mine;
	int err, i;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_reduce(c, sendbuf, recvbuf, 0, counts, rcount, dt, op, INTER_REDSCAT,
				    request, nb, fname);
	if (ERRCHK && counts == NULL && rcount < 0)
		return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(recvcount=%lld): negative count",
				     (long long)rcount);
	for (i = 0; counts && i < c->size; i++) {
		MPI_Count n = v_count(counts, i);

		if (ERRCHK && n < 0)
			return michi_mpi_err(c, MPI_ERR_COUNT, fname,
					     "(recvcounts[%d]=%lld): negative count", i,
					     (long long)n);
		total += n;
	}
	if (!counts)
		total = rcount * c->size;
	mine = counts ? v_count(counts, c->rank) : rcount;
	if (ERRCHK && (err = coll_check_reduce(c, fname, sendbuf, recvbuf, total, dt, op, 0)))
		return err;
	if (ERRCHK && mine > 0) {
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
		void *rb = result_buf(s, recvbuf, mine, dt, 0, &t);

		if ((rb || !recvbuf) &&
		    !coll_build_reduce_scatter(s, in == rb ? NULL : in, rb, counts,
					       (size_t)rcount))
			typed_out_finish(s, t);
	}
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
			MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 0);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Reduce_scatter", "recvcounts");
	return reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm, NULL,
				     COLL_BLOCKING, "MPI_Reduce_scatter");
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
			 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 0);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Ireduce_scatter", "recvcounts");
	return reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm, request,
				     COLL_NB, "MPI_Ireduce_scatter");
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, NULL,
				     COLL_BLOCKING, "MPI_Reduce_scatter_block");
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			       MPI_Request *request)
{
	return reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm,
				     request, COLL_NB, "MPI_Ireduce_scatter_block");
}

int scan_common(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
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
	return coll_go(c, s, request, nb, fname);
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
int coll_check_rootbuf(struct michi_comm *c, const char *fname, const char *arg,
		       const void *buf, const struct coll_v *v, MPI_Count count,
		       MPI_Datatype dt)
{
	if (v)
		return coll_check_v(c, fname, arg, buf, v, dt);
	return coll_check_buf(c, fname, arg, buf, count, dt);
}

/*
 * The argument checks a rooted gather or scatter shares: every rank's own
 * buffer ("send" for a gather, "recv" for a scatter), which only the root may
 * pass as MPI_IN_PLACE, and the root's buffer on the other side.
 */
static int coll_check_rooted(struct michi_comm *c, const char *fname, int root, int gather,
			     const void *mine, MPI_Count count, MPI_Datatype dt,
			     const void *rootbuf, const struct coll_v *v, MPI_Count rootcount,
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
	if ((err = coll_check_rootbuf(c, fname, other, rootbuf, v, rootcount, roottype)))
		return err;
	if (rootbuf == MPI_IN_PLACE)
		return coll_err_inplace(c, fname, otherbuf, gather ?
					"only sendbuf may be MPI_IN_PLACE" :
					"only recvbuf may be MPI_IN_PLACE");
	return MPI_SUCCESS;
}

int gather_common(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		  void *recvbuf, const struct coll_v *rv, MPI_Count recvcount,
		  MPI_Datatype recvtype, int root, int vform, MPI_Comm comm,
		  MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE, isroot;
	struct side snd = { .buf = NULL }, rcv = { .buf = NULL };
	struct unstage *u = NULL;
	struct coll_sched *s;
	struct coll_comm cc;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_rooted(c, 1, sendbuf, sendcount, sendtype, recvbuf, rv, recvcount,
				    recvtype, root, vform, request, nb, fname);
	if (ERRCHK && (err = coll_check_rooted(c, fname, root, 1, sendbuf, sendcount, sendtype,
					       recvbuf, rv, recvcount, recvtype)))
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
	s->blocking = nb == COLL_BLOCKING;
	if ((inplace || !side_of(s, &snd, sendbuf, NULL, (size_t)sendcount, sendtype, 1, 1,
				 NULL)) &&
	    (!isroot || !side_of(s, &rcv, recvbuf, rv, (size_t)recvcount, recvtype, c->size,
				 inplace, &u)) &&
	    !coll_build_gather(s, inplace ? NULL : snd.buf,
			       inplace ? 0 : (size_t)sendcount * snd.unit, rcv.buf, rcv.v,
			       (size_t)recvcount, rcv.unit, root, vform))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
			     root, 0, comm, NULL, COLL_BLOCKING, "MPI_Gather");
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		 MPI_Request *request)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
			     root, 0, comm, request, COLL_NB, "MPI_Igather");
}

/* Only the root reads the arrays of a rooted v collective; a NULL one
 * elsewhere is legal. *out: v at the root, else NULL. */
int rooted_v(MPI_Comm comm, int root, const struct coll_v *v, const char *fname,
	     const char *arg, const struct coll_v **out)
{
	struct michi_comm *c = michi_comm_get(comm);

	*out = NULL;
	if (!c || (c->local ? root != MPI_ROOT
		   : (unsigned)root >= (unsigned)c->size || c->rank != root))
		return MPI_SUCCESS;
	if (ERRCHK && !v->counts)
		return michi_err_null(c, fname, arg);
	*out = v;
	return MPI_SUCCESS;
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		 MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Gatherv", "recvcounts", &rv);

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, NULL, COLL_BLOCKING, "MPI_Gatherv");
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		  MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Igatherv", "recvcounts", &rv);

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, request, COLL_NB, "MPI_Igatherv");
}

int scatter_common(const void *sendbuf, const struct coll_v *sv, MPI_Count sendcount,
		   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		   MPI_Datatype recvtype, int root, int vform, MPI_Comm comm,
		   MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = recvbuf == MPI_IN_PLACE, isroot;
	struct side snd = { .buf = NULL }, rcv = { .buf = NULL };
	struct unstage *u = NULL;
	struct coll_sched *s;
	struct coll_comm cc;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_rooted(c, 0, recvbuf, recvcount, recvtype, sendbuf, sv, sendcount,
				    sendtype, root, vform, request, nb, fname);
	if (ERRCHK && (err = coll_check_rooted(c, fname, root, 0, recvbuf, recvcount, recvtype,
					       sendbuf, sv, sendcount, sendtype)))
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
	s->blocking = nb == COLL_BLOCKING;
	if ((!isroot || !side_of(s, &snd, sendbuf, sv, (size_t)sendcount, sendtype, c->size, 1,
				 NULL)) &&
	    (inplace || !side_of(s, &rcv, recvbuf, NULL, (size_t)recvcount, recvtype, 1, 0,
				 &u)) &&
	    !coll_build_scatter(s, snd.buf, snd.v, (size_t)sendcount, snd.unit,
				inplace ? NULL : rcv.buf, inplace ? 0 : (size_t)recvcount * rcv.unit,
				root, vform))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype,
			      root, 0, comm, NULL, COLL_BLOCKING, "MPI_Scatter");
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	return scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype,
			      root, 0, comm, request, COLL_NB, "MPI_Iscatter");
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  int root, MPI_Comm comm)
{
	struct coll_v v = COLL_V(sendcounts, displs, 0);
	const struct coll_v *sv;
	int err = rooted_v(comm, root, &v, "MPI_Scatterv", "sendcounts", &sv);

	return err ? err : scatter_common(sendbuf, sv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, NULL, COLL_BLOCKING, "MPI_Scatterv");
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		   int root, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(sendcounts, displs, 0);
	const struct coll_v *sv;
	int err = rooted_v(comm, root, &v, "MPI_Iscatterv", "sendcounts", &sv);

	return err ? err : scatter_common(sendbuf, sv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, request, COLL_NB, "MPI_Iscatterv");
}

/* ---- allgather and alltoall ---------------------------------------------------- */

int allgather_common(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		     void *recvbuf, const struct coll_v *rv, MPI_Count recvcount,
		     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int nb,
		     const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	struct side snd = { .buf = NULL }, rcv;
	struct unstage *u = NULL;
	struct coll_sched *s;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_allgather(c, sendbuf, sendcount, sendtype, recvbuf, rv, recvcount,
				       recvtype, request, nb, fname);
	if (ERRCHK) {
		if (!inplace && (err = coll_check_buf(c, fname, "send", sendbuf, sendcount, sendtype)))
			return err;
		if ((err = coll_check_rootbuf(c, fname, "recv", recvbuf, rv, recvcount, recvtype)))
			return err;
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
	}
	if (!(s = coll_new(c, COLL_TAG_ALLGATHER, NULL)))
		return michi_err_nomem(c, fname);
	if ((inplace || !side_of(s, &snd, sendbuf, NULL, (size_t)sendcount, sendtype, 1, 1,
				 NULL)) &&
	    !side_of(s, &rcv, recvbuf, rv, (size_t)recvcount, recvtype, c->size, inplace, &u) &&
	    !coll_build_allgather(s, inplace ? NULL : snd.buf,
				  inplace ? 0 : (size_t)sendcount * snd.unit, rcv.buf, rcv.v,
				  (size_t)recvcount, rcv.unit))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
				comm, NULL, COLL_BLOCKING, "MPI_Allgather");
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
				comm, request, COLL_NB, "MPI_Iallgather");
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		    MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Allgatherv", "recvcounts");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype, comm,
				NULL, COLL_BLOCKING, "MPI_Allgatherv");
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		     MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Iallgatherv", "recvcounts");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype, comm,
				request, COLL_NB, "MPI_Iallgatherv");
}

/* Alltoall(v) on an intercommunicator: the blocks of both sides for the
 * pairwise exchange with the remote group. */
static int inter_alltoall(struct coll_sched *s, const struct side *snd, size_t sucount,
			  const struct side *rcv, size_t rucount)
{
	int i, n = s->c.size;
	size_t *lens = coll_sched_tmp(s, 2 * (size_t)n * (sizeof(size_t) + sizeof(char *)));
	char **ptrs;

	if (!lens)
		return -1;
	ptrs = (char **)(lens + 2 * n);
	for (i = 0; i < n; i++) {
		ptrs[i] = coll_block(snd->buf, snd->v, sucount, snd->unit, i, &lens[i]);
		ptrs[n + i] = coll_block(rcv->buf, rcv->v, rucount, rcv->unit, i, &lens[n + i]);
	}
	return coll_build_inter_alltoallw(s, (const char *const *)ptrs, lens, ptrs + n, lens + n);
}

int alltoall_common(const void *sendbuf, const struct coll_v *sv, MPI_Count sendcount,
		    MPI_Datatype sendtype, void *recvbuf, const struct coll_v *rv,
		    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
		    MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	struct side snd = { .buf = NULL }, rcv;
	struct unstage *u = NULL;
	struct coll_sched *s;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (ERRCHK) {
		if (!inplace && (err = coll_check_rootbuf(c, fname, "send", sendbuf, sv, sendcount,
							  sendtype)))
			return err;
		if ((err = coll_check_rootbuf(c, fname, "recv", recvbuf, rv, recvcount, recvtype)))
			return err;
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
		if (!inplace && sendbuf == recvbuf && (rv ? v_any_count(c, rv) : recvcount > 0))
			return coll_err_alias(c, fname);
	}
	if (ERRCHK && c->local && inplace)
		return coll_err_inplace(c, fname, "sendbuf", "not allowed on an intercommunicator");
	s = c->local ? coll_new_inter(c, COLL_TAG_ALLTOALL, NULL)
		     : coll_new(c, COLL_TAG_ALLTOALL, NULL);
	if (!s)
		return michi_err_nomem(c, fname);
	if ((inplace || !side_of(s, &snd, sendbuf, sv, (size_t)sendcount, sendtype, c->size, 1,
				 NULL)) &&
	    !side_of(s, &rcv, recvbuf, rv, (size_t)recvcount, recvtype, c->size, inplace, &u) &&
	    !(c->local
	      ? inter_alltoall(s, &snd, (size_t)sendcount, &rcv, (size_t)recvcount)
	      : coll_build_alltoall(s, inplace ? NULL : snd.buf, snd.v, (size_t)sendcount,
				    snd.unit, rcv.buf, rcv.v, (size_t)recvcount, rcv.unit)))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL, recvcount,
			       recvtype, comm, NULL, COLL_BLOCKING, "MPI_Alltoall");
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL, recvcount,
			       recvtype, comm, request, COLL_NB, "MPI_Ialltoall");
}

/* The arrays of an alltoallv: checked, and sv NULL in place. */
static int alltoallv_arrays(MPI_Comm comm, const void *sendbuf, const struct coll_v *sv,
			    const struct coll_v *rv, const char *fname)
{
	if (ERRCHK && !rv->counts)
		return michi_err_null(michi_comm_get(comm), fname, "recvcounts");
	if (ERRCHK && sendbuf != MPI_IN_PLACE && !sv->counts)
		return michi_err_null(michi_comm_get(comm), fname, "sendcounts");
	return MPI_SUCCESS;
}

int alltoallv_go(const void *sendbuf, const struct coll_v *sv, MPI_Datatype sendtype,
		 void *recvbuf, const struct coll_v *rv, MPI_Datatype recvtype,
		 MPI_Comm comm, MPI_Request *request, int nb, const char *fname)
{
	int err = alltoallv_arrays(comm, sendbuf, sv, rv, fname);

	return err ? err : alltoall_common(sendbuf, sendbuf == MPI_IN_PLACE ? NULL : sv, 0,
					   sendtype, recvbuf, rv, 0, recvtype, comm, request, nb,
					   fname);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);

	return alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, NULL,
			    COLL_BLOCKING, "MPI_Alltoallv");
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
		    MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);

	return alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, request,
			    COLL_NB, "MPI_Ialltoallv");
}

/*
 * Alltoallw: a type per peer and displacements in bytes (coll_v read
 * with no unit). Blocks of types that are not contiguous go through
 * scratch one by one; in place, the receive layout describes both sides
 * and the schedule sends from a copy it takes when it starts.
 */
int alltoallw_common(const void *sendbuf, const struct coll_v *sv,
		     const MPI_Datatype *stypes, void *recvbuf, const struct coll_v *rv,
		     const MPI_Datatype *rtypes, MPI_Comm comm, MPI_Request *request,
		     int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE, n, i, err;
	struct unstage *u = NULL, *pk = NULL;
	struct coll_sched *s;
	size_t *lens;
	char **ptrs, *base = NULL;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	n = c->size;
	if (ERRCHK) {
		char arg[32];

		if (!rv->counts || !rv->displs || !rtypes)
			return michi_err_null(c, fname, !rv->counts ? "recvcounts" : !rv->displs ?
					      "rdispls" : "recvtypes");
		if (!inplace && (!sv->counts || !sv->displs || !stypes))
			return michi_err_null(c, fname, !sv->counts ? "sendcounts" : !sv->displs ?
					      "sdispls" : "sendtypes");
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
		for (i = 0; i < n; i++) {
			snprintf(arg, sizeof(arg), "recv[%d]: ", i);
			if ((err = coll_check_count(c, fname, arg, v_count(rv, i), rtypes[i])))
				return err;
			snprintf(arg, sizeof(arg), "send[%d]: ", i);
			if (!inplace &&
			    (err = coll_check_count(c, fname, arg, v_count(sv, i), stypes[i])))
				return err;
		}
	}
	if (ERRCHK && c->local && inplace)
		return coll_err_inplace(c, fname, "sendbuf", "not allowed on an intercommunicator");
	s = c->local ? coll_new_inter(c, COLL_TAG_ALLTOALL, NULL)
		     : coll_new(c, COLL_TAG_ALLTOALL, NULL);
	if (!s)
		return michi_err_nomem(c, fname);
	if (!(lens = coll_sched_tmp(s, 2 * (size_t)n * (sizeof(size_t) + sizeof(char *)))))
		goto go;
	ptrs = (char **)(lens + 2 * n);
	if (inplace) {
		/* the data to send is what the receive buffer holds at the start */
		size_t span = 0;

		for (i = 0; i < n; i++) {
			size_t end = (size_t)coll_v_displ(rv, i, 0) +
				     coll_v_count(rv, i, 0) * (size_t)michi_dt_extent(rtypes[i]);

			span = end > span ? end : span;
		}
		if (!(base = coll_sched_tmp(s, span)) || coll_sched_copy(s, recvbuf, base, span))
			goto go;
		sendbuf = base;
		sv = rv;
		stypes = rtypes;
	}
	if (!(u = unstage_new(s, n, 0)))
		goto go;
	for (i = 0; i < n; i++) {
		MPI_Datatype st = stypes[i], rt = rtypes[i];
		MPI_Count sc = (MPI_Count)coll_v_count(sv, i, 0), rc = (MPI_Count)coll_v_count(rv,
				i, 0);

		ptrs[i] = (char *)sendbuf + coll_v_displ(sv, i, 0);
		ptrs[n + i] = (char *)recvbuf + coll_v_displ(rv, i, 0);
		lens[i] = coll_bytes(st, sc);
		lens[n + i] = coll_bytes(rt, rc);
		if (!coll_contig(st) && sc) {
			char *p = coll_sched_tmp(s, lens[i]);

			/* the packing step, made at the first such block, comes
			 * before the algorithm's steps */
			if (!p || (!pk && !(pk = unstage_new(s, n, 1))) ||
			    unstage_add(s, pk, ptrs[i], p, sc, st))
				goto go;
			ptrs[i] = p;
		}
		if (!coll_contig(rt) && rc) {
			char *p = coll_sched_tmp(s, lens[n + i]);

			if (!p || unstage_add(s, u, ptrs[n + i], p, rc, rt))
				goto go;
			ptrs[n + i] = p;
		}
	}
	if (!(c->local ? coll_build_inter_alltoallw(s, (const char *const *)ptrs, lens, ptrs + n,
						   lens + n)
	      : coll_build_alltoallw_pairwise(s, (const char *const *)ptrs, lens, ptrs + n,
					      lens + n)))
		unstage_finish(s, u);
go:
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
		   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
		   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);

	return alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm, NULL,
				COLL_BLOCKING, "MPI_Alltoallw");
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
		    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
		    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
		    MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);

	return alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm, request,
				COLL_NB, "MPI_Ialltoallw");
}

