/* SPDX-License-Identifier: MIT */
/*
 * coll/bcast_chain.c: pipelined chain broadcast. Ranks form a chain in
 * rank order from the root (root, root + 1, ...) and the message is cut
 * into segments; in round k a rank receives segment k from its
 * predecessor while it forwards segment k - 1 to its successor, so after
 * the pipeline fills every link carries a segment at once and the time
 * is about (segments + n - 2) segment steps: each rank receives and sends
 * len bytes, once, whatever n is. The last rank of the chain posts all its
 * receives at once. The segment size (a tunable, the same on every rank)
 * trades the time to fill the pipeline against the cost per message; a
 * message of more than CHAIN_MAX_SEGMENTS segments gets longer ones, as
 * the schedule holds two steps per segment. This is the chain (pipeline)
 * broadcast of Open MPI's tuned component.
 */
#include "schedule.h"

#define CHAIN_MIN_SEGMENT 1024
#define CHAIN_MAX_SEGMENTS 8192

static size_t chain_segment = 64 * 1024;
MICHI_TUNABLE(chain_segment, "coll_bcast_segment_bytes", MICHI_T_SIZE, "65536",
	      MICHI_LEVEL_TUNER, "segment (bytes, at least 1024) of the pipelined chain "
	      "broadcast; every rank must use the same");

int coll_build_bcast_chain(struct coll_sched *s, void *buf, size_t len, int root)
{
	int n = s->c.size, rank = s->c.rank, vr = (rank - root + n) % n;
	int prev = (rank - 1 + n) % n, next = (rank + 1) % n;
	size_t seg = chain_segment < CHAIN_MIN_SEGMENT ? CHAIN_MIN_SEGMENT : chain_segment;
	size_t nseg, k;
	char *b = buf;

	if (n == 1 || !len)
		return 0;
	if (len / seg >= CHAIN_MAX_SEGMENTS)
		seg = (len + CHAIN_MAX_SEGMENTS - 1) / CHAIN_MAX_SEGMENTS;
	nseg = (len + seg - 1) / seg;
#define SEG(k) b + (k) * seg, ((k) + 1 < nseg ? seg : len - (k) * seg)
	if (vr == n - 1) {   /* the end of the chain forwards nothing */
		for (k = 0; k < nseg; k++)
			if (coll_sched_recv(s, SEG(k), prev))
				return -1;
		return 0;
	}
	for (k = 0; k <= nseg; k++) {
		if (vr > 0 && k < nseg && coll_sched_recv(s, SEG(k), prev))
			return -1;
		if (k > 0 && coll_sched_send(s, SEG(k - 1), next))
			return -1;
		coll_sched_fence(s);
	}
#undef SEG
	return 0;
}
