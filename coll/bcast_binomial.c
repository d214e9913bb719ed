/* SPDX-License-Identifier: MIT */
/*
 * coll/bcast_binomial.c: binomial-tree broadcast. Ranks are renumbered so
 * the root is 0; a rank receives once from the rank that differs in its
 * lowest set bit, then forwards to the ranks below that bit, largest
 * subtree first, so the tree is ceil(log2 n) deep.
 */
#include "coll.h"

michi_status_t coll_bcast_binomial(const struct coll_comm *c, void *buf, size_t len, int root)
{
	int n = c->size, vr = (c->rank - root + n) % n;
	michi_status_t st;
	int mask;

	for (mask = 1; mask < n; mask <<= 1) {
		if (vr & mask) {
			st = coll_recv(c, buf, len, (vr - mask + root) % n, COLL_TAG_BCAST);
			if (st < 0)
				return st;
			break;
		}
	}
	for (mask >>= 1; mask > 0; mask >>= 1) {
		if (vr + mask < n) {
			st = coll_send(c, buf, len, (vr + mask + root) % n, COLL_TAG_BCAST);
			if (st < 0)
				return st;
		}
	}
	return MICHI_OK;
}
