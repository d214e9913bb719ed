/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_tcp_rail.c: the rails' pairing and weight rules
 * (devices/tcp/tcp_rail.c) against paper B's worked examples (GRID.md
 * §2.3-2.4): RI2N+'s weights in configurations (d) and (f), RI2N++'s
 * weights worked by hand in (c) and (d), rails of unequal rates, its
 * guards, the smoothing, and where repeated feedback takes
 * configuration (d).
 */
#include "tcp_rail.h"

#include <arpa/inet.h>
#include <check.h>
#include <math.h>
#include <string.h>

static struct tcp_rail_addr A(const char *ip, int prefix)
{
	struct tcp_rail_addr a;
	struct in_addr x;

	ck_assert_int_eq(inet_pton(AF_INET, ip, &x), 1);
	a.addr = x.s_addr;
	a.prefix = prefix;
	return a;
}

START_TEST(test_pairing)
{
	struct tcp_rail_pair r[TCP_RAILS_MAX];
	/* the multirail spec's server (two networks) and clients */
	struct tcp_rail_addr server[] = { A("10.81.0.1", 24), A("10.82.0.1", 24) };
	struct tcp_rail_addr dual[] = { A("10.81.0.2", 24), A("10.82.0.2", 24) };
	struct tcp_rail_addr second_only[] = { A("10.82.0.3", 24) };
	struct tcp_rail_addr swapped[] = { A("10.82.0.4", 24), A("10.81.0.4", 24) };
	struct tcp_rail_addr other[] = { A("192.168.5.7", 24) };
	struct tcp_rail_addr wide[] = { A("10.81.7.9", 16) };
	int n;

	/* two networks in common: two rails, in the local list's order */
	n = tcp_rails_pair(server, 2, dual, 2, r, TCP_RAILS_MAX);
	ck_assert_int_eq(n, 2);
	ck_assert(r[0].local == 0 && r[0].peer == 0 && r[1].local == 1 && r[1].peer == 1);
	/* the peer lists them the other way round: still by subnet */
	n = tcp_rails_pair(server, 2, swapped, 2, r, TCP_RAILS_MAX);
	ck_assert_int_eq(n, 2);
	ck_assert(r[0].peer == 1 && r[1].peer == 0);
	/* asymmetric: a one-NIC peer on the second network shares one rail */
	n = tcp_rails_pair(server, 2, second_only, 1, r, TCP_RAILS_MAX);
	ck_assert_int_eq(n, 1);
	ck_assert(r[0].local == 1 && r[0].peer == 0);
	n = tcp_rails_pair(second_only, 1, server, 2, r, TCP_RAILS_MAX);
	ck_assert(n == 1 && r[0].local == 0 && r[0].peer == 1);
	/* nothing in common: no rail (routing decides, as before) */
	ck_assert_int_eq(tcp_rails_pair(server, 2, other, 1, r, TCP_RAILS_MAX), 0);
	/* prefixes differ: the shorter one decides; each address once */
	n = tcp_rails_pair(wide, 1, server, 2, r, TCP_RAILS_MAX);
	ck_assert(n == 1 && r[0].peer == 0);
	/* at most max rails */
	ck_assert_int_eq(tcp_rails_pair(server, 2, dual, 2, r, 1), 1);
}
END_TEST

START_TEST(test_links_rule)
{
	struct tcp_rail_report rep[2];
	double w[2];

	memset(rep, 0, sizeof(rep));
	/* (d): A's Network-0 link has two users (B, C), Network-1 one (C):
	 * C sends 1 : 2 */
	rep[0].users = 2;
	rep[1].users = 1;
	tcp_weights_raw(TCP_WEIGHTS_LINKS, 2, NULL, rep, NULL, NULL, w);
	ck_assert(fabs(w[1] / w[0] - 2) < 1e-9);
	/* (f), Tables 3-4: 3 users on Link-0, 2 on Link-1: weights 2 : 3 */
	rep[0].users = 3;
	rep[1].users = 2;
	tcp_weights_raw(TCP_WEIGHTS_LINKS, 2, NULL, rep, NULL, NULL, w);
	ck_assert(fabs(w[1] / w[0] - 1.5) < 1e-9);
}
END_TEST

/* What A reports to C in configuration (d) when B sends b bytes on
 * Network-0 and C sends c0 and c1 on the two networks, all of it read. */
static void report_d(double b, double c0, double c1, struct tcp_rail_report *rep,
		     uint64_t *sent)
{
	memset(rep, 0, 2 * sizeof(*rep));
	rep[0].arrive = (uint64_t)c0;
	rep[1].arrive = (uint64_t)c1;
	rep[0].path_total = (uint64_t)(b + c0);
	rep[1].path_total = (uint64_t)c1;
	rep[0].arrive_total = rep[1].arrive_total = (uint64_t)(b + c0 + c1);
	sent[0] = (uint64_t)c0;
	sent[1] = (uint64_t)c1;
}

START_TEST(test_feedback_rule)
{
	struct tcp_rail_report rep[2];
	uint64_t sent[2];
	double w[2];

	/* (d), B and C 100 MB each, C round-robin: Q_0 = 150/200, Q_1 =
	 * 50/200, W_0 = 50 / 0.75 = 66.7, W_1 = 50 / 0.25 = 200: 1 : 3 */
	report_d(100e6, 50e6, 50e6, rep, sent);
	tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, NULL, rep, sent, NULL, w);
	/* ours: W_k = R_k * (R_k / R_jk): 50 * 50/150 and 50 * 50/50 */
	ck_assert(fabs(w[0] - 50e6 * 50.0 / 150.0) < 1);
	ck_assert(fabs(w[1] - 50e6) < 1);
	ck_assert(fabs(w[1] / w[0] - 3) < 1e-9);
	/* (c), B and C dual, both round-robin: A's links equally used, equal
	 * weights */
	memset(rep, 0, sizeof(rep));
	rep[0].arrive = rep[1].arrive = 50;
	rep[0].path_total = rep[1].path_total = 100;
	rep[0].arrive_total = rep[1].arrive_total = 200;
	sent[0] = sent[1] = 50;
	tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[0] - w[1]) < 1e-9);
	/* A < 1: of 100 written to rail 0, 80 read: W scaled by 0.8 */
	rep[0].arrive = 80;
	sent[0] = 100;
	rep[0].path_total = 100;
	tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[0] - 80.0 * (80.0 / 100.0) * 0.8) < 1e-9);
	/* more read than the sender counted (an interval's edge): A = 1 */
	rep[0].arrive = 120;
	rep[0].path_total = 200;
	tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[0] - 120.0 * (120.0 / 200.0)) < 1e-9);
	/* rails of 100 and 30 with nobody else on them, the sender's parts
	 * split 1 : 1, so the fast one carried its part in 30 % of the time:
	 * weights 100 : 30 */
	memset(rep, 0, sizeof(rep));
	rep[0].arrive = rep[0].path_total = 30;
	rep[1].arrive = rep[1].path_total = 30;
	rep[0].busy = 300000;
	rep[1].busy = 1000000;
	sent[0] = sent[1] = 30;
	tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[0] / w[1] - 100.0 / 30.0) < 1e-9);
	rep[0].arrive = rep[0].path_total = 100;
	rep[0].busy = 0;
	rep[1].busy = 0;
	sent[0] = 100;
	rep[1].arrive = rep[1].path_total = 30;
	sent[1] = 30;
	tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[0] / w[1] - 100.0 / 30.0) < 1e-9);   /* split 100 : 30, both busy */
	/* guards: nothing sent, nothing read, or a dead rail: 0 (the floor
	 * is the smoothing's) */
	sent[1] = 0;
	tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, NULL, rep, sent, NULL, w);
	ck_assert(w[1] == 0 && w[0] > 0);
	{
		static const int live[] = { 0, 1 };

		sent[1] = 50;
		tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, live, rep, sent, NULL, w);
		ck_assert(w[0] == 0 && w[1] > 0);
	}
	/* static: the line rates; round-robin: equal */
	{
		static const double rate[] = { 100e6, 30e6 };

		tcp_weights_raw(TCP_WEIGHTS_STATIC, 2, NULL, NULL, NULL, rate, w);
		ck_assert(fabs(w[0] / w[1] - 100.0 / 30.0) < 1e-9);
		tcp_weights_raw(TCP_WEIGHTS_ROUND_ROBIN, 2, NULL, NULL, NULL, NULL, w);
		ck_assert(w[0] == 1 && w[1] == 1);
	}
}
END_TEST

/* rate: each rail by what it delivered while it had our bytes */
START_TEST(test_rate_rule)
{
	struct tcp_rail_report rep[2];
	uint64_t sent[2] = { 100, 30 };
	double w[2];

	memset(rep, 0, sizeof(rep));
	/* a 100 and a 30 Mb/s rail, both busy the whole frame: 100 : 30 */
	rep[0].arrive = 100;
	rep[1].arrive = 30;
	rep[0].path_total = 100;
	rep[1].path_total = 30;
	rep[0].busy = rep[1].busy = 1000000;
	tcp_weights_raw(TCP_WEIGHTS_RATE, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[0] / w[1] - 100.0 / 30.0) < 1e-9);
	/* paper: alone on both rails, their rates */
	tcp_weights_raw(TCP_WEIGHTS_PAPER, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[0] / w[1] - 100.0 / 30.0) < 1e-9);
	/* equal parts over those rails: rail 0's part ends at 0.3 of the
	 * frame, so its rate while busy is 100 again, where feedback's part of
	 * the link is 1 on both and the slow rail keeps half */
	rep[0].arrive = 30;
	rep[0].path_total = 30;
	rep[0].busy = 300000;
	sent[0] = 30;
	tcp_weights_raw(TCP_WEIGHTS_RATE, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[0] / w[1] - 100.0 / 30.0) < 1e-9);
	/* (e)-like: two equal links that others share, our part 0.9 of link 1
	 * and 0.1 of link 0; both parts busy all the frame: the rule keeps our
	 * split (R_k alone), where feedback's R_k^2 / R_jk pulls further
	 * toward link 1 */
	rep[0].arrive = 10;
	rep[1].arrive = 90;
	rep[0].path_total = 100;
	rep[1].path_total = 100;
	rep[0].busy = rep[1].busy = 1000000;
	sent[0] = 10;
	sent[1] = 90;
	tcp_weights_raw(TCP_WEIGHTS_RATE, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[1] / w[0] - 9) < 1e-9);
	tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[1] / w[0] - 81) < 1e-9);
	/* paper: our part of each link; 0.9 : 0.1 of two shared links stays
	 * 9 : 1 (no pull), and with link 1 carrying 150 against link 0's 50
	 * it steers toward link 0 (0.6 : 0.2) */
	tcp_weights_raw(TCP_WEIGHTS_PAPER, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[1] / w[0] - 9) < 1e-9);
	rep[0].path_total = 50;
	rep[1].path_total = 150;
	tcp_weights_raw(TCP_WEIGHTS_PAPER, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[1] / w[0] - 3) < 1e-9);
	rep[0].path_total = rep[1].path_total = 100;
	/* link 0's part ends at half the frame: it gets twice the weight */
	rep[0].busy = 500000;
	tcp_weights_raw(TCP_WEIGHTS_RATE, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[1] / w[0] - 4.5) < 1e-9);
	/* A < 1 scales, nothing read gets nothing (the floor) */
	rep[0].arrive = 8;
	tcp_weights_raw(TCP_WEIGHTS_RATE, 2, NULL, rep, sent, NULL, w);
	ck_assert(fabs(w[0] - 8 / 0.5 * 0.8) < 1e-9);
	rep[0].arrive = 0;
	tcp_weights_raw(TCP_WEIGHTS_RATE, 2, NULL, rep, sent, NULL, w);
	ck_assert(w[0] == 0);
}
END_TEST

START_TEST(test_smooth)
{
	double share[3] = { 0.5, 0.5, 0 }, raw[3] = { 1, 3, 0 };
	static const int live2[] = { 1, 1, 0 }, live3[] = { 1, 1, 1 };

	/* half way from 1/2 : 1/2 to 1/4 : 3/4 */
	tcp_weights_smooth(3, live2, raw, 0.5, 0, share);
	ck_assert(fabs(share[0] - 0.375) < 1e-12 && fabs(share[1] - 0.625) < 1e-12);
	ck_assert(share[2] == 0);
	/* beta 1: the raw shares, with every live rail at least the floor */
	raw[0] = 0;
	tcp_weights_smooth(3, live2, raw, 1, 0.05, share);
	ck_assert(fabs(share[0] - 0.05) < 1e-12 && fabs(share[1] - 0.95) < 1e-12);
	/* nothing measured: the shares stay */
	raw[1] = 0;
	tcp_weights_smooth(3, live2, raw, 1, 0.05, share);
	ck_assert(fabs(share[0] - 0.05) < 1e-12 && fabs(share[1] - 0.95) < 1e-12);
	/* a rail comes back: it starts from an equal share of the old ones' */
	tcp_weights_smooth(3, live3, raw, 1, 0.05, share);
	ck_assert(fabs(share[0] + share[1] + share[2] - 1) < 1e-12);
	ck_assert(share[2] > 0);
	/* a floor too large for the rails: equal shares */
	raw[0] = 1;
	raw[1] = 0;
	raw[2] = 0;
	tcp_weights_smooth(3, live3, raw, 1, 0.5, share);
	ck_assert(fabs(share[0] - 1.0 / 3) < 1e-12 && fabs(share[2] - 1.0 / 3) < 1e-12);
}
END_TEST

START_TEST(test_converges_d)
{
	/* (d) with B and C sending alike and every byte read: the feedback
	 * rule moves C off Network-0, which B needs (the paper's optimum is
	 * 0 : 1; its 1 : 5 came from switch losses), never below the floor */
	struct tcp_rail_report rep[2];
	uint64_t sent[2];
	double share[2] = { 0.5, 0.5 }, w[2], prev = 0.5;
	int it;

	for (it = 0; it < 12; it++) {
		report_d(100e6, 100e6 * share[0], 100e6 * share[1], rep, sent);
		tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, NULL, rep, sent, NULL, w);
		tcp_weights_smooth(2, NULL, w, 1, 0.02, share);
		ck_assert(share[0] <= prev + 1e-12);
		ck_assert(share[0] >= 0.02 - 1e-12);
		prev = share[0];
	}
	ck_assert(share[0] < 0.1);
	/* the first step is the hand-worked 1 : 3 (with the floor) */
	share[0] = share[1] = 0.5;
	report_d(100e6, 50e6, 50e6, rep, sent);
	tcp_weights_raw(TCP_WEIGHTS_FEEDBACK, 2, NULL, rep, sent, NULL, w);
	tcp_weights_smooth(2, NULL, w, 1, 0, share);
	ck_assert(fabs(share[1] / share[0] - 3) < 1e-9);
}
END_TEST

static Suite *weights_suite(void)
{
	Suite *s = suite_create("tcp_rail");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_pairing);
	tcase_add_test(tc, test_links_rule);
	tcase_add_test(tc, test_feedback_rule);
	tcase_add_test(tc, test_rate_rule);
	tcase_add_test(tc, test_smooth);
	tcase_add_test(tc, test_converges_d);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(weights_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
