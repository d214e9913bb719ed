/* SPDX-License-Identifier: MIT */
/*
 * coll/allreduce_recdbl.c: recursive-doubling allreduce for commutative
 * ops. With p the largest power of two <= n and r = n - p, the first 2r
 * ranks pair up and each even one hands its data to the odd one, leaving
 * p participants; those exchange and combine with partners at distance
 * 1, 2, 4 ... (log2 p rounds), and the odd ranks finally hand the result
 * back to their even partners. Both partners of a round combine the same
 * two values with a commutative op, so every rank ends bit-identical.
 */
#include <stdlib.h>

#include "coll.h"

michi_status_t coll_allreduce_recdbl(const struct coll_comm *c, const void *sbuf, void *rbuf,
				     size_t count, const struct coll_op *op)
{
	int n = c->size, rank = c->rank, p = 1, r, vr, mask;
	size_t len = count * op->extent;
	michi_status_t st = MICHI_OK;
	char *tmp;

	if (sbuf && len)
		memcpy(rbuf, sbuf, len);
	if (n == 1)
		return MICHI_OK;
	while (p * 2 <= n)
		p *= 2;
	r = n - p;
	tmp = malloc(len ? len : 1);
	if (!tmp)
		return michi_err(MICHI_ERR_NOMEM, "no memory for a %zu-byte allreduce", len);

	if (rank < 2 * r) {
		if (rank % 2 == 0) {
			st = coll_send(c, rbuf, len, rank + 1, COLL_TAG_ALLREDUCE);
			vr = -1;
		} else {
			st = coll_recv(c, tmp, len, rank - 1, COLL_TAG_ALLREDUCE);
			if (st >= 0)
				op->apply(op, tmp, rbuf, count);
			vr = rank / 2;
		}
	} else {
		vr = rank - r;
	}
	for (mask = 1; st >= 0 && vr >= 0 && mask < p; mask <<= 1) {
		int vpeer = vr ^ mask;
		int peer = vpeer < r ? vpeer * 2 + 1 : vpeer + r;

		st = coll_sendrecv(c, rbuf, len, peer, tmp, len, peer, COLL_TAG_ALLREDUCE);
		if (st >= 0)
			op->apply(op, tmp, rbuf, count);
	}
	if (st >= 0 && rank < 2 * r) {
		if (rank % 2 == 0)
			st = coll_recv(c, rbuf, len, rank + 1, COLL_TAG_ALLREDUCE);
		else
			st = coll_send(c, rbuf, len, rank - 1, COLL_TAG_ALLREDUCE);
	}
	free(tmp);
	return st;
}
