/* SPDX-License-Identifier: MIT */
/*
 * coll/bcast_hier.c: node-aware broadcast. On the root's host the
 * message goes from the root to every rank there, its leader included;
 * that leader then broadcasts it to the other hosts' leaders, which pass
 * it on within their hosts. The message crosses the network once per
 * host, and each phase is broadcast by the algorithm its table picks for
 * that phase's ranks and size.
 */
#include "schedule.h"

int coll_build_bcast_hier(struct coll_sched *s, void *buf, size_t len, int root)
{
	const struct coll_hosts *h = s->c.hosts;
	int rhost = h->host[root], rlocal = h->lrank_of[root], ours = h->myhost == rhost;
	int lead = coll_sched_hosts(s);

	if (ours && coll_build_bcast(s, buf, len, rlocal))
		return -1;
	if (lead) {
		coll_sched_fence(s);
		coll_sched_switch(s);
		if (coll_build_bcast(s, buf, len, rhost))
			return -1;
		coll_sched_fence(s);
		coll_sched_switch(s);
	}
	return ours ? 0 : coll_build_bcast(s, buf, len, 0);
}
