/* SPDX-License-Identifier: MIT */
/*
 * coll/direct.c: barriers and small blocking broadcasts, reductions,
 * allreductions, gathers and scatters without a schedule. A schedule
 * costs its building, its steps and its rounds:
 * about 600 instructions of a 1,000-instruction 8-byte MPI_Bcast at the
 * root, which is most of what separated Michi from Open MPI on small
 * rooted collectives. When the table (coll/select.c) picks the binomial
 * tree for a blocking call of at most coll_direct_bytes of a contiguous
 * buffer (per rank's block for gather and scatter, at most DIRECT_MAX
 * in all), these run the same tree with MTMI requests on the stack: the
 * same messages, tags and order as coll/bcast_binomial.c,
 * coll/reduce_binomial.c and coll/gather_binomial.c, so a rank that
 * takes the schedule for the same call (a derived datatype of the same
 * signature) still matches them. Barriers and allreductions likewise run
 * the flat or dissemination barrier (coll/barrier_flat.c,
 * barrier_dissem.c) and the flat or recursive-doubling allreduce
 * (coll/allreduce_flat.c, allreduce_recdbl.c) when the table picks them:
 * on a few ranks of one host, where ranks outnumbering the cores make
 * every instruction of each rank's turn count.
 */
#include "schedule.h"

#define DIRECT_MAX 4096   /* bytes: the reduction's scratch is on the stack */
#define DIRECT_RANKS 64   /* ranks of a flat barrier or allreduce: requests on the stack */

static size_t direct_bytes = 2048;
MICHI_TUNABLE(direct_bytes, "coll_direct_bytes", MICHI_T_SIZE, "2k", MICHI_LEVEL_TUNER,
	      "largest blocking broadcast, reduction or allreduction (bytes, at most 4k) "
	      "that runs its algorithm without a schedule, as blocking barriers do (0: "
	      "never, barriers included)");

int coll_direct_fits(size_t len)
{
	return len && len <= direct_bytes && len <= DIRECT_MAX;
}

int coll_direct_fits_blocks(size_t blen, int n)
{
	return coll_direct_fits(blen) && (size_t)n * blen <= 2 * DIRECT_MAX;
}

int coll_direct_fits_ranks(int n)
{
	return direct_bytes && n <= DIRECT_RANKS;
}

static michi_status_t recv_wait(const struct coll_comm *c, void *buf, size_t len, int from,
				int tag)
{
	struct mtmi_req r;
	michi_status_t st;

	r.on_complete = NULL;
	st = mtmi_irecv(buf, len, c->peers[from], from, tag, c->ctx, &r);
	if (st < 0)
		return st;
	if (!r.done)
		mtmi_wait(&r);
	return r.error;
}

static michi_status_t recv_start(const struct coll_comm *c, void *buf, size_t len, int from,
				 int tag, struct mtmi_req *r)
{
	r->on_complete = NULL;
	return mtmi_irecv(buf, len, c->peers[from], from, tag, c->ctx, r);
}

static michi_status_t send_start(const struct coll_comm *c, const void *buf, size_t len, int to,
				 int tag, struct mtmi_req *r)
{
	r->on_complete = NULL;
	return mtmi_isend(buf, len, c->peers[to], c->rank, tag, c->ctx, MTMI_MODE_STANDARD, r);
}

/* Waits for the n requests; the first error, or st if set. */
static michi_status_t sends_wait(struct mtmi_req *r, int n, michi_status_t st)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!r[i].done)
			mtmi_wait(&r[i]);
		if (!st && r[i].error)
			st = r[i].error;
	}
	return st;
}

/* ---- barrier ---------------------------------------------------------- */

michi_status_t coll_direct_barrier(const struct coll_comm *c, int flat)
{
	int n = c->size, rank = c->rank, tag = COLL_TAG_BARRIER + c->tag_ofs, i, dist;
	struct mtmi_req r[DIRECT_RANKS];
	michi_status_t st = 0;
	char dummy = 0;

	if (!flat) {   /* dissemination: hear from rank - 2^k, tell rank + 2^k */
		for (dist = 1; dist < n && st >= 0; dist <<= 1) {
			st = recv_start(c, &dummy, 0, (rank - dist + n) % n, tag, &r[0]);
			if (st < 0)
				break;
			st = send_start(c, &dummy, 0, (rank + dist) % n, tag, &r[1]);
			st = sends_wait(r, st < 0 ? 1 : 2, st < 0 ? st : 0);
		}
		return st;
	}
	if (rank) {   /* tell rank 0, wait for its word */
		st = send_start(c, &dummy, 0, 0, tag, &r[0]);
		if (st < 0)
			return st;
		st = recv_start(c, &dummy, 0, 0, tag, &r[1]);
		return sends_wait(r, st < 0 ? 1 : 2, st < 0 ? st : 0);
	}
	for (i = 1; i < n; i++)
		if ((st = recv_start(c, &dummy, 0, i, tag, &r[i - 1])) < 0)
			break;
	st = sends_wait(r, i - 1, st < 0 ? st : 0);
	if (st < 0)
		return st;
	for (i = 1; i < n; i++)
		if ((st = send_start(c, &dummy, 0, i, tag, &r[i - 1])) < 0)
			break;
	return sends_wait(r, i - 1, st < 0 ? st : 0);
}

michi_status_t coll_direct_bcast(const struct coll_comm *c, void *buf, size_t len, int root)
{
	int n = c->size, vr = (c->rank - root + n) % n, tag = COLL_TAG_BCAST + c->tag_ofs;
	struct mtmi_req r[32];
	michi_status_t st = 0;
	int mask, ns = 0;

	for (mask = 1; mask < n; mask <<= 1) {
		if (vr & mask) {
			st = recv_wait(c, buf, len, (vr - mask + root) % n, tag);
			if (st < 0)
				return st;
			break;
		}
	}
	for (mask >>= 1; mask > 0; mask >>= 1) {
		if (vr + mask >= n)
			continue;
		st = send_start(c, buf, len, (vr + mask + root) % n, tag, &r[ns]);
		if (st < 0)
			break;
		ns++;
		st = 0;
	}
	return sends_wait(r, ns, st);
}

/* acc = acc op theirs in rank order (theirs covers the ranks after acc's):
 * apply writes its second operand, so the result lands in theirs and the
 * two trade places; an op that commutes folds into acc directly. */
static void fold(const struct coll_op *op, char **acc, char **theirs, size_t count)
{
	char *x = *acc;

	if (op->commute) {
		op->apply(op, *theirs, *acc, count);
		return;
	}
	op->apply(op, *acc, *theirs, count);
	*acc = *theirs;
	*theirs = x;
}

michi_status_t coll_direct_reduce(const struct coll_comm *c, const struct coll_op *op,
				  const void *sbuf, void *rbuf, size_t count, int root)
{
	int n = c->size, rank = c->rank, top = op->commute ? root : 0;
	int vr = (rank - top + n) % n, tag = COLL_TAG_REDUCE + c->tag_ofs, mask;
	size_t len = count * op->extent;
	const void *mine = sbuf ? sbuf : rbuf;   /* in place: the root's input is in rbuf */
	max_align_t t[2 * DIRECT_MAX / sizeof(max_align_t)];
	char *acc, *spare;
	struct mtmi_req r;
	michi_status_t st;

	if (vr & 1) {   /* a leaf sends its input as it is */
		st = send_start(c, mine, len, (vr - 1 + top) % n, tag, &r);
		if (st < 0)
			return st;
		st = sends_wait(&r, 1, 0);
		if (st < 0 || rank != root)
			return st;
		/* not commutative, and the root a leaf of rank 0's tree */
		return recv_wait(c, rbuf, len, 0, tag);
	}
	acc = rank == top && rank == root ? rbuf : (char *)t;
	spare = (char *)t + (acc == (char *)t ? len : 0);
	if (acc != mine)
		memmove(acc, mine, len);
	for (mask = 1; mask < n; mask <<= 1) {
		if (vr & mask) {
			st = send_start(c, acc, len, (vr - mask + top) % n, tag, &r);
			if (st < 0)
				return st;
			st = sends_wait(&r, 1, 0);
			if (st < 0)
				return st;
			break;
		}
		if (vr + mask < n) {
			st = recv_wait(c, spare, len, (vr + mask + top) % n, tag);
			if (st < 0)
				return st;
			fold(op, &acc, &spare, count);
		}
	}
	if (rank == top && rank == root) {
		if (acc != rbuf)
			memcpy(rbuf, acc, len);
		return 0;
	}
	if (rank == top) {   /* rank 0 of an op that does not commute */
		st = send_start(c, acc, len, root, tag, &r);
		return st < 0 ? st : sends_wait(&r, 1, 0);
	}
	if (rank == root)
		return recv_wait(c, rbuf, len, 0, tag);
	return 0;
}

/* ---- allreduce -------------------------------------------------------- */

/* The flat allreduce (coll/allreduce_flat.c over coll/reduce_flat.c):
 * every input to rank 0, folded there from the last rank down, the
 * result to every rank. */
static michi_status_t allreduce_flat(const struct coll_comm *c, const struct coll_op *op,
				     const void *mine, void *rbuf, size_t count, int tag)
{
	int n = c->size, i;
	size_t len = count * op->extent;
	max_align_t t[2 * DIRECT_MAX / sizeof(max_align_t)];
	char *in = (char *)t;
	struct mtmi_req r[DIRECT_RANKS];
	michi_status_t st = 0;

	if (c->rank) {
		st = send_start(c, mine, len, 0, tag, &r[0]);
		if (st < 0 || (st = sends_wait(r, 1, 0)) < 0)
			return st;
		return recv_wait(c, rbuf, len, 0, tag);
	}
	for (i = 1; i < n; i++)
		if ((st = recv_start(c, in + (size_t)i * len, len, i, tag, &r[i - 1])) < 0)
			break;
	st = sends_wait(r, i - 1, st < 0 ? st : 0);
	if (st < 0)
		return st;
	/* x0 op (x1 op (... op x(n-1))), folded into rbuf from the last */
	memcpy(in, mine, len);
	memcpy(rbuf, in + (size_t)(n - 1) * len, len);
	for (i = n - 2; i >= 0; i--)
		op->apply(op, in + (size_t)i * len, rbuf, count);
	for (i = 1; i < n; i++)
		if ((st = send_start(c, rbuf, len, i, tag, &r[i - 1])) < 0)
			break;
	return sends_wait(r, i - 1, st < 0 ? st : 0);
}

/* Recursive doubling (coll/allreduce_recdbl.c): the first 2r ranks fold
 * pairwise into the odd one, the p left exchange log2 p times, the odd
 * ones hand the result back. */
static michi_status_t allreduce_recdbl(const struct coll_comm *c, const struct coll_op *op,
				       void *rbuf, size_t count, int tag)
{
	int n = c->size, rank = c->rank, p = 1, rr, vr, mask;
	size_t len = count * op->extent;
	max_align_t t[DIRECT_MAX / sizeof(max_align_t)];
	char *acc = rbuf, *spare = (char *)t;
	struct mtmi_req r[2];
	michi_status_t st;

	while (p * 2 <= n)
		p *= 2;
	rr = n - p;
	vr = rank >= 2 * rr ? rank - rr : rank / 2;
	if (rank < 2 * rr && rank % 2 == 0) {
		st = send_start(c, rbuf, len, rank + 1, tag, &r[0]);
		if (st < 0 || (st = sends_wait(r, 1, 0)) < 0)
			return st;
		return recv_wait(c, rbuf, len, rank + 1, tag);
	}
	if (rank < 2 * rr) {   /* (rank - 1) op mine */
		if ((st = recv_wait(c, spare, len, rank - 1, tag)) < 0)
			return st;
		op->apply(op, spare, acc, count);
	}
	for (mask = 1; mask < p; mask <<= 1) {
		int vpeer = vr ^ mask, peer = vpeer < rr ? vpeer * 2 + 1 : vpeer + rr;

		if ((st = recv_start(c, spare, len, peer, tag, &r[0])) < 0)
			return st;
		st = send_start(c, acc, len, peer, tag, &r[1]);
		if ((st = sends_wait(r, st < 0 ? 1 : 2, st < 0 ? st : 0)) < 0)
			return st;
		if (vpeer < vr)   /* theirs op acc, into acc */
			op->apply(op, spare, acc, count);
		else
			fold(op, &acc, &spare, count);
	}
	if (acc != rbuf)
		memcpy(rbuf, acc, len);
	if (rank < 2 * rr) {
		st = send_start(c, rbuf, len, rank - 1, tag, &r[0]);
		return st < 0 ? st : sends_wait(r, 1, 0);
	}
	return 0;
}

michi_status_t coll_direct_allreduce(const struct coll_comm *c, const struct coll_op *op,
				     const void *sbuf, void *rbuf, size_t count, int flat)
{
	int tag = COLL_TAG_ALLREDUCE + c->tag_ofs;

	if (c->size == 1) {
		if (sbuf)
			memcpy(rbuf, sbuf, count * op->extent);
		return 0;
	}
	if (flat)
		return allreduce_flat(c, op, sbuf ? sbuf : rbuf, rbuf, count, tag);
	if (sbuf)
		memcpy(rbuf, sbuf, count * op->extent);
	return allreduce_recdbl(c, op, rbuf, count, tag);
}

/* blocks in the subtree of vr: its lowest set bit (or n), cut at n
 * (as coll/gather_binomial.c) */
static int subtree(int vr, int n)
{
	int low = vr ? vr & -vr : n;

	return low < n - vr ? low : n - vr;
}

michi_status_t coll_direct_gather(const struct coll_comm *c, const void *sbuf, void *rbuf,
				  size_t blen, int root)
{
	int n = c->size, rank = c->rank, vr = (rank - root + n) % n, mask, i, nr = 0;
	int tag = COLL_TAG_GATHER + c->tag_ofs;
	max_align_t t[2 * DIRECT_MAX / sizeof(max_align_t)];
	char *rb = rbuf, *tmp = vr == 0 && root == 0 ? rb : (char *)t;
	const char *mine = sbuf ? sbuf : rb + (size_t)rank * blen;
	struct mtmi_req r[32];
	michi_status_t st = 0;

	if (mine != tmp)
		memmove(tmp, mine, blen);
	for (mask = 1; mask < n && !(vr & mask); mask <<= 1) {
		if (vr + mask >= n)
			continue;
		st = recv_start(c, tmp + (size_t)mask * blen, (size_t)subtree(vr + mask, n) * blen,
				(vr + mask + root) % n, tag, &r[nr]);
		if (st < 0)
			break;
		nr++;
		st = 0;
	}
	st = sends_wait(r, nr, st);
	if (st < 0)
		return st;
	if (vr) {
		st = send_start(c, tmp, (size_t)subtree(vr, n) * blen, (vr - (vr & -vr) + root) % n,
				tag, &r[0]);
		return st < 0 ? st : sends_wait(r, 1, 0);
	}
	for (i = 0; tmp != rb && i < n; i++)
		memcpy(rb + (size_t)((i + root) % n) * blen, tmp + (size_t)i * blen, blen);
	return 0;
}

michi_status_t coll_direct_scatter(const struct coll_comm *c, const void *sbuf, void *rbuf,
				   size_t blen, int root)
{
	int n = c->size, rank = c->rank, vr = (rank - root + n) % n, mask, i, ns = 0;
	int tag = COLL_TAG_SCATTER + c->tag_ofs;
	max_align_t t[2 * DIRECT_MAX / sizeof(max_align_t)];
	const char *sb = sbuf;
	char *tmp = (char *)t;
	struct mtmi_req r[32];
	michi_status_t st = 0;

	if (vr == 0 && root == 0) {
		tmp = (char *)sb;
	} else if (vr == 0) {   /* renumbered order */
		for (i = 0; i < n; i++)
			memcpy(tmp + (size_t)i * blen, sb + (size_t)((i + root) % n) * blen, blen);
	} else {
		st = recv_start(c, tmp, (size_t)subtree(vr, n) * blen,
				(vr - (vr & -vr) + root) % n, tag, &r[0]);
		if (st < 0 || (st = sends_wait(r, 1, 0)) < 0)
			return st;
	}
	for (mask = 1; mask < n && !(vr & mask); mask <<= 1)
		;
	for (mask >>= 1; mask > 0; mask >>= 1) {
		if (vr + mask >= n)
			continue;
		st = send_start(c, tmp + (size_t)mask * blen, (size_t)subtree(vr + mask, n) * blen,
				(vr + mask + root) % n, tag, &r[ns]);
		if (st < 0)
			break;
		ns++;
		st = 0;
	}
	st = sends_wait(r, ns, st);
	/* the root in place keeps its block where it is */
	if (st == 0 && rbuf && rbuf != tmp)
		memcpy(rbuf, tmp, blen);
	return st;
}
