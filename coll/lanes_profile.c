/* SPDX-License-Identifier: MIT */
/*
 * coll/lanes_profile.c: the grid profile's text (coll/lanes_params.h) and
 * the arithmetic on the parameters that needs no communication: filling
 * b_WAN(P) from two measured points, and one refinement step.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lanes_params.h"

#define PROFILE_MAGIC "michi-grid-profile 1"

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

/* The next word of s into w (at most n - 1 characters): its end, or NULL
 * when the word is empty or too long. */
static const char *word(const char *s, char *w, size_t n)
{
	size_t k = 0;

	s = skip_blank(s);
	while (*s && *s != '\n' && *s != '#' && !isspace((unsigned char)*s)) {
		if (k + 1 >= n)
			return NULL;
		w[k++] = *s++;
	}
	w[k] = '\0';
	return k ? s : NULL;
}

/* A pair's line after `pair`: two names, then the parameters in the form
 * coll_lanes_params takes (lanes_params_parse), every one of them. */
static int parse_pair(const char *s, struct lanes_profile_entry *e, char *what, size_t wlen)
{
	char rest[4096];
	size_t n, at = 0;

	memset(e, 0, sizeof(*e));
	if (!(s = word(s, e->a, sizeof(e->a))) || !(s = word(s, e->b, sizeof(e->b)))) {
		snprintf(what, wlen, "two site names (at most %d characters) after `pair`",
			 LANES_SITE_NAME - 1);
		return -1;
	}
	s = skip_blank(s);
	for (n = 0; s[n] && s[n] != '#' && s[n] != '\n'; n++)
		;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (n >= sizeof(rest)) {
		snprintf(what, wlen, "parameters longer than %zu characters", sizeof(rest) - 1);
		return -1;
	}
	memcpy(rest, s, n);
	rest[n] = '\0';
	if (lanes_params_parse(rest, &e->p, &at) < 0) {
		snprintf(what, wlen, "bad parameters at `%.40s`", rest + at);
		return -1;
	}
	if (!(e->p.L > 0) || !(e->p.alpha > 0) || !(e->p.b_lan > 0) || e->p.pmax < 1) {
		snprintf(what, wlen, "missing %s", !(e->p.L > 0) ? "L" : !(e->p.alpha > 0) ? "alpha" :
			 !(e->p.b_lan > 0) ? "b_lan" : "b_wan");
		return -1;
	}
	return 0;
}

int lanes_profile_parse(const char *text, struct lanes_profile_entry *e, int max, char *err,
			size_t errlen)
{
	int n = 0, line = 0, magic = 0;
	const char *s = text, *nl;
	char w[64], what[160];

	for (; *s; s = nl ? nl + 1 : s + strlen(s)) {
		const char *r;

		nl = strchr(s, '\n');
		line++;
		r = skip_blank(s);
		if (*r == '#' || *r == '\n' || !*r)
			continue;
		if (!magic) {
			if (strncmp(r, PROFILE_MAGIC, strlen(PROFILE_MAGIC)) ||
			    *skip_blank(r + strlen(PROFILE_MAGIC)) != (nl ? '\n' : '\0')) {
				snprintf(err, errlen, "line %d: not `" PROFILE_MAGIC "`", line);
				return -1;
			}
			magic = 1;
			continue;
		}
		if (!(r = word(r, w, sizeof(w))) || strcmp(w, "pair")) {
			snprintf(err, errlen, "line %d: not a `pair` line", line);
			return -1;
		}
		if (n == max) {
			snprintf(err, errlen, "line %d: more than %d pairs", line, max);
			return -1;
		}
		{
			/* the line alone, for parse_pair */
			size_t len = nl ? (size_t)(nl - r) : strlen(r);
			char *copy = malloc(len + 1);

			if (!copy) {
				snprintf(err, errlen, "line %d: out of memory", line);
				return -1;
			}
			memcpy(copy, r, len);
			copy[len] = '\0';
			if (parse_pair(copy, &e[n], what, sizeof(what))) {
				free(copy);
				snprintf(err, errlen, "line %d: %s", line, what);
				return -1;
			}
			free(copy);
		}
		n++;
	}
	if (!magic) {
		snprintf(err, errlen, "empty: no `" PROFILE_MAGIC "` line");
		return -1;
	}
	return n;
}

size_t lanes_profile_format(char *buf, size_t len, const struct lanes_profile_entry *e, int n)
{
	size_t at = 0;
	int i, k;

#define PUT(...) do { \
	int w_ = snprintf(buf + (at < len ? at : len), at < len ? len - at : 0, __VA_ARGS__); \
	at += w_ > 0 ? (size_t)w_ : 0; \
} while (0)
	PUT(PROFILE_MAGIC "\n");
	PUT("# pair SITE_A SITE_B L=s,alpha=s,b_lan=B/s,b_wan=b_WAN(1),b_WAN(2),... (B/s a lane)"
	    "[,b_out=b_out(1),...,b_in=b_in(1),...] (B/s one host's h flows carry together)\n");
	for (i = 0; i < n; i++) {
		PUT("pair %s %s L=%.9g,alpha=%.9g,b_lan=%.9g,b_wan=", e[i].a, e[i].b, e[i].p.L,
		    e[i].p.alpha, e[i].p.b_lan);
		for (k = 0; k < e[i].p.pmax; k++)
			PUT("%s%.9g", k ? "," : "", e[i].p.b_wan[k]);
		for (k = 0; k < e[i].p.bout_max; k++)
			PUT("%s%.9g", k ? "," : ",b_out=", e[i].p.b_out[k]);
		for (k = 0; k < e[i].p.bin_max; k++)
			PUT("%s%.9g", k ? "," : ",b_in=", e[i].p.b_in[k]);
		PUT("\n");
	}
#undef PUT
	return at;
}

int lanes_profile_find(const struct lanes_profile_entry *e, int n, const char *a, const char *b)
{
	int i;

	for (i = 0; i < n; i++)
		if ((!strcmp(e[i].a, a) && !strcmp(e[i].b, b)) ||
		    (!strcmp(e[i].a, b) && !strcmp(e[i].b, a)))
			return i;
	return -1;
}

void lanes_params_interpolate(struct lanes_params *p, int pmax, double b1, int pm, double bpm)
{
	double path = (double)pm * bpm;
	int P;

	if (pmax > LANES_PMAX)
		pmax = LANES_PMAX;
	if (path < b1)   /* more lanes got less in all than one: shared anyway */
		path = b1;
	p->pmax = pmax;
	for (P = 1; P <= pmax; P++)
		p->b_wan[P - 1] = b1 * P <= path ? b1 : path / P;
}

void lanes_params_refine(struct lanes_params *p, int P, double rate, double w)
{
	int Q;

	if (P < 1 || P > p->pmax || !(rate > 0) || !(w > 0))
		return;
	if (w > 1)
		w = 1;
	p->b_wan[P - 1] += w * (rate - p->b_wan[P - 1]);
	/* one lane of fewer gets no less, one of more no more: what P lanes
	 * showed bounds the P that were not observed */
	for (Q = 1; Q < P; Q++)
		if (p->b_wan[Q - 1] < p->b_wan[P - 1])
			p->b_wan[Q - 1] = p->b_wan[P - 1];
	for (Q = P + 1; Q <= p->pmax; Q++)
		if (p->b_wan[Q - 1] > p->b_wan[P - 1])
			p->b_wan[Q - 1] = p->b_wan[P - 1];
}
