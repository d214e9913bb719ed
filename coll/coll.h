/* SPDX-License-Identifier: MIT */
/*
 * coll/coll.h: collective algorithms over MTMI point-to-point.
 *
 * Collectives use the communicator's collective context (ctx + 1), so
 * their messages never match point-to-point receives. Each algorithm is one
 * file; the collectives issue grows this into selection tables and
 * schedules shared by the blocking and nonblocking forms.
 */
#ifndef MICHI_COLL_H
#define MICHI_COLL_H

#include <stddef.h>
#include <string.h>

#include "michi.h"

struct coll_comm {
	int rank, size;
	uint32_t ctx;          /* the collective context */
	const int *peers;      /* world rank of each comm rank */
	int tag_ofs;           /* added to every tag: 0, or negative for a
				* collective over part of a communicator
				* (MPI_Comm_create_group), so that the rest
				* of it, in its next collective, never
				* matches these frames */
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
};

/* A reduction as the algorithms see it: apply(in, inout, count) computes
 * inout = in op inout elementwise; the caller checked op and datatype. */
struct coll_op {
	void (*apply)(const struct coll_op *o, const void *in, void *inout, size_t count);
	uint32_t op, dtype;   /* the MPI handles, for apply */
	size_t extent;        /* bytes per element */
};

/* Blocking point-to-point on the collective context (coll/p2p.c). */
michi_status_t coll_send(const struct coll_comm *c, const void *buf, size_t len, int to, int tag);
michi_status_t coll_recv(const struct coll_comm *c, void *buf, size_t len, int from, int tag);
michi_status_t coll_sendrecv(const struct coll_comm *c, const void *sbuf, size_t slen, int to,
			     void *rbuf, size_t rlen, int from, int tag);

/* Dissemination barrier: ceil(log2 n) rounds of zero-byte messages. */
michi_status_t coll_barrier_dissem(const struct coll_comm *c);

/* Binomial-tree broadcast of len bytes from root. */
michi_status_t coll_bcast_binomial(const struct coll_comm *c, void *buf, size_t len, int root);

/* Binomial-tree reduction of a commutative op to root; sbuf NULL means
 * the root's input is already in rbuf (MPI_IN_PLACE); rbuf only matters
 * at the root. */
michi_status_t coll_reduce_binomial(const struct coll_comm *c, const void *sbuf, void *rbuf,
				    size_t count, const struct coll_op *op, int root);

/* Recursive-doubling allreduce of a commutative op; sbuf NULL: in place. */
michi_status_t coll_allreduce_recdbl(const struct coll_comm *c, const void *sbuf, void *rbuf,
				     size_t count, const struct coll_op *op);

/* Flat allreduce through rank 0, inputs combined in rank order; for
 * small messages on a few ranks of one host. sbuf NULL: in place. */
michi_status_t coll_allreduce_flat(const struct coll_comm *c, const void *sbuf, void *rbuf,
				   size_t count, const struct coll_op *op);

/*
 * Linear gather/scatter and ring allgather. Block i of the root's (or, for
 * allgather, everyone's) buffer holds counts[i] elements at displs[i]
 * elements, each `extent` bytes; counts NULL means the uniform form, block i
 * being ucount elements at i * ucount. sbuf NULL means in place: the
 * caller's own block is already where it belongs. For gather/scatter
 * `slen` is this rank's own message size in bytes.
 */
michi_status_t coll_gatherv_linear(const struct coll_comm *c, const void *sbuf, size_t slen,
				   void *rbuf, const int *counts, const int *displs,
				   size_t ucount, size_t extent, int root);
michi_status_t coll_scatterv_linear(const struct coll_comm *c, const void *sbuf,
				    const int *counts, const int *displs, size_t ucount,
				    size_t extent, void *rbuf, size_t rlen, int root);
michi_status_t coll_allgatherv_ring(const struct coll_comm *c, const void *sbuf, size_t slen,
				    void *rbuf, const int *counts, const int *displs,
				    size_t ucount, size_t extent);

/* Pairwise-exchange alltoall(v); the send and receive layouts follow the
 * gather convention above (counts NULL: uniform blocks of *ucount). sbuf
 * NULL: in place, the receive layout describes both. */
michi_status_t coll_alltoallv_pairwise(const struct coll_comm *c, const void *sbuf,
				       const int *scounts, const int *sdispls, size_t sucount,
				       size_t sext, void *rbuf, const int *rcounts,
				       const int *rdispls, size_t rucount, size_t rext);

#endif
