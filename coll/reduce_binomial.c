/* SPDX-License-Identifier: MIT */
/*
 * coll/reduce_binomial.c: binomial-tree reduction. With ranks renumbered
 * so the tree's root is 0, a rank folds in the partial results of vr + 1,
 * vr + 2, vr + 4 ... while those bits of vr are clear, then sends its
 * partial result to the rank that clears its lowest set bit. A rank's
 * partial result covers ranks [vr, vr + 2^k) and a child's the next
 * 2^k, so the fold "mine op child's" is in rank order when the tree is
 * rooted at rank 0: an op that does not commute is reduced that way and
 * the result then goes to the root. The operands trade buffers instead
 * of being copied (apply writes its second operand).
 */
#include "schedule.h"

int coll_build_reduce_binomial(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			       int root)
{
	int n = s->c.size, rank = s->c.rank, top = s->op.commute ? root : 0;
	int vr = (rank - top + n) % n, mask;
	size_t len = count * s->op.extent;
	const void *mine = sbuf ? sbuf : rbuf;   /* in place: the root's input is in rbuf */
	char *acc, *spare, *t;

	if (n == 1)
		return coll_sched_copy(s, mine, rbuf, len);
	/* a leaf sends its input as it is */
	if (vr & 1) {
		if (coll_sched_send(s, mine, len, (vr - 1 + top) % n))
			return -1;
		if (rank == root) {   /* not commutative, root a leaf of rank 0's tree */
			coll_sched_fence(s);
			return coll_sched_recv(s, rbuf, len, 0);
		}
		return 0;
	}
	if (!(t = coll_sched_tmp(s, 2 * len)))
		return -1;
	acc = rank == top && rank == root ? rbuf : t;
	spare = t + (acc == t ? len : 0);
	if (coll_sched_copy(s, mine, acc, len))
		return -1;
	for (mask = 1; mask < n; mask <<= 1) {
		if (vr & mask) {
			if (coll_sched_send(s, acc, len, (vr - mask + top) % n))
				return -1;
			break;
		}
		if (vr + mask < n) {
			if (coll_sched_recv(s, spare, len, (vr + mask + top) % n))
				return -1;
			coll_sched_fence(s);
			/* mine op child's (any order if the op commutes) */
			if (coll_sched_fold(s, &acc, &spare, count, 0))
				return -1;
		}
	}
	if (rank == top && rank == root)
		return coll_sched_copy(s, acc, rbuf, len);
	if (rank == top) {   /* rank 0 of an op that does not commute */
		coll_sched_fence(s);
		return coll_sched_send(s, acc, len, root);
	}
	if (rank == root) {
		coll_sched_fence(s);
		return coll_sched_recv(s, rbuf, len, 0);
	}
	return 0;
}
