/* SPDX-License-Identifier: MIT */
/*
 * mpi/pt2pt/pt2pt.h: inline argument checks and status helpers shared by the
 * point-to-point and request files. The checks are branch-light: each is
 * one compare on the common path, and the message is built out of line.
 */
#ifndef MICHI_PT2PT_H
#define MICHI_PT2PT_H

#include "mpiimpl.h"

/* Point MPI_Isend and MPI_Irecv at the native path of the job's matching
 * device, or at the general path (mpi/pt2pt/pt2pt.c); with the thread level. */
void michi_pt2pt_choose(void);

/* A datatype point-to-point takes: predefined, pair, committed derived
 * (mpi/datatype/derived.c; those that are not predefined go to mpi/pt2pt/pt2pt_dt.c). */
int michi_dt_usable(MPI_Datatype dt);
static inline int michi_dt_ok(MPI_Datatype dt)
{
	return likely(michi_dt_builtin_valid(dt)) || michi_dt_usable(dt) == 0;
}

/* Bytes moved for count elements of a checked datatype. */
static inline size_t michi_dt_bytes(MPI_Datatype dt, MPI_Count count)
{
	return (size_t)count * (size_t)michi_dt_extent(dt);
}

/* A NULL buffer (MPI_BOTTOM) with data: wrong for a predefined type, but
 * a derived type may hold absolute addresses (MPI_Get_address). */
static inline int michi_dt_null_buf_bad(MPI_Datatype dt)
{
	return (michi_dt_builtin_valid(dt) && dt != MPI_LB && dt != MPI_UB) ||
	       michi_dt_is_pair(dt);
}

/* Checks of a send's arguments; 0 or an MPI error code (handler called). */
static inline int michi_check_send(struct michi_comm *c, MPI_Comm comm, const void *buf,
				   MPI_Count count, MPI_Datatype dt, int dest, int tag,
				   const char *fname)
{
	if (unlikely(!c))
		return michi_check_comm_slow(comm, fname);
	if (unlikely(count < 0))
		return michi_err_count(c, fname, count);
	if (unlikely((unsigned)dest >= (unsigned)c->size) && dest != MPI_PROC_NULL)
		return michi_err_rank(c, fname, "dest", dest);
	if (unlikely((unsigned)tag > (unsigned)michi_state.tag_ub))
		return michi_err_tag(c, fname, tag, 0);
	if (unlikely(!michi_dt_ok(dt)))
		return michi_err_type(c, fname, dt);
	if (unlikely(!buf) && count > 0 && michi_dt_null_buf_bad(dt))
		return michi_err_buf(c, fname, count);
	return MPI_SUCCESS;
}

static inline int michi_check_recv(struct michi_comm *c, MPI_Comm comm, const void *buf,
				   MPI_Count count, MPI_Datatype dt, int src, int tag,
				   const char *fname)
{
	if (unlikely(!c))
		return michi_check_comm_slow(comm, fname);
	if (unlikely(count < 0))
		return michi_err_count(c, fname, count);
	if (unlikely((unsigned)src >= (unsigned)c->size) && src != MPI_ANY_SOURCE &&
	    src != MPI_PROC_NULL)
		return michi_err_rank(c, fname, "source", src);
	if (unlikely((unsigned)tag > (unsigned)michi_state.tag_ub) && tag != MPI_ANY_TAG)
		return michi_err_tag(c, fname, tag, 1);
	if (unlikely(!michi_dt_ok(dt)))
		return michi_err_type(c, fname, dt);
	if (unlikely(!buf) && count > 0 && michi_dt_null_buf_bad(dt))
		return michi_err_buf(c, fname, count);
	return MPI_SUCCESS;
}

/* Status of a message of `bytes` bytes. */
static inline void michi_status_set(MPI_Status *s, int source, int tag, size_t bytes, int cancelled)
{
	s->MPI_SOURCE = source;
	s->MPI_TAG = tag;
	s->count_lo = (int)(unsigned)bytes;
	s->count_hi_and_cancelled = (int)((uint64_t)bytes >> 32 << 1) | (cancelled & 1);
}

static inline MPI_Count michi_status_bytes(const MPI_Status *s)
{
	return (MPI_Count)((uint64_t)(unsigned)s->count_lo |
			   ((uint64_t)((unsigned)s->count_hi_and_cancelled >> 1) << 32));
}

/* The empty status (MPI-3.1 3.7.3): source ANY, tag ANY, count 0. */
static inline void michi_status_empty(MPI_Status *s)
{
	if (s == MPI_STATUS_IGNORE)
		return;
	michi_status_set(s, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
	s->MPI_ERROR = MPI_SUCCESS;
}

/* Resolve a request handle (validated when error checking is on). */
static inline struct michi_request *michi_req_get(MPI_Request h)
{
	if (ERRCHK)
		return michi_obj_check((uint32_t)h, MICHI_KIND_REQUEST);
	return michi_h2p((uint32_t)h);
}

/* Error code for a request that completed with m.error != 0; calls the
 * request's communicator error handler unless `quiet`. */
int michi_req_error(struct michi_request *r, const char *fname, int quiet) __attribute__((cold));

/* Generalized requests (mpi/pt2pt/grequest.c), completed, freed, cancelled and
 * queried through their callbacks; each returns an MPI error code. */
int michi_greq_finish(struct michi_request *r, MPI_Request *handle, MPI_Status *status,
		      int quiet) __attribute__((cold));
int michi_greq_get_status(struct michi_request *r, MPI_Status *status) __attribute__((cold));
int michi_greq_free(struct michi_request *r) __attribute__((cold));
int michi_greq_cancel(struct michi_request *r) __attribute__((cold));

/*
 * Finish a completed request: fill status, release it (or deactivate a
 * persistent one, or hand a generalized one to its callbacks) and reset
 * the handle. Returns the request's MPI error
 * code (the handler is called unless quiet, for multi-completion calls).
 */
static inline int michi_req_finish(struct michi_request *r, MPI_Request *handle,
				   MPI_Status *status, const char *fname, int quiet)
{
	int err = MPI_SUCCESS;

	if (status != MPI_STATUS_IGNORE)
		michi_status_set(status, r->m.source, r->m.tag, r->m.count, r->m.cancelled);
	if (unlikely(r->m.error))
		err = michi_req_error(r, fname, quiet);
	if (likely(r->kind < MICHI_REQ_PSEND)) {
		michi_req_free(r);
		*handle = MPI_REQUEST_NULL;
	} else if (unlikely(r->kind == MICHI_REQ_GREQ)) {
		err = michi_greq_finish(r, handle, status, quiet);
	} else {
		r->active = 0;
	}
	return err;
}

/* Persistent request not started: complete with an empty status. */
static inline int michi_req_inactive(struct michi_request *r)
{
	return r->kind >= MICHI_REQ_PSEND && !r->active;
}

/* Mark a request complete without MTMI (PROC_NULL, bsend, errors). */
static inline void michi_req_done_now(struct michi_request *r, int source, int tag)
{
	r->m.done = 1;
	r->m.error = 0;
	r->m.source = source;
	r->m.tag = tag;
	r->m.count = 0;
	r->m.cancelled = 0;
	r->m.on_complete = NULL;
}

/* Buffered send (mpi/pt2pt/bsend.c): copies and starts the send. */
int michi_bsend_start(struct michi_comm *c, const void *buf, MPI_Count count, MPI_Datatype dt,
		      int dest, int tag, const char *fname);

#endif
