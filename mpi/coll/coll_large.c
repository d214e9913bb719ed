/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll/coll_large.c: the large-count (MPI-4.0 _c) forms of the
 * collective calls: the same common functions with MPI_Count counts.
 * (mpi/coll/coll.c says how every collective call is built and run;
 * coll_priv.h holds what these files share).
 */
#include "coll_priv.h"

#include <stdlib.h>
#include <string.h>

/* ---- large counts (MPI-4.0 _c): the same calls with MPI_Count counts ----------- */

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
				comm, NULL, COLL_BLOCKING, "MPI_Allgather_c");
}

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
		      MPI_Request *request)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
				comm, request, COLL_NB, "MPI_Iallgather_c");
}

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
		      MPI_Datatype recvtype, MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Allgatherv_c", "recvcounts");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype, comm, NULL,
				COLL_BLOCKING, "MPI_Allgatherv_c");
}

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
		       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Iallgatherv_c", "recvcounts");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype, comm,
				request, COLL_NB, "MPI_Iallgatherv_c");
}

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		     MPI_Op op, MPI_Comm comm)
{
	return allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, COLL_BLOCKING,
				"MPI_Allreduce_c");
}

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, request, COLL_NB,
				"MPI_Iallreduce_c");
}

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL, recvcount,
			       recvtype, comm, NULL, COLL_BLOCKING, "MPI_Alltoall_c");
}

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
		     MPI_Request *request)
{
	return alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL, recvcount,
			       recvtype, comm, request, COLL_NB, "MPI_Ialltoall_c");
}

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
		     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
		     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);

	return alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, NULL,
			    COLL_BLOCKING, "MPI_Alltoallv_c");
}

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
		      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
		      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
		      MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);

	return alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, request, COLL_NB,
			    "MPI_Ialltoallv_c");
}

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
		     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
		     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);

	return alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm, NULL,
				COLL_BLOCKING, "MPI_Alltoallw_c");
}

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
		      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
		      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
		      MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);

	return alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm, request,
				COLL_NB, "MPI_Ialltoallw_c");
}

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	return bcast_common(buffer, count, datatype, root, comm, NULL, COLL_BLOCKING,
			    "MPI_Bcast_c");
}

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	return bcast_common(buffer, count, datatype, root, comm, request, COLL_NB, "MPI_Ibcast_c");
}

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		  MPI_Op op, MPI_Comm comm)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, COLL_BLOCKING, 1,
			   "MPI_Exscan_c");
}

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, request, COLL_NB, 1,
			   "MPI_Iexscan_c");
}

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
			     root, 0, comm, NULL, COLL_BLOCKING, "MPI_Gather_c");
}

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		   MPI_Request *request)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
			     root, 0, comm, request, COLL_NB, "MPI_Igather_c");
}

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
		   int root, MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Gatherv_c", "recvcounts", &rv);

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, NULL, COLL_BLOCKING, "MPI_Gatherv_c");
}

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
		    int root, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Igatherv_c", "recvcounts", &rv);

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, request, COLL_NB, "MPI_Igatherv_c");
}

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		  MPI_Op op, int root, MPI_Comm comm)
{
	return reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm, NULL,
			     COLL_BLOCKING, "MPI_Reduce_c");
}

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	return reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm, request, COLL_NB,
			     "MPI_Ireduce_c");
}

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
			  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 1);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Reduce_scatter_c", "recvcounts");
	return reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm, NULL,
				     COLL_BLOCKING, "MPI_Reduce_scatter_c");
}

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
			   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 1);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Ireduce_scatter_c", "recvcounts");
	return reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm, request, COLL_NB,
				     "MPI_Ireduce_scatter_c");
}

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
				MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, NULL,
				     COLL_BLOCKING, "MPI_Reduce_scatter_block_c");
}

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
				 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
				 MPI_Request *request)
{
	return reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm,
				     request, COLL_NB, "MPI_Ireduce_scatter_block_c");
}

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		MPI_Op op, MPI_Comm comm)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, COLL_BLOCKING, 0,
			   "MPI_Scan_c");
}

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, request, COLL_NB, 0,
			   "MPI_Iscan_c");
}

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype,
			      root, 0, comm, NULL, COLL_BLOCKING, "MPI_Scatter_c");
}

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		    MPI_Request *request)
{
	return scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype,
			      root, 0, comm, request, COLL_NB, "MPI_Iscatter_c");
}

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
		    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	struct coll_v v = COLL_V(sendcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Scatterv_c", "sendcounts", &rv);

	return err ? err : scatter_common(sendbuf, rv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, NULL, COLL_BLOCKING, "MPI_Scatterv_c");
}

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
		     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(sendcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Iscatterv_c", "sendcounts", &rv);

	return err ? err : scatter_common(sendbuf, rv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, request, COLL_NB, "MPI_Iscatterv_c");
}

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
			      MPI_Comm comm)
{
	return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			     NULL, COLL_BLOCKING, "MPI_Neighbor_allgather_c");
}

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
			       MPI_Comm comm, MPI_Request *request)
{
	return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			     request, COLL_NB, "MPI_Ineighbor_allgather_c");
}

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			       void *recvbuf, const MPI_Count recvcounts[],
			       const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1,
			      recvtype, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_allgatherv_c");
}

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
				void *recvbuf, const MPI_Count recvcounts[],
				const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
				MPI_Request *request)
{
	return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1,
			      recvtype, comm, request, COLL_NB, "MPI_Ineighbor_allgatherv_c");
}

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
			     MPI_Comm comm)
{
	return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL,
			    COLL_BLOCKING, "MPI_Neighbor_alltoall_c");
}

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
			      MPI_Comm comm, MPI_Request *request)
{
	return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			    request, COLL_NB, "MPI_Ineighbor_alltoall_c");
}

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
			      const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
			      const MPI_Count recvcounts[], const MPI_Aint rdispls[],
			      MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
			     1, recvtype, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_alltoallv_c");
}

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
			       const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
			       const MPI_Count recvcounts[], const MPI_Aint rdispls[],
			       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
			     1, recvtype, comm, request, COLL_NB, "MPI_Ineighbor_alltoallv_c");
}

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
			      const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
			      void *recvbuf, const MPI_Count recvcounts[],
			      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
			      MPI_Comm comm)
{
	return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
			     recvtypes, 1, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_alltoallw_c");
}

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
			       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
			       void *recvbuf, const MPI_Count recvcounts[],
			       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
			       MPI_Comm comm, MPI_Request *request)
{
	return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
			     recvtypes, 1, comm, request, COLL_NB, "MPI_Ineighbor_alltoallw_c");
}

