/* SPDX-License-Identifier: MIT */
/*
 * coll/reduce_rabenseifner.c: Rabenseifner's reduce for large vectors and
 * commutative ops: a reduce-scatter by recursive halving leaves each of p
 * participants (p the largest power of two <= n) with one block of the
 * reduction, then a binomial gather brings the blocks to the root, each
 * rank receiving its subtree's blocks at once. Every rank sends and
 * reduces about len bytes instead of the binomial tree's len per level,
 * and the root receives len bytes in all. The ranks beyond p are folded
 * in first, counted from the rank before the root, so that the root is
 * always participant 0 and receives the result directly.
 */
#include "schedule.h"

int coll_build_reduce_rabenseifner(struct coll_sched *s, const void *sbuf, void *rbuf,
				   size_t count, int root)
{
	int n = s->c.size, rank = s->c.rank, p = 1, r, vr, base, mask, done;
	size_t ext = s->op.extent, len = count * ext, *bound;
	const void *in = sbuf ? sbuf : rbuf;   /* in place: the root's input is in rbuf */
	char *acc, *tmp;

	if (n == 1)
		return coll_sched_copy(s, in, rbuf, len);
	while (p * 2 <= n)
		p *= 2;
	/* the fold pairs ranks base + 2i, base + 2i + 1, and participant 0
	 * is rank base + 1 when there is a fold */
	base = (root - (n > p) + n) % n;
	if (!(tmp = coll_sched_tmp(s, rank == root ? len : 2 * len)))
		return -1;
	acc = rank == root ? rbuf : tmp + len;
	if ((done = coll_fold_pairs(s, &in, acc, tmp, count, base, &p, &r, &vr)))
		return done < 0 ? -1 : 0;
	if (!(bound = coll_even_bounds(s, count, p)) ||
	    coll_rechalve(s, in, acc, tmp, bound, p, r, base, vr))
		return -1;
	/* gather: participant vr holds blocks [vr, vr + mask) after taking
	 * those of vr + mask, vr + 2 mask ... (below its lowest set bit) */
	for (mask = 1; mask < p && !(vr & mask); mask <<= 1) {
		size_t off = bound[vr + mask], cnt = bound[vr + 2 * mask] - off;

		if (cnt && coll_sched_recv(s, acc + off * ext, cnt * ext,
					   coll_fold_real(vr + mask, r, base, n)))
			return -1;
	}
	coll_sched_fence(s);
	if (vr) {
		size_t off = bound[vr], cnt = bound[vr + mask] - off;

		return cnt ? coll_sched_send(s, acc + off * ext, cnt * ext,
					     coll_fold_real(vr - mask, r, base, n))
			   : 0;
	}
	return 0;
}
