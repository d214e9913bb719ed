/* SPDX-License-Identifier: MIT */
/*
 * coll/barrier_flat.c: flat barrier for a few ranks of one host. Every
 * rank signals rank 0 and waits for its answer, which comes once all have
 * signalled: two messages per rank and each rank runs once per call,
 * where the dissemination barrier wakes every rank once per round. When
 * ranks outnumber the cores, the switches between them are the cost. The
 * two halves also serve the node-aware barrier (coll/barrier_hier.c).
 */
#include "schedule.h"

static char dummy;

int coll_fan_in(struct coll_sched *s)
{
	int i;

	if (s->c.rank != 0)
		return coll_sched_send(s, &dummy, 0, 0);
	for (i = 1; i < s->c.size; i++)
		if (coll_sched_recv(s, &dummy, 0, i))
			return -1;
	return 0;
}

int coll_fan_out(struct coll_sched *s)
{
	int i;

	if (s->c.rank != 0)
		return coll_sched_recv(s, &dummy, 0, 0);
	for (i = 1; i < s->c.size; i++)
		if (coll_sched_send(s, &dummy, 0, i))
			return -1;
	return 0;
}

int coll_build_barrier_flat(struct coll_sched *s)
{
	if (coll_fan_in(s))
		return -1;
	coll_sched_fence(s);
	return coll_fan_out(s);
}
