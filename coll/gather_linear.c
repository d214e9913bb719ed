/* SPDX-License-Identifier: MIT */
/*
 * coll/gather_linear.c: linear gather(v). The root posts a receive for
 * every rank's block straight into place, all at once; the others send
 * once. Linear is the right shape for the root-bound volume, and the
 * simplest to get exactly right for the v form.
 */
#include "schedule.h"

int coll_build_gatherv_linear(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			      const struct coll_v *v, size_t ucount, size_t extent, int root)
{
	int i;

	if (s->c.rank != root)
		return coll_sched_send(s, sbuf, slen, root);
	for (i = 0; i < s->c.size; i++) {
		size_t len;
		char *dst = coll_block(rbuf, v, ucount, extent, i, &len);

		if (i != root) {
			if (coll_sched_recv(s, dst, len, i))
				return -1;
			continue;
		}
		if (sbuf && slen != len) {
			s->error = michi_err(MICHI_ERR_TRUNCATE, "the root sends itself %zu bytes "
					     "but receives %zu", slen, len);
			return -1;
		}
		if (sbuf && coll_sched_copy(s, sbuf, dst, slen))
			return -1;
	}
	return 0;
}
