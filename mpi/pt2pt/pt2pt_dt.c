/* SPDX-License-Identifier: MIT */
/*
 * mpi/pt2pt/pt2pt_dt.c: point-to-point with datatypes that are not predefined
 * and contiguous: derived types and the pair types.
 *
 * The wire carries a datatype's packed bytes (mpi/datatype/dtype_pack.c). A type
 * whose instances lie back to back (contiguous derived types) is sent and
 * received in place, from its true lower bound; any other is packed into
 * a staging buffer before a send, and received into one that is unpacked
 * when the receive completes (from MTMI's completion hook for nonblocking
 * receives, so that MPI_Test and MPI_Wait find the data in place). The
 * staged operation holds a reference on the datatype, so MPI_Type_free
 * right after MPI_Irecv is safe. The predefined types never come here:
 * the callers test michi_dt_builtin_valid first.
 *
 * Large sends to a peer whose device pulls (shm with CMA) are pipelined:
 * the sender packs dt_pipeline_chunk bytes, starts a streamed rendezvous
 * (mtmi_isend_stream) and packs the rest while the receiver pulls what
 * is ready; a blocking receive unpacks each piece as it lands, while it
 * is still in cache. Packing, the copy and unpacking then overlap across
 * the two processes instead of following one another.
 */
#include "dtype.h"
#include "pt2pt.h"

#include <stdlib.h>
#include <sys/mman.h>

static size_t dt_pipeline_bytes = 1 << 20;
MICHI_TUNABLE(dt_pipeline_bytes, "dt_pipeline_bytes", MICHI_T_SIZE, "1m", MICHI_LEVEL_TUNER,
	      "smallest non-contiguous send that packs while the receiver already copies, "
	      "over a device that pulls (0: never)");
static size_t dt_pipeline_chunk = 256 << 10;
MICHI_TUNABLE(dt_pipeline_chunk, "dt_pipeline_chunk", MICHI_T_SIZE, "256k", MICHI_LEVEL_TUNER,
	      "bytes a pipelined send packs before it publishes them");

/* ---- staging memory --------------------------------------------------------- */

/*
 * Large staging buffers are mappings of their own, on transparent huge
 * pages where the kernel offers them, and the last few freed are kept for
 * the next transfer. The single-copy rendezvous (process_vm_readv and
 * _writev) pins the pages on both sides for each copy; on 2 MiB pages an
 * 8 MiB copy took a quarter of the time it took on 4 KiB pages here.
 * Keeping them spares faulting and zeroing the pages of every transfer
 * afresh. Smaller buffers come from malloc. All of it runs under the MPI
 * lock (util/mtlock.h) when threads share the library.
 */
#define STAGE_HUGE ((size_t)2 << 20)
#define STAGE_SLOTS 4

static size_t stage_huge_bytes = STAGE_HUGE;
MICHI_TUNABLE(stage_huge_bytes, "stage_huge_bytes", MICHI_T_SIZE, "2m", MICHI_LEVEL_TUNER,
	      "staging buffers of derived-datatype transfers from this size get mappings of "
	      "their own on huge pages (0: always malloc)");
static size_t stage_cache_bytes = (size_t)64 << 20;
MICHI_TUNABLE(stage_cache_bytes, "stage_cache_bytes", MICHI_T_SIZE, "64m", MICHI_LEVEL_TUNER,
	      "freed huge staging buffers kept for reuse, at most this many bytes");

struct stage_map {
	void *p;
	size_t len;     /* of the mapping */
};

static struct stage_map stage_live[STAGE_SLOTS];   /* handed out */
static struct stage_map stage_kept[STAGE_SLOTS];   /* freed, kept */

static struct stage_map *stage_slot(struct stage_map *tab, const void *p)
{
	int i;

	for (i = 0; i < STAGE_SLOTS; i++)
		if (tab[i].p == p)
			return &tab[i];
	return NULL;
}

static void *stage_map_new(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE);
#endif
	return p;
}

void *michi_stage_alloc(size_t n)
{
	struct stage_map *live, *best = NULL;
	size_t len;
	int i;

	if (!stage_huge_bytes || n < stage_huge_bytes || !(live = stage_slot(stage_live, NULL)))
		return malloc(n ? n : 1);
	len = (n + STAGE_HUGE - 1) & ~(STAGE_HUGE - 1);
	for (i = 0; i < STAGE_SLOTS; i++)
		if (stage_kept[i].p && stage_kept[i].len >= len &&
		    (!best || stage_kept[i].len < best->len))
			best = &stage_kept[i];
	if (best) {
		*live = *best;
		best->p = NULL;
		return live->p;
	}
	live->p = stage_map_new(len);
	if (!live->p)
		return malloc(n);
	live->len = len;
	return live->p;
}

void michi_stage_free(void *p)
{
	struct stage_map *live = p ? stage_slot(stage_live, p) : NULL, *keep;
	size_t kept = 0;
	int i;

	if (!live) {
		free(p);
		return;
	}
	for (i = 0; i < STAGE_SLOTS; i++)
		kept += stage_kept[i].p ? stage_kept[i].len : 0;
	keep = stage_slot(stage_kept, NULL);
	if (keep && kept + live->len <= stage_cache_bytes) {
		*keep = *live;
	} else {
		munmap(live->p, live->len);
	}
	live->p = NULL;
}

/* Whether a staged send of s->bytes to world rank peer is pipelined. */
static int pipelined(const struct michi_stage *s, int peer)
{
	return s->tmp && dt_pipeline_bytes && s->bytes >= dt_pipeline_bytes &&
	       mtmi_stream_able(peer, s->bytes);
}

/* peer: a send's world rank, whose pipelined send packs later; else -1. */
static int stage_init(struct michi_comm *c, const char *fname, void *buf, MPI_Count count,
		      MPI_Datatype dt, int send, struct michi_stage *s, int peer)
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
	s->tmp = michi_stage_alloc(s->bytes);
	if (!s->tmp)
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname,
				     "(count=%lld): no memory for %zu bytes of staging",
				     (long long)count, s->bytes);
	s->ptr = s->tmp;
	if (send && (peer < 0 || !pipelined(s, peer)))
		michi_dt_pack(buf, count, dt, s->tmp, s->bytes);
	return MPI_SUCCESS;
}

int michi_dt_stage(struct michi_comm *c, const char *fname, void *buf, MPI_Count count,
		   MPI_Datatype dt, int send, struct michi_stage *s)
{
	return stage_init(c, fname, buf, count, dt, send, s, -1);
}

/* Start the send of s; a pipelined one packs and publishes the rest here
 * (the receiver pulls meanwhile; a CTS from one that cannot waits for
 * the last byte, so nothing here needs progress). */
static michi_status_t stage_send(const struct michi_stage *s, const void *buf, MPI_Count count,
				 MPI_Datatype dt, int peer, int src_rank, int tag, uint32_t ctx,
				 int mode, struct mtmi_req *m)
{
	struct michi_dt_cursor cur = { 0 };
	size_t chunk = dt_pipeline_chunk ? dt_pipeline_chunk : s->bytes;
	michi_status_t st;

	if (!pipelined(s, peer))
		return mtmi_isend(s->ptr, s->bytes, peer, src_rank, tag, ctx, mode, m);
	michi_dt_cursor_move((void *)buf, count, dt, &cur, s->tmp, chunk, 1);
	st = mtmi_isend_stream(s->tmp, s->bytes, cur.pos, peer, src_rank, tag, ctx, mode, m);
	if (st < 0)
		return st;
	while (cur.pos < s->bytes) {
		michi_dt_cursor_move((void *)buf, count, dt, &cur, s->tmp, cur.pos + chunk, 1);
		mtmi_stream_ready(m, cur.pos);
	}
	return st;
}

int michi_dt_send_blocking(struct michi_comm *c, const void *buf, MPI_Count count,
			   MPI_Datatype dt, int dest, int tag, int mode, const char *fname)
{
	struct mtmi_req m;
	struct michi_stage s;
	michi_status_t st;
	int err = stage_init(c, fname, (void *)buf, count, dt, 1, &s, c->peers[dest]);

	if (err)
		return err;
	m.on_complete = NULL;
	st = stage_send(&s, buf, count, dt, c->peers[dest], c->rank, tag, c->ctx, mode, &m);
	if (st == MICHI_INPROGRESS)
		mtmi_wait(&m);
	michi_stage_free(s.tmp);
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
	struct michi_dt_cursor cur = { 0 };
	size_t seen = 0;
	int err = stage_init(c, fname, buf, count, dt, 0, &s, -1);

	if (err)
		return err;
	m.on_complete = NULL;
	st = mtmi_irecv(s.ptr, s.bytes, source == MPI_ANY_SOURCE ? MTMI_ANY_SOURCE
								 : c->peers[source],
			source, tag, c->ctx, &m);
	if (st < 0) {
		michi_stage_free(s.tmp);
		return michi_start_error(c, st, fname);
	}
	/* a streamed rendezvous lands a piece at a time: unpack each */
	while (s.tmp && !m.done) {
		mtmi_wait_some(&m, seen);
		if (!m.done) {
			seen = mtmi_recv_have(&m);
			michi_dt_cursor_move(buf, count, dt, &cur, s.tmp, seen, 0);
		}
	}
	if (!m.done)
		mtmi_wait(&m);
	if (s.tmp) {
		michi_dt_cursor_move(buf, count, dt, &cur, s.tmp, m.count, 0);
		michi_stage_free(s.tmp);
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

	michi_stage_free(r->stage);
	r->stage = NULL;
	michi_dt_release(r->dtype);
}

static void staged_recv_done(struct mtmi_req *m)
{
	struct michi_request *r = req_of(m);

	michi_dt_unpack(r->stage, m->count, r->buf, r->count, r->dtype);
	michi_stage_free(r->stage);
	r->stage = NULL;
	michi_dt_release(r->dtype);
}

void (*michi_dt_staged_recv_hook(void))(struct mtmi_req *m)
{
	return staged_recv_done;
}

/* A staged request the user freed while pending (mpi/pt2pt/request.c) has
 * ended: nobody wants the data; the buffer and reference go. */
void michi_dt_stage_drop(struct michi_request *r)
{
	michi_stage_free(r->stage);
	r->stage = NULL;
	michi_dt_release(r->dtype);
}

int michi_dt_istart(struct michi_comm *c, struct michi_request *r, void *buf, MPI_Count count,
		    MPI_Datatype dt, int peer_rank, int tag, int mode, int send,
		    const char *fname)
{
	struct michi_stage s;
	michi_status_t st;
	int err = stage_init(c, fname, buf, count, dt, send, &s,
			     send ? c->peers[peer_rank] : -1);

	if (err)
		return err;
	r->stage = s.tmp;
	r->m.on_complete = NULL;
	if (s.tmp) {
		r->buf = buf;
		r->count = count;
		r->dtype = dt;
		michi_dt_hold(dt);
		r->m.on_complete = send ? staged_send_done : staged_recv_done;
	}
	if (send)
		st = stage_send(&s, buf, count, dt, c->peers[peer_rank], c->rank, tag, c->ctx,
				mode, &r->m);
	else
		st = mtmi_irecv(s.ptr, s.bytes, peer_rank == MPI_ANY_SOURCE ? MTMI_ANY_SOURCE
									     : c->peers[peer_rank],
				peer_rank, tag, c->ctx, &r->m);
	if (st < 0) {
		if (s.tmp) {
			michi_stage_free(s.tmp);
			r->stage = NULL;
			michi_dt_release(dt);
		}
		return michi_start_error(c, st, fname);
	}
	return MPI_SUCCESS;
}
