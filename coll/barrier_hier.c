/* SPDX-License-Identifier: MIT */
/*
 * coll/barrier_hier.c: node-aware barrier. The ranks of each host signal
 * their leader, the leaders run a barrier among the hosts, and each
 * leader then releases its host's ranks: one message each way per rank
 * over shared memory and log2(hosts) rounds over the network, instead of
 * log2(ranks) rounds that mostly cross it.
 */
#include "schedule.h"

int coll_build_barrier_hier(struct coll_sched *s)
{
	static char dummy;
	int lead = coll_sched_hosts(s), n = s->c.size, i;

	if (!lead) {
		if (coll_sched_send(s, &dummy, 0, 0))
			return -1;
		coll_sched_fence(s);
		return coll_sched_recv(s, &dummy, 0, 0);
	}
	for (i = 1; i < n; i++)
		if (coll_sched_recv(s, &dummy, 0, i))
			return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	if (coll_build_barrier(s))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	for (i = 1; i < n; i++)
		if (coll_sched_send(s, &dummy, 0, i))
			return -1;
	return 0;
}
