/* SPDX-License-Identifier: MIT */
/*
 * util/rttgroup.h: groups of hosts from measured round-trip times, the
 * topology inference of GRID.md §5.2 written once for every user: the
 * automatic split of a job's hosts into sites (mpi/coll/site.c) now, the
 * switch-level grouping of the sparse-connections work later.
 *
 * Input: an n x n matrix of round-trip times (any unit; each entry the
 * minimum of a few samples), row-major, rtt[i * n + j] measured by host
 * i to host j; the diagonal and entries <= 0 (or NaN) count as not
 * measured, and a pair measured both ways counts its smaller time.
 *
 * The pairs' times are sorted; a "gap" is a step from one time to the
 * next by at least `ratio` (e.g. 3: the next is three times the
 * previous) and by at least `min_gap` in absolute terms (0: no such
 * condition; sites: a millisecond, so that a LAN whose times scatter
 * by scheduling noise is not split). The coarsest gap whose near pairs (the times below it)
 * split the hosts into more than one connected group is the one taken:
 * hosts joined by a chain of near pairs share a group (single linkage),
 * so one slow sample inside a site does not split it. Without such a gap
 * every host is in group 0.
 *
 * Levels: the coarsest gap is the top of the hierarchy (sites, across a
 * WAN); applying the function again to the matrix of one group's hosts
 * finds the next level inside it (the switches of a site), which is how
 * a switch tree (GRID.md §5.3's leaves) is grown from the same code.
 */
#ifndef MICHI_RTTGROUP_H
#define MICHI_RTTGROUP_H

/*
 * Writes the group of every host into group[0..n) (groups numbered
 * 0, 1, ... in the order of their lowest host) and returns the number of
 * groups (1 when there is no clear gap, or n < 3: two hosts give one
 * time and nothing to compare it with), or -1 when out of memory
 * (group then all 0). If cut is not NULL it gets the time midway
 * across the gap taken (0 without a split).
 */
int michi_rtt_groups(int n, const double *rtt, double ratio, double min_gap, int *group,
		     double *cut);

#endif
