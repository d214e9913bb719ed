/* SPDX-License-Identifier: MIT */
/*
 * coll/alltoall_pairwise.c: pairwise-exchange alltoall(v). In step k a
 * rank sends to rank + k and receives from rank - k, so every rank has
 * exactly one send and one receive in flight per step. In place, a block
 * cannot be overwritten before it is sent, so pairs (i, j), i < j, instead
 * swap their blocks in a fixed global order through a scratch block.
 */
#include <stdlib.h>

#include "coll.h"

/* Block of peer i: counts NULL is the uniform layout of ucount elements. */
static char *a2a_block(const void *buf, const int *counts, const int *displs, size_t ucount,
		       size_t extent, int i, size_t *len)
{
	*len = (counts ? (size_t)counts[i] : ucount) * extent;
	return (char *)buf + (counts ? (ptrdiff_t)displs[i] : (ptrdiff_t)(i * ucount)) *
	       (ptrdiff_t)extent;
}

static michi_status_t a2a_inplace(const struct coll_comm *c, void *rbuf, const int *rcounts,
				  const int *rdispls, size_t ucount, size_t rext)
{
	michi_status_t st = MICHI_OK;
	size_t len, max = 0;
	char *tmp;
	int i, j;

	for (i = 0; i < c->size; i++) {
		a2a_block(rbuf, rcounts, rdispls, ucount, rext, i, &len);
		max = len > max ? len : max;
	}
	tmp = malloc(max ? max : 1);
	if (!tmp)
		return michi_err(MICHI_ERR_NOMEM, "no memory for a %zu-byte alltoall block", max);
	for (i = 0; i < c->size && st >= 0; i++) {
		for (j = i + 1; j < c->size && st >= 0; j++) {
			int peer = c->rank == i ? j : c->rank == j ? i : -1;
			char *b;

			if (peer < 0)
				continue;
			b = a2a_block(rbuf, rcounts, rdispls, ucount, rext, peer, &len);
			st = coll_sendrecv(c, b, len, peer, tmp, len, peer, COLL_TAG_ALLTOALL);
			if (st >= 0 && len)
				memcpy(b, tmp, len);
		}
	}
	free(tmp);
	return st;
}

michi_status_t coll_alltoallv_pairwise(const struct coll_comm *c, const void *sbuf,
				       const int *scounts, const int *sdispls, size_t sucount,
				       size_t sext, void *rbuf, const int *rcounts,
				       const int *rdispls, size_t rucount, size_t rext)
{
	int n = c->size, k;
	michi_status_t st;
	size_t slen, rlen;
	char *s, *r;

	if (!sbuf)
		return a2a_inplace(c, rbuf, rcounts, rdispls, rucount, rext);
	s = a2a_block(sbuf, scounts, sdispls, sucount, sext, c->rank, &slen);
	r = a2a_block(rbuf, rcounts, rdispls, rucount, rext, c->rank, &rlen);
	if (slen != rlen)
		return michi_err(MICHI_ERR_TRUNCATE, "alltoall block to self has %zu bytes, expected %zu",
				 slen, rlen);
	if (slen)
		memcpy(r, s, slen);
	for (k = 1; k < n; k++) {
		int to = (c->rank + k) % n, from = (c->rank - k + n) % n;

		s = a2a_block(sbuf, scounts, sdispls, sucount, sext, to, &slen);
		r = a2a_block(rbuf, rcounts, rdispls, rucount, rext, from, &rlen);
		st = coll_sendrecv(c, s, slen, to, r, rlen, from, COLL_TAG_ALLTOALL);
		if (st < 0)
			return st;
	}
	return MICHI_OK;
}
