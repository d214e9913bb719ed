/* SPDX-License-Identifier: MIT */
/*
 * coll/allreduce_flat.c: flat allreduce for small messages on a few
 * ranks of one host: a flat reduction to rank 0 (coll/reduce_flat.c, in
 * rank order, so any op gives the same bits everywhere), then rank 0
 * sends the result to every rank. Each rank runs once per call: when
 * ranks outnumber the cores, a core switches between its ranks about
 * twice per call instead of once per round of recursive doubling, which
 * is where the time goes.
 */
#include "schedule.h"

int coll_build_allreduce_flat(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count)
{
	int n = s->c.size, i;
	size_t len = count * s->op.extent;

	if (coll_build_reduce_flat(s, sbuf, rbuf, count, 0))
		return -1;
	if (n == 1)
		return 0;
	coll_sched_fence(s);
	if (s->c.rank != 0)
		return coll_sched_recv(s, rbuf, len, 0);
	for (i = 1; i < n; i++)
		if (coll_sched_send(s, rbuf, len, i))
			return -1;
	return 0;
}
