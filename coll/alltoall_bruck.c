/* SPDX-License-Identifier: MIT */
/*
 * coll/alltoall_bruck.c: Bruck's alltoall for small blocks of one size,
 * any number of ranks, in ceil(log2 n) rounds instead of n - 1. A rank
 * first rotates its blocks in scratch so that block i is the one for rank
 * + i. In round k it sends every block whose index has bit k set to rank
 * + 2^k and receives the same positions from rank - 2^k, so a block moves
 * by its index in all and block i ends up holding what rank - i sent this
 * rank; a last pass puts it in place. Each round's blocks travel packed
 * in one message (a call step packs and unpacks them), so every block
 * crosses about log2(n) / 2 links: worth it while latency, not bandwidth,
 * is the cost.
 */
#include "schedule.h"

struct bruck_pack {
	char *blocks, *packed;
	size_t blen;
	int n, bit, unpack;
};

/* the blocks whose index has the round's bit set, to or from packed */
static michi_status_t bruck_pack(struct coll_sched *s, void *arg)
{
	const struct bruck_pack *a = arg;
	char *p = a->packed;
	int i;

	(void)s;
	for (i = a->bit; i < a->n; i++) {
		if (!(i & a->bit))
			continue;
		if (a->unpack)
			memcpy(a->blocks + (size_t)i * a->blen, p, a->blen);
		else
			memcpy(p, a->blocks + (size_t)i * a->blen, a->blen);
		p += a->blen;
	}
	return 0;
}

int coll_build_alltoall_bruck(struct coll_sched *s, const void *sbuf, void *rbuf, size_t blen)
{
	int n = s->c.size, rank = s->c.rank, rounds = 0, k, i;
	const char *in = sbuf ? sbuf : rbuf;   /* in place: the input is in rbuf */
	char *blocks, *spack, *rpack, *rb = rbuf;
	struct bruck_pack *a;
	size_t most = (size_t)(n / 2 + 1) * blen;

	if (!blen)
		return 0;
	if (n == 1)
		return coll_sched_copy(s, in, rbuf, blen);
	for (k = 1; k < n; k <<= 1)
		rounds++;
	if (!(blocks = coll_sched_tmp(s, (size_t)n * blen + 2 * most)) ||
	    !(a = coll_sched_tmp(s, 2 * (size_t)rounds * sizeof(*a))))
		return -1;
	spack = blocks + (size_t)n * blen;
	rpack = spack + most;
	/* block i of scratch: the one for rank + i */
	if (coll_sched_copy(s, in + (size_t)rank * blen, blocks, (size_t)(n - rank) * blen) ||
	    coll_sched_copy(s, in, blocks + (size_t)(n - rank) * blen, (size_t)rank * blen))
		return -1;
	for (k = 1; k < n; k <<= 1, a += 2) {
		size_t len = 0;

		for (i = k; i < n; i++)
			len += (i & k) ? blen : 0;
		a[0] = (struct bruck_pack){ blocks, spack, blen, n, k, 0 };
		a[1] = (struct bruck_pack){ blocks, rpack, blen, n, k, 1 };
		if (coll_sched_call(s, bruck_pack, &a[0]) ||
		    coll_sched_recv(s, rpack, len, (rank - k + n) % n) ||
		    coll_sched_send(s, spack, len, (rank + k) % n))
			return -1;
		coll_sched_fence(s);
		if (coll_sched_call(s, bruck_pack, &a[1]))
			return -1;
	}
	/* block i came from rank - i */
	for (i = 0; i < n; i++)
		if (coll_sched_copy(s, blocks + (size_t)i * blen,
				    rb + (size_t)((rank - i + n) % n) * blen, blen))
			return -1;
	return 0;
}
