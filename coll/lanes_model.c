/* SPDX-License-Identifier: MIT */
/*
 * coll/lanes_model.c: the multilane Scatter/Gather cost model (see
 * lanes_model.h for the formulas and what each term stands for) and the
 * parser of its parameters' text form, shared by the tunable, the
 * calibration profile and the unit tests.
 */
#include "lanes_model.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int lanes_X(int P, int n1)
{
	return n1 / P + (n1 % P != 0);
}

int lanes_Y(int P, int n0, int n1)
{
	if (n0 >= n1)
		return n0 + n1 - 1 - lanes_X(P, n1);
	/* the root's step-1 sends (P - 1 own blocks of the senders, n1 - X
	 * lane blocks) and then the last lane's X - 1 sends at the far site */
	return n1 + P - 2;
}

double lanes_b_wan(const struct lanes_params *p, int P)
{
	int m = p->pmax < 1 ? 1 : p->pmax > LANES_PMAX ? LANES_PMAX : p->pmax;

	if (P <= m)
		return p->b_wan[P - 1];
	return p->b_wan[m - 1] * m / P;
}

double lanes_T(const struct lanes_params *p, int P, int n0, int n1, double M)
{
	return p->L + lanes_X(P, n1) * M / lanes_b_wan(p, P)
		+ lanes_Y(P, n0, n1) * M / p->b_lan + p->alpha;
}

double lanes_T_simple(const struct lanes_params *p, int n0, int n1, double M)
{
	int nalt = n0 > n1 ? n0 : n1;

	return p->L + n1 * M / lanes_b_wan(p, 1) + (nalt - 1) * M / p->b_lan + p->alpha;
}

int lanes_choose(const struct lanes_params *p, int n0, int n1, double M)
{
	int sup = n0 < n1 ? n0 : n1, best = 1, P;
	double tbest;

	if (sup > LANES_PMAX)
		sup = LANES_PMAX;
	if (sup < 1)
		return 1;
	tbest = lanes_T(p, 1, n0, n1, M);
	for (P = 2; P <= sup; P++) {
		double t = lanes_T(p, P, n0, n1, M);

		/* strictly less: equal times keep the smaller P, which uses
		 * fewer hosts for the same predicted time */
		if (t < tbest) {
			tbest = t;
			best = P;
		}
	}
	return best;
}

int lanes_choose_gather(const struct lanes_params *p, int n0, int n1, double M)
{
	return lanes_choose(p, n0, n1, M);
}

double lanes_b_end(const struct lanes_params *p, int dir, int h)
{
	int m = dir == LANES_GATHER ? p->bin_max : p->bout_max;
	const double *b = dir == LANES_GATHER ? p->b_in : p->b_out;

	if (m < 1)
		return lanes_b_wan(p, 1);
	if (m > LANES_PMAX)
		m = LANES_PMAX;
	return b[(h < m ? h : m) - 1];
}

double lanes_rate(const struct lanes_params *p, int dir, int P, int h)
{
	int m = dir == LANES_GATHER ? p->bin_max : p->bout_max;
	double r = lanes_b_wan(p, P), e;

	/* node-limited without a table: h = 1 is the paper's lane */
	if (m < 1 && h == 1)
		return r;
	e = lanes_b_end(p, dir, h) / h;
	return e < r ? e : r;
}

int lanes_B0(int P, int h, int n1)
{
	int k, b = 0;

	for (k = 0; k < h && k < P; k++)
		b += (n1 - k + P - 1) / P;
	return b;
}

int lanes_hosts(int dir, int P, int n0)
{
	return dir == LANES_GATHER && P > 1 && n0 > 1 ? n0 - 1 : n0;
}

int lanes_h_min(int dir, int P, int n0)
{
	int m = lanes_hosts(dir, P, n0);

	return m < 1 ? P : (P + m - 1) / m;
}

int lanes_Y_h(int P, int h, int n0, int n1)
{
	int S = (P + h - 1) / h, B0 = lanes_B0(P, h, n1);

	if (n0 >= n1)
		return n0 - 1 + n1 - B0;
	return S - 1 + n1 - B0 + lanes_X(P, n1) - 1;
}

double lanes_T_h(const struct lanes_params *p, int dir, int P, int h, int n0, int n1, double M)
{
	int X = lanes_X(P, n1), nfull, k, F = 0;
	double nic, r, t, w;

	if (dir != LANES_GATHER)
		return p->L + X * M / lanes_rate(p, dir, P, h)
			+ lanes_Y_h(P, h, n0, n1) * M / p->b_lan + p->alpha;
	/* Gather: everything moves at once; the root's NIC takes every
	 * block in, or the fullest lane (its far collection, its crossing)
	 * and what follows it through that NIC is longer */
	nic = (n0 - 1 + n1) * M / p->b_lan;
	r = lanes_rate(p, dir, P, h);
	w = (X - 1) * M / p->b_lan + X * M / r;
	if (lanes_hosts(dir, P, n0) == n0)
		/* the root's own lanes: they arrive in place */
		return p->L + (nic > w ? nic : w) + p->alpha;
	/* the senders hand their lanes on once all are in: lanes k < nfull
	 * hold X blocks, the rest X - 1; sender j drives lanes jh..jh+h-1 */
	nfull = n1 - P * (X - 1);
	for (k = 0; k < P; k++)
		if ((k / h) * h < nfull)
			F += (n1 - k + P - 1) / P;
	t = w + F * M / p->b_lan;
	if (t < nic)
		t = nic;
	if (nfull < P && X > 1) {
		double ws = (X - 2) * M / p->b_lan + (X - 1) * M / r + n1 * M / p->b_lan;

		if (ws > t)
			t = ws;
	}
	return p->L + t + p->alpha;
}

/*
 * Scatter as coll/lanes.c runs it, in a fluid model (see the header):
 * the root's sender rounds one after another, each sender's lanes
 * crossing from the end of its round, the root's own lanes and the rest
 * of its site sharing its NIC after the last round, each lane spread at
 * the far site once across. Every step of the loop starts or ends at
 * least one lane or the root's local sends, so it runs at most 2P + 1
 * times.
 */
double lanes_T_sched(const struct lanes_params *p, int P, int h, int n0, int n1, double M)
{
	double start[LANES_PMAX], rem[LANES_PMAX], rate[LANES_PMAX], t = 0, end = 0, loc;
	int S, k, j, steps, nloc, left = P;

	if (P < 1 || P > LANES_PMAX || P > n1 || h < 1 || h > P || n0 < 1 ||
	    (P + h - 1) / h > n0)
		return lanes_T_h(p, LANES_SCATTER, P, h, n0, n1, M);
	S = (P + h - 1) / h;
	for (k = 0; k < P; k++)
		rem[k] = ((n1 - k + P - 1) / P) * M;
	/* the rounds: sender j (1..S-1) gets its lanes' blocks, and its
	 * lanes cross from the end of its round */
	for (j = 1; j < S; j++) {
		int blocks = 0;

		for (k = j * h; k < P && k < j * h + h; k++)
			blocks += (n1 - k + P - 1) / P;
		t += blocks * M / p->b_lan;
		for (k = j * h; k < P && k < j * h + h; k++)
			start[k] = t;
	}
	/* the root's lanes 0..h-1 start after the rounds, with the blocks
	 * that stay in its site (the senders' own among them) */
	for (k = 0; k < h && k < P; k++)
		start[k] = t;
	nloc = n0 - 1;
	loc = nloc * M;
	end = t;
	t = 0;
	for (steps = 0; (left > 0 || loc > 0) && steps < 4 * LANES_PMAX + 4; steps++) {
		int active = 0, a[LANES_PMAX] = { 0 }, root_lanes = 0;
		double dt = 1e300, root_rate = 0, loc_rate = 0, root_t = start[0];

		for (k = 0; k < P; k++)
			if (rem[k] > 0 && start[k] <= t) {
				active++;
				a[k / h]++;
			}
		for (k = 0; k < P; k++) {
			double r;

			rate[k] = 0;
			if (!(rem[k] > 0 && start[k] <= t))
				continue;
			r = lanes_b_wan(p, active);
			if (lanes_b_end(p, LANES_SCATTER, a[k / h]) / a[k / h] < r)
				r = lanes_b_end(p, LANES_SCATTER, a[k / h]) / a[k / h];
			if (p->b_lan / a[k / h] < r)
				r = p->b_lan / a[k / h];
			rate[k] = r;
		}
		/* the root's NIC: its lanes and its site's blocks, a flow each,
		 * shared max-min fairly; the local flows take what is left */
		if (loc > 0 && t >= root_t) {
			for (k = 0; k < h && k < P; k++)
				if (rate[k] > 0)
					root_lanes++;
			for (k = 0; k < h && k < P; k++) {
				if (rate[k] > p->b_lan / (root_lanes + nloc))
					rate[k] = p->b_lan / (root_lanes + nloc);
				root_rate += rate[k];
			}
			loc_rate = p->b_lan - root_rate;
			if (loc / loc_rate < dt)
				dt = loc / loc_rate;
		} else if (loc > 0 && root_t - t < dt) {
			dt = root_t - t;
		}
		for (k = 0; k < P; k++) {
			if (rate[k] > 0 && rem[k] / rate[k] < dt)
				dt = rem[k] / rate[k];
			else if (rem[k] > 0 && start[k] > t && start[k] - t < dt)
				dt = start[k] - t;
		}
		if (!(dt < 1e300))
			break;
		t += dt;
		if (loc > 0 && loc_rate > 0) {
			loc -= loc_rate * dt;
			if (loc <= 1e-9 * M) {
				loc = 0;
				if (t > end)
					end = t;
			}
		}
		for (k = 0; k < P; k++) {
			if (!(rate[k] > 0))
				continue;
			rem[k] -= rate[k] * dt;
			if (rem[k] <= 1e-9 * M) {
				/* across: its Dep_recv hands the other blocks on */
				double done = t + ((n1 - k + P - 1) / P - 1) * M / p->b_lan;

				rem[k] = 0;
				left--;
				if (done > end)
					end = done;
			}
		}
	}
	return p->L + end + p->alpha;
}

int lanes_choose_ph(const struct lanes_params *p, int dir, int n0, int n1, double M, int *h)
{
	int sup = n1 < LANES_PMAX ? n1 : LANES_PMAX, P, hh, bestP = 1;
	double tbest;

	*h = 1;
	if (n0 < 1 || n1 < 1)
		return 1;
	tbest = lanes_T_h(p, dir, 1, 1, n0, n1, M);
	for (P = 1; P <= sup; P++)
		for (hh = lanes_h_min(dir, P, n0); hh <= P; hh++) {
			double t = lanes_T_h(p, dir, P, hh, n0, n1, M);
			/* more lanes a host saves forwarding hops where the root
			 * drives lanes; in Gather without it every lane is
			 * handed on once whatever h, and fewer a host spread
			 * the lanes over more NICs */
			int fewer_hops = lanes_hosts(dir, P, n0) == n0;

			/* clearly less; or, for the same P and where it saves
			 * hops, no more (within rounding) */
			if (t < tbest * (1 - 1e-9) ||
			    (fewer_hops && P == bestP && t <= tbest * (1 + 1e-9))) {
				tbest = t;
				bestP = P;
				*h = hh;
			}
		}
	return bestP;
}

/* A number with an optional unit; kind 't' (time: seconds) or 'r' (rate:
 * bytes/s). Returns the end of what it read, or NULL. */
static const char *parse_value(const char *s, int kind, double *out)
{
	static const struct { const char *u; char kind; double mul; } units[] = {
		{ "ns", 't', 1e-9 }, { "us", 't', 1e-6 }, { "ms", 't', 1e-3 },
		{ "s", 't', 1.0 },
		{ "gbit", 'r', 1e9 / 8 }, { "mbit", 'r', 1e6 / 8 },
		{ "kbit", 'r', 1e3 / 8 }, { "bit", 'r', 1.0 / 8 },
		{ "GiB", 'r', 1073741824.0 }, { "MiB", 'r', 1048576.0 },
		{ "KiB", 'r', 1024.0 }, { "GB", 'r', 1e9 }, { "MB", 'r', 1e6 },
		{ "KB", 'r', 1e3 }, { "B", 'r', 1.0 },
	};
	char *end;
	double v;
	size_t i, n;

	if (!isdigit((unsigned char)*s) && *s != '.')
		return NULL;
	v = strtod(s, &end);
	if (end == s || !(v > 0) || v > 1e18)
		return NULL;
	for (n = 0; isalpha((unsigned char)end[n]); n++)
		;
	if (n == 0) {
		*out = v;
		return end;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		int match;

		if (units[i].kind != kind || strlen(units[i].u) != n)
			continue;
		/* bits are spelt in any case; byte units keep the B */
		match = kind == 'r' && units[i].u[strlen(units[i].u) - 1] == 'B'
			? strncmp(end, units[i].u, n) == 0
			: strncasecmp(end, units[i].u, n) == 0;
		if (match) {
			*out = v * units[i].mul;
			return end + n;
		}
	}
	return NULL;
}

int lanes_params_parse(const char *s, struct lanes_params *p, size_t *errpos)
{
	struct lanes_params q = *p;
	const char *c = s;
	int in_wan = 0, nwan = 0;
	double *list = NULL;   /* the table the items without '=' go on */
	int *listn = NULL;

	while (*c) {
		const char *eq, *next;
		double v;

		while (*c == ' ' || *c == ',')
			c++;
		if (!*c)
			break;
		for (eq = c; *eq && *eq != '=' && *eq != ','; eq++)
			;
		if (*eq == '=') {
			size_t klen = (size_t)(eq - c);
			int kind;
			double *dst;

			in_wan = 0;
			list = NULL;
			if (klen == 1 && *c == 'L') {
				kind = 't';
				dst = &q.L;
			} else if (klen == 5 && !strncmp(c, "alpha", 5)) {
				kind = 't';
				dst = &q.alpha;
			} else if (klen == 5 && !strncmp(c, "b_lan", 5)) {
				kind = 'r';
				dst = &q.b_lan;
			} else if (klen == 5 && !strncmp(c, "b_wan", 5)) {
				kind = 'r';
				in_wan = 1;
				nwan = 0;
				dst = &q.b_wan[0];
			} else if (klen == 5 && !strncmp(c, "b_out", 5)) {
				kind = 'r';
				list = q.b_out;
				listn = &q.bout_max;
				dst = &q.b_out[0];
			} else if (klen == 4 && !strncmp(c, "b_in", 4)) {
				kind = 'r';
				list = q.b_in;
				listn = &q.bin_max;
				dst = &q.b_in[0];
			} else {
				goto bad;
			}
			next = parse_value(eq + 1, kind, &v);
			if (!next) {
				c = eq + 1;
				goto bad;
			}
			*dst = v;
			if (in_wan)
				nwan = 1;
			if (list)
				*listn = 1;
		} else if (list) {
			/* a further b_out(h) or b_in(h) entry */
			if (*listn == LANES_PMAX || !(next = parse_value(c, 'r', &v)))
				goto bad;
			list[(*listn)++] = v;
		} else {
			/* a further b_wan(P) entry */
			if (!in_wan || nwan == LANES_PMAX)
				goto bad;
			next = parse_value(c, 'r', &v);
			if (!next)
				goto bad;
			q.b_wan[nwan++] = v;
		}
		c = next;
		while (*c == ' ')
			c++;
		if (*c && *c != ',')
			goto bad;
		if (nwan)
			q.pmax = nwan;
	}
	*p = q;
	return 0;
bad:
	if (errpos)
		*errpos = (size_t)(c - s);
	return -1;
}

void lanes_params_default(struct lanes_params *p)
{
	int P;

	memset(p, 0, sizeof(*p));
	p->L = 5e-3;
	p->alpha = 300e-6;
	p->b_lan = 100e6 / 8;
	p->pmax = LANES_PMAX;
	for (P = 1; P <= LANES_PMAX; P++) {
		double per = 100e6 / 8 / P;

		p->b_wan[P - 1] = per < 25e6 / 8 ? per : 25e6 / 8;
	}
}
