/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_rail.c: the rails of a peer pair and their weights
 * (tcp_rail.h has the rules).
 */
#include "tcp_rail.h"

#include <arpa/inet.h>

#define WS_EPS 1e-9

static uint32_t rail_mask(int prefix)
{
	if (prefix <= 0)
		return 0;
	if (prefix >= 32)
		return 0xffffffffu;
	return ~0u << (32 - prefix);
}

int tcp_rails_pair(const struct tcp_rail_addr *l, int nl, const struct tcp_rail_addr *p,
		   int np, struct tcp_rail_pair *out, int max)
{
	unsigned used = 0;   /* peer addresses taken (np <= 32) */
	int i, j, n = 0;

	if (np > 32)
		np = 32;
	for (i = 0; i < nl && n < max; i++) {
		for (j = 0; j < np; j++) {
			int pre = l[i].prefix < p[j].prefix ? l[i].prefix : p[j].prefix;
			uint32_t m = rail_mask(pre);

			if ((used >> j) & 1u)
				continue;
			/* a /0 matches everything: no subnet to go by */
			if (pre <= 0 || ((ntohl(l[i].addr) ^ ntohl(p[j].addr)) & m))
				continue;
			out[n].local = i;
			out[n].peer = j;
			n++;
			used |= 1u << j;
			break;
		}
	}
	return n;
}

/* What the rules read of rail k's report: R_k, A_k = min(1, R_k / S_k),
 * our part of the link R_k / R_jk (at most 1) and b_k (at least 0.05: a
 * rail barely used has a rate that is a guess). Returns 0 when there is
 * nothing to judge the rail by (it gets the floor); need_path: R_jk too. */
static int rail_obs(const struct tcp_rail_report *rep, const uint64_t *sent, int k,
		    int need_path, double *R, double *A, double *part, double *b)
{
	if (!rep || !sent || !sent[k] || !rep[k].arrive || (need_path && !rep[k].path_total))
		return 0;
	*R = (double)rep[k].arrive;
	*A = *R < (double)sent[k] ? *R / (double)sent[k] : 1.0;
	*part = rep[k].path_total ? *R / (double)rep[k].path_total : 1.0;
	if (*part > 1)
		*part = 1;
	*b = rep[k].busy && rep[k].busy < 1000000 ? rep[k].busy / 1e6 : 1.0;
	if (*b < 0.05)
		*b = 0.05;
	return 1;
}

/* paper: W_k = c_k * (R_k / R_jk) * A_k, c_k the rail's rate while busy
 * (R_k / b_k) where we are nearly alone on the receiver's link (our part
 * at least ALONE), else the mean of those rates, else 1 (see tcp_rail.h) */
#define ALONE 0.9
static void weights_paper(int nrails, const int *live, const struct tcp_rail_report *rep,
			  const uint64_t *sent, double *w)
{
	double part[TCP_RAILS_MAX], A[TCP_RAILS_MAX], c[TCP_RAILS_MAX], known = 0;
	int k, nknown = 0, ok[TCP_RAILS_MAX];

	for (k = 0; k < nrails && k < TCP_RAILS_MAX; k++) {
		double R, b;

		w[k] = 0;
		ok[k] = (!live || live[k]) && rail_obs(rep, sent, k, 1, &R, &A[k], &part[k], &b);
		if (!ok[k])
			continue;   /* the floor */
		c[k] = 0;
		if (part[k] >= ALONE) {
			c[k] = R / b;
			known += c[k];
			nknown++;
		}
	}
	for (k = 0; k < nrails && k < TCP_RAILS_MAX; k++)
		if (ok[k])
			w[k] = (c[k] > 0 ? c[k] : nknown ? known / nknown : 1.0) * part[k] * A[k];
}

void tcp_weights_raw(enum tcp_weight_rule rule, int nrails, const int *live,
		     const struct tcp_rail_report *rep, const uint64_t *sent, const double *rate,
		     double *w)
{
	int k;

	if (rule == TCP_WEIGHTS_PAPER) {
		weights_paper(nrails, live, rep, sent, w);
		return;
	}
	for (k = 0; k < nrails; k++) {
		w[k] = 0;
		if (live && !live[k])
			continue;
		switch (rule) {
		case TCP_WEIGHTS_ROUND_ROBIN:
			w[k] = 1;
			break;
		case TCP_WEIGHTS_LINKS:
			w[k] = 1.0 / (rep && rep[k].users > 1 ? rep[k].users : 1);
			break;
		case TCP_WEIGHTS_STATIC:
			w[k] = rate && rate[k] > 0 ? rate[k] : 0;
			break;
		case TCP_WEIGHTS_FEEDBACK:
		case TCP_WEIGHTS_RATE: {
			double R, A, part, b;

			if (!rail_obs(rep, sent, k, rule == TCP_WEIGHTS_FEEDBACK, &R, &A, &part, &b))
				break;   /* the floor */
			w[k] = R / b * A * (rule == TCP_WEIGHTS_FEEDBACK ? part : 1.0);
			break;
		}
		case TCP_WEIGHTS_PAPER:
			break;   /* above */
		}
	}
}

void tcp_weights_smooth(int nrails, const int *live, const double *raw, double beta,
			double floor_share, double *share)
{
	double fl = floor_share > 0 ? floor_share : 0, sum_raw = 0, sum_old = 0;
	int k, it, nlive = 0;

	if (beta < 0)
		beta = 0;
	if (beta > 1)
		beta = 1;
	for (k = 0; k < nrails; k++) {
		if (live && !live[k]) {
			share[k] = 0;
			continue;
		}
		nlive++;
		sum_raw += raw[k] > 0 ? raw[k] : 0;
		sum_old += share[k] > 0 ? share[k] : 0;
	}
	if (!nlive)
		return;
	if (fl * nlive > 1)
		fl = 1.0 / nlive;
	for (k = 0; k < nrails; k++) {
		double old, target;

		if (live && !live[k])
			continue;
		old = sum_old > 0 ? (share[k] > 0 ? share[k] : 0) / sum_old : 1.0 / nlive;
		target = sum_raw > 0 ? (raw[k] > 0 ? raw[k] : 0) / sum_raw : old;
		share[k] = (1 - beta) * old + beta * target;
	}
	/* the floor: rails under it are raised to it, the others scaled to
	 * make room (which may take another rail under it: a pass a rail) */
	for (it = 0; it < nrails && fl > 0; it++) {
		double rest = 0;
		int nlow = 0;

		for (k = 0; k < nrails; k++) {
			if (live && !live[k])
				continue;
			if (share[k] < fl + WS_EPS)
				nlow++;
			else
				rest += share[k];
		}
		if (!nlow)
			break;
		for (k = 0; k < nrails; k++) {
			if (live && !live[k])
				continue;
			share[k] = share[k] < fl + WS_EPS ? fl :
				   rest > 0 ? share[k] * (1 - fl * nlow) / rest : fl;
		}
	}
}
