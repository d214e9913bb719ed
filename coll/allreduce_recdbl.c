/* SPDX-License-Identifier: MIT */
/*
 * coll/allreduce_recdbl.c: recursive-doubling allreduce. With p the
 * largest power of two <= n and r = n - p, the first 2r ranks pair up and
 * each even one hands its data to the odd one, leaving p participants;
 * those exchange and combine with partners at distance 1, 2, 4 ...
 * (log2 p rounds), and the odd ranks finally hand the result back to
 * their even partners. The participants' numbering keeps rank order and
 * each combination puts the lower rank's operand first, so an op that does
 * not commute is reduced in rank order too, and both partners of a round
 * compute the same bits.
 */
#include "schedule.h"

/*
 * The fold both allreduce builders start with: the input into rbuf, and
 * with p the largest power of two <= n and r = n - p, each even rank of
 * the first 2r hands its data to the odd one after it (which folds it in
 * through spare) and takes the result back at the end. Returns 1 when
 * this rank's part is complete, 0 with *vr its number among the p that
 * go on, -1 out of memory.
 */
int coll_fold_in(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count, char *spare,
		 int *p_out, int *r_out, int *vr)
{
	int n = s->c.size, rank = s->c.rank, p = 1, r;
	size_t len = count * s->op.extent;

	if (sbuf && coll_sched_copy(s, sbuf, rbuf, len))
		return -1;
	while (p * 2 <= n)
		p *= 2;
	r = n - p;
	*p_out = p;
	*r_out = r;
	*vr = rank >= 2 * r ? rank - r : rank / 2;
	if (n == 1 || rank >= 2 * r)
		return n == 1;
	if (rank % 2 == 0) {
		if (coll_sched_send(s, rbuf, len, rank + 1))
			return -1;
		coll_sched_fence(s);
		return coll_sched_recv(s, rbuf, len, rank + 1) ? -1 : 1;
	}
	if (coll_sched_recv(s, spare, len, rank - 1))
		return -1;
	coll_sched_fence(s);
	return coll_sched_reduce(s, spare, rbuf, count) ? -1 : 0;   /* (rank - 1) op mine */
}

int coll_build_allreduce_recdbl(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count)
{
	int rank = s->c.rank, p, r, vr, mask, done;
	size_t len = count * s->op.extent;
	char *acc = rbuf, *spare;

	if (!(spare = coll_sched_tmp(s, len)))
		return -1;
	if ((done = coll_fold_in(s, sbuf, rbuf, count, spare, &p, &r, &vr)))
		return done < 0 ? -1 : 0;
	for (mask = 1; mask < p; mask <<= 1) {
		int vpeer = vr ^ mask;
		int peer = vpeer < r ? vpeer * 2 + 1 : vpeer + r;

		if (coll_sched_recv(s, spare, len, peer) || coll_sched_send(s, acc, len, peer))
			return -1;
		coll_sched_fence(s);
		if (coll_sched_fold(s, &acc, &spare, count, vpeer < vr))
			return -1;
	}
	if (coll_sched_copy(s, acc, rbuf, len))
		return -1;
	if (rank < 2 * r)
		return coll_sched_send(s, rbuf, len, rank - 1);
	return 0;
}
