/* SPDX-License-Identifier: MIT */
/*
 * coll/reduce_wan.c: grid-aware reduce and allreduce, for ops that
 * commute (MagPIe's: reduce inside the sites, cross the wide-area network
 * once), with P lanes for large vectors. The vector is cut into P parts;
 * each site reduce-scatters it so that lane k holds the site's reduction
 * of part k; lane k of every site then reduces (to the root's site) or
 * allreduces its part across the sites, all P lanes at once; the root
 * collects the parts from its site's lanes, or (allreduce) each site
 * allgathers them. With one lane these are a reduction to the site's
 * first rank, the sites' reduce or allreduce among those, and a send to
 * the root or the site's broadcast.
 *
 * An op that does not commute is left to the other algorithms (their
 * rows keep rank order): a site's ranks are neither consecutive in the
 * communicator nor in rank order within the site.
 */
#include "schedule.h"

/* Lanes for count elements; 0 when there is nothing to do. */
static int lanes_for(struct coll_sched *s, size_t count)
{
	int p = coll_wan_lanes(s->c.sites, count * s->op.extent);

	return count < (size_t)p ? (int)count : p;
}

/* Inside the site: part k of in reduced into acc at lane k (p > 1). */
static int to_lanes(struct coll_sched *s, const void *in, char *acc, const struct coll_v *v)
{
	return coll_build_reduce_scatter(s, in, acc, v, 0);
}

int coll_build_reduce_wan(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			  int root)
{
	const struct coll_sites *ss = s->c.sites;
	int rsite = ss->site[root], rlane = ss->lane_of[root], ours = ss->mysite == rsite;
	int lane = ss->lane, isroot = s->c.rank == root, p = lanes_for(s, count), k;
	size_t ext = s->op.extent, *cut;
	const void *in = sbuf ? sbuf : rbuf;   /* in place only at the root */
	struct coll_v *v;
	char *acc, *out = rbuf;

	if (!p)
		return 0;
	if (!(cut = coll_wan_bounds(s, count, p)) || coll_sched_sites(s, p) ||
	    !(v = coll_wan_lane_v(s, cut, p, s->c.size)))
		return -1;
	if (p == 1) {
		if (lane != 0)
			acc = NULL;
		else if (isroot)
			acc = rbuf;
		else if (!(acc = coll_sched_tmp(s, count * ext)))
			return -1;
		if (coll_build_reduce(s, lane == 0 && isroot ? sbuf : in, acc, count, 0))
			return -1;
	} else {
		if (!(acc = coll_sched_tmp(s, lane < p ? (cut[lane + 1] - cut[lane]) * ext : 1)) ||
		    to_lanes(s, in, acc, v))
			return -1;
	}
	coll_sched_fence(s);
	if (lane < p) {
		size_t c = cut[lane + 1] - cut[lane];

		coll_sched_switch(s);
		if (coll_build_reduce(s, ours ? NULL : acc, acc, c, rsite))
			return -1;
		coll_sched_fence(s);
		coll_sched_switch(s);
	}
	if (!ours)
		return 0;
	if (isroot) {
		for (k = 0; k < p; k++) {
			if (k == lane) {
				if (coll_sched_copy(s, acc, out + cut[k] * ext,
						    (cut[k + 1] - cut[k]) * ext))
					return -1;
			} else if (coll_sched_recv(s, out + cut[k] * ext,
						   (cut[k + 1] - cut[k]) * ext, k)) {
				return -1;
			}
		}
		return 0;
	}
	if (lane < p)
		return coll_sched_send(s, acc, (cut[lane + 1] - cut[lane]) * ext, rlane);
	return 0;
}

int coll_build_allreduce_wan(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count)
{
	int lane = s->c.sites->lane, p = lanes_for(s, count);
	size_t ext = s->op.extent, *cut;
	struct coll_v *v;
	char *acc, *out = rbuf;

	if (!p)
		return 0;
	if (!(cut = coll_wan_bounds(s, count, p)) || coll_sched_sites(s, p) ||
	    !(v = coll_wan_lane_v(s, cut, p, s->c.size)))
		return -1;
	if (p == 1) {
		/* lane 0 reduces into rbuf (in place: its input is there) */
		if (coll_build_reduce(s, lane ? (sbuf ? sbuf : rbuf) : sbuf, rbuf, count, 0))
			return -1;
		coll_sched_fence(s);
		if (lane == 0) {
			coll_sched_switch(s);
			if (coll_build_allreduce(s, NULL, rbuf, count))
				return -1;
			coll_sched_fence(s);
			coll_sched_switch(s);
		}
		return coll_build_bcast(s, rbuf, count * ext, 0);
	}
	if (!(acc = coll_sched_tmp(s, lane < p ? (cut[lane + 1] - cut[lane]) * ext : 1)) ||
	    to_lanes(s, sbuf ? sbuf : rbuf, acc, v))
		return -1;
	coll_sched_fence(s);
	if (lane < p) {
		size_t c = cut[lane + 1] - cut[lane];

		coll_sched_switch(s);
		if (coll_build_allreduce(s, NULL, acc, c))
			return -1;
		coll_sched_fence(s);
		coll_sched_switch(s);
		if (coll_sched_copy(s, acc, out + cut[lane] * ext, c * ext))
			return -1;
	}
	return coll_build_allgather(s, NULL, 0, rbuf, v, 1, ext);
}
