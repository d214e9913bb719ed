/* SPDX-License-Identifier: MIT */
/*
 * coll/p2p.c: the blocking forms the rest of the core uses (context ids,
 * topologies, the intercommunicator leaders' exchange): each builds a
 * schedule and runs it to the end.
 */
#include "schedule.h"

/* Build with `build` and run; an error while building is the schedule's. */
#define RUN_BLOCKING(c, tag, op, build) do { \
	struct coll_sched *s_ = coll_sched_new(c, tag, op); \
	if (!s_) \
		return michi_err(MICHI_ERR_NOMEM, "no memory for a collective's schedule"); \
	(void)(build); \
	return coll_sched_run(s_); \
} while (0)

michi_status_t coll_allreduce_recdbl(const struct coll_comm *c, const void *sbuf, void *rbuf,
				     size_t count, const struct coll_op *op)
{
	RUN_BLOCKING(c, COLL_TAG_ALLREDUCE, op,
		     coll_build_allreduce_recdbl(s_, sbuf, rbuf, count));
}

michi_status_t coll_allgatherv_ring(const struct coll_comm *c, const void *sbuf, size_t slen,
				    void *rbuf, const struct coll_v *v, size_t ucount,
				    size_t extent)
{
	RUN_BLOCKING(c, COLL_TAG_ALLGATHER, NULL,
		     coll_build_allgatherv_ring(s_, sbuf, slen, rbuf, v, ucount,
						extent));
}

michi_status_t coll_alltoallv_pairwise(const struct coll_comm *c, const void *sbuf,
				       const struct coll_v *sv, size_t sucount, size_t sext,
				       void *rbuf, const struct coll_v *rv, size_t rucount,
				       size_t rext)
{
	RUN_BLOCKING(c, COLL_TAG_ALLTOALL, NULL,
		     coll_build_alltoallv_pairwise(s_, sbuf, sv, sucount, sext, rbuf,
						   rv, rucount, rext));
}

/* The receive goes first, so two ranks sending to each other cannot both
 * wait in a rendezvous send. */
michi_status_t coll_sendrecv(const struct coll_comm *c, const void *sbuf, size_t slen, int to,
			     void *rbuf, size_t rlen, int from, int tag)
{
	RUN_BLOCKING(c, tag, NULL,
		     coll_sched_recv(s_, rbuf, rlen, from) || coll_sched_send(s_, sbuf, slen, to));
}
