/* SPDX-License-Identifier: MIT */
/*
 * coll/allgather_ring.c: ring allgather(v). In step k every rank passes
 * the block it received in step k - 1 (its own in step 0) to its right
 * neighbour and receives the next one from its left, so after n - 1 steps
 * each rank holds all blocks and every link carried each block once.
 */
#include "coll.h"

static char *ag_block(void *rbuf, const int *counts, const int *displs, size_t ucount,
		      size_t extent, int i, size_t *len)
{
	*len = (counts ? (size_t)counts[i] : ucount) * extent;
	return (char *)rbuf + (counts ? (ptrdiff_t)displs[i] : (ptrdiff_t)(i * ucount)) *
	       (ptrdiff_t)extent;
}

michi_status_t coll_allgatherv_ring(const struct coll_comm *c, const void *sbuf, size_t slen,
				    void *rbuf, const int *counts, const int *displs,
				    size_t ucount, size_t extent)
{
	int n = c->size, right = (c->rank + 1) % n, left = (c->rank - 1 + n) % n, k;
	michi_status_t st;
	size_t len;
	char *own = ag_block(rbuf, counts, displs, ucount, extent, c->rank, &len);

	if (sbuf && slen != len)
		return michi_err(MICHI_ERR_TRUNCATE, "rank %d sends %zu bytes but its block holds %zu",
				 c->rank, slen, len);
	if (sbuf && slen)
		memmove(own, sbuf, slen);
	for (k = 0; k < n - 1; k++) {
		int sb = (c->rank - k + n) % n, rb = (c->rank - k - 1 + n) % n;
		size_t slen_k, rlen_k;
		char *s = ag_block(rbuf, counts, displs, ucount, extent, sb, &slen_k);
		char *r = ag_block(rbuf, counts, displs, ucount, extent, rb, &rlen_k);

		st = coll_sendrecv(c, s, slen_k, right, r, rlen_k, left, COLL_TAG_ALLGATHER);
		if (st < 0)
			return st;
	}
	return MICHI_OK;
}
