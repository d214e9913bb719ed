/* SPDX-License-Identifier: MIT */
/*
 * coll/barrier_wan.c: grid-aware barrier, one wide-area round trip at
 * most. The ranks of each site signal its first rank, those run a
 * barrier among the sites (with two sites one exchange: half a round
 * trip), and each releases its site: every other message stays inside a
 * site.
 */
#include "schedule.h"

int coll_build_barrier_wan(struct coll_sched *s)
{
	if (coll_sched_sites(s, 1) || coll_fan_in(s))
		return -1;
	coll_sched_fence(s);
	if (s->c.rank == 0) {
		coll_sched_switch(s);
		if (coll_build_barrier(s))
			return -1;
		coll_sched_fence(s);
		coll_sched_switch(s);
	}
	return coll_fan_out(s);
}
