/* SPDX-License-Identifier: MIT */
/*
 * coll/alltoall_scattered.c: alltoall(v) with the sends and receives
 * posted a batch of peers at a time: in each round a rank receives from
 * rank - i and sends to rank + i for the next `batch` values of i, so
 * every rank talks to different peers at any moment and no rank is
 * flooded, while a round keeps many messages in flight (MPICH's
 * "scattered" alltoall, whose batch its throttle tunable sets). In place,
 * the receive buffer is copied first and the copy is what gets sent.
 */
#include "schedule.h"

static int alltoall_batch = 32;
MICHI_TUNABLE(alltoall_batch, "coll_alltoall_batch", MICHI_T_INT, "32", MICHI_LEVEL_TUNER,
	      "peers a scattered alltoall sends to and receives from at once (at least 1)");

int coll_build_alltoallv_scattered(struct coll_sched *s, const void *sbuf, const struct coll_v *sv,
				   size_t sucount, size_t sext, void *rbuf, const struct coll_v *rv,
				   size_t rucount, size_t rext)
{
	int n = s->c.size, rank = s->c.rank, batch = alltoall_batch > 0 ? alltoall_batch : 1;
	int i, j;
	size_t slen, rlen;
	const char *src;
	char *dst;

	if (!sbuf) {   /* in place: send from a copy of the receive layout */
		size_t span = 0, end;
		char *copy;

		for (i = 0; i < n; i++) {
			dst = coll_block(rbuf, rv, rucount, rext, i, &rlen);
			end = (size_t)(dst - (char *)rbuf) + rlen;
			span = end > span ? end : span;
		}
		if (!(copy = coll_sched_tmp(s, span)) || coll_sched_copy(s, rbuf, copy, span))
			return -1;
		sbuf = copy;
		sv = rv;
		sucount = rucount;
		sext = rext;
	}
	src = coll_block(sbuf, sv, sucount, sext, rank, &slen);
	dst = coll_block(rbuf, rv, rucount, rext, rank, &rlen);
	if (slen != rlen) {
		s->error = michi_err(MICHI_ERR_TRUNCATE, "alltoall block to self has %zu bytes, "
				     "expected %zu", slen, rlen);
		return -1;
	}
	if (coll_sched_copy(s, src, dst, slen))
		return -1;
	for (i = 1; i < n; i += batch) {
		for (j = i; j < n && j < i + batch; j++) {
			int from = (rank - j + n) % n;

			dst = coll_block(rbuf, rv, rucount, rext, from, &rlen);
			if (coll_sched_recv(s, dst, rlen, from))
				return -1;
		}
		for (j = i; j < n && j < i + batch; j++) {
			int to = (rank + j) % n;

			src = coll_block(sbuf, sv, sucount, sext, to, &slen);
			if (coll_sched_send(s, src, slen, to))
				return -1;
		}
		coll_sched_fence(s);
	}
	return 0;
}
