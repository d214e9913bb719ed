/* SPDX-License-Identifier: MIT */
/*
 * coll/alltoall_wan.c: grid-aware alltoall of blocks of one size over P
 * lanes; every block crosses the wide-area network once, in one message
 * per lane and pair of sites. Blocks between ranks of one site go
 * straight, all at once. Rank j of a site (lane order) hands lane j mod P
 * its blocks for every other site in one message; lane k sends lane k of
 * every other site one message holding its sources' blocks for that
 * site, all lanes and sites at once; lane k of the receiving site then
 * combines, for each rank of its site, the blocks from every remote
 * source it carried into one message.
 *
 * Lanes pack and unpack with copies (blocks leave a rank in rank order
 * and are combined per site and per destination): memory is fast beside
 * the wide-area network. The v forms, whose counts only their two ends
 * know, are left to the other algorithms.
 */
#include "schedule.h"

/* how many of the ranks j < ns of a site have j mod p == k */
static int group_size(int ns, int k, int p)
{
	return ns > k ? (ns - k + p - 1) / p : 0;
}

int coll_build_alltoall_wan(struct coll_sched *s, const void *sbuf, const struct coll_v *sv,
			    size_t sucount, size_t sext, void *rbuf, const struct coll_v *rv,
			    size_t rucount, size_t rext)
{
	const struct coll_sites *ss = s->c.sites;
	int n = s->c.size, rank = s->c.rank, S = ss->nsites, me = ss->mysite, lane = ss->lane;
	int f = ss->first[me], ns = ss->first[me + 1] - f, remote = n - ns;
	int p, t, i, j, k, m, cnt, *roff;
	size_t B = rucount * rext, crossing = 0, idx;
	const char *src = sbuf;
	char *out = rbuf, *pack, *g;
	char **y, **w;

	(void)sv;
	(void)rv;
	if (sbuf && sucount * sext != B) {
		s->error = michi_err(MICHI_ERR_TRUNCATE, "alltoall block to self has %zu bytes, "
				     "expected %zu", sucount * sext, B);
		return -1;
	}
	for (t = 0; t < S; t++) {
		int nt = ss->first[t + 1] - ss->first[t];

		crossing += (size_t)nt * (size_t)(n - nt) * B;
	}
	p = coll_wan_lanes(ss, crossing);
	if (!(roff = coll_sched_tmp(s, (size_t)S * sizeof(int))) ||
	    !(y = coll_sched_tmp(s, (size_t)S * sizeof(char *))) ||
	    !(w = coll_sched_tmp(s, (size_t)p * sizeof(char *))))
		return -1;
	/* remote order: the other sites' ranks, site by site, in lane order */
	for (t = 0, i = 0; t < S; t++) {
		roff[t] = i;
		if (t != me)
			i += ss->first[t + 1] - ss->first[t];
	}
	if (!sbuf) {   /* in place: what goes out is copied before anything comes in */
		char *c = coll_sched_tmp(s, (size_t)n * B);

		if (!c || coll_sched_copy(s, rbuf, c, (size_t)n * B))
			return -1;
		src = c;
	}
	cnt = lane < p ? group_size(ns, lane, p) : 0;
	if (!(g = coll_sched_tmp(s, (lane < p ? (size_t)cnt : 1) * (size_t)remote * B)))
		return -1;
	if (coll_sched_sites(s, p))
		return -1;

	/* inside the site, straight; my blocks for the other sites packed,
	 * to my lane (or, on a lane, first in its group's buffer) */
	if (coll_sched_copy(s, src + (size_t)rank * B, out + (size_t)rank * B, B))
		return -1;
	for (i = 0; i < ns; i++) {
		int r = ss->members[f + i];

		if (i != lane && (coll_sched_send(s, src + (size_t)r * B, B, i) ||
				  coll_sched_recv(s, out + (size_t)r * B, B, i)))
			return -1;
	}
	for (t = 0; t < S; t++)
		for (j = 0; t != me && j < ss->first[t + 1] - ss->first[t]; j++)
			if (coll_sched_copy(s, src + (size_t)ss->members[ss->first[t] + j] * B,
					    g + (size_t)(roff[t] + j) * B, B))
				return -1;
	if (lane >= p) {
		if (coll_sched_send(s, g, (size_t)remote * B, lane % p))
			return -1;
	} else {
		for (m = 1; m < cnt; m++)
			if (coll_sched_recv(s, g + (size_t)m * remote * B, (size_t)remote * B,
					    lane + m * p))
				return -1;
	}
	coll_sched_fence(s);

	if (lane < p) {
		/* across: to site t, [source m][destination i] of t; from it,
		 * [its source m][destination i here] */
		coll_sched_switch(s);
		for (t = 0; t < S; t++) {
			int nt = ss->first[t + 1] - ss->first[t], ct = group_size(nt, lane, p);

			if (t == me)
				continue;
			if (!(pack = coll_sched_tmp(s, (size_t)cnt * nt * B)) ||
			    !(y[t] = coll_sched_tmp(s, (size_t)ct * ns * B)))
				return -1;
			for (m = 0; m < cnt; m++)
				for (i = 0; i < nt; i++) {
					size_t from = (size_t)m * remote + roff[t] + i;

					if (coll_sched_copy(s, g + from * B,
							    pack + ((size_t)m * nt + i) * B, B))
						return -1;
				}
			if (coll_sched_send(s, pack, (size_t)cnt * nt * B, t) ||
			    coll_sched_recv(s, y[t], (size_t)ct * ns * B, t))
				return -1;
		}
		coll_sched_fence(s);
		coll_sched_switch(s);
	}

	/* lane k to every rank of its site: the blocks of its remote
	 * sources for that rank, site by site, source by source */
	for (k = 0; k < p; k++) {
		size_t per = 0;

		for (t = 0; t < S; t++)
			if (t != me)
				per += (size_t)group_size(ss->first[t + 1] - ss->first[t], k, p);
		if (k != lane) {
			if (!(w[k] = coll_sched_tmp(s, per * B)) ||
			    coll_sched_recv(s, w[k], per * B, k))
				return -1;
			continue;
		}
		for (i = 0; i < ns; i++) {
			if (!(pack = coll_sched_tmp(s, per * B)))
				return -1;
			for (t = 0, idx = 0; t < S; t++) {
				int ct = group_size(ss->first[t + 1] - ss->first[t], k, p);

				for (m = 0; t != me && m < ct; m++, idx++)
					if (coll_sched_copy(s, y[t] + ((size_t)m * ns + i) * B,
							    pack + idx * B, B))
						return -1;
			}
			if (i == lane)
				w[k] = pack;
			else if (coll_sched_send(s, pack, per * B, i))
				return -1;
		}
	}
	coll_sched_fence(s);
	for (k = 0; k < p; k++)
		for (t = 0, idx = 0; t < S; t++) {
			int ct = group_size(ss->first[t + 1] - ss->first[t], k, p);

			for (m = 0; t != me && m < ct; m++, idx++)
				if (coll_sched_copy(s, w[k] + idx * B, out + (size_t)
						    ss->members[ss->first[t] + k + m * p] * B, B))
					return -1;
		}
	return 0;
}
