/* SPDX-License-Identifier: MIT */
/*
 * Generalized requests (MPI_Grequest_start/complete) and the status
 * setters their query callbacks use. Checks that query_fn, free_fn and
 * cancel_fn run the right number of times, in order, with the
 * extra_state given at start: query_fn only once the request is complete
 * (by Wait, Test, Request_get_status and the multi-completion calls),
 * free_fn once, at completion or at MPI_Request_free, whichever comes
 * last, cancel_fn at MPI_Cancel with the right complete flag. The status
 * that query_fn builds with MPI_Status_set_elements(_x) and
 * MPI_Status_set_cancelled reads back through MPI_Get_count,
 * MPI_Get_elements(_x) and MPI_Test_cancelled. Wait/Test/Waitany/Testsome/
 * Waitall mix generalized requests with real sends and receives; errors
 * returned by the callbacks come back from the completing call
 * (MPI_ERR_IN_STATUS for Waitall). With two ranks, a thread completes a
 * generalized request only once a large message has landed, so MPI_Wait
 * on the generalized request must keep receiving it meanwhile.
 */
#include "mtest.h"
#include <pthread.h>

#define TAG 7
#define BIG (1 << 20)

struct gstate {
	int id;
	int queried, freed, cancelled, cancel_complete;
	int order_ok;          /* free_fn came after query_fn when both ran */
	int count;             /* elements of MPI_INT query_fn reports */
	int set_cancel;
	int query_err, free_err;
	MPI_Request req;
};

static int query_fn(void *extra, MPI_Status *status)
{
	struct gstate *g = extra;

	g->queried++;
	if (g->freed)
		g->order_ok = 0;
	MPI_Status_set_elements(status, MPI_INT, g->count);
	MPI_Status_set_cancelled(status, g->set_cancel);
	status->MPI_SOURCE = 100 + g->id;
	status->MPI_TAG = 200 + g->id;
	return g->query_err;
}

static int free_fn(void *extra)
{
	struct gstate *g = extra;

	g->freed++;
	return g->free_err;
}

static int cancel_fn(void *extra, int complete)
{
	struct gstate *g = extra;

	/* completing the request from here would be natural, but MPICH's
	 * global lock does not allow MPI calls in the callback: the test
	 * completes it after MPI_Cancel returns */
	g->cancelled++;
	g->cancel_complete = complete;
	if (!complete)
		g->set_cancel = 1;
	return MPI_SUCCESS;
}

static void gstart(struct gstate *g, int id, int count)
{
	memset(g, 0, sizeof(*g));
	g->id = id;
	g->count = count;
	g->order_ok = 1;
	MPI_Grequest_start(query_fn, free_fn, cancel_fn, g, &g->req);
}

static void calls(const struct gstate *g, int q, int f, int c, const char *what)
{
	mtest_check(g->queried == q && g->freed == f && g->cancelled == c && g->order_ok,
		    "%s: query_fn %d free_fn %d cancel_fn %d times (order %s), expected %d %d %d",
		    what, g->queried, g->freed, g->cancelled, g->order_ok ? "ok" : "wrong",
		    q, f, c);
}

static void status_is(const MPI_Status *st, const struct gstate *g, const char *what)
{
	int count = -1, elems = -1, cancelled = -1;
	MPI_Count ex = -1;

	MPI_Get_count(st, MPI_INT, &count);
	MPI_Get_elements(st, MPI_INT, &elems);
	MPI_Get_elements_x(st, MPI_INT, &ex);
	MPI_Test_cancelled(st, &cancelled);
	mtest_check(count == g->count && elems == g->count && ex == g->count &&
		    !!cancelled == !!g->set_cancel && st->MPI_SOURCE == 100 + g->id &&
		    st->MPI_TAG == 200 + g->id,
		    "%s: status count %d elements %d/%lld cancelled %d source %d tag %d, "
		    "expected %d, %d, %d, %d", what, count, elems, (long long)ex, cancelled,
		    st->MPI_SOURCE, st->MPI_TAG, g->count, g->set_cancel, 100 + g->id,
		    200 + g->id);
}

static void single(void)
{
	struct gstate g;
	MPI_Status st;
	int flag = -1;

	/* Wait after complete: query once, then free once */
	gstart(&g, 1, 5);
	calls(&g, 0, 0, 0, "after start");
	MPI_Grequest_complete(g.req);
	calls(&g, 0, 0, 0, "after complete");
	MPI_Wait(&g.req, &st);
	calls(&g, 1, 1, 0, "wait");
	mtest_check(g.req == MPI_REQUEST_NULL, "wait left the handle set");
	status_is(&st, &g, "wait");

	/* Test: not complete, then complete */
	gstart(&g, 2, 3);
	MPI_Test(&g.req, &flag, &st);
	mtest_check(!flag, "test: incomplete generalized request says complete");
	calls(&g, 0, 0, 0, "test before complete");
	MPI_Grequest_complete(g.req);
	flag = 0;
	MPI_Test(&g.req, &flag, &st);
	mtest_check(flag && g.req == MPI_REQUEST_NULL, "test after complete: flag %d", flag);
	calls(&g, 1, 1, 0, "test after complete");
	status_is(&st, &g, "test");

	/* Request_get_status queries without freeing; Wait queries again */
	gstart(&g, 3, 0);
	MPI_Request_get_status(g.req, &flag, &st);
	mtest_check(!flag, "get_status: incomplete request says complete");
	calls(&g, 0, 0, 0, "get_status before complete");
	MPI_Grequest_complete(g.req);
	MPI_Request_get_status(g.req, &flag, &st);
	mtest_check(flag && g.req != MPI_REQUEST_NULL, "get_status after complete: flag %d",
		    flag);
	calls(&g, 1, 0, 0, "get_status after complete");
	status_is(&st, &g, "get_status");
	MPI_Wait(&g.req, MPI_STATUS_IGNORE);
	calls(&g, 2, 1, 0, "wait with STATUS_IGNORE");

	/* Cancel before completion: cancel_fn(complete=0), and the status
	 * query_fn gives then says cancelled */
	gstart(&g, 4, 2);
	MPI_Cancel(&g.req);
	mtest_check(g.cancel_complete == 0, "cancel_fn complete flag %d, expected 0",
		    g.cancel_complete);
	calls(&g, 0, 0, 1, "cancel before complete");
	MPI_Grequest_complete(g.req);
	MPI_Wait(&g.req, &st);
	calls(&g, 1, 1, 1, "wait after cancel");
	status_is(&st, &g, "cancelled");

	/* Cancel after completion: complete=1, nothing is cancelled */
	gstart(&g, 5, 1);
	MPI_Grequest_complete(g.req);
	MPI_Cancel(&g.req);
	mtest_check(g.cancel_complete == 1, "cancel_fn complete flag %d, expected 1",
		    g.cancel_complete);
	MPI_Wait(&g.req, &st);
	calls(&g, 1, 1, 1, "wait after late cancel");
	status_is(&st, &g, "late cancel");

	/* Request_free first: free_fn waits for Grequest_complete */
	gstart(&g, 6, 1);
	{
		MPI_Request keep = g.req;

		MPI_Request_free(&g.req);
		mtest_check(g.req == MPI_REQUEST_NULL, "request_free left the handle set");
		/* MPICH 4.0 calls free_fn here already */
		if (mtest_is_michi())
			calls(&g, 0, 0, 0, "free before complete");
		MPI_Grequest_complete(keep);
		calls(&g, 0, 1, 0, "complete after free");
	}

	/* Request_free after complete: free_fn at once, no query */
	gstart(&g, 7, 1);
	MPI_Grequest_complete(g.req);
	MPI_Request_free(&g.req);
	calls(&g, 0, 1, 0, "free after complete");

	/* the large-count setter */
	gstart(&g, 8, 0);
	MPI_Grequest_complete(g.req);
	MPI_Wait(&g.req, &st);
	MPI_Status_set_elements_x(&st, MPI_DOUBLE, (MPI_Count)3);
	{
		int count = -1;

		MPI_Get_count(&st, MPI_DOUBLE, &count);
		mtest_check(count == 3, "set_elements_x(3 doubles): count %d", count);
		MPI_Get_count(&st, MPI_BYTE, &count);
		mtest_check(count == 3 * (int)sizeof(double), "set_elements_x: %d bytes",
			    count);
	}
}

/* Generalized requests next to a receive from the previous rank and a
 * send to the next one (the same rank when alone). */
static void mixed(void)
{
	int next = (mtest_rank + 1) % mtest_size;
	int prev = (mtest_rank + mtest_size - 1) % mtest_size;
	int sbuf[4] = { 1, 2, 3, 4 }, rbuf[4] = { 0 }, i, n, idx, indices[4], count;
	struct gstate a, b;
	MPI_Request reqs[4];
	MPI_Status sts[4];
	double end;

	gstart(&a, 10, 4);
	gstart(&b, 11, 6);
	MPI_Irecv(rbuf, 4, MPI_INT, prev, TAG, MPI_COMM_WORLD, &reqs[1]);
	MPI_Isend(sbuf, 4, MPI_INT, next, TAG, MPI_COMM_WORLD, &reqs[2]);
	reqs[0] = a.req;
	reqs[3] = b.req;
	/* the real ones complete, the generalized ones wait for us */
	n = 0;
	end = MPI_Wtime() + MTEST_WAIT_S;
	while (n < 2 && MPI_Wtime() < end) {
		int out = 0;

		MPI_Testsome(4, reqs, &out, indices, sts);
		for (i = 0; i < out; i++) {
			mtest_check(indices[i] == 1 || indices[i] == 2,
				    "testsome completed request %d before its time", indices[i]);
			n++;
		}
	}
	mtest_check(n == 2, "testsome: %d of the 2 real requests done", n);
	calls(&a, 0, 0, 0, "testsome, pending");
	for (i = 0; i < 4; i++)
		if (!mtest_check(rbuf[i] == i + 1, "received word %d is %d", i, rbuf[i]))
			break;
	MPI_Grequest_complete(b.req);
	MPI_Waitany(4, reqs, &idx, &sts[0]);
	mtest_check(idx == 3 && reqs[3] == MPI_REQUEST_NULL, "waitany gave index %d", idx);
	calls(&b, 1, 1, 0, "waitany");
	status_is(&sts[0], &b, "waitany");

	/* Waitall over a generalized request, a receive, a send and a null */
	gstart(&a, 12, 9);
	reqs[0] = a.req;
	MPI_Irecv(rbuf, 4, MPI_INT, prev, TAG + 1, MPI_COMM_WORLD, &reqs[1]);
	MPI_Isend(sbuf, 3, MPI_INT, next, TAG + 1, MPI_COMM_WORLD, &reqs[2]);
	reqs[3] = MPI_REQUEST_NULL;
	MPI_Grequest_complete(a.req);
	MPI_Waitall(4, reqs, sts);
	calls(&a, 1, 1, 0, "waitall");
	status_is(&sts[0], &a, "waitall");
	MPI_Get_count(&sts[1], MPI_INT, &count);
	mtest_check(count == 3 && sts[1].MPI_SOURCE == prev && sts[1].MPI_TAG == TAG + 1,
		    "waitall: receive status %d/%d/%d", sts[1].MPI_SOURCE, sts[1].MPI_TAG, count);
	for (i = 0; i < 4; i++)
		mtest_check(reqs[i] == MPI_REQUEST_NULL, "waitall left request %d", i);

	/* Waitall with MPI_STATUSES_IGNORE still queries */
	gstart(&a, 13, 1);
	gstart(&b, 14, 1);
	reqs[0] = a.req;
	reqs[1] = b.req;
	MPI_Grequest_complete(a.req);
	MPI_Grequest_complete(b.req);
	MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
	calls(&a, 1, 1, 0, "waitall, statuses ignored (a)");
	calls(&b, 1, 1, 0, "waitall, statuses ignored (b)");
}

/* Errors from the callbacks come back from the call that completes. */
static void errors(void)
{
	struct gstate a, b;
	MPI_Request reqs[2];
	MPI_Status sts[2];
	int rc;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	gstart(&a, 20, 1);
	a.query_err = MPI_ERR_OTHER;
	MPI_Grequest_complete(a.req);
	rc = MPI_Wait(&a.req, MPI_STATUS_IGNORE);
	mtest_check(mtest_errclass(rc) == MPI_ERR_OTHER,
		    "wait: query_fn's MPI_ERR_OTHER came back as class %d", mtest_errclass(rc));
	calls(&a, 1, 1, 0, "failing query_fn");

	gstart(&a, 21, 1);
	a.free_err = MPI_ERR_OTHER;
	MPI_Grequest_complete(a.req);
	rc = MPI_Wait(&a.req, MPI_STATUS_IGNORE);
	mtest_check(mtest_errclass(rc) == MPI_ERR_OTHER,
		    "wait: free_fn's MPI_ERR_OTHER came back as class %d", mtest_errclass(rc));
	calls(&a, 1, 1, 0, "failing free_fn");

	gstart(&a, 22, 1);
	gstart(&b, 23, 2);
	a.query_err = MPI_ERR_OTHER;
	reqs[0] = a.req;
	reqs[1] = b.req;
	MPI_Grequest_complete(a.req);
	MPI_Grequest_complete(b.req);
	sts[0].MPI_ERROR = sts[1].MPI_ERROR = -1;
	rc = MPI_Waitall(2, reqs, sts);
	mtest_check(mtest_errclass(rc) == MPI_ERR_IN_STATUS, "waitall: class %d, expected "
		    "MPI_ERR_IN_STATUS", mtest_errclass(rc));
	/* the other request completed (MPI_SUCCESS), or MPI left it for
	 * later (MPI_ERR_PENDING, as MPICH does; Michi completes all) */
	mtest_check(mtest_errclass(sts[0].MPI_ERROR) == MPI_ERR_OTHER &&
		    (sts[1].MPI_ERROR == MPI_SUCCESS ||
		     (sts[1].MPI_ERROR == MPI_ERR_PENDING && !mtest_is_michi())),
		    "waitall: statuses' errors %d and %d", sts[0].MPI_ERROR, sts[1].MPI_ERROR);
	calls(&a, 1, 1, 0, "waitall, failing query_fn");
	if (sts[1].MPI_ERROR == MPI_ERR_PENDING) {
		calls(&b, 0, 0, 0, "waitall, pending one");
		MPI_Wait(&reqs[1], &sts[1]);
	}
	calls(&b, 1, 1, 0, "waitall, good one");
	status_is(&sts[1], &b, "waitall next to a failure");

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- progress while waiting ---------------------------------------------- */

static unsigned char *bigbuf;
static volatile int helper_saw_data;

static void *helper(void *arg)
{
	struct gstate *g = arg;
	double end = MPI_Wtime() + MTEST_WAIT_S;

	/* the main thread sits in MPI_Wait on g: only its progress can
	 * bring the message in */
	while (MPI_Wtime() < end) {
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (mtest_verify(bigbuf, BIG, 77) < 0) {
			helper_saw_data = 1;
			break;
		}
		mtest_sleep(0.001);
	}
	MPI_Grequest_complete(g->req);
	return NULL;
}

static void progress(int provided)
{
	struct gstate g;
	MPI_Request rr;
	pthread_t th;

	/* Michi lets another thread complete a generalized request during a
	 * wait below MPI_THREAD_MULTIPLE (grequest.c); others need MULTIPLE */
	if (mtest_size < 2 || mtest_rank > 1 ||
	    (provided < MPI_THREAD_MULTIPLE && !mtest_is_michi()))
		return;
	bigbuf = mtest_malloc(BIG);
	if (mtest_rank == 1) {
		mtest_fill(bigbuf, BIG, 77);
		MPI_Send(bigbuf, BIG, MPI_BYTE, 0, TAG + 2, MPI_COMM_WORLD);
		free(bigbuf);
		return;
	}
	memset(bigbuf, 0, BIG);
	MPI_Irecv(bigbuf, BIG, MPI_BYTE, 1, TAG + 2, MPI_COMM_WORLD, &rr);
	gstart(&g, 30, 1);
	if (pthread_create(&th, NULL, helper, &g) != 0) {
		mtest_error("pthread_create failed");
		MPI_Grequest_complete(g.req);
		MPI_Wait(&g.req, MPI_STATUS_IGNORE);
	} else {
		MPI_Wait(&g.req, MPI_STATUS_IGNORE);
		pthread_join(th, NULL);
	}
	mtest_check(helper_saw_data, "the message never arrived while MPI_Wait waited on "
		    "a generalized request");
	calls(&g, 1, 1, 0, "wait completed by another thread");
	MPI_Wait(&rr, MPI_STATUS_IGNORE);
	mtest_check(mtest_verify(bigbuf, BIG, 77) < 0, "large message corrupted");
	free(bigbuf);
}

/* Michi only: MPI_Grequest_complete on a request that is not generalized. */
static void misuse(void)
{
	MPI_Request r;
	int rc, x = 0;

	if (!mtest_is_michi())
		return;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
	rc = MPI_Grequest_complete(r);
	mtest_check(mtest_errclass(rc) == MPI_ERR_REQUEST,
		    "complete(receive request): class %d, expected MPI_ERR_REQUEST",
		    mtest_errclass(rc));
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	int provided = -1;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	mtest_init_done();
	single();
	mixed();
	errors();
	progress(provided);
	misuse();
	return mtest_finalize();
}
