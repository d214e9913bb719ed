/* SPDX-License-Identifier: MIT */
/*
 * mpi/pt2pt/grequest.c: generalized requests (MPI-3.1 12.2), operations the
 * program carries out itself and completes with MPI_Grequest_complete,
 * waited for and tested like any other request.
 *
 * A generalized request is a request slab object of kind MICHI_REQ_GREQ
 * with the program's callbacks after the request (struct michi_greq
 * embeds struct michi_request). Its MTMI part never goes to MTMI: it only
 * carries the completion flag m.done, which MPI_Grequest_complete sets,
 * so the wait and test calls find it complete as any other request, and
 * while they wait for it they keep making progress on everything else.
 * The kind sorts after the persistent ones, so MPI_Wait's leaf fast path
 * never takes it; michi_req_finish (pt2pt.h) hands it to
 * michi_greq_finish for query_fn and free_fn, and MPI_Cancel,
 * MPI_Request_free and MPI_Request_get_status (request.c) call in here
 * for it. NULL callbacks are taken as callbacks that do nothing.
 *
 * Errors the callbacks return are handed back as they are (MPI-3.1 12.2):
 * by the call that completed the request, through MPI_COMM_WORLD's error
 * handler, or, for the calls that complete several requests, in the
 * request's status with MPI_ERR_IN_STATUS.
 *
 * MPI_Grequest_complete may run in another thread while a wait call on
 * the request runs (the usual way to use a generalized request): it only
 * publishes m.done, unless the request was already freed with
 * MPI_Request_free, when it calls free_fn and releases the object.
 */
#include "pt2pt.h"

struct michi_greq {
	struct michi_request r;
	MPI_Grequest_query_function *query_fn;
	MPI_Grequest_free_function *free_fn;
	MPI_Grequest_cancel_function *cancel_fn;
	void *extra_state;
};

_Static_assert(sizeof(struct michi_greq) <= 256,
	       "a generalized request fits a request slab object (mpi/env/arena.c)");

static struct michi_greq *greq_of(struct michi_request *r)
{
	return container_of(r, struct michi_greq, r);
}

/* query_fn into status (a scratch one for MPI_STATUS_IGNORE). */
static int greq_query(struct michi_greq *g, MPI_Status *status)
{
	MPI_Status scratch;

	if (status == MPI_STATUS_IGNORE)
		status = &scratch;
	if (!g->query_fn)
		return MPI_SUCCESS;
	return g->query_fn(g->extra_state, status);
}

/* free_fn, then the object goes back to the slab. */
static int greq_release(struct michi_greq *g)
{
	int err = g->free_fn ? g->free_fn(g->extra_state) : MPI_SUCCESS;

	michi_req_free(&g->r);
	return err;
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
			MPI_Grequest_free_function *free_fn,
			MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
			MPI_Request *request)
{
	struct michi_greq *g;
	struct michi_request *r;

	MICHI_CHECK_INIT("MPI_Grequest_start");
	if (ERRCHK && !request)
		return michi_err_null(NULL, "MPI_Grequest_start", "request");
	g = michi_obj_alloc(MICHI_KIND_REQUEST);
	if (!g)
		return michi_err_nomem(NULL, "MPI_Grequest_start");
	r = &g->r;
	r->kind = MICHI_REQ_GREQ;
	r->active = 1;        /* never an inactive persistent request */
	r->freed = 0;
	r->mode = 0;
	r->comm = &michi_comm_world;
	r->dtype = MPI_DATATYPE_NULL;
	r->buf = NULL;
	r->count = 0;
	r->rank = MPI_PROC_NULL;
	r->tag = MPI_ANY_TAG;
	/* the status query_fn starts from: the empty one */
	michi_req_done_now(r, MPI_ANY_SOURCE, MPI_ANY_TAG);
	r->m.type = MTMI_REQ_NONE;
	r->m.done = 0;
	g->query_fn = query_fn;
	g->free_fn = free_fn;
	g->cancel_fn = cancel_fn;
	g->extra_state = extra_state;
	*request = (MPI_Request)michi_p2h(r);
	return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request)
{
	struct michi_request *r;

	MICHI_CHECK_INIT("MPI_Grequest_complete");
	r = michi_obj_check((uint32_t)request, MICHI_KIND_REQUEST);
	if (!r || r->kind != MICHI_REQ_GREQ)
		return michi_mpi_err(NULL, MPI_ERR_REQUEST, "MPI_Grequest_complete",
				     "(request=0x%x): %s", (unsigned)request,
				     request == MPI_REQUEST_NULL ? "MPI_REQUEST_NULL"
				     : !r ? "not a valid request" : "not a generalized request");
	if (r->m.done)
		return michi_mpi_err(NULL, MPI_ERR_REQUEST, "MPI_Grequest_complete",
				     "(request=0x%x): already completed", (unsigned)request);
	if (r->freed) {
		/* MPI_Request_free came first: free_fn runs now, whichever
		 * of the two calls comes last */
		int err = greq_release(greq_of(r));

		return err ? michi_mpi_err_raise(NULL, err) : MPI_SUCCESS;
	}
	/* a waiter in another thread reads the callbacks after seeing done */
	__atomic_store_n(&r->m.done, 1, __ATOMIC_RELEASE);
	return MPI_SUCCESS;
}

int michi_greq_finish(struct michi_request *r, MPI_Request *handle, MPI_Status *status,
		      int quiet)
{
	struct michi_greq *g = greq_of(r);
	int err, ferr;

	/* MPI-3.1 12.2: query_fn before free_fn; the first error wins */
	err = greq_query(g, status);
	ferr = greq_release(g);
	*handle = MPI_REQUEST_NULL;
	if (!err)
		err = ferr;
	if (err && !quiet)
		return michi_mpi_err_raise(NULL, err);
	return err;
}

int michi_greq_get_status(struct michi_request *r, MPI_Status *status)
{
	int err = greq_query(greq_of(r), status);

	return err ? michi_mpi_err_raise(NULL, err) : MPI_SUCCESS;
}

int michi_greq_free(struct michi_request *r)
{
	int err;

	if (!r->m.done) {
		/* free_fn waits for MPI_Grequest_complete */
		r->freed = 1;
		return MPI_SUCCESS;
	}
	err = greq_release(greq_of(r));
	return err ? michi_mpi_err_raise(NULL, err) : MPI_SUCCESS;
}

int michi_greq_cancel(struct michi_request *r)
{
	struct michi_greq *g = greq_of(r);
	int err;

	if (!g->cancel_fn)
		return MPI_SUCCESS;
	err = g->cancel_fn(g->extra_state, r->m.done != 0);
	return err ? michi_mpi_err_raise(NULL, err) : MPI_SUCCESS;
}
