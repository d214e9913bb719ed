/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_rttgroup.c: the split of hosts into groups by
 * round-trip time (util/rttgroup.c), on matrices of worked cases: two
 * sites, three sites at different distances, sites of one host, no gap,
 * noise (scatter inside a site, one slow sample, one-way and missing
 * measurements), a switch level inside sites, and the small cases.
 */
#include "rttgroup.h"

#include <check.h>
#include <stdlib.h>

#define MAXN 32

static double m[MAXN * MAXN];
static int grp[MAXN];

/* A deterministic scatter of +-frac around t (a linear congruential
 * generator: the same matrices on every run). */
static unsigned lcg = 12345;

static double jitter(double t, double frac)
{
	lcg = lcg * 1103515245u + 12345u;
	return t * (1.0 + frac * (((double)((lcg >> 8) & 0xffff) / 65535.0) * 2.0 - 1.0));
}

/* Hosts in sites site[0..n): RTT `lan` inside a site, wan[s][t] across;
 * every entry scattered by frac, measured both ways separately. */
static void fill(int n, const int *site, double lan, const double wan[][4], double frac)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			m[i * n + j] = i == j ? 0 :
				jitter(site[i] == site[j] ? lan : wan[site[i]][site[j]], frac);
}

static void expect_groups(int n, const int *want, int nwant)
{
	int i;

	ck_assert_int_eq(michi_rtt_groups(n, m, 3.0, 0, grp, NULL), nwant);
	for (i = 0; i < n; i++)
		ck_assert_msg(grp[i] == want[i], "host %d: group %d, expected %d", i, grp[i],
			      want[i]);
}

START_TEST(test_two_sites)
{
	static const int site[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	static const double wan[4][4] = { { 0, 10e-3 }, { 10e-3, 0 } };
	double cut;

	fill(8, site, 100e-6, wan, 0.2);
	expect_groups(8, site, 2);
	ck_assert_int_eq(michi_rtt_groups(8, m, 3.0, 0, grp, &cut), 2);
	ck_assert(cut > 130e-6 && cut < 8e-3);
}
END_TEST

/* Sites interleaved in host order: groups follow the lowest host. */
START_TEST(test_two_sites_interleaved)
{
	static const int site[6] = { 0, 1, 0, 1, 1, 0 };
	static const double wan[4][4] = { { 0, 40e-3 }, { 40e-3, 0 } };

	fill(6, site, 60e-6, wan, 0.3);
	expect_groups(6, site, 2);
}
END_TEST

/* A-B 10 ms, A-C 20 ms, B-C 30 ms: the gaps between the wide-area
 * times are small; the one from the site-local times is what splits. */
START_TEST(test_three_sites)
{
	static const int site[9] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
	static const double wan[4][4] = {
		{ 0, 10e-3, 20e-3 }, { 10e-3, 0, 30e-3 }, { 20e-3, 30e-3, 0 }
	};

	fill(9, site, 200e-6, wan, 0.1);
	expect_groups(9, site, 3);
}
END_TEST

/* Sites of one host each beside a larger one. */
START_TEST(test_single_host_sites)
{
	static const int site[5] = { 0, 0, 0, 1, 2 };
	static const double wan[4][4] = {
		{ 0, 5e-3, 8e-3 }, { 5e-3, 0, 9e-3 }, { 8e-3, 9e-3, 0 }
	};

	fill(5, site, 80e-6, wan, 0.1);
	expect_groups(5, site, 3);
}
END_TEST

/* One LAN, every time within a factor of two: no split. */
START_TEST(test_no_gap)
{
	static const int site[12] = { 0 };
	static const double wan[4][4] = { { 0 } };

	fill(12, site, 100e-6, wan, 0.4);
	expect_groups(12, site, 1);
}
END_TEST

/* A near/far ratio below the threshold (2x): no split. */
START_TEST(test_gap_too_small)
{
	static const int site[6] = { 0, 0, 0, 1, 1, 1 }, none[6] = { 0 };
	static const double wan[4][4] = { { 0, 200e-6 }, { 200e-6, 0 } };

	fill(6, site, 100e-6, wan, 0.0);
	expect_groups(6, none, 1);
	/* the same at a threshold of 1.5 splits */
	ck_assert_int_eq(michi_rtt_groups(6, m, 1.5, 0, grp, NULL), 2);
}
END_TEST

/* One slow sample inside a site (a pair at 30x the others, still far
 * below the WAN) and one outlier pair across: single linkage keeps the
 * site whole, and the coarsest gap is still the WAN's. */
START_TEST(test_noise_outliers)
{
	static const int site[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	static const double wan[4][4] = { { 0, 20e-3 }, { 20e-3, 0 } };

	fill(8, site, 100e-6, wan, 0.3);
	m[0 * 8 + 1] = m[1 * 8 + 0] = 3e-3;
	m[2 * 8 + 6] = m[6 * 8 + 2] = 60e-3;
	expect_groups(8, site, 2);
}
END_TEST

/* Measured one way only (the other entry 0), some pairs not at all, one
 * direction much slower (the smaller counts). */
START_TEST(test_one_way_and_missing)
{
	static const int site[6] = { 0, 0, 0, 1, 1, 1 };
	static const double wan[4][4] = { { 0, 5e-3 }, { 5e-3, 0 } };
	int i, j;

	fill(6, site, 50e-6, wan, 0.2);
	for (i = 0; i < 6; i++)
		for (j = 0; j < i; j++)
			m[i * 6 + j] = 0;         /* only i < j measured */
	m[0 * 6 + 2] = 0;                         /* 0-2 not at all */
	m[3 * 6 + 5] = -1;                        /* 3-5 not at all */
	m[4 * 6 + 1] = 50e-6;                     /* 1-4: 5 ms one way... */
	m[1 * 6 + 4] = 5e-3;
	/* ...a near time for a cross pair joins the sites: then the
	 * coarsest gap cannot split them and nothing is split */
	ck_assert_int_eq(michi_rtt_groups(6, m, 3.0, 0, grp, NULL), 1);
	m[4 * 6 + 1] = 0;
	expect_groups(6, site, 2);
}
END_TEST

/* Two sites of two switches each: site-local 60 us on a switch and
 * 400 us across, 10 ms across the WAN. The top level is the sites; the
 * same function on one site's matrix finds its switches. */
START_TEST(test_levels)
{
	static const int site[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	static const int sw[8] = { 0, 0, 1, 1, 2, 2, 3, 3 };
	static const double wan[4][4] = { { 0, 10e-3 }, { 10e-3, 0 } };
	static const int want_sw[4] = { 0, 0, 1, 1 };
	double sub[16];
	int i, j;

	fill(8, site, 400e-6, wan, 0.1);
	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++)
			if (i != j && sw[i] == sw[j])
				m[i * 8 + j] = jitter(60e-6, 0.1);
	expect_groups(8, site, 2);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++)
			sub[i * 4 + j] = m[(i + 4) * 8 + (j + 4)];
	ck_assert_int_eq(michi_rtt_groups(4, sub, 3.0, 0, grp, NULL), 2);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(grp[i], want_sw[i]);
}
END_TEST

/* A ratio gap of small absolute size (a LAN at 30 us and 200 us, as a
 * busy host gives) splits at min_gap 0 and not at a millisecond; a WAN
 * of 10 ms splits at both. */
START_TEST(test_min_gap)
{
	static const int site[6] = { 0, 0, 0, 1, 1, 1 };
	static const double lan[4][4] = { { 0, 200e-6 }, { 200e-6, 0 } };
	static const double wan[4][4] = { { 0, 10e-3 }, { 10e-3, 0 } };

	fill(6, site, 30e-6, lan, 0.1);
	ck_assert_int_eq(michi_rtt_groups(6, m, 3.0, 0, grp, NULL), 2);
	ck_assert_int_eq(michi_rtt_groups(6, m, 3.0, 1e-3, grp, NULL), 1);
	fill(6, site, 30e-6, wan, 0.1);
	ck_assert_int_eq(michi_rtt_groups(6, m, 3.0, 1e-3, grp, NULL), 2);
}
END_TEST

/* Fewer than three hosts: one time has nothing to be compared with. */
START_TEST(test_small)
{
	double two[4] = { 0, 30e-3, 30e-3, 0 }, one[1] = { 0 };

	grp[0] = grp[1] = 7;
	ck_assert_int_eq(michi_rtt_groups(2, two, 3.0, 0, grp, NULL), 1);
	ck_assert_int_eq(grp[0], 0);
	ck_assert_int_eq(grp[1], 0);
	ck_assert_int_eq(michi_rtt_groups(1, one, 3.0, 0, grp, NULL), 1);
	ck_assert_int_eq(michi_rtt_groups(0, one, 3.0, 0, grp, NULL), 1);
}
END_TEST

/* 32 hosts in 4 sites of 8, hosts of the sites dealt round robin. */
START_TEST(test_many_sites)
{
	int site[32], i;
	static const double wan[4][4] = {
		{ 0, 4e-3, 6e-3, 9e-3 }, { 4e-3, 0, 5e-3, 7e-3 },
		{ 6e-3, 5e-3, 0, 3e-3 }, { 9e-3, 7e-3, 3e-3, 0 }
	};

	for (i = 0; i < 32; i++)
		site[i] = i % 4;
	fill(32, site, 120e-6, wan, 0.25);
	expect_groups(32, site, 4);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rttgroup");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_add_test(tc, test_two_sites);
	tcase_add_test(tc, test_two_sites_interleaved);
	tcase_add_test(tc, test_three_sites);
	tcase_add_test(tc, test_single_host_sites);
	tcase_add_test(tc, test_no_gap);
	tcase_add_test(tc, test_gap_too_small);
	tcase_add_test(tc, test_noise_outliers);
	tcase_add_test(tc, test_one_way_and_missing);
	tcase_add_test(tc, test_levels);
	tcase_add_test(tc, test_min_gap);
	tcase_add_test(tc, test_small);
	tcase_add_test(tc, test_many_sites);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
