/* SPDX-License-Identifier: MIT */
/*
 * coll/reduce_flat.c: flat reduction for small messages on a few ranks of
 * one host. Every rank sends its input to the root, which combines them
 * in rank order, x0 op (x1 op (... op x(n-1))), so any op gives the same
 * bits as a serial loop. Each rank runs once per call: when ranks
 * outnumber the cores, that costs a core about one switch per rank
 * instead of one per round of a tree (see allreduce_flat.c).
 */
#include "schedule.h"

int coll_build_reduce_flat(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			   int root)
{
	int n = s->c.size, i;
	size_t len = count * s->op.extent;
	const char *mine = sbuf ? sbuf : rbuf;   /* in place: the root's input is in rbuf */
	char *in;

	if (s->c.rank != root)
		return coll_sched_send(s, mine, len, root);
	if (n == 1)
		return coll_sched_copy(s, mine, rbuf, len);
	/* every input in its slot, the root's own copied in (rbuf is the
	 * accumulator), then folded from the last rank down */
	if (!(in = coll_sched_tmp(s, (size_t)n * len)) ||
	    coll_sched_copy(s, mine, in + (size_t)root * len, len))
		return -1;
	for (i = 0; i < n; i++)
		if (i != root && coll_sched_recv(s, in + (size_t)i * len, len, i))
			return -1;
	coll_sched_fence(s);
	if (coll_sched_copy(s, in + (size_t)(n - 1) * len, rbuf, len))
		return -1;
	for (i = n - 2; i >= 0; i--)
		if (coll_sched_reduce(s, in + (size_t)i * len, rbuf, count))
			return -1;
	return 0;
}
