/* SPDX-License-Identifier: MIT */
/*
 * coll/scatter_linear.c: linear scatter(v). The root starts a send of
 * every rank's block at once, in rank order; the others receive once.
 */
#include "schedule.h"

int coll_build_scatterv_linear(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
			       size_t ucount, size_t extent, void *rbuf, size_t rlen, int root)
{
	int i;

	if (s->c.rank != root)
		return coll_sched_recv(s, rbuf, rlen, root);
	for (i = 0; i < s->c.size; i++) {
		size_t len;
		const char *src = coll_block(sbuf, v, ucount, extent, i, &len);

		if (i != root) {
			if (coll_sched_send(s, src, len, i))
				return -1;
			continue;
		}
		if (rbuf && rlen != len) {
			s->error = michi_err(MICHI_ERR_TRUNCATE, "the root sends itself %zu bytes "
					     "but receives %zu", len, rlen);
			return -1;
		}
		if (rbuf && coll_sched_copy(s, src, rbuf, len))
			return -1;
	}
	return 0;
}
