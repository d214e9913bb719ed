/* SPDX-License-Identifier: MIT */
/*
 * coll/lanes_params.c: the cost model's parameters a communicator that
 * spans sites uses (coll/lanes_params.h): agreed from a profile or
 * measured at its first grid collective, refined from what its grid
 * collectives observe. Every decision below depends only on data all
 * ranks of the communicator hold alike, so every rank holds the same
 * parameters after every call and chooses the same P.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanes_params.h"
#include "schedule.h"

static size_t probe_bytes = 524288;
MICHI_TUNABLE(probe_bytes, "lanes_probe_bytes", MICHI_T_SIZE, "512k", MICHI_LEVEL_TUNER,
	      "bytes each lane streams across the WAN in the first-use measurement of a "
	      "communicator without a grid profile (below tcp_stripe_min, so one socket a lane)");
static int refine_every = 4;
MICHI_TUNABLE(refine_every, "lanes_refine_every", MICHI_T_INT, "4", MICHI_LEVEL_TUNER,
	      "grid collectives between two refinements of b_WAN(P) from the times the lanes "
	      "observed (one small allreduce each; 0: never refine)");
static double refine_weight = 0.5;
MICHI_TUNABLE(refine_weight, "lanes_refine_weight", MICHI_T_DOUBLE, "0.5", MICHI_LEVEL_TUNER,
	      "how far one refinement moves b_WAN(P) towards the observed per-lane rate "
	      "(moving average weight, 0 to 1)");

#define PINGS 5

struct lanes_grid {
	int nsites, npairs;
	int ready;             /* parameters agreed */
	unsigned calls;        /* grid collectives since then */
	char (*names)[LANES_SITE_NAME];
	char *profile;         /* the profile's text (comm rank 0), or NULL */
	struct lanes_params *pair;   /* pair index pair_of(sa, sb) */
	double *obs;           /* per pair and P: sum of rates, then count */
};

static int pair_of(const struct lanes_grid *g, int sa, int sb)
{
	if (sa > sb) {
		int t = sa;
		sa = sb;
		sb = t;
	}
	return sa * g->nsites - sa * (sa + 1) / 2 + (sb - sa - 1);
}

struct lanes_grid *lanes_grid_new(int nsites, const char *const *names, const char *profile)
{
	int np = nsites * (nsites - 1) / 2, i;
	struct lanes_grid *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->nsites = nsites;
	g->npairs = np;
	g->names = calloc((size_t)nsites, sizeof(*g->names));
	g->pair = calloc((size_t)np, sizeof(*g->pair));
	g->obs = calloc((size_t)np * 2 * LANES_PMAX, sizeof(double));
	if (profile)
		g->profile = strdup(profile);
	if (!g->names || !g->pair || !g->obs || (profile && !g->profile)) {
		lanes_grid_free(g);
		return NULL;
	}
	for (i = 0; i < nsites; i++) {
		strncpy(g->names[i], names[i], LANES_SITE_NAME - 1);
		g->names[i][LANES_SITE_NAME - 1] = '\0';
	}
	return g;
}

void lanes_grid_free(struct lanes_grid *g)
{
	if (!g)
		return;
	free(g->names);
	free(g->profile);
	free(g->pair);
	free(g->obs);
	free(g);
}

const char *lanes_grid_site_name(const struct lanes_grid *g, int s)
{
	return g && s >= 0 && s < g->nsites ? g->names[s] : NULL;
}

/* ---- blocking exchanges on the lanes' tag ---------------------------- */

static michi_status_t xfer(const struct coll_comm *c, void *buf, size_t len, int peer, int send)
{
	struct coll_sched *s = coll_sched_new(c, COLL_TAG_LANES, NULL);

	if (!s)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the lanes' measurement");
	if (send)
		(void)coll_sched_send(s, buf, len, peer);
	else
		(void)coll_sched_recv(s, buf, len, peer);
	return coll_sched_run(s);
}

/* out (olen bytes) then back (blen bytes) when first, else the reverse. */
static michi_status_t there_and_back(const struct coll_comm *c, int peer, int first, void *out,
				     size_t olen, void *back, size_t blen)
{
	michi_status_t st;

	if (first) {
		st = xfer(c, out, olen, peer, 1);
		return st != MICHI_OK ? st : xfer(c, back, blen, peer, 0);
	}
	st = xfer(c, out, olen, peer, 0);
	return st != MICHI_OK ? st : xfer(c, back, blen, peer, 1);
}

/* Half the fastest of PINGS round trips of 8 bytes with peer (the side
 * with `first` sends first and measures). */
static michi_status_t pingpong(const struct coll_comm *c, int peer, int first, double *half)
{
	char b[8] = {0};
	michi_status_t st = MICHI_OK;
	int i;

	*half = INFINITY;
	for (i = 0; i < PINGS && st == MICHI_OK; i++) {
		double t = michi_wtime();

		st = there_and_back(c, peer, first, b, sizeof(b), b, sizeof(b));
		t = (michi_wtime() - t) / 2;
		if (t < *half)
			*half = t;
	}
	return st;
}

/* The time data took, t seconds measured for it and its answer: the
 * round trip's latency (2 lat) taken out, but at most half of t. On a
 * busy host the fastest of the pings can still take longer than a
 * loopback burst (L 0.38 ms against a 512 KiB burst once, in CI), and a
 * rate from nothing or less than nothing would be no rate at all. */
static double data_time(double t, double lat)
{
	return t - 2 * lat > t / 2 ? t - 2 * lat : t / 2;
}

/* len bytes to peer and its one-byte answer: the rate the data crossed
 * at (data_time). The peer calls with send 0. */
static michi_status_t burst(const struct coll_comm *c, char *buf, size_t len, int peer, int send,
			    double lat, double *rate)
{
	char ack = 0;
	michi_status_t st;
	double t = michi_wtime();

	st = there_and_back(c, peer, send, buf, len, &ack, 1);
	if (!send)
		return st;
	t = data_time(michi_wtime() - t, lat);
	*rate = t > 0 ? (double)len / t : 0;
	return st;
}

static void sum_doubles(const struct coll_op *o, const void *in, void *inout, size_t count)
{
	const double *a = in;
	double *b = inout;
	size_t i;

	(void)o;
	for (i = 0; i < count; i++)
		b[i] += a[i];
}

static michi_status_t allreduce_sum(const struct coll_comm *c, double *v, size_t n)
{
	static const struct coll_op op = { sum_doubles, 0, 0, sizeof(double), 1 };
	double *in = malloc(n * sizeof(double));
	michi_status_t st;

	if (!in)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the lanes' agreement");
	memcpy(in, v, n * sizeof(double));
	st = coll_allreduce_recdbl(c, in, v, n, &op);
	free(in);
	return st;
}

/* Per pair in the agreement's vector: known, L, alpha, b_lan, pmax, then
 * b_wan (the profile's) or b_WAN(1) and the P_sup lanes' rates summed
 * (measured); then the profile's b_out and b_in tables (their lengths at
 * SLOT_HOST, the entries after them), which a first-use measurement
 * leaves empty. */
#define SLOT_HOST (6 + LANES_PMAX)
#define SLOT (SLOT_HOST + 2 + 2 * LANES_PMAX)

/*
 * The first-use measurement of sites sa and sb into v (this rank's
 * shares; summed over the ranks afterwards): the lane-0 ranks' ping-pong
 * (L); lane 0 and lane 1 of sa, or of sb, for alpha and b_LAN; lane 0
 * alone, then every one of the P_sup lanes at once after lane 0 of sa
 * says go, streaming probe_bytes each (b_WAN(1) and b_WAN(P_sup)).
 */
static michi_status_t measure(const struct coll_comm *c, int sa, int sb, double *v)
{
	const struct coll_sites *ss = c->sites;
	int na = ss->first[sa + 1] - ss->first[sa], nb = ss->first[sb + 1] - ss->first[sb];
	int psup = na < nb ? na : nb, me = c->rank, k;
	int a0 = ss->members[ss->first[sa]], b0 = ss->members[ss->first[sb]];
	int ls = na > 1 ? sa : sb, l0 = ss->members[ss->first[ls]];
	int l1 = ss->first[ls + 1] - ss->first[ls] > 1 ? ss->members[ss->first[ls] + 1] : -1;
	int mysite = ss->site[me], mylane = ss->lane_of[me];
	size_t len = probe_bytes ? probe_bytes : 1;
	michi_status_t st = MICHI_OK;
	double L = 0, alpha = 0, rate = 0;
	char *buf, go = 0;

	if (psup > LANES_PMAX)
		psup = LANES_PMAX;
	if (me != a0 && me != b0 && me != l0 && me != l1 &&
	    !((mysite == sa || mysite == sb) && mylane < psup))
		return MICHI_OK;
	if (!(buf = calloc(1, len)))
		return michi_err(MICHI_ERR_NOMEM, "no memory for the lanes' probe (%zu bytes)", len);
	/* inside a site first, so that the WAN pair below waits for no one */
	if (l1 >= 0 && (me == l0 || me == l1)) {
		st = pingpong(c, me == l0 ? l1 : l0, me == l0, &alpha);
		if (st == MICHI_OK)
			st = burst(c, buf, len, me == l0 ? l1 : l0, me == l0, alpha, &rate);
		if (me == l0) {
			v[2] = alpha;
			v[3] = rate;
		}
	}
	if (st == MICHI_OK && (me == a0 || me == b0))
		st = pingpong(c, me == a0 ? b0 : a0, me == a0, &L);
	if (st == MICHI_OK && me == a0) {
		v[1] = L;
		st = burst(c, buf, len, b0, 1, L, &v[5]);
		for (k = 1; k < psup && st == MICHI_OK; k++)
			st = xfer(c, &go, 1, ss->members[ss->first[sa] + k], 1);
	} else if (st == MICHI_OK && me == b0) {
		st = burst(c, buf, len, a0, 0, 0, &rate);
	} else if (st == MICHI_OK && mysite == sa && mylane < psup) {
		st = xfer(c, &go, 1, a0, 0);
	}
	/* then every lane at once: the senders time their burst and its
	 * answer; the round trip's latency, the lane-0 L, comes out once the
	 * times are summed (params_from) */
	if (st == MICHI_OK && psup > 1 && mylane < psup && (mysite == sa || mysite == sb)) {
		int peer = ss->members[ss->first[mysite == sa ? sb : sa] + mylane];

		if (mysite == sa) {
			double t = michi_wtime();
			char ack;

			st = there_and_back(c, peer, 1, buf, len, &ack, 1);
			v[6 + mylane] = michi_wtime() - t;
		} else {
			st = burst(c, buf, len, peer, 0, 0, &rate);
		}
	}
	free(buf);
	return st;
}

/* The parameters of pair i from the summed vector w (SLOT doubles). */
static void params_from(struct lanes_params *p, const double *w, int psup)
{
	int P;

	memset(p, 0, sizeof(*p));
	p->L = w[1];
	p->alpha = w[2];
	p->b_lan = w[3];
	if (w[0] > 0) {   /* the profile's */
		p->pmax = (int)w[4];
		for (P = 0; P < p->pmax; P++)
			p->b_wan[P] = w[5 + P];
		/* how a host's flows across add up (coll/lanes_model.h: b_out,
		 * b_in), without which the model takes hosts as node-limited */
		p->bout_max = (int)w[SLOT_HOST];
		p->bin_max = (int)w[SLOT_HOST + 1];
		for (P = 0; P < p->bout_max; P++)
			p->b_out[P] = w[SLOT_HOST + 2 + P];
		for (P = 0; P < p->bin_max; P++)
			p->b_in[P] = w[SLOT_HOST + 2 + LANES_PMAX + P];
	} else {          /* measured: lane k's burst took w[6 + k] seconds */
		double sum = 0, len = (double)(probe_bytes ? probe_bytes : 1);

		for (P = 0; P < psup && psup > 1; P++) {
			double t = data_time(w[6 + P], p->L);

			sum += t > 0 ? len / t : 0;
		}
		lanes_params_interpolate(p, psup, w[5], psup, psup > 1 ? sum / psup : w[5]);
	}
	/* more lanes than the profile measured: ideal sharing of the most it
	 * saw in all */
	if (p->pmax > 0 && p->pmax < psup) {
		double path = p->pmax * p->b_wan[p->pmax - 1];

		for (P = p->pmax + 1; P <= psup; P++)
			p->b_wan[P - 1] = path / P;
		p->pmax = psup;
	}
}

static michi_status_t agree(const struct coll_comm *c, struct lanes_grid *g)
{
	const struct coll_sites *ss = c->sites;
	size_t n = (size_t)g->npairs * SLOT;
	double *v = calloc(n, sizeof(double));
	struct lanes_profile_entry *e = NULL;
	michi_status_t st = MICHI_OK;
	int sa, sb, ne = 0;

	if (!v)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the lanes' agreement");
	if (c->rank == 0 && g->profile) {
		char err[200];

		e = malloc(256 * sizeof(*e));
		ne = e ? lanes_profile_parse(g->profile, e, 256, err, sizeof(err)) : 0;
		if (ne < 0) {
			michi_warn("grid profile (MICHI_GRID_PROFILE): %s; measuring instead", err);
			ne = 0;
		}
		for (sa = 0; sa < g->nsites; sa++)
			for (sb = sa + 1; sb < g->nsites; sb++) {
				int i = lanes_profile_find(e, ne, g->names[sa], g->names[sb]), P;
				double *w = v + (size_t)pair_of(g, sa, sb) * SLOT;

				if (i < 0)
					continue;
				w[0] = 1;
				w[1] = e[i].p.L;
				w[2] = e[i].p.alpha;
				w[3] = e[i].p.b_lan;
				w[4] = e[i].p.pmax;
				for (P = 0; P < e[i].p.pmax; P++)
					w[5 + P] = e[i].p.b_wan[P];
				w[SLOT_HOST] = e[i].p.bout_max;
				w[SLOT_HOST + 1] = e[i].p.bin_max;
				for (P = 0; P < e[i].p.bout_max; P++)
					w[SLOT_HOST + 2 + P] = e[i].p.b_out[P];
				for (P = 0; P < e[i].p.bin_max; P++)
					w[SLOT_HOST + 2 + LANES_PMAX + P] = e[i].p.b_in[P];
			}
		free(e);
	}
	st = allreduce_sum(c, v, n);
	for (sa = 0; sa < g->nsites && st == MICHI_OK; sa++)
		for (sb = sa + 1; sb < g->nsites && st == MICHI_OK; sb++) {
			double *w = v + (size_t)pair_of(g, sa, sb) * SLOT;

			if (w[0] > 0)
				continue;
			memset(w, 0, SLOT * sizeof(double));
			st = measure(c, sa, sb, w);
			w[0] = 0;
		}
	/* the measured pairs' shares summed; the profile's (all zero but on
	 * rank 0) pass through unchanged */
	for (sa = 0; sa < g->npairs && st == MICHI_OK; sa++)
		if (v[(size_t)sa * SLOT] > 0 && c->rank != 0)
			memset(v + (size_t)sa * SLOT, 0, SLOT * sizeof(double));
	if (st == MICHI_OK)
		st = allreduce_sum(c, v, n);
	for (sa = 0; sa < g->nsites && st == MICHI_OK; sa++)
		for (sb = sa + 1; sb < g->nsites; sb++) {
			int na = ss->first[sa + 1] - ss->first[sa], nb = ss->first[sb + 1] - ss->first[sb];
			int psup = na < nb ? na : nb, i = pair_of(g, sa, sb), P;
			struct lanes_params *p = &g->pair[i];
			const double *w = v + (size_t)i * SLOT;

			params_from(p, w, psup > LANES_PMAX ? LANES_PMAX : psup);
			if (c->rank == 0 && michi_log_level >= MICHI_LOG_INFO) {
				char line[64 + 16 * LANES_PMAX];
				size_t at = 0;

				for (P = 0; P < p->pmax && at < sizeof(line); P++)
					at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%.3g",
							       P ? "," : "", p->b_wan[P] * 8e-6);
				michi_info("lanes: sites %s and %s (%s): L %.3g ms, alpha %.3g ms, "
					   "b_lan %.3g Mb/s, b_wan(1..%d) %s Mb/s", g->names[sa],
					   g->names[sb], w[0] > 0 ? "profile" : "measured at first use",
					   p->L * 1e3, p->alpha * 1e3, p->b_lan * 8e-6, p->pmax, line);
			}
		}
	free(v);
	return st;
}

/* Fold what the lanes observed since the last refinement into b_WAN(P),
 * alike on every rank. */
static michi_status_t refine(const struct coll_comm *c, struct lanes_grid *g)
{
	size_t n = (size_t)g->npairs * 2 * LANES_PMAX;
	michi_status_t st = allreduce_sum(c, g->obs, n);
	int i, P;

	for (i = 0; i < g->npairs && st == MICHI_OK; i++)
		for (P = 1; P <= g->pair[i].pmax; P++) {
			const double *o = g->obs + ((size_t)i * LANES_PMAX + (size_t)(P - 1)) * 2;

			if (o[1] > 0) {
				lanes_params_refine(&g->pair[i], P, o[0] / o[1], refine_weight);
				if (c->rank == 0)
					michi_debug("lanes: pair %d, b_wan(%d) now %.3g Mb/s from %g "
						    "observations", i, P, g->pair[i].b_wan[P - 1] * 8e-6,
						    o[1]);
			}
		}
	memset(g->obs, 0, n * sizeof(double));
	return st;
}

const struct lanes_params *lanes_params_for(const struct coll_comm *c, int sa, int sb,
					    int may_block)
{
	struct lanes_grid *g = c->sites ? c->sites->grid : NULL;

	if (!g || sa == sb || sa < 0 || sb < 0 || sa >= g->nsites || sb >= g->nsites)
		return NULL;
	if (!may_block)
		return g->ready ? &g->pair[pair_of(g, sa, sb)] : NULL;
	if (!g->ready) {
		if (agree(c, g) != MICHI_OK)
			return NULL;
		g->ready = 1;
	} else if (refine_every > 0 && ++g->calls % (unsigned)refine_every == 0) {
		if (refine(c, g) != MICHI_OK)
			return NULL;
	}
	return &g->pair[pair_of(g, sa, sb)];
}

void lanes_observe(const struct coll_comm *c, int sa, int sb, int P, size_t bytes, double seconds)
{
	struct lanes_grid *g = c->sites ? c->sites->grid : NULL;
	double *o;
	int i;

	if (!g || !g->ready || sa == sb || P < 1 || P > LANES_PMAX)
		return;
	i = pair_of(g, sa, sb);
	/* the time holds one WAN latency besides the bytes; a transfer not
	 * much longer than that says nothing about the rate */
	if (seconds <= 2 * g->pair[i].L)
		return;
	o = g->obs + ((size_t)i * LANES_PMAX + (size_t)(P - 1)) * 2;
	o[0] += (double)bytes / (seconds - g->pair[i].L);
	o[1] += 1;
}
