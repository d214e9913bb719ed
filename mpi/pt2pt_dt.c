/* SPDX-License-Identifier: MIT */
/*
 * mpi/pt2pt_dt.c: point-to-point with datatypes that are not predefined
 * and contiguous: derived types and the pair types.
 *
 * The wire carries a datatype's packed bytes (mpi/dtype_pack.c). A type
 * whose instances lie back to back (contiguous derived types) is sent and
 * received in place, from its true lower bound; any other is packed into
 * a staging buffer before a send, and received into one that is unpacked
 * when the receive completes (from MTMI's completion hook for nonblocking
 * receives, so that MPI_Test and MPI_Wait find the data in place). The
 * staged operation holds a reference on the datatype, so MPI_Type_free
 * right after MPI_Irecv is safe. The predefined types never come here:
 * the callers test michi_dt_builtin_valid first.
 */
#include "dtype.h"
#include "pt2pt.h"

#include <stdlib.h>

static int stage_init(struct michi_comm *c, const char *fname, void *buf, MPI_Count count,
		      MPI_Datatype dt, int send, struct michi_stage *s)
{
	const void *start;

	if (michi_dt_usable(dt))
		return michi_mpi_err(c, MPI_ERR_TYPE, fname,
				     "(datatype=0x%x): %s", (unsigned)dt,
				     michi_dt_get(dt) ? "datatype not committed (MPI_Type_commit)"
						      : "not a valid datatype");
	s->bytes = michi_dt_packed(dt, count);
	s->tmp = NULL;
	if (michi_dt_contig_at(buf, dt, &start)) {
		s->ptr = (void *)start;
		return MPI_SUCCESS;
	}
	s->tmp = malloc(s->bytes ? s->bytes : 1);
	if (!s->tmp)
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname,
				     "(count=%lld): no memory for %zu bytes of staging",
				     (long long)count, s->bytes);
	if (send)
		michi_dt_pack(buf, count, dt, 0, s->tmp, s->bytes);
	s->ptr = s->tmp;
	return MPI_SUCCESS;
}

int michi_dt_stage(struct michi_comm *c, const char *fname, void *buf, MPI_Count count,
		   MPI_Datatype dt, int send, struct michi_stage *s)
{
	return stage_init(c, fname, buf, count, dt, send, s);
}

int michi_dt_send_blocking(struct michi_comm *c, const void *buf, MPI_Count count,
			   MPI_Datatype dt, int dest, int tag, int mode, const char *fname)
{
	struct mtmi_req m;
	struct michi_stage s;
	michi_status_t st;
	int err = stage_init(c, fname, (void *)buf, count, dt, 1, &s);

	if (err)
		return err;
	m.on_complete = NULL;
	st = mtmi_isend(s.ptr, s.bytes, c->peers[dest], c->rank, tag, c->ctx, mode, &m);
	if (st == MICHI_INPROGRESS)
		mtmi_wait(&m);
	free(s.tmp);
	if (st < 0)
		return michi_start_error(c, st, fname);
	return m.error ? michi_mtmi_error(c, &m, fname) : MPI_SUCCESS;
}

int michi_dt_recv_blocking(struct michi_comm *c, void *buf, MPI_Count count, MPI_Datatype dt,
			   int source, int tag, MPI_Status *status, const char *fname)
{
	struct mtmi_req m;
	struct michi_stage s;
	michi_status_t st;
	int err = stage_init(c, fname, buf, count, dt, 0, &s);

	if (err)
		return err;
	m.on_complete = NULL;
	st = mtmi_irecv(s.ptr, s.bytes, source == MPI_ANY_SOURCE ? MTMI_ANY_SOURCE
								 : c->peers[source],
			source, tag, c->ctx, &m);
	if (st < 0) {
		free(s.tmp);
		return michi_start_error(c, st, fname);
	}
	if (!m.done)
		mtmi_wait(&m);
	if (s.tmp) {
		michi_dt_unpack(s.tmp, m.count, buf, count, dt);
		free(s.tmp);
	}
	if (status != MPI_STATUS_IGNORE)
		michi_status_set(status, m.source, m.tag, m.count, m.cancelled);
	return m.error ? michi_mtmi_error(c, &m, fname) : MPI_SUCCESS;
}

/* ---- nonblocking: the request keeps the staging buffer ------------------------ */

static struct michi_request *req_of(struct mtmi_req *m)
{
	return (struct michi_request *)((char *)m - offsetof(struct michi_request, m));
}

/* MTMI completion hooks: the data is in place before anyone sees done. */
static void staged_send_done(struct mtmi_req *m)
{
	struct michi_request *r = req_of(m);

	free(r->stage);
	r->stage = NULL;
	michi_dt_release(r->dtype);
}

static void staged_recv_done(struct mtmi_req *m)
{
	struct michi_request *r = req_of(m);

	michi_dt_unpack(r->stage, m->count, r->buf, r->count, r->dtype);
	free(r->stage);
	r->stage = NULL;
	michi_dt_release(r->dtype);
}

void (*michi_dt_staged_recv_hook(void))(struct mtmi_req *m)
{
	return staged_recv_done;
}

/* A staged request the user freed while pending (mpi/request.c) has
 * ended: nobody wants the data; the buffer and reference go. */
void michi_dt_stage_drop(struct michi_request *r)
{
	free(r->stage);
	r->stage = NULL;
	michi_dt_release(r->dtype);
}

int michi_dt_istart(struct michi_comm *c, struct michi_request *r, void *buf, MPI_Count count,
		    MPI_Datatype dt, int peer_rank, int tag, int mode, int send,
		    const char *fname)
{
	struct michi_stage s;
	michi_status_t st;
	int err = stage_init(c, fname, buf, count, dt, send, &s);

	if (err)
		return err;
	r->stage = s.tmp;
	r->m.on_complete = NULL;
	if (s.tmp) {
		r->buf = buf;
		r->count = (int)count;
		r->dtype = dt;
		michi_dt_hold(dt);
		r->m.on_complete = send ? staged_send_done : staged_recv_done;
	}
	if (send)
		st = mtmi_isend(s.ptr, s.bytes, c->peers[peer_rank], c->rank, tag, c->ctx, mode,
				&r->m);
	else
		st = mtmi_irecv(s.ptr, s.bytes, peer_rank == MPI_ANY_SOURCE ? MTMI_ANY_SOURCE
									     : c->peers[peer_rank],
				peer_rank, tag, c->ctx, &r->m);
	if (st < 0) {
		if (s.tmp) {
			free(s.tmp);
			r->stage = NULL;
			michi_dt_release(dt);
		}
		return michi_start_error(c, st, fname);
	}
	return MPI_SUCCESS;
}
