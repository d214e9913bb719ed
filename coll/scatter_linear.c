/* SPDX-License-Identifier: MIT */
/*
 * coll/scatter_linear.c: linear scatter(v), the mirror of the linear
 * gather: the root sends each rank its block in rank order, the others
 * receive once.
 */
#include "coll.h"

michi_status_t coll_scatterv_linear(const struct coll_comm *c, const void *sbuf,
				    const int *counts, const int *displs, size_t ucount,
				    size_t extent, void *rbuf, size_t rlen, int root)
{
	michi_status_t st;
	int i;

	if (c->rank != root)
		return coll_recv(c, rbuf, rlen, root, COLL_TAG_SCATTER);
	for (i = 0; i < c->size; i++) {
		size_t cnt = counts ? (size_t)counts[i] : ucount;
		const char *src = (const char *)sbuf +
				  (counts ? (ptrdiff_t)displs[i] : (ptrdiff_t)(i * ucount)) *
				  (ptrdiff_t)extent;

		if (i == root) {
			if (rbuf && rlen != cnt * extent)
				return michi_err(MICHI_ERR_TRUNCATE, "the root sends itself %zu bytes "
						 "but receives %zu", cnt * extent, rlen);
			if (rbuf && rlen)
				memmove(rbuf, src, rlen);
			continue;
		}
		st = coll_send(c, src, cnt * extent, i, COLL_TAG_SCATTER);
		if (st < 0)
			return st;
	}
	return MICHI_OK;
}
