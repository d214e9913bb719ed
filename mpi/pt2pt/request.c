/* SPDX-License-Identifier: MIT */
/*
 * mpi/pt2pt/request.c: completion (wait/test and their all/any/some forms),
 * cancellation, persistent requests and status queries.
 *
 * A request is complete when its MTMI part says done; requests that need
 * no transfer (PROC_NULL, buffered sends) are created done, so every
 * completion call has one path. Waiting loops make progress through MTMI,
 * which polls and then yields, so that oversubscribed ranks do not starve
 * the peers they wait for (and sleeps only where the wait policy asks).
 */
#include "pt2pt.h"
#include "dtype.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- single completion -------------------------------------------------- */

static __attribute__((noinline)) int wait_any(MPI_Request *request, MPI_Status *status)
{
	struct michi_request *r;

	MICHI_GATE("MPI_Wait", Wait, (request, status));
	if (ERRCHK && unlikely(!request))
		return michi_err_null(NULL, "MPI_Wait", "request");
	if (unlikely(*request == MPI_REQUEST_NULL)) {
		michi_status_empty(status);
		return MPI_SUCCESS;
	}
	r = michi_req_get(*request);
	if (ERRCHK && unlikely(!r))
		return michi_err_request("MPI_Wait", "request", *request);
	if (unlikely(michi_req_inactive(r))) {
		michi_status_empty(status);
		return MPI_SUCCESS;
	}
	if (unlikely(!r->m.done)) {
		int err;

		if (unlikely(r->kind == MICHI_REQ_PART_SEND) &&
		    (err = michi_part_wait_check(r, "MPI_Wait", "request")))
			return err;
		mtmi_wait(&r->m);
	}
	return michi_req_finish(r, request, status, "MPI_Wait", 0);
}

/*
 * The leaf fast path: a valid nonpersistent request already complete
 * without error is released with no call; everything else (errors, the
 * null handle, persistent requests, waiting, and every call while
 * michi_state.fast is clear) tail-calls wait_any, which passes the gate.
 */
int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
	struct michi_request *r;

	if (likely(michi_state.fast && request != NULL &&
		   (ERRCHK || *request != MPI_REQUEST_NULL))) {
		r = michi_req_get(*request);
		if (likely(r && r->m.done && r->kind < MICHI_REQ_PSEND && !r->m.error)) {
			if (status != MPI_STATUS_IGNORE)
				michi_status_set(status, r->m.source, r->m.tag, r->m.count,
						 r->m.cancelled);
			michi_req_free(r);
			*request = MPI_REQUEST_NULL;
			return MPI_SUCCESS;
		}
	}
	return wait_any(request, status);
}
MICHI_ALIAS(Wait)

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
	struct michi_request *r;

	if (unlikely(!michi_state.fast) && michi_async_running &&
	    michi_async_test(request, flag))
		return MPI_SUCCESS;
	MICHI_GATE("MPI_Test", Test, (request, flag, status));
	if (ERRCHK && unlikely(!request || !flag))
		return michi_err_null(NULL, "MPI_Test", !request ? "request" : "flag");
	if (unlikely(*request == MPI_REQUEST_NULL)) {
		*flag = 1;
		michi_status_empty(status);
		return MPI_SUCCESS;
	}
	r = michi_req_get(*request);
	if (ERRCHK && unlikely(!r))
		return michi_err_request("MPI_Test", "request", *request);
	if (unlikely(michi_req_inactive(r))) {
		*flag = 1;
		michi_status_empty(status);
		return MPI_SUCCESS;
	}
	if (!r->m.done) {
		mtmi_poll();
		if (!r->m.done) {
			*flag = 0;
			return MPI_SUCCESS;
		}
	}
	*flag = 1;
	return michi_req_finish(r, request, status, "MPI_Test", 0);
}
MICHI_ALIAS(Test)

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
	struct michi_request *r;

	if (ERRCHK && unlikely(!flag))
		return michi_err_null(NULL, "MPI_Request_get_status", "flag");
	if (request == MPI_REQUEST_NULL) {
		*flag = 1;
		michi_status_empty(status);
		return MPI_SUCCESS;
	}
	r = michi_req_get(request);
	if (ERRCHK && unlikely(!r))
		return michi_err_request("MPI_Request_get_status", "request", request);
	if (michi_req_inactive(r)) {
		*flag = 1;
		michi_status_empty(status);
		return MPI_SUCCESS;
	}
	if (!r->m.done)
		mtmi_poll();
	*flag = r->m.done;
	if (!*flag)
		return MPI_SUCCESS;
	if (unlikely(r->kind == MICHI_REQ_GREQ))
		return michi_greq_get_status(r, status);
	if (status != MPI_STATUS_IGNORE)
		michi_status_set(status, r->m.source, r->m.tag, r->m.count, r->m.cancelled);
	if (r->m.error)
		return michi_req_error(r, "MPI_Request_get_status", 0);
	return MPI_SUCCESS;
}

/* ---- multiple completion ------------------------------------------------- */

/* Validate an array of handles once, before any of them is touched. */
static int check_array(int count, MPI_Request reqs[], const char *fname)
{
	int i;

	if (count < 0)
		return michi_mpi_err(NULL, MPI_ERR_COUNT, fname, "(count=%d): count is negative", count);
	if (count > 0 && !reqs)
		return michi_err_null(NULL, fname, "array_of_requests");
	for (i = 0; i < count; i++) {
		if (reqs[i] != MPI_REQUEST_NULL && !michi_req_get(reqs[i])) {
			char arg[48];

			snprintf(arg, sizeof(arg), "array_of_requests[%d]", i);
			return michi_err_request(fname, arg, reqs[i]);
		}
	}
	return MPI_SUCCESS;
}

/* The request behind a handle, or NULL for null and inactive ones. */
static inline struct michi_request *active_req(MPI_Request h)
{
	struct michi_request *r;

	if (h == MPI_REQUEST_NULL)
		return NULL;
	r = michi_h2p((uint32_t)h);
	return michi_req_inactive(r) ? NULL : r;
}

static MPI_Status *status_at(MPI_Status *statuses, int i)
{
	return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* MPI_ERR_IN_STATUS through the error handler of the first failed request. */
static int in_status_error(struct michi_comm *c, const char *fname, int nfail)
{
	return michi_mpi_err(c, MPI_ERR_IN_STATUS, fname,
			     ": %d request%s failed, see the MPI_ERROR field of their statuses",
			     nfail, nfail == 1 ? "" : "s");
}

/*
 * Complete every done request of the array; with `all`, only when all are
 * done. Returns the number still pending; *nfail counts errors, whose codes
 * go into the statuses.
 */
static int sweep_all(int count, MPI_Request reqs[], MPI_Status statuses[], int *nfail,
		     struct michi_comm **fail_comm, const char *fname)
{
	int i, pending = 0;

	for (i = 0; i < count; i++) {
		struct michi_request *r = active_req(reqs[i]);

		if (r && !r->m.done)
			pending++;
	}
	if (pending)
		return pending;
	for (i = 0; i < count; i++) {
		struct michi_request *r = active_req(reqs[i]);
		MPI_Status *s = status_at(statuses, i);
		int err;

		if (!r) {
			michi_status_empty(s);
			continue;
		}
		if (r->m.error && !*fail_comm)
			*fail_comm = r->comm;
		err = michi_req_finish(r, &reqs[i], s, fname, 1);
		if (s != MPI_STATUS_IGNORE)
			s->MPI_ERROR = err;
		if (err)
			(*nfail)++;
	}
	return 0;
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
	struct michi_comm *fc = NULL;
	unsigned spins = 0;
	int nfail = 0, err;

	MICHI_GATE("MPI_Waitall", Waitall, (count, array_of_requests, array_of_statuses));
	if (ERRCHK && (err = check_array(count, array_of_requests, "MPI_Waitall")))
		return err;
	if (sweep_all(count, array_of_requests, array_of_statuses, &nfail, &fc, "MPI_Waitall")) {
		/* about to wait: a partitioned send that cannot complete fails */
		for (int i = 0; i < count; i++) {
			struct michi_request *r = active_req(array_of_requests[i]);
			char arg[48];

			if (!r || r->kind != MICHI_REQ_PART_SEND)
				continue;
			snprintf(arg, sizeof(arg), "array_of_requests[%d]", i);
			if ((err = michi_part_wait_check(r, "MPI_Waitall", arg)))
				return err;
		}
		while (sweep_all(count, array_of_requests, array_of_statuses, &nfail, &fc,
				 "MPI_Waitall"))
			mtmi_idle(&spins);
	}
	if (nfail)
		return in_status_error(fc, "MPI_Waitall", nfail);
	return MPI_SUCCESS;
}
MICHI_ALIAS(Waitall)

int PMPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
		 MPI_Status array_of_statuses[])
{
	struct michi_comm *fc = NULL;
	int nfail = 0, err;

	MICHI_GATE("MPI_Testall", Testall, (count, array_of_requests, flag, array_of_statuses));
	if (ERRCHK && (err = check_array(count, array_of_requests, "MPI_Testall")))
		return err;
	if (ERRCHK && !flag)
		return michi_err_null(NULL, "MPI_Testall", "flag");
	mtmi_poll();
	*flag = sweep_all(count, array_of_requests, array_of_statuses, &nfail, &fc,
			  "MPI_Testall") == 0;
	if (nfail)
		return in_status_error(fc, "MPI_Testall", nfail);
	return MPI_SUCCESS;
}
MICHI_ALIAS(Testall)

/* Index of a done request, MPI_UNDEFINED when none is active, -1 when
 * active ones are all pending. */
static int find_done(int count, MPI_Request reqs[])
{
	int i, active = 0;

	for (i = 0; i < count; i++) {
		struct michi_request *r = active_req(reqs[i]);

		if (!r)
			continue;
		if (r->m.done)
			return i;
		active = 1;
	}
	return active ? -1 : MPI_UNDEFINED;
}

static int finish_any(MPI_Request reqs[], int i, int *index, MPI_Status *status, const char *fname)
{
	struct michi_request *r = michi_h2p((uint32_t)reqs[i]);

	*index = i;
	return michi_req_finish(r, &reqs[i], status, fname, 0);
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
	unsigned spins = 0;
	int i, err;

	if (ERRCHK && (err = check_array(count, array_of_requests, "MPI_Waitany")))
		return err;
	if (ERRCHK && !index)
		return michi_err_null(NULL, "MPI_Waitany", "index");
	while ((i = find_done(count, array_of_requests)) == -1)
		mtmi_idle(&spins);
	if (i == MPI_UNDEFINED) {
		*index = MPI_UNDEFINED;
		michi_status_empty(status);
		return MPI_SUCCESS;
	}
	return finish_any(array_of_requests, i, index, status, "MPI_Waitany");
}

int PMPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
		 MPI_Status *status)
{
	int i, err;

	if (ERRCHK && (err = check_array(count, array_of_requests, "MPI_Testany")))
		return err;
	if (ERRCHK && (!index || !flag))
		return michi_err_null(NULL, "MPI_Testany", !index ? "index" : "flag");
	i = find_done(count, array_of_requests);
	if (i == -1) {
		mtmi_poll();
		i = find_done(count, array_of_requests);
	}
	if (i == -1) {
		*flag = 0;
		*index = MPI_UNDEFINED;
		return MPI_SUCCESS;
	}
	*flag = 1;
	if (i == MPI_UNDEFINED) {
		*index = MPI_UNDEFINED;
		michi_status_empty(status);
		return MPI_SUCCESS;
	}
	return finish_any(array_of_requests, i, index, status, "MPI_Testany");
}

/* Complete every done request; returns how many, or MPI_UNDEFINED when no
 * request is active. */
static int sweep_some(int count, MPI_Request reqs[], int indices[], MPI_Status statuses[],
		      int *nfail, struct michi_comm **fail_comm, const char *fname)
{
	int i, n = 0, active = 0;

	for (i = 0; i < count; i++) {
		struct michi_request *r = active_req(reqs[i]);
		MPI_Status *s;
		int err;

		if (!r)
			continue;
		active = 1;
		if (!r->m.done)
			continue;
		s = status_at(statuses, n);
		if (r->m.error && !*fail_comm)
			*fail_comm = r->comm;
		err = michi_req_finish(r, &reqs[i], s, fname, 1);
		if (s != MPI_STATUS_IGNORE)
			s->MPI_ERROR = err;
		if (err)
			(*nfail)++;
		indices[n++] = i;
	}
	return active ? n : MPI_UNDEFINED;
}

static int some(int incount, MPI_Request reqs[], int *outcount, int indices[],
		MPI_Status statuses[], int wait, const char *fname)
{
	struct michi_comm *fc = NULL;
	unsigned spins = 0;
	int n, nfail = 0, err;

	if (ERRCHK && (err = check_array(incount, reqs, fname)))
		return err;
	if (ERRCHK && (!outcount || (incount > 0 && !indices)))
		return michi_err_null(NULL, fname, !outcount ? "outcount" : "array_of_indices");
	if (!wait)
		mtmi_poll();
	while ((n = sweep_some(incount, reqs, indices, statuses, &nfail, &fc, fname)) == 0 && wait)
		mtmi_idle(&spins);
	*outcount = n;
	if (nfail)
		return in_status_error(fc, fname, nfail);
	return MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
		  int array_of_indices[], MPI_Status array_of_statuses[])
{
	return some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses,
		    1, "MPI_Waitsome");
}

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
		  int array_of_indices[], MPI_Status array_of_statuses[])
{
	return some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses,
		    0, "MPI_Testsome");
}

/* ---- cancel and free ------------------------------------------------------- */

int PMPI_Cancel(MPI_Request *request)
{
	struct michi_request *r;
	michi_status_t st;

	MICHI_CHECK_INIT("MPI_Cancel");
	if (ERRCHK && !request)
		return michi_err_null(NULL, "MPI_Cancel", "request");
	r = michi_req_get(*request);
	if (!r)
		return michi_err_request("MPI_Cancel", "request", *request);
	if (michi_req_inactive(r))
		return michi_mpi_err(r->comm, MPI_ERR_REQUEST, "MPI_Cancel",
				     "(request=0x%x): persistent request is not active",
				     (unsigned)*request);
	if (r->kind == MICHI_REQ_GREQ)
		return michi_greq_cancel(r);
	if (r->kind == MICHI_REQ_COLL || r->kind == MICHI_REQ_PCOLL)
		return michi_mpi_err(r->comm, MPI_ERR_REQUEST, "MPI_Cancel",
				     "(request=0x%x): a nonblocking collective cannot be cancelled "
				     "(MPI-3.1 5.12)", (unsigned)*request);
	/* already complete: nothing to cancel; a send-receive pair is not
	 * withdrawn half way and completes normally (MPI-4.0 3.8.4 allows
	 * either outcome) */
	if (r->m.done || r->kind == MICHI_REQ_DONE || r->kind == MICHI_REQ_PAIR)
		return MPI_SUCCESS;
	if (r->kind == MICHI_REQ_PART_SEND && michi_part_cancel(r))
		return MPI_SUCCESS;
	st = mtmi_cancel(&r->m);
	if (st < 0)
		return michi_mpi_err_status(r->comm, st, "MPI_Cancel");
	return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
	if (ERRCHK && (!status || status == MPI_STATUS_IGNORE || !flag))
		return michi_err_null(NULL, "MPI_Test_cancelled", !flag ? "flag" : "status");
	*flag = status->count_hi_and_cancelled & 1;
	return MPI_SUCCESS;
}

/* A request the user freed: what it holds goes with it (a derived type's
 * staging, unread; a persistent request's reference on its type). */
static void req_release(struct michi_request *r)
{
	if (r->stage)
		michi_dt_stage_drop(r);
	if (r->kind == MICHI_REQ_PSEND || r->kind == MICHI_REQ_PRECV)
		michi_dt_release(r->dtype);
	if (r->kind == MICHI_REQ_PART_SEND || r->kind == MICHI_REQ_PART_RECV)
		michi_part_free(r);
	if (r->kind == MICHI_REQ_PCOLL)
		michi_pcoll_free(r);
	michi_req_free(r);
}

static void free_when_done(struct mtmi_req *m)
{
	req_release(container_of(m, struct michi_request, m));
}

int PMPI_Request_free(MPI_Request *request)
{
	struct michi_request *r;

	MICHI_CHECK_INIT("MPI_Request_free");
	if (ERRCHK && !request)
		return michi_err_null(NULL, "MPI_Request_free", "request");
	r = michi_req_get(*request);
	if (!r)
		return michi_err_request("MPI_Request_free", "request", *request);
	*request = MPI_REQUEST_NULL;
	if (r->kind == MICHI_REQ_GREQ)
		return michi_greq_free(r);
	if (r->m.done || michi_req_inactive(r)) {
		req_release(r);
		return MPI_SUCCESS;
	}
	/* still in flight: the transfer goes on and frees the request */
	r->freed = 1;
	r->m.on_complete = free_when_done;
	return MPI_SUCCESS;
}

/* ---- status queries ------------------------------------------------------------ */

static int get_count(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *out,
		     const char *fname)
{
	MPI_Count bytes, size;

	if (ERRCHK && (!status || status == MPI_STATUS_IGNORE))
		return michi_err_null(NULL, fname, "status");
	if (ERRCHK && !michi_dt_ok(datatype))
		return michi_err_type(NULL, fname, datatype);
	bytes = michi_status_bytes(status);
	/* the wire carries packed bytes: size, not extent */
	size = michi_dt_size(datatype);
	if (size == 0)
		*out = bytes == 0 ? 0 : MPI_UNDEFINED;
	else
		*out = bytes % size ? MPI_UNDEFINED : bytes / size;
	return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	MPI_Count c;
	int err = get_count(status, datatype, &c, "MPI_Get_count");

	if (err)
		return err;
	if (ERRCHK && !count)
		return michi_err_null(NULL, "MPI_Get_count", "count");
	*count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
	return MPI_SUCCESS;
}

/* Elements of a predefined type: pair types hold two elements each. */
static int get_elements(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *out,
			const char *fname)
{
	if (ERRCHK && (!status || status == MPI_STATUS_IGNORE))
		return michi_err_null(NULL, fname, "status");
	if (ERRCHK && !michi_dt_ok(datatype))
		return michi_err_type(NULL, fname, datatype);
	*out = michi_dt_elements(datatype, michi_status_bytes(status));
	return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
	MPI_Count c = 0;
	int err = get_elements(status, datatype, &c, "MPI_Get_elements");

	if (err)
		return err;
	if (ERRCHK && !count)
		return michi_err_null(NULL, "MPI_Get_elements", "count");
	*count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
	return MPI_SUCCESS;
}

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
	if (ERRCHK && !count)
		return michi_err_null(NULL, "MPI_Get_count_c", "count");
	return get_count(status, datatype, count, "MPI_Get_count_c");
}

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
	if (ERRCHK && !count)
		return michi_err_null(NULL, "MPI_Get_elements_c", "count");
	return get_elements(status, datatype, count, "MPI_Get_elements_c");
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
	if (ERRCHK && !count)
		return michi_err_null(NULL, "MPI_Get_elements_x", "count");
	return get_elements(status, datatype, count, "MPI_Get_elements_x");
}

/* ---- persistent requests -------------------------------------------------------- */

static int persistent_init(const void *buf, MPI_Count count, MPI_Datatype datatype, int rank, int tag,
			   MPI_Comm comm, MPI_Request *request, int kind, int mode,
			   const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct michi_request *r;
	int err;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK) {
		err = kind == MICHI_REQ_PSEND
			? michi_check_send(c, comm, buf, count, datatype, rank, tag, fname)
			: michi_check_recv(c, comm, buf, count, datatype, rank, tag, fname);
		if (err)
			return err;
		if (!request)
			return michi_err_null(c, fname, "request");
	}
	r = michi_req_alloc();
	if (!r)
		return michi_err_nomem(c, fname);
	michi_dt_hold(datatype);   /* MPI_Type_free may come before MPI_Request_free */
	michi_req_persist_init(r, kind, mode, c, datatype, (void *)buf, count, rank, tag);
	*request = (MPI_Request)michi_p2h(r);
	return MPI_SUCCESS;
}

/* An inactive persistent request (MPI_Send_init, MPI_Psend_init,
 * MPI_Bcast_init ...): what MPI_Start needs, complete until started, so
 * that MPI_Wait and MPI_Test on it return at once. */
void michi_req_persist_init(struct michi_request *r, int kind, int mode, struct michi_comm *c,
			    MPI_Datatype dt, void *buf, MPI_Count count, int rank, int tag)
{
	r->kind = (uint8_t)kind;
	r->mode = (uint8_t)mode;
	r->active = 0;
	r->freed = 0;
	r->comm = c;
	r->dtype = dt;
	r->buf = buf;
	r->count = count;
	r->rank = rank;
	r->tag = tag;
	r->stage = NULL;
	michi_req_done_now(r, MPI_ANY_SOURCE, MPI_ANY_TAG);
}

/* Each int form and its _c form (MPI_Count) share persistent_init. */
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return persistent_init(buf, count, datatype, dest, tag, comm, request, MICHI_REQ_PSEND,
			       MTMI_MODE_STANDARD, "MPI_Send_init");
}

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return persistent_init(buf, count, datatype, dest, tag, comm, request, MICHI_REQ_PSEND,
			       MTMI_MODE_STANDARD, "MPI_Send_init_c");
}

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return persistent_init(buf, count, datatype, dest, tag, comm, request, MICHI_REQ_PSEND,
			       MTMI_MODE_SYNC, "MPI_Ssend_init");
}

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return persistent_init(buf, count, datatype, dest, tag, comm, request, MICHI_REQ_PSEND,
			       MTMI_MODE_SYNC, "MPI_Ssend_init_c");
}

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return persistent_init(buf, count, datatype, dest, tag, comm, request, MICHI_REQ_PSEND,
			       MTMI_MODE_READY, "MPI_Rsend_init");
}

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return persistent_init(buf, count, datatype, dest, tag, comm, request, MICHI_REQ_PSEND,
			       MTMI_MODE_READY, "MPI_Rsend_init_c");
}

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return persistent_init(buf, count, datatype, dest, tag, comm, request, MICHI_REQ_PSEND,
			       MICHI_MODE_BUFFERED, "MPI_Bsend_init");
}

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return persistent_init(buf, count, datatype, dest, tag, comm, request, MICHI_REQ_PSEND,
			       MICHI_MODE_BUFFERED, "MPI_Bsend_init_c");
}

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return persistent_init(buf, count, datatype, source, tag, comm, request, MICHI_REQ_PRECV,
			       MTMI_MODE_STANDARD, "MPI_Recv_init");
}

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
		MPI_Comm comm, MPI_Request *request)
{
	return persistent_init(buf, count, datatype, source, tag, comm, request, MICHI_REQ_PRECV,
			       MTMI_MODE_STANDARD, "MPI_Recv_init_c");
}

int michi_req_start(struct michi_request *r, const char *fname)
{
	struct michi_comm *c = r->comm;
	size_t bytes;
	michi_status_t st;
	int err;

	if (r->kind == MICHI_REQ_PART_SEND || r->kind == MICHI_REQ_PART_RECV)
		return michi_part_start(r, fname);
	if (r->kind == MICHI_REQ_PCOLL)
		return michi_pcoll_start(r, fname);
	bytes = michi_dt_bytes(r->dtype, r->count);
	if (unlikely(!michi_dt_builtin_valid(r->dtype)) && r->rank != MPI_PROC_NULL &&
	    !(r->kind == MICHI_REQ_PSEND && r->mode == MICHI_MODE_BUFFERED)) {
		err = michi_dt_istart(c, r, r->buf, r->count, r->dtype, r->rank, r->tag, r->mode,
				      r->kind == MICHI_REQ_PSEND, fname);
		if (!err)
			r->active = 1;
		return err;
	}
	if (r->rank == MPI_PROC_NULL) {
		michi_req_done_now(r, MPI_PROC_NULL, MPI_ANY_TAG);
		r->active = 1;
		return MPI_SUCCESS;
	}
	r->m.on_complete = NULL;
	if (r->kind == MICHI_REQ_PSEND && r->mode == MICHI_MODE_BUFFERED) {
		err = michi_bsend_start(c, r->buf, r->count, r->dtype, r->rank, r->tag, fname);
		if (err)
			return err;
		michi_req_done_now(r, MPI_ANY_SOURCE, MPI_ANY_TAG);
		r->active = 1;
		return MPI_SUCCESS;
	}
	if (r->kind == MICHI_REQ_PSEND)
		st = mtmi_isend(r->buf, bytes, c->peers[r->rank], c->rank, r->tag, c->ctx,
				r->mode, &r->m);
	else
		st = mtmi_irecv(r->buf, bytes,
				r->rank == MPI_ANY_SOURCE ? MTMI_ANY_SOURCE : c->peers[r->rank],
				r->rank, r->tag, c->ctx, &r->m);
	if (st < 0)
		return michi_mpi_err_status(c, st, fname);
	r->active = 1;
	return MPI_SUCCESS;
}

static int start_one(MPI_Request *request, const char *fname, const char *arg)
{
	struct michi_request *r;

	r = michi_req_get(*request);
	if (!r || r->kind < MICHI_REQ_PSEND || r->kind == MICHI_REQ_GREQ)
		return michi_err_request(fname, arg, *request);
	if (r->active)
		return michi_mpi_err(r->comm, MPI_ERR_REQUEST, fname,
				     "(%s=0x%x): request is already active", arg, (unsigned)*request);
	return michi_req_start(r, fname);
}

int PMPI_Start(MPI_Request *request)
{
	MICHI_CHECK_INIT("MPI_Start");
	if (ERRCHK && !request)
		return michi_err_null(NULL, "MPI_Start", "request");
	return start_one(request, "MPI_Start", "request");
}

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
	char arg[48];
	int i, err;

	MICHI_CHECK_INIT("MPI_Startall");
	if (ERRCHK && (count < 0 || (count > 0 && !array_of_requests)))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Startall",
				     "(count=%d, array_of_requests=%p): invalid array", count,
				     (void *)array_of_requests);
	for (i = 0; i < count; i++) {
		snprintf(arg, sizeof(arg), "array_of_requests[%d]", i);
		err = start_one(&array_of_requests[i], "MPI_Startall", arg);
		if (err)
			return err;
	}
	return MPI_SUCCESS;
}
