/* SPDX-License-Identifier: MIT */
/*
 * coll/bcast_flat.c: flat broadcast. The root starts a send to every
 * other rank at once; each of them receives once. One level deep: where
 * ranks outnumber the cores, every hop of a tree waits for its sender
 * to get a core, and the receivers pull large messages from the root's
 * buffer at the same time (shared memory's single copy).
 */
#include "schedule.h"

int coll_build_bcast_flat(struct coll_sched *s, void *buf, size_t len, int root)
{
	int n = s->c.size;

	if (s->c.rank != root)
		return coll_sched_recv(s, buf, len, root);
	for (int i = 1; i < n; i++)
		if (coll_sched_send(s, buf, len, (root + i) % n))
			return -1;
	return 0;
}
