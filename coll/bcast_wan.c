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
 * The crossing is pipelined with the root's hand-out: the root sends
 * each part in segments (coll_wan_segment_bytes), and lane k of its site
 * sends segment i across while it receives segment i + 1, so the root's
 * link and the wide-area path work at once. A segment stays below the
 * byte devices' eager limit: its send then completes without a
 * wide-area round trip, which a schedule's round (it ends when all its
 * messages have) would otherwise wait for, segment after segment. The
 * lanes of the root's site send to each other site's lanes themselves
 * (each remote site gets its own lanes); the receiving lanes post every
 * segment's receive at once.
 */
#include "schedule.h"

static size_t wan_segment = 32768;
MICHI_TUNABLE(wan_segment, "coll_wan_segment_bytes", MICHI_T_SIZE, "32768", MICHI_LEVEL_TUNER,
	      "segment (bytes) in which a grid-aware broadcast's parts cross sites, pipelined "
	      "with the root's hand-out to its site's lanes (0: whole parts)");

/* Part k of a broadcast, [at, at + len), in segments of at most seg. */
static size_t nsegs(size_t len, size_t seg)
{
	return seg && len > seg ? (len + seg - 1) / seg : 1;
}

static size_t seg_len(size_t len, size_t seg, size_t i)
{
	size_t m = nsegs(len, seg);

	return m == 1 ? len : i + 1 < m ? seg : len - i * seg;
}

/* Lane k of the root's site: segment i from the root (site view) while
 * segment i - 1 goes to lane k of every other site (the cross view). */
static int lane_relay(struct coll_sched *s, char *part, size_t len, size_t seg, int rlane,
		      int rsite, int have)
{
	int S = s->alt.size, t;
	size_t m = nsegs(len, seg), i;

	for (i = 0; i <= m; i++) {
		if (i < m && !have &&
		    coll_sched_recv(s, part + i * seg, seg_len(len, seg, i), rlane))
			return -1;
		if (i >= 1 || have) {
			size_t j = have ? i : i - 1;

			if (j >= m)
				break;
			coll_sched_switch(s);
			for (t = 0; t < S; t++)
				if (t != rsite && coll_sched_send(s, part + j * seg,
								  seg_len(len, seg, j), t))
					return -1;
			coll_sched_switch(s);
		}
		if (!have)
			coll_sched_fence(s);
	}
	coll_sched_fence(s);
	return 0;
}

int coll_build_bcast_wan(struct coll_sched *s, void *buf, size_t len, int root)
{
	const struct coll_sites *ss = s->c.sites;
	int rsite = ss->site[root], rlane = ss->lane_of[root], ours = ss->mysite == rsite;
	int lane = ss->lane, p = coll_wan_lanes(ss, len), k;
	size_t seg = wan_segment;
	char *b = buf;
	size_t *cut;
	struct coll_v *v;

	if (!(cut = coll_wan_bounds(s, len, p)) || coll_sched_sites(s, p))
		return -1;
	if (ours && lane == rlane) {
		/* every part's segments at once; then its own part, if it is a
		 * lane, across */
		for (k = 0; k < p; k++) {
			size_t l = cut[k + 1] - cut[k], m = nsegs(l, seg), i;

			for (i = 0; k != rlane && i < m; i++)
				if (coll_sched_send(s, b + cut[k] + i * seg, seg_len(l, seg, i), k))
					return -1;
		}
		if (lane < p && lane_relay(s, b + cut[lane], cut[lane + 1] - cut[lane], seg, rlane,
					   rsite, 1))
			return -1;
		coll_sched_fence(s);
	} else if (ours && lane < p) {
		if (lane_relay(s, b + cut[lane], cut[lane + 1] - cut[lane], seg, rlane, rsite, 0))
			return -1;
	} else if (lane < p) {
		size_t l = cut[lane + 1] - cut[lane], m = nsegs(l, seg), i;

		coll_sched_switch(s);
		for (i = 0; i < m; i++)
			if (coll_sched_recv(s, b + cut[lane] + i * seg, seg_len(l, seg, i), rsite))
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
