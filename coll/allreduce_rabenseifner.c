/* SPDX-License-Identifier: MIT */
/*
 * coll/allreduce_rabenseifner.c: Rabenseifner's allreduce for large
 * messages and commutative ops: a reduce-scatter by recursive halving
 * (each round a rank keeps half of its window of blocks, sends the other
 * half to its partner and reduces the half it gets), then an allgather by
 * recursive doubling (windows double back). Each rank sends and reduces
 * about len bytes in all instead of log2(n) * len. Ranks beyond the
 * largest power of two are folded in first, as in recursive doubling.
 * No rank copies its input: the first message it receives lands in the
 * result's place and the input folds into it there.
 *
 * The halving and a fold that may start at any rank are shared with the
 * reduce (coll/reduce_rabenseifner.c) and the reduce-scatter
 * (coll/reduce_scatter_rechalving.c) built the same way.
 */
#include "schedule.h"

int coll_fold_pairs(struct coll_sched *s, const void **in, char *acc, char *spare, size_t count,
		    int base, int *p_out, int *r_out, int *vr)
{
	int n = s->c.size, rank = s->c.rank, u = (rank - base + n) % n, p = 1, r;
	size_t len = count * s->op.extent;

	while (p * 2 <= n)
		p *= 2;
	r = n - p;
	*p_out = p;
	*r_out = r;
	*vr = u >= 2 * r ? u - r : u / 2;
	if (u >= 2 * r)
		return 0;
	if (u % 2 == 0)
		return len && coll_sched_send(s, *in, len, (rank + 1) % n) ? -1 : 1;
	if (!len)
		return 0;
	/* the partner's vector lands in acc and mine folds into it, with no
	 * copy, unless mine is already there */
	if (coll_sched_recv(s, *in == acc ? spare : acc, len, (rank - 1 + n) % n))
		return -1;
	coll_sched_fence(s);
	if (coll_sched_reduce(s, *in == acc ? spare : *in, acc, count))
		return -1;
	*in = acc;
	return 0;
}

int coll_rechalve(struct coll_sched *s, const void *in, char *acc, char *tmp, const size_t *bound,
		  int p, int r, int base, int vr)
{
	int n = s->c.size, lo = 0, hi = p, mask;
	size_t ext = s->op.extent;
	const char *src = in;

	for (mask = p / 2; mask > 0; mask >>= 1) {
		int vpeer = vr ^ mask, peer = coll_fold_real(vpeer, r, base, n);
		int mid = lo + (hi - lo) / 2, low = vr < vpeer;
		int keep_lo = low ? lo : mid, keep_hi = low ? mid : hi;
		int give_lo = low ? mid : lo, give_hi = low ? hi : mid;
		size_t koff = bound[keep_lo], kcnt = bound[keep_hi] - koff;
		size_t goff = bound[give_lo], gcnt = bound[give_hi] - goff;
		/* the first round reads the input where it is: the partner's
		 * half lands in acc and mine folds into it */
		char *land = src == acc ? tmp : acc;

		if ((kcnt && coll_sched_recv(s, land + koff * ext, kcnt * ext, peer)) ||
		    (gcnt && coll_sched_send(s, src + goff * ext, gcnt * ext, peer)))
			return -1;
		coll_sched_fence(s);
		if (kcnt && coll_sched_reduce(s, (land == acc ? src : tmp) + koff * ext,
					      acc + koff * ext, kcnt))
			return -1;
		src = acc;
		lo = keep_lo;
		hi = keep_hi;
	}
	/* a single participant: nothing was halved */
	return coll_sched_copy(s, src, acc, (bound[p] - bound[0]) * ext);
}

size_t *coll_even_bounds(struct coll_sched *s, size_t count, int p)
{
	size_t q = count / (size_t)p, rem = count % (size_t)p, *bound;
	int i;

	if (!(bound = coll_sched_tmp(s, (size_t)(p + 1) * sizeof(*bound))))
		return NULL;
	for (i = 0; i <= p; i++)
		bound[i] = (size_t)i * q + ((size_t)i < rem ? (size_t)i : rem);
	return bound;
}

int coll_build_allreduce_rabenseifner(struct coll_sched *s, const void *sbuf, void *rbuf,
				      size_t count)
{
	int rank = s->c.rank, n = s->c.size, p, r, vr, mask, lo, hi, done;
	size_t ext = s->op.extent, len = count * ext, *bound;
	const void *in = sbuf ? sbuf : rbuf;
	char *acc = rbuf, *tmp;

	if (!(tmp = coll_sched_tmp(s, len)))
		return -1;
	if ((done = coll_fold_pairs(s, &in, acc, tmp, count, 0, &p, &r, &vr)) < 0)
		return -1;
	if (done) {   /* sat out: the result comes back from my partner */
		coll_sched_fence(s);
		return coll_sched_recv(s, rbuf, len, rank + 1);
	}
	if (!(bound = coll_even_bounds(s, count, p)) ||
	    coll_rechalve(s, in, acc, tmp, bound, p, r, 0, vr))
		return -1;
	/* allgather: the window [lo, hi) of blocks doubles back each round */
	lo = vr;
	hi = vr + 1;
	for (mask = 1; mask < p; mask <<= 1) {
		int vpeer = vr ^ mask, peer = coll_fold_real(vpeer, r, 0, n), w = hi - lo;
		int plo = vr < vpeer ? hi : lo - w;
		size_t off = bound[lo], cnt = bound[hi] - off;
		size_t poff = bound[plo], pcnt = bound[plo + w] - poff;

		if ((pcnt && coll_sched_recv(s, acc + poff * ext, pcnt * ext, peer)) ||
		    (cnt && coll_sched_send(s, acc + off * ext, cnt * ext, peer)))
			return -1;
		coll_sched_fence(s);
		lo = lo < plo ? lo : plo;
		hi = lo + 2 * w;
	}
	if (rank < 2 * r)
		return coll_sched_send(s, rbuf, len, rank - 1);
	return 0;
}
