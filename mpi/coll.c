/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll.c: the MPI collective calls, which check their arguments and
 * hand the work to an algorithm of coll/ on the communicator's collective
 * context.
 */
#include "mpiimpl.h"
#include "coll.h"

static inline void coll_comm_of(const struct michi_comm *c, struct coll_comm *cc)
{
	cc->rank = c->rank;
	cc->size = c->size;
	cc->ctx = c->ctx + 1;
	cc->peers = c->peers;
}

int PMPI_Barrier(MPI_Comm comm)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_comm cc;
	michi_status_t st;

	MICHI_CHECK_INIT("MPI_Barrier");
	if (ERRCHK && unlikely(!c))
		return michi_check_comm_slow(comm, "MPI_Barrier");
	if (c->size == 1)
		return MPI_SUCCESS;
	coll_comm_of(c, &cc);
	st = coll_barrier_dissem(&cc);
	if (st < 0)
		return michi_mpi_err_status(c, st, "MPI_Barrier");
	return MPI_SUCCESS;
}
MICHI_ALIAS(Barrier)
