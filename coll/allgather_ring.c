/* SPDX-License-Identifier: MIT */
/*
 * coll/allgather_ring.c: ring allgather(v). In step k every rank passes
 * the block it received in step k - 1 (its own in step 0) to its right
 * neighbour and receives the next one from its left, so after n - 1 steps
 * each rank holds all blocks and every link carried each block once.
 */
#include "schedule.h"

int coll_build_allgatherv_ring(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			       const struct coll_v *v, size_t ucount, size_t extent)
{
	int n = s->c.size, rank = s->c.rank, k;
	int right = (rank + 1) % n, left = (rank - 1 + n) % n;
	size_t len;
	char *own = coll_block(rbuf, v, ucount, extent, rank, &len);

	if (sbuf && slen != len) {
		s->error = michi_err(MICHI_ERR_TRUNCATE, "rank %d sends %zu bytes but its block "
				     "holds %zu", rank, slen, len);
		return -1;
	}
	if (sbuf && coll_sched_copy(s, sbuf, own, slen))
		return -1;
	for (k = 0; k < n - 1; k++) {
		size_t sl, rl;
		char *sb = coll_block(rbuf, v, ucount, extent, (rank - k + n) % n, &sl);
		char *rb = coll_block(rbuf, v, ucount, extent, (rank - k - 1 + n) % n,
				      &rl);

		if (coll_sched_recv(s, rb, rl, left) || coll_sched_send(s, sb, sl, right))
			return -1;
		coll_sched_fence(s);
	}
	return 0;
}
