/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_lanes_profile.c: the grid profile's text and the
 * parameter arithmetic of coll/lanes_profile.c: a profile written and
 * read back gives the same parameters, bad profiles are refused with the
 * line and what is wrong, b_WAN(P) filled from two points follows ideal
 * sharing, and the refinement's moving average brings a wrong b_WAN(P)
 * to the true one from noisy observations within a few steps.
 */
#include "lanes_params.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int close_to(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b);
}

static void fill(struct lanes_profile_entry *e, const char *a, const char *b, int pmax, double b1)
{
	int P;

	memset(e, 0, sizeof(*e));
	strcpy(e->a, a);
	strcpy(e->b, b);
	e->p.L = 0.00512345678;
	e->p.alpha = 0.000123456789;
	e->p.b_lan = 11876543.21;
	e->p.pmax = pmax;
	for (P = 1; P <= pmax; P++)
		e->p.b_wan[P - 1] = b1 * (1.0 - 0.013 * P) + 0.123;
}

START_TEST(test_round_trip)
{
	struct lanes_profile_entry in[3], out[4];
	char buf[8192], err[200];
	size_t len;
	int n, i, P;

	fill(&in[0], "tokyo", "osaka", 4, 3.2e6);
	fill(&in[1], "tokyo", "site2", 1, 1.1e6);
	fill(&in[2], "osaka", "site2", LANES_PMAX, 2.5e6);
	/* one host's flows together, as the calibration measures them */
	in[0].p.bout_max = in[0].p.bin_max = 4;
	for (P = 0; P < 4; P++) {
		in[0].p.b_out[P] = 3.1e6 * (P + 1) + 0.5;
		in[0].p.b_in[P] = 2.9e6 * (P + 1) + 0.25;
	}
	len = lanes_profile_format(buf, sizeof(buf), in, 3);
	ck_assert_uint_lt(len, sizeof(buf));
	ck_assert_uint_eq(strlen(buf), len);
	n = lanes_profile_parse(buf, out, 4, err, sizeof(err));
	ck_assert_msg(n == 3, "parse: %d: %s\n%s", n, err, buf);
	for (i = 0; i < 3; i++) {
		ck_assert_str_eq(out[i].a, in[i].a);
		ck_assert_str_eq(out[i].b, in[i].b);
		ck_assert(close_to(out[i].p.L, in[i].p.L, 1e-8));
		ck_assert(close_to(out[i].p.alpha, in[i].p.alpha, 1e-8));
		ck_assert(close_to(out[i].p.b_lan, in[i].p.b_lan, 1e-8));
		ck_assert_int_eq(out[i].p.pmax, in[i].p.pmax);
		for (P = 0; P < in[i].p.pmax; P++)
			ck_assert(close_to(out[i].p.b_wan[P], in[i].p.b_wan[P], 1e-8));
		ck_assert_int_eq(out[i].p.bout_max, in[i].p.bout_max);
		ck_assert_int_eq(out[i].p.bin_max, in[i].p.bin_max);
		for (P = 0; P < in[i].p.bout_max; P++)
			ck_assert(close_to(out[i].p.b_out[P], in[i].p.b_out[P], 1e-8));
		for (P = 0; P < in[i].p.bin_max; P++)
			ck_assert(close_to(out[i].p.b_in[P], in[i].p.b_in[P], 1e-8));
	}
	/* a pair applies both ways */
	ck_assert_int_eq(lanes_profile_find(out, n, "osaka", "tokyo"), 0);
	ck_assert_int_eq(lanes_profile_find(out, n, "site2", "osaka"), 2);
	ck_assert_int_eq(lanes_profile_find(out, n, "tokyo", "nagoya"), -1);
	/* a text cut short reports the length it needs */
	ck_assert_uint_eq(lanes_profile_format(buf, 10, in, 3), len);
	ck_assert_uint_eq(strlen(buf), 9);
	ck_assert_uint_eq(lanes_profile_format(NULL, 0, in, 3), len);
}
END_TEST

START_TEST(test_comments_and_blanks)
{
	struct lanes_profile_entry e[2];
	char err[200];
	const char *t = "# written by hand\n\n  michi-grid-profile 1  \n"
			"pair A B L=5ms, alpha=200us,b_lan=100mbit,b_wan=3.2e6,3.1e6 # two lanes\n"
			"\t# nothing else\n";

	ck_assert_int_eq(lanes_profile_parse(t, e, 2, err, sizeof(err)), 1);
	ck_assert_int_eq(e[0].p.pmax, 2);
	ck_assert(close_to(e[0].p.b_wan[1], 3.1e6, 1e-12));
	ck_assert(close_to(e[0].p.alpha, 2e-4, 1e-12));
	ck_assert(close_to(e[0].p.L, 5e-3, 1e-12));
	ck_assert(close_to(e[0].p.b_lan, 12.5e6, 1e-12));
}
END_TEST

static void refused(const char *text, const char *want)
{
	struct lanes_profile_entry e[2];
	char err[200] = "";

	ck_assert_msg(lanes_profile_parse(text, e, 2, err, sizeof(err)) == -1, "accepted: %s", text);
	ck_assert_msg(strstr(err, want), "for `%s`: `%s`, not `%s`", text, err, want);
}

START_TEST(test_refused)
{
	refused("", "empty");
	refused("pair A B L=1,alpha=1,b_lan=1,b_wan=1\n", "line 1: not `michi-grid-profile 1`");
	refused("michi-grid-profile 2\n", "line 1: not `michi-grid-profile 1`");
	refused("michi-grid-profile 1\nlane A B\n", "line 2: not a `pair` line");
	refused("michi-grid-profile 1\npair A\n", "line 2: two site names");
	refused("michi-grid-profile 1\npair A B L=1,alpha=1,b_lan=1\n", "line 2: missing b_wan");
	refused("michi-grid-profile 1\npair A B alpha=1,b_lan=1,b_wan=1\n", "missing L");
	refused("michi-grid-profile 1\npair A B L=1,alpha=1,b_lan=1,b_wan=1,mtu=9000\n",
		"bad parameters at `mtu=9000`");
	refused("michi-grid-profile 1\npair A B L=fast,alpha=1,b_lan=1,b_wan=1\n",
		"bad parameters at `fast,");
	refused("michi-grid-profile 1\npair A B L=1,alpha=1,b_lan=-3,b_wan=1\n",
		"bad parameters at `-3,");
	refused("michi-grid-profile 1\npair A B L=1,alpha=1,b_lan=1,b_wan=1,x,3\n",
		"bad parameters at `x,3`");
	refused("michi-grid-profile 1\npair A B L=1 alpha=1,b_lan=1,b_wan=1\n",
		"bad parameters at `alpha=1");
	refused("michi-grid-profile 1\n"
		"pair A B L=1,alpha=1,b_lan=1,b_wan=1\npair A C L=1,alpha=1,b_lan=1,b_wan=1\n"
		"pair B C L=1,alpha=1,b_lan=1,b_wan=1\n", "line 4: more than 2 pairs");
}
END_TEST

START_TEST(test_too_many_lanes)
{
	struct lanes_profile_entry e[1];
	char text[64 * (LANES_PMAX + 2)], err[200];
	size_t at;
	int k;

	at = (size_t)sprintf(text, "michi-grid-profile 1\npair A B L=1,alpha=1,b_lan=1,b_wan=1");
	for (k = 0; k < LANES_PMAX; k++)
		at += (size_t)sprintf(text + at, ",1");
	strcpy(text + at, "\n");
	ck_assert_int_eq(lanes_profile_parse(text, e, 1, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "bad parameters"), "%s", err);
}
END_TEST

START_TEST(test_interpolate)
{
	struct lanes_params p;
	int P;

	/* one lane 3.2 MB/s; four at once 3.1 MB/s each: a path of 12.4 MB/s,
	 * so up to three lanes keep their 3.2, then they share 12.4 */
	lanes_params_interpolate(&p, 8, 3.2e6, 4, 3.1e6);
	ck_assert_int_eq(p.pmax, 8);
	for (P = 1; P <= 3; P++)
		ck_assert(close_to(p.b_wan[P - 1], 3.2e6, 1e-12));
	for (P = 4; P <= 8; P++)
		ck_assert(close_to(p.b_wan[P - 1], 12.4e6 / P, 1e-12));
	/* lanes that got less in all than one: still one lane's worth */
	lanes_params_interpolate(&p, 2, 4e6, 2, 1e6);
	ck_assert(close_to(p.b_wan[1], 2e6, 1e-12));
}
END_TEST

/* A deterministic noise source in [-1, 1). */
static double noise(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return ((*state >> 8) & 0xffff) / 32768.0 - 1.0;
}

START_TEST(test_refine_converges)
{
	/* the path: 4 lanes window-limited at 3.1 MB/s, 100 Mb/s in all */
	double truth[8];
	struct lanes_params p;
	unsigned seed = 29;
	int P, step, k;

	for (P = 1; P <= 8; P++)
		truth[P - 1] = P * 3.1e6 <= 12.5e6 ? 3.1e6 : 12.5e6 / P;
	/* a first-use guess that is far off: twice the truth's single lane
	 * and a path it thought was wide */
	lanes_params_interpolate(&p, 8, 6.2e6, 8, 6.0e6);
	for (step = 1; step <= 6; step++) {
		/* what one refinement sees: 4 calls, each lane timing itself,
		 * every observation up to 20% off */
		for (P = 1; P <= 8; P++) {
			double sum = 0;
			int n = 0;

			for (k = 0; k < 4 * P; k++, n++)
				sum += truth[P - 1] * (1 + 0.2 * noise(&seed));
			lanes_params_refine(&p, P, sum / n, 0.5);
		}
	}
	for (P = 1; P <= 8; P++)
		ck_assert_msg(close_to(p.b_wan[P - 1], truth[P - 1], 0.05),
			      "b_wan(%d) = %g after 6 steps, truth %g", P, p.b_wan[P - 1], truth[P - 1]);
	/* observations at a P outside the table, or of no rate, change nothing */
	{
		struct lanes_params q = p;

		lanes_params_refine(&q, 9, 1e9, 0.5);
		lanes_params_refine(&q, 0, 1e9, 0.5);
		lanes_params_refine(&q, 2, 0, 0.5);
		lanes_params_refine(&q, 2, NAN, 0.5);
		ck_assert(!memcmp(&q, &p, sizeof(q)));
	}
	/* weight 1 takes the observation */
	lanes_params_refine(&p, 3, 1.5e6, 1.0);
	ck_assert(close_to(p.b_wan[2], 1.5e6, 1e-12));
}
END_TEST

/*
 * The choice of P converges: a path whose lanes are window-limited at
 * 3.1 MB/s each and share 12.5 MB/s (two-sites' shape, 8 + 8 ranks, 4 MiB
 * blocks, where P = 4 is best); the first use measured b_WAN(1) right and
 * b_WAN(8) 60% high, so its interpolation takes the path for 20 MB/s and
 * chooses 8 lanes. Each refinement sees the chosen P's true rate from 4
 * calls of its lanes, 15% noise; within 4 refinements the chosen P
 * costs, by the true parameters, within 3% of the best P, and stays so.
 */
START_TEST(test_choice_converges)
{
	struct lanes_params truth, p;
	const double M = 4194304;
	unsigned seed = 31;
	int P, step, k, best, good_from = -1;

	memset(&truth, 0, sizeof(truth));
	truth.L = 5e-3;
	truth.alpha = 300e-6;
	truth.b_lan = 12.5e6;
	truth.pmax = 8;
	for (P = 1; P <= 8; P++)
		truth.b_wan[P - 1] = P * 3.1e6 <= 12.5e6 ? 3.1e6 : 12.5e6 / P;
	best = lanes_choose(&truth, 8, 8, M);
	p = truth;
	lanes_params_interpolate(&p, 8, 3.1e6, 8, 1.6 * 12.5e6 / 8);
	ck_assert_int_eq(lanes_choose(&p, 8, 8, M), 8);
	ck_assert_int_ne(best, 8);
	for (step = 0; step < 12; step++) {
		int c = lanes_choose(&p, 8, 8, M);
		double sum = 0;
		int n = 0;

		if (lanes_T(&truth, c, 8, 8, M) <= 1.03 * lanes_T(&truth, best, 8, 8, M)) {
			if (good_from < 0)
				good_from = step;
		} else {
			ck_assert_msg(good_from < 0, "step %d: P %d, worse again after step %d", step, c,
				      good_from);
		}
		for (k = 0; k < 4 * c; k++, n++)
			sum += truth.b_wan[c - 1] * (1 + 0.15 * noise(&seed));
		lanes_params_refine(&p, c, sum / n, 0.5);
	}
	ck_assert_msg(good_from >= 1 && good_from <= 4, "a good P from step %d (best %d)", good_from,
		      best);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lanes_profile");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_comments_and_blanks);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_too_many_lanes);
	tcase_add_test(tc, test_interpolate);
	tcase_add_test(tc, test_refine_converges);
	tcase_add_test(tc, test_choice_converges);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
