/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll/coll_persist.c: the persistent collectives (MPI-4.0): built at
 * init by the same common functions, run at every MPI_Start.
 * (mpi/coll/coll.c says how every collective call is built and run;
 * coll_priv.h holds what these files share).
 */
#include "coll_priv.h"

#include <stdlib.h>
#include <string.h>

/* ---- persistent collectives (MPI-4.0): built at init, run at every MPI_Start ---- */

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Allgather_init");

	return err ? err : allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount,
					    recvtype, comm, request, COLL_PERSIST,
					    "MPI_Allgather_init");
}

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			  MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Allgather_init_c");

	return err ? err : allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount,
					    recvtype, comm, request, COLL_PERSIST,
					    "MPI_Allgather_init_c");
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			 const int recvcounts[], const int displs[], MPI_Datatype recvtype,
			 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);
	int err = coll_info_check(comm, info, "MPI_Allgatherv_init");

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Allgatherv_init", "recvcounts");
	return err ? err : allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype,
					    comm, request, COLL_PERSIST, "MPI_Allgatherv_init");
}

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			   void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
			   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			   MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);
	int err = coll_info_check(comm, info, "MPI_Allgatherv_init_c");

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Allgatherv_init_c", "recvcounts");
	return err ? err : allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype,
					    comm, request, COLL_PERSIST, "MPI_Allgatherv_init_c");
}

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
			MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Allreduce_init");

	return err ? err : allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, request,
					    COLL_PERSIST, "MPI_Allreduce_init");
}

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
			  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
			  MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Allreduce_init_c");

	return err ? err : allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, request,
					    COLL_PERSIST, "MPI_Allreduce_init_c");
}

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
		       MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Alltoall_init");

	return err ? err : alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL,
					   recvcount, recvtype, comm, request, COLL_PERSIST,
					   "MPI_Alltoall_init");
}

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			 MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Alltoall_init_c");

	return err ? err : alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL,
					   recvcount, recvtype, comm, request, COLL_PERSIST,
					   "MPI_Alltoall_init_c");
}

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
			MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
			const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);
	int err = coll_info_check(comm, info, "MPI_Alltoallv_init");

	return err ? err : alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm,
					request, COLL_PERSIST, "MPI_Alltoallv_init");
}

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			  const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
			  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
			  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			  MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);
	int err = coll_info_check(comm, info, "MPI_Alltoallv_init_c");

	return err ? err : alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm,
					request, COLL_PERSIST, "MPI_Alltoallv_init_c");
}

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
			const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
			MPI_Info info, MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);
	int err = coll_info_check(comm, info, "MPI_Alltoallw_init");

	return err ? err : alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm,
					    request, COLL_PERSIST, "MPI_Alltoallw_init");
}

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
			  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
			  const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
			  MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);
	int err = coll_info_check(comm, info, "MPI_Alltoallw_init_c");

	return err ? err : alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm,
					    request, COLL_PERSIST, "MPI_Alltoallw_init_c");
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Barrier_init");

	return err ? err : barrier_common(comm, request, COLL_PERSIST, "MPI_Barrier_init");
}

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Bcast_init");

	return err ? err : bcast_common(buffer, count, datatype, root, comm, request, COLL_PERSIST,
					"MPI_Bcast_init");
}

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
		      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Bcast_init_c");

	return err ? err : bcast_common(buffer, count, datatype, root, comm, request, COLL_PERSIST,
					"MPI_Bcast_init_c");
}

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Exscan_init");

	return err ? err : scan_common(sendbuf, recvbuf, count, datatype, op, comm, request,
				       COLL_PERSIST, 1, "MPI_Exscan_init");
}

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Exscan_init_c");

	return err ? err : scan_common(sendbuf, recvbuf, count, datatype, op, comm, request,
				       COLL_PERSIST, 1, "MPI_Exscan_init_c");
}

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
		     MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Gather_init");

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount,
					 recvtype, root, 0, comm, request, COLL_PERSIST,
					 "MPI_Gather_init");
}

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
		       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Gather_init_c");

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount,
					 recvtype, root, 0, comm, request, COLL_PERSIST,
					 "MPI_Gather_init_c");
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Gatherv_init", "recvcounts", &rv);

	if (!err)
		err = coll_info_check(comm, info, "MPI_Gatherv_init");
	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, request, COLL_PERSIST, "MPI_Gatherv_init");
}

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
			MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
			MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Gatherv_init_c", "recvcounts", &rv);

	if (!err)
		err = coll_info_check(comm, info, "MPI_Gatherv_init_c");
	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, request, COLL_PERSIST,
					 "MPI_Gatherv_init_c");
}

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Reduce_init");

	return err ? err : reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm,
					 request, COLL_PERSIST, "MPI_Reduce_init");
}

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Reduce_init_c");

	return err ? err : reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm,
					 request, COLL_PERSIST, "MPI_Reduce_init_c");
}

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
			     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
			     MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 0);
	int err = coll_info_check(comm, info, "MPI_Reduce_scatter_init");

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Reduce_scatter_init",
				      "recvcounts");
	return err ? err : reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm,
						 request, COLL_PERSIST, "MPI_Reduce_scatter_init");
}

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
			       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
			       MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 1);
	int err = coll_info_check(comm, info, "MPI_Reduce_scatter_init_c");

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Reduce_scatter_init_c",
				      "recvcounts");
	return err ? err : reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm,
						 request, COLL_PERSIST,
						 "MPI_Reduce_scatter_init_c");
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
				   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
				   MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Reduce_scatter_block_init");

	return err ? err : reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op,
						 comm, request, COLL_PERSIST,
						 "MPI_Reduce_scatter_block_init");
}

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
				     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
				     MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Reduce_scatter_block_init_c");

	return err ? err : reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op,
						 comm, request, COLL_PERSIST,
						 "MPI_Reduce_scatter_block_init_c");
}

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
		   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Scan_init");

	return err ? err : scan_common(sendbuf, recvbuf, count, datatype, op, comm, request,
				       COLL_PERSIST, 0, "MPI_Scan_init");
}

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Scan_init_c");

	return err ? err : scan_common(sendbuf, recvbuf, count, datatype, op, comm, request,
				       COLL_PERSIST, 0, "MPI_Scan_init_c");
}

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
		      MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Scatter_init");

	return err ? err : scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount,
					  recvtype, root, 0, comm, request, COLL_PERSIST,
					  "MPI_Scatter_init");
}

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
			MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Scatter_init_c");

	return err ? err : scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount,
					  recvtype, root, 0, comm, request, COLL_PERSIST,
					  "MPI_Scatter_init_c");
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
		       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	struct coll_v v = COLL_V(sendcounts, displs, 0);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Scatterv_init", "sendcounts", &rv);

	if (!err)
		err = coll_info_check(comm, info, "MPI_Scatterv_init");
	return err ? err : scatter_common(sendbuf, rv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, request, COLL_PERSIST,
					  "MPI_Scatterv_init");
}

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			 const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
			 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
			 MPI_Info info, MPI_Request *request)
{
	struct coll_v v = COLL_V(sendcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Scatterv_init_c", "sendcounts", &rv);

	if (!err)
		err = coll_info_check(comm, info, "MPI_Scatterv_init_c");
	return err ? err : scatter_common(sendbuf, rv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, request, COLL_PERSIST,
					  "MPI_Scatterv_init_c");
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				 void *recvbuf, int recvcount, MPI_Datatype recvtype,
				 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_allgather_init");

	return err ? err : nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
					 recvtype, comm, request, COLL_PERSIST,
					 "MPI_Neighbor_allgather_init");
}

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
				   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
				   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_allgather_init_c");

	return err ? err : nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
					 recvtype, comm, request, COLL_PERSIST,
					 "MPI_Neighbor_allgather_init_c");
}

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				  void *recvbuf, const int recvcounts[], const int displs[],
				  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
				  MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_allgatherv_init");

	return err ? err : nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
					  displs, 0, recvtype, comm, request, COLL_PERSIST,
					  "MPI_Neighbor_allgatherv_init");
}

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
				    MPI_Datatype sendtype, void *recvbuf,
				    const MPI_Count recvcounts[], const MPI_Aint displs[],
				    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
				    MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_allgatherv_init_c");

	return err ? err : nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
					  displs, 1, recvtype, comm, request, COLL_PERSIST,
					  "MPI_Neighbor_allgatherv_init_c");
}

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
				MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoall_init");

	return err ? err : nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
					comm, request, COLL_PERSIST, "MPI_Neighbor_alltoall_init");
}

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
				  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
				  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoall_init_c");

	return err ? err : nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
					comm, request, COLL_PERSIST,
					"MPI_Neighbor_alltoall_init_c");
}

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
				 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
				 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
				 MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoallv_init");

	return err ? err : nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
					 recvcounts, rdispls, 0, recvtype, comm, request,
					 COLL_PERSIST, "MPI_Neighbor_alltoallv_init");
}

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
				   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
				   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
				   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
				   MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoallv_init_c");

	return err ? err : nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
					 recvcounts, rdispls, 1, recvtype, comm, request,
					 COLL_PERSIST, "MPI_Neighbor_alltoallv_init_c");
}

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
				 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
				 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
				 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
				 MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoallw_init");

	return err ? err : nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
					 recvcounts, rdispls, recvtypes, 0, comm, request,
					 COLL_PERSIST, "MPI_Neighbor_alltoallw_init");
}

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
				   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
				   void *recvbuf, const MPI_Count recvcounts[],
				   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
				   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoallw_init_c");

	return err ? err : nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
					 recvcounts, rdispls, recvtypes, 1, comm, request,
					 COLL_PERSIST, "MPI_Neighbor_alltoallw_init_c");
}
