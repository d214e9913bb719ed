/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll/coll_inter.c: the collectives on intercommunicators, called
 * by the common functions of coll_calls.c.
 * (mpi/coll/coll.c says how every collective call is built and run;
 * coll_priv.h holds what these files share).
 */
#include "coll_priv.h"

#include <stdlib.h>
#include <string.h>

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

int inter_bcast(struct michi_comm *c, void *buf, MPI_Count count, MPI_Datatype dt,
		int root, MPI_Request *request, int nb, const char *fname)
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
	    (!side_of(s, &sd, buf, NULL, (size_t)count, dt, 1, role == COLL_ROOT_SELF,
		      role == COLL_ROOT_SELF ? NULL : &u) &&
	     !coll_build_inter_bcast(s, sd.buf, (size_t)count * sd.unit, role, root)))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

/* Reduce (root >= -3), allreduce (INTER_ALLREDUCE) and reduce-scatter
 * (counts or rcount, INTER_REDSCAT) on an intercommunicator. */
int inter_reduce(struct michi_comm *c, const void *sbuf, void *rbuf, MPI_Count count,
		 const struct coll_v *counts, MPI_Count rcount, MPI_Datatype dt, MPI_Op op,
		 int root, MPI_Request *request, int nb, const char *fname)
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
		MPI_Count total = 0;

		for (i = 0; i < lsize; i++) {
			MPI_Count k = counts ? v_count(counts, i) : rcount;

			if (ERRCHK && k < 0)
				return michi_mpi_err(c, MPI_ERR_COUNT, fname,
						     "(recvcount%s[%d]=%lld): negative count",
						     counts ? "s" : "", i, (long long)k);
			total += k;
		}
		count = total;
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
		MPI_Count mine = counts ? v_count(counts, c->local->rank) : rcount;

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
	return coll_go(c, s, request, nb, fname);
}

/* Gather (gather 1) and scatter (0): `mine` is every non-root rank's
 * buffer, the root's is described by counts/displs or ucount. */
int inter_rooted(struct michi_comm *c, int gather, const void *mine, MPI_Count mcount,
		 MPI_Datatype mtype, const void *rootbuf, const struct coll_v *v,
		 MPI_Count ucount, MPI_Datatype rtype, int root, int vform,
		 MPI_Request *request, int nb, const char *fname)
{
	struct side own = { .buf = NULL }, all = { .buf = NULL };
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
	    (err = coll_check_rootbuf(c, fname, gather ? "recv" : "send", rootbuf, v, ucount,
				      rtype)))
		return err;
	if (!(s = coll_new_inter(c, gather ? COLL_TAG_GATHER : COLL_TAG_SCATTER, NULL)))
		return michi_err_nomem(c, fname);
	if (role == COLL_ROOT_NONE)
		goto go;
	if (role == COLL_ROOT_SELF
	    ? side_of(s, &all, rootbuf, v, (size_t)ucount, rtype, c->size, !gather,
		      gather ? &u : NULL)
	    : side_of(s, &own, mine, NULL, (size_t)mcount, mtype, 1, gather, gather ? NULL : &u))
		goto go;
	if (!(gather
	      ? coll_build_inter_gather(s, own.buf, (size_t)mcount * own.unit, all.buf, all.v,
					(size_t)ucount, all.unit, role, root, vform)
	      : coll_build_inter_scatter(s, all.buf, all.v, (size_t)ucount, all.unit, own.buf,
					 (size_t)mcount * own.unit, role, root, vform)))
		unstage_finish(s, u);
go:
	return coll_go(c, s, request, nb, fname);
}

int inter_allgather(struct michi_comm *c, const void *sbuf, MPI_Count scount,
		    MPI_Datatype stype, void *rbuf, const struct coll_v *v, MPI_Count rcount,
		    MPI_Datatype rtype, MPI_Request *request, int nb, const char *fname)
{
	struct side snd = { .buf = NULL }, rcv = { .buf = NULL };
	struct unstage *u = NULL;
	struct coll_sched *s;
	int err;

	if (ERRCHK && ((err = inter_no_inplace(c, sbuf, rbuf, fname)) ||
		       (err = coll_check_buf(c, fname, "send", sbuf, scount, stype)) ||
		       (err = coll_check_rootbuf(c, fname, "recv", rbuf, v, rcount, rtype))))
		return err;
	if (!(s = coll_new_inter(c, COLL_TAG_ALLGATHER, NULL)))
		return michi_err_nomem(c, fname);
	if (!side_of(s, &snd, sbuf, NULL, (size_t)scount, stype, 1, 1, NULL) &&
	    !side_of(s, &rcv, rbuf, v, (size_t)rcount, rtype, c->size, 0, &u) &&
	    !coll_build_inter_allgather(s, snd.buf, (size_t)scount * snd.unit, rcv.buf, rcv.v,
					(size_t)rcount, rcv.unit))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}
