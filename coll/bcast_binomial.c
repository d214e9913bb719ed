/* SPDX-License-Identifier: MIT */
/*
 * coll/bcast_binomial.c: binomial-tree broadcast. Ranks are renumbered so
 * the root is 0; a rank receives once from the rank that differs in its
 * lowest set bit, then forwards to the ranks below that bit, largest
 * subtree first, so the tree is ceil(log2 n) deep. The forwarding sends
 * all start in one round.
 */
#include "schedule.h"

int coll_build_bcast_binomial(struct coll_sched *s, void *buf, size_t len, int root)
{
	int n = s->c.size, vr = (s->c.rank - root + n) % n, mask;

	for (mask = 1; mask < n; mask <<= 1) {
		if (vr & mask) {
			if (coll_sched_recv(s, buf, len, (vr - mask + root) % n))
				return -1;
			coll_sched_fence(s);
			break;
		}
	}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (vr + mask < n && coll_sched_send(s, buf, len, (vr + mask + root) % n))
			return -1;
	return 0;
}
