/* SPDX-License-Identifier: MIT */
/*
 * coll/reduce_scatter_pairwise.c: reduce-scatter(_block). For commutative ops,
 * pairwise: in step k a rank sends the block of rank + k to it and
 * receives its own block from rank - k, folding each into its result as
 * it arrives, so every rank sends and reduces about len bytes. An op that
 * does not commute is reduced in rank order: a binomial reduction to rank
 * 0 (coll/reduce_binomial.c), then a linear scatter of the blocks.
 */
#include "schedule.h"

int coll_build_reduce_scatter_pairwise(struct coll_sched *s, const void *sbuf, void *rbuf,
				       const struct coll_v *v, size_t ucount)
{
	int n = s->c.size, rank = s->c.rank, i, k;
	size_t ext = s->op.extent, total = 0, mine;
	const char *in = sbuf ? sbuf : rbuf;
	intptr_t *displs;
	char *acc, *tmp;

	if (!(displs = coll_sched_tmp(s, (size_t)n * sizeof(*displs))))
		return -1;
	for (i = 0; i < n; i++) {
		displs[i] = (intptr_t)total;
		total += coll_v_count(v, i, ucount);
	}
	mine = coll_v_count(v, rank, ucount);
	if (!s->op.commute) {
		char *all = NULL;
		struct coll_v packed = { v ? v->counts : NULL, displs, v ? v->wide_counts : 0, 1 };

		if (rank == 0 && !(all = coll_sched_tmp(s, total * ext)))
			return -1;
		if (coll_build_reduce_binomial(s, in, all, total, 0))
			return -1;
		coll_sched_fence(s);
		/* the blocks back to back, as the reduction left them; the
		 * schedule is built now, so packed may live on the stack */
		return coll_build_scatterv_linear(s, all, v ? &packed : NULL, ucount, ext, rbuf,
						  mine * ext, 0);
	}
	if (!(acc = coll_sched_tmp(s, 2 * mine * ext)))
		return -1;
	tmp = acc + mine * ext;
	if (coll_sched_copy(s, in + (size_t)displs[rank] * ext, acc, mine * ext))
		return -1;
	for (k = 1; k < n; k++) {
		int to = (rank + k) % n, from = (rank - k + n) % n;
		size_t tocnt = coll_v_count(v, to, ucount);

		if ((mine && coll_sched_recv(s, tmp, mine * ext, from)) ||
		    (tocnt && coll_sched_send(s, in + (size_t)displs[to] * ext, tocnt * ext, to)))
			return -1;
		coll_sched_fence(s);
		if (mine && coll_sched_reduce(s, tmp, acc, mine))
			return -1;
	}
	return coll_sched_copy(s, acc, rbuf, mine * ext);
}
