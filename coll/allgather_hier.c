/* SPDX-License-Identifier: MIT */
/*
 * coll/allgather_hier.c: node-aware allgather of blocks of one size. Each
 * host gathers its ranks' blocks at its leader, the leaders allgather the
 * hosts' runs of blocks, and each leader broadcasts the whole result
 * within its host. The leaders' buffer holds the blocks host by host;
 * when the hosts' ranks are not consecutive it is copied into rank order
 * before the broadcast.
 */
#include "schedule.h"

int coll_build_allgather_hier(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			      const struct coll_v *v, size_t ucount, size_t extent)
{
	const struct coll_hosts *h = s->c.hosts;
	int n = s->c.size, rank = s->c.rank, nh = h->nhosts, lead, inorder = 1, i;
	size_t blen = ucount * extent;
	const char *mine = sbuf ? sbuf : (char *)rbuf + (size_t)rank * blen;
	int *hcounts, *hdispls;
	struct coll_v hv = { NULL, NULL, 0, 0 };   /* read while building only */
	char *all = rbuf;

	(void)slen;
	(void)v;
	for (i = 0; i < n; i++)
		inorder &= h->members[i] == i;
	lead = coll_sched_hosts(s);
	if (!lead) {
		if (coll_build_gather(s, mine, blen, NULL, NULL, ucount, extent, 0, 0))
			return -1;
		coll_sched_fence(s);
		return coll_build_bcast(s, rbuf, (size_t)n * blen, 0);
	}
	if (!inorder && !(all = coll_sched_tmp(s, (size_t)n * blen)))
		return -1;
	if (!(hcounts = coll_sched_tmp(s, 2 * (size_t)nh * sizeof(int))))
		return -1;
	hdispls = hcounts + nh;
	for (i = 0; i < nh; i++) {
		hcounts[i] = h->first[i + 1] - h->first[i];
		hdispls[i] = h->first[i];
	}
	hv.counts = hcounts;
	hv.displs = hdispls;
	if (coll_build_gather(s, mine, blen, all + (size_t)h->first[h->myhost] * blen, NULL,
			      ucount, extent, 0, 0))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	if (coll_build_allgather(s, NULL, 0, all, &hv, 1, blen))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	for (i = 0; !inorder && i < n; i++)
		if (coll_sched_copy(s, all + (size_t)i * blen, (char *)rbuf +
				    (size_t)h->members[i] * blen, blen))
			return -1;
	coll_sched_fence(s);
	return coll_build_bcast(s, rbuf, (size_t)n * blen, 0);
}
