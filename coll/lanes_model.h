/* SPDX-License-Identifier: MIT */
/*
 * coll/lanes_model.h: the cost model of multilane Scatter and Gather
 * (paper A §4.2; ../GRID.md §1.4), a pure module: no MPI, no I/O, no
 * allocation, so that the collectives, the calibration command and the
 * unit tests share one copy of the formulas.
 *
 * P lanes (node pairs) carry site 1's blocks across the wide-area
 * network at once. With n0 ranks in the root's site (root included),
 * n1 in the far site and a block of M bytes per rank:
 *
 *   T(P) = L + X(P)·M / b_wan(P) + Y(P)·M / b_lan + alpha
 *   X(P) = ceil(n1 / P)                   blocks on the fullest lane
 *   Y(P) = n0 + n1 - 1 - X(P)   n0 >= n1  LAN blocks on the critical path
 *        = n1 + P - 2           n0 <  n1
 *
 * T(1) is the single-lane (MagPIe-style) cost L + n1·M/b_wan(1) +
 * (max(n0, n1) - 1)·(alpha + M/b_lan) up to the alpha terms, which the
 * paper counts once: lanes_T(1) is what lanes_T_simple returns.
 *
 * Gather is Scatter with every message reversed (children to their
 * lane's receiver, across, to the root), so the same T applies with n0
 * the site that receives; the root's NIC then carries the same
 * n0 + n1 - 1 blocks inbound, and its lanes cross at once rather than
 * staggered, which the model, counting one WAN term, does not tell
 * apart: it is the same (slightly pessimistic for Gather) estimate.
 *
 * Lanes per host (beyond the paper). A host of the root's site may
 * drive h lanes at once (h = 1: paper A; h = P: one host, in Scatter
 * the root alone, no LAN forwarding hop). Whether
 * that pays depends on where the WAN limit sits: per connection (TCP
 * windows: h flows from one host get h times one flow's rate, up to the
 * NIC) or per node (a host's off-site rate: h flows share it). Two
 * measured tables say which: b_out(h), what h flows leaving ONE host for
 * h hosts of the far site carry together, and b_in(h), what h flows from
 * h far hosts into ONE host carry together. A lane's rate is then
 *
 *   r(P, h) = min(b_wan(P), b_end(h) / h)
 *
 * with b_end = b_out for Scatter (the root's site sends) and b_in for
 * Gather (it receives; the far hosts each drive one lane). With
 * S = ceil(P / h) hosts driving lanes, the root's own h lanes carrying
 * B0 blocks (the lanes 0..h-1: B0 = X at h = 1):
 *
 *   T(P, h) = L + X(P)·M / r(P, h) + Y(P, h)·M / b_lan + alpha
 *   Y(P, h) = n0 - 1 + n1 - B0                 n0 >= n1
 *           = S - 1 + n1 - B0 + X(P) - 1       n0 <  n1
 *
 * the root's NIC sending every block but its own lanes' before them
 * (n0 >= n1), or the root's forwarding to the last sender and that lane's
 * spreading at the far site (n0 < n1): at h = 1 both are the paper's Y,
 * and T(1, 1) is the single-lane cost.
 *
 * Gather's lanes all cross at once and the root takes every block in at
 * once, so its T counts overlap rather than the paper's sum (which
 * measured 14-25% over on the emulated grid with per-host limits). Its
 * lanes end at the root only when it is the only host that can
 * take them: one lane (the single-lane baseline), or a site of its own
 * (lanes_hosts). Otherwise they end at the other hosts of its site,
 * which hand them to the root once their lanes are in. A lane into the
 * root would share its NIC with the site's blocks: on the emulated grid
 * at 20 ms one lane on each host, the root's among them (P = 8), took
 * 9.9-10.9 s at 4 MiB against 7.6-7.9 predicted, the LAN flows' short
 * round trips winning the NIC's queue from the window-limited lanes;
 * the same 8 lanes two a host on four others took 7.6 s, 7.9 predicted
 * (bench/results/2026-11-29-grid-coll-20ms). With the root driving no
 * lane its NIC is a single server that has its site's n0 - 1 blocks
 * from the start and a sender's lanes once the fullest of them has
 * crossed (the root's own lanes, P = 1 or n0 = 1: W(X) alone beside
 * its NIC's blocks, the single-lane cost when n1 >= n0 and b_wan <= b_lan):
 *
 *   T_g(P, h) = L + max((n0 - 1 + n1)·M / b_lan,
 *                       W(X) + F·M / b_lan,  W(X - 1) + n1·M / b_lan) + alpha
 *   W(x) = (x - 1)·M / b_lan + x·M / r(P, h)
 *
 * F the blocks of the senders that drive a lane of X blocks; the last
 * term only where some lanes have X - 1 (n1 not a multiple of P).
 *
 * Without measured b_out / b_in
 * (bout_max, bin_max 0) a host is taken as node-limited, b_end(h) =
 * b_wan(1) (paper A's premise): h > 1 then gains nothing on the WAN (a
 * host's h lanes share one lane's rate) and is chosen only where it
 * saves LAN steps (more, shorter lanes: less spreading at the far site).
 */
#ifndef MICHI_LANES_MODEL_H
#define MICHI_LANES_MODEL_H

#include <stddef.h>

#define LANES_PMAX 64

struct lanes_params {
	double L;        /* WAN latency, seconds */
	double alpha;    /* per-message overhead, seconds */
	double b_lan;    /* bytes/s between two hosts of one site */
	int pmax;        /* entries measured in b_wan */
	double b_wan[LANES_PMAX];   /* b_wan[P - 1]: bytes/s of one lane while P lanes cross at once */
	int bout_max, bin_max;      /* entries measured in b_out, b_in (0: none) */
	double b_out[LANES_PMAX];   /* b_out[h - 1]: bytes/s h flows from one host across carry together */
	double b_in[LANES_PMAX];    /* b_in[h - 1]: bytes/s h flows across into one host carry together */
};

enum { LANES_SCATTER, LANES_GATHER };

/* Blocks on the most loaded WAN lane: ceil(n1 / P). P >= 1, n1 >= 0. */
int lanes_X(int P, int n1);

/* LAN block transfers on the critical path (§4.2's two cases). */
int lanes_Y(int P, int n0, int n1);

/* b_wan(P), bytes/s of one lane with P lanes active: measured entries
 * up to pmax; above it the last entry scaled down so that P lanes
 * together carry no more than pmax lanes did. */
double lanes_b_wan(const struct lanes_params *p, int P);

/* T(P) in seconds for blocks of M bytes (Gather: the same, see above). */
double lanes_T(const struct lanes_params *p, int P, int n0, int n1, double M);

/* The single-lane baseline of §1.2 with l = alpha counted once, as the
 * paper's T(1) does: L + n1·M/b_wan(1) + (max(n0, n1) - 1)·M/b_lan + alpha. */
double lanes_T_simple(const struct lanes_params *p, int n0, int n1, double M);

/* argmin of T(P) over 1..min(n0, n1) (and LANES_PMAX), ties to the
 * smaller P; 1 when a site is empty. Deterministic: every rank holding
 * the same params chooses the same P. */
int lanes_choose(const struct lanes_params *p, int n0, int n1, double M);

/* The same for Gather (n0: the root's site, where the data ends). */
int lanes_choose_gather(const struct lanes_params *p, int n0, int n1, double M);

/* b_out(h) (dir LANES_SCATTER) or b_in(h) (LANES_GATHER): the measured
 * entry up to its table's length, the last entry above it (one host's
 * NIC or off-site rate does not grow with more flows), b_wan(1) when the
 * table is empty (node-limited). */
double lanes_b_end(const struct lanes_params *p, int dir, int h);

/* r(P, h): bytes/s of one lane, P lanes, h of them a host. */
double lanes_rate(const struct lanes_params *p, int dir, int P, int h);

/* Blocks on the root's own h lanes (B0 above). */
int lanes_B0(int P, int h, int n1);

/* Hosts of the root's site that drive lanes when P lanes go to one far
 * site: n0, but n0 - 1 in Gather with P > 1 and n0 > 1 (the root drives
 * none, see above); and the fewest lanes a host that leaves for them,
 * ceil(P / lanes_hosts), which coll/lanes.c raises a forced h to. */
int lanes_hosts(int dir, int P, int n0);
int lanes_h_min(int dir, int P, int n0);

/* Y(P, h); lanes_Y_h(P, 1, n0, n1) == lanes_Y(P, n0, n1). */
int lanes_Y_h(int P, int h, int n0, int n1);

/* T(P, h) (Scatter with h = 1 and no b_out/b_in: lanes_T; Gather:
 * T_g above). 1 <= h <= P and ceil(P / h) <= lanes_hosts. */
double lanes_T_h(const struct lanes_params *p, int dir, int P, int h, int n0, int n1, double M);

/*
 * Scatter's T(P, h) as its schedule runs (coll/lanes.c), beyond the
 * paper's closed form, which sums the root's sends and one WAN term and
 * so misses that lanes start staggered: a lane crossing alone gets
 * b_wan(1), not b_wan(P). A fluid model of the schedule: the root's NIC
 * (b_lan) serves senders 1..S-1 one round each (their lanes' blocks);
 * each sender's lanes cross from the end of its round; the root's own
 * lanes start after the last round, sharing its NIC max-min fairly with
 * its flows to the rest of its site (n0 - 1 blocks, the senders' own
 * among them, a flow each); while A lanes cross each gets at most b_wan(A), a host's a
 * lanes at most b_end(a) / a each and b_lan together; a lane across is
 * spread by its Dep_recv, (X_k - 1)·M / b_lan. T = L + the last of
 * those ends + alpha. At P = 1 it is lanes_T_h(1, 1) whenever the root's
 * site's blocks leave before its lane has crossed. Falls back to
 * lanes_T_h outside 1 <= h <= P <= min(n1, LANES_PMAX), S <= n0.
 * Not yet what the library chooses with: on the emulated 8 + 8 grid at
 * 5 ms it came out 8-23% under the measured automatic Scatter at 1-16
 * MiB (it has no per-round cost; each of the root's rounds waits for
 * the sender's process, which 16 ranks on 2 cores delay), where the
 * closed form was 1% under to 18% over; bench/lanes_predict prints both
 * so that the benchmark can decide.
 */
double lanes_T_sched(const struct lanes_params *p, int P, int h, int n0, int n1, double M);

/* argmin of T(P, h) over P in 1..min(n1, LANES_PMAX), h in
 * lanes_h_min..P; ties to the smaller P. Returns P and sets *h; for one
 * P, equal times (to rounding) take the larger h where the root drives
 * lanes (fewer forwarding hops), the smaller in Gather otherwise (every
 * lane is handed on once; more NICs take them). Deterministic like
 * lanes_choose. */
int lanes_choose_ph(const struct lanes_params *p, int dir, int n0, int n1, double M, int *h);

/*
 * Parses "L=5ms,alpha=300us,b_lan=100mbit,b_wan=25mbit,25mbit,20mbit"
 * into *p. Times take s, ms, us or ns (bare: seconds); rates take bit,
 * kbit, mbit, gbit (per second, decimal) or B, KB, MB, GB (decimal),
 * KiB, MiB, GiB (bytes/s; bare: bytes/s). After b_wan= the following
 * items without '=' are b_wan(2), b_wan(3), ...; pmax is their count.
 * b_out= and b_in= are lists the same way (bout_max, bin_max).
 * Keys may appear in any order; a missing key keeps the value *p had.
 * Returns 0, or -1 with *p unchanged and errpos set to the offset of
 * the first bad character.
 */
int lanes_params_parse(const char *s, struct lanes_params *p, size_t *errpos);

/* The defaults used without a profile or tunable: the ratios of paper
 * A's testbed scaled to the emulated grid (GRID.md §1.8): L = 5 ms,
 * alpha = 300 us, b_lan = 100 Mbit/s, b_wan(P) = min(25, 100/P) Mbit/s. */
void lanes_params_default(struct lanes_params *p);

#endif
