/* SPDX-License-Identifier: MIT */
/*
 * coll/lanes_params.h: where the cost model's parameters (coll/lanes_model.h)
 * come from, per pair of sites (issue 29, GRID.md §1.5).
 *
 * 1. A profile: the text `michi_info --calibrate-grid` writes (below), which
 *    a job names in MICHI_GRID_PROFILE. Only comm rank 0 reads it (mpi/coll/grid.c:
 *    reading a file is the MPI layer's; coll/ stays pure): the parameters it
 *    holds are agreed with every rank at the communicator's first grid
 *    collective, so hosts without a shared filesystem get the same numbers.
 * 2. Without a profile entry for a pair: a first-use measurement by a few
 *    ranks of the two sites (the lane-0 ranks' ping-pong for L, a small
 *    exchange inside the first site for alpha and b_LAN, one lane and then
 *    every lane streaming a short burst for b_WAN(1) and b_WAN(Pmax), the
 *    rest interpolated as ideal sharing), its results agreed by all ranks.
 * 3. Then refinement from what the job's own grid collectives observe: the
 *    lane ranks time their WAN transfers (lanes_observe); every
 *    lanes_refine_every-th grid collective, counted alike on every rank,
 *    one small allreduce sums the observations and every rank moves its
 *    b_WAN(P) by the same moving average, so the choice of P converges
 *    within a few calls and stays identical on every rank.
 *
 * Profile format (text, one site pair a line; `#` starts a comment):
 *
 *   michi-grid-profile 1
 *   pair SITE_A SITE_B L=<s>,alpha=<s>,b_lan=<B/s>,b_wan=<B/s>,<B/s>,...
 *
 * The parameters after the two names are in the form the tunable
 * coll_lanes_params takes (lanes_params_parse, coll/lanes_model.h: units
 * such as 5ms or 25mbit allowed, bare numbers are seconds and bytes/s),
 * all four keys required. b_wan lists b_WAN(1), b_WAN(2), ... (bytes/s of
 * one lane while P lanes cross at once); pmax is their count. A pair
 * applies both ways. Sites are named as the job names them (mpi/coll/grid.c:
 * michi_site_name).
 */
#ifndef MICHI_COLL_LANES_PARAMS_H
#define MICHI_COLL_LANES_PARAMS_H

#include <stddef.h>

#include "coll.h"
#include "lanes_model.h"

#define LANES_SITE_NAME 64

struct lanes_profile_entry {
	char a[LANES_SITE_NAME], b[LANES_SITE_NAME];
	struct lanes_params p;
};

/* Parse a profile's text into at most max entries: their number, or -1
 * with a message naming the line in err. */
int lanes_profile_parse(const char *text, struct lanes_profile_entry *e, int max, char *err,
			size_t errlen);
/* Write n entries as a profile into buf: the length the text needs (as
 * snprintf: a larger value than len means it was cut). */
size_t lanes_profile_format(char *buf, size_t len, const struct lanes_profile_entry *e, int n);
/* The entry of sites a and b (either order), or -1. */
int lanes_profile_find(const struct lanes_profile_entry *e, int n, const char *a, const char *b);

/* b_WAN(P) for P = 1..pmax from two measured points, b_WAN(1) and
 * b_WAN(pm), as ideal sharing of a path of pm * b_WAN(pm) bytes/s: one
 * lane alone at b_WAN(1) until P of them fill the path. */
void lanes_params_interpolate(struct lanes_params *p, int pmax, double b1, int pm, double bpm);

/* One refinement step: b_WAN(P) moves a fraction w (0 < w <= 1) of the
 * way towards rate, the mean per-lane rate the job observed at P lanes;
 * then no fewer lanes get less each, and no more lanes more each, than
 * b_WAN(P) (lanes share the path: one lane's rate does not grow with
 * their number). Only the P a job chooses is observed: a b_WAN(Q) that
 * an unobserved Q has too low is corrected only as far as this bound
 * goes. */
void lanes_params_refine(struct lanes_params *p, int P, double rate, double w);

/* The lanes state of a communicator that spans sites: kept in its
 * coll_sites (grid), created by the MPI layer (lanes_grid_new) with the
 * sites' names, and filled at its first grid collective. */
struct lanes_grid;
struct lanes_grid *lanes_grid_new(int nsites, const char *const *names, const char *profile);
void lanes_grid_free(struct lanes_grid *g);
/* The name of site s (NULL: no such site). */
const char *lanes_grid_site_name(const struct lanes_grid *g, int s);

/*
 * The parameters for lanes between sites sa and sb of c (c->sites set),
 * called by every rank of c alike at a grid collective, before it chooses
 * P: the first call agrees them (profile, else measurement), every
 * lanes_refine_every-th call folds in what lanes_observe recorded. Both
 * communicate over c and wait until every rank of c called, so only a
 * blocking collective (may_block) does either: a nonblocking or
 * persistent one must not wait for the other ranks before it returns
 * (MPI-3.1 5.12), so it takes the parameters agreed so far, and NULL
 * before the first agreement. Every rank of c makes the same blocking
 * and nonblocking calls in the same order, so all hold the same
 * parameters at every call. NULL: none agreed yet in a nonblocking call,
 * no memory, or c spans one site; the caller then uses the defaults
 * (coll_lanes_params), alike on every rank.
 */
const struct lanes_params *lanes_params_for(const struct coll_comm *c, int sa, int sb,
					    int may_block);

/* A lane rank saw bytes cross from site sa to sb (or back) in seconds
 * while P lanes crossed at once: recorded for the next refinement. Any
 * rank, any time (a schedule's call step); costs nothing else. */
void lanes_observe(const struct coll_comm *c, int sa, int sb, int P, size_t bytes, double seconds);

#endif
