/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll/coll_priv.h: what the files of the MPI collective calls share
 * (mpi/coll/coll.c and the coll_*.c beside it): the call modes, the
 * argument checks, the datatype staging, the schedule constructors and
 * the common function of each collective that its blocking, nonblocking,
 * persistent and large-count forms call. Private to mpi/coll/.
 */
#ifndef MICHI_MPI_COLL_PRIV_H
#define MICHI_MPI_COLL_PRIV_H

#include "mpiimpl.h"
#include "op.h"
#include "pt2pt.h"
#include "schedule.h"
#include "dtype.h"
#include "info.h"
#include "lanes_params.h"

/* struct coll_v reads the _c forms' arrays as int64_t and intptr_t */
_Static_assert(sizeof(MPI_Count) == sizeof(int64_t) && sizeof(MPI_Aint) == sizeof(intptr_t),
	       "MPI_Count and MPI_Aint as coll_v reads them");

/* What a call does with the schedule it built: `nb` of the common
 * functions below. */
enum coll_mode { COLL_BLOCKING, COLL_NB, COLL_PERSIST };

/* inter_reduce's `root` for the reductions without one */
#define INTER_ALLREDUCE (-4)
#define INTER_REDSCAT (-5)

/* Built: errors of the builder are the schedule's (coll_go reports them). */
#define COLL_BUILD_AND_GO(c, s, build, request, nb, fname) do { \
	if (unlikely(!(s))) \
		return michi_err_nomem(c, fname); \
	(void)(build); \
	return coll_go(c, s, request, nb, fname); \
} while (0)

/* A v form's arrays as coll_v, from an int form (wide 0) or a _c one. */
#define COLL_V(cs, ds, wide) { (cs), (ds), (wide), (wide) }

/*
 * Blocks of a derived type's data that a schedule packs into scratch when
 * it starts (data to send: a call step before the algorithm's) or
 * unpacks when it ends (data received: a call step after them). Steps,
 * so that a persistent collective does it again on every run.
 */
struct unstage_blk {
	char *user;
	char *packed;
	MPI_Count count;
	MPI_Datatype dt;
};

struct unstage {
	int n, pack;
	struct unstage_blk b[];
};

/*
 * A buffer of n blocks as the algorithms see it (coll_block): block i is
 * coll_v_count(v, i) (or ucount) elements of dt at coll_v_displ(v, i)
 * (or i * ucount) extents from buf. A type that is not contiguous is
 * replaced by its packed form in scratch, the blocks back to back: `pack`
 * adds the step that fills it (data to send, or in place), `*u` (when
 * given) gets the blocks to unpack at the end (data received). Returns
 * 0, or -1 out of memory.
 */
struct side {
	void *buf;
	const struct coll_v *v;   /* the layout: the caller's, or own */
	struct coll_v own;
	size_t unit;              /* bytes per element as laid out */
};

/* A reduction result that goes to a typed buffer after the schedule
 * (result_buf, typed_out_finish). */
struct typed_out {
	const char *scratch;
	char *packed;
	void *user;
	MPI_Count count;
	MPI_Datatype dt;
};

/* Defined in one of mpi/coll/coll*.c, used by the others. */
int coll_persist(struct michi_comm *c, struct coll_sched *s, MPI_Request *request,
		 const char *fname);
int coll_intra_only(struct michi_comm *c, const char *fname);
int coll_done(struct michi_comm *c, michi_status_t st, const char *fname);
int coll_keep_dt(struct coll_sched *s, MPI_Datatype dt);
struct coll_sched *coll_new_cc(const struct coll_comm *cc, int tag,
			       const struct coll_op *op);
struct coll_sched *coll_new(struct michi_comm *c, int tag, const struct coll_op *op);
struct coll_sched *coll_new_inter(struct michi_comm *c, int tag, const struct coll_op *op);
int coll_check_count(struct michi_comm *c, const char *fname, const char *arg,
		     MPI_Count count, MPI_Datatype dt);
int coll_check_buf(struct michi_comm *c, const char *fname, const char *arg,
		   const void *buf, MPI_Count count, MPI_Datatype dt);
int coll_check_root(struct michi_comm *c, const char *fname, int root);
int coll_err_inplace(struct michi_comm *c, const char *fname, const char *arg,
		     const char *why);
int coll_err_alias(struct michi_comm *c, const char *fname);
int v_any_count(const struct michi_comm *c, const struct coll_v *v);
int coll_check_v(struct michi_comm *c, const char *fname, const char *arg,
		 const void *buf, const struct coll_v *v, MPI_Datatype dt);
int coll_enter(struct michi_comm *c, MPI_Comm comm, MPI_Request *request, int nb,
	       const char *fname);
int coll_info_check(MPI_Comm comm, MPI_Info info, const char *fname);
size_t coll_bytes(MPI_Datatype dt, MPI_Count count);
struct unstage *unstage_new(struct coll_sched *s, int n, int pack);
int unstage_add(struct coll_sched *s, struct unstage *u, void *user, char *packed,
		MPI_Count count, MPI_Datatype dt);
void unstage_finish(struct coll_sched *s, struct unstage *u);
int side_of(struct coll_sched *s, struct side *out, const void *buf,
	    const struct coll_v *v, size_t ucount, MPI_Datatype dt, int n, int pack,
	    struct unstage **u);
int barrier_common(MPI_Comm comm, MPI_Request *request, int nb, const char *fname);
int bcast_common(void *buffer, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
		 MPI_Request *request, int nb, const char *fname);
void coll_op_of(struct coll_op *o, MPI_Op op, MPI_Datatype dt);
void *result_buf(struct coll_sched *s, void *rbuf, MPI_Count count, MPI_Datatype dt,
		 int in, struct typed_out **t);
void typed_out_finish(struct coll_sched *s, struct typed_out *t);
int coll_check_reduce(struct michi_comm *c, const char *fname, const void *sendbuf,
		      const void *recvbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
		      int receives);
int reduce_common(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
		  MPI_Op op, int root, MPI_Comm comm, MPI_Request *request, int nb,
		  const char *fname);
int allreduce_common(const void *sendbuf, void *recvbuf, MPI_Count count,
		     MPI_Datatype dt,
		     MPI_Op op, MPI_Comm comm, MPI_Request *request, int nb,
		     const char *fname);
int reduce_scatter_common(const void *sendbuf, void *recvbuf, const struct coll_v *counts,
			  MPI_Count rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
			  MPI_Request *request, int nb, const char *fname);
int scan_common(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
		MPI_Op op, MPI_Comm comm, MPI_Request *request, int nb, int exclusive,
		const char *fname);
int coll_check_rootbuf(struct michi_comm *c, const char *fname, const char *arg,
		       const void *buf, const struct coll_v *v, MPI_Count count,
		       MPI_Datatype dt);
int gather_common(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		  void *recvbuf, const struct coll_v *rv, MPI_Count recvcount,
		  MPI_Datatype recvtype, int root, int vform, MPI_Comm comm,
		  MPI_Request *request, int nb, const char *fname);
int rooted_v(MPI_Comm comm, int root, const struct coll_v *v, const char *fname,
	     const char *arg, const struct coll_v **out);
int scatter_common(const void *sendbuf, const struct coll_v *sv, MPI_Count sendcount,
		   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		   MPI_Datatype recvtype, int root, int vform, MPI_Comm comm,
		   MPI_Request *request, int nb, const char *fname);
int allgather_common(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		     void *recvbuf, const struct coll_v *rv, MPI_Count recvcount,
		     MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int nb,
		     const char *fname);
int alltoall_common(const void *sendbuf, const struct coll_v *sv, MPI_Count sendcount,
		    MPI_Datatype sendtype, void *recvbuf, const struct coll_v *rv,
		    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
		    MPI_Request *request, int nb, const char *fname);
int alltoallv_go(const void *sendbuf, const struct coll_v *sv, MPI_Datatype sendtype,
		 void *recvbuf, const struct coll_v *rv, MPI_Datatype recvtype,
		 MPI_Comm comm, MPI_Request *request, int nb, const char *fname);
int alltoallw_common(const void *sendbuf, const struct coll_v *sv,
		     const MPI_Datatype *stypes, void *recvbuf, const struct coll_v *rv,
		     const MPI_Datatype *rtypes, MPI_Comm comm, MPI_Request *request,
		     int nb, const char *fname);
int nbr_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
		  MPI_Request *request, int nb, const char *fname);
int nbr_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		   void *recvbuf, const void *recvcounts, const void *displs, int wide,
		   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int nb,
		   const char *fname);
int nbr_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
		 MPI_Request *request, int nb, const char *fname);
int nbr_alltoallv(const void *sendbuf, const void *sendcounts, const void *sdispls,
		  MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
		  const void *rdispls, int wide, MPI_Datatype recvtype, MPI_Comm comm,
		  MPI_Request *request, int nb, const char *fname);
int nbr_alltoallw(const void *sendbuf, const void *sendcounts, const MPI_Aint *sdispls,
		  const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
		  const MPI_Aint *rdispls, const MPI_Datatype *recvtypes, int wide,
		  MPI_Comm comm, MPI_Request *request, int nb, const char *fname);
int inter_bcast(struct michi_comm *c, void *buf, MPI_Count count, MPI_Datatype dt,
		int root, MPI_Request *request, int nb, const char *fname);
int inter_reduce(struct michi_comm *c, const void *sbuf, void *rbuf, MPI_Count count,
		 const struct coll_v *counts, MPI_Count rcount, MPI_Datatype dt, MPI_Op op,
		 int root, MPI_Request *request, int nb, const char *fname);
int inter_rooted(struct michi_comm *c, int gather, const void *mine, MPI_Count mcount,
		 MPI_Datatype mtype, const void *rootbuf, const struct coll_v *v,
		 MPI_Count ucount, MPI_Datatype rtype, int root, int vform,
		 MPI_Request *request, int nb, const char *fname);
int inter_allgather(struct michi_comm *c, const void *sbuf, MPI_Count scount,
		    MPI_Datatype stype, void *rbuf, const struct coll_v *v, MPI_Count rcount,
		    MPI_Datatype rtype, MPI_Request *request, int nb, const char *fname);

/* The end of every collective call: run the schedule (blocking), start
 * it behind a request (nonblocking), or keep it in one (persistent). */
static inline __attribute__((always_inline)) int coll_go(struct michi_comm *c,
							struct coll_sched *s,
							MPI_Request *request, int nb,
							const char *fname)
{
	if (nb == COLL_PERSIST)
		return coll_persist(c, s, request, fname);
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

/* Count i of a v collective's array, with its sign (for the checks). */
static inline MPI_Count v_count(const struct coll_v *v, int i)
{
	return v->wide_counts ? ((const MPI_Count *)v->counts)[i]
			      : (MPI_Count)((const int *)v->counts)[i];
}

/* 1 when count instances of dt are count * extent bytes at the buffer. */
static inline int coll_contig(MPI_Datatype dt)
{
	return likely(michi_dt_builtin_valid(dt)) || michi_dt_check(dt) == 0;
}

#endif
