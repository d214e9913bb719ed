/* SPDX-License-Identifier: MIT */
/*
 * coll/alltoall_pairwise.c: pairwise-exchange alltoall(v, w). In step k a
 * rank sends to rank + k and receives from rank - k, so every rank has
 * exactly one send and one receive in flight per step. In place, the
 * receive buffer is copied first and the copy is what gets sent (a
 * block may be sent after the step that overwrites it).
 */
#include "schedule.h"

int coll_build_alltoallw_pairwise(struct coll_sched *s, const char *const *sbufs,
				  const size_t *slens, char *const *rbufs, const size_t *rlens)
{
	int n = s->c.size, rank = s->c.rank, k;

	if (slens[rank] != rlens[rank]) {
		s->error = michi_err(MICHI_ERR_TRUNCATE, "alltoall block to self has %zu bytes, "
				     "expected %zu", slens[rank], rlens[rank]);
		return -1;
	}
	if (coll_sched_copy(s, sbufs[rank], rbufs[rank], slens[rank]))
		return -1;
	for (k = 1; k < n; k++) {
		int to = (rank + k) % n, from = (rank - k + n) % n;

		if (coll_sched_recv(s, rbufs[from], rlens[from], from) ||
		    coll_sched_send(s, sbufs[to], slens[to], to))
			return -1;
		coll_sched_fence(s);
	}
	return 0;
}

int coll_build_alltoallv_pairwise(struct coll_sched *s, const void *sbuf, const struct coll_v *sv,
				  size_t sucount, size_t sext, void *rbuf, const struct coll_v *rv,
				  size_t rucount, size_t rext)
{
	int n = s->c.size, i;
	size_t *lens, span = 0;
	char **ptrs;

	if (!(lens = coll_sched_tmp(s, 2 * (size_t)n * (sizeof(size_t) + sizeof(char *)))))
		return -1;
	ptrs = (char **)(lens + 2 * n);
	for (i = 0; i < n; i++) {
		ptrs[n + i] = coll_block(rbuf, rv, rucount, rext, i, &lens[n + i]);
		if (sbuf) {
			ptrs[i] = coll_block(sbuf, sv, sucount, sext, i, &lens[i]);
		} else {
			size_t end = (size_t)(ptrs[n + i] - (char *)rbuf) + lens[n + i];

			lens[i] = lens[n + i];
			span = end > span ? end : span;
		}
	}
	if (!sbuf) {
		char *base = coll_sched_tmp(s, span);

		if (!base || coll_sched_copy(s, rbuf, base, span))
			return -1;
		for (i = 0; i < n; i++)
			ptrs[i] = base + (ptrs[n + i] - (char *)rbuf);
	}
	return coll_build_alltoallw_pairwise(s, (const char *const *)ptrs, lens, ptrs + n,
					     lens + n);
}
