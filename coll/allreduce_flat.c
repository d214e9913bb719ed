/* SPDX-License-Identifier: MIT */
/*
 * coll/allreduce_flat.c: flat allreduce for small messages on a few
 * ranks of one host. Every rank sends its input to rank 0 and waits for
 * the result; rank 0 combines the inputs in rank order (so any op, not
 * only commutative ones, gives the same bits everywhere) and sends the
 * result back. Each rank runs once per call: when ranks outnumber the
 * cores, a core switches between its ranks about twice per call instead
 * of once per round of recursive doubling, which is where the time goes.
 */
#include <stdlib.h>

#include "coll.h"

michi_status_t coll_allreduce_flat(const struct coll_comm *c, const void *sbuf, void *rbuf,
				   size_t count, const struct coll_op *op)
{
	int n = c->size, i;
	size_t len = count * op->extent;
	michi_status_t st = MICHI_OK;
	char stackbuf[512], *acc, *tmp;

	if (sbuf && len)
		memcpy(rbuf, sbuf, len);
	if (n == 1)
		return MICHI_OK;
	if (c->rank != 0) {
		st = coll_send(c, rbuf, len, 0, COLL_TAG_ALLREDUCE);
		if (st >= 0)
			st = coll_recv(c, rbuf, len, 0, COLL_TAG_ALLREDUCE);
		return st;
	}
	acc = 2 * len <= sizeof(stackbuf) ? stackbuf : malloc(2 * len);
	if (!acc)
		return michi_err(MICHI_ERR_NOMEM, "no memory for a %zu-byte allreduce", len);
	tmp = acc + len;
	/* x0 op (x1 op (... op x(n-1))): the last input first */
	st = coll_recv(c, acc, len, n - 1, COLL_TAG_ALLREDUCE);
	for (i = n - 2; st >= 0 && i >= 1; i--) {
		st = coll_recv(c, tmp, len, i, COLL_TAG_ALLREDUCE);
		if (st >= 0)
			op->apply(op, tmp, acc, count);
	}
	if (st >= 0) {
		op->apply(op, rbuf, acc, count);
		memcpy(rbuf, acc, len);
		for (i = 1; st >= 0 && i < n; i++)
			st = coll_send(c, rbuf, len, i, COLL_TAG_ALLREDUCE);
	}
	if (acc != stackbuf)
		free(acc);
	return st;
}
