/* SPDX-License-Identifier: MIT */
/*
 * coll/allgather_recdbl.c: recursive-doubling allgather for a power-of-two
 * number of ranks and blocks of one size. In round k a rank and its
 * partner rank ^ 2^k trade the 2^k blocks each already holds, which lie
 * next to each other in the receive buffer, so after log2 n rounds every
 * rank has all blocks and no copy was needed.
 */
#include "schedule.h"

int coll_build_allgather_recdbl(struct coll_sched *s, const void *sbuf, void *rbuf, size_t blen)
{
	int rank = s->c.rank, mask;
	char *rb = rbuf;

	if (sbuf && coll_sched_copy(s, sbuf, rb + (size_t)rank * blen, blen))
		return -1;
	for (mask = 1; mask < s->c.size; mask <<= 1) {
		int peer = rank ^ mask;
		size_t mine = (size_t)(rank & ~(mask - 1)) * blen;
		size_t theirs = (size_t)(peer & ~(mask - 1)) * blen;

		if (coll_sched_recv(s, rb + theirs, (size_t)mask * blen, peer) ||
		    coll_sched_send(s, rb + mine, (size_t)mask * blen, peer))
			return -1;
		coll_sched_fence(s);
	}
	return 0;
}
