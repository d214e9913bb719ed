/* SPDX-License-Identifier: MIT */
/*
 * coll/allreduce_hier.c: node-aware allreduce, for ops that commute. Each
 * host reduces to its leader over shared memory, the leaders allreduce
 * among the hosts, and each leader broadcasts the result within its host;
 * each phase runs the algorithm its table picks for its ranks and size.
 */
#include "schedule.h"

int coll_build_allreduce_hier(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count)
{
	int lead = coll_sched_hosts(s);

	/* the leader reduces into rbuf (in place: its input is there); the
	 * others send their input, which in place is in rbuf */
	if (coll_build_reduce(s, lead ? sbuf : sbuf ? sbuf : rbuf, rbuf, count, 0))
		return -1;
	coll_sched_fence(s);
	if (lead) {
		coll_sched_switch(s);
		if (coll_build_allreduce(s, NULL, rbuf, count))
			return -1;
		coll_sched_fence(s);
		coll_sched_switch(s);
	}
	return coll_build_bcast(s, rbuf, count * s->op.extent, 0);
}
