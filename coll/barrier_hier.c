/* SPDX-License-Identifier: MIT */
/*
 * coll/barrier_hier.c: node-aware barrier. The ranks of each host signal
 * their leader, the leaders run a barrier among the hosts, and each
 * leader then releases its host's ranks (the halves of the flat barrier,
 * coll/barrier_flat.c): one message each way per rank over shared memory
 * and what the hosts' barrier takes over the network, instead of
 * log2(ranks) rounds that mostly cross it.
 */
#include "schedule.h"

int coll_build_barrier_hier(struct coll_sched *s)
{
	int lead = coll_sched_hosts(s);

	if (coll_fan_in(s))
		return -1;
	coll_sched_fence(s);
	if (lead) {
		coll_sched_switch(s);
		if (coll_build_barrier(s))
			return -1;
		coll_sched_fence(s);
		coll_sched_switch(s);
	}
	return coll_fan_out(s);
}
