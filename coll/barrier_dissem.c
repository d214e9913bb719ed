/* SPDX-License-Identifier: MIT */
/*
 * coll/barrier_dissem.c: the dissemination barrier (Hensgen, Finkel and
 * Manber). In round k each rank signals rank + 2^k and waits for rank -
 * 2^k; after ceil(log2 n) rounds every rank has heard, directly or
 * transitively, from every other. Works for any n, no power of two needed.
 */
#include "schedule.h"

int coll_build_barrier_dissem(struct coll_sched *s)
{
	static char dummy;
	int n = s->c.size, rank = s->c.rank, dist;

	for (dist = 1; dist < n; dist <<= 1) {
		if (coll_sched_recv(s, &dummy, 0, (rank - dist + n) % n) ||
		    coll_sched_send(s, &dummy, 0, (rank + dist) % n))
			return -1;
		coll_sched_fence(s);
	}
	return 0;
}
