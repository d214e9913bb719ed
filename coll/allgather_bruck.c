/* SPDX-License-Identifier: MIT */
/*
 * coll/allgather_bruck.c: Bruck's allgather for blocks of one size, any
 * number of ranks, in ceil(log2 n) rounds. A rank gathers in scratch the
 * blocks of ranks rank, rank + 1, ... in that order: in round k it sends
 * the first min(2^k, n - 2^k) blocks it holds to rank - 2^k and appends
 * as many from rank + 2^k, which holds the blocks that follow. At the end
 * block i of the scratch is rank + i's, copied into place.
 */
#include "schedule.h"

int coll_build_allgather_bruck(struct coll_sched *s, const void *sbuf, void *rbuf, size_t blen)
{
	int n = s->c.size, rank = s->c.rank, k, i;
	char *tmp, *rb = rbuf;

	if (!(tmp = coll_sched_tmp(s, (size_t)n * blen)))
		return -1;
	if (coll_sched_copy(s, sbuf ? sbuf : rb + (size_t)rank * blen, tmp, blen))
		return -1;
	for (k = 1; k < n; k <<= 1) {
		int cnt = k < n - k ? k : n - k;

		if (coll_sched_recv(s, tmp + (size_t)k * blen, (size_t)cnt * blen, (rank + k) % n) ||
		    coll_sched_send(s, tmp, (size_t)cnt * blen, (rank - k + n) % n))
			return -1;
		coll_sched_fence(s);
	}
	for (i = 0; i < n; i++)
		if (coll_sched_copy(s, tmp + (size_t)i * blen, rb + (size_t)((rank + i) % n) * blen,
				    blen))
			return -1;
	return 0;
}
