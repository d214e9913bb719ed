/* SPDX-License-Identifier: MIT */
/*
 * coll/lanes.c: multilane Scatter and Gather across sites (paper A §4.1;
 * GRID.md §1.3), for blocks of one size.
 *
 * The root's site sends (Scatter) or receives (Gather) every other
 * site's blocks over P lanes per far site: lane k of a far site runs
 * from a sender of the root's site (Dep_send) to the far site's rank of
 * lane order k (Dep_recv), and carries the blocks of that site's ranks
 * k, k + P, k + 2P, ... in lane order (ceil(n1 / P) blocks at most,
 * Dep_recv's own first), as one wide-area message. The senders are the
 * root, then the root's site's other ranks in lane order; lanes are
 * numbered over the far sites in site order and lane g goes to sender
 * g mod n0, so the root keeps lane 0 and, with more than two sites, the
 * senders are shared out. P per far site comes from the cost model
 * (coll/lanes_model.h) with the communicator's parameters, or the
 * coll_lanes_p tunable; every input is the same on every rank (sites,
 * root, block size), so every rank builds the same lanes.
 *
 * Scatter: the root hands each other sender, one at a time (a round
 * each, so the first lanes start early), its lanes' blocks and its own
 * block; each sender then crosses at once; the root last sends its own
 * lanes and the blocks of the rest of its site. A Dep_recv hands its
 * lane's blocks to their ranks. Gather is the reverse, and all its
 * lanes cross at once: each far rank sends to its lane's Dep_recv, which
 * sends the lane across to its sender, which hands the blocks and its
 * own to the root; the root receives everything straight into place
 * (its own lanes through one buffer).
 */
#include <stdio.h>
#include <string.h>

#include "lanes_model.h"
#include "lanes_params.h"
#include "schedule.h"

static const char *lanes_params_str = "";
MICHI_TUNABLE(lanes_params_str, "coll_lanes_params", MICHI_T_STRING, "", MICHI_LEVEL_TUNER,
	      "cost-model parameters of the multilane scatter and gather across sites, "
	      "e.g. L=5ms,alpha=300us,b_lan=100mbit,b_wan=25mbit,25mbit,25mbit,25mbit,20mbit "
	      "(b_wan: one lane's rate while 1, 2, ... lanes cross at once; empty: the "
	      "built-in defaults)");
static int lanes_p;
MICHI_TUNABLE(lanes_p, "coll_lanes_p", MICHI_T_INT, "0", MICHI_LEVEL_TUNER,
	      "lanes per far site of the multilane scatter and gather (0: the cost "
	      "model's choice; capped at the sizes of the two sites)");

static struct lanes_params params;
static const char *params_seen;

/* The parameters every rank holds alike: from the tunable when it is
 * set (and parses), else the defaults; looked at again when an MPI_T
 * write changes it. */
const struct lanes_params *coll_lanes_params(const struct coll_comm *c)
{
	(void)c;   /* one set per job until a calibration profile gives more */
	if (likely(params_seen && params_seen == lanes_params_str))
		return &params;
	params_seen = lanes_params_str;
	lanes_params_default(&params);
	if (lanes_params_str && *lanes_params_str) {
		size_t at = 0;

		if (lanes_params_parse(lanes_params_str, &params, &at) < 0)
			michi_warn("MICHI_COLL_LANES_PARAMS=%s: cannot read it at \"%s\"; using "
				   "the defaults (L=5ms,alpha=300us,b_lan=100mbit,"
				   "b_wan(P)=min(25,100/P)mbit)", lanes_params_str,
				   lanes_params_str + at);
	}
	return &params;
}

/* The lanes of one call, the same on every rank. */
struct plan {
	const struct coll_sites *ss;
	int root, rsite, n0;   /* the root's site and its size */
	int nlanes;            /* lanes over all far sites */
	int *P, *base;         /* per site: its lanes, and the number of its lane 0 */
};

static int plan_make(struct coll_sched *s, struct plan *pl, int root, size_t blen, int gather)
{
	const struct coll_sites *ss = s->c.sites;
	const struct lanes_params *lp = coll_lanes_params(&s->c);
	int t;

	pl->ss = ss;
	pl->root = root;
	pl->rsite = ss->site[root];
	pl->n0 = ss->first[pl->rsite + 1] - ss->first[pl->rsite];
	if (!(pl->P = coll_sched_tmp(s, 2 * (size_t)ss->nsites * sizeof(int))))
		return -1;
	pl->base = pl->P + ss->nsites;
	pl->nlanes = 0;
	for (t = 0; t < ss->nsites; t++) {
		int n1 = ss->first[t + 1] - ss->first[t], sup = n1 < pl->n0 ? n1 : pl->n0, P;

		if (t == pl->rsite) {
			pl->P[t] = 0;
			pl->base[t] = 0;
			continue;
		}
		if (lanes_p > 0) {
			P = lanes_p < sup ? lanes_p : sup;
		} else if (!(lanes_params_str && *lanes_params_str)) {
			/* measured ones: a profile, the first use's, refined
			 * (coll/lanes_params.h); the defaults without memory */
			const struct lanes_params *mp = lanes_params_for(&s->c, pl->rsite, t);

			if (!mp)
				mp = lp;
			P = gather ? lanes_choose_gather(mp, pl->n0, n1, (double)blen)
				   : lanes_choose(mp, pl->n0, n1, (double)blen);
		} else if (gather)
			P = lanes_choose_gather(lp, pl->n0, n1, (double)blen);
		else
			P = lanes_choose(lp, pl->n0, n1, (double)blen);
		pl->P[t] = P;
		pl->base[t] = pl->nlanes;
		pl->nlanes += P;
	}
	michi_debug("coll lanes: root %d, %d lanes over %d far sites, %zu-byte blocks", root,
		    pl->nlanes, ss->nsites - 1, blen);
	return 0;
}

/*
 * What a lane's WAN transfer took, for the refinement of b_WAN(P)
 * (lanes_observe, coll/lanes_params.h): a call step before the round of
 * the lane's send notes the time, one after it reports. Blocking calls
 * only: a nonblocking or persistent schedule may run on after its
 * communicator, whose sites hold the observations, is freed.
 */
struct lane_obs {
	int sa, sb, P;
	size_t bytes;
	double t0;
};

static michi_status_t obs_start(struct coll_sched *s, void *arg)
{
	(void)s;
	((struct lane_obs *)arg)->t0 = michi_wtime();
	return MICHI_OK;
}

static michi_status_t obs_end(struct coll_sched *s, void *arg)
{
	const struct lane_obs *o = arg;

	if (!s->peers_copy && !s->persist)
		lanes_observe(&s->c, o->sa, o->sb, o->P, o->bytes, michi_wtime() - o->t0);
	return MICHI_OK;
}

/* The steps around one lane's send of bytes from site sa to sb. */
static int obs_send(struct coll_sched *s, int sa, int sb, int P, const void *buf, size_t bytes,
		    int peer)
{
	struct lane_obs *o = coll_sched_tmp(s, sizeof(*o));

	if (!o)
		return -1;
	o->sa = sa;
	o->sb = sb;
	o->P = P;
	o->bytes = bytes;
	if (coll_sched_call(s, obs_start, o) || coll_sched_send(s, buf, bytes, peer))
		return -1;
	coll_sched_fence(s);
	return coll_sched_call(s, obs_end, o);
}

/* Sender j of the root's site: 0 is the root, then its site in lane
 * order without it. */
static int sender_rank(const struct plan *pl, int j)
{
	const struct coll_sites *ss = pl->ss;
	int rl = ss->lane_of[pl->root];

	if (j == 0)
		return pl->root;
	return ss->members[ss->first[pl->rsite] + (j <= rl ? j - 1 : j)];
}

static int sender_index(const struct plan *pl, int r)
{
	int l = pl->ss->lane_of[r], rl = pl->ss->lane_of[pl->root];

	if (r == pl->root)
		return 0;
	return l < rl ? l + 1 : l;
}

/* Lane k of far site t: how many blocks, and the rank of its i-th. */
static int lane_len(const struct plan *pl, int t, int k)
{
	int n1 = pl->ss->first[t + 1] - pl->ss->first[t], P = pl->P[t];

	return (n1 - k + P - 1) / P;
}

static int lane_rank(const struct plan *pl, int t, int k, int i)
{
	return pl->ss->members[pl->ss->first[t] + k + i * pl->P[t]];
}

/* The far site and lane number of global lane g. */
static void lane_of_global(const struct plan *pl, int g, int *t, int *k)
{
	int u;

	for (u = 0; u < pl->ss->nsites; u++)
		if (u != pl->rsite && g >= pl->base[u] && g < pl->base[u] + pl->P[u]) {
			*t = u;
			*k = g - pl->base[u];
			return;
		}
	*t = -1;
	*k = 0;
}

static int nsenders(const struct plan *pl)
{
	return pl->nlanes < pl->n0 ? pl->nlanes : pl->n0;
}

static int check_own(struct coll_sched *s, size_t mine, size_t blen)
{
	if (mine == blen)
		return 0;
	s->error = michi_err(MICHI_ERR_TRUNCATE, "the root sends itself %zu bytes but "
			     "receives %zu", blen, mine);
	return -1;
}

int coll_build_scatter_lanes(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
			     size_t ucount, size_t extent, void *rbuf, size_t rlen, int root)
{
	struct plan pl;
	const struct coll_sites *ss = s->c.sites;
	size_t blen = rbuf ? rlen : ucount * extent;
	int me = s->c.rank, mysite = ss->site[me], g, i, j, t, k;

	(void)v;
	if (plan_make(s, &pl, root, blen, 0))
		return -1;
	if (mysite != pl.rsite) {
		/* a far rank: Dep_recv of its lane, or a rank of one */
		int P = pl.P[mysite], lane = ss->lane % P, sender;
		char *tmp;
		int len = lane_len(&pl, mysite, lane);

		sender = sender_rank(&pl, (pl.base[mysite] + lane) % pl.n0);
		if (ss->lane >= P)
			return coll_sched_recv(s, rbuf, rlen, lane_rank(&pl, mysite, lane, 0));
		if (len == 1)
			return coll_sched_recv(s, rbuf, rlen, sender);
		if (!(tmp = coll_sched_tmp(s, (size_t)len * blen)))
			return -1;
		if (coll_sched_recv(s, tmp, (size_t)len * blen, sender))
			return -1;
		coll_sched_fence(s);
		if (coll_sched_copy(s, tmp, rbuf, blen))
			return -1;
		for (i = 1; i < len; i++)
			if (coll_sched_send(s, tmp + (size_t)i * blen, blen,
					    lane_rank(&pl, mysite, lane, i)))
				return -1;
		return 0;
	}
	if (me != root) {
		/* the root's site: a sender of lanes, or a rank that gets its block */
		char **tmps;
		int n = 0;

		j = sender_index(&pl, me);
		if (j >= nsenders(&pl))
			return coll_sched_recv(s, rbuf, rlen, root);
		/* the same order as the root sends: each lane's blocks, then mine */
		n = (pl.nlanes - j + pl.n0 - 1) / pl.n0;
		if (!(tmps = coll_sched_tmp(s, (size_t)n * sizeof(*tmps))))
			return -1;
		for (g = j, n = 0; g < pl.nlanes; g += pl.n0, n++) {
			int len;

			lane_of_global(&pl, g, &t, &k);
			len = lane_len(&pl, t, k);
			if (!(tmps[n] = coll_sched_tmp(s, (size_t)len * blen)))
				return -1;
			for (i = 0; i < len; i++)
				if (coll_sched_recv(s, tmps[n] + (size_t)i * blen, blen, root))
					return -1;
		}
		if (coll_sched_recv(s, rbuf, rlen, root))
			return -1;
		coll_sched_fence(s);
		if (n == 1) {   /* one lane: its time is its own */
			lane_of_global(&pl, j, &t, &k);
			return obs_send(s, pl.rsite, t, pl.P[t], tmps[0],
					(size_t)lane_len(&pl, t, k) * blen, lane_rank(&pl, t, k, 0));
		}
		for (g = j, n = 0; g < pl.nlanes; g += pl.n0, n++) {
			lane_of_global(&pl, g, &t, &k);
			if (coll_sched_send(s, tmps[n], (size_t)lane_len(&pl, t, k) * blen,
					    lane_rank(&pl, t, k, 0)))
				return -1;
		}
		return 0;
	}
	/* the root: each other sender in turn (a round each), then its own
	 * lanes and the rest of its site */
	if (rbuf && check_own(s, rlen, blen))
		return -1;
	for (j = 1; j < nsenders(&pl); j++) {
		int r = sender_rank(&pl, j);

		for (g = j; g < pl.nlanes; g += pl.n0) {
			lane_of_global(&pl, g, &t, &k);
			for (i = 0; i < lane_len(&pl, t, k); i++)
				if (coll_sched_send(s, (const char *)sbuf +
						    (size_t)lane_rank(&pl, t, k, i) * blen, blen, r))
					return -1;
		}
		if (coll_sched_send(s, (const char *)sbuf + (size_t)r * blen, blen, r))
			return -1;
		coll_sched_fence(s);
	}
	for (g = 0; g < pl.nlanes; g += pl.n0) {
		int len;
		char *tmp;

		lane_of_global(&pl, g, &t, &k);
		len = lane_len(&pl, t, k);
		if (len == 1) {
			if (coll_sched_send(s, (const char *)sbuf +
					    (size_t)lane_rank(&pl, t, k, 0) * blen, blen,
					    lane_rank(&pl, t, k, 0)))
				return -1;
			continue;
		}
		/* the lane goes as one message: its blocks gathered first */
		if (!(tmp = coll_sched_tmp(s, (size_t)len * blen)))
			return -1;
		for (i = 0; i < len; i++)
			if (coll_sched_copy(s, (const char *)sbuf +
					    (size_t)lane_rank(&pl, t, k, i) * blen,
					    tmp + (size_t)i * blen, blen))
				return -1;
		if (coll_sched_send(s, tmp, (size_t)len * blen, lane_rank(&pl, t, k, 0)))
			return -1;
	}
	for (j = nsenders(&pl); j < pl.n0; j++) {
		int r = sender_rank(&pl, j);

		if (coll_sched_send(s, (const char *)sbuf + (size_t)r * blen, blen, r))
			return -1;
	}
	if (rbuf && coll_sched_copy(s, (const char *)sbuf + (size_t)root * blen, rbuf, blen))
		return -1;
	return 0;
}

int coll_build_gather_lanes(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			    const struct coll_v *v, size_t ucount, size_t extent, int root)
{
	struct plan pl;
	const struct coll_sites *ss = s->c.sites;
	size_t blen = sbuf ? slen : ucount * extent;
	int me = s->c.rank, mysite = ss->site[me], g, i, j, t, k, n;
	char **tmps;

	(void)v;
	if (plan_make(s, &pl, root, blen, 1))
		return -1;
	if (mysite != pl.rsite) {
		/* a far rank: its lane's Dep_recv collects the lane and sends it
		 * across as soon as it has it */
		int P = pl.P[mysite], lane = ss->lane % P, sender;
		int len = lane_len(&pl, mysite, lane);
		char *tmp;

		sender = sender_rank(&pl, (pl.base[mysite] + lane) % pl.n0);
		if (ss->lane >= P)
			return coll_sched_send(s, sbuf, slen, lane_rank(&pl, mysite, lane, 0));
		if (len == 1)
			return obs_send(s, mysite, pl.rsite, P, sbuf, slen, sender);
		if (!(tmp = coll_sched_tmp(s, (size_t)len * blen)))
			return -1;
		if (coll_sched_copy(s, sbuf, tmp, blen))
			return -1;
		for (i = 1; i < len; i++)
			if (coll_sched_recv(s, tmp + (size_t)i * blen, blen,
					    lane_rank(&pl, mysite, lane, i)))
				return -1;
		coll_sched_fence(s);
		return obs_send(s, mysite, pl.rsite, P, tmp, (size_t)len * blen, sender);
	}
	if (me != root) {
		j = sender_index(&pl, me);
		if (coll_sched_send(s, sbuf, slen, root))
			return -1;
		if (j >= nsenders(&pl))
			return 0;
		/* a sender: all its lanes arrive at once, then go to the root
		 * block by block, in the order the root posted for them */
		n = (pl.nlanes - j + pl.n0 - 1) / pl.n0;
		if (!(tmps = coll_sched_tmp(s, (size_t)n * sizeof(*tmps))))
			return -1;
		for (g = j, n = 0; g < pl.nlanes; g += pl.n0, n++) {
			int len;

			lane_of_global(&pl, g, &t, &k);
			len = lane_len(&pl, t, k);
			if (!(tmps[n] = coll_sched_tmp(s, (size_t)len * blen)))
				return -1;
			if (coll_sched_recv(s, tmps[n], (size_t)len * blen, lane_rank(&pl, t, k, 0)))
				return -1;
		}
		coll_sched_fence(s);
		for (g = j, n = 0; g < pl.nlanes; g += pl.n0, n++) {
			lane_of_global(&pl, g, &t, &k);
			for (i = 0; i < lane_len(&pl, t, k); i++)
				if (coll_sched_send(s, tmps[n] + (size_t)i * blen, blen, root))
					return -1;
		}
		return 0;
	}
	/* the root: every receive at once, straight into place but for its
	 * own lanes, which arrive as one message each */
	if (sbuf && check_own(s, slen, ucount * extent))
		return -1;
	for (j = 1; j < pl.n0; j++) {
		int r = sender_rank(&pl, j);

		if (coll_sched_recv(s, (char *)rbuf + (size_t)r * blen, blen, r))
			return -1;
		if (j >= nsenders(&pl))
			continue;
		for (g = j; g < pl.nlanes; g += pl.n0) {
			lane_of_global(&pl, g, &t, &k);
			for (i = 0; i < lane_len(&pl, t, k); i++)
				if (coll_sched_recv(s, (char *)rbuf +
						    (size_t)lane_rank(&pl, t, k, i) * blen, blen, r))
					return -1;
		}
	}
	n = (pl.nlanes + pl.n0 - 1) / pl.n0;
	if (!(tmps = coll_sched_tmp(s, (size_t)(n ? n : 1) * sizeof(*tmps))))
		return -1;
	for (g = 0, n = 0; g < pl.nlanes; g += pl.n0, n++) {
		int len;

		lane_of_global(&pl, g, &t, &k);
		len = lane_len(&pl, t, k);
		if (len == 1) {
			tmps[n] = NULL;
			if (coll_sched_recv(s, (char *)rbuf + (size_t)lane_rank(&pl, t, k, 0) * blen,
					    blen, lane_rank(&pl, t, k, 0)))
				return -1;
			continue;
		}
		if (!(tmps[n] = coll_sched_tmp(s, (size_t)len * blen)))
			return -1;
		if (coll_sched_recv(s, tmps[n], (size_t)len * blen, lane_rank(&pl, t, k, 0)))
			return -1;
	}
	if (sbuf && coll_sched_copy(s, sbuf, (char *)rbuf + (size_t)root * blen, blen))
		return -1;
	coll_sched_fence(s);
	for (g = 0, n = 0; g < pl.nlanes; g += pl.n0, n++) {
		if (!tmps[n])
			continue;
		lane_of_global(&pl, g, &t, &k);
		for (i = 0; i < lane_len(&pl, t, k); i++)
			if (coll_sched_copy(s, tmps[n] + (size_t)i * blen, (char *)rbuf +
					    (size_t)lane_rank(&pl, t, k, i) * blen, blen))
				return -1;
	}
	return 0;
}
