/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll/coll.c: how the MPI collective calls are built and run. The
 * calls themselves are beside it: coll_calls.c (on intracommunicators),
 * coll_inter.c (their intercommunicator forms), coll_neighbor.c (the
 * neighbourhood collectives), coll_large.c (the _c forms) and
 * coll_persist.c (the persistent ones); coll_priv.h holds what they
 * share. Each call checks its arguments, builds the
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
#include "coll_priv.h"

#include <stdio.h>
#include <stdlib.h>

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
int coll_intra_only(struct michi_comm *c, const char *fname)
{
	return michi_mpi_err(c, MPI_ERR_COMM, fname,
			     "(comm): an intercommunicator; MPI defines this collective on "
			     "intracommunicators only");
}

static int coll_user_code(struct coll_sched *s);

int coll_done(struct michi_comm *c, michi_status_t st, const char *fname)
{
	if (unlikely(st < 0))
		return michi_mpi_err_status(c, st, fname);
	return MPI_SUCCESS;
}

/*
 * Run a built schedule: to the end when request is NULL (the blocking
 * call), else behind a new request of kind MICHI_REQ_COLL whose MTMI part
 * the schedule completes (mpi/pt2pt/request.c waits on it as on any request).
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
 * MPI_Request_free frees the schedule (mpi/pt2pt/request.c calls the two
 * functions below). Its tags carry COLL_TAG_PERSIST and the number of
 * the init call among c's nonblocking and persistent calls, which every
 * rank makes in the same order:
 * a round's frames then never match another collective's, nonblocking or
 * persistent, and rounds of one request are apart in per-peer order.
 */
int coll_persist(struct michi_comm *c, struct coll_sched *s, MPI_Request *request,
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
int coll_keep_dt(struct coll_sched *s, MPI_Datatype dt)
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
struct coll_sched *coll_new_cc(const struct coll_comm *cc, int tag,
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

struct coll_sched *coll_new(struct michi_comm *c, int tag, const struct coll_op *op)
{
	struct coll_comm cc;

	michi_coll_comm(c, &cc);
	return coll_new_cc(&cc, tag, op);
}

/* A schedule over intercommunicator c, with its local group as the
 * other view. */
struct coll_sched *coll_new_inter(struct michi_comm *c, int tag, const struct coll_op *op)
{
	struct coll_sched *s = coll_new(c, tag, op);
	struct coll_comm lc;

	if (s) {
		michi_coll_comm(c->local, &lc);
		coll_sched_set_alt(s, &lc, tag);
	}
	return s;
}

/* ---- argument checks ---------------------------------------------------- */

/* A count and its datatype. Alone, for a w form's block: its byte
 * displacement may be an absolute address from MPI_BOTTOM (NULL), whatever
 * the type, so its buffer is not checked. */
int coll_check_count(struct michi_comm *c, const char *fname, const char *arg,
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
int coll_check_buf(struct michi_comm *c, const char *fname, const char *arg,
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

int coll_check_root(struct michi_comm *c, const char *fname, int root)
{
	if (unlikely((unsigned)root >= (unsigned)c->size))
		return michi_mpi_err(c, MPI_ERR_ROOT, fname,
				     "(root=%d): root out of range, communicator has %d ranks",
				     root, c->size);
	return MPI_SUCCESS;
}

int coll_err_inplace(struct michi_comm *c, const char *fname, const char *arg,
		     const char *why)
{
	return michi_mpi_err(c, MPI_ERR_BUFFER, fname, "(%s=MPI_IN_PLACE): %s", arg, why);
}

int coll_err_alias(struct michi_comm *c, const char *fname)
{
	return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
			     "(sendbuf=recvbuf): the buffers alias; use MPI_IN_PLACE");
}

/* Whether a v collective's counts move anything: empty buffers may share an
 * address (Python's empty arrays do), which is no aliasing. */
int v_any_count(const struct michi_comm *c, const struct coll_v *v)
{
	int i;

	for (i = 0; i < c->size; i++)
		if (v_count(v, i) > 0)
			return 1;
	return 0;
}

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
int coll_check_v(struct michi_comm *c, const char *fname, const char *arg,
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
int coll_enter(struct michi_comm *c, MPI_Comm comm, MPI_Request *request, int nb,
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
int coll_info_check(MPI_Comm comm, MPI_Info info, const char *fname)
{
	if (ERRCHK && info != MPI_INFO_NULL && !michi_info_get(info))
		return michi_mpi_err(michi_comm_get(comm), MPI_ERR_INFO, fname,
				     "(info=0x%x): not a valid info object", (unsigned)info);
	return MPI_SUCCESS;
}

/* ---- datatypes -------------------------------------------------------------- */

/* Bytes of count instances as the algorithms move them. */
size_t coll_bytes(MPI_Datatype dt, MPI_Count count)
{
	return coll_contig(dt) ? (size_t)count * (size_t)michi_dt_extent(dt)
			       : michi_dt_packed(dt, count);
}

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
struct unstage *unstage_new(struct coll_sched *s, int n, int pack)
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

int unstage_add(struct coll_sched *s, struct unstage *u, void *user, char *packed,
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
void unstage_finish(struct coll_sched *s, struct unstage *u)
{
	if (!u || !u->n)
		return;
	coll_sched_fence(s);
	coll_sched_call(s, unstage_fn, u);
}

int side_of(struct coll_sched *s, struct side *out, const void *buf,
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

