/* SPDX-License-Identifier: MIT */
/*
 * coll/reduce_hier.c: node-aware reduction, for ops that commute (the
 * hosts' ranks need not be consecutive). Each host reduces to its leader,
 * the leaders reduce to the leader of the root's host, which hands the
 * result to the root if it is another rank: one vector per host crosses
 * the network.
 */
#include "schedule.h"

int coll_build_reduce_hier(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			   int root)
{
	const struct coll_hosts *h = s->c.hosts;
	int rhost = h->host[root], rlocal = h->lrank_of[root];
	int isroot = s->c.rank == root, lead = coll_sched_hosts(s);
	size_t len = count * s->op.extent;
	char *acc;

	if (!lead) {   /* in place only at the root: its input is in rbuf */
		if (coll_build_reduce(s, sbuf ? sbuf : rbuf, NULL, count, 0))
			return -1;
		if (!isroot)
			return 0;
		coll_sched_fence(s);
		return coll_sched_recv(s, rbuf, len, 0);
	}
	if (isroot)
		acc = rbuf;
	else if (!(acc = coll_sched_tmp(s, len)))
		return -1;
	if (coll_build_reduce(s, sbuf, acc, count, 0))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	if (coll_build_reduce(s, h->myhost == rhost ? NULL : acc, acc, count, rhost))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	if (h->myhost == rhost && rlocal != 0)
		return coll_sched_send(s, acc, len, rlocal);
	return 0;
}
