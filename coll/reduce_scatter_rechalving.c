/* SPDX-License-Identifier: MIT */
/*
 * coll/reduce_scatter_rechalving.c: reduce-scatter(_block) by recursive
 * halving, for commutative ops (MPICH's choice for short and medium
 * vectors, after Thakur, Rabenseifner and Gropp). With p the largest power
 * of two <= n and r = n - p, each even rank of the first 2r hands its
 * whole vector to the odd one after it and sits out; participant v then
 * stands for ranks 2v and 2v + 1 (v < r) or v + r, and its block is theirs
 * together, which lie next to each other. In log2 p rounds a participant
 * keeps half of its window of blocks, sends its partner the other half
 * and reduces the half it gets, ending with its own block reduced; an odd
 * rank of the fold finally sends its even partner that one's block. Each
 * rank sends and reduces about len bytes in log2 p + 2 steps, against the
 * pairwise exchange's n - 1. Blocks may have any counts, zero included.
 */
#include "schedule.h"

int coll_build_reduce_scatter_rechalving(struct coll_sched *s, const void *sbuf, void *rbuf,
					 const struct coll_v *cv, size_t ucount)
{
	int n = s->c.size, rank = s->c.rank, p, r, vr, v, done;
	size_t ext = s->op.extent, total = 0, mine, *displs, *bound;
	const void *in = sbuf ? sbuf : rbuf;   /* in place: the input is in rbuf */
	char *acc, *tmp;
	int i;

	if (!(displs = coll_sched_tmp(s, (size_t)(n + 1) * sizeof(*displs))))
		return -1;
	for (i = 0; i < n; i++) {
		displs[i] = total;
		total += coll_v_count(cv, i, ucount);
	}
	displs[n] = total;
	mine = displs[rank + 1] - displs[rank];
	if (n == 1)
		return coll_sched_copy(s, in, rbuf, mine * ext);
	if (!(tmp = coll_sched_tmp(s, 2 * total * ext)))
		return -1;
	acc = tmp + total * ext;
	if ((done = coll_fold_pairs(s, &in, acc, tmp, total, 0, &p, &r, &vr)) < 0)
		return -1;
	if (done) {   /* sat out: my block comes back from my partner */
		coll_sched_fence(s);
		return mine ? coll_sched_recv(s, rbuf, mine * ext, rank + 1) : 0;
	}
	if (!(bound = coll_sched_tmp(s, (size_t)(p + 1) * sizeof(*bound))))
		return -1;
	for (v = 0; v < p; v++)
		bound[v] = displs[v < r ? 2 * v : v + r];
	bound[p] = total;
	if (coll_rechalve(s, in, acc, tmp, bound, p, r, 0, vr))
		return -1;
	if (rank < 2 * r) {
		size_t cnt = displs[rank] - displs[rank - 1];

		if (cnt && coll_sched_send(s, acc + displs[rank - 1] * ext, cnt * ext, rank - 1))
			return -1;
	}
	return coll_sched_copy(s, acc + displs[rank] * ext, rbuf, mine * ext);
}
