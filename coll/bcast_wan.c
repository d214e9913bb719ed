/* SPDX-License-Identifier: MIT */
/*
 * coll/bcast_wan.c: grid-aware broadcast over P lanes. The root hands
 * part k of the message (P nearly equal parts) to lane k of its site;
 * lane k broadcasts its part to lane k of every other site, all P lanes
 * crossing the wide-area network at once; then each site allgathers the
 * P parts from its lanes.
 *
 * The spread inside a site is an allgather rather than P broadcasts of
 * the parts: every rank receives each byte once and sends at most as
 * much (the ring's bandwidth term is the message once per rank), where a
 * broadcast of each part costs a binomial tree's log2(n) copies or, as a
 * scatter and allgather, two; the allgather's extra latency, one step per
 * rank of the site, is small beside a wide-area latency. With one lane
 * the spread is the site's own broadcast.
 *
 * Not pipelined: a schedule's round ends when all its messages have, so
 * sending part k segment by segment would wait a wide-area round trip
 * (the rendezvous of a large segment) per segment. The parts cross whole.
 */
#include "schedule.h"

int coll_build_bcast_wan(struct coll_sched *s, void *buf, size_t len, int root)
{
	const struct coll_sites *ss = s->c.sites;
	int rsite = ss->site[root], rlane = ss->lane_of[root], ours = ss->mysite == rsite;
	int lane = ss->lane, p = coll_wan_lanes(ss, len), k;
	char *b = buf;
	size_t *cut;
	struct coll_v *v;

	if (!(cut = coll_wan_bounds(s, len, p)) || coll_sched_sites(s, p))
		return -1;
	if (ours && lane == rlane) {
		for (k = 0; k < p; k++)
			if (k != rlane && coll_sched_send(s, b + cut[k], cut[k + 1] - cut[k], k))
				return -1;
		coll_sched_fence(s);
	} else if (ours && lane < p) {
		if (coll_sched_recv(s, b + cut[lane], cut[lane + 1] - cut[lane], rlane))
			return -1;
		coll_sched_fence(s);
	}
	if (lane < p) {
		coll_sched_switch(s);
		if (coll_build_bcast(s, b + cut[lane], cut[lane + 1] - cut[lane], rsite))
			return -1;
		coll_sched_fence(s);
		coll_sched_switch(s);
	}
	if (p == 1)   /* lane 0 (and in the root's site the root) has it all */
		return coll_build_bcast(s, buf, len, ours ? rlane : 0);
	if (!(v = coll_wan_lane_v(s, cut, p, s->c.size)))
		return -1;
	return coll_build_allgather(s, NULL, 0, buf, v, 1, 1);
}
