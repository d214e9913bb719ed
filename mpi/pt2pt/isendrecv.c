/* SPDX-License-Identifier: MIT */
/*
 * mpi/pt2pt/isendrecv.c: MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0
 * 3.10), and their large-count forms MPI_Isendrecv_c and
 * MPI_Isendrecv_replace_c (counts are MPI_Count inside). One request of kind MICHI_REQ_PAIR stands for a receive and a
 * send posted together; both MTMI operations live in a side block whose
 * completion hooks count down, and the last one fills the request's
 * status from the receive, its error from whichever half failed, and
 * completes it, so MPI_Wait, MPI_Test and the multi-completion calls see
 * an ordinary request.
 *
 * Datatypes that are not predefined travel packed, as everywhere
 * (mpi/pt2pt/pt2pt_dt.c): the send side is packed when the call starts, the
 * receive side unpacked when it completes. The replace form always sends
 * a copy of the buffer, so the message received can land in it at once.
 */
#include "dtype.h"
#include "pt2pt.h"

#include <stdlib.h>

struct pair {
	struct mtmi_req sm, rm;
	struct michi_request *r;
	int left;              /* halves still running, plus one while posting */
	void *stmp, *rtmp;     /* staging (or the replace form's copy) */
	void *rbuf;            /* unpack rtmp here at the end */
	MPI_Count rcount;
	MPI_Datatype rtype;    /* held while rtmp waits to be unpacked */
};

static void pair_end(struct pair *p)
{
	struct michi_request *r = p->r;
	struct mtmi_req *m = &r->m;

	if (p->rtmp) {
		if (!p->rm.error || p->rm.error == MICHI_ERR_TRUNCATE)
			michi_dt_unpack(p->rtmp, p->rm.count, p->rbuf, p->rcount, p->rtype);
		michi_dt_release(p->rtype);
	}
	m->source = p->rm.source;
	m->tag = p->rm.tag;
	m->count = p->rm.count;
	m->cancelled = 0;
	m->error = p->sm.error ? p->sm.error : p->rm.error;
	michi_stage_free(p->stmp);
	michi_stage_free(p->rtmp);
	free(p);
	__atomic_store_n(&m->done, 1, __ATOMIC_RELEASE);
	if (m->on_complete)
		m->on_complete(m);
}

static void pair_drop(struct pair *p)
{
	if (--p->left == 0)
		pair_end(p);
}

static void send_done(struct mtmi_req *m)
{
	pair_drop(container_of(m, struct pair, sm));
}

static void recv_done(struct mtmi_req *m)
{
	pair_drop(container_of(m, struct pair, rm));
}

/*
 * Post both halves: sbytes at sbuf to dest, rbytes into rbuf from source
 * (both already on the wire's side: packed or contiguous). Returns an MPI
 * error code; on failure nothing stays posted and p is freed.
 */
static int pair_post(struct michi_comm *c, struct pair *p, const void *sbuf, size_t sbytes,
		     int dest, int sendtag, void *rbuf, size_t rbytes, int source, int recvtag,
		     MPI_Request *request, const char *fname)
{
	struct michi_request *r = p->r;
	michi_status_t st;

	r->kind = MICHI_REQ_PAIR;
	r->active = 1;
	r->freed = 0;
	r->mode = 0;
	r->comm = c;
	r->dtype = MPI_DATATYPE_NULL;
	r->buf = NULL;
	r->count = 0;
	r->rank = MPI_PROC_NULL;
	r->tag = MPI_ANY_TAG;
	r->stage = NULL;
	r->m.done = 0;
	r->m.error = 0;
	r->m.type = MTMI_REQ_NONE;
	r->m.on_complete = NULL;
	p->left = 3;
	p->sm.on_complete = send_done;
	p->rm.on_complete = recv_done;
	if (source == MPI_PROC_NULL) {
		p->rm.source = MPI_PROC_NULL;
		p->rm.tag = MPI_ANY_TAG;
		p->rm.count = 0;
		p->rm.error = 0;
		p->left--;
	} else {
		st = mtmi_irecv(rbuf, rbytes, source == MPI_ANY_SOURCE ? MTMI_ANY_SOURCE
								     : c->peers[source],
				source, recvtag, c->ctx, &p->rm);
		if (st < 0)
			goto err;
	}
	p->sm.error = 0;
	if (dest == MPI_PROC_NULL) {
		p->left--;
	} else {
		st = mtmi_isend(sbuf, sbytes, c->peers[dest], c->rank, sendtag, c->ctx,
				MTMI_MODE_STANDARD, &p->sm);
		if (st < 0) {
			if (source != MPI_PROC_NULL) {
				p->rm.on_complete = NULL;
				mtmi_cancel(&p->rm);
				mtmi_wait(&p->rm);
			}
			goto err;
		}
	}
	*request = (MPI_Request)michi_p2h(r);
	pair_drop(p);
	return MPI_SUCCESS;

err:
	if (p->rtmp)
		michi_dt_release(p->rtype);
	michi_stage_free(p->stmp);
	michi_stage_free(p->rtmp);
	free(p);
	michi_req_free(r);
	return michi_start_error(c, st, fname);
}

/* A pair that was never posted goes, with its request and send staging;
 * returns err. */
static int pair_drop_new(struct pair *p, int err)
{
	michi_stage_free(p->stmp);
	michi_req_free(p->r);
	free(p);
	return err;
}

static struct pair *pair_new(void)
{
	struct pair *p = malloc(sizeof(*p));

	if (!p)
		return NULL;
	if (!(p->r = michi_req_alloc())) {
		free(p);
		return NULL;
	}
	p->stmp = p->rtmp = NULL;
	return p;
}

/* The receive side of dt at buf: in place, or staging to unpack at the end. */
static int recv_side(struct michi_comm *c, struct pair *p, void *buf, MPI_Count count,
		     MPI_Datatype dt, void **ptr, size_t *bytes, const char *fname)
{
	struct michi_stage s;
	int err;

	if (michi_dt_builtin_valid(dt)) {
		*ptr = buf;
		*bytes = michi_dt_bytes(dt, count);
		return MPI_SUCCESS;
	}
	if ((err = michi_dt_stage(c, fname, buf, count, dt, 0, &s)))
		return err;
	*ptr = s.ptr;
	*bytes = s.bytes;
	if ((p->rtmp = s.tmp)) {
		p->rbuf = buf;
		p->rcount = count;
		p->rtype = dt;
		michi_dt_hold(dt);
	}
	return MPI_SUCCESS;
}

static int isendrecv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
		     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
		     int source, int recvtag, MPI_Comm comm, MPI_Request *request,
		     const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	const void *sptr = sendbuf;
	size_t sbytes, rbytes;
	struct pair *p;
	void *rptr;
	int err;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK && (err = michi_check_send(c, comm, sendbuf, sendcount, sendtype, dest,
					       sendtag, fname)))
		return err;
	if (ERRCHK && (err = michi_check_recv(c, comm, recvbuf, recvcount, recvtype, source,
					       recvtag, fname)))
		return err;
	if (ERRCHK && !request)
		return michi_err_null(c, fname, "request");
	if (!(p = pair_new()))
		return michi_err_nomem(c, fname);
	if (michi_dt_builtin_valid(sendtype)) {
		sbytes = michi_dt_bytes(sendtype, sendcount);
	} else {
		struct michi_stage s;

		if ((err = michi_dt_stage(c, fname, (void *)sendbuf, sendcount, sendtype, 1, &s)))
			return pair_drop_new(p, err);
		sptr = s.ptr;
		sbytes = s.bytes;
		p->stmp = s.tmp;
	}
	if ((err = recv_side(c, p, recvbuf, recvcount, recvtype, &rptr, &rbytes, fname)))
		return pair_drop_new(p, err);
	return pair_post(c, p, sptr, sbytes, dest, sendtag, rptr, rbytes, source, recvtag,
			 request, fname);
}

static int isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
			     int sendtag, int source, int recvtag, MPI_Comm comm,
			     MPI_Request *request, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	size_t sbytes, rbytes;
	struct pair *p;
	void *rptr;
	int err;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK && (err = michi_check_send(c, comm, buf, count, datatype, dest, sendtag,
					       fname)))
		return err;
	if (ERRCHK && (err = michi_check_recv(c, comm, buf, count, datatype, source, recvtag,
					       fname)))
		return err;
	if (ERRCHK && !request)
		return michi_err_null(c, fname, "request");
	if (!(p = pair_new()))
		return michi_err_nomem(c, fname);
	/* the send reads a packed copy, taken now */
	sbytes = dest == MPI_PROC_NULL ? 0 : michi_dt_packed(datatype, count);
	if (dest != MPI_PROC_NULL) {
		if (!(p->stmp = malloc(sbytes ? sbytes : 1)))
			return pair_drop_new(p, michi_err_nomem(c, fname));
		if (michi_dt_builtin_valid(datatype))
			memcpy(p->stmp, buf, sbytes);
		else
			michi_dt_pack(buf, count, datatype, p->stmp, sbytes);
	}
	if ((err = recv_side(c, p, buf, count, datatype, &rptr, &rbytes, fname)))
		return pair_drop_new(p, err);
	return pair_post(c, p, p->stmp, sbytes, dest, sendtag, rptr, rbytes, source, recvtag,
			 request, fname);
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
		   int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
		   int recvtag, MPI_Comm comm, MPI_Request *request)
{
	return isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
			 source, recvtag, comm, request, "MPI_Isendrecv");
}

int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
		     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
		     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
	return isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
			 source, recvtag, comm, request, "MPI_Isendrecv_c");
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
			   int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
	return isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
				 request, "MPI_Isendrecv_replace");
}

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
			     int sendtag, int source, int recvtag, MPI_Comm comm,
			     MPI_Request *request)
{
	return isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm,
				 request, "MPI_Isendrecv_replace_c");
}
