/* SPDX-License-Identifier: MIT */
/*
 * coll/scan_recdbl.c: recursive-doubling scan and exscan. A rank keeps
 * the reduction of its group so far (partial) and its result; in round k
 * it trades partials with rank ^ 2^k. A lower partner's partial covers
 * ranks all below the ones already in the result, so it goes first in
 * both; a higher partner's goes after this rank's partial. Any op, any
 * number of ranks (partners beyond the last rank are skipped).
 */
#include "schedule.h"

int coll_build_scan_recdbl(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			   int exclusive)
{
	int n = s->c.size, rank = s->c.rank, mask, have = !exclusive;
	size_t len = count * s->op.extent;
	const void *in = sbuf ? sbuf : rbuf;
	char *partial, *spare;

	if (!(partial = coll_sched_tmp(s, 2 * len)))
		return -1;
	spare = partial + len;
	if (coll_sched_copy(s, in, partial, len) || (!exclusive && coll_sched_copy(s, in, rbuf, len)))
		return -1;
	for (mask = 1; mask < n; mask <<= 1) {
		int peer = rank ^ mask;

		if (peer >= n)
			continue;
		if (coll_sched_recv(s, spare, len, peer) || coll_sched_send(s, partial, len, peer))
			return -1;
		coll_sched_fence(s);
		if (peer < rank) {
			if ((have ? coll_sched_reduce(s, spare, rbuf, count)
				  : coll_sched_copy(s, spare, rbuf, len)) ||
			    coll_sched_reduce(s, spare, partial, count))
				return -1;
			have = 1;
		} else if (coll_sched_fold(s, &partial, &spare, count, 0)) {
			return -1;
		}
	}
	return 0;
}
