/* SPDX-License-Identifier: MIT */
/*
 * coll/allreduce_flat.c: flat allreduce for small messages on a few
 * ranks of one host. Every rank sends its input to rank 0 and waits for
 * the result; rank 0 combines the inputs in rank order (so any op, not
 * only commutative ones, gives the same bits everywhere) and sends the
 * result back. Each rank runs once per call: when ranks outnumber the
 * cores, a core switches between its ranks about twice per call instead
 * of once per round of recursive doubling, which is where the time goes.
 */
#include "schedule.h"

int coll_build_allreduce_flat(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count)
{
	int n = s->c.size, i;
	size_t len = count * s->op.extent;
	char *in;

	if (sbuf && coll_sched_copy(s, sbuf, rbuf, len))
		return -1;
	if (n == 1)
		return 0;
	if (s->c.rank != 0) {
		if (coll_sched_send(s, rbuf, len, 0))
			return -1;
		coll_sched_fence(s);
		return coll_sched_recv(s, rbuf, len, 0);
	}
	/* every input at once, then x0 op (x1 op (... op x(n-1))) */
	if (!(in = coll_sched_tmp(s, (size_t)(n - 1) * len)))
		return -1;
	for (i = 1; i < n; i++)
		if (coll_sched_recv(s, in + (size_t)(i - 1) * len, len, i))
			return -1;
	coll_sched_fence(s);
	for (i = n - 2; i >= 1; i--)
		if (coll_sched_reduce(s, in + (size_t)(i - 1) * len, in + (size_t)(n - 2) * len,
				      count))
			return -1;
	if (coll_sched_reduce(s, rbuf, in + (size_t)(n - 2) * len, count) ||
	    coll_sched_copy(s, in + (size_t)(n - 2) * len, rbuf, len))
		return -1;
	for (i = 1; i < n; i++)
		if (coll_sched_send(s, rbuf, len, i))
			return -1;
	return 0;
}
