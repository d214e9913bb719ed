/* SPDX-License-Identifier: MIT */
/*
 * coll/allreduce_ring.c: ring allreduce for commutative ops, any number
 * of ranks. The vector is cut into n nearly equal chunks. A ring
 * reduce-scatter (n - 1 steps: a rank passes the chunk it last reduced to
 * its right neighbour and folds the one from its left into its own copy)
 * leaves rank i with chunk i + 1 fully reduced; a ring allgather (n - 1
 * steps) passes the finished chunks around once. Each rank sends and
 * reduces about len bytes in all, and only to its neighbours, with no
 * fold for n that is not a power of two; the cost is 2(n - 1) latencies,
 * so it suits large vectors (the bandwidth-optimal allreduce of Patarasuk
 * and Yuan). Each chunk is reduced in one place and then copied, so every
 * rank gets the same bits.
 */
#include "schedule.h"

/* chunk i of count cut in n: elements [*off, *off + *cnt) */
static void chunk(size_t count, int n, int i, size_t *off, size_t *cnt)
{
	size_t q = count / (size_t)n, rem = count % (size_t)n;

	*off = (size_t)i * q + ((size_t)i < rem ? (size_t)i : rem);
	*cnt = q + ((size_t)i < rem);
}

int coll_build_allreduce_ring(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count)
{
	int n = s->c.size, rank = s->c.rank, k;
	int right = (rank + 1) % n, left = (rank - 1 + n) % n;
	size_t ext = s->op.extent, so, sc, ro, rc;
	const char *in = sbuf;
	char *acc = rbuf, *tmp = NULL;

	if (n == 1)
		return sbuf ? coll_sched_copy(s, sbuf, rbuf, count * ext) : 0;
	/* A chunk from the left lands in its place in rbuf and my input's
	 * chunk folds into it there, so no rank copies its input; in place
	 * the input is rbuf and the chunks land in scratch. */
	if (!sbuf && !(tmp = coll_sched_tmp(s, (count / (size_t)n + 1) * ext)))
		return -1;
	for (k = 0; k < n - 1; k++) {
		chunk(count, n, (rank - k + n) % n, &so, &sc);
		chunk(count, n, (rank - k - 1 + n) % n, &ro, &rc);
		if ((rc && coll_sched_recv(s, sbuf ? acc + ro * ext : tmp, rc * ext, left)) ||
		    (sc && coll_sched_send(s, (k || !sbuf ? acc : in) + so * ext, sc * ext, right)))
			return -1;
		coll_sched_fence(s);
		if (rc && coll_sched_reduce(s, sbuf ? in + ro * ext : tmp, acc + ro * ext, rc))
			return -1;
	}
	for (k = 0; k < n - 1; k++) {
		chunk(count, n, (rank + 1 - k + n) % n, &so, &sc);
		chunk(count, n, (rank - k + n) % n, &ro, &rc);
		if ((rc && coll_sched_recv(s, acc + ro * ext, rc * ext, left)) ||
		    (sc && coll_sched_send(s, acc + so * ext, sc * ext, right)))
			return -1;
		coll_sched_fence(s);
	}
	return 0;
}
