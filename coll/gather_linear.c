/* SPDX-License-Identifier: MIT */
/*
 * coll/gather_linear.c: linear gather(v). The root receives each rank's
 * block in rank order straight into place; the others send once. Linear
 * is the right shape for the root-bound volume, and the simplest to get
 * exactly right for the v form.
 */
#include "coll.h"

michi_status_t coll_gatherv_linear(const struct coll_comm *c, const void *sbuf, size_t slen,
				   void *rbuf, const int *counts, const int *displs,
				   size_t ucount, size_t extent, int root)
{
	michi_status_t st;
	int i;

	if (c->rank != root)
		return coll_send(c, sbuf, slen, root, COLL_TAG_GATHER);
	for (i = 0; i < c->size; i++) {
		size_t cnt = counts ? (size_t)counts[i] : ucount;
		char *dst = (char *)rbuf + (counts ? (ptrdiff_t)displs[i] : (ptrdiff_t)(i * ucount)) *
			    (ptrdiff_t)extent;

		if (i == root) {
			if (sbuf && slen != cnt * extent)
				return michi_err(MICHI_ERR_TRUNCATE, "the root sends itself %zu bytes "
						 "but receives %zu", slen, cnt * extent);
			if (sbuf && slen)
				memmove(dst, sbuf, slen);
			continue;
		}
		st = coll_recv(c, dst, cnt * extent, i, COLL_TAG_GATHER);
		if (st < 0)
			return st;
	}
	return MICHI_OK;
}
