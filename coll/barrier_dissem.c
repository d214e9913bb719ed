/* SPDX-License-Identifier: MIT */
/*
 * coll/barrier_dissem.c: the dissemination barrier (Hensgen, Finkel and
 * Manber). In round k each rank signals rank + 2^k and waits for rank -
 * 2^k; after ceil(log2 n) rounds every rank has heard, directly or
 * transitively, from every other. Works for any n, no power of two needed.
 */
#include "coll.h"
#include "mtmi.h"

michi_status_t coll_barrier_dissem(const struct coll_comm *c)
{
	struct mtmi_req sr, rr;
	michi_status_t st;
	int dist;
	char dummy;

	for (dist = 1; dist < c->size; dist <<= 1) {
		int to = (c->rank + dist) % c->size;
		int from = (c->rank - dist + c->size) % c->size;

		rr.on_complete = NULL;
		sr.on_complete = NULL;
		st = mtmi_irecv(&dummy, 0, c->peers[from], from, COLL_TAG_BARRIER, c->ctx, &rr);
		if (st < 0)
			return st;
		st = mtmi_isend(&dummy, 0, c->peers[to], c->rank, COLL_TAG_BARRIER, c->ctx,
				MTMI_MODE_STANDARD, &sr);
		if (st < 0) {
			mtmi_cancel(&rr);
			mtmi_wait(&rr);
			return st;
		}
		if (!sr.done && (st = mtmi_wait(&sr)) < 0)
			return st;
		if (!rr.done && (st = mtmi_wait(&rr)) < 0)
			return st;
		if (sr.error)
			return sr.error;
		if (rr.error)
			return rr.error;
	}
	return MICHI_OK;
}
