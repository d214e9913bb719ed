/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_lanes_model.c: the multilane cost model
 * (coll/lanes_model.c) against the worked numbers of paper A's §4.2
 * formulas (GRID.md §1.4): the X and Y tables, T(1) against the
 * single-lane cost written out here independently, the minima of the
 * two b_wan(P) cases, and the parameter parser; and the lanes a host
 * (h) beyond the paper: Y(P, h) against the paper's Y at h = 1, worked
 * T(P, h) on the emulated two-sites grid with the WAN limit per
 * connection (window) and per host (rate), and the choices in each.
 */
#include "lanes_model.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MBIT (1e6 / 8)
#define MIB 4194304.0   /* M = 4 MiB */

/* n0 = n1 = 32, L = 5 ms, alpha = 0.3 ms, b_lan = 1 Gbit/s, b_wan(P)
 * given by per_lane_mbit(P) */
static void paper_params(struct lanes_params *p, int ideal_sharing)
{
	int P;

	memset(p, 0, sizeof(*p));
	p->L = 5e-3;
	p->alpha = 0.3e-3;
	p->b_lan = 1000 * MBIT;
	p->pmax = 32;
	for (P = 1; P <= 32; P++) {
		double mbit = 250;

		if (ideal_sharing && 1000.0 / P < mbit)
			mbit = 1000.0 / P;
		p->b_wan[P - 1] = mbit * MBIT;
	}
}

START_TEST(test_xy_32_32)
{
	static const int P[] = { 1, 2, 3, 4, 5, 6, 8, 12, 16, 25, 32 };
	static const int X[] = { 32, 16, 11, 8, 7, 6, 4, 3, 2, 2, 1 };
	static const int Y[] = { 31, 47, 52, 55, 56, 57, 59, 60, 61, 61, 62 };
	size_t i;

	for (i = 0; i < sizeof(P) / sizeof(P[0]); i++) {
		ck_assert_int_eq(lanes_X(P[i], 32), X[i]);
		ck_assert_int_eq(lanes_Y(P[i], 32, 32), Y[i]);
	}
}
END_TEST

START_TEST(test_xy_small)
{
	/* n0 = 4, n1 = 8 (n0 < n1): P = 1..4 */
	static const int X48[] = { 8, 4, 3, 2 }, Y48[] = { 7, 8, 9, 10 };
	/* n0 = n1 = 8: P = 1, 2, 4, 8 */
	static const int P88[] = { 1, 2, 4, 8 }, X88[] = { 8, 4, 2, 1 }, Y88[] = { 7, 11, 13, 14 };
	int i;

	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(lanes_X(i + 1, 8), X48[i]);
		ck_assert_int_eq(lanes_Y(i + 1, 4, 8), Y48[i]);
		ck_assert_int_eq(lanes_X(P88[i], 8), X88[i]);
		ck_assert_int_eq(lanes_Y(P88[i], 8, 8), Y88[i]);
	}
	/* n0 > n1 the other way round: Y = n0 + n1 - 1 - X */
	ck_assert_int_eq(lanes_X(3, 4), 2);
	ck_assert_int_eq(lanes_Y(3, 8, 4), 9);
}
END_TEST

START_TEST(test_t1_is_simple)
{
	static const int sizes[][2] = { { 32, 32 }, { 4, 8 }, { 8, 4 }, { 1, 5 }, { 5, 1 }, { 3, 3 } };
	struct lanes_params p;
	size_t i;

	paper_params(&p, 0);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int n0 = sizes[i][0], n1 = sizes[i][1];
		int nalt = n0 > n1 ? n0 : n1;
		double M = 65536.0 * (double)(i + 1);
		/* §1.2: L + n1·M/b_wan + (n_alt - 1)·M/b_lan, alpha once */
		double simple = p.L + n1 * M / p.b_wan[0] + (nalt - 1) * M / p.b_lan + p.alpha;

		ck_assert_double_eq_tol(lanes_T(&p, 1, n0, n1, M), simple, 1e-12);
		ck_assert_double_eq_tol(lanes_T_simple(&p, n0, n1, M), simple, 1e-12);
	}
}
END_TEST

START_TEST(test_constant_250)
{
	struct lanes_params p;
	int P;

	paper_params(&p, 0);
	ck_assert_double_eq_tol(lanes_T(&p, 1, 32, 32, MIB), 5.34, 0.005);
	ck_assert_double_eq_tol(lanes_T(&p, 4, 32, 32, MIB), 2.92, 0.005);
	for (P = 16; P <= 25; P++)
		ck_assert_double_eq_tol(lanes_T(&p, P, 32, 32, MIB), 2.32, 0.01);
	ck_assert_double_eq_tol(lanes_T(&p, 32, 32, 32, MIB), 2.22, 0.005);
	ck_assert_int_eq(lanes_choose(&p, 32, 32, MIB), 32);
	ck_assert_int_eq(lanes_choose_gather(&p, 32, 32, MIB), 32);
}
END_TEST

START_TEST(test_ideal_sharing)
{
	struct lanes_params p;
	int P;

	paper_params(&p, 1);
	ck_assert_int_eq(lanes_choose(&p, 32, 32, MIB), 4);
	/* GRID.md quotes 2.93 s; b_wan(4) = 250 Mbit/s in both cases, so
	 * this T(4) is the constant case's 2.92 s (2.9245): within 0.01 */
	ck_assert_double_eq_tol(lanes_T(&p, 4, 32, 32, MIB), 2.93, 0.01);
	for (P = 1; P <= 32; P++)
		ck_assert(lanes_T(&p, P, 32, 32, MIB) >= lanes_T(&p, 4, 32, 32, MIB));
}
END_TEST

START_TEST(test_choose_bounds)
{
	struct lanes_params p;

	paper_params(&p, 0);
	/* P never exceeds min(n0, n1) */
	ck_assert_int_le(lanes_choose(&p, 3, 32, MIB), 3);
	ck_assert_int_le(lanes_choose(&p, 32, 2, MIB), 2);
	ck_assert_int_eq(lanes_choose(&p, 1, 32, MIB), 1);
	ck_assert_int_eq(lanes_choose(&p, 32, 0, MIB), 1);
	/* a flat curve ties to the smallest P: with M = 0 every T is equal */
	ck_assert_int_eq(lanes_choose(&p, 8, 8, 0.0), 1);
}
END_TEST

START_TEST(test_beyond_pmax)
{
	struct lanes_params p;

	paper_params(&p, 1);
	p.pmax = 4;
	/* above pmax: the aggregate stays at pmax lanes' */
	ck_assert_double_eq_tol(lanes_b_wan(&p, 4), 250 * MBIT, 1e-6);
	ck_assert_double_eq_tol(8 * lanes_b_wan(&p, 8), 4 * lanes_b_wan(&p, 4), 1e-6);
	ck_assert_double_eq_tol(lanes_b_wan(&p, 2), 250 * MBIT, 1e-6);
}
END_TEST

START_TEST(test_parse)
{
	struct lanes_params p;
	size_t at = 0;

	lanes_params_default(&p);
	ck_assert_int_eq(p.pmax, LANES_PMAX);
	ck_assert_double_eq_tol(p.b_wan[0], 25 * MBIT, 1e-6);
	ck_assert_double_eq_tol(p.b_wan[7], 12.5 * MBIT, 1e-6);
	ck_assert_int_eq(lanes_params_parse("L=20ms,alpha=250us,b_lan=1gbit,b_wan=25mbit,20Mbit,2MB",
					    &p, &at), 0);
	ck_assert_double_eq_tol(p.L, 0.02, 1e-12);
	ck_assert_double_eq_tol(p.alpha, 250e-6, 1e-12);
	ck_assert_double_eq_tol(p.b_lan, 1000 * MBIT, 1e-6);
	ck_assert_int_eq(p.pmax, 3);
	ck_assert_double_eq_tol(p.b_wan[1], 20 * MBIT, 1e-6);
	ck_assert_double_eq_tol(p.b_wan[2], 2e6, 1e-6);
	/* keys in any order, the list ended by a key */
	ck_assert_int_eq(lanes_params_parse("b_wan=1MiB,2MiB, L=0.001", &p, &at), 0);
	ck_assert_int_eq(p.pmax, 2);
	ck_assert_double_eq_tol(p.b_wan[1], 2097152.0, 1e-6);
	ck_assert_double_eq_tol(p.L, 0.001, 1e-12);
	/* errors leave p alone and say where */
	ck_assert_int_ne(lanes_params_parse("L=5ms,beta=3", &p, &at), 0);
	ck_assert_uint_eq(at, 6);
	ck_assert_int_ne(lanes_params_parse("L=5mbit", &p, &at), 0);
	ck_assert_int_ne(lanes_params_parse("alpha=5ms,25mbit", &p, &at), 0);
	ck_assert_int_ne(lanes_params_parse("b_lan=0", &p, &at), 0);
	ck_assert_int_ne(lanes_params_parse("b_lan=10mb", &p, &at), 0);
	ck_assert_double_eq_tol(p.L, 0.001, 1e-12);
	ck_assert_int_eq(p.pmax, 2);
}
END_TEST


/* test/net/specs/two-sites: 4 + 4 hosts, b_LAN = 100 Mbit/s, a 100 Mbit/s
 * WAN path of 5 ms, one flow across held to 25 Mbit/s. window: by its
 * TCP window, so h flows from (or into) one host add up to the NIC;
 * rate: by the sending host's off-site rate, so h flows leaving one host
 * share 25 Mbit/s while h flows into one host still add up. */
static void grid_params(struct lanes_params *p, int per_host_rate)
{
	int P;

	memset(p, 0, sizeof(*p));
	p->L = 5e-3;
	p->alpha = 20e-6;
	p->b_lan = 100 * MBIT;
	p->pmax = 4;
	p->bout_max = p->bin_max = 4;
	for (P = 1; P <= 4; P++) {
		p->b_wan[P - 1] = 25 * MBIT;   /* min(25, 100 / P) */
		p->b_in[P - 1] = 25 * P * MBIT;
		p->b_out[P - 1] = per_host_rate ? 25 * MBIT : 25 * P * MBIT;
	}
}

START_TEST(test_y_h)
{
	int n0, n1, P;

	/* h = 1 is the paper's table */
	for (n0 = 1; n0 <= 9; n0++)
		for (n1 = 1; n1 <= 9; n1++)
			for (P = 1; P <= n0 && P <= n1; P++) {
				ck_assert_int_eq(lanes_Y_h(P, 1, n0, n1), lanes_Y(P, n0, n1));
				ck_assert_int_eq(lanes_B0(P, 1, n1), lanes_X(P, n1));
			}
	/* the root alone (h = P): no forwarding, its site's n0 - 1 blocks */
	ck_assert_int_eq(lanes_B0(4, 4, 4), 4);
	ck_assert_int_eq(lanes_Y_h(4, 4, 4, 4), 3);
	/* 4 + 4, P = 4, two a host: the root forwards one sender 2 lanes + its block */
	ck_assert_int_eq(lanes_Y_h(4, 2, 4, 4), 5);
	/* n0 = 2 < n1 = 6, P = 6, h = 3: X = 1, B0 = 3; the root forwards 3
	 * lane blocks and the sender's own: S - 1 + n1 - B0 + X - 1 = 4 */
	ck_assert_int_eq(lanes_B0(6, 3, 6), 3);
	ck_assert_int_eq(lanes_Y_h(6, 3, 2, 6), 4);
	/* lanes of unequal length: n1 = 7, P = 4 (2, 2, 2, 1), h = 2: B0 = 4 */
	ck_assert_int_eq(lanes_B0(4, 2, 7), 4);
	ck_assert_int_eq(lanes_B0(4, 4, 7), 7);
}
END_TEST

START_TEST(test_h_unmeasured)
{
	struct lanes_params p;
	int P, h, ideal;

	/* no b_out / b_in: a host is node-limited, h = 1 is lanes_T, and
	 * the choice is the paper's */
	for (ideal = 0; ideal <= 1; ideal++) {
		paper_params(&p, ideal);
		for (P = 1; P <= 32; P++)
			ck_assert_double_eq_tol(lanes_T_h(&p, LANES_SCATTER, P, 1, 32, 32, MIB),
						lanes_T(&p, P, 32, 32, MIB), 1e-12);
		ck_assert_double_eq_tol(lanes_b_end(&p, LANES_GATHER, 3), p.b_wan[0], 1e-9);
		P = lanes_choose_ph(&p, LANES_SCATTER, 32, 32, MIB, &h);
		ck_assert_int_eq(P, lanes_choose(&p, 32, 32, MIB));
		ck_assert_int_eq(h, 1);
		/* n0 < n1, Gather: the lanes end at the root's 3 other hosts
		 * (lanes_hosts) and beat the single lane */
		P = lanes_choose_ph(&p, LANES_GATHER, 4, 8, MIB, &h);
		ck_assert_int_ge(h, lanes_h_min(LANES_GATHER, P, 4));
		ck_assert(lanes_T_h(&p, LANES_GATHER, P, h, 4, 8, MIB) <
			  lanes_T_simple(&p, 4, 8, MIB));
		/* T_g(1, 1) with n1 >= n0 is the single-lane cost */
		ck_assert_double_eq_tol(lanes_T_h(&p, LANES_GATHER, 1, 1, 4, 8, MIB),
					lanes_T_simple(&p, 4, 8, MIB), 1e-12);
	}
	/* T(1, 1) with tables is still the single-lane cost */
	grid_params(&p, 1);
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_SCATTER, 1, 1, 4, 4, MIB),
				lanes_T_simple(&p, 4, 4, MIB), 1e-12);
}
END_TEST

/* M = 1 MiB on two-sites: M / 25 Mbit/s = 0.33554 s, M / b_LAN = 0.08389 s */
#define M1 1048576.0
#define TW (M1 / (25 * MBIT))
#define TL (M1 / (100 * MBIT))
#define LA (5e-3 + 20e-6)

START_TEST(test_window)
{
	struct lanes_params p;
	int P, h;

	grid_params(&p, 0);
	/* P = 1: 4 blocks across at 25, 3 on the root's LAN */
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_SCATTER, 1, 1, 4, 4, M1),
				LA + 4 * TW + 3 * TL, 1e-9);
	/* paper A's lanes: one a host, the root forwards 3 lanes + 3 blocks */
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_SCATTER, 4, 1, 4, 4, M1),
				LA + TW + 6 * TL, 1e-9);
	/* the root drives all four (linear): no forwarding */
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_SCATTER, 4, 4, 4, 4, M1),
				LA + TW + 3 * TL, 1e-9);
	P = lanes_choose_ph(&p, LANES_SCATTER, 4, 4, M1, &h);
	ck_assert_int_eq(P, 4);
	ck_assert_int_eq(h, 4);
	/* Gather's lanes end at the root's 3 other hosts: P = 4 takes two
	 * a host at least; one block a lane crosses (4 TL) and the 4 reach
	 * the root after it (its 3 own blocks came meanwhile), whatever h */
	ck_assert_int_eq(lanes_hosts(LANES_GATHER, 4, 4), 3);
	ck_assert_int_eq(lanes_h_min(LANES_GATHER, 4, 4), 2);
	ck_assert_int_eq(lanes_h_min(LANES_SCATTER, 4, 4), 1);
	ck_assert_int_eq(lanes_hosts(LANES_GATHER, 1, 4), 4);
	ck_assert_int_eq(lanes_hosts(LANES_GATHER, 4, 1), 1);
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_GATHER, 4, 2, 4, 4, M1), LA + 8 * TL, 1e-9);
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_GATHER, 4, 4, 4, 4, M1), LA + 8 * TL, 1e-9);
	/* P = 3: lanes of 2, 1, 1 blocks; the first (collected, 1 TL, and
	 * crossed, 8) is handed on last, its 2 blocks after 9 TL; the
	 * short lanes' 2 from 4 TL, with the other 2 behind them: 8 TL */
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_GATHER, 3, 1, 4, 4, M1), LA + 11 * TL, 1e-9);
	/* a root's site of one host: it takes the lanes itself, nothing
	 * handed on: 4 blocks a lane at 25 over 4 lanes at once */
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_GATHER, 4, 4, 1, 4, M1), LA + 4 * TL, 1e-9);
	/* P = 1: the lane's far collection (3) and crossing (4) */
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_GATHER, 1, 1, 4, 4, M1),
				LA + 3 * TL + 4 * M1 / (25 * MBIT), 1e-9);
	/* ties keep the fewest lanes a host: every lane is handed on once */
	P = lanes_choose_ph(&p, LANES_GATHER, 4, 4, M1, &h);
	ck_assert_int_eq(P, 4);
	ck_assert_int_eq(h, 2);
	/* 4 MiB: the same choice, T scales */
	P = lanes_choose_ph(&p, LANES_SCATTER, 4, 4, 4 * M1, &h);
	ck_assert_int_eq(P * 10 + h, 44);
	/* one root-site host and 4 far: lanes only from the root */
	P = lanes_choose_ph(&p, LANES_SCATTER, 1, 4, M1, &h);
	ck_assert_int_eq(P * 10 + h, 44);
}
END_TEST

START_TEST(test_rate)
{
	struct lanes_params p;
	int P, h;

	grid_params(&p, 1);
	/* the root's 4 flows share its 25 Mbit/s off-site: 6.25 a lane */
	ck_assert_double_eq_tol(lanes_rate(&p, LANES_SCATTER, 4, 4), 6.25 * MBIT, 1e-6);
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_SCATTER, 4, 4, 4, 4, M1),
				LA + 4 * TW + 3 * TL, 1e-9);
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_SCATTER, 4, 2, 4, 4, M1),
				LA + 2 * TW + 5 * TL, 1e-9);
	/* paper A's choice: four hosts, one lane each */
	P = lanes_choose_ph(&p, LANES_SCATTER, 4, 4, M1, &h);
	ck_assert_int_eq(P * 10 + h, 41);
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_SCATTER, 4, 1, 4, 4, M1),
				LA + TW + 6 * TL, 1e-9);
	/* Gather: the far hosts each send one lane (25 each), a host of
	 * the root's site takes two or more in at 25 each (b_in) */
	ck_assert_double_eq_tol(lanes_rate(&p, LANES_GATHER, 4, 4), 25 * MBIT, 1e-6);
	P = lanes_choose_ph(&p, LANES_GATHER, 4, 4, M1, &h);
	ck_assert_int_eq(P * 10 + h, 42);
	/* a root's site of 2 hosts, 8 far: P = 2, h = 1 crosses 4 blocks a
	 * lane at 25 Mbit/s then spreads 3 at the far site (Y = 1 + 4 + 3);
	 * P = 8, h = 4 crosses one block a lane at 6.25 (the same WAN time)
	 * and spreads none (Y = 1 + 4 + 0): fewer LAN steps, chosen */
	ck_assert_double_eq_tol(lanes_rate(&p, LANES_SCATTER, 4, 2), 12.5 * MBIT, 1e-6);
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_SCATTER, 2, 1, 2, 8, M1),
				LA + 4 * TW + 8 * TL, 1e-9);
	ck_assert_double_eq_tol(lanes_T_h(&p, LANES_SCATTER, 8, 4, 2, 8, M1),
				LA + 4 * TW + 5 * TL, 1e-9);
	P = lanes_choose_ph(&p, LANES_SCATTER, 2, 8, M1, &h);
	ck_assert_int_eq(P * 10 + h, 84);
}
END_TEST

/* Scatter's schedule model (lanes_T_sched) against times worked by hand */
START_TEST(test_sched)
{
	struct lanes_params p;
	double t;
	int P;

	lanes_params_default(&p);   /* L 5 ms, alpha 300 us, 100 Mbit LAN, b_wan min(25, 100/P) */
	/* one lane: the root's 3 local flows and its lane share its NIC, 25
	 * Mbit each, which is the lane's own rate: the single-lane cost */
	ck_assert_double_eq_tol(lanes_T_sched(&p, 1, 1, 4, 4, M1),
				lanes_T_h(&p, LANES_SCATTER, 1, 1, 4, 4, M1), 1e-9);
	/* n0 = 2, n1 = 4, P = 2: the other sender's round (its 2 lane
	 * blocks), both lanes across at once at b_wan(2) (the sender's own
	 * block beside the root's lane on the root's NIC), one block spread */
	ck_assert_double_eq_tol(lanes_T_sched(&p, 2, 1, 2, 4, M1),
				p.L + 3 * TL + 2 * M1 / lanes_b_wan(&p, 2) + p.alpha, 1e-9);
	/* staggered: n0 = n1 = 3, P = 3, b_wan 25, 20, 15 Mbit. Sender 1's
	 * lane crosses alone from 1 TL at 25 Mbit, gets 0.25 M across by the
	 * end of sender 2's round (2 TL), when the root's lane starts too
	 * (with the senders' own blocks beside it on the root's NIC); then
	 * all three at 15 Mbit until lane 1 is across (0.75 M more), the
	 * last two at 20 Mbit for their last 0.25 M */
	p.pmax = 3;
	p.b_wan[0] = 25 * MBIT;
	p.b_wan[1] = 20 * MBIT;
	p.b_wan[2] = 15 * MBIT;
	t = lanes_T_sched(&p, 3, 1, 3, 3, M1);
	ck_assert_double_eq_tol(t, p.L + 2 * TL + 0.75 * M1 / (15 * MBIT) +
				0.25 * M1 / (20 * MBIT) + p.alpha, 1e-9);
	/* below the closed form, which has every lane at b_wan(3) */
	ck_assert(t < lanes_T_h(&p, LANES_SCATTER, 3, 1, 3, 3, M1));
	/* out of its range: the closed form */
	for (P = 1; P <= 3; P++)
		ck_assert_double_eq_tol(lanes_T_sched(&p, P, P + 1, 3, 3, M1),
					lanes_T_h(&p, LANES_SCATTER, P, P + 1, 3, 3, M1), 1e-12);
}
END_TEST

START_TEST(test_parse_host)
{
	struct lanes_params p;
	size_t at = 0;

	lanes_params_default(&p);
	ck_assert_int_eq(p.bout_max, 0);
	ck_assert_int_eq(p.bin_max, 0);
	ck_assert_int_eq(lanes_params_parse("b_out=25mbit,50mbit,75mbit,b_in=100mbit,L=6ms",
					    &p, &at), 0);
	ck_assert_int_eq(p.bout_max, 3);
	ck_assert_int_eq(p.bin_max, 1);
	ck_assert_double_eq_tol(p.b_out[2], 75 * MBIT, 1e-6);
	ck_assert_double_eq_tol(lanes_b_end(&p, LANES_SCATTER, 9), 75 * MBIT, 1e-6);
	ck_assert_double_eq_tol(lanes_b_end(&p, LANES_GATHER, 2), 100 * MBIT, 1e-6);
	ck_assert_double_eq_tol(p.L, 6e-3, 1e-12);
	ck_assert_int_eq(p.pmax, LANES_PMAX);
	ck_assert_int_ne(lanes_params_parse("b_in=100mbit,x", &p, &at), 0);
	ck_assert_uint_eq(at, 13);
	ck_assert_int_eq(p.bin_max, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lanes_model");
	TCase *tc = tcase_create("model");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_xy_32_32);
	tcase_add_test(tc, test_xy_small);
	tcase_add_test(tc, test_t1_is_simple);
	tcase_add_test(tc, test_constant_250);
	tcase_add_test(tc, test_ideal_sharing);
	tcase_add_test(tc, test_choose_bounds);
	tcase_add_test(tc, test_beyond_pmax);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_y_h);
	tcase_add_test(tc, test_h_unmeasured);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_rate);
	tcase_add_test(tc, test_parse_host);
	tcase_add_test(tc, test_sched);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
