/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll/coll_neighbor.c: the neighbourhood collectives of topology
 * communicators, and their int forms.
 * (mpi/coll/coll.c says how every collective call is built and run;
 * coll_priv.h holds what these files share).
 */
#include "coll_priv.h"

#include <stdlib.h>
#include <string.h>

/* ---- neighbourhood collectives ---------------------------------------------------- */

/*
 * The neighbourhood collectives of one topology communicator. Block i of
 * the receive side comes from in-neighbour i; the send side is one block
 * for every out-neighbour (allgather: the same block) or block j for
 * out-neighbour j. Layouts: v NULL is the uniform one of ucount
 * elements; displacements count elements (v forms), or bytes with a type
 * per block (w forms, types non-NULL).
 */
struct nbr_side {
	const void *buf;
	struct coll_v v;         /* counts NULL: uniform */
	const MPI_Datatype *types;
	MPI_Count ucount;
	MPI_Datatype dt;
	int same;                /* one block for every neighbour */
};

static int nbr_check(struct michi_comm *c, const char *fname, const char *arg,
		     const struct nbr_side *sd, int n)
{
	char a[32];
	int i, err;

	for (i = 0; i < (sd->same ? 1 : n); i++) {
		MPI_Count cnt = sd->v.counts ? v_count(&sd->v, i) : sd->ucount;
		MPI_Datatype dt = sd->types ? sd->types[i] : sd->dt;

		snprintf(a, sizeof(a), "%s[%d]: ", arg, i);
		if ((err = sd->types ? coll_check_count(c, fname, a, cnt, dt)
				     : coll_check_buf(c, fname, sd->same ? arg : a, sd->buf, cnt, dt)))
			return err;
	}
	return MPI_SUCCESS;
}

/* Address and bytes of block i, packed into scratch when the schedule
 * starts (send, into pk) or unpacked at the end (receive, into u) when
 * its type is not contiguous. */
static int nbr_block(struct coll_sched *s, const struct nbr_side *sd, int i, int n,
		     struct unstage **pk, struct unstage *u, char **p, size_t *len)
{
	int k = sd->same ? 0 : i;
	const struct coll_v *v = sd->v.counts ? &sd->v : NULL;
	MPI_Count cnt = (MPI_Count)coll_v_count(v, k, (size_t)sd->ucount);
	MPI_Datatype dt = sd->types ? sd->types[k] : sd->dt;
	char *b = (char *)sd->buf + (sd->same ? 0 : sd->types ? coll_v_displ(v, k, 0) :
		  coll_v_displ(v, k, (size_t)sd->ucount) * michi_dt_extent(dt));

	*len = coll_bytes(dt, cnt);
	*p = b;
	if (coll_contig(dt) || !cnt)
		return 0;
	if (!(*p = coll_sched_tmp(s, *len)))
		return -1;
	if (!u && !*pk && !(*pk = unstage_new(s, n, 1)))   /* first: before the algorithm */
		return -1;
	return unstage_add(s, u ? u : *pk, b, *p, cnt, dt);
}

static int neighbor_common(MPI_Comm comm, const struct nbr_side *snd, const struct nbr_side *rcv,
			   MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int nin, nout, cart, i, err;
	struct unstage *u, *pk = NULL;
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
	    !(u = unstage_new(s, nin, 0)))
		goto go;
	out = in + nin;
	ptrs = (char **)(lens + nin + nout + 1);
	michi_topo_neighbors(c, &nin, &nout, in, out);
	/* MPI_PROC_NULL neighbours move nothing: their blocks stay as they are */
	for (i = 0; i < nin; i++)
		if (in[i] != MPI_PROC_NULL && nbr_block(s, rcv, i, nin, NULL, u, &ptrs[i], &lens[i]))
			goto go;
	for (i = 0; i < nout; i++)
		if (out[i] != MPI_PROC_NULL &&
		    nbr_block(s, snd, i, nout, &pk, NULL, &ptrs[nin + i], &lens[nin + i]))
			goto go;
	if (!coll_build_neighbor(s, nin, in, ptrs, lens, nout, out,
				 (const char *const *)ptrs + nin, lens + nin, cart))
		unstage_finish(s, u);
go:
	return coll_go(c, s, request, nb, fname);
}

#define NBR_SEND_ONE(b, n, t) { .buf = (b), .ucount = (n), .dt = (t), .same = 1 }
#define NBR_BLOCKS(b, n, t) { .buf = (b), .ucount = (n), .dt = (t) }
#define NBR_V(b, cs, ds, t, w) { .buf = (b), .v = COLL_V(cs, ds, w), .dt = (t) }
/* the w forms' displacements are MPI_Aint in both forms */
#define NBR_W(b, cs, ds, ts, w) { .buf = (b), .v = { (cs), (ds), (w), 1 }, .types = (ts) }

static int nbr_v_arrays(MPI_Comm comm, const void *sc, const void *sd, const void *rc,
			const void *rd, const char *fname)
{
	if (ERRCHK && (!sc || !sd || !rc || !rd))
		return michi_err_null(michi_comm_get(comm), fname, !sc ? "sendcounts" :
				      !sd ? "sdispls" : !rc ? "recvcounts" : "rdispls");
	return MPI_SUCCESS;
}

int nbr_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
		  MPI_Request *request, int nb, const char *fname)
{
	struct nbr_side s = NBR_SEND_ONE(sendbuf, sendcount, sendtype),
			r = NBR_BLOCKS(recvbuf, recvcount, recvtype);

	return neighbor_common(comm, &s, &r, request, nb, fname);
}

int nbr_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		   void *recvbuf, const void *recvcounts, const void *displs, int wide,
		   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int nb,
		   const char *fname)
{
	struct nbr_side s = NBR_SEND_ONE(sendbuf, sendcount, sendtype),
			r = NBR_V(recvbuf, recvcounts, displs, recvtype, wide);

	if (ERRCHK && (!recvcounts || !displs))
		return michi_err_null(michi_comm_get(comm), fname,
				      !recvcounts ? "recvcounts" : "displs");
	return neighbor_common(comm, &s, &r, request, nb, fname);
}

int nbr_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
		 MPI_Request *request, int nb, const char *fname)
{
	struct nbr_side s = NBR_BLOCKS(sendbuf, sendcount, sendtype),
			r = NBR_BLOCKS(recvbuf, recvcount, recvtype);

	return neighbor_common(comm, &s, &r, request, nb, fname);
}

int nbr_alltoallv(const void *sendbuf, const void *sendcounts, const void *sdispls,
		  MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
		  const void *rdispls, int wide, MPI_Datatype recvtype, MPI_Comm comm,
		  MPI_Request *request, int nb, const char *fname)
{
	struct nbr_side s = NBR_V(sendbuf, sendcounts, sdispls, sendtype, wide),
			r = NBR_V(recvbuf, recvcounts, rdispls, recvtype, wide);
	int err = nbr_v_arrays(comm, sendcounts, sdispls, recvcounts, rdispls, fname);

	return err ? err : neighbor_common(comm, &s, &r, request, nb, fname);
}

int nbr_alltoallw(const void *sendbuf, const void *sendcounts, const MPI_Aint *sdispls,
		  const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
		  const MPI_Aint *rdispls, const MPI_Datatype *recvtypes, int wide,
		  MPI_Comm comm, MPI_Request *request, int nb, const char *fname)
{
	struct nbr_side s = NBR_W(sendbuf, sendcounts, sdispls, sendtypes, wide),
			r = NBR_W(recvbuf, recvcounts, rdispls, recvtypes, wide);
	int err = nbr_v_arrays(comm, sendcounts, sdispls, recvcounts, rdispls, fname);

	if (!err && ERRCHK && (!sendtypes || !recvtypes))
		err = michi_err_null(michi_comm_get(comm), fname,
				     !sendtypes ? "sendtypes" : "recvtypes");
	return err ? err : neighbor_common(comm, &s, &r, request, nb, fname);
}

/* ---- the neighbourhood collectives' int forms ---------------------------------- */

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			     NULL, COLL_BLOCKING, "MPI_Neighbor_allgather");
}

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			     MPI_Request *request)
{
	return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			     request, COLL_NB, "MPI_Ineighbor_allgather");
}

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			     void *recvbuf, const int recvcounts[], const int displs[],
			     MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
			      recvtype, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_allgatherv");
}

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			      void *recvbuf, const int recvcounts[], const int displs[],
			      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
			      recvtype, comm, request, COLL_NB, "MPI_Ineighbor_allgatherv");
}

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL,
			    COLL_BLOCKING, "MPI_Neighbor_alltoall");
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			    MPI_Request *request)
{
	return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			    request, COLL_NB, "MPI_Ineighbor_alltoall");
}

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
			    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
			    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
			     0, recvtype, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_alltoallv");
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
			     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
			     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
			     MPI_Request *request)
{
	return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
			     0, recvtype, comm, request, COLL_NB, "MPI_Ineighbor_alltoallv");
}

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
			    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
			    MPI_Comm comm)
{
	return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
			     recvtypes, 0, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_alltoallw");
}

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
			     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
			     MPI_Comm comm, MPI_Request *request)
{
	return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
			     recvtypes, 0, comm, request, COLL_NB, "MPI_Ineighbor_alltoallw");
}

