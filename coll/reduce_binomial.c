/* SPDX-License-Identifier: MIT */
/*
 * coll/reduce_binomial.c: binomial-tree reduction. With ranks renumbered
 * so the tree's root is 0, a rank folds in the partial results of vr + 1,
 * vr + 2, vr + 4 ... while those bits of vr are clear, then sends its
 * partial result to the rank that clears its lowest set bit. A rank's
 * partial result covers ranks [vr, vr + 2^k) and a child's the next
 * 2^k, so the fold "mine op child's" is in rank order when the tree is
 * rooted at rank 0: an op that does not commute is reduced that way and
 * the result then goes to the root.
 *
 * No copy of the input first: each child's part is received into a
 * buffer of its own and the fold "partial op child's" lands there (apply
 * writes its second operand), so the partial result starts as the input
 * itself, read in place, and the two scratch buffers take turns. The
 * root receives its last child's part straight into rbuf (unless the
 * input is there too, in place). At 1 MiB this spared an inner rank and
 * the root a 1 MiB copy each.
 */
#include "schedule.h"

int coll_build_reduce_binomial(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			       int root)
{
	int n = s->c.size, rank = s->c.rank, top = s->op.commute ? root : 0;
	int vr = (rank - top + n) % n, mask, last = 0, kids = 0;
	size_t len = count * s->op.extent;
	const void *mine = sbuf ? sbuf : rbuf;   /* in place: the root's input is in rbuf */
	const char *cur = mine;   /* the partial result so far */
	char *t = NULL;

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
	/* the children: the last one's part lands in rbuf on a root that is
	 * the tree's top (input elsewhere); the others alternate between at
	 * most two scratch buffers (one child: one buffer) */
	for (mask = 1; mask < n && !(vr & mask); mask <<= 1)
		if (vr + mask < n) {
			last = mask;
			kids++;
		}
	if (rank == top && rank == root && mine != rbuf)
		kids--;
	if (kids > 0 && !(t = coll_sched_tmp(s, (kids > 1 ? 2 : 1) * len)))
		return -1;
	for (mask = 1; mask < n; mask <<= 1) {
		if (vr & mask) {
			if (coll_sched_send(s, cur, len, (vr - mask + top) % n))
				return -1;
			break;
		}
		if (vr + mask < n) {
			char *dst = cur == t ? t + len : t;

			if (mask == last && rank == top && rank == root && mine != rbuf)
				dst = rbuf;
			if (coll_sched_recv(s, dst, len, (vr + mask + top) % n))
				return -1;
			coll_sched_fence(s);
			/* dst = mine op child's: rank order, so any op */
			if (coll_sched_reduce(s, cur, dst, count))
				return -1;
			cur = dst;
		}
	}
	if (rank == top && rank == root)
		return coll_sched_copy(s, cur, rbuf, len);   /* none when cur is rbuf */
	if (rank == top) {   /* rank 0 of an op that does not commute */
		coll_sched_fence(s);
		return coll_sched_send(s, cur, len, root);
	}
	if (rank == root) {
		coll_sched_fence(s);
		return coll_sched_recv(s, rbuf, len, 0);
	}
	return 0;
}
