/* SPDX-License-Identifier: MIT */
/*
 * coll/coll.h: collective algorithms over MTMI point-to-point.
 *
 * Collectives use the communicator's collective context (ctx + 1), so
 * their messages never match point-to-point receives. Each algorithm is one
 * file, written as a schedule (coll/schedule.h) that serves the blocking and
 * the nonblocking form. A collective's frames carry its tag plus tag_ofs.
 * A nonblocking or persistent call's tag_ofs holds its number among the
 * communicator's nonblocking and persistent calls, which every rank counts
 * alike, so frames of two collectives in flight at once never match each
 * other's receives; a blocking call's is COLL_TAG_BLOCKING and its number
 * among the communicator's blocking calls, counted apart, so that a rank
 * may start a nonblocking collective before a blocking one while the
 * others start it after (the agreement that libraries without
 * MPI_Comm_iagree build from MPI_Iallreduce), and a frame a call left
 * unreceived (a zero-byte block one side skips) never matches the next
 * call's receives.
 */
#ifndef MICHI_COLL_H
#define MICHI_COLL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "michi.h"

/*
 * The hosts of a communicator, for the node-aware algorithms: the MPI
 * layer builds it once per communicator from the bootstrap's host map
 * (or the tunable that fakes host boundaries) and every rank holds the
 * same one. Hosts are numbered in the order of their lowest rank, which
 * leads its host.
 */
struct coll_hosts {
	int nhosts;
	int myhost, lrank;     /* my host; my index among its ranks */
	const int *host;       /* host of every comm rank */
	const int *lrank_of;   /* index of every comm rank within its host */
	const int *members;    /* comm ranks host by host, ascending in each */
	const int *first;      /* host h's ranks are members[first[h]] up to
				* members[first[h + 1]] (nhosts + 1 entries) */
	const int *local_world;   /* world ranks of my host's ranks */
	const int *leader_world;  /* world rank of every host's leader */
};

/*
 * The sites of a communicator, for the grid-aware algorithms: groups of
 * hosts joined by a wide-area network. The MPI layer builds it once per
 * communicator from the job's site map (or the tunable that fakes site
 * boundaries) and every rank holds the same one. Sites are numbered in
 * the order of their lowest rank. Inside a site the ranks are listed in
 * lane order: the first rank of each of its hosts (hosts in the order of
 * their lowest rank), then the second of each, and so on, so that lane
 * k of a site is members[first[s] + k] and consecutive lanes land on
 * different hosts; every rank computes the same order.
 */
struct lanes_grid;
struct coll_sites {
	int nsites;
	int mysite, lane;      /* my site; my index in its lane order */
	const int *site;       /* site of every comm rank */
	const int *lane_of;    /* index of every comm rank in its site's lane order */
	const int *members;    /* comm ranks site by site, each in lane order */
	const int *first;      /* site s's ranks are members[first[s]] up to
				* members[first[s + 1]] (nsites + 1 entries) */
	struct lanes_grid *grid;   /* the lanes' parameters between these sites
				    * (coll/lanes_params.h), or NULL */
};

struct coll_comm {
	int rank, size;
	uint32_t ctx;          /* the collective context */
	const int *peers;      /* world rank of each comm rank */
	int tag_ofs;           /* added to every tag: COLL_TAG_BLOCKING and
				* a blocking call's number, or a
				* nonblocking call's number (11 bits) at
				* COLL_SEQ_SHIFT (coll_sched_number), above
				* the bits MTMI hashes (MTMI_HASH_TAG_MASK),
				* so that one source's calls of one
				* collective queue in one bucket, the
				* oldest first; or negative for a
				* collective over part of a communicator
				* (MPI_Comm_create_group), so that the rest
				* of it, in its next collective, never
				* matches these frames */
	const struct coll_hosts *hosts;   /* NULL: one host, or a view that
					   * the node-aware algorithms made */
	const struct coll_sites *sites;   /* NULL: one site, or a view that
					   * the grid-aware algorithms made */
};

/* One tag per collective on the collective context: MTMI keeps per-peer
 * order, so consecutive blocking calls of one collective cannot mix. */
enum coll_tag {
	COLL_TAG_BARRIER = 1,
	COLL_TAG_BCAST,
	COLL_TAG_REDUCE,
	COLL_TAG_ALLREDUCE,
	COLL_TAG_GATHER,
	COLL_TAG_SCATTER,
	COLL_TAG_ALLGATHER,
	COLL_TAG_ALLTOALL,
	COLL_TAG_REDUCE_SCATTER,
	COLL_TAG_SCAN,
	COLL_TAG_NEIGHBOR,
	COLL_TAG_CTX,          /* context-id agreement of a communicator */
	COLL_TAG_HOSTS,        /* the leaders' phase of a node-aware algorithm */
	COLL_TAG_SITES,        /* the lanes' phase of a grid-aware algorithm */
	COLL_TAG_LANES,        /* the lanes' measurement (coll/lanes_params.c) */
	COLL_TAG_MAX = 32      /* tags below it */
};

#define COLL_SEQ_SHIFT 20      /* tag_ofs = (sequence & COLL_SEQ_MASK) << it */
#define COLL_SEQ_MASK  0x7ffu
/* added to the tags of a persistent collective (coll_sched_persist): its
 * rounds and the other collectives never share a tag */
#define COLL_TAG_PERSIST (1 << (COLL_SEQ_SHIFT - 1))
/* in the offset of a blocking call's tags, with its number among the
 * blocking calls: apart from every nonblocking call's (whose offsets
 * leave this bit clear) */
#define COLL_TAG_BLOCKING (1 << (COLL_SEQ_SHIFT - 2))

/* A reduction as the algorithms see it: apply(in, inout, count) computes
 * inout = in op inout elementwise; the caller checked op and datatype. */
struct coll_op {
	void (*apply)(const struct coll_op *o, const void *in, void *inout, size_t count);
	uint32_t op, dtype;   /* the MPI handles, for apply */
	size_t extent;        /* bytes per element */
	int commute;
};

/*
 * The counts and displacements of a v collective, as the program passed
 * them: int arrays (MPI_Gatherv) or MPI_Count and MPI_Aint arrays
 * (MPI_Gatherv_c, MPI-4.0's large counts), read through coll_v_count and
 * coll_v_displ. The algorithms take the arrays this way rather than as
 * MPI_Count/MPI_Aint copies so that neither form converts (allocates and
 * copies n entries) on every call; the price is one predictable branch
 * per block, beside a message per block. A NULL coll_v is the uniform
 * layout of ucount elements per block. Displacements count elements.
 */
struct coll_v {
	const void *counts;    /* int[] or, wide_counts, MPI_Count (int64_t)[] */
	const void *displs;    /* int[] or, wide_displs, MPI_Aint (intptr_t)[] */
	uint8_t wide_counts, wide_displs;
};

static inline size_t coll_v_count(const struct coll_v *v, int i, size_t ucount)
{
	if (!v)
		return ucount;
	return v->wide_counts ? (size_t)((const int64_t *)v->counts)[i]
			      : (size_t)((const int *)v->counts)[i];
}

static inline ptrdiff_t coll_v_displ(const struct coll_v *v, int i, size_t ucount)
{
	if (!v)
		return (ptrdiff_t)i * (ptrdiff_t)ucount;
	return v->wide_displs ? (ptrdiff_t)((const intptr_t *)v->displs)[i]
			      : (ptrdiff_t)((const int *)v->displs)[i];
}

/* The block of rank i in a gather-style layout (v NULL: uniform). */
static inline char *coll_block(const void *buf, const struct coll_v *v, size_t ucount,
			       size_t extent, int i, size_t *len)
{
	*len = coll_v_count(v, i, ucount) * extent;
	return (char *)buf + coll_v_displ(v, i, ucount) * (ptrdiff_t)extent;
}

/* A blocking exchange on the collective context (coll/p2p.c), for the
 * intercommunicator leaders. */
michi_status_t coll_sendrecv(const struct coll_comm *c, const void *sbuf, size_t slen, int to,
			     void *rbuf, size_t rlen, int from, int tag);

/* 1 when this host runs more ranks of the job than it has processors
 * online: the same on every rank of the host (mpi/env/init.c), so the
 * choices of a communicator on one host may depend on it
 * (coll/select.c). */
extern int coll_oversubscribed MICHI_HIDDEN;

/*
 * The algorithms, one file each, as schedule builders (coll/schedule.h):
 * each appends its steps to s, over s->c with the op s->op; they return 0
 * or <0 (out of memory, or a size mismatch: michi_err has the message).
 * sbuf NULL means in place. Buffers are described as for the MPI call
 * with contiguous data: blocks per rank follow coll_block().
 */
struct coll_sched;

/* Dissemination barrier: ceil(log2 n) rounds of zero-byte messages. */
int coll_build_barrier_dissem(struct coll_sched *s);
/* Flat barrier through rank 0, for a few ranks of one host; its halves:
 * every rank signals rank 0 (fan in), rank 0 answers every rank (fan
 * out). */
int coll_build_barrier_flat(struct coll_sched *s);
int coll_fan_in(struct coll_sched *s);
int coll_fan_out(struct coll_sched *s);

/* Binomial-tree broadcast of len bytes from root. */
int coll_build_bcast_binomial(struct coll_sched *s, void *buf, size_t len, int root);
int coll_build_bcast_flat(struct coll_sched *s, void *buf, size_t len, int root);
/* Scatter then ring allgather (van de Geijn), for large broadcasts. */
int coll_build_bcast_scatter_ag(struct coll_sched *s, void *buf, size_t len, int root);
/* Pipelined chain from the root in rank order, segment by segment
 * (the segment size is a tunable), for large broadcasts on a few ranks. */
int coll_build_bcast_chain(struct coll_sched *s, void *buf, size_t len, int root);

/* Binomial-tree reduction to root; rbuf only matters at the root. Any op:
 * one that does not commute is reduced in rank order on a tree rooted at
 * rank 0, whose result then goes to root. */
int coll_build_reduce_binomial(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			       int root);
/* Flat reduction to root in rank order (any op), for small vectors on
 * a few ranks of one host. */
int coll_build_reduce_flat(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			   int root);
/* Rabenseifner: reduce-scatter by recursive halving, then a binomial
 * gather of the blocks to the root; commutative ops, large vectors. */
int coll_build_reduce_rabenseifner(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
				   int root);

/* Recursive-doubling allreduce, any op (the lower rank's operand first). */
int coll_build_allreduce_recdbl(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count);
/* Their common start: the fold of the ranks beyond the largest power of
 * two p (coll/allreduce_recdbl.c). */
int coll_fold_in(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count, char *spare,
		 int *p, int *r, int *vr);
/* Flat allreduce through rank 0 in rank order, for small messages on a
 * few ranks of one host. */
int coll_build_allreduce_flat(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count);
/* Rabenseifner: reduce-scatter by recursive halving, then allgather by
 * recursive doubling, for large messages and commutative ops. */
int coll_build_allreduce_rabenseifner(struct coll_sched *s, const void *sbuf, void *rbuf,
				      size_t count);
/* Ring: reduce-scatter then allgather around the ring over n chunks
 * (2(n - 1) steps), any n, commutative ops, large messages. */
int coll_build_allreduce_ring(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count);

/*
 * Rabenseifner's building blocks (coll/allreduce_rabenseifner.c), for ops
 * that commute. With p the largest power of two <= n and r = n - p, ranks
 * are counted from `base` and the first 2r pair up; the even one of each
 * pair hands its vector to the odd one and sits out, leaving p
 * participants; participant v is rank coll_fold_real(v, r, base, n).
 * coll_fold_pairs: the fold. *in is this rank's input; on a participant
 * it becomes where the participant's vector now is: still *in, or acc
 * (count elements) after the fold, which needs spare (as much) only when
 * *in is acc. Returns 1 on a rank that sat out (its input sent), 0 with
 * *vr its participant number, -1 out of memory.
 * coll_rechalve: the reduce-scatter by recursive halving among the
 * participants, from the vector at in (left untouched unless it is acc)
 * into acc, cut into p blocks, block v being elements
 * [bound[v], bound[v + 1]); after it block vr of acc holds the reduction
 * (tmp: scratch laid out like acc).
 * coll_even_bounds: the bounds of count cut into p nearly equal blocks,
 * in scratch of s.
 */
static inline int coll_fold_real(int v, int r, int base, int n)
{
	return ((v < r ? 2 * v + 1 : v + r) + base) % n;
}
int coll_fold_pairs(struct coll_sched *s, const void **in, char *acc, char *spare, size_t count,
		    int base, int *p, int *r, int *vr);
int coll_rechalve(struct coll_sched *s, const void *in, char *acc, char *tmp, const size_t *bound,
		  int p, int r, int base, int vr);
size_t *coll_even_bounds(struct coll_sched *s, size_t count, int p);

/* Linear gather(v)/scatter(v), ring allgather(v); for gather/scatter
 * `slen`/`rlen` is this rank's own message in bytes. */
int coll_build_gatherv_linear(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			      const struct coll_v *v, size_t ucount, size_t extent, int root);
int coll_build_scatterv_linear(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
			       size_t ucount, size_t extent, void *rbuf, size_t rlen, int root);
int coll_build_allgatherv_ring(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			       const struct coll_v *v, size_t ucount, size_t extent);

/* Binomial-tree gather and scatter of blen-byte blocks, in the uniform
 * layout at the root (sbuf / rbuf NULL: the root in place). */
int coll_build_gather_binomial(struct coll_sched *s, const void *sbuf, void *rbuf, size_t blen,
			       int root);
int coll_build_scatter_binomial(struct coll_sched *s, const void *sbuf, void *rbuf, size_t blen,
				int root);

/* Allgather of blen-byte blocks in the uniform layout: Bruck's (any n)
 * and recursive doubling (n a power of two), for small blocks. */
int coll_build_allgather_bruck(struct coll_sched *s, const void *sbuf, void *rbuf, size_t blen);
int coll_build_allgather_recdbl(struct coll_sched *s, const void *sbuf, void *rbuf, size_t blen);

/* Pairwise-exchange alltoall(v); sbuf NULL: in place, the receive layout
 * describing both. */
int coll_build_alltoallv_pairwise(struct coll_sched *s, const void *sbuf, const struct coll_v *sv,
				  size_t sucount, size_t sext, void *rbuf, const struct coll_v *rv,
				  size_t rucount, size_t rext);
/* Alltoallw: the block for and from each peer, as address and bytes. */
int coll_build_alltoallw_pairwise(struct coll_sched *s, const char *const *sbufs,
				  const size_t *slens, char *const *rbufs, const size_t *rlens);
/* All sends and receives posted, a batch of peers at a time (rank + i,
 * rank - i; the batch is a tunable), for medium blocks; same arguments. */
int coll_build_alltoallv_scattered(struct coll_sched *s, const void *sbuf, const struct coll_v *sv,
				   size_t sucount, size_t sext, void *rbuf, const struct coll_v *rv,
				   size_t rucount, size_t rext);
/* Bruck's alltoall of blen-byte blocks in ceil(log2 n) rounds, for small
 * blocks (sbuf NULL: in place). */
int coll_build_alltoall_bruck(struct coll_sched *s, const void *sbuf, void *rbuf, size_t blen);

/* Reduce-scatter: block i (counts[i] elements) of the reduction goes to
 * rank i. Pairwise for commutative ops; in rank order otherwise
 * (a binomial reduce to rank 0, then a linear scatter). */
int coll_build_reduce_scatter_pairwise(struct coll_sched *s, const void *sbuf, void *rbuf,
				       const struct coll_v *v, size_t ucount);
/* Recursive halving (ranks beyond a power of two folded in), for
 * commutative ops and small to medium vectors. */
int coll_build_reduce_scatter_rechalving(struct coll_sched *s, const void *sbuf, void *rbuf,
					 const struct coll_v *v, size_t ucount);

/* Recursive-doubling inclusive and exclusive scan, any op. */
int coll_build_scan_recdbl(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			   int exclusive);

/*
 * Node-aware algorithms (s->c.hosts says the hosts, and some host holds
 * more than one rank): a phase among the ranks of each host, one among
 * the hosts' leaders, each run by the algorithm its own table chooses.
 * Reduce and allreduce need an op that commutes, allgather blocks of one
 * size (the signatures of the other algorithms, for their tables).
 */
int coll_build_barrier_hier(struct coll_sched *s);
int coll_build_bcast_hier(struct coll_sched *s, void *buf, size_t len, int root);
int coll_build_reduce_hier(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			   int root);
int coll_build_allreduce_hier(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count);
int coll_build_allgather_hier(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			      const struct coll_v *v, size_t ucount, size_t extent);

/*
 * Multilane scatter and gather across sites (coll/lanes.c; s->c.sites
 * has more than one site), blocks of one size, any root: P lanes per
 * far site from the cost model (coll/lanes_model.h) over
 * coll_lanes_params(), the parameters every rank holds alike.
 */
int coll_build_scatter_lanes(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
			     size_t ucount, size_t extent, void *rbuf, size_t rlen, int root);
int coll_build_gather_lanes(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			    const struct coll_v *v, size_t ucount, size_t extent, int root);
/* The v forms (blocks of any sizes, which only the root knows): headers
 * of sizes travel ahead of the lanes; P from the model at the nominal
 * block coll_lanes_v_bytes. */
int coll_build_scatterv_lanes(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
			      size_t ucount, size_t extent, void *rbuf, size_t rlen, int root);
int coll_build_gatherv_lanes(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			     const struct coll_v *v, size_t ucount, size_t extent, int root);
struct lanes_params;
const struct lanes_params *coll_lanes_params(const struct coll_comm *c);

/*
 * Grid-aware algorithms (s->c.sites says the sites, more than one): the
 * data goes inside each site to P lanes (coll/wan.c), crosses the
 * wide-area network once over the P lanes at the same time, and spreads
 * inside each site; each phase runs the algorithm its table chooses.
 * Reduce and allreduce need an op that commutes, alltoall blocks of one
 * size.
 */
int coll_build_barrier_wan(struct coll_sched *s);
int coll_build_bcast_wan(struct coll_sched *s, void *buf, size_t len, int root);
int coll_build_reduce_wan(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			  int root);
int coll_build_allreduce_wan(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count);
int coll_build_allgather_wan(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			     const struct coll_v *v, size_t ucount, size_t extent);
int coll_build_alltoall_wan(struct coll_sched *s, const void *sbuf, const struct coll_v *sv,
			    size_t sucount, size_t sext, void *rbuf, const struct coll_v *rv,
			    size_t rucount, size_t rext);
/* The lanes a grid-aware call that moves `bytes` across sites uses: from
 * 1 to the ranks of the smallest site, the same on every rank (the
 * coll_wan_lanes tunables; the hook for the cost model). */
int coll_wan_lanes(const struct coll_sites *ss, size_t bytes);

/*
 * Selection (coll/select.c): each collective's table of the algorithms
 * above, with what each needs and when the automatic choice takes it;
 * these build the chosen one. Arguments as for the algorithms; vform
 * marks the v forms of gather and scatter, whose counts only the root
 * has.
 */
int coll_build_barrier(struct coll_sched *s);
int coll_build_bcast(struct coll_sched *s, void *buf, size_t len, int root);
/* coll/direct.c: a blocking broadcast or reduction of len contiguous bytes
 * that the table gives to the binomial tree runs that tree directly
 * when coll_direct_*_ok (coll/select.c) says so. */
int coll_direct_fits(size_t len);
int coll_direct_fits_ranks(int n);
int coll_direct_bcast_ok(const struct coll_comm *c, size_t len);
int coll_direct_reduce_ok(const struct coll_comm *c, const struct coll_op *op, size_t count);
michi_status_t coll_direct_bcast(const struct coll_comm *c, void *buf, size_t len, int root);
michi_status_t coll_direct_reduce(const struct coll_comm *c, const struct coll_op *op,
				  const void *sbuf, void *rbuf, size_t count, int root);
/* The same for gather and scatter of blen-byte blocks (sbuf NULL: the
 * root's gather in place; rbuf NULL: the root's scatter in place). */
int coll_direct_fits_blocks(size_t blen, int n);
int coll_direct_gather_ok(const struct coll_comm *c, size_t blen);
int coll_direct_scatter_ok(const struct coll_comm *c, size_t blen);
michi_status_t coll_direct_gather(const struct coll_comm *c, const void *sbuf, void *rbuf,
				  size_t blen, int root);
michi_status_t coll_direct_scatter(const struct coll_comm *c, const void *sbuf, void *rbuf,
				   size_t blen, int root);
/* Barriers the table gives to the flat (*flat) or dissemination barrier,
 * and allreductions of count elements of a contiguous type that it gives
 * to the flat (*flat) or recursive-doubling algorithm, run it directly
 * (sbuf NULL: in place). */
int coll_direct_barrier_ok(const struct coll_comm *c, int *flat);
michi_status_t coll_direct_barrier(const struct coll_comm *c, int flat);
int coll_direct_allreduce_ok(const struct coll_comm *c, const struct coll_op *op, size_t count,
			     int *flat);
michi_status_t coll_direct_allreduce(const struct coll_comm *c, const struct coll_op *op,
				     const void *sbuf, void *rbuf, size_t count, int flat);
int coll_build_reduce(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count, int root);
int coll_build_allreduce(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count);
int coll_build_gather(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
		      const struct coll_v *v, size_t ucount, size_t extent, int root, int vform);
int coll_build_scatter(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
		       size_t ucount, size_t extent, void *rbuf, size_t rlen, int root, int vform);
int coll_build_allgather(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			 const struct coll_v *v, size_t ucount, size_t extent);
int coll_build_alltoall(struct coll_sched *s, const void *sbuf, const struct coll_v *sv,
			size_t sucount, size_t sext, void *rbuf, const struct coll_v *rv,
			size_t rucount, size_t rext);
int coll_build_reduce_scatter(struct coll_sched *s, const void *sbuf, void *rbuf,
			      const struct coll_v *v, size_t ucount);

/* Neighbourhood collectives: a receive from every in-neighbour into
 * rbufs[i] (rlens[i] bytes) and a send of sbufs[j] to every
 * out-neighbour; cart orders a Cartesian topology's pairs. */
int coll_build_neighbor(struct coll_sched *s, int nin, const int *in, char *const *rbufs,
			const size_t *rlens, int nout, const int *out, const char *const *sbufs,
			const size_t *slens, int cart);

/*
 * Intercommunicator collectives (coll/inter.c): the schedule's view is
 * the intercommunicator and its other view (coll_sched_set_alt) the local
 * group. Rooted ones take the caller's role: the root (MPI_ROOT), another
 * rank of the root's group (MPI_PROC_NULL), or a rank of the other group
 * with the root's rank there.
 */
enum coll_root_role { COLL_ROOT_SELF, COLL_ROOT_NONE, COLL_ROOT_REMOTE };
int coll_build_inter_barrier(struct coll_sched *s);
int coll_build_inter_bcast(struct coll_sched *s, void *buf, size_t len, int role, int root);
int coll_build_inter_reduce(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			    int role, int root);
int coll_build_inter_allreduce(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count);
int coll_build_inter_gather(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			    const struct coll_v *v, size_t ucount, size_t ext, int role, int root,
			    int vform);
int coll_build_inter_scatter(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
			     size_t ucount, size_t ext, void *rbuf, size_t rlen, int role, int root,
			     int vform);
int coll_build_inter_allgather(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			       const struct coll_v *v, size_t ucount, size_t ext);
int coll_build_inter_alltoallw(struct coll_sched *s, const char *const *sbufs, const size_t *slens,
			       char *const *rbufs, const size_t *rlens);
int coll_build_inter_reduce_scatter(struct coll_sched *s, const void *sbuf, void *rbuf,
				    const struct coll_v *v, size_t ucount);

/* Blocking forms for the rest of the core (context ids, topologies). */
michi_status_t coll_allreduce_recdbl(const struct coll_comm *c, const void *sbuf, void *rbuf,
				     size_t count, const struct coll_op *op);
michi_status_t coll_allgatherv_ring(const struct coll_comm *c, const void *sbuf, size_t slen,
				    void *rbuf, const struct coll_v *v, size_t ucount,
				    size_t extent);
michi_status_t coll_alltoallv_pairwise(const struct coll_comm *c, const void *sbuf,
				       const struct coll_v *sv, size_t sucount, size_t sext,
				       void *rbuf, const struct coll_v *rv, size_t rucount,
				       size_t rext);

#endif
