/* SPDX-License-Identifier: MIT */
/*
 * coll/inter.c: collectives on intercommunicators. The schedule's view is
 * the intercommunicator (this rank's local rank; the remote group's ranks
 * as peers) and its other view the local group (coll_sched_switch). The
 * rooted ones go through local rank 0 of the group that does not hold the
 * root: a local phase (the intracommunicator algorithms) and one message
 * between that leader and the root. The all-to-all ones combine or gather
 * each group at its leader, swap between the leaders, and spread the
 * other group's result locally; the v and w forms, whose layouts only the
 * receiving side knows, go point to point between every pair.
 */
#include "schedule.h"

/* leaders swap: sbuf to remote rank 0, rbuf from it (inter view) */
static int leaders_swap(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			size_t rlen)
{
	if (coll_sched_recv(s, rbuf, rlen, 0) || coll_sched_send(s, sbuf, slen, 0))
		return -1;
	coll_sched_fence(s);
	return 0;
}

int coll_build_inter_barrier(struct coll_sched *s)
{
	static char dummy;

	coll_sched_switch(s);
	if (coll_build_barrier_dissem(s))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	if (s->c.rank == 0 && leaders_swap(s, &dummy, 0, &dummy, 0))
		return -1;
	coll_sched_switch(s);
	return coll_build_bcast_binomial(s, &dummy, 0, 0);
}

int coll_build_inter_bcast(struct coll_sched *s, void *buf, size_t len, int role, int root)
{
	if (role == COLL_ROOT_SELF)
		return coll_sched_send(s, buf, len, 0);
	if (role == COLL_ROOT_NONE)
		return 0;
	if (s->c.rank == 0) {
		if (coll_sched_recv(s, buf, len, root))
			return -1;
		coll_sched_fence(s);
	}
	coll_sched_switch(s);
	return coll_build_bcast_binomial(s, buf, len, 0);
}

int coll_build_inter_reduce(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			    int role, int root)
{
	size_t len = count * s->op.extent;
	char *acc = NULL;

	if (role == COLL_ROOT_SELF)
		return coll_sched_recv(s, rbuf, len, 0);
	if (role == COLL_ROOT_NONE)
		return 0;
	if (s->c.rank == 0 && !(acc = coll_sched_tmp(s, len)))
		return -1;
	coll_sched_switch(s);
	if (coll_build_reduce_binomial(s, sbuf, acc, count, 0))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	return acc ? coll_sched_send(s, acc, len, root) : 0;
}

int coll_build_inter_allreduce(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count)
{
	size_t len = count * s->op.extent;
	char *acc = NULL;

	if (s->c.rank == 0 && !(acc = coll_sched_tmp(s, len)))
		return -1;
	coll_sched_switch(s);
	if (coll_build_reduce_binomial(s, sbuf, acc, count, 0))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	if (acc && leaders_swap(s, acc, len, rbuf, len))
		return -1;
	coll_sched_switch(s);
	return coll_build_bcast_binomial(s, rbuf, len, 0);
}

int coll_build_inter_gather(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			    const struct coll_v *v, size_t ucount, size_t ext, int role, int root,
			    int vform)
{
	int i, lsize = s->alt.size;
	char *all = NULL;

	if (role == COLL_ROOT_NONE)
		return 0;
	if (vform) {
		/* v form (only the root knows the layout): straight to the root */
		if (role == COLL_ROOT_REMOTE)
			return coll_sched_send(s, sbuf, slen, root);
		for (i = 0; i < s->c.size; i++) {
			size_t len;
			char *b = coll_block(rbuf, v, ucount, ext, i, &len);

			if (coll_sched_recv(s, b, len, i))
				return -1;
		}
		return 0;
	}
	if (role == COLL_ROOT_SELF)   /* the blocks come in rank order */
		return coll_sched_recv(s, rbuf, (size_t)s->c.size * ucount * ext, 0);
	if (s->c.rank == 0 && !(all = coll_sched_tmp(s, (size_t)lsize * slen)))
		return -1;
	coll_sched_switch(s);
	if (coll_build_gatherv_linear(s, sbuf, slen, all, NULL, slen, 1, 0))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	return all ? coll_sched_send(s, all, (size_t)lsize * slen, root) : 0;
}

int coll_build_inter_scatter(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
			     size_t ucount, size_t ext, void *rbuf, size_t rlen, int role, int root,
			     int vform)
{
	int i, lsize = s->alt.size;
	char *all = NULL;

	if (role == COLL_ROOT_NONE)
		return 0;
	if (vform) {
		if (role == COLL_ROOT_REMOTE)
			return coll_sched_recv(s, rbuf, rlen, root);
		for (i = 0; i < s->c.size; i++) {
			size_t len;
			const char *b = coll_block(sbuf, v, ucount, ext, i, &len);

			if (coll_sched_send(s, b, len, i))
				return -1;
		}
		return 0;
	}
	if (role == COLL_ROOT_SELF)
		return coll_sched_send(s, sbuf, (size_t)s->c.size * ucount * ext, 0);
	if (s->c.rank == 0) {
		if (!(all = coll_sched_tmp(s, (size_t)lsize * rlen)) ||
		    coll_sched_recv(s, all, (size_t)lsize * rlen, root))
			return -1;
		coll_sched_fence(s);
	}
	coll_sched_switch(s);
	return coll_build_scatterv_linear(s, all, NULL, rlen, 1, rbuf, rlen, 0);
}

int coll_build_inter_allgather(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			       const struct coll_v *v, size_t ucount, size_t ext)
{
	int i, lsize = s->alt.size, rsize = s->c.size;
	size_t rall = (size_t)rsize * ucount * ext;
	char *all = NULL;

	if (v) {
		/* every rank's block to every remote rank */
		for (i = 0; i < rsize; i++) {
			size_t len;
			char *b = coll_block(rbuf, v, ucount, ext, i, &len);

			if (coll_sched_recv(s, b, len, i))
				return -1;
		}
		for (i = 0; i < rsize; i++)
			if (coll_sched_send(s, sbuf, slen, i))
				return -1;
		return 0;
	}
	if (s->c.rank == 0 && !(all = coll_sched_tmp(s, (size_t)lsize * slen)))
		return -1;
	coll_sched_switch(s);
	if (coll_build_gatherv_linear(s, sbuf, slen, all, NULL, slen, 1, 0))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	if (all && leaders_swap(s, all, (size_t)lsize * slen, rbuf, rall))
		return -1;
	coll_sched_switch(s);
	return coll_build_bcast_binomial(s, rbuf, rall, 0);
}

int coll_build_inter_alltoallw(struct coll_sched *s, const char *const *sbufs, const size_t *slens,
			       char *const *rbufs, const size_t *rlens)
{
	int rsize = s->c.size, lsize = s->alt.size, rank = s->c.rank;
	int max = lsize > rsize ? lsize : rsize, k;

	/* step k: to rank + k and from rank - k of the other group, modulo
	 * the larger group; those beyond the other group's size sit out */
	for (k = 0; k < max; k++) {
		int to = (rank + k) % max, from = (rank - k + max) % max;

		if ((from < rsize && coll_sched_recv(s, rbufs[from], rlens[from], from)) ||
		    (to < rsize && coll_sched_send(s, sbufs[to], slens[to], to)))
			return -1;
		coll_sched_fence(s);
	}
	return 0;
}

int coll_build_inter_reduce_scatter(struct coll_sched *s, const void *sbuf, void *rbuf,
				    const struct coll_v *v, size_t ucount)
{
	int i, lsize = s->alt.size;
	size_t total = 0, ext = s->op.extent;
	char *acc = NULL, *theirs = NULL;

	for (i = 0; i < lsize; i++)
		total += coll_v_count(v, i, ucount);
	if (s->c.rank == 0 && (!(acc = coll_sched_tmp(s, 2 * total * ext))))
		return -1;
	if (acc)
		theirs = acc + total * ext;
	coll_sched_switch(s);
	if (coll_build_reduce_binomial(s, sbuf, acc, total, 0))
		return -1;
	coll_sched_fence(s);
	coll_sched_switch(s);
	if (acc && leaders_swap(s, acc, total * ext, theirs, total * ext))
		return -1;
	coll_sched_switch(s);
	if (v) {
		/* the blocks back to back, as the reduction left them */
		intptr_t *displs = coll_sched_tmp(s, (size_t)lsize * sizeof(*displs));
		struct coll_v *packed = coll_sched_tmp(s, sizeof(*packed));
		size_t d = 0;

		if (!displs || !packed)
			return -1;
		for (i = 0; i < lsize; i++) {
			displs[i] = (intptr_t)d;
			d += coll_v_count(v, i, 0);
		}
		*packed = *v;
		packed->displs = displs;
		packed->wide_displs = 1;
		return coll_build_scatterv_linear(s, theirs, packed, 0, ext, rbuf,
						  coll_v_count(v, s->c.rank, 0) * ext, 0);
	}
	return coll_build_scatterv_linear(s, theirs, NULL, ucount, ext, rbuf, ucount * ext, 0);
}
