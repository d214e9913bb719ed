/* SPDX-License-Identifier: MIT */
/*
 * coll/allgather_wan.c: grid-aware allgather(v) over P lanes; every byte
 * crosses the wide-area network once. Rank j of a site (lane order)
 * hands its block to lane j mod P of its site; lane k of every site then
 * allgathers, across the sites, the runs of blocks their lane k holds,
 * all P lanes at once; each site allgathers the P lanes' results, and
 * every rank puts the blocks in rank order.
 *
 * The lanes work in a staging buffer laid out lane by lane, site by site
 * within a lane, and in lane order within a site (every rank computes the
 * same layout from the sites and the counts, which MPI gives every rank),
 * so that each phase moves contiguous runs; the price is a copy of the
 * result on every rank.
 */
#include "schedule.h"

int coll_build_allgather_wan(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			     const struct coll_v *v, size_t ucount, size_t extent)
{
	const struct coll_sites *ss = s->c.sites;
	int n = s->c.size, rank = s->c.rank, S = ss->nsites, me = ss->mysite, lane = ss->lane;
	int p, k, t, j, i, ns = ss->first[me + 1] - ss->first[me];
	size_t total = 0, cur = 0, mylen, *off, *pos, *cut;
	char *own = coll_block(rbuf, v, ucount, extent, rank, &mylen), *stage;
	const char *mine = sbuf ? sbuf : own;
	int64_t *cc;
	intptr_t *cd;
	struct coll_v lv, *sv;

	if (sbuf && slen != mylen) {
		s->error = michi_err(MICHI_ERR_TRUNCATE, "rank %d sends %zu bytes but its block "
				     "holds %zu", rank, slen, mylen);
		return -1;
	}
	for (i = 0; i < n; i++)
		total += coll_v_count(v, i, ucount) * extent;
	p = coll_wan_lanes(ss, total);
	off = coll_sched_tmp(s, ((size_t)n + (size_t)p * S + 1 + (size_t)p + 1) * sizeof(size_t));
	cc = coll_sched_tmp(s, (size_t)S * (sizeof(*cc) + sizeof(*cd)));
	stage = coll_sched_tmp(s, total);
	if (!off || !cc || !stage)
		return -1;
	pos = off + n;          /* run (k, t) starts at pos[k * S + t] */
	cut = pos + (size_t)p * S + 1;   /* lane k's runs start at cut[k] */
	cd = (intptr_t *)(cc + S);
	for (k = 0; k < p; k++) {
		cut[k] = cur;
		for (t = 0; t < S; t++) {
			pos[k * S + t] = cur;
			for (j = k; j < ss->first[t + 1] - ss->first[t]; j += p) {
				i = ss->members[ss->first[t] + j];
				off[i] = cur;
				cur += coll_v_count(v, i, ucount) * extent;
			}
		}
	}
	pos[p * S] = cut[p] = cur;
	if (coll_sched_sites(s, p))
		return -1;

	/* the blocks of the site to its lanes */
	if (lane >= p) {
		if (coll_sched_send(s, mine, mylen, lane % p))
			return -1;
	} else {
		if (coll_sched_copy(s, mine, stage + off[rank], mylen))
			return -1;
		for (j = lane + p; j < ns; j += p) {
			size_t l;

			i = ss->members[ss->first[me] + j];
			l = coll_v_count(v, i, ucount) * extent;
			if (coll_sched_recv(s, stage + off[i], l, j))
				return -1;
		}
	}
	coll_sched_fence(s);

	/* lane k across the sites: site t's run of lane k's blocks */
	if (lane < p) {
		for (t = 0; t < S; t++) {
			cc[t] = (int64_t)(pos[lane * S + t + 1] - pos[lane * S + t]);
			cd[t] = (intptr_t)(pos[lane * S + t] - cut[lane]);
		}
		lv.counts = cc;
		lv.displs = cd;
		lv.wide_counts = lv.wide_displs = 1;
		coll_sched_switch(s);
		if (coll_build_allgather(s, NULL, 0, stage + cut[lane], &lv, 1, 1))
			return -1;
		coll_sched_fence(s);
		coll_sched_switch(s);
	}

	/* the lanes' results to the whole site, then into rank order */
	if (p == 1) {
		if (coll_build_bcast(s, stage, total, 0))
			return -1;
	} else {
		if (!(sv = coll_wan_lane_v(s, cut, p, ns)) ||
		    coll_build_allgather(s, NULL, 0, stage, sv, 1, 1))
			return -1;
	}
	coll_sched_fence(s);
	for (i = 0; i < n; i++) {
		size_t l;
		char *dst = coll_block(rbuf, v, ucount, extent, i, &l);

		if (coll_sched_copy(s, stage + off[i], dst, l))
			return -1;
	}
	return 0;
}
