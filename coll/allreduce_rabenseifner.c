/* SPDX-License-Identifier: MIT */
/*
 * coll/allreduce_rabenseifner.c: Rabenseifner's allreduce for large
 * messages and commutative ops: a reduce-scatter by recursive halving
 * (each round a rank keeps half of its window of blocks, sends the other
 * half to its partner and reduces the half it gets), then an allgather by
 * recursive doubling (windows double back). Each rank sends and reduces
 * about len bytes in all instead of log2(n) * len. Ranks beyond the
 * largest power of two are folded in first, as in recursive doubling.
 */
#include "schedule.h"

/* elements [*off, *off + *cnt) of blocks [lo, hi) of count cut in p */
static void window(size_t count, int p, int lo, int hi, size_t *off, size_t *cnt)
{
	size_t q = count / (size_t)p, rem = count % (size_t)p;
	size_t a = (size_t)lo * q + ((size_t)lo < rem ? (size_t)lo : rem);
	size_t b = (size_t)hi * q + ((size_t)hi < rem ? (size_t)hi : rem);

	*off = a;
	*cnt = b - a;
}

int coll_build_allreduce_rabenseifner(struct coll_sched *s, const void *sbuf, void *rbuf,
				      size_t count)
{
	int rank = s->c.rank, p, r, vr, mask, lo, hi, done;
	size_t ext = s->op.extent, len = count * ext, off, cnt, poff, pcnt;
	char *acc = rbuf, *tmp;

	if (!(tmp = coll_sched_tmp(s, len)))
		return -1;
	if ((done = coll_fold_in(s, sbuf, rbuf, count, tmp, &p, &r, &vr)))
		return done < 0 ? -1 : 0;
#define REAL(v) ((v) < r ? (v) * 2 + 1 : (v) + r)
	lo = 0;
	hi = p;
	for (mask = p / 2; mask > 0; mask >>= 1) {
		int vpeer = vr ^ mask, mid = lo + (hi - lo) / 2;
		int keep_lo = vr < vpeer ? lo : mid, keep_hi = vr < vpeer ? mid : hi;
		int give_lo = vr < vpeer ? mid : lo, give_hi = vr < vpeer ? hi : mid;

		window(count, p, keep_lo, keep_hi, &off, &cnt);
		window(count, p, give_lo, give_hi, &poff, &pcnt);
		if ((cnt && coll_sched_recv(s, tmp + off * ext, cnt * ext, REAL(vpeer))) ||
		    (pcnt && coll_sched_send(s, acc + poff * ext, pcnt * ext, REAL(vpeer))))
			return -1;
		coll_sched_fence(s);
		if (cnt && coll_sched_reduce(s, tmp + off * ext, acc + off * ext, cnt))
			return -1;
		lo = keep_lo;
		hi = keep_hi;
	}
	for (mask = 1; mask < p; mask <<= 1) {
		int vpeer = vr ^ mask, w = hi - lo, plo = vr < vpeer ? hi : lo - w;

		window(count, p, lo, hi, &off, &cnt);
		window(count, p, plo, plo + w, &poff, &pcnt);
		if ((pcnt && coll_sched_recv(s, acc + poff * ext, pcnt * ext, REAL(vpeer))) ||
		    (cnt && coll_sched_send(s, acc + off * ext, cnt * ext, REAL(vpeer))))
			return -1;
		coll_sched_fence(s);
		lo = lo < plo ? lo : plo;
		hi = lo + 2 * w;
	}
#undef REAL
	if (rank < 2 * r)
		return coll_sched_send(s, rbuf, len, rank - 1);
	return 0;
}
