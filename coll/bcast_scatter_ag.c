/* SPDX-License-Identifier: MIT */
/*
 * coll/bcast_scatter_ag.c: broadcast as a binomial scatter followed by a
 * ring allgather (van de Geijn). The message is cut into n pieces; the
 * scatter sends each rank its piece down the binomial tree (a subtree's
 * pieces travel together), then the ring passes every piece around once.
 * Every link carries about 2 * len bytes instead of the binomial tree's
 * log2(n) * len at the root, which is what large broadcasts need.
 */
#include "schedule.h"

/* Piece i of n of a len-byte message: [off, off + size). */
static void piece(size_t len, int n, int i, size_t *off, size_t *size)
{
	size_t chunk = (len + (size_t)n - 1) / (size_t)n;
	size_t a = (size_t)i * chunk, b = a + chunk;

	a = a < len ? a : len;
	b = b < len ? b : len;
	*off = a;
	*size = b - a;
}

/* bytes of the pieces of virtual ranks [from, to) */
static void span(size_t len, int n, int from, int to, size_t *off, size_t *size)
{
	size_t o1, s1, o2, s2;

	to = to < n ? to : n;
	piece(len, n, from, &o1, &s1);
	piece(len, n, to - 1, &o2, &s2);
	*off = o1;
	*size = o2 + s2 - o1;
}

int coll_build_bcast_scatter_ag(struct coll_sched *s, void *buf, size_t len, int root)
{
	int n = s->c.size, vr = (s->c.rank - root + n) % n, mask, k;
	char *b = buf;
	size_t off, size;

	/* scatter: receive my subtree's pieces, then hand halves down */
	for (mask = 1; mask < n; mask <<= 1) {
		if (vr & mask) {
			span(len, n, vr, vr + mask, &off, &size);
			if (size && coll_sched_recv(s, b + off, size, (vr - mask + root) % n))
				return -1;
			coll_sched_fence(s);
			break;
		}
	}
	for (mask >>= 1; mask > 0; mask >>= 1) {
		if (vr + mask < n) {
			span(len, n, vr + mask, vr + 2 * mask, &off, &size);
			if (size && coll_sched_send(s, b + off, size, (vr + mask + root) % n))
				return -1;
		}
	}
	coll_sched_fence(s);
	/* ring allgather of the pieces, in virtual rank order */
	for (k = 0; k < n - 1; k++) {
		int sp = (vr - k + n) % n, rp = (vr - k - 1 + n) % n;
		size_t so, ss, ro, rs;

		piece(len, n, sp, &so, &ss);
		piece(len, n, rp, &ro, &rs);
		if ((rs && coll_sched_recv(s, b + ro, rs, (s->c.rank - 1 + n) % n)) ||
		    (ss && coll_sched_send(s, b + so, ss, (s->c.rank + 1) % n)))
			return -1;
		coll_sched_fence(s);
	}
	return 0;
}
