/* SPDX-License-Identifier: MIT */
/*
 * util/rttgroup.c: groups of hosts from round-trip times (rttgroup.h).
 */
#include "rttgroup.h"

#include <math.h>
#include <stdlib.h>

struct rtt_pair {
	double t;
	int a, b;
};

static int pair_cmp(const void *x, const void *y)
{
	const struct rtt_pair *p = x, *q = y;

	if (p->t != q->t)
		return p->t < q->t ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

static int valid(double t)
{
	return t > 0 && isfinite(t);
}

static int root(int *up, int x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/* Hosts joined by the first `near` pairs: the number of groups, and
 * group[] numbered in the order of their lowest host. */
static int components(int n, const struct rtt_pair *pr, int near, int *up, int *group)
{
	int i, k, ng = 0;

	for (i = 0; i < n; i++)
		up[i] = i;
	for (k = 0; k < near; k++) {
		int ra = root(up, pr[k].a), rb = root(up, pr[k].b);

		if (ra != rb)
			up[ra > rb ? ra : rb] = ra < rb ? ra : rb;
	}
	/* a root is its component's lowest host: numbered on first sight */
	for (i = 0; i < n; i++) {
		int r = root(up, i);

		group[i] = r == i ? ng++ : group[r];
	}
	return ng;
}

int michi_rtt_groups(int n, const double *rtt, double ratio, double min_gap, int *group,
		     double *cut)
{
	struct rtt_pair *pr;
	int *up, i, j, k, np = 0, ng = 1;

	for (i = 0; i < n; i++)
		group[i] = 0;
	if (cut)
		*cut = 0;
	if (n < 3)
		return 1;
	pr = malloc((size_t)n * (size_t)(n - 1) / 2 * sizeof(*pr));
	up = malloc((size_t)n * sizeof(*up));
	if (!pr || !up) {
		free(pr);
		free(up);
		return -1;
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			double x = rtt[(size_t)i * (size_t)n + (size_t)j];
			double y = rtt[(size_t)j * (size_t)n + (size_t)i];

			if (!valid(x) && !valid(y))
				continue;
			pr[np].t = !valid(x) ? y : !valid(y) ? x : x < y ? x : y;
			pr[np].a = i;
			pr[np].b = j;
			np++;
		}
	qsort(pr, (size_t)np, sizeof(*pr), pair_cmp);
	/* the coarsest gap first: pairs 0..k near, k+1.. far */
	for (k = np - 2; k >= 0; k--) {
		if (pr[k + 1].t < ratio * pr[k].t || pr[k + 1].t - pr[k].t < min_gap)
			continue;
		ng = components(n, pr, k + 1, up, group);
		if (ng > 1) {
			if (cut)
				*cut = (pr[k].t + pr[k + 1].t) / 2;
			break;
		}
	}
	if (ng <= 1) {
		ng = 1;
		for (i = 0; i < n; i++)
			group[i] = 0;
	}
	free(pr);
	free(up);
	return ng;
}
