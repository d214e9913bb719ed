/* SPDX-License-Identifier: MIT */
/*
 * coll/reduce_binomial.c: binomial-tree reduction for commutative ops.
 * With ranks renumbered so the root is 0, a rank folds in the partial
 * results of vr + 1, vr + 2, vr + 4 ... while those bits of vr are clear,
 * then sends its partial result to the rank that clears its lowest set
 * bit. Commutativity lets each rank combine in arrival order.
 */
#include <stdlib.h>

#include "coll.h"

michi_status_t coll_reduce_binomial(const struct coll_comm *c, const void *sbuf, void *rbuf,
				    size_t count, const struct coll_op *op, int root)
{
	int n = c->size, vr = (c->rank - root + n) % n;
	size_t len = count * op->extent;
	michi_status_t st = MICHI_OK;
	char *acc, *tmp;
	int mask;

	/* the root accumulates in its receive buffer, the others in scratch */
	tmp = malloc(len ? 2 * len : 1);
	if (!tmp)
		return michi_err(MICHI_ERR_NOMEM, "no memory for a %zu-byte reduction", len);
	acc = c->rank == root ? rbuf : tmp + len;
	if (sbuf && len)
		memcpy(acc, sbuf, len);
	for (mask = 1; mask < n; mask <<= 1) {
		if (vr & mask) {
			st = coll_send(c, acc, len, (vr - mask + root) % n, COLL_TAG_REDUCE);
			break;
		}
		if (vr + mask < n) {
			st = coll_recv(c, tmp, len, (vr + mask + root) % n, COLL_TAG_REDUCE);
			if (st < 0)
				break;
			op->apply(op, tmp, acc, count);
		}
	}
	free(tmp);
	return st;
}
