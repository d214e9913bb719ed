/* SPDX-License-Identifier: MIT */
/*
 * mpi/pt2pt/bsend.c: buffered sends and the attached buffer.
 *
 * MPI_Bsend copies the message into the user's attached buffer and starts
 * an ordinary send from there; the copy is released when that send
 * completes. Space is managed first-fit over segments kept in address
 * order; each segment's bookkeeping lives inside the buffer itself, in the
 * MPI_BSEND_OVERHEAD bytes that the standard tells users to reserve per
 * message, so attaching needs no allocation of ours.
 */
#include "pt2pt.h"
#include "dtype.h"

#include <limits.h>
#include <stdint.h>

struct bsend_seg {
	struct bsend_seg *next;    /* next segment in address order */
	size_t len;                /* bytes of this segment, header included */
	struct michi_request *req; /* the send from this segment */
};

_Static_assert(sizeof(struct bsend_seg) <= MPI_BSEND_OVERHEAD, "segment header fits the overhead");

static char *buf_base;
static size_t buf_size;
static struct bsend_seg *segs;   /* in use, address order */

#define SEG_ALIGN 16

static size_t seg_round(size_t n)
{
	return (n + SEG_ALIGN - 1) & ~(size_t)(SEG_ALIGN - 1);
}

static void seg_release(struct mtmi_req *m)
{
	struct michi_request *r = container_of(m, struct michi_request, m);
	struct bsend_seg **pp;

	for (pp = &segs; *pp; pp = &(*pp)->next) {
		if ((*pp)->req == r) {
			*pp = (*pp)->next;
			break;
		}
	}
	michi_req_free(r);
}

/* First gap of at least need bytes between segments; NULL if none. */
static struct bsend_seg *seg_find(size_t need, struct bsend_seg ***link)
{
	char *start = (char *)(((uintptr_t)buf_base + SEG_ALIGN - 1) & ~(uintptr_t)(SEG_ALIGN - 1));
	char *end = buf_base + buf_size;
	struct bsend_seg **pp = &segs;

	for (;;) {
		char *gap_end = *pp ? (char *)*pp : end;

		if (gap_end >= start && (size_t)(gap_end - start) >= need) {
			*link = pp;
			return (struct bsend_seg *)start;
		}
		if (!*pp)
			return NULL;
		start = (char *)*pp + (*pp)->len;
		pp = &(*pp)->next;
	}
}

int michi_bsend_start(struct michi_comm *c, const void *buf, MPI_Count count, MPI_Datatype dt,
		      int dest, int tag, const char *fname)
{
	size_t bytes = michi_dt_packed(dt, count);   /* the wire's packed form */
	size_t need = seg_round(sizeof(struct bsend_seg)) + seg_round(bytes);
	struct bsend_seg *s, **link;
	struct michi_request *r;
	unsigned spins = 0;
	michi_status_t st;
	int tries;

	/* Completed earlier sends free their space in progress: poll a few
	 * times before deciding the buffer is too small. */
	for (tries = 0; !(s = seg_find(need, &link)) && segs && tries < 64; tries++)
		mtmi_idle(&spins);
	if (!s)
		return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
				     "(count=%lld): %zu bytes do not fit in the attached buffer"
				     " (%zu bytes%s)", (long long)count, bytes + MPI_BSEND_OVERHEAD, buf_size,
				     buf_base ? ", others in use" : ", none attached");
	r = michi_req_alloc();
	if (!r)
		return michi_err_nomem(c, fname);
	s->len = need;
	s->req = r;
	s->next = *link;
	*link = s;
	michi_dt_pack(buf, count, dt, (char *)s + seg_round(sizeof(*s)), bytes);
	r->kind = MICHI_REQ_SEND;
	r->comm = c;
	r->m.on_complete = NULL;
	st = mtmi_isend((char *)s + seg_round(sizeof(*s)), bytes, c->peers[dest], c->rank, tag,
			c->ctx, MTMI_MODE_STANDARD, &r->m);
	if (st < 0) {
		*link = s->next;
		michi_req_free(r);
		return michi_mpi_err_status(c, st, fname);
	}
	if (r->m.done)
		seg_release(&r->m);
	else
		r->m.on_complete = seg_release;
	return MPI_SUCCESS;
}

/* The int and MPI_Count forms share these; sizes are MPI_Count inside. */
static int buffer_attach(void *buffer, MPI_Count size, const char *fname)
{
	MICHI_CHECK_INIT(fname);
	if (ERRCHK && size < 0)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(size=%lld): size is negative",
				     (long long)size);
	if (ERRCHK && !buffer && size > 0)
		return michi_mpi_err(NULL, MPI_ERR_BUFFER, fname,
				     "(buffer=NULL, size=%lld): NULL buffer", (long long)size);
	if (buf_base)
		return michi_mpi_err(NULL, MPI_ERR_BUFFER, fname,
				     "(buffer=%p): a buffer of %zu bytes is already attached",
				     buffer, buf_size);
	buf_base = buffer;
	buf_size = (size_t)size;
	segs = NULL;
	return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
	return buffer_attach(buffer, size, "MPI_Buffer_attach");
}

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
	return buffer_attach(buffer, size, "MPI_Buffer_attach_c");
}

/* Detach blocks until every message in the buffer has been sent. The int
 * form cannot say the size of a buffer attached by MPI_Buffer_attach_c
 * above INT_MAX bytes: it fails and leaves the buffer attached, so that
 * MPI_Buffer_detach_c can still take it back. */
static int buffer_detach(void *buffer_addr, MPI_Count *size, int int_size, const char *fname)
{
	unsigned spins = 0;

	MICHI_CHECK_INIT(fname);
	if (ERRCHK && (!buffer_addr || !size))
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(%s=NULL): output pointer is NULL",
				     !buffer_addr ? "buffer_addr" : "size");
	if (int_size && buf_size > INT_MAX)
		return michi_mpi_err(NULL, MPI_ERR_BUFFER, fname,
				     "(size): the attached buffer has %zu bytes, more than an int"
				     " holds; detach it with MPI_Buffer_detach_c", buf_size);
	while (segs)
		mtmi_idle(&spins);
	*(void **)buffer_addr = buf_base;
	*size = (MPI_Count)buf_size;
	buf_base = NULL;
	buf_size = 0;
	return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
	MPI_Count n = 0;
	int err = buffer_detach(buffer_addr, size ? &n : NULL, 1, "MPI_Buffer_detach");

	if (!err)
		*size = (int)n;
	return err;
}

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
	return buffer_detach(buffer_addr, size, 0, "MPI_Buffer_detach_c");
}
