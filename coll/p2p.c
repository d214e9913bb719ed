/* SPDX-License-Identifier: MIT */
/*
 * coll/p2p.c: blocking sends and receives on the collective context, the
 * steps every algorithm of coll/ is built from. The exchange posts its
 * receive first so two ranks sending to each other cannot both wait in a
 * rendezvous send. The blocking forms of the algorithms that the rest of
 * the core uses (context ids, topologies) run their schedules to the end.
 */
#include "schedule.h"

static michi_status_t coll_finish(struct mtmi_req *r)
{
	michi_status_t st;

	if (!r->done && (st = mtmi_wait(r)) < 0)
		return st;
	return r->error;
}

michi_status_t coll_send(const struct coll_comm *c, const void *buf, size_t len, int to, int tag)
{
	struct mtmi_req r;
	michi_status_t st;

	r.on_complete = NULL;
	st = mtmi_isend(buf, len, c->peers[to], c->rank, tag + c->tag_ofs, c->ctx,
			MTMI_MODE_STANDARD, &r);
	if (st < 0)
		return st;
	return coll_finish(&r);
}

michi_status_t coll_recv(const struct coll_comm *c, void *buf, size_t len, int from, int tag)
{
	struct mtmi_req r;
	michi_status_t st;

	r.on_complete = NULL;
	st = mtmi_irecv(buf, len, c->peers[from], from, tag + c->tag_ofs, c->ctx, &r);
	if (st < 0)
		return st;
	st = coll_finish(&r);
	if (st == 0 && r.count != len)
		return michi_err(MICHI_ERR_TRUNCATE, "collective message from rank %d has %zu bytes, expected %zu",
				 from, r.count, len);
	return st;
}

michi_status_t coll_sendrecv(const struct coll_comm *c, const void *sbuf, size_t slen, int to,
			     void *rbuf, size_t rlen, int from, int tag)
{
	struct mtmi_req sr, rr;
	michi_status_t st, st2;

	rr.on_complete = NULL;
	sr.on_complete = NULL;
	st = mtmi_irecv(rbuf, rlen, c->peers[from], from, tag + c->tag_ofs, c->ctx, &rr);
	if (st < 0)
		return st;
	st = mtmi_isend(sbuf, slen, c->peers[to], c->rank, tag + c->tag_ofs, c->ctx,
			MTMI_MODE_STANDARD, &sr);
	if (st < 0) {
		mtmi_cancel(&rr);
		mtmi_wait(&rr);
		return st;
	}
	st = coll_finish(&sr);
	st2 = coll_finish(&rr);
	if (st < 0)
		return st;
	if (st2 == 0 && rr.count != rlen)
		return michi_err(MICHI_ERR_TRUNCATE, "collective message from rank %d has %zu bytes, expected %zu",
				 from, rr.count, rlen);
	return st2;
}

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
				    void *rbuf, const int *counts, const int *displs,
				    size_t ucount, size_t extent)
{
	RUN_BLOCKING(c, COLL_TAG_ALLGATHER, NULL,
		     coll_build_allgatherv_ring(s_, sbuf, slen, rbuf, counts, displs, ucount,
						extent));
}

michi_status_t coll_alltoallv_pairwise(const struct coll_comm *c, const void *sbuf,
				       const int *scounts, const int *sdispls, size_t sucount,
				       size_t sext, void *rbuf, const int *rcounts,
				       const int *rdispls, size_t rucount, size_t rext)
{
	RUN_BLOCKING(c, COLL_TAG_ALLTOALL, NULL,
		     coll_build_alltoallv_pairwise(s_, sbuf, scounts, sdispls, sucount, sext, rbuf,
						   rcounts, rdispls, rucount, rext));
}
