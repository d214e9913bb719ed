/* SPDX-License-Identifier: MIT */
/*
 * coll/gather_binomial.c: binomial-tree gather and scatter of blocks of
 * one size, for small messages: ceil(log2 n) steps on the root's path
 * instead of n - 1 messages at the root. With ranks renumbered so the root
 * is 0, rank vr's subtree is vr .. vr + 2^k - 1 (2^k its lowest set bit),
 * whose blocks lie next to each other in renumbered order: a rank gathers
 * them in scratch (the children's all at once) and passes them up in one
 * message; the scatter passes them down. The root keeps renumbered order
 * in scratch, unless it is rank 0, whose order is the buffer's.
 */
#include "schedule.h"

/* blocks in the subtree of vr: its lowest set bit (or n), cut at n */
static int subtree(int vr, int n)
{
	int low = vr ? vr & -vr : n;

	return low < n - vr ? low : n - vr;
}

int coll_build_gather_binomial(struct coll_sched *s, const void *sbuf, void *rbuf, size_t blen,
			       int root)
{
	int n = s->c.size, rank = s->c.rank, vr = (rank - root + n) % n, mask, i;
	int own = subtree(vr, n);
	char *tmp, *rb = rbuf;

	/* rank 0 as root gathers straight into the buffer */
	if (vr == 0 && root == 0)
		tmp = rb;
	else if (!(tmp = coll_sched_tmp(s, (size_t)own * blen)))
		return -1;
	if (coll_sched_copy(s, sbuf ? sbuf : rb + (size_t)rank * blen, tmp, blen))
		return -1;
	for (mask = 1; mask < n && !(vr & mask); mask <<= 1)
		if (vr + mask < n &&
		    coll_sched_recv(s, tmp + (size_t)mask * blen,
				    (size_t)subtree(vr + mask, n) * blen, (vr + mask + root) % n))
			return -1;
	coll_sched_fence(s);
	if (vr)
		return coll_sched_send(s, tmp, (size_t)own * blen, (vr - (vr & -vr) + root) % n);
	for (i = 0; tmp != rb && i < n; i++)
		if (coll_sched_copy(s, tmp + (size_t)i * blen, rb + (size_t)((i + root) % n) * blen,
				    blen))
			return -1;
	return 0;
}

int coll_build_scatter_binomial(struct coll_sched *s, const void *sbuf, void *rbuf, size_t blen,
				int root)
{
	int n = s->c.size, rank = s->c.rank, vr = (rank - root + n) % n, mask, i;
	int own = subtree(vr, n);
	const char *sb = sbuf;
	char *tmp;

	if (vr == 0 && root == 0) {
		tmp = (char *)sb;
	} else {
		if (!(tmp = coll_sched_tmp(s, (size_t)own * blen)))
			return -1;
		if (vr == 0) {   /* renumbered order */
			for (i = 0; i < n; i++)
				if (coll_sched_copy(s, sb + (size_t)((i + root) % n) * blen,
						    tmp + (size_t)i * blen, blen))
					return -1;
		} else {
			if (coll_sched_recv(s, tmp, (size_t)own * blen,
					    (vr - (vr & -vr) + root) % n))
				return -1;
			coll_sched_fence(s);
		}
	}
	for (mask = 1; mask < n && !(vr & mask); mask <<= 1)
		;
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (vr + mask < n &&
		    coll_sched_send(s, tmp + (size_t)mask * blen,
				    (size_t)subtree(vr + mask, n) * blen, (vr + mask + root) % n))
			return -1;
	/* the root in place keeps its block where it is */
	return rbuf ? coll_sched_copy(s, tmp, rbuf, blen) : 0;
}
