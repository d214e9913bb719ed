/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll.c: the MPI collective calls, blocking and nonblocking, on
 * intra- and intercommunicators (at the end of the file), and the
 * neighbourhood collectives. Each checks its arguments, builds the
 * schedule of the algorithm it selects (coll/schedule.h) on the
 * communicator's collective context, and then either runs it to the end
 * (MPI_Bcast) or hands it to progress behind a request (MPI_Ibcast): one
 * code path for both forms. Which algorithm builds it is for the
 * collective's table (coll/select.c) to say.
 *
 * Datatypes: the algorithms move bytes. A type whose instances are not
 * contiguous at the buffer is packed into the schedule's scratch when the
 * call starts (the data it sends) and unpacked when the schedule ends
 * (the data it receives). Reductions take predefined and contiguous
 * types, and user ops also types whose data lies within their extent.
 *
 * Every call has three forms that share one code path, told apart by
 * `nb` (enum coll_mode): blocking, nonblocking and MPI-4.0's persistent
 * one (MPI_Bcast_init), whose schedule is built once at init and run again
 * at every MPI_Start (coll_persist). Whatever a schedule must redo on
 * every run (packing a derived type's data, copying the input of an
 * in-place call to scratch) is therefore one of its steps, not work done
 * while building it. And every call has an int form and MPI-4.0's large
 * count (_c) form: counts are MPI_Count here, and the count and
 * displacement arrays of the v forms reach the algorithms as they came
 * (struct coll_v, coll/coll.h), so that neither form converts them.
 */
#include "mpiimpl.h"
#include "op.h"
#include "pt2pt.h"
#include "schedule.h"
#include "dtype.h"
#include "info.h"
#include "lanes_params.h"

#include <stdio.h>
#include <stdlib.h>

/* struct coll_v reads the _c forms' arrays as int64_t and intptr_t */
_Static_assert(sizeof(MPI_Count) == sizeof(int64_t) && sizeof(MPI_Aint) == sizeof(intptr_t),
	       "MPI_Count and MPI_Aint as coll_v reads them");

/* What a call does with the schedule it built: `nb` of the common
 * functions below. */
enum coll_mode { COLL_BLOCKING, COLL_NB, COLL_PERSIST };

static int coll_host_ranks;
MICHI_TUNABLE(coll_host_ranks, "coll_host_ranks", MICHI_T_INT, "0", MICHI_LEVEL_TUNER,
	      "fake host boundaries for the collectives: every this many consecutive world "
	      "ranks count as one host for the node-aware algorithms (0: the real hosts)");

static int coll_host_id(int world)
{
	if (coll_host_ranks > 0)
		return world / coll_host_ranks;
	return michi_state.host_of ? michi_state.host_of[world] : 0;
}

/*
 * The hosts of c's ranks (coll/coll.h): NULL when they share one host,
 * coll_hosts_apart when no two do, else a map the communicator keeps.
 * Every rank builds the same one from the job's host map; out of memory
 * it stays NULL (the flat algorithms, correct but not node-aware).
 */
static const struct coll_hosts *coll_hosts_build(struct michi_comm *c)
{
	int n = c->size, nh = 0, i, h, *id, *host, *lrank_of, *members, *first, *lw, *hw, nl;
	struct coll_hosts *hs;
	size_t words;

	if (c->local || n < 2 || !(id = malloc((size_t)michi_state.npeers * sizeof(int))))
		return NULL;
	for (i = 0; i < n; i++)
		id[coll_host_id(c->peers[i])] = -1;
	for (i = 0; i < n; i++)
		if (id[coll_host_id(c->peers[i])] < 0)
			id[coll_host_id(c->peers[i])] = nh++;
	if (nh == 1 || nh == n) {
		free(id);
		return nh == 1 ? NULL : &coll_hosts_apart;
	}
	words = 4 * (size_t)n + 2 * (size_t)nh + 1;
	if (!(hs = malloc(sizeof(*hs) + words * sizeof(int)))) {
		free(id);
		return NULL;
	}
	host = (int *)(hs + 1);
	lrank_of = host + n;
	members = lrank_of + n;
	first = members + n;
	hw = first + nh + 1;
	lw = hw + nh;
	memset(first, 0, (size_t)(nh + 1) * sizeof(int));
	for (i = 0; i < n; i++) {
		host[i] = id[coll_host_id(c->peers[i])];
		first[host[i] + 1]++;
	}
	free(id);
	for (h = 0; h < nh; h++)
		first[h + 1] += first[h];
	for (h = 0; h < nh; h++)   /* fill pointers, put back below */
		hw[h] = first[h];
	for (i = 0; i < n; i++) {
		lrank_of[i] = hw[host[i]] - first[host[i]];
		members[hw[host[i]]++] = i;
	}
	hs->nhosts = nh;
	hs->myhost = host[c->rank];
	hs->lrank = lrank_of[c->rank];
	nl = first[hs->myhost + 1] - first[hs->myhost];
	for (h = 0; h < nh; h++)
		hw[h] = c->peers[members[first[h]]];
	for (i = 0; i < nl; i++)
		lw[i] = c->peers[members[first[hs->myhost] + i]];
	hs->host = host;
	hs->lrank_of = lrank_of;
	hs->members = members;
	hs->first = first;
	hs->leader_world = hw;
	hs->local_world = lw;
	c->hosts_mem = hs;
	return hs;
}

static int coll_site_ranks;
MICHI_TUNABLE(coll_site_ranks, "coll_site_ranks", MICHI_T_INT, "0", MICHI_LEVEL_TUNER,
	      "fake site boundaries for the collectives: every this many consecutive world "
	      "ranks count as one site for the grid-aware algorithms (0: the job's sites)");

static int coll_site_id(int world)
{
	if (coll_site_ranks > 0)
		return world / coll_site_ranks;
	return michi_state.site_of ? michi_state.site_of[world] : 0;
}

struct site_key {
	int site, nth, host, rank;   /* lane order: by site, then nth rank of its
				      * host, then host within the site */
};

static int site_key_cmp(const void *a, const void *b)
{
	const struct site_key *x = a, *y = b;

	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	if (x->nth != y->nth)
		return x->nth < y->nth ? -1 : 1;
	return x->host < y->host ? -1 : x->host > y->host;
}

/*
 * The sites of c's ranks (coll/coll.h): NULL when they share one site,
 * else a map the communicator keeps, the same on every rank. Out of
 * memory it stays NULL (the algorithms that do not know sites).
 */
static const struct coll_sites *coll_sites_build(struct michi_comm *c)
{
	int n = c->size, np = michi_state.npeers, ns = 0, i, *sid, *hcount, *hord, *in_site;
	int *site, *lane_of, *members, *first;
	struct site_key *key = NULL;
	struct coll_sites *ss = NULL;

	if (c->local || n < 2 || (coll_site_ranks <= 0 && !michi_state.site_of))
		return NULL;
	sid = malloc(3 * (size_t)np * sizeof(int) + (size_t)n * sizeof(int));
	if (!sid)
		return NULL;
	hcount = sid + np;     /* ranks seen so far on each host */
	hord = hcount + np;    /* each host's index within its site */
	in_site = hord + np;   /* hosts seen so far in each site */
	for (i = 0; i < n; i++) {
		sid[coll_site_id(c->peers[i])] = -1;
		hcount[coll_host_id(c->peers[i])] = 0;
		hord[coll_host_id(c->peers[i])] = -1;
	}
	for (i = 0; i < n; i++)
		if (sid[coll_site_id(c->peers[i])] < 0)
			sid[coll_site_id(c->peers[i])] = ns++;
	if (ns == 1 || !(key = malloc((size_t)n * sizeof(*key))) ||
	    !(ss = malloc(sizeof(*ss) + (4 * (size_t)n + (size_t)ns + 1) * sizeof(int))))
		goto out;
	memset(in_site, 0, (size_t)ns * sizeof(int));
	for (i = 0; i < n; i++) {
		int h = coll_host_id(c->peers[i]), st = sid[coll_site_id(c->peers[i])];

		if (hord[h] < 0)
			hord[h] = in_site[st]++;
		key[i].site = st;
		key[i].nth = hcount[h]++;
		key[i].host = hord[h];
		key[i].rank = i;
	}
	qsort(key, (size_t)n, sizeof(*key), site_key_cmp);
	site = (int *)(ss + 1);
	lane_of = site + n;
	members = lane_of + n;
	first = members + n;
	memset(first, 0, (size_t)(ns + 1) * sizeof(int));
	for (i = 0; i < n; i++) {
		site[key[i].rank] = key[i].site;
		members[i] = key[i].rank;
		first[key[i].site + 1]++;
	}
	for (i = 0; i < ns; i++)
		first[i + 1] += first[i];
	for (i = 0; i < n; i++)
		lane_of[members[i]] = i - first[site[members[i]]];
	ss->nsites = ns;
	ss->mysite = site[c->rank];
	ss->lane = lane_of[c->rank];
	ss->site = site;
	ss->lane_of = lane_of;
	ss->members = members;
	ss->first = first;
	ss->grid = NULL;
	for (i = 0; i < ns; i++)   /* the job's site of each: sid is free now */
		sid[i] = coll_site_id(c->peers[members[first[i]]]);
	ss->grid = michi_grid_new(c, ss, sid, coll_site_ranks > 0);
	c->sites_mem = ss;
out:
	free(key);
	free(sid);
	return c->sites_mem;
}

/* the call's number sits above the tag bits MTMI hashes, the kind below */
_Static_assert((1u << COLL_SEQ_SHIFT) > MTMI_HASH_TAG_MASK &&
	       COLL_TAG_MAX - 1 <= MTMI_HASH_TAG_MASK &&
	       (COLL_SEQ_MASK << COLL_SEQ_SHIFT) <= 0x7fffffffu,
	       "collective tags: sequence above MTMI's hashed bits, positive");

void michi_coll_comm(struct michi_comm *c, struct coll_comm *cc)
{
	cc->rank = c->rank;
	cc->size = c->size;
	cc->ctx = c->ctx + 1;
	/* the next blocking call's number; a nonblocking or persistent call
	 * gives it back and numbers its schedule among its own kind */
	cc->tag_ofs = COLL_TAG_BLOCKING | (int)((c->coll_blk++ & COLL_SEQ_MASK) << COLL_SEQ_SHIFT);
	cc->peers = c->peers;
	if (unlikely(!c->hosts_done)) {
		c->hosts = coll_hosts_build(c);
		c->sites = coll_sites_build(c);
		c->hosts_done = 1;
	}
	cc->hosts = c->hosts;
	cc->sites = c->sites;
}

/* The calls MPI defines on intracommunicators only. */
static int coll_intra_only(struct michi_comm *c, const char *fname)
{
	return michi_mpi_err(c, MPI_ERR_COMM, fname,
			     "(comm): an intercommunicator; MPI defines this collective on "
			     "intracommunicators only");
}

static int coll_user_code(struct coll_sched *s);

static int coll_done(struct michi_comm *c, michi_status_t st, const char *fname)
{
	if (unlikely(st < 0))
		return michi_mpi_err_status(c, st, fname);
	return MPI_SUCCESS;
}

/*
 * Run a built schedule: to the end when request is NULL (the blocking
 * call), else behind a new request of kind MICHI_REQ_COLL whose MTMI part
 * the schedule completes (mpi/request.c waits on it as on any request).
 */
int michi_coll_go(struct michi_comm *c, struct coll_sched *s, MPI_Request *request,
		  const char *fname)
{
	struct michi_request *r;
	michi_status_t st;
	size_t bytes;
	uint32_t seq;
	int user_code;

	if (!request)
		return s ? coll_done(c, coll_sched_run(s), fname) : MPI_SUCCESS;
	c->coll_blk--;         /* not a blocking call: its number goes back */
	seq = c->coll_seq++;   /* every rank counts the call, with work or none */
	if (s)
		coll_sched_number(s, seq);
	r = michi_req_alloc();
	if (unlikely(!r)) {
		coll_sched_free(s);
		return michi_err_nomem(c, fname);
	}
	r->kind = MICHI_REQ_COLL;
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
	r->m.source = MPI_ANY_SOURCE;
	r->m.tag = MPI_ANY_TAG;
	r->m.type = MTMI_REQ_NONE;
	r->m.on_complete = NULL;
	if (!s) {
		michi_req_done_now(r, MPI_ANY_SOURCE, MPI_ANY_TAG);
		*request = (MPI_Request)michi_p2h(r);
		return MPI_SUCCESS;
	}
	bytes = coll_sched_bytes(s);
	user_code = coll_user_code(s);
	st = coll_sched_start(s, &r->m, 1);
	if (st < 0) {
		michi_req_free(r);
		return coll_done(c, st, fname);
	}
	*request = (MPI_Request)michi_p2h(r);
	/* last: from here on the progress thread may run the schedule */
	if (!r->m.done)
		michi_async_kick(bytes, user_code);
	return MPI_SUCCESS;
}

/*
 * MPI-4.0 persistent collectives: the schedule built at init becomes the
 * request's (r->buf), kind MICHI_REQ_PCOLL, inactive; MPI_Start runs it
 * again from its first step (coll_sched_start on a persistent schedule
 * resets it), MPI_Wait/Test complete the round as any request's, and
 * MPI_Request_free frees the schedule (mpi/request.c calls the two
 * functions below). Its tags carry COLL_TAG_PERSIST and the number of
 * the init call among c's nonblocking and persistent calls, which every
 * rank makes in the same order:
 * a round's frames then never match another collective's, nonblocking or
 * persistent, and rounds of one request are apart in per-peer order.
 */
static int coll_persist(struct michi_comm *c, struct coll_sched *s, MPI_Request *request,
			const char *fname)
{
	struct michi_request *r;
	michi_status_t st;

	if (!s)
		return michi_err_nomem(c, fname);
	c->coll_blk--;
	coll_sched_number(s, c->coll_seq++);
	if ((st = coll_sched_persist(s)) < 0) {
		coll_sched_free(s);
		return coll_done(c, st, fname);
	}
	if (unlikely(!(r = michi_req_alloc()))) {
		coll_sched_free(s);
		return michi_err_nomem(c, fname);
	}
	michi_req_persist_init(r, MICHI_REQ_PCOLL, 0, c, MPI_DATATYPE_NULL, s, 0, MPI_PROC_NULL,
			       MPI_ANY_TAG);
	r->m.type = MTMI_REQ_NONE;
	*request = (MPI_Request)michi_p2h(r);
	return MPI_SUCCESS;
}

int michi_pcoll_start(struct michi_request *r, const char *fname)
{
	struct coll_sched *s = r->buf;
	michi_status_t st;

	r->m.source = MPI_ANY_SOURCE;
	r->m.tag = MPI_ANY_TAG;
	r->m.type = MTMI_REQ_NONE;
	r->m.on_complete = NULL;
	r->active = 1;
	st = coll_sched_start(s, &r->m, 0);
	if (st < 0) {
		r->active = 0;
		return coll_done(r->comm, st, fname);
	}
	/* last: from here on the progress thread may run the schedule */
	if (!r->m.done)
		michi_async_kick(coll_sched_bytes(s), coll_user_code(s));
	return MPI_SUCCESS;
}

void michi_pcoll_free(struct michi_request *r)
{
	coll_sched_free(r->buf);
	r->buf = NULL;
}

/* The end of every collective call: run the schedule (blocking), start
 * it behind a request (nonblocking), or keep it in one (persistent). */
static inline __attribute__((always_inline)) int coll_go(struct michi_comm *c,
							struct coll_sched *s,
							MPI_Request *request, int nb,
							const char *fname)
{
	if (nb == COLL_PERSIST)
		return coll_persist(c, s, request, fname);
	return michi_coll_go(c, s, nb ? request : NULL, fname);
}

/*
 * What a schedule holds until it is freed: a user op, and derived types
 * it packs or unpacks (MPI_Type_free may come before the end, and a
 * persistent collective runs again after it). Kept in its scratch, which
 * coll_sched_free frees after calling on_free.
 */
struct coll_keep {
	int user_op;
	int ndt, cap;
	MPI_Datatype *dt;
};

static void coll_keep_release(struct coll_sched *s)
{
	struct coll_keep *k = s->on_free_arg;

	if (k->user_op)
		michi_op_release((MPI_Op)s->op.op);
	for (int i = 0; i < k->ndt; i++)
		michi_dt_release(k->dt[i]);
	free(k->dt);
}

static struct coll_keep *coll_keep_of(struct coll_sched *s)
{
	struct coll_keep *k;

	if (s->on_free == coll_keep_release)
		return s->on_free_arg;
	if (!(k = coll_sched_tmp(s, sizeof(*k))))
		return NULL;
	k->user_op = 0;
	k->ndt = k->cap = 0;
	k->dt = NULL;
	s->on_free = coll_keep_release;
	s->on_free_arg = k;
	return k;
}

/* Hold dt for as long as s lives; -1 out of memory (s then fails). */
static int coll_keep_dt(struct coll_sched *s, MPI_Datatype dt)
{
	struct coll_keep *k = coll_keep_of(s);

	if (!k)
		return -1;
	if (k->ndt == k->cap) {
		int cap = k->cap ? 2 * k->cap : 4;
		MPI_Datatype *n = realloc(k->dt, (size_t)cap * sizeof(*n));

		if (!n) {
			if (s->error >= 0)
				s->error = michi_err(MICHI_ERR_NOMEM, "no memory for a "
						     "collective's datatypes");
			return -1;
		}
		k->dt = n;
		k->cap = cap;
	}
	michi_dt_hold(dt);
	k->dt[k->ndt++] = dt;
	return 0;
}

/* 1 when running s may call the program's code (a user op, an idup's
 * callbacks), for the progress thread */
static int coll_user_code(struct coll_sched *s)
{
	return s->on_free && (s->on_free != coll_keep_release ||
			      ((struct coll_keep *)s->on_free_arg)->user_op);
}

/* A schedule on the collective view cc of c (michi_coll_comm); NULL: no
 * memory. One with a user op holds it. */
static struct coll_sched *coll_new_cc(const struct coll_comm *cc, int tag,
				      const struct coll_op *op)
{
	struct coll_sched *s = coll_sched_new(cc, tag, op);
	struct coll_keep *k;

	if (s && op && !michi_op_is_predefined((MPI_Op)op->op)) {
		if (!(k = coll_keep_of(s))) {
			coll_sched_free(s);
			return NULL;
		}
		michi_op_hold((MPI_Op)op->op);
		k->user_op = 1;
	}
	return s;
}

static struct coll_sched *coll_new(struct michi_comm *c, int tag, const struct coll_op *op)
{
	struct coll_comm cc;

	michi_coll_comm(c, &cc);
	return coll_new_cc(&cc, tag, op);
}

/* A schedule over intercommunicator c, with its local group as the
 * other view. */
static struct coll_sched *coll_new_inter(struct michi_comm *c, int tag, const struct coll_op *op)
{
	struct coll_sched *s = coll_new(c, tag, op);
	struct coll_comm lc;

	if (s) {
		michi_coll_comm(c->local, &lc);
		coll_sched_set_alt(s, &lc, tag);
	}
	return s;
}

/* The intercommunicator forms (at the end of this file). */
static int inter_bcast(struct michi_comm *c, void *buf, MPI_Count count, MPI_Datatype dt,
		       int root, MPI_Request *request, int nb, const char *fname);
static int inter_reduce(struct michi_comm *c, const void *sbuf, void *rbuf, MPI_Count count,
			const struct coll_v *counts, MPI_Count rcount, MPI_Datatype dt, MPI_Op op,
			int root, MPI_Request *request, int nb, const char *fname);
static int inter_rooted(struct michi_comm *c, int gather, const void *mine, MPI_Count mcount,
			MPI_Datatype mtype, const void *rootbuf, const struct coll_v *v,
			MPI_Count ucount, MPI_Datatype rtype, int root, int vform,
			MPI_Request *request, int nb, const char *fname);
static int inter_allgather(struct michi_comm *c, const void *sbuf, MPI_Count scount,
			   MPI_Datatype stype, void *rbuf, const struct coll_v *v, MPI_Count rcount,
			   MPI_Datatype rtype, MPI_Request *request, int nb, const char *fname);
#define INTER_ALLREDUCE (-4)
#define INTER_REDSCAT (-5)

/* Built: errors of the builder are the schedule's (coll_go reports them). */
#define COLL_BUILD_AND_GO(c, s, build, request, nb, fname) do { \
	if (unlikely(!(s))) \
		return michi_err_nomem(c, fname); \
	(void)(build); \
	return coll_go(c, s, request, nb, fname); \
} while (0)

/* ---- argument checks ---------------------------------------------------- */

/* A count and its datatype. Alone, for a w form's block: its byte
 * displacement may be an absolute address from MPI_BOTTOM (NULL), whatever
 * the type, so its buffer is not checked. */
static int coll_check_count(struct michi_comm *c, const char *fname, const char *arg,
			    MPI_Count count, MPI_Datatype dt)
{
	if (unlikely(count < 0))
		return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(%scount=%lld): negative count",
				     arg, (long long)count);
	if (unlikely(!michi_dt_ok(dt)))
		return michi_err_type(c, fname, dt);
	return MPI_SUCCESS;
}

/* A (buf, count, datatype) triple; buf may be NULL only when empty. */
static int coll_check_buf(struct michi_comm *c, const char *fname, const char *arg,
			  const void *buf, MPI_Count count, MPI_Datatype dt)
{
	int err = coll_check_count(c, fname, arg, count, dt);

	if (err)
		return err;
	if (unlikely(!buf) && count > 0 && michi_dt_null_buf_bad(dt))
		return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
				     "(%sbuf=NULL, %scount=%lld): NULL buffer with a positive count",
				     arg, arg, (long long)count);
	return MPI_SUCCESS;
}

static int coll_check_root(struct michi_comm *c, const char *fname, int root)
{
	if (unlikely((unsigned)root >= (unsigned)c->size))
		return michi_mpi_err(c, MPI_ERR_ROOT, fname,
				     "(root=%d): root out of range, communicator has %d ranks",
				     root, c->size);
	return MPI_SUCCESS;
}

static int coll_err_inplace(struct michi_comm *c, const char *fname, const char *arg,
			    const char *why)
{
	return michi_mpi_err(c, MPI_ERR_BUFFER, fname, "(%s=MPI_IN_PLACE): %s", arg, why);
}

static int coll_err_alias(struct michi_comm *c, const char *fname)
{
	return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
			     "(sendbuf=recvbuf): the buffers alias; use MPI_IN_PLACE");
}

/* Count i of a v collective's array, with its sign (for the checks). */
static inline MPI_Count v_count(const struct coll_v *v, int i)
{
	return v->wide_counts ? ((const MPI_Count *)v->counts)[i]
			      : (MPI_Count)((const int *)v->counts)[i];
}

/* Whether a v collective's counts move anything: empty buffers may share an
 * address (Python's empty arrays do), which is no aliasing. */
static int v_any_count(const struct michi_comm *c, const struct coll_v *v)
{
	int i;

	for (i = 0; i < c->size; i++)
		if (v_count(v, i) > 0)
			return 1;
	return 0;
}

/* A v form's arrays as coll_v, from an int form (wide 0) or a _c one. */
#define COLL_V(cs, ds, wide) { (cs), (ds), (wide), (wide) }

static int coll_check_v_wide(struct michi_comm *c, const char *fname, const char *arg,
			     const void *buf, const MPI_Count *counts, MPI_Datatype dt)
{
	int i, err;

	for (i = 0; i < c->size; i++) {
		if (unlikely(counts[i] < 0))
			return michi_mpi_err(c, MPI_ERR_COUNT, fname,
					     "(%scounts[%d]=%lld): negative count", arg, i,
					     (long long)counts[i]);
		if ((err = coll_check_buf(c, fname, arg, buf, counts[i], dt)))
			return err;
	}
	return MPI_SUCCESS;
}

/* counts/displs arrays of a v collective: present, counts non-negative */
static int coll_check_v(struct michi_comm *c, const char *fname, const char *arg,
			const void *buf, const struct coll_v *v, MPI_Datatype dt)
{
	int i, err;

	if (unlikely(!v->counts))
		return michi_mpi_err(c, MPI_ERR_ARG, fname, "(%scounts=NULL): NULL pointer", arg);
	if (unlikely(!v->displs))
		return michi_mpi_err(c, MPI_ERR_ARG, fname,
				     "(displs=NULL): NULL pointer for the %s side", arg);
	/* the width outside the loop: the int forms check as before */
	if (v->wide_counts)
		return coll_check_v_wide(c, fname, arg, buf, v->counts, dt);
	for (i = 0; i < c->size; i++) {
		int n = ((const int *)v->counts)[i];

		if (unlikely(n < 0))
			return michi_mpi_err(c, MPI_ERR_COUNT, fname,
					     "(%scounts[%d]=%d): negative count", arg, i, n);
		if ((err = coll_check_buf(c, fname, arg, buf, n, dt)))
			return err;
	}
	return MPI_SUCCESS;
}

/* The start of every collective: initialised, an intracommunicator, and
 * for the nonblocking form a place for the request. */
static int coll_enter(struct michi_comm *c, MPI_Comm comm, MPI_Request *request, int nb,
		      const char *fname)
{
	if (ERRCHK && unlikely(!michi_state.active))
		return michi_not_initialized(fname);
	if (unlikely(!c))
		return michi_check_comm_slow(comm, fname);
	if (nb && unlikely(!request))
		return michi_err_null(c, fname, "request");
	return MPI_SUCCESS;
}

/* The info argument of a persistent collective: MPI_INFO_NULL or an info
 * object. No key changes what Michi does yet; MPI lets it ignore them. */
static int coll_info_check(MPI_Comm comm, MPI_Info info, const char *fname)
{
	if (ERRCHK && info != MPI_INFO_NULL && !michi_info_get(info))
		return michi_mpi_err(michi_comm_get(comm), MPI_ERR_INFO, fname,
				     "(info=0x%x): not a valid info object", (unsigned)info);
	return MPI_SUCCESS;
}

/* ---- datatypes -------------------------------------------------------------- */

/* 1 when count instances of dt are count * extent bytes at the buffer. */
static inline int coll_contig(MPI_Datatype dt)
{
	return likely(michi_dt_builtin_valid(dt)) || michi_dt_check(dt) == 0;
}

/* Bytes of count instances as the algorithms move them. */
static size_t coll_bytes(MPI_Datatype dt, MPI_Count count)
{
	return coll_contig(dt) ? (size_t)count * (size_t)michi_dt_extent(dt)
			       : michi_dt_packed(dt, count);
}

/*
 * Blocks of a derived type's data that a schedule packs into scratch when
 * it starts (data to send: a call step before the algorithm's) or
 * unpacks when it ends (data received: a call step after them). Steps,
 * so that a persistent collective does it again on every run.
 */
struct unstage_blk {
	char *user;
	char *packed;
	MPI_Count count;
	MPI_Datatype dt;
};

struct unstage {
	int n, pack;
	struct unstage_blk b[];
};

static michi_status_t unstage_fn(struct coll_sched *s, void *arg)
{
	struct unstage *u = arg;
	int i;

	(void)s;
	for (i = 0; i < u->n; i++) {
		struct unstage_blk *b = &u->b[i];
		size_t bytes = michi_dt_packed(b->dt, b->count);

		if (u->pack)
			michi_dt_pack(b->user, b->count, b->dt, b->packed, bytes);
		else
			michi_dt_unpack(b->packed, bytes, b->user, b->count, b->dt);
	}
	return MICHI_OK;
}

/* Room for n blocks; a packing list is appended to s at once, so its
 * step runs before whatever the caller adds next. */
static struct unstage *unstage_new(struct coll_sched *s, int n, int pack)
{
	struct unstage *u = coll_sched_tmp(s, sizeof(*u) + (size_t)n * sizeof(struct unstage_blk));

	if (!u)
		return NULL;
	u->n = 0;
	u->pack = pack;
	if (pack && coll_sched_call(s, unstage_fn, u))
		return NULL;
	return u;
}

static int unstage_add(struct coll_sched *s, struct unstage *u, void *user, char *packed,
		       MPI_Count count, MPI_Datatype dt)
{
	struct unstage_blk *b;

	if (count <= 0)
		return 0;
	b = &u->b[u->n++];
	b->user = user;
	b->packed = packed;
	b->count = count;
	b->dt = dt;
	return coll_keep_dt(s, dt);
}

/* Append the unpacking of u at the end of the schedule. */
static void unstage_finish(struct coll_sched *s, struct unstage *u)
{
	if (!u || !u->n)
		return;
	coll_sched_fence(s);
	coll_sched_call(s, unstage_fn, u);
}

/*
 * A buffer of n blocks as the algorithms see it (coll_block): block i is
 * coll_v_count(v, i) (or ucount) elements of dt at coll_v_displ(v, i)
 * (or i * ucount) extents from buf. A type that is not contiguous is
 * replaced by its packed form in scratch, the blocks back to back: `pack`
 * adds the step that fills it (data to send, or in place), `*u` (when
 * given) gets the blocks to unpack at the end (data received). Returns
 * 0, or -1 out of memory.
 */
struct side {
	void *buf;
	const struct coll_v *v;   /* the layout: the caller's, or own */
	struct coll_v own;
	size_t unit;              /* bytes per element as laid out */
};

static int side_of(struct coll_sched *s, struct side *out, const void *buf,
		   const struct coll_v *v, size_t ucount, MPI_Datatype dt, int n, int pack,
		   struct unstage **u)
{
	size_t size, total = 0;
	intptr_t *pd = NULL;
	struct unstage *pk = NULL;
	char *packed;
	int i;

	if (coll_contig(dt)) {
		out->buf = (void *)buf;
		out->v = v;
		out->unit = (size_t)michi_dt_extent(dt);
		return 0;
	}
	size = (size_t)michi_dt_size(dt);
	if (v && !(pd = coll_sched_tmp(s, (size_t)n * sizeof(*pd))))
		return -1;
	for (i = 0; i < n; i++) {
		if (pd)
			pd[i] = (intptr_t)total;
		total += coll_v_count(v, i, ucount);
	}
	if (!(packed = coll_sched_tmp(s, total * size)))
		return -1;
	if (pack && !(pk = unstage_new(s, n, 1)))
		return -1;
	if (u && !(*u = unstage_new(s, n, 0)))
		return -1;
	for (i = 0; i < n; i++) {
		size_t cnt = coll_v_count(v, i, ucount);
		char *ub = (char *)buf + coll_v_displ(v, i, ucount) * michi_dt_extent(dt);
		char *pb = packed + (pd ? (size_t)pd[i] : (size_t)i * ucount) * size;

		if (pk && unstage_add(s, pk, ub, pb, (MPI_Count)cnt, dt))
			return -1;
		if (u && unstage_add(s, *u, ub, pb, (MPI_Count)cnt, dt))
			return -1;
	}
	out->buf = packed;
	out->v = NULL;
	if (v) {
		out->own = *v;
		out->own.displs = pd;
		out->own.wide_displs = 1;
		out->v = &out->own;
	}
	out->unit = size;
	return 0;
}

/* ---- barrier and broadcast --------------------------------------------------- */

static int barrier_common(MPI_Comm comm, MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local) {
		s = coll_new_inter(c, COLL_TAG_BARRIER, NULL);
		COLL_BUILD_AND_GO(c, s, coll_build_inter_barrier(s), request, nb, fname);
	}
	s = coll_new(c, COLL_TAG_BARRIER, NULL);
	COLL_BUILD_AND_GO(c, s, coll_build_barrier(s), request, nb, fname);
}

int PMPI_Barrier(MPI_Comm comm)
{
	return barrier_common(comm, NULL, 0, "MPI_Barrier");
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
	return barrier_common(comm, request, 1, "MPI_Ibarrier");
}

static int bcast_common(void *buffer, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
			MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct unstage *u = NULL;
	struct coll_sched *s;
	struct coll_comm cc;
	struct side sd;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_bcast(c, buffer, count, dt, root, request, nb, fname);
	if (ERRCHK) {
		if ((err = coll_check_buf(c, fname, "", buffer, count, dt)) ||
		    (err = coll_check_root(c, fname, root)))
			return err;
		if (buffer == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "buffer", "not allowed in a broadcast");
	}
	michi_coll_comm(c, &cc);
	/* small, blocking and contiguous: the tree without a schedule */
	if (!nb && michi_dt_builtin_valid(dt) &&
	    coll_direct_bcast_ok(&cc, (size_t)count * michi_dt_size(dt)))
		return coll_done(c, coll_direct_bcast(&cc, buffer, (size_t)count * michi_dt_size(dt),
						      root), fname);
	if (!(s = coll_new_cc(&cc, COLL_TAG_BCAST, NULL)))
		return michi_err_nomem(c, fname);
	if (!side_of(s, &sd, buffer, NULL, (size_t)count, dt, 1, c->rank == root,
		     c->rank == root ? NULL : &u) &&
	    !coll_build_bcast(s, sd.buf, (size_t)count * sd.unit, root))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	return bcast_common(buffer, count, datatype, root, comm, NULL, 0, "MPI_Bcast");
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
		MPI_Request *request)
{
	return bcast_common(buffer, count, datatype, root, comm, request, 1, "MPI_Ibcast");
}

/* ---- reductions ------------------------------------------------------------ */

static void coll_op_apply(const struct coll_op *o, const void *in, void *inout, size_t count)
{
	michi_op_apply((MPI_Op)o->op, in, inout, (MPI_Count)count, (MPI_Datatype)o->dtype);
}

static void coll_op_of(struct coll_op *o, MPI_Op op, MPI_Datatype dt)
{
	o->apply = coll_op_apply;
	o->op = (uint32_t)op;
	o->dtype = (uint32_t)dt;
	o->extent = (size_t)michi_dt_extent(dt);
	o->commute = michi_op_commutes(op);
}

/*
 * User ops over types that are not contiguous: the algorithms move and
 * combine whole extents, holes and all (the op's function reads the
 * layout), which needs every instance's data inside [0, extent). The
 * result goes through scratch and is copied into recvbuf element by
 * element at the end, so the holes of recvbuf stay as they were.
 */
static int within_extent(MPI_Datatype dt)
{
	struct michi_dt_info in;

	return michi_dt_info(dt, &in) == 0 && in.lb == 0 && in.true_lb >= 0 &&
	       in.true_ub <= in.ub;
}

struct typed_out {
	const char *scratch;
	char *packed;
	void *user;
	MPI_Count count;
	MPI_Datatype dt;
};

static michi_status_t typed_out_fn(struct coll_sched *s, void *arg)
{
	struct typed_out *t = arg;
	size_t bytes = michi_dt_packed(t->dt, t->count);

	(void)s;
	michi_dt_pack(t->scratch, t->count, t->dt, t->packed, bytes);
	michi_dt_unpack(t->packed, bytes, t->user, t->count, t->dt);
	return MICHI_OK;
}

/* The buffer the algorithm writes the result of count instances of dt
 * into: rbuf itself for contiguous types, else scratch (holding rbuf's
 * bytes first when `in` says the input is there) that *t copies back. */
static void *result_buf(struct coll_sched *s, void *rbuf, MPI_Count count, MPI_Datatype dt,
			int in, struct typed_out **t)
{
	size_t bytes = (size_t)count * (size_t)michi_dt_extent(dt);
	char *scratch;

	*t = NULL;
	if (coll_contig(dt) || !rbuf || count <= 0)
		return rbuf;
	if (!(scratch = coll_sched_tmp(s, bytes)) || !(*t = coll_sched_tmp(s, sizeof(**t))) ||
	    !((*t)->packed = coll_sched_tmp(s, michi_dt_packed(dt, count))))
		return NULL;
	/* a step: a persistent collective's input is in rbuf at every start */
	if ((in && coll_sched_copy(s, rbuf, scratch, bytes)) || coll_keep_dt(s, dt))
		return NULL;
	(*t)->scratch = scratch;
	(*t)->user = rbuf;
	(*t)->count = count;
	(*t)->dt = dt;
	return scratch;
}

static void typed_out_finish(struct coll_sched *s, struct typed_out *t)
{
	if (!t)
		return;
	coll_sched_fence(s);
	coll_sched_call(s, typed_out_fn, t);
}

/*
 * The checks every reduction shares: the op on the type (predefined ops
 * are defined on predefined types only, MPI-3.1 5.9.2; user ops over
 * types that are not contiguous are not supported yet), the send side,
 * and, where this rank receives, the receive side.
 */
static int coll_check_reduce(struct michi_comm *c, const char *fname, const void *sendbuf,
			     const void *recvbuf, MPI_Count count, MPI_Datatype dt, MPI_Op op,
			     int receives)
{
	int err;

	if (unlikely(count < 0))
		return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(count=%lld): negative count",
				     (long long)count);
	if (unlikely(!coll_contig(dt)) && michi_dt_ok(dt)) {
		if (michi_op_is_predefined(op))
			return michi_mpi_err(c, MPI_ERR_OP, fname,
					     "(op=%s, datatype=0x%x): predefined ops are defined "
					     "on predefined datatypes only", michi_op_name(op),
					     (unsigned)dt);
		if (!within_extent(dt))
			return michi_mpi_err(c, MPI_ERR_TYPE, fname,
					     "(datatype=0x%x): user ops over derived datatypes whose "
					     "data reaches outside [lb, ub) or whose lb is not 0 are "
					     "not supported", (unsigned)dt);
	}
	if (sendbuf != MPI_IN_PLACE && (err = coll_check_buf(c, fname, "", sendbuf, count, dt)))
		return err;
	if (unlikely(!michi_dt_ok(dt)))
		return michi_err_type(c, fname, dt);
	if (unlikely(michi_op_check(op, dt)))
		return michi_err_op(c, fname, op, dt);
	if (!receives)
		return MPI_SUCCESS;
	if (unlikely(!recvbuf) && count > 0)
		return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
				     "(recvbuf=NULL, count=%lld): NULL buffer with a positive count",
				     (long long)count);
	if (unlikely(recvbuf == MPI_IN_PLACE))
		return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
	if (unlikely(sendbuf == recvbuf) && count > 0)
		return coll_err_alias(c, fname);
	return MPI_SUCCESS;
}

static int reduce_common(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
			 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request, int nb,
			 const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct typed_out *t = NULL;
	struct coll_comm cc;
	struct coll_op o;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_reduce(c, sendbuf, recvbuf, count, NULL, 0, dt, op, root, request, nb,
				    fname);
	if (ERRCHK) {
		if ((err = coll_check_root(c, fname, root)) ||
		    (err = coll_check_reduce(c, fname, sendbuf, recvbuf, count, dt, op,
					     c->rank == root)))
			return err;
		if (c->rank != root && sendbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "sendbuf", "only the root may pass it");
	}
	coll_op_of(&o, op, dt);
	michi_coll_comm(c, &cc);
	/* small, blocking and contiguous: the tree without a schedule */
	if (!nb && count > 0 && michi_dt_builtin_valid(dt) &&
	    coll_direct_reduce_ok(&cc, &o, (size_t)count))
		return coll_done(c, coll_direct_reduce(&cc, &o, sendbuf == MPI_IN_PLACE ? NULL :
						       sendbuf, recvbuf, (size_t)count, root),
				 fname);
	if (!(s = coll_new_cc(&cc, COLL_TAG_REDUCE, &o)))
		return michi_err_nomem(c, fname);
	if (count > 0) {
		int inplace = sendbuf == MPI_IN_PLACE;
		void *rb = c->rank == root ? result_buf(s, recvbuf, count, dt, inplace, &t) : NULL;

		if ((c->rank != root || rb) &&
		    !coll_build_reduce(s, inplace ? NULL : sendbuf, rb, (size_t)count, root))
			typed_out_finish(s, t);
	}
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		MPI_Op op, int root, MPI_Comm comm)
{
	return reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm, NULL, 0,
			     "MPI_Reduce");
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		 MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	return reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm, request, 1,
			     "MPI_Ireduce");
}

static int allreduce_common(const void *sendbuf, void *recvbuf, MPI_Count count,
			    MPI_Datatype dt,
			    MPI_Op op, MPI_Comm comm, MPI_Request *request, int nb,
			    const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct typed_out *t = NULL;
	struct coll_op o;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_reduce(c, sendbuf, recvbuf, count, NULL, 0, dt, op, INTER_ALLREDUCE,
				    request, nb, fname);
	if (ERRCHK && (err = coll_check_reduce(c, fname, sendbuf, recvbuf, count, dt, op, 1)))
		return err;
	coll_op_of(&o, op, dt);
	if (!(s = coll_new(c, COLL_TAG_ALLREDUCE, &o)))
		return michi_err_nomem(c, fname);
	if (count > 0) {
		int inplace = sendbuf == MPI_IN_PLACE;
		void *rb = result_buf(s, recvbuf, count, dt, inplace, &t);

		if (rb && !coll_build_allreduce(s, inplace ? NULL : sendbuf, rb, (size_t)count))
			typed_out_finish(s, t);
	}
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		   MPI_Op op, MPI_Comm comm)
{
	return allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, 0,
				"MPI_Allreduce");
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, request, 1,
				"MPI_Iallreduce");
}

/* Reduce-scatter(_block): counts NULL is the block form of rcount each
 * (counts->displs unused). */
static int reduce_scatter_common(const void *sendbuf, void *recvbuf, const struct coll_v *counts,
				 MPI_Count rcount, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
				 MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct typed_out *t = NULL;
	struct coll_op o;
	MPI_Count total = 0, mine;
	int err, i;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_reduce(c, sendbuf, recvbuf, 0, counts, rcount, dt, op, INTER_REDSCAT,
				    request, nb, fname);
	if (ERRCHK && counts == NULL && rcount < 0)
		return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(recvcount=%lld): negative count",
				     (long long)rcount);
	for (i = 0; counts && i < c->size; i++) {
		MPI_Count n = v_count(counts, i);

		if (ERRCHK && n < 0)
			return michi_mpi_err(c, MPI_ERR_COUNT, fname,
					     "(recvcounts[%d]=%lld): negative count", i,
					     (long long)n);
		total += n;
	}
	if (!counts)
		total = rcount * c->size;
	mine = counts ? v_count(counts, c->rank) : rcount;
	if (ERRCHK && (err = coll_check_reduce(c, fname, sendbuf, recvbuf, total, dt, op, 0)))
		return err;
	if (ERRCHK && mine > 0) {
		if (!recvbuf)
			return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
					     "(recvbuf=NULL): NULL buffer with a positive count");
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf",
						"only sendbuf may be MPI_IN_PLACE");
		if (sendbuf == recvbuf)
			return coll_err_alias(c, fname);
	}
	coll_op_of(&o, op, dt);
	if (!(s = coll_new(c, COLL_TAG_REDUCE_SCATTER, &o)))
		return michi_err_nomem(c, fname);
	if (total > 0) {
		const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
		void *rb = result_buf(s, recvbuf, mine, dt, 0, &t);

		if ((rb || !recvbuf) &&
		    !coll_build_reduce_scatter(s, in == rb ? NULL : in, rb, counts,
					       (size_t)rcount))
			typed_out_finish(s, t);
	}
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
			MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 0);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Reduce_scatter", "recvcounts");
	return reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm, NULL,
				     COLL_BLOCKING, "MPI_Reduce_scatter");
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
			 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 0);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Ireduce_scatter", "recvcounts");
	return reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm, request,
				     COLL_NB, "MPI_Ireduce_scatter");
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, NULL,
				     COLL_BLOCKING, "MPI_Reduce_scatter_block");
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
			       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
			       MPI_Request *request)
{
	return reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm,
				     request, COLL_NB, "MPI_Ireduce_scatter_block");
}

static int scan_common(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype dt,
		       MPI_Op op, MPI_Comm comm, MPI_Request *request, int nb, int exclusive,
		       const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_sched *s;
	struct typed_out *t = NULL;
	struct coll_op o;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return coll_intra_only(c, fname);
	if (ERRCHK && (err = coll_check_reduce(c, fname, sendbuf, recvbuf, count, dt, op, 1)))
		return err;
	coll_op_of(&o, op, dt);
	if (!(s = coll_new(c, COLL_TAG_SCAN, &o)))
		return michi_err_nomem(c, fname);
	if (count > 0) {
		int inplace = sendbuf == MPI_IN_PLACE;
		/* exscan leaves rank 0's recvbuf alone */
		void *rb = result_buf(s, recvbuf, exclusive && c->rank == 0 ? 0 : count, dt,
				      inplace, &t);

		if ((rb || (exclusive && c->rank == 0)) &&
		    !coll_build_scan_recdbl(s, inplace ? NULL : sendbuf, rb ? rb : recvbuf,
					    (size_t)count, exclusive))
			typed_out_finish(s, t);
	}
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	      MPI_Comm comm)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, 0, 0, "MPI_Scan");
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
	       MPI_Comm comm, MPI_Request *request)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, request, 1, 0,
			   "MPI_Iscan");
}

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		MPI_Op op, MPI_Comm comm)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, 0, 1, "MPI_Exscan");
}

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, request, 1, 1,
			   "MPI_Iexscan");
}

/* ---- gather and scatter ------------------------------------------------------ */

/* The root's receive side of a gather / send side of a scatter. */
static int coll_check_rootbuf(struct michi_comm *c, const char *fname, const char *arg,
			      const void *buf, const struct coll_v *v, MPI_Count count,
			      MPI_Datatype dt)
{
	if (v)
		return coll_check_v(c, fname, arg, buf, v, dt);
	return coll_check_buf(c, fname, arg, buf, count, dt);
}

/*
 * The argument checks a rooted gather or scatter shares: every rank's own
 * buffer ("send" for a gather, "recv" for a scatter), which only the root may
 * pass as MPI_IN_PLACE, and the root's buffer on the other side.
 */
static int coll_check_rooted(struct michi_comm *c, const char *fname, int root, int gather,
			     const void *mine, MPI_Count count, MPI_Datatype dt,
			     const void *rootbuf, const struct coll_v *v, MPI_Count rootcount,
			     MPI_Datatype roottype)
{
	const char *side = gather ? "send" : "recv", *other = gather ? "recv" : "send";
	const char *sidebuf = gather ? "sendbuf" : "recvbuf";
	const char *otherbuf = gather ? "recvbuf" : "sendbuf";
	int err;

	if ((err = coll_check_root(c, fname, root)))
		return err;
	if (mine == MPI_IN_PLACE) {
		if (c->rank != root)
			return coll_err_inplace(c, fname, sidebuf, "only the root may pass it");
	} else if ((err = coll_check_buf(c, fname, side, mine, count, dt))) {
		return err;
	}
	if (c->rank != root)
		return MPI_SUCCESS;
	if ((err = coll_check_rootbuf(c, fname, other, rootbuf, v, rootcount, roottype)))
		return err;
	if (rootbuf == MPI_IN_PLACE)
		return coll_err_inplace(c, fname, otherbuf, gather ?
					"only sendbuf may be MPI_IN_PLACE" :
					"only recvbuf may be MPI_IN_PLACE");
	return MPI_SUCCESS;
}

static int gather_common(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			 void *recvbuf, const struct coll_v *rv, MPI_Count recvcount,
			 MPI_Datatype recvtype, int root, int vform, MPI_Comm comm,
			 MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE, isroot;
	struct side snd = { .buf = NULL }, rcv = { .buf = NULL };
	struct unstage *u = NULL;
	struct coll_sched *s;
	struct coll_comm cc;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_rooted(c, 1, sendbuf, sendcount, sendtype, recvbuf, rv, recvcount,
				    recvtype, root, vform, request, nb, fname);
	if (ERRCHK && (err = coll_check_rooted(c, fname, root, 1, sendbuf, sendcount, sendtype,
					       recvbuf, rv, recvcount, recvtype)))
		return err;
	isroot = c->rank == root;
	michi_coll_comm(c, &cc);
	/* small, blocking, uniform and predefined: the tree without a schedule */
	if (!nb && !vform && michi_dt_builtin_valid(inplace ? recvtype : sendtype) &&
	    (!isroot || michi_dt_builtin_valid(recvtype))) {
		size_t blen = inplace ? (size_t)recvcount * michi_dt_size(recvtype)
				      : (size_t)sendcount * michi_dt_size(sendtype);

		if ((!isroot || blen == (size_t)recvcount * michi_dt_size(recvtype)) &&
		    coll_direct_gather_ok(&cc, blen))
			return coll_done(c, coll_direct_gather(&cc, inplace ? NULL : sendbuf,
							       isroot ? recvbuf : NULL, blen, root),
					 fname);
	}
	if (!(s = coll_new_cc(&cc, COLL_TAG_GATHER, NULL)))
		return michi_err_nomem(c, fname);
	s->blocking = nb == COLL_BLOCKING;
	if ((inplace || !side_of(s, &snd, sendbuf, NULL, (size_t)sendcount, sendtype, 1, 1,
				 NULL)) &&
	    (!isroot || !side_of(s, &rcv, recvbuf, rv, (size_t)recvcount, recvtype, c->size,
				 inplace, &u)) &&
	    !coll_build_gather(s, inplace ? NULL : snd.buf,
			       inplace ? 0 : (size_t)sendcount * snd.unit, rcv.buf, rcv.v,
			       (size_t)recvcount, rcv.unit, root, vform))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
			     root, 0, comm, NULL, COLL_BLOCKING, "MPI_Gather");
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		 MPI_Request *request)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
			     root, 0, comm, request, COLL_NB, "MPI_Igather");
}

/* Only the root reads the arrays of a rooted v collective; a NULL one
 * elsewhere is legal. *out: v at the root, else NULL. */
static int rooted_v(MPI_Comm comm, int root, const struct coll_v *v, const char *fname,
		    const char *arg, const struct coll_v **out)
{
	struct michi_comm *c = michi_comm_get(comm);

	*out = NULL;
	if (!c || (c->local ? root != MPI_ROOT
		   : (unsigned)root >= (unsigned)c->size || c->rank != root))
		return MPI_SUCCESS;
	if (ERRCHK && !v->counts)
		return michi_err_null(c, fname, arg);
	*out = v;
	return MPI_SUCCESS;
}

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		 MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Gatherv", "recvcounts", &rv);

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, NULL, COLL_BLOCKING, "MPI_Gatherv");
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		  MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Igatherv", "recvcounts", &rv);

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, request, COLL_NB, "MPI_Igatherv");
}

static int scatter_common(const void *sendbuf, const struct coll_v *sv, MPI_Count sendcount,
			  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
			  MPI_Datatype recvtype, int root, int vform, MPI_Comm comm,
			  MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = recvbuf == MPI_IN_PLACE, isroot;
	struct side snd = { .buf = NULL }, rcv = { .buf = NULL };
	struct unstage *u = NULL;
	struct coll_sched *s;
	struct coll_comm cc;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_rooted(c, 0, recvbuf, recvcount, recvtype, sendbuf, sv, sendcount,
				    sendtype, root, vform, request, nb, fname);
	if (ERRCHK && (err = coll_check_rooted(c, fname, root, 0, recvbuf, recvcount, recvtype,
					       sendbuf, sv, sendcount, sendtype)))
		return err;
	isroot = c->rank == root;
	michi_coll_comm(c, &cc);
	/* small, blocking, uniform and predefined: the tree without a schedule */
	if (!nb && !vform && michi_dt_builtin_valid(inplace ? sendtype : recvtype) &&
	    (!isroot || michi_dt_builtin_valid(sendtype))) {
		size_t blen = inplace ? (size_t)sendcount * michi_dt_size(sendtype)
				      : (size_t)recvcount * michi_dt_size(recvtype);

		if ((!isroot || blen == (size_t)sendcount * michi_dt_size(sendtype)) &&
		    coll_direct_scatter_ok(&cc, blen))
			return coll_done(c, coll_direct_scatter(&cc, isroot ? sendbuf : NULL,
								inplace ? NULL : recvbuf, blen, root),
					 fname);
	}
	if (!(s = coll_new_cc(&cc, COLL_TAG_SCATTER, NULL)))
		return michi_err_nomem(c, fname);
	s->blocking = nb == COLL_BLOCKING;
	if ((!isroot || !side_of(s, &snd, sendbuf, sv, (size_t)sendcount, sendtype, c->size, 1,
				 NULL)) &&
	    (inplace || !side_of(s, &rcv, recvbuf, NULL, (size_t)recvcount, recvtype, 1, 0,
				 &u)) &&
	    !coll_build_scatter(s, snd.buf, snd.v, (size_t)sendcount, snd.unit,
				inplace ? NULL : rcv.buf, inplace ? 0 : (size_t)recvcount * rcv.unit,
				root, vform))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype,
			      root, 0, comm, NULL, COLL_BLOCKING, "MPI_Scatter");
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	return scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype,
			      root, 0, comm, request, COLL_NB, "MPI_Iscatter");
}

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		  int root, MPI_Comm comm)
{
	struct coll_v v = COLL_V(sendcounts, displs, 0);
	const struct coll_v *sv;
	int err = rooted_v(comm, root, &v, "MPI_Scatterv", "sendcounts", &sv);

	return err ? err : scatter_common(sendbuf, sv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, NULL, COLL_BLOCKING, "MPI_Scatterv");
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
		   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		   int root, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(sendcounts, displs, 0);
	const struct coll_v *sv;
	int err = rooted_v(comm, root, &v, "MPI_Iscatterv", "sendcounts", &sv);

	return err ? err : scatter_common(sendbuf, sv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, request, COLL_NB, "MPI_Iscatterv");
}

/* ---- allgather and alltoall ---------------------------------------------------- */

static int allgather_common(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			    void *recvbuf, const struct coll_v *rv, MPI_Count recvcount,
			    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int nb,
			    const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	struct side snd = { .buf = NULL }, rcv;
	struct unstage *u = NULL;
	struct coll_sched *s;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return inter_allgather(c, sendbuf, sendcount, sendtype, recvbuf, rv, recvcount,
				       recvtype, request, nb, fname);
	if (ERRCHK) {
		if (!inplace && (err = coll_check_buf(c, fname, "send", sendbuf, sendcount, sendtype)))
			return err;
		if ((err = coll_check_rootbuf(c, fname, "recv", recvbuf, rv, recvcount, recvtype)))
			return err;
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
	}
	if (!(s = coll_new(c, COLL_TAG_ALLGATHER, NULL)))
		return michi_err_nomem(c, fname);
	if ((inplace || !side_of(s, &snd, sendbuf, NULL, (size_t)sendcount, sendtype, 1, 1,
				 NULL)) &&
	    !side_of(s, &rcv, recvbuf, rv, (size_t)recvcount, recvtype, c->size, inplace, &u) &&
	    !coll_build_allgather(s, inplace ? NULL : snd.buf,
				  inplace ? 0 : (size_t)sendcount * snd.unit, rcv.buf, rcv.v,
				  (size_t)recvcount, rcv.unit))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
				comm, NULL, COLL_BLOCKING, "MPI_Allgather");
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
				comm, request, COLL_NB, "MPI_Iallgather");
}

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		    MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Allgatherv", "recvcounts");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype, comm,
				NULL, COLL_BLOCKING, "MPI_Allgatherv");
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
		     MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Iallgatherv", "recvcounts");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype, comm,
				request, COLL_NB, "MPI_Iallgatherv");
}

/* Alltoall(v) on an intercommunicator: the blocks of both sides for the
 * pairwise exchange with the remote group. */
static int inter_alltoall(struct coll_sched *s, const struct side *snd, size_t sucount,
			  const struct side *rcv, size_t rucount)
{
	int i, n = s->c.size;
	size_t *lens = coll_sched_tmp(s, 2 * (size_t)n * (sizeof(size_t) + sizeof(char *)));
	char **ptrs;

	if (!lens)
		return -1;
	ptrs = (char **)(lens + 2 * n);
	for (i = 0; i < n; i++) {
		ptrs[i] = coll_block(snd->buf, snd->v, sucount, snd->unit, i, &lens[i]);
		ptrs[n + i] = coll_block(rcv->buf, rcv->v, rucount, rcv->unit, i, &lens[n + i]);
	}
	return coll_build_inter_alltoallw(s, (const char *const *)ptrs, lens, ptrs + n, lens + n);
}

static int alltoall_common(const void *sendbuf, const struct coll_v *sv, MPI_Count sendcount,
			   MPI_Datatype sendtype, void *recvbuf, const struct coll_v *rv,
			   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			   MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE;
	struct side snd = { .buf = NULL }, rcv;
	struct unstage *u = NULL;
	struct coll_sched *s;
	int err;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (ERRCHK) {
		if (!inplace && (err = coll_check_rootbuf(c, fname, "send", sendbuf, sv, sendcount,
							  sendtype)))
			return err;
		if ((err = coll_check_rootbuf(c, fname, "recv", recvbuf, rv, recvcount, recvtype)))
			return err;
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
		if (!inplace && sendbuf == recvbuf && (rv ? v_any_count(c, rv) : recvcount > 0))
			return coll_err_alias(c, fname);
	}
	if (ERRCHK && c->local && inplace)
		return coll_err_inplace(c, fname, "sendbuf", "not allowed on an intercommunicator");
	s = c->local ? coll_new_inter(c, COLL_TAG_ALLTOALL, NULL)
		     : coll_new(c, COLL_TAG_ALLTOALL, NULL);
	if (!s)
		return michi_err_nomem(c, fname);
	if ((inplace || !side_of(s, &snd, sendbuf, sv, (size_t)sendcount, sendtype, c->size, 1,
				 NULL)) &&
	    !side_of(s, &rcv, recvbuf, rv, (size_t)recvcount, recvtype, c->size, inplace, &u) &&
	    !(c->local
	      ? inter_alltoall(s, &snd, (size_t)sendcount, &rcv, (size_t)recvcount)
	      : coll_build_alltoall(s, inplace ? NULL : snd.buf, snd.v, (size_t)sendcount,
				    snd.unit, rcv.buf, rcv.v, (size_t)recvcount, rcv.unit)))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL, recvcount,
			       recvtype, comm, NULL, COLL_BLOCKING, "MPI_Alltoall");
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL, recvcount,
			       recvtype, comm, request, COLL_NB, "MPI_Ialltoall");
}

/* The arrays of an alltoallv: checked, and sv NULL in place. */
static int alltoallv_arrays(MPI_Comm comm, const void *sendbuf, const struct coll_v *sv,
			    const struct coll_v *rv, const char *fname)
{
	if (ERRCHK && !rv->counts)
		return michi_err_null(michi_comm_get(comm), fname, "recvcounts");
	if (ERRCHK && sendbuf != MPI_IN_PLACE && !sv->counts)
		return michi_err_null(michi_comm_get(comm), fname, "sendcounts");
	return MPI_SUCCESS;
}

static int alltoallv_go(const void *sendbuf, const struct coll_v *sv, MPI_Datatype sendtype,
			void *recvbuf, const struct coll_v *rv, MPI_Datatype recvtype,
			MPI_Comm comm, MPI_Request *request, int nb, const char *fname)
{
	int err = alltoallv_arrays(comm, sendbuf, sv, rv, fname);

	return err ? err : alltoall_common(sendbuf, sendbuf == MPI_IN_PLACE ? NULL : sv, 0,
					   sendtype, recvbuf, rv, 0, recvtype, comm, request, nb,
					   fname);
}

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);

	return alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, NULL,
			    COLL_BLOCKING, "MPI_Alltoallv");
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
		    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
		    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
		    MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);

	return alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, request,
			    COLL_NB, "MPI_Ialltoallv");
}

/*
 * Alltoallw: a type per peer and displacements in bytes (coll_v read
 * with no unit). Blocks of types that are not contiguous go through
 * scratch one by one; in place, the receive layout describes both sides
 * and the schedule sends from a copy it takes when it starts.
 */
static int alltoallw_common(const void *sendbuf, const struct coll_v *sv,
			    const MPI_Datatype *stypes, void *recvbuf, const struct coll_v *rv,
			    const MPI_Datatype *rtypes, MPI_Comm comm, MPI_Request *request,
			    int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int inplace = sendbuf == MPI_IN_PLACE, n, i, err;
	struct unstage *u = NULL, *pk = NULL;
	struct coll_sched *s;
	size_t *lens;
	char **ptrs, *base = NULL;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	n = c->size;
	if (ERRCHK) {
		char arg[32];

		if (!rv->counts || !rv->displs || !rtypes)
			return michi_err_null(c, fname, !rv->counts ? "recvcounts" : !rv->displs ?
					      "rdispls" : "recvtypes");
		if (!inplace && (!sv->counts || !sv->displs || !stypes))
			return michi_err_null(c, fname, !sv->counts ? "sendcounts" : !sv->displs ?
					      "sdispls" : "sendtypes");
		if (recvbuf == MPI_IN_PLACE)
			return coll_err_inplace(c, fname, "recvbuf", "only sendbuf may be MPI_IN_PLACE");
		for (i = 0; i < n; i++) {
			snprintf(arg, sizeof(arg), "recv[%d]: ", i);
			if ((err = coll_check_count(c, fname, arg, v_count(rv, i), rtypes[i])))
				return err;
			snprintf(arg, sizeof(arg), "send[%d]: ", i);
			if (!inplace &&
			    (err = coll_check_count(c, fname, arg, v_count(sv, i), stypes[i])))
				return err;
		}
	}
	if (ERRCHK && c->local && inplace)
		return coll_err_inplace(c, fname, "sendbuf", "not allowed on an intercommunicator");
	s = c->local ? coll_new_inter(c, COLL_TAG_ALLTOALL, NULL)
		     : coll_new(c, COLL_TAG_ALLTOALL, NULL);
	if (!s)
		return michi_err_nomem(c, fname);
	if (!(lens = coll_sched_tmp(s, 2 * (size_t)n * (sizeof(size_t) + sizeof(char *)))))
		goto go;
	ptrs = (char **)(lens + 2 * n);
	if (inplace) {
		/* the data to send is what the receive buffer holds at the start */
		size_t span = 0;

		for (i = 0; i < n; i++) {
			size_t end = (size_t)coll_v_displ(rv, i, 0) +
				     coll_v_count(rv, i, 0) * (size_t)michi_dt_extent(rtypes[i]);

			span = end > span ? end : span;
		}
		if (!(base = coll_sched_tmp(s, span)) || coll_sched_copy(s, recvbuf, base, span))
			goto go;
		sendbuf = base;
		sv = rv;
		stypes = rtypes;
	}
	if (!(u = unstage_new(s, n, 0)))
		goto go;
	for (i = 0; i < n; i++) {
		MPI_Datatype st = stypes[i], rt = rtypes[i];
		MPI_Count sc = (MPI_Count)coll_v_count(sv, i, 0), rc = (MPI_Count)coll_v_count(rv,
				i, 0);

		ptrs[i] = (char *)sendbuf + coll_v_displ(sv, i, 0);
		ptrs[n + i] = (char *)recvbuf + coll_v_displ(rv, i, 0);
		lens[i] = coll_bytes(st, sc);
		lens[n + i] = coll_bytes(rt, rc);
		if (!coll_contig(st) && sc) {
			char *p = coll_sched_tmp(s, lens[i]);

			/* the packing step, made at the first such block, comes
			 * before the algorithm's steps */
			if (!p || (!pk && !(pk = unstage_new(s, n, 1))) ||
			    unstage_add(s, pk, ptrs[i], p, sc, st))
				goto go;
			ptrs[i] = p;
		}
		if (!coll_contig(rt) && rc) {
			char *p = coll_sched_tmp(s, lens[n + i]);

			if (!p || unstage_add(s, u, ptrs[n + i], p, rc, rt))
				goto go;
			ptrs[n + i] = p;
		}
	}
	if (!(c->local ? coll_build_inter_alltoallw(s, (const char *const *)ptrs, lens, ptrs + n,
						   lens + n)
	      : coll_build_alltoallw_pairwise(s, (const char *const *)ptrs, lens, ptrs + n,
					      lens + n)))
		unstage_finish(s, u);
go:
	return coll_go(c, s, request, nb, fname);
}

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
		   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
		   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);

	return alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm, NULL,
				COLL_BLOCKING, "MPI_Alltoallw");
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
		    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
		    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
		    MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);

	return alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm, request,
				COLL_NB, "MPI_Ialltoallw");
}

/* ---- neighbourhood collectives ---------------------------------------------------- */

/*
 * The neighbourhood collectives of one topology communicator. Block i of
 * the receive side comes from in-neighbour i; the send side is one block
 * for every out-neighbour (allgather: the same block) or block j for
 * out-neighbour j. Layouts: v NULL is the uniform one of ucount
 * elements; displacements count elements (v forms), or bytes with a type
 * per block (w forms, types non-NULL).
 */
struct nbr_side {
	const void *buf;
	struct coll_v v;         /* counts NULL: uniform */
	const MPI_Datatype *types;
	MPI_Count ucount;
	MPI_Datatype dt;
	int same;                /* one block for every neighbour */
};

static int nbr_check(struct michi_comm *c, const char *fname, const char *arg,
		     const struct nbr_side *sd, int n)
{
	char a[32];
	int i, err;

	for (i = 0; i < (sd->same ? 1 : n); i++) {
		MPI_Count cnt = sd->v.counts ? v_count(&sd->v, i) : sd->ucount;
		MPI_Datatype dt = sd->types ? sd->types[i] : sd->dt;

		snprintf(a, sizeof(a), "%s[%d]: ", arg, i);
		if ((err = sd->types ? coll_check_count(c, fname, a, cnt, dt)
				     : coll_check_buf(c, fname, sd->same ? arg : a, sd->buf, cnt, dt)))
			return err;
	}
	return MPI_SUCCESS;
}

/* Address and bytes of block i, packed into scratch when the schedule
 * starts (send, into pk) or unpacked at the end (receive, into u) when
 * its type is not contiguous. */
static int nbr_block(struct coll_sched *s, const struct nbr_side *sd, int i, int n,
		     struct unstage **pk, struct unstage *u, char **p, size_t *len)
{
	int k = sd->same ? 0 : i;
	const struct coll_v *v = sd->v.counts ? &sd->v : NULL;
	MPI_Count cnt = (MPI_Count)coll_v_count(v, k, (size_t)sd->ucount);
	MPI_Datatype dt = sd->types ? sd->types[k] : sd->dt;
	char *b = (char *)sd->buf + (sd->same ? 0 : sd->types ? coll_v_displ(v, k, 0) :
		  coll_v_displ(v, k, (size_t)sd->ucount) * michi_dt_extent(dt));

	*len = coll_bytes(dt, cnt);
	*p = b;
	if (coll_contig(dt) || !cnt)
		return 0;
	if (!(*p = coll_sched_tmp(s, *len)))
		return -1;
	if (!u && !*pk && !(*pk = unstage_new(s, n, 1)))   /* first: before the algorithm */
		return -1;
	return unstage_add(s, u ? u : *pk, b, *p, cnt, dt);
}

static int neighbor_common(MPI_Comm comm, const struct nbr_side *snd, const struct nbr_side *rcv,
			   MPI_Request *request, int nb, const char *fname)
{
	struct michi_comm *c = michi_comm_get(comm);
	int nin, nout, cart, i, err;
	struct unstage *u, *pk = NULL;
	struct coll_sched *s;
	size_t *lens;
	char **ptrs;
	int *in, *out;

	if ((err = coll_enter(c, comm, request, nb, fname)))
		return err;
	if (c->local)
		return coll_intra_only(c, fname);
	cart = michi_topo_neighbors(c, &nin, &nout, NULL, NULL);
	if (cart < 0)
		return michi_mpi_err(c, MPI_ERR_TOPOLOGY, fname,
				     "(comm): the communicator has no virtual topology");
	if (ERRCHK && ((err = nbr_check(c, fname, "send", snd, nout)) ||
		       (err = nbr_check(c, fname, "recv", rcv, nin))))
		return err;
	if (!(s = coll_new(c, COLL_TAG_NEIGHBOR, NULL)))
		return michi_err_nomem(c, fname);
	if (!(in = coll_sched_tmp(s, (size_t)(nin + nout + 1) * sizeof(int))) ||
	    !(lens = coll_sched_tmp(s, (size_t)(nin + nout + 1) * (sizeof(size_t) + sizeof(char *)))) ||
	    !(u = unstage_new(s, nin, 0)))
		goto go;
	out = in + nin;
	ptrs = (char **)(lens + nin + nout + 1);
	michi_topo_neighbors(c, &nin, &nout, in, out);
	/* MPI_PROC_NULL neighbours move nothing: their blocks stay as they are */
	for (i = 0; i < nin; i++)
		if (in[i] != MPI_PROC_NULL && nbr_block(s, rcv, i, nin, NULL, u, &ptrs[i], &lens[i]))
			goto go;
	for (i = 0; i < nout; i++)
		if (out[i] != MPI_PROC_NULL &&
		    nbr_block(s, snd, i, nout, &pk, NULL, &ptrs[nin + i], &lens[nin + i]))
			goto go;
	if (!coll_build_neighbor(s, nin, in, ptrs, lens, nout, out,
				 (const char *const *)ptrs + nin, lens + nin, cart))
		unstage_finish(s, u);
go:
	return coll_go(c, s, request, nb, fname);
}

#define NBR_SEND_ONE(b, n, t) { .buf = (b), .ucount = (n), .dt = (t), .same = 1 }
#define NBR_BLOCKS(b, n, t) { .buf = (b), .ucount = (n), .dt = (t) }
#define NBR_V(b, cs, ds, t, w) { .buf = (b), .v = COLL_V(cs, ds, w), .dt = (t) }
/* the w forms' displacements are MPI_Aint in both forms */
#define NBR_W(b, cs, ds, ts, w) { .buf = (b), .v = { (cs), (ds), (w), 1 }, .types = (ts) }

static int nbr_v_arrays(MPI_Comm comm, const void *sc, const void *sd, const void *rc,
			const void *rd, const char *fname)
{
	if (ERRCHK && (!sc || !sd || !rc || !rd))
		return michi_err_null(michi_comm_get(comm), fname, !sc ? "sendcounts" :
				      !sd ? "sdispls" : !rc ? "recvcounts" : "rdispls");
	return MPI_SUCCESS;
}

static int nbr_allgather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			 MPI_Request *request, int nb, const char *fname)
{
	struct nbr_side s = NBR_SEND_ONE(sendbuf, sendcount, sendtype),
			r = NBR_BLOCKS(recvbuf, recvcount, recvtype);

	return neighbor_common(comm, &s, &r, request, nb, fname);
}

static int nbr_allgatherv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			  void *recvbuf, const void *recvcounts, const void *displs, int wide,
			  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int nb,
			  const char *fname)
{
	struct nbr_side s = NBR_SEND_ONE(sendbuf, sendcount, sendtype),
			r = NBR_V(recvbuf, recvcounts, displs, recvtype, wide);

	if (ERRCHK && (!recvcounts || !displs))
		return michi_err_null(michi_comm_get(comm), fname,
				      !recvcounts ? "recvcounts" : "displs");
	return neighbor_common(comm, &s, &r, request, nb, fname);
}

static int nbr_alltoall(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			MPI_Request *request, int nb, const char *fname)
{
	struct nbr_side s = NBR_BLOCKS(sendbuf, sendcount, sendtype),
			r = NBR_BLOCKS(recvbuf, recvcount, recvtype);

	return neighbor_common(comm, &s, &r, request, nb, fname);
}

static int nbr_alltoallv(const void *sendbuf, const void *sendcounts, const void *sdispls,
			 MPI_Datatype sendtype, void *recvbuf, const void *recvcounts,
			 const void *rdispls, int wide, MPI_Datatype recvtype, MPI_Comm comm,
			 MPI_Request *request, int nb, const char *fname)
{
	struct nbr_side s = NBR_V(sendbuf, sendcounts, sdispls, sendtype, wide),
			r = NBR_V(recvbuf, recvcounts, rdispls, recvtype, wide);
	int err = nbr_v_arrays(comm, sendcounts, sdispls, recvcounts, rdispls, fname);

	return err ? err : neighbor_common(comm, &s, &r, request, nb, fname);
}

static int nbr_alltoallw(const void *sendbuf, const void *sendcounts, const MPI_Aint *sdispls,
			 const MPI_Datatype *sendtypes, void *recvbuf, const void *recvcounts,
			 const MPI_Aint *rdispls, const MPI_Datatype *recvtypes, int wide,
			 MPI_Comm comm, MPI_Request *request, int nb, const char *fname)
{
	struct nbr_side s = NBR_W(sendbuf, sendcounts, sdispls, sendtypes, wide),
			r = NBR_W(recvbuf, recvcounts, rdispls, recvtypes, wide);
	int err = nbr_v_arrays(comm, sendcounts, sdispls, recvcounts, rdispls, fname);

	if (!err && ERRCHK && (!sendtypes || !recvtypes))
		err = michi_err_null(michi_comm_get(comm), fname,
				     !sendtypes ? "sendtypes" : "recvtypes");
	return err ? err : neighbor_common(comm, &s, &r, request, nb, fname);
}

/* ---- intercommunicators --------------------------------------------------------- */

/* The caller's part in a rooted collective on intercommunicator c. */
static int inter_role(struct michi_comm *c, int root, const char *fname, int *role)
{
	if (root == MPI_ROOT)
		*role = COLL_ROOT_SELF;
	else if (root == MPI_PROC_NULL)
		*role = COLL_ROOT_NONE;
	else if ((unsigned)root < (unsigned)c->size)
		*role = COLL_ROOT_REMOTE;
	else
		return michi_mpi_err(c, MPI_ERR_ROOT, fname, "(root=%d): on an intercommunicator "
				     "the root is MPI_ROOT, MPI_PROC_NULL or a rank of the remote "
				     "group, which has %d ranks", root, c->size);
	return MPI_SUCCESS;
}

static int inter_no_inplace(struct michi_comm *c, const void *a, const void *b,
			    const char *fname)
{
	if (a == MPI_IN_PLACE || b == MPI_IN_PLACE)
		return coll_err_inplace(c, fname, a == MPI_IN_PLACE ? "sendbuf" : "recvbuf",
					"not allowed on an intercommunicator");
	return MPI_SUCCESS;
}

static int inter_bcast(struct michi_comm *c, void *buf, MPI_Count count, MPI_Datatype dt,
		       int root, MPI_Request *request, int nb, const char *fname)
{
	struct unstage *u = NULL;
	struct coll_sched *s;
	struct side sd;
	int role, err;

	if ((err = inter_role(c, root, fname, &role)))
		return err;
	if (ERRCHK && role != COLL_ROOT_NONE &&
	    (err = coll_check_buf(c, fname, "", buf, count, dt)))
		return err;
	if (!(s = coll_new_inter(c, COLL_TAG_BCAST, NULL)))
		return michi_err_nomem(c, fname);
	if (role == COLL_ROOT_NONE ||
	    (!side_of(s, &sd, buf, NULL, (size_t)count, dt, 1, role == COLL_ROOT_SELF,
		      role == COLL_ROOT_SELF ? NULL : &u) &&
	     !coll_build_inter_bcast(s, sd.buf, (size_t)count * sd.unit, role, root)))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}

/* Reduce (root >= -3), allreduce (INTER_ALLREDUCE) and reduce-scatter
 * (counts or rcount, INTER_REDSCAT) on an intercommunicator. */
static int inter_reduce(struct michi_comm *c, const void *sbuf, void *rbuf, MPI_Count count,
			const struct coll_v *counts, MPI_Count rcount, MPI_Datatype dt, MPI_Op op,
			int root, MPI_Request *request, int nb, const char *fname)
{
	int role = COLL_ROOT_REMOTE, err, i, tag;
	int lsize = c->local->size, receives;
	struct typed_out *t = NULL;
	struct coll_sched *s;
	struct coll_op o;
	void *rb;

	if (root >= -3 && (err = inter_role(c, root, fname, &role)))
		return err;
	if (ERRCHK && (err = inter_no_inplace(c, sbuf, rbuf, fname)))
		return err;
	if (root == INTER_REDSCAT) {
		MPI_Count total = 0;

		for (i = 0; i < lsize; i++) {
			MPI_Count k = counts ? v_count(counts, i) : rcount;

			if (ERRCHK && k < 0)
				return michi_mpi_err(c, MPI_ERR_COUNT, fname,
						     "(recvcount%s[%d]=%lld): negative count",
						     counts ? "s" : "", i, (long long)k);
			total += k;
		}
		count = total;
	}
	receives = root == INTER_ALLREDUCE || role == COLL_ROOT_SELF;
	if (ERRCHK && role != COLL_ROOT_NONE &&
	    (err = coll_check_reduce(c, fname, role == COLL_ROOT_SELF ? MPI_IN_PLACE : sbuf,
				     rbuf, count, dt, op, receives)))
		return err;
	coll_op_of(&o, op, dt);
	tag = root == INTER_ALLREDUCE ? COLL_TAG_ALLREDUCE :
	      root == INTER_REDSCAT ? COLL_TAG_REDUCE_SCATTER : COLL_TAG_REDUCE;
	if (!(s = coll_new_inter(c, tag, &o)))
		return michi_err_nomem(c, fname);
	if (role == COLL_ROOT_NONE || count == 0)
		goto go;
	if (root == INTER_REDSCAT) {
		MPI_Count mine = counts ? v_count(counts, c->local->rank) : rcount;

		if ((rb = result_buf(s, rbuf, mine, dt, 0, &t)) || !mine)
			if (!coll_build_inter_reduce_scatter(s, sbuf, rb, counts, (size_t)rcount))
				typed_out_finish(s, t);
		goto go;
	}
	rb = receives ? result_buf(s, rbuf, count, dt, 0, &t) : NULL;
	if (receives && !rb)
		goto go;
	if (!(root == INTER_ALLREDUCE
	      ? coll_build_inter_allreduce(s, sbuf, rb, (size_t)count)
	      : coll_build_inter_reduce(s, sbuf, rb, (size_t)count, role, root)))
		typed_out_finish(s, t);
go:
	return coll_go(c, s, request, nb, fname);
}

/* Gather (gather 1) and scatter (0): `mine` is every non-root rank's
 * buffer, the root's is described by counts/displs or ucount. */
static int inter_rooted(struct michi_comm *c, int gather, const void *mine, MPI_Count mcount,
			MPI_Datatype mtype, const void *rootbuf, const struct coll_v *v,
			MPI_Count ucount, MPI_Datatype rtype, int root, int vform,
			MPI_Request *request, int nb, const char *fname)
{
	struct side own = { .buf = NULL }, all = { .buf = NULL };
	struct unstage *u = NULL;
	struct coll_sched *s;
	int role, err;

	if ((err = inter_role(c, root, fname, &role)))
		return err;
	if (ERRCHK && role != COLL_ROOT_NONE &&
	    (err = inter_no_inplace(c, mine, rootbuf, fname)))
		return err;
	if (ERRCHK && role == COLL_ROOT_REMOTE &&
	    (err = coll_check_buf(c, fname, gather ? "send" : "recv", mine, mcount, mtype)))
		return err;
	if (ERRCHK && role == COLL_ROOT_SELF &&
	    (err = coll_check_rootbuf(c, fname, gather ? "recv" : "send", rootbuf, v, ucount,
				      rtype)))
		return err;
	if (!(s = coll_new_inter(c, gather ? COLL_TAG_GATHER : COLL_TAG_SCATTER, NULL)))
		return michi_err_nomem(c, fname);
	if (role == COLL_ROOT_NONE)
		goto go;
	if (role == COLL_ROOT_SELF
	    ? side_of(s, &all, rootbuf, v, (size_t)ucount, rtype, c->size, !gather,
		      gather ? &u : NULL)
	    : side_of(s, &own, mine, NULL, (size_t)mcount, mtype, 1, gather, gather ? NULL : &u))
		goto go;
	if (!(gather
	      ? coll_build_inter_gather(s, own.buf, (size_t)mcount * own.unit, all.buf, all.v,
					(size_t)ucount, all.unit, role, root, vform)
	      : coll_build_inter_scatter(s, all.buf, all.v, (size_t)ucount, all.unit, own.buf,
					 (size_t)mcount * own.unit, role, root, vform)))
		unstage_finish(s, u);
go:
	return coll_go(c, s, request, nb, fname);
}

static int inter_allgather(struct michi_comm *c, const void *sbuf, MPI_Count scount,
			   MPI_Datatype stype, void *rbuf, const struct coll_v *v, MPI_Count rcount,
			   MPI_Datatype rtype, MPI_Request *request, int nb, const char *fname)
{
	struct side snd = { .buf = NULL }, rcv = { .buf = NULL };
	struct unstage *u = NULL;
	struct coll_sched *s;
	int err;

	if (ERRCHK && ((err = inter_no_inplace(c, sbuf, rbuf, fname)) ||
		       (err = coll_check_buf(c, fname, "send", sbuf, scount, stype)) ||
		       (err = coll_check_rootbuf(c, fname, "recv", rbuf, v, rcount, rtype))))
		return err;
	if (!(s = coll_new_inter(c, COLL_TAG_ALLGATHER, NULL)))
		return michi_err_nomem(c, fname);
	if (!side_of(s, &snd, sbuf, NULL, (size_t)scount, stype, 1, 1, NULL) &&
	    !side_of(s, &rcv, rbuf, v, (size_t)rcount, rtype, c->size, 0, &u) &&
	    !coll_build_inter_allgather(s, snd.buf, (size_t)scount * snd.unit, rcv.buf, rcv.v,
					(size_t)rcount, rcv.unit))
		unstage_finish(s, u);
	return coll_go(c, s, request, nb, fname);
}
/* ---- the neighbourhood collectives' int forms ---------------------------------- */

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			     NULL, COLL_BLOCKING, "MPI_Neighbor_allgather");
}

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			     void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			     MPI_Request *request)
{
	return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			     request, COLL_NB, "MPI_Ineighbor_allgather");
}

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			     void *recvbuf, const int recvcounts[], const int displs[],
			     MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
			      recvtype, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_allgatherv");
}

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			      void *recvbuf, const int recvcounts[], const int displs[],
			      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 0,
			      recvtype, comm, request, COLL_NB, "MPI_Ineighbor_allgatherv");
}

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			   void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL,
			    COLL_BLOCKING, "MPI_Neighbor_alltoall");
}

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			    void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			    MPI_Request *request)
{
	return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			    request, COLL_NB, "MPI_Ineighbor_alltoall");
}

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
			    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
			    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
			     0, recvtype, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_alltoallv");
}

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
			     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
			     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
			     MPI_Request *request)
{
	return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
			     0, recvtype, comm, request, COLL_NB, "MPI_Ineighbor_alltoallv");
}

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
			    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
			    MPI_Comm comm)
{
	return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
			     recvtypes, 0, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_alltoallw");
}

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
			     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
			     MPI_Comm comm, MPI_Request *request)
{
	return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
			     recvtypes, 0, comm, request, COLL_NB, "MPI_Ineighbor_alltoallw");
}

/* ---- large counts (MPI-4.0 _c): the same calls with MPI_Count counts ----------- */

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
				comm, NULL, COLL_BLOCKING, "MPI_Allgather_c");
}

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
		      MPI_Request *request)
{
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
				comm, request, COLL_NB, "MPI_Iallgather_c");
}

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
		      MPI_Datatype recvtype, MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Allgatherv_c", "recvcounts");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype, comm, NULL,
				COLL_BLOCKING, "MPI_Allgatherv_c");
}

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
		       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Iallgatherv_c", "recvcounts");
	return allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype, comm,
				request, COLL_NB, "MPI_Iallgatherv_c");
}

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		     MPI_Op op, MPI_Comm comm)
{
	return allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, COLL_BLOCKING,
				"MPI_Allreduce_c");
}

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, request, COLL_NB,
				"MPI_Iallreduce_c");
}

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	return alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL, recvcount,
			       recvtype, comm, NULL, COLL_BLOCKING, "MPI_Alltoall_c");
}

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
		     MPI_Request *request)
{
	return alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL, recvcount,
			       recvtype, comm, request, COLL_NB, "MPI_Ialltoall_c");
}

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
		     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
		     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);

	return alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, NULL,
			    COLL_BLOCKING, "MPI_Alltoallv_c");
}

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
		      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
		      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
		      MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);

	return alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm, request, COLL_NB,
			    "MPI_Ialltoallv_c");
}

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
		     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
		     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);

	return alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm, NULL,
				COLL_BLOCKING, "MPI_Alltoallw_c");
}

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
		      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
		      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
		      MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);

	return alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm, request,
				COLL_NB, "MPI_Ialltoallw_c");
}

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
	return bcast_common(buffer, count, datatype, root, comm, NULL, COLL_BLOCKING,
			    "MPI_Bcast_c");
}

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
		  MPI_Request *request)
{
	return bcast_common(buffer, count, datatype, root, comm, request, COLL_NB, "MPI_Ibcast_c");
}

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		  MPI_Op op, MPI_Comm comm)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, COLL_BLOCKING, 1,
			   "MPI_Exscan_c");
}

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, request, COLL_NB, 1,
			   "MPI_Iexscan_c");
}

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
			     root, 0, comm, NULL, COLL_BLOCKING, "MPI_Gather_c");
}

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		   MPI_Request *request)
{
	return gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount, recvtype,
			     root, 0, comm, request, COLL_NB, "MPI_Igather_c");
}

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
		   int root, MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Gatherv_c", "recvcounts", &rv);

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, NULL, COLL_BLOCKING, "MPI_Gatherv_c");
}

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
		    int root, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Igatherv_c", "recvcounts", &rv);

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, request, COLL_NB, "MPI_Igatherv_c");
}

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		  MPI_Op op, int root, MPI_Comm comm)
{
	return reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm, NULL,
			     COLL_BLOCKING, "MPI_Reduce_c");
}

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
	return reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm, request, COLL_NB,
			     "MPI_Ireduce_c");
}

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
			  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 1);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Reduce_scatter_c", "recvcounts");
	return reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm, NULL,
				     COLL_BLOCKING, "MPI_Reduce_scatter_c");
}

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
			   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 1);

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Ireduce_scatter_c", "recvcounts");
	return reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm, request, COLL_NB,
				     "MPI_Ireduce_scatter_c");
}

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
				MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
	return reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, NULL,
				     COLL_BLOCKING, "MPI_Reduce_scatter_block_c");
}

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
				 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
				 MPI_Request *request)
{
	return reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm,
				     request, COLL_NB, "MPI_Ireduce_scatter_block_c");
}

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		MPI_Op op, MPI_Comm comm)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, NULL, COLL_BLOCKING, 0,
			   "MPI_Scan_c");
}

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
	return scan_common(sendbuf, recvbuf, count, datatype, op, comm, request, COLL_NB, 0,
			   "MPI_Iscan_c");
}

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	return scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype,
			      root, 0, comm, NULL, COLL_BLOCKING, "MPI_Scatter_c");
}

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
		    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
		    MPI_Request *request)
{
	return scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount, recvtype,
			      root, 0, comm, request, COLL_NB, "MPI_Iscatter_c");
}

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
		    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
	struct coll_v v = COLL_V(sendcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Scatterv_c", "sendcounts", &rv);

	return err ? err : scatter_common(sendbuf, rv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, NULL, COLL_BLOCKING, "MPI_Scatterv_c");
}

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
		     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
		     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
	struct coll_v v = COLL_V(sendcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Iscatterv_c", "sendcounts", &rv);

	return err ? err : scatter_common(sendbuf, rv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, request, COLL_NB, "MPI_Iscatterv_c");
}

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
			      MPI_Comm comm)
{
	return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			     NULL, COLL_BLOCKING, "MPI_Neighbor_allgather_c");
}

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
			       MPI_Comm comm, MPI_Request *request)
{
	return nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			     request, COLL_NB, "MPI_Ineighbor_allgather_c");
}

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			       void *recvbuf, const MPI_Count recvcounts[],
			       const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1,
			      recvtype, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_allgatherv_c");
}

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
				void *recvbuf, const MPI_Count recvcounts[],
				const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
				MPI_Request *request)
{
	return nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, 1,
			      recvtype, comm, request, COLL_NB, "MPI_Ineighbor_allgatherv_c");
}

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
			     MPI_Comm comm)
{
	return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL,
			    COLL_BLOCKING, "MPI_Neighbor_alltoall_c");
}

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
			      MPI_Comm comm, MPI_Request *request)
{
	return nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			    request, COLL_NB, "MPI_Ineighbor_alltoall_c");
}

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
			      const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
			      const MPI_Count recvcounts[], const MPI_Aint rdispls[],
			      MPI_Datatype recvtype, MPI_Comm comm)
{
	return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
			     1, recvtype, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_alltoallv_c");
}

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
			       const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
			       const MPI_Count recvcounts[], const MPI_Aint rdispls[],
			       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
	return nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
			     1, recvtype, comm, request, COLL_NB, "MPI_Ineighbor_alltoallv_c");
}

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
			      const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
			      void *recvbuf, const MPI_Count recvcounts[],
			      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
			      MPI_Comm comm)
{
	return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
			     recvtypes, 1, comm, NULL, COLL_BLOCKING, "MPI_Neighbor_alltoallw_c");
}

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
			       const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
			       void *recvbuf, const MPI_Count recvcounts[],
			       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
			       MPI_Comm comm, MPI_Request *request)
{
	return nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
			     recvtypes, 1, comm, request, COLL_NB, "MPI_Ineighbor_alltoallw_c");
}

/* ---- persistent collectives (MPI-4.0): built at init, run at every MPI_Start ---- */

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Allgather_init");

	return err ? err : allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount,
					    recvtype, comm, request, COLL_PERSIST,
					    "MPI_Allgather_init");
}

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			  MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Allgather_init_c");

	return err ? err : allgather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount,
					    recvtype, comm, request, COLL_PERSIST,
					    "MPI_Allgather_init_c");
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
			 const int recvcounts[], const int displs[], MPI_Datatype recvtype,
			 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);
	int err = coll_info_check(comm, info, "MPI_Allgatherv_init");

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Allgatherv_init", "recvcounts");
	return err ? err : allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype,
					    comm, request, COLL_PERSIST, "MPI_Allgatherv_init");
}

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			   void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
			   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			   MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);
	int err = coll_info_check(comm, info, "MPI_Allgatherv_init_c");

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Allgatherv_init_c", "recvcounts");
	return err ? err : allgather_common(sendbuf, sendcount, sendtype, recvbuf, &v, 0, recvtype,
					    comm, request, COLL_PERSIST, "MPI_Allgatherv_init_c");
}

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
			MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Allreduce_init");

	return err ? err : allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, request,
					    COLL_PERSIST, "MPI_Allreduce_init");
}

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
			  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
			  MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Allreduce_init_c");

	return err ? err : allreduce_common(sendbuf, recvbuf, count, datatype, op, comm, request,
					    COLL_PERSIST, "MPI_Allreduce_init_c");
}

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
		       MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Alltoall_init");

	return err ? err : alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL,
					   recvcount, recvtype, comm, request, COLL_PERSIST,
					   "MPI_Alltoall_init");
}

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			 MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Alltoall_init_c");

	return err ? err : alltoall_common(sendbuf, NULL, sendcount, sendtype, recvbuf, NULL,
					   recvcount, recvtype, comm, request, COLL_PERSIST,
					   "MPI_Alltoall_init_c");
}

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
			MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
			const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);
	int err = coll_info_check(comm, info, "MPI_Alltoallv_init");

	return err ? err : alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm,
					request, COLL_PERSIST, "MPI_Alltoallv_init");
}

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			  const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
			  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
			  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
			  MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);
	int err = coll_info_check(comm, info, "MPI_Alltoallv_init_c");

	return err ? err : alltoallv_go(sendbuf, &sv, sendtype, recvbuf, &rv, recvtype, comm,
					request, COLL_PERSIST, "MPI_Alltoallv_init_c");
}

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
			const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
			const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
			MPI_Info info, MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 0), rv = COLL_V(recvcounts, rdispls, 0);
	int err = coll_info_check(comm, info, "MPI_Alltoallw_init");

	return err ? err : alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm,
					    request, COLL_PERSIST, "MPI_Alltoallw_init");
}

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
			  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
			  const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
			  MPI_Request *request)
{
	struct coll_v sv = COLL_V(sendcounts, sdispls, 1), rv = COLL_V(recvcounts, rdispls, 1);
	int err = coll_info_check(comm, info, "MPI_Alltoallw_init_c");

	return err ? err : alltoallw_common(sendbuf, &sv, sendtypes, recvbuf, &rv, recvtypes, comm,
					    request, COLL_PERSIST, "MPI_Alltoallw_init_c");
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Barrier_init");

	return err ? err : barrier_common(comm, request, COLL_PERSIST, "MPI_Barrier_init");
}

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Bcast_init");

	return err ? err : bcast_common(buffer, count, datatype, root, comm, request, COLL_PERSIST,
					"MPI_Bcast_init");
}

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
		      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Bcast_init_c");

	return err ? err : bcast_common(buffer, count, datatype, root, comm, request, COLL_PERSIST,
					"MPI_Bcast_init_c");
}

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Exscan_init");

	return err ? err : scan_common(sendbuf, recvbuf, count, datatype, op, comm, request,
				       COLL_PERSIST, 1, "MPI_Exscan_init");
}

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Exscan_init_c");

	return err ? err : scan_common(sendbuf, recvbuf, count, datatype, op, comm, request,
				       COLL_PERSIST, 1, "MPI_Exscan_init_c");
}

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
		     MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Gather_init");

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount,
					 recvtype, root, 0, comm, request, COLL_PERSIST,
					 "MPI_Gather_init");
}

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
		       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
		       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Gather_init_c");

	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, NULL, recvcount,
					 recvtype, root, 0, comm, request, COLL_PERSIST,
					 "MPI_Gather_init_c");
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
		      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 0);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Gatherv_init", "recvcounts", &rv);

	if (!err)
		err = coll_info_check(comm, info, "MPI_Gatherv_init");
	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, request, COLL_PERSIST, "MPI_Gatherv_init");
}

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
			MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
			MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Gatherv_init_c", "recvcounts", &rv);

	if (!err)
		err = coll_info_check(comm, info, "MPI_Gatherv_init_c");
	return err ? err : gather_common(sendbuf, sendcount, sendtype, recvbuf, rv, 0, recvtype,
					 root, 1, comm, request, COLL_PERSIST,
					 "MPI_Gatherv_init_c");
}

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
		     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Reduce_init");

	return err ? err : reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm,
					 request, COLL_PERSIST, "MPI_Reduce_init");
}

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Reduce_init_c");

	return err ? err : reduce_common(sendbuf, recvbuf, count, datatype, op, root, comm,
					 request, COLL_PERSIST, "MPI_Reduce_init_c");
}

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
			     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
			     MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 0);
	int err = coll_info_check(comm, info, "MPI_Reduce_scatter_init");

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Reduce_scatter_init",
				      "recvcounts");
	return err ? err : reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm,
						 request, COLL_PERSIST, "MPI_Reduce_scatter_init");
}

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
			       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
			       MPI_Request *request)
{
	struct coll_v v = COLL_V(recvcounts, NULL, 1);
	int err = coll_info_check(comm, info, "MPI_Reduce_scatter_init_c");

	if (ERRCHK && !recvcounts)
		return michi_err_null(michi_comm_get(comm), "MPI_Reduce_scatter_init_c",
				      "recvcounts");
	return err ? err : reduce_scatter_common(sendbuf, recvbuf, &v, 0, datatype, op, comm,
						 request, COLL_PERSIST,
						 "MPI_Reduce_scatter_init_c");
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
				   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
				   MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Reduce_scatter_block_init");

	return err ? err : reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op,
						 comm, request, COLL_PERSIST,
						 "MPI_Reduce_scatter_block_init");
}

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
				     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
				     MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Reduce_scatter_block_init_c");

	return err ? err : reduce_scatter_common(sendbuf, recvbuf, NULL, recvcount, datatype, op,
						 comm, request, COLL_PERSIST,
						 "MPI_Reduce_scatter_block_init_c");
}

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
		   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Scan_init");

	return err ? err : scan_common(sendbuf, recvbuf, count, datatype, op, comm, request,
				       COLL_PERSIST, 0, "MPI_Scan_init");
}

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
		     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Scan_init_c");

	return err ? err : scan_common(sendbuf, recvbuf, count, datatype, op, comm, request,
				       COLL_PERSIST, 0, "MPI_Scan_init_c");
}

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
		      MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Scatter_init");

	return err ? err : scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount,
					  recvtype, root, 0, comm, request, COLL_PERSIST,
					  "MPI_Scatter_init");
}

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
			void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
			MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Scatter_init_c");

	return err ? err : scatter_common(sendbuf, NULL, sendcount, sendtype, recvbuf, recvcount,
					  recvtype, root, 0, comm, request, COLL_PERSIST,
					  "MPI_Scatter_init_c");
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
		       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
		       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	struct coll_v v = COLL_V(sendcounts, displs, 0);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Scatterv_init", "sendcounts", &rv);

	if (!err)
		err = coll_info_check(comm, info, "MPI_Scatterv_init");
	return err ? err : scatter_common(sendbuf, rv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, request, COLL_PERSIST,
					  "MPI_Scatterv_init");
}

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
			 const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
			 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
			 MPI_Info info, MPI_Request *request)
{
	struct coll_v v = COLL_V(sendcounts, displs, 1);
	const struct coll_v *rv;
	int err = rooted_v(comm, root, &v, "MPI_Scatterv_init_c", "sendcounts", &rv);

	if (!err)
		err = coll_info_check(comm, info, "MPI_Scatterv_init_c");
	return err ? err : scatter_common(sendbuf, rv, 0, sendtype, recvbuf, recvcount, recvtype,
					  root, 1, comm, request, COLL_PERSIST,
					  "MPI_Scatterv_init_c");
}

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				 void *recvbuf, int recvcount, MPI_Datatype recvtype,
				 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_allgather_init");

	return err ? err : nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
					 recvtype, comm, request, COLL_PERSIST,
					 "MPI_Neighbor_allgather_init");
}

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
				   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
				   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_allgather_init_c");

	return err ? err : nbr_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
					 recvtype, comm, request, COLL_PERSIST,
					 "MPI_Neighbor_allgather_init_c");
}

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				  void *recvbuf, const int recvcounts[], const int displs[],
				  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
				  MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_allgatherv_init");

	return err ? err : nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
					  displs, 0, recvtype, comm, request, COLL_PERSIST,
					  "MPI_Neighbor_allgatherv_init");
}

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount,
				    MPI_Datatype sendtype, void *recvbuf,
				    const MPI_Count recvcounts[], const MPI_Aint displs[],
				    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
				    MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_allgatherv_init_c");

	return err ? err : nbr_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
					  displs, 1, recvtype, comm, request, COLL_PERSIST,
					  "MPI_Neighbor_allgatherv_init_c");
}

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
				void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
				MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoall_init");

	return err ? err : nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
					comm, request, COLL_PERSIST, "MPI_Neighbor_alltoall_init");
}

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
				  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
				  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoall_init_c");

	return err ? err : nbr_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
					comm, request, COLL_PERSIST,
					"MPI_Neighbor_alltoall_init_c");
}

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
				 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
				 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
				 MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoallv_init");

	return err ? err : nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
					 recvcounts, rdispls, 0, recvtype, comm, request,
					 COLL_PERSIST, "MPI_Neighbor_alltoallv_init");
}

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
				   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
				   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
				   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
				   MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoallv_init_c");

	return err ? err : nbr_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
					 recvcounts, rdispls, 1, recvtype, comm, request,
					 COLL_PERSIST, "MPI_Neighbor_alltoallv_init_c");
}

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
				 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
				 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
				 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
				 MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoallw_init");

	return err ? err : nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
					 recvcounts, rdispls, recvtypes, 0, comm, request,
					 COLL_PERSIST, "MPI_Neighbor_alltoallw_init");
}

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
				   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
				   void *recvbuf, const MPI_Count recvcounts[],
				   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
				   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
	int err = coll_info_check(comm, info, "MPI_Neighbor_alltoallw_init_c");

	return err ? err : nbr_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
					 recvcounts, rdispls, recvtypes, 1, comm, request,
					 COLL_PERSIST, "MPI_Neighbor_alltoallw_init_c");
}
