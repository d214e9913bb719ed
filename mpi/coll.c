/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll.c: the MPI collective calls, which check their arguments and
 * hand the work to an algorithm of coll/ on the communicator's collective
 * context.
 */
#include "mpiimpl.h"
#include "op.h"
#include "pt2pt.h"
#include "coll.h"
#include "dtype.h"

#include <stdlib.h>

static inline void coll_comm_of(const struct michi_comm *c, struct coll_comm *cc)
{
	cc->rank = c->rank;
	cc->size = c->size;
	cc->ctx = c->ctx + 1;
	cc->tag_ofs = 0;
	cc->peers = c->peers;
}

/* Intercommunicator collectives other than MPI_Barrier come with the
 * collectives issue. */
static int coll_inter(struct michi_comm *c, const char *fname)
{
	return michi_mpi_err(c, MPI_ERR_COMM, fname,
			     "(comm): collectives on intercommunicators are not supported yet "
			     "(MPI_Barrier is)");
}

int PMPI_Barrier(MPI_Comm comm)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_comm cc;
	michi_status_t st;

	MICHI_CHECK_INIT("MPI_Barrier");
	if (ERRCHK && unlikely(!c))
		return michi_check_comm_slow(comm, "MPI_Barrier");
	if (unlikely(c->local))
		return michi_inter_barrier(c);
	if (c->size == 1)
		return MPI_SUCCESS;
	coll_comm_of(c, &cc);
	st = coll_barrier_dissem(&cc);
	if (st < 0)
		return michi_mpi_err_status(c, st, "MPI_Barrier");
	return MPI_SUCCESS;
}

/* ---- argument checks ---------------------------------------------------- */

/* A (buf, count, datatype) triple; buf may be NULL only when empty. */
static int coll_check_buf(struct michi_comm *c, const char *fname, const char *arg,
			  const void *buf, int count, MPI_Datatype dt)
{
	if (unlikely(count < 0))
		return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(%scount=%d): negative count",
				     arg, count);
	if (unlikely(!michi_dt_builtin_valid(dt) && michi_dt_check(dt)))
		return michi_dt_usable(dt) ? michi_err_type(c, fname, dt)
			: michi_mpi_err(c, MPI_ERR_TYPE, fname,
					"(%stype=0x%x): collectives take only contiguous derived "
					"datatypes so far", arg, (unsigned)dt);
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

static int coll_done(struct michi_comm *c, michi_status_t st, const char *fname)
{
	if (unlikely(st < 0))
		return michi_mpi_err_status(c, st, fname);
	return MPI_SUCCESS;
}

/*
 * Derived datatypes the algorithms cannot take in place (not contiguous,
 * or not starting at the buffer): a broadcast moves their packed form;
 * the other collectives refuse them with a clear error for now.
 */
static int packed_type(MPI_Datatype dt)
{
	return unlikely(!michi_dt_builtin_valid(dt)) && michi_dt_check(dt) != 0 &&
	       michi_dt_usable(dt) == 0;
}

static int bcast_packed(void *buffer, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	struct michi_comm *c = michi_comm_get(comm);
	size_t bytes = michi_dt_packed(dt, count);
	void *tmp;
	int err;

	if (!c)
		return michi_check_comm_slow(comm, "MPI_Bcast");
	if (bytes > 0x7fffffff)
		return michi_mpi_err(c, MPI_ERR_COUNT, "MPI_Bcast",
				     "(count=%d): %zu packed bytes: too large for now", count, bytes);
	tmp = malloc(bytes ? bytes : 1);
	if (!tmp)
		return michi_err_nomem(c, "MPI_Bcast");
	if (c->rank == root)
		michi_dt_pack(buffer, count, dt, 0, tmp, bytes);
	err = PMPI_Bcast(tmp, (int)bytes, MPI_BYTE, root, comm);
	if (!err && c->rank != root)
		michi_dt_unpack(tmp, bytes, buffer, count, dt);
	free(tmp);
	return err;
}

/* Reductions over derived types that are not contiguous: predefined ops
 * are not defined on them (MPI-3.1 5.9.2; MPICH and Open MPI refuse them
 * too), and user ops over them wait for the collectives issue. */
static int reduce_derived(const char *fname, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
	struct michi_comm *c = michi_comm_get(comm);

	if (!c)
		return michi_check_comm_slow(comm, fname);
	if (michi_op_is_predefined(op))
		return michi_mpi_err(c, MPI_ERR_OP, fname,
				     "(op=%s, datatype=0x%x): predefined ops are defined on "
				     "predefined datatypes only", michi_op_name(op), (unsigned)dt);
	return michi_mpi_err(c, MPI_ERR_TYPE, fname,
			     "(datatype=0x%x): user ops over non-contiguous derived datatypes "
			     "are not supported yet", (unsigned)dt);
}

/* ---- broadcast ------------------------------------------------------------ */

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	static const char fname[] = "MPI_Bcast";
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_comm cc;
	int err;

	MICHI_CHECK_INIT(fname);
	if (unlikely(c && c->local))
		return coll_inter(c, fname);
	if (packed_type(datatype) && count >= 0)
		return bcast_packed(buffer, count, datatype, root, comm);
	if (ERRCHK) {
		if (unlikely(!c))
			return michi_check_comm_slow(comm, fname);
		if ((err = coll_check_buf(c, fname, "", buffer, count, datatype)) ||
		    (err = coll_check_root(c, fname, root)))
			return err;
		if (buffer == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "buffer", "not allowed in a broadcast");
	}
	if (c->size == 1 || count == 0)
		return MPI_SUCCESS;
	coll_comm_of(c, &cc);
	return coll_done(c, coll_bcast_binomial(&cc, buffer, michi_dt_bytes(datatype, count), root),
			 fname);
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
}

static int coll_check_reduce(struct michi_comm *c, MPI_Comm comm, const char *fname,
			     const void *sendbuf, const void *recvbuf, int count,
			     MPI_Datatype dt, MPI_Op op, int root_here)
{
	int err;

	if (unlikely(!c))
		return michi_check_comm_slow(comm, fname);
	if ((err = coll_check_buf(c, fname, "", sendbuf, count, dt)))
		return err;
	if (unlikely(michi_op_check(op, dt)))
		return michi_err_op(c, fname, op, dt);
	if (!root_here)
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

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		MPI_Op op, int root, MPI_Comm comm)
{
	static const char fname[] = "MPI_Reduce";
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_comm cc;
	struct coll_op o;
	int err;

	MICHI_CHECK_INIT(fname);
	if (unlikely(c && c->local))
		return coll_inter(c, fname);
	if (packed_type(datatype))
		return reduce_derived(fname, datatype, op, comm);
	if (ERRCHK) {
		if (c && (err = coll_check_root(c, fname, root)))
			return err;
		if ((err = coll_check_reduce(c, comm, fname, sendbuf, recvbuf, count, datatype, op,
					     c && c->rank == root)))
			return err;
		if (c->rank != root && sendbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "sendbuf", "only the root may pass it");
	}
	if (count == 0)
		return MPI_SUCCESS;
	coll_comm_of(c, &cc);
	coll_op_of(&o, op, datatype);
	if (unlikely(!michi_op_commutes(op))) {
		/* rank order: every rank combines through rank 0 in order,
		 * then the root keeps the result */
		size_t len = (size_t)count * o.extent;
		void *tmp = c->rank == root ? recvbuf : malloc(len);
		michi_status_t st;

		if (!tmp)
			return michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
		st = coll_allreduce_flat(&cc, sendbuf == MPI_IN_PLACE ? NULL : sendbuf, tmp,
					 (size_t)count, &o);
		if (tmp != recvbuf)
			free(tmp);
		return coll_done(c, st, fname);
	}
	return coll_done(c, coll_reduce_binomial(&cc, sendbuf == MPI_IN_PLACE ? NULL : sendbuf,
						 recvbuf, (size_t)count, &o, root), fname);
}

static int coll_flat_ranks = 8;
MICHI_TUNABLE(coll_flat_ranks, "coll_allreduce_flat_ranks", MICHI_T_INT, "8", MICHI_LEVEL_TUNER,
	      "most ranks (from 5) for which a small allreduce on one host goes flat through "
	      "rank 0 (0: always recursive doubling)");
static size_t coll_flat_bytes = 256;
MICHI_TUNABLE(coll_flat_bytes, "coll_allreduce_flat_bytes", MICHI_T_SIZE, "256",
	      MICHI_LEVEL_TUNER, "largest allreduce (bytes) that may go flat through rank 0");

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		   MPI_Op op, MPI_Comm comm)
{
	static const char fname[] = "MPI_Allreduce";
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_comm cc;
	struct coll_op o;
	int err;

	MICHI_CHECK_INIT(fname);
	if (unlikely(c && c->local))
		return coll_inter(c, fname);
	if (packed_type(datatype))
		return reduce_derived(fname, datatype, op, comm);
	if (ERRCHK && (err = coll_check_reduce(c, comm, fname, sendbuf, recvbuf, count, datatype,
					       op, 1)))
		return err;
	if (count == 0)
		return MPI_SUCCESS;
	coll_comm_of(c, &cc);
	coll_op_of(&o, op, datatype);
	/* every rank decides alike: the host map and the sizes are the job's;
	 * an op that does not commute needs the rank order of the flat one */
	if (!michi_op_commutes(op) ||
	    (c->size > 4 && c->size <= coll_flat_ranks && michi_state.single_host &&
	     (size_t)count * o.extent <= coll_flat_bytes))
		return coll_done(c, coll_allreduce_flat(&cc, sendbuf == MPI_IN_PLACE ? NULL : sendbuf,
							recvbuf, (size_t)count, &o), fname);
	return coll_done(c, coll_allreduce_recdbl(&cc, sendbuf == MPI_IN_PLACE ? NULL : sendbuf,
						  recvbuf, (size_t)count, &o), fname);
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
			 MPI_Datatype recvtype, int root, MPI_Comm comm, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	struct coll_comm cc;
	size_t ext = 0;
	int err;

	MICHI_CHECK_INIT(fname);
	if (unlikely(c && c->local))
		return coll_inter(c, fname);
	if (ERRCHK) {
		if (unlikely(!c))
			return michi_check_comm_slow(comm, fname);
		if ((err = coll_check_rooted(c, fname, root, 1, sendbuf, sendcount, sendtype,
					     recvbuf, recvcounts, displs, recvcount, recvtype)))
			return err;
	}
	if (c->rank == root)
		ext = (size_t)michi_dt_extent(recvtype);
	coll_comm_of(c, &cc);
	return coll_done(c, coll_gatherv_linear(&cc, inplace ? NULL : sendbuf,
						inplace ? 0 : michi_dt_bytes(sendtype, sendcount),
						recvbuf, recvcounts, displs, (size_t)recvcount,
						ext, root), fname);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
			     recvtype, root, comm, "MPI_Gather");
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		 MPI_Comm comm)
{
	struct michi_comm *c = michi_comm_get(comm);

	/* only the root reads the arrays; a NULL one elsewhere is legal */
	if (ERRCHK && c && c->rank == root && !recvcounts)
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Gatherv", "(recvcounts=NULL): NULL pointer");
	return gather_common(sendbuf, sendcount, sendtype, recvbuf,
			     c && c->rank == root ? recvcounts : NULL, displs, 0, recvtype, root,
			     comm, "MPI_Gatherv");
}

static int scatter_common(const void *sendbuf, const int *sendcounts, const int *displs,
			  int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
			  MPI_Datatype recvtype, int root, MPI_Comm comm, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = recvbuf == MPI_IN_PLACE;
	struct coll_comm cc;
	size_t ext = 0;
	int err;

	MICHI_CHECK_INIT(fname);
	if (unlikely(c && c->local))
		return coll_inter(c, fname);
	if (ERRCHK) {
		if (unlikely(!c))
			return michi_check_comm_slow(comm, fname);
		if ((err = coll_check_rooted(c, fname, root, 0, recvbuf, recvcount, recvtype,
					     sendbuf, sendcounts, displs, sendcount, sendtype)))
			return err;
	}
	if (c->rank == root)
		ext = (size_t)michi_dt_extent(sendtype);
	coll_comm_of(c, &cc);
	return coll_done(c, coll_scatterv_linear(&cc, sendbuf, sendcounts, displs,
						 (size_t)sendcount, ext, inplace ? NULL : recvbuf,
						 inplace ? 0 : michi_dt_bytes(recvtype, recvcount),
						 root), fname);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return scatter_common(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
			      recvtype, root, comm, "MPI_Scatter");
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  int root, MPI_Comm comm)
{
	struct michi_comm *c = michi_comm_get(comm);

	if (ERRCHK && c && c->rank == root && !sendcounts)
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Scatterv", "(sendcounts=NULL): NULL pointer");
	return scatter_common(sendbuf, c && c->rank == root ? sendcounts : NULL, displs, 0,
			      sendtype, recvbuf, recvcount, recvtype, root, comm, "MPI_Scatterv");
}

/* ---- allgather and alltoall ---------------------------------------------------- */

static int allgather_common(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    void *recvbuf, const int *recvcounts, const int *displs,
			    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	struct coll_comm cc;
	int err;

	MICHI_CHECK_INIT(fname);
	if (unlikely(c && c->local))
		return coll_inter(c, fname);
	if (ERRCHK) {
		if (unlikely(!c))
			return michi_check_comm_slow(comm, fname);
		if (!inplace && (err = coll_check_buf(c, fname, "send", sendbuf, sendcount, sendtype)))
			return err;
		if ((err = coll_check_rootbuf(c, fname, "recv", recvbuf, recvcounts, displs,
					      recvcount, recvtype)))
			return err;
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
	}
	coll_comm_of(c, &cc);
	return coll_done(c, coll_allgatherv_ring(&cc, inplace ? NULL : sendbuf,
						 inplace ? 0 : michi_dt_bytes(sendtype, sendcount),
						 recvbuf, recvcounts, displs, (size_t)recvcount,
						 (size_t)michi_dt_extent(recvtype)), fname);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
				recvtype, comm, "MPI_Allgather");
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		    MPI_Comm comm)
{
	if (ERRCHK && !recvcounts)
		return michi_mpi_err(michi_comm_get(comm), MPI_ERR_ARG, "MPI_Allgatherv",
				     "(recvcounts=NULL): NULL pointer");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
				recvtype, comm, "MPI_Allgatherv");
}

static int alltoall_common(const void *sendbuf, const int *sendcounts, const int *sdispls,
			   int sendcount, MPI_Datatype sendtype, void *recvbuf,
			   const int *recvcounts, const int *rdispls, int recvcount,
			   MPI_Datatype recvtype, MPI_Comm comm, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	struct coll_comm cc;
	int err;

	MICHI_CHECK_INIT(fname);
	if (unlikely(c && c->local))
		return coll_inter(c, fname);
	if (ERRCHK) {
		if (unlikely(!c))
			return michi_check_comm_slow(comm, fname);
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
	coll_comm_of(c, &cc);
	return coll_done(c, coll_alltoallv_pairwise(&cc, inplace ? NULL : sendbuf, sendcounts,
						    sdispls, (size_t)sendcount,
						    inplace ? 0 : (size_t)michi_dt_extent(sendtype),
						    recvbuf, recvcounts, rdispls, (size_t)recvcount,
						    (size_t)michi_dt_extent(recvtype)), fname);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return alltoall_common(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, NULL, NULL,
			       recvcount, recvtype, comm, "MPI_Alltoall");
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	if (ERRCHK && !recvcounts)
		return michi_mpi_err(michi_comm_get(comm), MPI_ERR_ARG, "MPI_Alltoallv",
				     "(recvcounts=NULL): NULL pointer");
	if (ERRCHK && sendbuf != MPI_IN_PLACE && !sendcounts)
		return michi_mpi_err(michi_comm_get(comm), MPI_ERR_ARG, "MPI_Alltoallv",
				     "(sendcounts=NULL): NULL pointer");
	return alltoall_common(sendbuf, sendbuf == MPI_IN_PLACE ? NULL : sendcounts, sdispls, 0,
			       sendtype, recvbuf, recvcounts, rdispls, 0, recvtype, comm,
			       "MPI_Alltoallv");
}
