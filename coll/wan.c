/* SPDX-License-Identifier: MIT */
/*
 * coll/wan.c: what the grid-aware algorithms (coll/<name>_wan.c) share: the
 * number of lanes a call uses, the two views of a schedule over sites
 * (coll_sched_sites) and the cut of a buffer into one part per lane.
 *
 * A lane is a pair (or, with more sites, a group) of ranks in different
 * sites with the same index in their sites' lane order (struct
 * coll_sites): lane k of every site. The algorithms move their data
 * inside each site to the lanes they use, cross the wide-area network
 * once over all those lanes at the same time, and spread it inside each
 * site: one node pair cannot fill a wide-area path (GRID.md §1.1), P of
 * them together can.
 */
#include "schedule.h"

/*
 * The number of lanes. Paper A's path (GRID.md §1.8) has b_LAN : B_WAN :
 * b_WAN(1) = 4 : 4 : 1, so 4 lanes fill it and more only add messages;
 * that is the default ceiling until the cost model (coll/lanes_model.h,
 * the Scatter/Gather work of issue 29) supplies b_WAN(P), α and L.
 * A lane carries at least coll_wan_lane_bytes, so that a small message
 * crosses whole, in one wide-area latency and one per-message overhead.
 */
static int wan_lanes;
MICHI_TUNABLE(wan_lanes, "coll_wan_lanes", MICHI_T_INT, "0", MICHI_LEVEL_TUNER,
	      "lanes (rank pairs across sites) that the grid-aware collectives use at once "
	      "(0: automatic, at most coll_wan_lanes_max and one per coll_wan_lane_bytes; "
	      "always at most the ranks of the smallest site)");
static int wan_lanes_max = 4;
MICHI_TUNABLE(wan_lanes_max, "coll_wan_lanes_max", MICHI_T_INT, "4", MICHI_LEVEL_TUNER,
	      "most lanes the automatic choice of the grid-aware collectives takes");
static size_t wan_lane_bytes = 64 * 1024;
MICHI_TUNABLE(wan_lane_bytes, "coll_wan_lane_bytes", MICHI_T_SIZE, "65536", MICHI_LEVEL_TUNER,
	      "least bytes per lane in the automatic choice of the grid-aware collectives' "
	      "lanes");

/*
 * The lanes for a call that moves `bytes` across the wide-area network,
 * the same on every rank (it depends on the sites and the call's sizes
 * only). The hook for the cost model: when the lead wires
 * coll/lanes_model.h in, the automatic branch asks it for argmin T(P)
 * over 1..pmax instead of the ceiling and the per-lane floor.
 */
int coll_wan_lanes(const struct coll_sites *ss, size_t bytes)
{
	int pmax = ss->first[1] - ss->first[0], p, i;

	for (i = 1; i < ss->nsites; i++)
		if (ss->first[i + 1] - ss->first[i] < pmax)
			pmax = ss->first[i + 1] - ss->first[i];
	if (wan_lanes > 0) {
		p = wan_lanes;
	} else {
		size_t by_size = wan_lane_bytes ? bytes / wan_lane_bytes : (size_t)pmax;

		p = wan_lanes_max;
		if (by_size < (size_t)p)
			p = (int)by_size;
	}
	if (p > pmax)
		p = pmax;
	return p < 1 ? 1 : p;
}

/* Whether the ranks of a site (comm ranks m[0..ns)) share one host: its
 * view then lets the tables choose as on one host. */
static const struct coll_hosts *site_hosts(const struct coll_hosts *h, const int *m, int ns)
{
	int i;

	if (!h)
		return NULL;
	if (h == &coll_hosts_apart)
		return ns > 1 ? &coll_hosts_apart : NULL;
	for (i = 1; i < ns; i++)
		if (h->host[m[i]] != h->host[m[0]])
			return &coll_hosts_apart;
	return NULL;
}

int coll_sched_sites(struct coll_sched *s, int lanes)
{
	const struct coll_sites *ss = s->c.sites;
	struct coll_comm site = s->c, cross = s->c;
	int me = ss->mysite, f = ss->first[me], ns = ss->first[me + 1] - f, nsites = ss->nsites;
	int lane = ss->lane, t, i, *sp, *cp;

	if (!(sp = coll_sched_tmp(s, (size_t)(ns + nsites) * sizeof(int))))
		return -1;
	cp = sp + ns;
	for (i = 0; i < ns; i++)
		sp[i] = s->c.peers[ss->members[f + i]];
	for (t = 0; t < nsites; t++)
		cp[t] = lane < lanes ? s->c.peers[ss->members[ss->first[t] + lane]] : -1;
	site.rank = lane;
	site.size = ns;
	site.peers = sp;
	site.hosts = site_hosts(s->c.hosts, ss->members + f, ns);
	site.sites = NULL;
	cross.rank = lane < lanes ? me : -1;
	cross.size = lane < lanes ? nsites : 0;
	cross.peers = cp;
	cross.hosts = &coll_hosts_apart;
	cross.sites = NULL;
	s->c = site;
	coll_sched_set_alt(s, &cross, COLL_TAG_SITES);
	return 0;
}

size_t *coll_wan_bounds(struct coll_sched *s, size_t total, int p)
{
	size_t *b = coll_sched_tmp(s, (size_t)(p + 1) * sizeof(*b));
	int k;

	if (!b)
		return NULL;
	for (k = 0; k <= p; k++)
		b[k] = total / (size_t)p * (size_t)k + total % (size_t)p * (size_t)k / (size_t)p;
	return b;
}

struct coll_v *coll_wan_lane_v(struct coll_sched *s, const size_t *bound, int p, int n)
{
	struct coll_v *v = coll_sched_tmp(s, sizeof(*v) + (size_t)n * (sizeof(int64_t) +
									  sizeof(intptr_t)));
	int64_t *counts;
	intptr_t *displs;
	int i;

	if (!v)
		return NULL;
	counts = (int64_t *)(v + 1);
	displs = (intptr_t *)(counts + n);
	for (i = 0; i < n; i++) {
		counts[i] = i < p ? (int64_t)(bound[i + 1] - bound[i]) : 0;
		displs[i] = (intptr_t)bound[i < p ? i : p];
	}
	v->counts = counts;
	v->displs = displs;
	v->wide_counts = 1;
	v->wide_displs = 1;
	return v;
}
