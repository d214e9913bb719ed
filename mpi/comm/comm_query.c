/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/comm_query.c: communicator queries and the predefined attributes.
 *
 * COMM_WORLD and COMM_SELF are static objects set up by MPI_Init; user
 * communicators (dup, split, ...) are slab objects made in
 * mpi/comm/comm_create.c. Everything here only reads them.
 */
#include "mpiimpl.h"
#include "pmi.h"
#include "attr.h"

#include <stdio.h>

int michi_check_comm_slow(MPI_Comm comm, const char *fname)
{
	if (comm == MPI_COMM_NULL)
		return michi_mpi_err(NULL, MPI_ERR_COMM, fname,
				     "(comm=MPI_COMM_NULL): null communicator");
	return michi_mpi_err(NULL, MPI_ERR_COMM, fname,
			     "(comm=0x%x): not a valid communicator", (unsigned)comm);
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
	struct michi_comm *c;

	MICHI_CHECK_INIT("MPI_Comm_rank");
	c = michi_comm_get(comm);
	if (ERRCHK && unlikely(!c))
		return michi_check_comm_slow(comm, "MPI_Comm_rank");
	if (ERRCHK && unlikely(!rank))
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Comm_rank", "(rank=NULL): output pointer is NULL");
	*rank = c->rank;
	return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
	struct michi_comm *c;

	MICHI_CHECK_INIT("MPI_Comm_size");
	c = michi_comm_get(comm);
	if (ERRCHK && unlikely(!c))
		return michi_check_comm_slow(comm, "MPI_Comm_size");
	if (ERRCHK && unlikely(!size))
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Comm_size", "(size=NULL): output pointer is NULL");
	/* an intercommunicator's own group is its local one */
	*size = unlikely(c->local != NULL) ? c->local->size : c->size;
	return MPI_SUCCESS;
}

/* Values behind the predefined attributes: the user gets a pointer to them. */
static int attr_tag_ub, attr_host, attr_io, attr_wtime_global, attr_universe, attr_appnum;
static int attr_lastused;

static int get_attr(const char *fname, MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
	struct michi_comm *c;
	int *v = NULL;

	MICHI_CHECK_INIT(fname);
	c = michi_comm_get(comm);
	if (ERRCHK && unlikely(!c))
		return michi_check_comm_slow(comm, fname);
	if (ERRCHK && (!attribute_val || !flag))
		return michi_mpi_err(c, MPI_ERR_ARG, fname, "(): output pointer is NULL");
	if (michi_comm_user_attr(c, keyval, attribute_val, flag))
		return MPI_SUCCESS;
	attr_tag_ub = michi_state.tag_ub;
	attr_host = MPI_PROC_NULL;       /* no host is distinguished */
	attr_io = MPI_ANY_SOURCE;        /* every rank can do I/O */
	attr_wtime_global = 0;           /* clocks are per host (CLOCK_MONOTONIC) */
	attr_universe = michi_state.universe_size;
	attr_appnum = michi_state.appnum;
	switch (keyval) {
	case MPI_TAG_UB: v = &attr_tag_ub; break;
	case MPI_HOST: v = &attr_host; break;
	case MPI_IO: v = &attr_io; break;
	case MPI_WTIME_IS_GLOBAL: v = &attr_wtime_global; break;
	case MPI_UNIVERSE_SIZE: v = &attr_universe; break;
	case MPI_APPNUM: v = &attr_appnum; break;
	case MPI_LASTUSEDCODE:
		attr_lastused = michi_err_lastused();
		v = &attr_lastused;
		break;
	default:
		return michi_mpi_err(c, MPI_ERR_KEYVAL, fname,
				     "(keyval=%d): not a valid attribute key", keyval);
	}
	*flag = v != NULL;
	if (v)
		*(int **)attribute_val = v;
	return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
	return get_attr("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
	return get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}

int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
	struct michi_comm *c;

	MICHI_CHECK_INIT("MPI_Comm_get_name");
	c = michi_comm_get(comm);
	if (ERRCHK && unlikely(!c))
		return michi_check_comm_slow(comm, "MPI_Comm_get_name");
	if (ERRCHK && (!comm_name || !resultlen))
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Comm_get_name", "(): output pointer is NULL");
	snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c->name);
	*resultlen = (int)strlen(comm_name);
	return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
	struct michi_comm *c;

	MICHI_CHECK_INIT("MPI_Comm_set_name");
	c = michi_comm_get(comm);
	if (ERRCHK && unlikely(!c))
		return michi_check_comm_slow(comm, "MPI_Comm_set_name");
	if (ERRCHK && !comm_name)
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Comm_set_name", "(comm_name=NULL): NULL pointer");
	snprintf(c->name, sizeof(c->name), "%s", comm_name);
	return MPI_SUCCESS;
}
