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
};

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

/*
 * Parses "L=5ms,alpha=300us,b_lan=100mbit,b_wan=25mbit,25mbit,20mbit"
 * into *p. Times take s, ms, us or ns (bare: seconds); rates take bit,
 * kbit, mbit, gbit (per second, decimal) or B, KB, MB, GB (decimal),
 * KiB, MiB, GiB (bytes/s; bare: bytes/s). After b_wan= the following
 * items without '=' are b_wan(2), b_wan(3), ...; pmax is their count.
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
