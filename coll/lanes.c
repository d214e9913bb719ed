/* SPDX-License-Identifier: MIT */
/*
 * coll/lanes.c: multilane Scatter and Gather across sites (paper A §4.1;
 * GRID.md §1.3), blocks of one size here, the v forms further down.
 *
 * The root's site sends (Scatter) or receives (Gather) every other
 * site's blocks over P lanes per far site: lane k of a far site runs
 * from a sender of the root's site (Dep_send) to the far site's rank of
 * lane order k (Dep_recv), and carries the blocks of that site's ranks
 * k, k + P, k + 2P, ... in lane order (ceil(n1 / P) blocks at most,
 * Dep_recv's own first), as one wide-area message. The senders are the
 * root, then the root's site's other ranks in lane order; a sender may
 * drive h lanes at once (h = 1: paper A; h = P: the root alone, with no
 * LAN hop, the better choice when the WAN limit is per connection and
 * not per host): a far site's lanes go in runs of h to sender slots,
 * slots numbered over the far sites in site order, and slot s is
 * sender s mod n0, so the root keeps lane 0 and, with more than two
 * sites, the senders are shared out. Gather with more than one lane
 * deals the slots over the root's site without the root (when it has
 * other hosts; lanes_hosts): a lane into the root would share its NIC
 * with the site's blocks, whose short round trips win. P and h per far
 * site come from the cost model (coll/lanes_model.h, lanes_choose_ph) with the
 * communicator's parameters, each far site's as if it were the only one
 * (n0 and its own size; the model has no term for far sites sharing the
 * root's senders), or the coll_lanes_p and coll_lanes_h tunables; every
 * input is the same on every rank (sites, root, block size), so every
 * rank builds the same lanes.
 *
 * Scatter: the root hands each other sender, one at a time (a round
 * each, so the first lanes start early), its lanes' blocks; each sender
 * crosses as soon as they are in; then the root sends its own lanes, and
 * last the blocks that stay in its site (the senders' own among them), so
 * that every block that crosses leaves the root's NIC before any that
 * stays (the NIC's 15 blocks of two-sites-16 are the floor of any
 * Scatter; the crossings then end well before it). A Dep_recv hands its
 * lane's blocks to their ranks. Gather is the reverse, and all its
 * lanes cross at once: each far rank sends to its lane's Dep_recv, which
 * sends the lane across to its sender, which hands the blocks and its
 * own to the root; the root receives everything straight into place
 * (its own lanes through one buffer).
 */
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
	      "model's choice; capped at the far site's size)");
static int lanes_h;
MICHI_TUNABLE(lanes_h, "coll_lanes_h", MICHI_T_INT, "0", MICHI_LEVEL_TUNER,
	      "lanes each host of the root's site drives across of the multilane scatter "
	      "and gather (1: paper A's one lane a host; the lane count: one host, in "
	      "scatter the root, in gather the next of its site; 0: the cost model's "
	      "choice, or with coll_lanes_p set as few as the root's site allows; capped "
	      "at the lanes)");

static struct lanes_params params;
static const char *params_seen;

/* The parameters every rank holds alike: from the tunable when it is
 * set (and parses), else the defaults; looked at again when an MPI_T
 * write changes it. */
const struct lanes_params *coll_lanes_params(const struct coll_comm *c)
{
	/* one set per job until a calibration profile gives more; like
	 * the tables' forced rows (coll/select.c), re-read without a lock */
	(void)c;
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
	int nslots;            /* sender slots over all far sites */
	int s0;                /* slot s is sender s0 + s mod (n0 - s0): 1 when the
				* root drives no lane (Gather) */
	int *P, *base;         /* per site: its lanes, and the number of its lane 0 */
	int *h, *sbase;        /* per site: lanes a sender drives, and its first slot */
};

static int plan_make(struct coll_sched *s, struct plan *pl, int root, size_t blen, int gather)
{
	const struct coll_sites *ss = s->c.sites;
	const struct lanes_params *lp = coll_lanes_params(&s->c);
	int t, dir = gather ? LANES_GATHER : LANES_SCATTER;

	pl->ss = ss;
	pl->root = root;
	pl->rsite = ss->site[root];
	pl->n0 = ss->first[pl->rsite + 1] - ss->first[pl->rsite];
	if (!(pl->P = coll_sched_tmp(s, 4 * (size_t)ss->nsites * sizeof(int))))
		return -1;
	pl->base = pl->P + ss->nsites;
	pl->h = pl->base + ss->nsites;
	pl->sbase = pl->h + ss->nsites;
	pl->nlanes = 0;
	pl->nslots = 0;
	for (t = 0; t < ss->nsites; t++) {
		int n1 = ss->first[t + 1] - ss->first[t], P, h = 1, hmin;

		if (t == pl->rsite) {
			pl->P[t] = 0;
			pl->base[t] = 0;
			pl->h[t] = 1;
			pl->sbase[t] = 0;
			continue;
		}
		if (lanes_p > 0) {
			P = lanes_p < n1 ? lanes_p : n1;
			if (P > LANES_PMAX)
				P = LANES_PMAX;
			/* coll_lanes_h, or as many a host as P needs (1 while P <= n0) */
			h = lanes_h > 0 ? lanes_h : 1;
		} else {
			const struct lanes_params *mp = lp;
			int hm;

			if (!(lanes_params_str && *lanes_params_str)) {
				/* measured ones: a profile, the first use's, refined
				 * (coll/lanes_params.h); the defaults before those */
				const struct lanes_params *m =
					lanes_params_for(&s->c, pl->rsite, t, s->blocking);

				if (m)
					mp = m;
			}
			P = lanes_choose_ph(mp, dir, pl->n0, n1, (double)blen, &hm);
			h = lanes_h > 0 ? lanes_h : hm;
		}
		hmin = lanes_h_min(dir, P, pl->n0);
		if (h < hmin)
			h = hmin;
		if (h > P)
			h = P;
		pl->P[t] = P;
		pl->h[t] = h;
		pl->base[t] = pl->nlanes;
		pl->sbase[t] = pl->nslots;
		pl->nlanes += P;
		pl->nslots += (P + h - 1) / h;
	}
	/* the model's rule for which hosts drive lanes, over all the lanes */
	pl->s0 = pl->n0 - lanes_hosts(dir, pl->nlanes, pl->n0);
	michi_debug("coll lanes: root %d, %d lanes over %d far sites from %d sender slots, "
		    "%zu-byte blocks", root, pl->nlanes, ss->nsites - 1, pl->nslots, blen);
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

/* The steps around one lane's send of bytes from site sa to sb; P 0 when
 * a host drives several lanes (h > 1): the time then measures the host's
 * share, not b_WAN(P), and is not recorded. */
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

/* The sender index (sender_rank) of lane k of far site t: the site's
 * lanes in runs of h a sender slot, slots dealt out over the root's
 * site from the root on (from sender 1 with s0). */
static int lane_sender(const struct plan *pl, int t, int k)
{
	return pl->s0 + (pl->sbase[t] + k / pl->h[t]) % (pl->n0 - pl->s0);
}

/* The global lanes of sender j in ascending order: the first after g
 * (g = -1: the first), or -1. */
static int lane_next(const struct plan *pl, int j, int g)
{
	int t, k;

	for (g++; g < pl->nlanes; g++) {
		lane_of_global(pl, g, &t, &k);
		if (lane_sender(pl, t, k) == j)
			return g;
	}
	return -1;
}

static int lane_first(const struct plan *pl, int j)
{
	return lane_next(pl, j, -1);
}

static int sender_nlanes(const struct plan *pl, int j)
{
	int g, n = 0;

	for (g = lane_first(pl, j); g >= 0; g = lane_next(pl, j, g))
		n++;
	return n;
}

/* Sender j's staging buffers, one per lane it drives (in lane_first/
 * lane_next order, each lane_len blocks of blen bytes); *n their count.
 * NULL: no memory. */
static char **sender_bufs(struct coll_sched *s, const struct plan *pl, int j, size_t blen,
			  int *n)
{
	char **tmps;
	int g, t, k, i = 0;

	*n = sender_nlanes(pl, j);
	if (!(tmps = coll_sched_tmp(s, (size_t)*n * sizeof(*tmps))))
		return NULL;
	for (g = lane_first(pl, j); g >= 0; g = lane_next(pl, j, g), i++) {
		lane_of_global(pl, g, &t, &k);
		if (!(tmps[i] = coll_sched_tmp(s, (size_t)lane_len(pl, t, k) * blen)))
			return NULL;
	}
	return tmps;
}

/* Senders are indices s0 .. nsenders - 1. */
static int nsenders(const struct plan *pl)
{
	return pl->s0 + (pl->nslots < pl->n0 - pl->s0 ? pl->nslots : pl->n0 - pl->s0);
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

		sender = sender_rank(&pl, lane_sender(&pl, mysite, lane));
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
		/* the same order as the root sends: each lane's blocks; they
		 * cross as soon as they are in, and my own block comes after */
		if (!(tmps = sender_bufs(s, &pl, j, blen, &n)))
			return -1;
		for (g = lane_first(&pl, j), n = 0; g >= 0; g = lane_next(&pl, j, g), n++) {
			int len;

			lane_of_global(&pl, g, &t, &k);
			len = lane_len(&pl, t, k);
			for (i = 0; i < len; i++)
				if (coll_sched_recv(s, tmps[n] + (size_t)i * blen, blen, root))
					return -1;
		}
		coll_sched_fence(s);
		if (n == 1) {   /* one lane: its time is its own */
			lane_of_global(&pl, lane_first(&pl, j), &t, &k);
			if (obs_send(s, pl.rsite, t, pl.h[t] == 1 ? pl.P[t] : 0, tmps[0],
				     (size_t)lane_len(&pl, t, k) * blen, lane_rank(&pl, t, k, 0)))
				return -1;
		} else {
			for (g = lane_first(&pl, j), n = 0; g >= 0; g = lane_next(&pl, j, g), n++) {
				lane_of_global(&pl, g, &t, &k);
				if (coll_sched_send(s, tmps[n], (size_t)lane_len(&pl, t, k) * blen,
						    lane_rank(&pl, t, k, 0)))
					return -1;
			}
		}
		return coll_sched_recv(s, rbuf, rlen, root);
	}
	/* the root: each other sender's lane blocks in turn (a round each,
	 * so that the first lanes cross soonest), then its own lanes, then
	 * the blocks of its site, the senders' own among them: every block
	 * that crosses leaves the root's NIC before any that stays */
	if (rbuf && check_own(s, rlen, blen))
		return -1;
	for (j = 1; j < nsenders(&pl); j++) {
		int r = sender_rank(&pl, j);

		for (g = lane_first(&pl, j); g >= 0; g = lane_next(&pl, j, g)) {
			lane_of_global(&pl, g, &t, &k);
			for (i = 0; i < lane_len(&pl, t, k); i++)
				if (coll_sched_send(s, (const char *)sbuf +
						    (size_t)lane_rank(&pl, t, k, i) * blen, blen, r))
					return -1;
		}
		coll_sched_fence(s);
	}
	for (g = lane_first(&pl, 0); g >= 0; g = lane_next(&pl, 0, g)) {
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
	for (j = 1; j < pl.n0; j++) {
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

		sender = sender_rank(&pl, lane_sender(&pl, mysite, lane));
		if (ss->lane >= P)
			return coll_sched_send(s, sbuf, slen, lane_rank(&pl, mysite, lane, 0));
		if (len == 1)
			return obs_send(s, mysite, pl.rsite, pl.h[mysite] == 1 ? P : 0, sbuf, slen,
					sender);
		if (!(tmp = coll_sched_tmp(s, (size_t)len * blen)))
			return -1;
		if (coll_sched_copy(s, sbuf, tmp, blen))
			return -1;
		for (i = 1; i < len; i++)
			if (coll_sched_recv(s, tmp + (size_t)i * blen, blen,
					    lane_rank(&pl, mysite, lane, i)))
				return -1;
		coll_sched_fence(s);
		return obs_send(s, mysite, pl.rsite, pl.h[mysite] == 1 ? P : 0, tmp,
				(size_t)len * blen, sender);
	}
	if (me != root) {
		j = sender_index(&pl, me);
		if (coll_sched_send(s, sbuf, slen, root))
			return -1;
		if (j >= nsenders(&pl))
			return 0;
		/* a sender: all its lanes arrive at once, then go to the root
		 * block by block, in the order the root posted for them */
		if (!(tmps = sender_bufs(s, &pl, j, blen, &n)))
			return -1;
		for (g = lane_first(&pl, j), n = 0; g >= 0; g = lane_next(&pl, j, g), n++) {
			lane_of_global(&pl, g, &t, &k);
			if (coll_sched_recv(s, tmps[n], (size_t)lane_len(&pl, t, k) * blen,
					    lane_rank(&pl, t, k, 0)))
				return -1;
		}
		coll_sched_fence(s);
		for (g = lane_first(&pl, j), n = 0; g >= 0; g = lane_next(&pl, j, g), n++) {
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
		for (g = lane_first(&pl, j); g >= 0; g = lane_next(&pl, j, g)) {
			lane_of_global(&pl, g, &t, &k);
			for (i = 0; i < lane_len(&pl, t, k); i++)
				if (coll_sched_recv(s, (char *)rbuf +
						    (size_t)lane_rank(&pl, t, k, i) * blen, blen, r))
					return -1;
		}
	}
	n = sender_nlanes(&pl, 0);
	if (!(tmps = coll_sched_tmp(s, (size_t)(n ? n : 1) * sizeof(*tmps))))
		return -1;
	for (g = lane_first(&pl, 0), n = 0; g >= 0; g = lane_next(&pl, 0, g), n++) {
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
	for (g = lane_first(&pl, 0), n = 0; g >= 0; g = lane_next(&pl, 0, g), n++) {
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

/*
 * The v forms. Only the root knows the blocks' sizes, so the lanes carry
 * them: a header of one uint64_t per block goes ahead of each lane's data
 * (root to sender, sender to Dep_recv in Scatterv; each far rank to its
 * Dep_recv, Dep_recv to sender in Gatherv), and a call step between the
 * header's round and the data's sizes the rank's buffer and patches the
 * steps that follow (struct vpatch). A persistent schedule patches again
 * at every start, reusing its buffer. Which ranks are lanes cannot hang
 * on sizes that only the root has, so P comes from the model at the
 * nominal block coll_lanes_v_bytes (or coll_lanes_p).
 */
static size_t lanes_v_bytes = 1048576;
MICHI_TUNABLE(lanes_v_bytes, "coll_lanes_v_bytes", MICHI_T_SIZE, "1048576", MICHI_LEVEL_TUNER,
	      "block size (bytes) at which the cost model chooses the lanes of a multilane "
	      "scatterv or gatherv, whose block sizes only the root knows");

enum { VP_SRC, VP_DST };

struct vpatch {
	uint64_t *sz;          /* nb block sizes: a header received here */
	size_t *off;           /* their offsets in buf (nb + 1) */
	int nb;
	char *buf;
	size_t cap;
	int *bstep;            /* per block: the step on its bytes, or -1 */
	uint8_t *bkind;        /* VP_SRC: the step reads buf, VP_DST: writes it */
	size_t own_cap;        /* a copy out of buf: the room where it goes */
	int nseg;              /* steps on a run of whole blocks */
	int *sfirst, *sn, *sstep;
};

static struct vpatch *vpatch_new(struct coll_sched *s, int nb, int nseg)
{
	struct vpatch *p = coll_sched_tmp(s, sizeof(*p));

	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->nb = nb;
	p->nseg = nseg;
	p->own_cap = (size_t)-1;
	if (!(p->sz = coll_sched_tmp(s, (size_t)nb * sizeof(uint64_t) + 1)) ||
	    !(p->off = coll_sched_tmp(s, ((size_t)nb + 1) * sizeof(size_t))) ||
	    !(p->bstep = coll_sched_tmp(s, (size_t)nb * sizeof(int) + 1)) ||
	    !(p->bkind = coll_sched_tmp(s, (size_t)nb + 1)) ||
	    !(p->sfirst = coll_sched_tmp(s, 3 * (size_t)nseg * sizeof(int) + 1)))
		return NULL;
	p->sn = p->sfirst + nseg;
	p->sstep = p->sn + nseg;
	memset(p->bstep, 0xff, (size_t)nb * sizeof(int));
	return p;
}

static void vpatch_block(struct coll_sched *s, struct vpatch *p, int b, int kind)
{
	p->bstep[b] = s->nsteps - 1;
	p->bkind[b] = (uint8_t)kind;
}

static void vpatch_seg(struct coll_sched *s, struct vpatch *p, int i, int first, int n)
{
	p->sfirst[i] = first;
	p->sn[i] = n;
	p->sstep[i] = s->nsteps - 1;
}

static michi_status_t vpatch_run(struct coll_sched *s, void *arg)
{
	struct vpatch *p = arg;
	int b, i;

	p->off[0] = 0;
	for (b = 0; b < p->nb; b++)
		p->off[b + 1] = p->off[b] + (size_t)p->sz[b];
	if (p->off[p->nb] > p->cap) {
		if (!(p->buf = coll_sched_tmp(s, p->off[p->nb])))
			return s->error;
		p->cap = p->off[p->nb];
	}
	for (b = 0; b < p->nb; b++) {
		struct coll_step *st;

		if (p->bstep[b] < 0)
			continue;
		st = &s->steps[p->bstep[b]];
		st->len = (size_t)p->sz[b];
		if (p->bkind[b] == VP_DST) {
			st->dst = p->buf + p->off[b];
			continue;
		}
		st->src = p->buf + p->off[b];
		if (st->op == CS_COPY && st->len > p->own_cap)
			return michi_err(MICHI_ERR_TRUNCATE, "scatterv: a %zu-byte block for a "
					 "rank that receives %zu", st->len, p->own_cap);
	}
	for (i = 0; i < p->nseg; i++) {
		struct coll_step *st = &s->steps[p->sstep[i]];

		st->src = st->dst = p->buf + p->off[p->sfirst[i]];
		st->len = p->off[p->sfirst[i] + p->sn[i]] - p->off[p->sfirst[i]];
	}
	return MICHI_OK;
}

/* Blocks on sender j's lanes, all together. */
static int sender_blocks(const struct plan *pl, int j)
{
	int g, t, k, nb = 0;

	for (g = lane_first(pl, j); g >= 0; g = lane_next(pl, j, g)) {
		lane_of_global(pl, g, &t, &k);
		nb += lane_len(pl, t, k);
	}
	return nb;
}

int coll_build_scatterv_lanes(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
			      size_t ucount, size_t extent, void *rbuf, size_t rlen, int root)
{
	struct plan pl;
	const struct coll_sites *ss = s->c.sites;
	int me = s->c.rank, mysite = ss->site[me], g, i, j, t, k, n, b;
	struct vpatch *p;

	if (plan_make(s, &pl, root, lanes_v_bytes, 0))
		return -1;
	if (mysite != pl.rsite) {
		int P = pl.P[mysite], lane = ss->lane % P, sender;
		int len = lane_len(&pl, mysite, lane);

		if (ss->lane >= P)
			return coll_sched_recv(s, rbuf, rlen, lane_rank(&pl, mysite, lane, 0));
		/* Dep_recv: the lane's header, its data, then out to its ranks */
		sender = sender_rank(&pl, lane_sender(&pl, mysite, lane));
		if (!(p = vpatch_new(s, len, 1)))
			return -1;
		p->own_cap = rlen;
		if (coll_sched_recv(s, p->sz, (size_t)len * sizeof(uint64_t), sender))
			return -1;
		coll_sched_fence(s);
		if (coll_sched_call(s, vpatch_run, p) || coll_sched_recv(s, NULL, 0, sender))
			return -1;
		vpatch_seg(s, p, 0, 0, len);
		coll_sched_fence(s);
		/* a placeholder that the patch fills in (a copy of no bytes
		 * would add no step) */
		if (coll_sched_copy(s, p, rbuf, 1))
			return -1;
		vpatch_block(s, p, 0, VP_SRC);
		for (i = 1; i < len; i++) {
			if (coll_sched_send(s, NULL, 0, lane_rank(&pl, mysite, lane, i)))
				return -1;
			vpatch_block(s, p, i, VP_SRC);
		}
		return 0;
	}
	if (me != root) {
		j = sender_index(&pl, me);
		if (j >= nsenders(&pl))
			return coll_sched_recv(s, rbuf, rlen, root);
		/* a sender: one header for all its lanes, their blocks one by
		 * one, each lane across with its header, then its own block */
		n = sender_blocks(&pl, j);
		if (!(p = vpatch_new(s, n, sender_nlanes(&pl, j))))
			return -1;
		if (coll_sched_recv(s, p->sz, (size_t)n * sizeof(uint64_t), root))
			return -1;
		coll_sched_fence(s);
		if (coll_sched_call(s, vpatch_run, p))
			return -1;
		for (b = 0; b < n; b++) {
			if (coll_sched_recv(s, NULL, 0, root))
				return -1;
			vpatch_block(s, p, b, VP_DST);
		}
		coll_sched_fence(s);
		for (g = lane_first(&pl, j), b = 0, n = 0; g >= 0; g = lane_next(&pl, j, g), n++) {
			int len, dr;

			lane_of_global(&pl, g, &t, &k);
			len = lane_len(&pl, t, k);
			dr = lane_rank(&pl, t, k, 0);
			if (coll_sched_send(s, p->sz + b, (size_t)len * sizeof(uint64_t), dr) ||
			    coll_sched_send(s, NULL, 0, dr))
				return -1;
			vpatch_seg(s, p, n, b, len);
			b += len;
		}
		/* my own block comes after every block that crosses (as Scatter) */
		return coll_sched_recv(s, rbuf, rlen, root);
	}
	/* the root knows every size: headers made here, blocks straight from
	 * the user's layout */
	if (rbuf) {
		size_t mine;

		coll_block(sbuf, v, ucount, extent, root, &mine);
		if (check_own(s, rlen, mine))
			return -1;
	}
	for (j = 1; j < nsenders(&pl); j++) {
		int r = sender_rank(&pl, j);
		uint64_t *hdr;
		size_t len;
		const char *src;

		n = sender_blocks(&pl, j);
		if (!(hdr = coll_sched_tmp(s, (size_t)n * sizeof(uint64_t))))
			return -1;
		for (g = lane_first(&pl, j), b = 0; g >= 0; g = lane_next(&pl, j, g)) {
			lane_of_global(&pl, g, &t, &k);
			for (i = 0; i < lane_len(&pl, t, k); i++, b++) {
				coll_block(sbuf, v, ucount, extent, lane_rank(&pl, t, k, i), &len);
				hdr[b] = len;
			}
		}
		if (coll_sched_send(s, hdr, (size_t)n * sizeof(uint64_t), r))
			return -1;
		for (g = lane_first(&pl, j); g >= 0; g = lane_next(&pl, j, g)) {
			lane_of_global(&pl, g, &t, &k);
			for (i = 0; i < lane_len(&pl, t, k); i++) {
				src = coll_block(sbuf, v, ucount, extent, lane_rank(&pl, t, k, i), &len);
				if (coll_sched_send(s, src, len, r))
					return -1;
			}
		}
		coll_sched_fence(s);
	}
	for (g = lane_first(&pl, 0); g >= 0; g = lane_next(&pl, 0, g)) {
		int len, dr;
		uint64_t *hdr;
		size_t total = 0, bl, o;
		char *tmp;

		lane_of_global(&pl, g, &t, &k);
		len = lane_len(&pl, t, k);
		dr = lane_rank(&pl, t, k, 0);
		if (!(hdr = coll_sched_tmp(s, (size_t)len * sizeof(uint64_t))))
			return -1;
		for (i = 0; i < len; i++) {
			coll_block(sbuf, v, ucount, extent, lane_rank(&pl, t, k, i), &bl);
			hdr[i] = bl;
			total += bl;
		}
		if (!(tmp = coll_sched_tmp(s, total)))
			return -1;
		for (i = 0, o = 0; i < len; i++) {
			const char *src = coll_block(sbuf, v, ucount, extent,
						     lane_rank(&pl, t, k, i), &bl);

			if (coll_sched_copy(s, src, tmp + o, bl))
				return -1;
			o += bl;
		}
		if (coll_sched_send(s, hdr, (size_t)len * sizeof(uint64_t), dr) ||
		    coll_sched_send(s, tmp, total, dr))
			return -1;
	}
	/* the blocks that stay, the senders' own among them, last */
	for (j = 1; j < pl.n0; j++) {
		int r = sender_rank(&pl, j);
		size_t len;
		const char *src = coll_block(sbuf, v, ucount, extent, r, &len);

		if (coll_sched_send(s, src, len, r))
			return -1;
	}
	if (rbuf) {
		size_t len;
		const char *src = coll_block(sbuf, v, ucount, extent, root, &len);

		if (coll_sched_copy(s, src, rbuf, len))
			return -1;
	}
	return 0;
}

int coll_build_gatherv_lanes(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			     const struct coll_v *v, size_t ucount, size_t extent, int root)
{
	struct plan pl;
	const struct coll_sites *ss = s->c.sites;
	int me = s->c.rank, mysite = ss->site[me], g, i, j, t, k, n, b;
	struct vpatch *p;

	if (plan_make(s, &pl, root, lanes_v_bytes, 1))
		return -1;
	if (mysite != pl.rsite) {
		int P = pl.P[mysite], lane = ss->lane % P, sender;
		int len = lane_len(&pl, mysite, lane);
		uint64_t *hdr;

		if (ss->lane >= P) {
			/* a far rank: its size, then its block, to its lane's Dep_recv */
			int dr = lane_rank(&pl, mysite, lane, 0);

			if (!(hdr = coll_sched_tmp(s, sizeof(*hdr))))
				return -1;
			*hdr = slen;
			if (coll_sched_send(s, hdr, sizeof(*hdr), dr))
				return -1;
			return coll_sched_send(s, sbuf, slen, dr);
		}
		/* Dep_recv: the sizes of its lane, its blocks, then all across */
		sender = sender_rank(&pl, lane_sender(&pl, mysite, lane));
		if (!(p = vpatch_new(s, len, 1)))
			return -1;
		p->sz[0] = slen;
		for (i = 1; i < len; i++)
			if (coll_sched_recv(s, p->sz + i, sizeof(uint64_t),
					    lane_rank(&pl, mysite, lane, i)))
				return -1;
		coll_sched_fence(s);
		if (coll_sched_call(s, vpatch_run, p) || coll_sched_copy(s, sbuf, p, 1))
			return -1;
		vpatch_block(s, p, 0, VP_DST);
		for (i = 1; i < len; i++) {
			if (coll_sched_recv(s, NULL, 0, lane_rank(&pl, mysite, lane, i)))
				return -1;
			vpatch_block(s, p, i, VP_DST);
		}
		coll_sched_fence(s);
		if (coll_sched_send(s, p->sz, (size_t)len * sizeof(uint64_t), sender) ||
		    coll_sched_send(s, NULL, 0, sender))
			return -1;
		vpatch_seg(s, p, 0, 0, len);
		return 0;
	}
	if (me != root) {
		j = sender_index(&pl, me);
		if (coll_sched_send(s, sbuf, slen, root))
			return -1;
		if (j >= nsenders(&pl))
			return 0;
		/* a sender: every lane's header, then every lane at once, then
		 * block by block to the root */
		n = sender_blocks(&pl, j);
		if (!(p = vpatch_new(s, n, sender_nlanes(&pl, j))))
			return -1;
		for (g = lane_first(&pl, j), b = 0; g >= 0; g = lane_next(&pl, j, g)) {
			lane_of_global(&pl, g, &t, &k);
			if (coll_sched_recv(s, p->sz + b, (size_t)lane_len(&pl, t, k) * sizeof(uint64_t),
					    lane_rank(&pl, t, k, 0)))
				return -1;
			b += lane_len(&pl, t, k);
		}
		coll_sched_fence(s);
		if (coll_sched_call(s, vpatch_run, p))
			return -1;
		for (g = lane_first(&pl, j), b = 0, n = 0; g >= 0; g = lane_next(&pl, j, g), n++) {
			lane_of_global(&pl, g, &t, &k);
			if (coll_sched_recv(s, NULL, 0, lane_rank(&pl, t, k, 0)))
				return -1;
			vpatch_seg(s, p, n, b, lane_len(&pl, t, k));
			b += lane_len(&pl, t, k);
		}
		coll_sched_fence(s);
		for (b = 0; b < p->nb; b++) {
			if (coll_sched_send(s, NULL, 0, root))
				return -1;
			vpatch_block(s, p, b, VP_SRC);
		}
		return 0;
	}
	/* the root: every receive at once, into place, its own lanes through
	 * a buffer (their headers only confirm what it knows) */
	if (sbuf) {
		size_t mine;

		coll_block(rbuf, v, ucount, extent, root, &mine);
		if (check_own(s, slen, mine))
			return -1;
	}
	for (j = 1; j < pl.n0; j++) {
		int r = sender_rank(&pl, j);
		size_t len;
		char *dst = coll_block(rbuf, v, ucount, extent, r, &len);

		if (coll_sched_recv(s, dst, len, r))
			return -1;
		if (j >= nsenders(&pl))
			continue;
		for (g = lane_first(&pl, j); g >= 0; g = lane_next(&pl, j, g)) {
			lane_of_global(&pl, g, &t, &k);
			for (i = 0; i < lane_len(&pl, t, k); i++) {
				dst = coll_block(rbuf, v, ucount, extent, lane_rank(&pl, t, k, i), &len);
				if (coll_sched_recv(s, dst, len, r))
					return -1;
			}
		}
	}
	n = sender_nlanes(&pl, 0);
	{
		char **tmps;

		if (!(tmps = coll_sched_tmp(s, (size_t)(n ? n : 1) * sizeof(*tmps))))
			return -1;
		for (g = lane_first(&pl, 0), n = 0; g >= 0; g = lane_next(&pl, 0, g), n++) {
			int len, dr;
			size_t total = 0, bl;
			uint64_t *hdr;

			lane_of_global(&pl, g, &t, &k);
			len = lane_len(&pl, t, k);
			dr = lane_rank(&pl, t, k, 0);
			for (i = 0; i < len; i++) {
				coll_block(rbuf, v, ucount, extent, lane_rank(&pl, t, k, i), &bl);
				total += bl;
			}
			if (!(hdr = coll_sched_tmp(s, (size_t)len * sizeof(uint64_t))) ||
			    !(tmps[n] = coll_sched_tmp(s, total)))
				return -1;
			if (coll_sched_recv(s, hdr, (size_t)len * sizeof(uint64_t), dr) ||
			    coll_sched_recv(s, tmps[n], total, dr))
				return -1;
		}
		if (sbuf) {
			size_t len;
			char *dst = coll_block(rbuf, v, ucount, extent, root, &len);

			if (coll_sched_copy(s, sbuf, dst, len))
				return -1;
		}
		coll_sched_fence(s);
		for (g = lane_first(&pl, 0), n = 0; g >= 0; g = lane_next(&pl, 0, g), n++) {
			size_t o = 0, bl;

			lane_of_global(&pl, g, &t, &k);
			for (i = 0; i < lane_len(&pl, t, k); i++) {
				char *dst = coll_block(rbuf, v, ucount, extent,
						       lane_rank(&pl, t, k, i), &bl);

				if (coll_sched_copy(s, tmps[n] + o, dst, bl))
					return -1;
				o += bl;
			}
		}
	}
	return 0;
}
