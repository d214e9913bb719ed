/* SPDX-License-Identifier: MIT */
/*
 * test/mpi/coll_kinds.h: the intracommunicator collectives as coll_nb.c
 * and coll_sweep.c run them (enum kind), with their blocking and
 * nonblocking names, whether they take a root, where MPI_IN_PLACE is
 * allowed, which reduce and whose buffers grow with the number of ranks.
 * Public MPI only (names), so that the MPICH-ABI pass builds it too.
 */
#ifndef COLL_KINDS_H
#define COLL_KINDS_H

enum kind {
	K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_GATHER, K_GATHERV, K_SCATTER,
	K_SCATTERV, K_ALLGATHER, K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV, K_ALLTOALLW,
	K_RS, K_RSB, K_SCAN, K_EXSCAN, NKINDS
};

static const struct {
	const char *bname, *nbname;
	const char *key;	/* lower case, without MPI_: COLL_SWEEP_ONLY takes it */
	int rooted;
	int inplace;	/* MPI_IN_PLACE: 0 never, 1 on every rank, 2 at the root */
	int red;	/* a reduction: takes an op */
	int a2a;	/* its buffers grow with the number of ranks */
} kinds[NKINDS] = {
	[K_BARRIER] = { "MPI_Barrier", "MPI_Ibarrier", "barrier", 0, 0, 0, 0 },
	[K_BCAST] = { "MPI_Bcast", "MPI_Ibcast", "bcast", 1, 0, 0, 0 },
	[K_REDUCE] = { "MPI_Reduce", "MPI_Ireduce", "reduce", 1, 2, 1, 0 },
	[K_ALLREDUCE] = { "MPI_Allreduce", "MPI_Iallreduce", "allreduce", 0, 1, 1, 0 },
	[K_GATHER] = { "MPI_Gather", "MPI_Igather", "gather", 1, 2, 0, 1 },
	[K_GATHERV] = { "MPI_Gatherv", "MPI_Igatherv", "gatherv", 1, 2, 0, 1 },
	[K_SCATTER] = { "MPI_Scatter", "MPI_Iscatter", "scatter", 1, 2, 0, 1 },
	[K_SCATTERV] = { "MPI_Scatterv", "MPI_Iscatterv", "scatterv", 1, 2, 0, 1 },
	[K_ALLGATHER] = { "MPI_Allgather", "MPI_Iallgather", "allgather", 0, 1, 0, 1 },
	[K_ALLGATHERV] = { "MPI_Allgatherv", "MPI_Iallgatherv", "allgatherv", 0, 1, 0, 1 },
	[K_ALLTOALL] = { "MPI_Alltoall", "MPI_Ialltoall", "alltoall", 0, 1, 0, 1 },
	[K_ALLTOALLV] = { "MPI_Alltoallv", "MPI_Ialltoallv", "alltoallv", 0, 1, 0, 1 },
	[K_ALLTOALLW] = { "MPI_Alltoallw", "MPI_Ialltoallw", "alltoallw", 0, 1, 0, 1 },
	[K_RS] = { "MPI_Reduce_scatter", "MPI_Ireduce_scatter", "reduce_scatter", 0, 1, 1, 0 },
	[K_RSB] = { "MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block",
		    "reduce_scatter_block", 0, 1, 1, 0 },
	[K_SCAN] = { "MPI_Scan", "MPI_Iscan", "scan", 0, 1, 1, 0 },
	[K_EXSCAN] = { "MPI_Exscan", "MPI_Iexscan", "exscan", 0, 1, 1, 0 },
};

#endif
