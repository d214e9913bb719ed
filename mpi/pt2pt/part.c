/* SPDX-License-Identifier: MIT */
/*
 * mpi/pt2pt/part.c: partitioned communication (MPI-4.0 chapter 4):
 * MPI_Psend_init, MPI_Precv_init, MPI_Pready, MPI_Pready_range,
 * MPI_Pready_list, MPI_Parrived. The requests are persistent (kinds
 * MICHI_REQ_PART_SEND and MICHI_REQ_PART_RECV): MPI_Start and
 * MPI_Startall restart them (michi_req_start sends them here), and the
 * Wait/Test families complete them like any persistent request.
 *
 * The wire: each round of a partitioned pair is one MTMI message of the
 * whole buffer (partitions * count elements, packed), as MPICH 4.0's
 * active-message path does, so that the two sides may cut the same bytes
 * into different numbers of partitions (MPI-4.0 4.2.2) without telling
 * each other anything. Better than MPICH where the device lets the
 * receiver pull (shm with CMA): the send starts at MPI_Start as a
 * streamed rendezvous (mtmi_isend_stream) with nothing ready, every
 * MPI_Pready publishes the longest prefix of ready partitions, the
 * receiver pulls that much while the sender computes the rest, and
 * MPI_Parrived reports a partition as soon as its bytes are in place
 * (mtmi_recv_have). Elsewhere (tcp, eager sizes, matching devices) the
 * message leaves when the last partition is ready and the receiver sees
 * every partition arrive at once.
 *
 * The messages travel on the communicator's collective context (ctx + 1),
 * where no user receive, wildcard or not, can take them, under a tag that
 * encodes the user's tag one to one (part_tag) into values the
 * collectives never use. A pair matches in the order the rounds are
 * started on each side, which is the order of the init calls for every
 * program that starts its partitioned requests in the order it created
 * them; MPI-4.0 matches in init order even when the starts are crossed,
 * which this design does not see.
 *
 * A datatype whose instances are not contiguous travels through a
 * staging buffer kept for the request's life: MPI_Pready packs its
 * partition there, the receiver unpacks the whole buffer at completion
 * (so MPI_Parrived says 1 only once the round is complete).
 */
#include "dtype.h"
#include "pt2pt.h"
#include "coll.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

struct michi_part {
	int partitions;
	MPI_Count count;        /* elements per partition */
	MPI_Datatype dt;
	void *buf;              /* the user's buffer */
	void *wire;             /* what goes on the wire: buf's packed bytes in place, or stage */
	void *stage;            /* staging of a non-contiguous type, or NULL */
	size_t pbytes;          /* packed bytes per partition */
	size_t total;           /* packed bytes of the whole buffer */
	MPI_Aint pext;          /* bytes between partitions in the user's buffer */
	int peer_rank;          /* comm rank of the peer, or MPI_PROC_NULL */
	int tag;                /* the user's tag */
	/* send side, per round */
	int posted;             /* the MTMI send is started */
	int streamed;           /* ... as a streamed rendezvous */
	int nready;             /* partitions marked ready */
	int prefix;             /* partitions 0..prefix-1 are all ready */
	unsigned char *ready;   /* per partition: marked ready this round */
};

/* The tag on the collective context for user tag t (0..MPI_TAG_UB), one to
 * one. The collectives use tags whose low 20 bits are below COLL_TAG_MAX
 * (plus a sequence number in bits 20-30), and, for groups of
 * MPI_Comm_create_group, -COLL_TAG_MAX * 65536 .. -1. Most user tags go
 * below that negative range; the top 2^22 go to positive tags with bit 19
 * set, which no collective tag has. */
#define PART_NEG_SPAN 0x7fc00000   /* tags INT_MIN .. INT_MIN + span - 1 */
_Static_assert(COLL_TAG_MAX <= 0x80000 && (long long)INT_MIN + PART_NEG_SPAN <
	       -(long long)COLL_TAG_MAX * 65536 - 1, "part_tag avoids the collective tags");

static int part_tag(int t)
{
	unsigned x;

	if ((unsigned)t < PART_NEG_SPAN)
		return (int)((unsigned)INT_MIN + (unsigned)t);
	x = (unsigned)t - PART_NEG_SPAN;   /* < 2^22 */
	return (int)((x >> 19) << 20 | 0x80000u | (x & 0x7ffffu));
}

static int is_part(const struct michi_request *r)
{
	return r->kind == MICHI_REQ_PART_SEND || r->kind == MICHI_REQ_PART_RECV;
}

/* ---- init ------------------------------------------------------------------ */

static int part_init(void *buf, int partitions, MPI_Count count, MPI_Datatype dt, int rank,
		     int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request, int send,
		     const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct michi_request *r;
	struct michi_part *p;
	const void *start;
	int err;

	MICHI_CHECK_INIT(fname);
	if (!c)
		return michi_check_comm_slow(comm, fname);
	err = send ? michi_check_send(c, comm, buf, count, dt, rank, tag, fname)
		   : michi_check_recv(c, comm, buf, count, dt, rank, tag, fname);
	if (err)
		return err;
	if (!send && rank == MPI_ANY_SOURCE)
		return michi_mpi_err(c, MPI_ERR_RANK, fname,
				     "(source=MPI_ANY_SOURCE): a partitioned receive names its"
				     " source (MPI-4.0 4.2.2)");
	if (!send && tag == MPI_ANY_TAG)
		return michi_mpi_err(c, MPI_ERR_TAG, fname,
				     "(tag=MPI_ANY_TAG): a partitioned receive names its tag"
				     " (MPI-4.0 4.2.2)");
	if (partitions < 1)
		return michi_mpi_err(c, MPI_ERR_ARG, fname,
				     "(partitions=%d): at least one partition is needed", partitions);
	if (count > 0 && (MPI_Count)partitions > LLONG_MAX / count)
		return michi_err_count(c, fname, count);
	if (info != MPI_INFO_NULL && !michi_obj_check((uint32_t)info, MICHI_KIND_INFO))
		return michi_mpi_err(c, MPI_ERR_INFO, fname, "(info=0x%x): not a valid info",
				     (unsigned)info);
	if (!request)
		return michi_err_null(c, fname, "request");
	p = calloc(1, sizeof(*p) + (send ? (size_t)partitions : 0));
	r = p ? michi_req_alloc() : NULL;
	if (!r) {
		free(p);
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname,
				     "(partitions=%d): no memory for the request", partitions);
	}
	p->partitions = partitions;
	p->count = count;
	p->dt = dt;
	p->buf = buf;
	p->pbytes = michi_dt_packed(dt, count);
	p->total = p->pbytes * (size_t)partitions;
	p->pext = (MPI_Aint)count * michi_dt_extent(dt);
	p->peer_rank = rank;
	p->tag = tag;
	p->ready = send ? (unsigned char *)(p + 1) : NULL;
	if (michi_dt_builtin_valid(dt)) {
		p->wire = buf;
	} else if (michi_dt_contig_at(buf, dt, &start)) {
		p->wire = (void *)start;
	} else {
		p->stage = michi_stage_alloc(p->total ? p->total : 1);
		if (!p->stage) {
			size_t total = p->total;

			michi_req_free(r);
			free(p);
			return michi_mpi_err(c, MPI_ERR_NO_MEM, fname,
					     "(count=%lld): no memory for %zu bytes of staging",
					     (long long)count, total);
		}
		p->wire = p->stage;
	}
	michi_dt_hold(dt);   /* MPI_Type_free may come before MPI_Request_free */
	michi_req_persist_init(r, send ? MICHI_REQ_PART_SEND : MICHI_REQ_PART_RECV,
			       MTMI_MODE_STANDARD, c, dt, buf, count, rank, tag);
	r->part = p;
	*request = (MPI_Request)michi_p2h(r);
	return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
		    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	return part_init((void *)buf, partitions, count, datatype, dest, tag, comm, info, request,
			 1, "MPI_Psend_init");
}

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
		    int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	return part_init(buf, partitions, count, datatype, source, tag, comm, info, request, 0,
			 "MPI_Precv_init");
}

void michi_part_free(struct michi_request *r)
{
	struct michi_part *p = r->part;

	if (p->stage)
		michi_stage_free(p->stage);
	michi_dt_release(p->dt);
	free(p);
	r->part = NULL;
}

/* ---- start and completion -------------------------------------------------------- */

/* A round has ended: the status shows the user's tag, and a staged
 * receive unpacks (what arrived: a short message unpacks a prefix). */
static void part_done(struct mtmi_req *m)
{
	struct michi_request *r = container_of(m, struct michi_request, m);
	struct michi_part *p = r->part;

	m->tag = p->tag;
	if (r->kind == MICHI_REQ_PART_RECV && p->stage &&
	    (!m->error || m->error == MICHI_ERR_TRUNCATE))
		michi_dt_unpack(p->stage, m->count, p->buf,
				(MPI_Count)p->partitions * p->count, p->dt);
}

static int part_post_send(struct michi_request *r, const char *fname)
{
	struct michi_part *p = r->part;
	struct michi_comm *c = r->comm;
	michi_status_t st;

	st = mtmi_isend(p->wire, p->total, c->peers[p->peer_rank], c->rank, part_tag(p->tag),
			c->ctx + 1, MTMI_MODE_STANDARD, &r->m);
	if (st < 0)
		return michi_start_error(c, st, fname);
	p->posted = 1;
	return MPI_SUCCESS;
}

int michi_part_start(struct michi_request *r, const char *fname)
{
	struct michi_part *p = r->part;
	struct michi_comm *c = r->comm;
	michi_status_t st;
	int peer;

	if (p->peer_rank == MPI_PROC_NULL) {
		michi_req_done_now(r, MPI_PROC_NULL, MPI_ANY_TAG);
		r->active = 1;
		return MPI_SUCCESS;
	}
	peer = c->peers[p->peer_rank];
	r->m.done = 0;
	r->m.error = 0;
	r->m.cancelled = 0;
	r->m.on_complete = part_done;
	if (r->kind == MICHI_REQ_PART_RECV) {
		st = mtmi_irecv(p->wire, p->total, peer, p->peer_rank, part_tag(p->tag),
				c->ctx + 1, &r->m);
		if (st < 0)
			return michi_start_error(c, st, fname);
		r->active = 1;
		return MPI_SUCCESS;
	}
	memset(p->ready, 0, (size_t)p->partitions);
	p->nready = 0;
	p->prefix = 0;
	p->posted = 0;
	p->streamed = 0;
	/* the receiver may pull: announce the message now, publish later */
	if (mtmi_stream_able(peer, p->total)) {
		st = mtmi_isend_stream(p->wire, p->total, 0, peer, c->rank, part_tag(p->tag),
				       c->ctx + 1, MTMI_MODE_STANDARD, &r->m);
		if (st < 0)
			return michi_start_error(c, st, fname);
		p->posted = p->streamed = 1;
	}
	r->active = 1;
	return MPI_SUCCESS;
}

/* ---- MPI_Pready family ----------------------------------------------------------- */

/* The partitioned request behind a handle, checked: kind, active. */
static struct michi_request *part_req(MPI_Request h, int kind, const char *fname, int *err)
{
	struct michi_request *r = h == MPI_REQUEST_NULL ? NULL : michi_req_get(h);

	if (!r || r->kind != kind) {
		*err = r && is_part(r)
			? michi_mpi_err(r->comm, MPI_ERR_REQUEST, fname,
					"(request=0x%x): a partitioned %s request, not a %s one",
					(unsigned)h, r->kind == MICHI_REQ_PART_SEND ? "send" : "receive",
					kind == MICHI_REQ_PART_SEND ? "send" : "receive")
			: r ? michi_mpi_err(r->comm, MPI_ERR_REQUEST, fname,
					    "(request=0x%x): not a partitioned %s request", (unsigned)h,
					    kind == MICHI_REQ_PART_SEND ? "send" : "receive")
			    : michi_err_request(fname, "request", h);
		return NULL;
	}
	*err = MPI_SUCCESS;
	return r;
}

static int pready_one(struct michi_request *r, int i, const char *fname, const char *arg)
{
	struct michi_part *p = r->part;

	if (!r->active)
		return michi_mpi_err(r->comm, MPI_ERR_REQUEST, fname,
				     "(request): the partitioned send is not active (MPI_Start it"
				     " first)");
	if ((unsigned)i >= (unsigned)p->partitions)
		return michi_mpi_err(r->comm, MPI_ERR_ARG, fname,
				     "(%s=%d): partition out of range, the request has %d", arg, i,
				     p->partitions);
	if (p->ready[i])
		return michi_mpi_err(r->comm, MPI_ERR_ARG, fname,
				     "(%s=%d): partition already marked ready in this round", arg, i);
	if (p->peer_rank == MPI_PROC_NULL) {
		p->ready[i] = 1;
		return MPI_SUCCESS;
	}
	if (p->stage)
		michi_dt_pack((char *)p->buf + (MPI_Aint)i * p->pext, p->count, p->dt,
			      (char *)p->stage + (size_t)i * p->pbytes, p->pbytes);
	p->ready[i] = 1;
	p->nready++;
	if (p->streamed) {
		int old = p->prefix;

		while (p->prefix < p->partitions && p->ready[p->prefix])
			p->prefix++;
		if (p->prefix > old)
			mtmi_stream_ready(&r->m, (size_t)p->prefix * p->pbytes);
		return MPI_SUCCESS;
	}
	if (p->nready == p->partitions)
		return part_post_send(r, fname);
	return MPI_SUCCESS;
}

int PMPI_Pready(int partition, MPI_Request request)
{
	struct michi_request *r;
	int err;

	MICHI_CHECK_INIT("MPI_Pready");
	r = part_req(request, MICHI_REQ_PART_SEND, "MPI_Pready", &err);
	if (!r)
		return err;
	return pready_one(r, partition, "MPI_Pready", "partition");
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
	struct michi_request *r;
	int err, i;

	MICHI_CHECK_INIT("MPI_Pready_range");
	r = part_req(request, MICHI_REQ_PART_SEND, "MPI_Pready_range", &err);
	if (!r)
		return err;
	if (partition_low > partition_high || partition_low < 0 ||
	    partition_high >= r->part->partitions)
		return michi_mpi_err(r->comm, MPI_ERR_ARG, "MPI_Pready_range",
				     "(partition_low=%d, partition_high=%d): not a range of the"
				     " request's %d partitions", partition_low, partition_high,
				     r->part->partitions);
	for (i = partition_low; i <= partition_high; i++) {
		err = pready_one(r, i, "MPI_Pready_range", "partition_low..partition_high");
		if (err)
			return err;
	}
	return MPI_SUCCESS;
}

int PMPI_Pready_list(int length, int array_of_partitions[], MPI_Request request)
{
	struct michi_request *r;
	char arg[48];
	int err, i;

	MICHI_CHECK_INIT("MPI_Pready_list");
	r = part_req(request, MICHI_REQ_PART_SEND, "MPI_Pready_list", &err);
	if (!r)
		return err;
	if (length < 0)
		return michi_mpi_err(r->comm, MPI_ERR_ARG, "MPI_Pready_list",
				     "(length=%d): length is negative", length);
	if (length > 0 && !array_of_partitions)
		return michi_err_null(r->comm, "MPI_Pready_list", "array_of_partitions");
	for (i = 0; i < length; i++) {
		snprintf(arg, sizeof(arg), "array_of_partitions[%d]", i);
		err = pready_one(r, array_of_partitions[i], "MPI_Pready_list", arg);
		if (err)
			return err;
	}
	return MPI_SUCCESS;
}

/* ---- MPI_Parrived ---------------------------------------------------------------- */

static int part_arrived(const struct michi_request *r, int i)
{
	const struct michi_part *p = r->part;

	if (r->m.done)
		return 1;
	/* empty partitions arrive with the round's message, not before it:
	 * no byte count can say so (0 bytes are always "in place") */
	if (!p->pbytes)
		return 0;
	/* a streamed rendezvous being pulled: the bytes from the start in place */
	return !p->stage && mtmi_recv_have(&r->m) >= (size_t)(i + 1) * p->pbytes;
}

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
	struct michi_request *r;
	int err;

	MICHI_CHECK_INIT("MPI_Parrived");
	r = part_req(request, MICHI_REQ_PART_RECV, "MPI_Parrived", &err);
	if (!r)
		return err;
	if (!flag)
		return michi_err_null(r->comm, "MPI_Parrived", "flag");
	if ((unsigned)partition >= (unsigned)r->part->partitions)
		return michi_mpi_err(r->comm, MPI_ERR_ARG, "MPI_Parrived",
				     "(partition=%d): partition out of range, the request has %d",
				     partition, r->part->partitions);
	/* an inactive request has nothing in flight: its data is in place */
	if (!r->active) {
		*flag = 1;
		return MPI_SUCCESS;
	}
	if (!part_arrived(r, partition))
		mtmi_poll();
	*flag = part_arrived(r, partition);
	return MPI_SUCCESS;
}

/* MPI_Wait and MPI_Waitall on a partitioned send whose partitions are
 * not all ready: without MPI_THREAD_MULTIPLE nobody can mark them while
 * this thread waits, so the wait would never end; an error instead. */
int michi_part_wait_check(struct michi_request *r, const char *fname, const char *arg)
{
	struct michi_part *p = r->part;

	if (r->kind != MICHI_REQ_PART_SEND || !r->active || r->m.done ||
	    p->nready == p->partitions || p->peer_rank == MPI_PROC_NULL ||
	    michi_state.thread_level == MPI_THREAD_MULTIPLE)
		return MPI_SUCCESS;
	return michi_mpi_err(r->comm, MPI_ERR_REQUEST, fname,
			     "(%s): partitioned send with %d of its %d partitions marked ready:"
			     " the wait could never end (MPI_Pready the others first)", arg,
			     p->nready, p->partitions);
}

/* MPI_Cancel of an active partitioned request: a send not yet handed to
 * MTMI (partitions missing) ends cancelled here; anything posted goes
 * through mtmi_cancel like other requests (1: done here). */
int michi_part_cancel(struct michi_request *r)
{
	struct michi_part *p = r->part;

	if (r->kind == MICHI_REQ_PART_SEND && !p->posted && !r->m.done) {
		michi_req_done_now(r, MPI_ANY_SOURCE, MPI_ANY_TAG);
		r->m.cancelled = 1;
		return 1;
	}
	return 0;
}
