/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/comm_create.c: making and freeing communicators (dup, split,
 * split_type, create, free) and comparing them.
 *
 * Context ids: every communicator owns an even id for point-to-point and
 * the odd one after it for collectives (docs/design.md §3); world has 0, self 2.
 * A process marks the ids it uses in a bitmap; a new communicator takes
 * the lowest id free on every process of the parent, found with one
 * bitwise-AND allreduce of the bitmaps over the parent. Any order of
 * creation across ranks is then safe: an id is taken only when all agree
 * it is free, and freeing only clears the local bit. Children of one
 * split share an id: their members are disjoint, so their messages never
 * meet. User communicators are kept on a list so that MPI_Finalize can
 * empty them (mpi/env/init.c: the fast paths test no state flag).
 */
#include "mpiimpl.h"
#include "schedule.h"
#include "lanes_params.h"
#include "group.h"
#include "info.h"
#include "attr.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

#define CTX_IDS 4096                    /* context ids: 2048 communicators */
#define CTX_WORDS (CTX_IDS / 2 / 32)
_Static_assert(CTX_WORDS == MICHI_CTX_WORDS, "mpiimpl.h knows the map's size");

static uint32_t ctx_used[CTX_WORDS] = { 0x3 };   /* world (0) and self (2) */
static struct michi_comm *comms_live;

static void mask_and(const struct coll_op *o, const void *in, void *inout, size_t count)
{
	const uint32_t *a = in;
	uint32_t *b = inout;
	size_t i;

	(void)o;
	for (i = 0; i < count; i++)
		b[i] &= a[i];
}

/*
 * Threads. Under MPI_THREAD_MULTIPLE two threads may create communicators
 * from different parents at once, and each allreduce waits with the lock
 * given up, so two maps offered at the same time could agree on one id.
 * The map is therefore lent to one allocation at a time (ctx_mask_busy);
 * the others offer an empty map and try again. Which allocation gets the
 * map is the same on every process, so that one of them always sees all
 * its members offer theirs: the waiting allocation with the lowest key
 * (the parent's context id, and the tag of Comm_create_group) goes first,
 * as in MPICH. A flag word ANDed with the map says whether every member
 * offered its map: only then does an empty result mean no id is left.
 * Under threads nobody takes the map in an allocation's first round: that
 * round only gathers its members, so a holder of the map waits for
 * processes that are all running rounds of the same allocation, never for
 * one that has yet to arrive (which could be held up by the map here
 * being lent: MPICH's threads/comm/comm_create_group_threads2 made this
 * cycle, and so did threads/comm/comm_dup_deadlock, where the process
 * that did not come was held up in a dup of MPI_COMM_SELF). Nor does an
 * allocation join the queue before that round: one still waiting for a
 * member at the head of the queue would keep those behind it from the
 * map, and that member may be waiting for them (threads/comm/
 * idup_deadlock). A single thread always finds the map free and needs
 * one round.
 */
struct ctx_waiter {
	uint64_t key;
	struct ctx_waiter *next;
};

static struct ctx_waiter *ctx_queue;    /* waiting allocations, lowest key first */
static int ctx_mask_busy;

/*
 * Nonblocking allocations (MPI_Comm_idup) run their rounds from progress,
 * so they must never hold the map that blocking ones wait for (a process
 * blocked in a dup whose peer's idup held the map would wait on the
 * program's order of calls). They have ids of their own, the last
 * CTX_NB_WORDS words of the map, with their own loan, queue and rule:
 * the same lowest-key-first order, and never the map in a first round.
 * Their rounds only wait for messages, which progress in every waiting
 * call, so a holder always gets its members' rounds.
 */
#define CTX_NB_WORDS 8              /* 256 ids; the blocking ones keep 1792 */
#define CTX_NB_FIRST (CTX_WORDS - CTX_NB_WORDS)

static struct ctx_waiter *ctx_nb_queue;
static int ctx_nb_busy;

/* Offer this process's map (the blocking ids) and mark it lent. */
static void ctx_lend(uint32_t *bits)
{
	int i;

	for (i = 0; i < CTX_WORDS; i++)
		bits[i] = i < CTX_NB_FIRST ? ~ctx_used[i] : 0;
	ctx_mask_busy = 1;
}

static void ctx_enqueue_on(struct ctx_waiter **p, struct ctx_waiter *w)
{

	while (*p && (*p)->key <= w->key)
		p = &(*p)->next;
	w->next = *p;
	*p = w;
}

static void ctx_dequeue_from(struct ctx_waiter **p, struct ctx_waiter *w)
{
	while (*p != w)
		p = &(*p)->next;
	*p = w->next;
}

/*
 * The lowest context id free on every rank of cc (collective over it), in
 * the rounds described above. With `swap`, cc is one of two groups that
 * agree together (the intercommunicator constructors): after the AND over
 * cc, swap trades the result for the other group's on every member of cc
 * (returning an MPI error code, kept in *swap_err), and the map stays lent
 * until both are combined. The swap waits only for processes already in
 * this agreement (the queue rule above), so no cycle forms with a thread
 * blocked elsewhere.
 */
static michi_status_t ctx_rounds(const struct coll_comm *cc, uint64_t key,
				 int (*swap)(void *arg, const uint32_t *mine, uint32_t *theirs,
					     size_t n),
				 void *arg, int *swap_err, uint32_t *ctx)
{
	struct coll_op op = { .apply = mask_and, .extent = sizeof(uint32_t), .commute = 1 };
	uint32_t bits[CTX_WORDS + 1], rbits[CTX_WORDS + 1];
	struct ctx_waiter me = { .key = key };
	unsigned spins = 0;
	michi_status_t st;
	int own, round = 0, queued = !michi_mt, i;

	/* a single thread queues at once; threads after a first round that
	 * gathered every member, so that an allocation still waiting for a
	 * member never stands at the head in the way of those behind it */
	if (queued)
		ctx_enqueue_on(&ctx_queue, &me);
	for (;;) {
		own = queued && !ctx_mask_busy && ctx_queue == &me;
		round++;
		if (own)
			ctx_lend(bits);
		else
			memset(bits, 0, sizeof(uint32_t) * CTX_WORDS);
		bits[CTX_WORDS] = (uint32_t)own;
		st = coll_allreduce_recdbl(cc, NULL, bits, CTX_WORDS + 1, &op);
		if (st >= 0 && swap && (*swap_err = swap(arg, bits, rbits, sizeof(bits))))
			st = MICHI_ERR_PEER;
		if (own)
			ctx_mask_busy = 0;
		if (st < 0)
			break;
		for (i = 0; swap && i <= CTX_WORDS; i++)
			bits[i] &= rbits[i];
		if (!queued) {
			ctx_enqueue_on(&ctx_queue, &me);
			queued = 1;
		}
		if (own && bits[CTX_WORDS] && !michi_ctx_take(bits, ctx)) {
			st = MICHI_OK;
			break;
		}
		if (bits[CTX_WORDS]) {
			st = michi_err(MICHI_ERR_NOMEM, "all %d communicator context ids are in "
				       "use on some rank (free communicators no longer needed)",
				       CTX_NB_FIRST * 32);
			break;
		}
		/* let the thread that has the map finish (a one-rank
		 * allreduce never waits, so it would not give the lock up) */
		if (round > 1)
			mtmi_idle(&spins);
	}
	if (queued)
		ctx_dequeue_from(&ctx_queue, &me);
	return st;
}

/* The lowest context id free on every rank of parent (collective). */
static michi_status_t ctx_alloc(struct michi_comm *parent, uint32_t *ctx)
{
	struct coll_comm cc;

	michi_coll_comm(parent, &cc);
	return ctx_rounds(&cc, (uint64_t)parent->ctx << 32, NULL, NULL, NULL, ctx);
}

static void ctx_release(uint32_t ctx)
{
	ctx_used[ctx / 64] &= ~(1u << (ctx / 2 % 32));
}

/* The intercommunicator constructors' agreement over two groups
 * (ctx_rounds with a swap; lc the local group). */
int michi_ctx_agree(struct michi_comm *lc, uint64_t key, int (*swap)(void *arg, const uint32_t *mine,
							       uint32_t *theirs, size_t n),
		    void *arg, uint32_t *ctx)
{
	struct coll_comm cc;
	michi_status_t st;
	int swap_err = MPI_SUCCESS;

	michi_coll_comm(lc, &cc);
	st = ctx_rounds(&cc, key, swap, arg, &swap_err, ctx);
	if (swap_err)
		return swap_err;
	return st < 0 ? michi_mpi_err_status(lc, st, "intercommunicator") : MPI_SUCCESS;
}

int michi_ctx_take(const uint32_t *bits, uint32_t *ctx)
{
	int i;

	for (i = 0; i < CTX_WORDS; i++)
		if (bits[i]) {
			int b = __builtin_ctz(bits[i]);

			ctx_used[i] |= 1u << b;
			*ctx = (uint32_t)(i * 32 + b) * 2;
			return 0;
		}
	return -1;
}

void michi_ctx_release(uint32_t ctx)
{
	ctx_release(ctx);
}

/* A communicator of the n world ranks in world[] (this process among
 * them at index rank), with context ctx. NULL when out of memory. */
static struct michi_comm *comm_new(const struct michi_comm *parent, const int *world, int n,
				   int rank, uint32_t ctx)
{
	return michi_comm_new(parent, world, n, rank, ctx);
}

struct michi_comm *michi_comm_new(const struct michi_comm *parent, const int *world, int n,
				  int rank, uint32_t ctx)
{
	struct michi_comm *c = michi_obj_alloc(MICHI_KIND_COMM);

	if (!c)
		return NULL;
	c->peers = malloc((size_t)n * sizeof(int));
	if (!c->peers) {
		michi_obj_free(MICHI_KIND_COMM, c);
		return NULL;
	}
	memcpy(c->peers, world, (size_t)n * sizeof(int));
	c->ctx = ctx;
	c->rank = rank;
	c->native_base = mtmi_native_base(ctx, rank);
	c->size = n;
	c->errhandler = parent->errhandler;   /* inherited: one more user */
	michi_errhandler_ref(c->errhandler, 1);
	c->handle = (MPI_Comm)michi_p2h(c);
	c->name[0] = '\0';
	c->hints = NULL;
	c->topo = NULL;
	c->attrs = NULL;
	c->local = NULL;
	c->coll_seq = 0;
	c->coll_blk = 0;
	c->hosts = NULL;
	c->hosts_mem = NULL;
	c->hosts_done = 0;
	c->sites = NULL;
	c->sites_mem = NULL;
	c->dyn_order = 0;
	c->next_live = comms_live;
	comms_live = c;
	return c;
}

void michi_comms_finalize(void)
{
	struct michi_comm *c;

	for (c = comms_live; c; c = c->next_live)
		c->size = 0;
}

static int comm_arg(const char *fname, MPI_Comm comm, struct michi_comm **c, void *out)
{
	MICHI_CHECK_INIT(fname);
	*c = michi_comm_get(comm);
	if (ERRCHK && unlikely(!*c))
		return michi_check_comm_slow(comm, fname);
	if (ERRCHK && !out)
		return michi_mpi_err(*c, MPI_ERR_ARG, fname, "(newcomm=NULL): NULL pointer");
	return MPI_SUCCESS;
}

static int comm_fail(struct michi_comm *c, const char *fname, michi_status_t st)
{
	return michi_mpi_err_status(c, st, fname);
}

/* The duplicate n of c gets c's topology, the hints (a copy; NULL:
 * none) and the attributes c's copy callbacks pass on; n is freed on
 * failure. */
static int dup_finish(const char *fname, struct michi_comm *c, struct michi_comm *n,
		      const struct michi_info *hints, MPI_Comm *newcomm)
{
	int err;

	if (n && c->topo && !(n->topo = michi_topo_dup(c->topo))) {
		PMPI_Comm_free(&n->handle);
		n = NULL;
	}
	if (n && hints && !(n->hints = michi_info_copy(hints))) {
		PMPI_Comm_free(&n->handle);
		n = NULL;
	}
	if (!n)   /* MPI_Comm_free gave the id back */
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
	/* the copy callbacks decide which attributes the duplicate gets */
	if ((err = michi_attrs_copy((int)c->handle, c->attrs, &n->attrs))) {
		PMPI_Comm_free(&n->handle);
		return michi_mpi_err(c, err == MPI_ERR_NO_MEM ? MPI_ERR_NO_MEM : MPI_ERR_OTHER,
				     fname, "(): an attribute copy callback returned %d", err);
	}
	*newcomm = n->handle;
	return MPI_SUCCESS;
}

/* Duplicate c with hints (a copy is kept; NULL: none). */
static int comm_dup(const char *fname, struct michi_comm *c, const struct michi_info *hints,
		    MPI_Comm *newcomm)
{
	struct michi_comm *n;
	michi_status_t st;
	uint32_t ctx;
	int err;

	if (c->local) {
		/* an intercommunicator: both groups agree on the id */
		MPI_Comm h;

		if ((err = michi_inter_dup(fname, c, &h)))
			return err;
		n = michi_comm_get(h);
	} else {
		st = ctx_alloc(c, &ctx);
		if (st < 0)
			return comm_fail(c, fname, st);
		n = comm_new(c, c->peers, c->size, c->rank, ctx);
		if (!n) {
			ctx_release(ctx);
			return michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
		}
	}
	return dup_finish(fname, c, n, hints, newcomm);
}

/*
 * MPI_Comm_idup: the id agreement of ctx_rounds as a schedule on the
 * parent's collective context, run by progress: a call step offers the
 * map (the nonblocking ids), a recursive-doubling allreduce ANDs it over
 * the parent, and a call step takes the id or loops back to the offer.
 * The duplicate is made when the id is agreed, with the parent's
 * attributes, topology and hints as they are then, and *newcomm is
 * written at that moment (MPI-3.1 6.4.2: it is not valid before).
 * On an intercommunicator the allreduce runs over the local group, the
 * leaders swap their groups' results and each broadcasts the other's
 * (the schedule's two views); two ids are taken from the map both groups
 * agree on: one for the new intercommunicator, one for its local half
 * (the two local halves may share it, their members are disjoint).
 */
struct idup {
	struct michi_comm *parent;
	struct michi_info *hints;       /* a copy, released at the end */
	MPI_Comm *newcomm;
	struct ctx_waiter w;
	int round, own, queued;
	const char *fname;
	uint32_t bits[CTX_WORDS + 1];
	uint32_t rbits[CTX_WORDS + 1];   /* intercommunicator: the remote group's */
};

static michi_status_t idup_offer(struct coll_sched *s, void *arg)
{
	struct idup *d = arg;
	int i;

	(void)s;
	d->own = d->queued && !ctx_nb_busy && ctx_nb_queue == &d->w;
	d->round++;
	for (i = 0; i < CTX_WORDS; i++)
		d->bits[i] = d->own && i >= CTX_NB_FIRST ? ~ctx_used[i] : 0;
	d->bits[CTX_WORDS] = (uint32_t)d->own;
	if (d->own)
		ctx_nb_busy = 1;
	return MICHI_OK;
}

static void idup_end(struct idup *d)
{
	if (d->own) {   /* an error between the offer and the take */
		ctx_nb_busy = 0;
		d->own = 0;
	}
	if (d->queued)
		ctx_dequeue_from(&ctx_nb_queue, &d->w);
	d->queued = 0;
	michi_info_release(d->hints);
	d->hints = NULL;
}

/* The new intercommunicator over c's groups, with ids ctx and lctx. */
static struct michi_comm *inter_new_pair(struct michi_comm *c, uint32_t ctx, uint32_t lctx)
{
	struct michi_comm *lc = c->local, *l, *n;

	l = comm_new(lc, lc->peers, lc->size, lc->rank, lctx);
	if (!l)
		return NULL;
	n = comm_new(c, c->peers, c->size, c->rank, ctx);
	if (!n) {
		MPI_Comm h = l->handle;

		PMPI_Comm_free(&h);
		return NULL;
	}
	n->local = l;
	return n;
}

static michi_status_t idup_take(struct coll_sched *s, void *arg)
{
	struct idup *d = arg;
	struct michi_comm *c = d->parent, *n;
	int err, i, own = d->own, ok;
	uint32_t ctx, lctx = 0;

	if (own)
		ctx_nb_busy = 0;
	d->own = 0;
	if (!d->queued) {   /* the first round gathered every member */
		ctx_enqueue_on(&ctx_nb_queue, &d->w);
		d->queued = 1;
	}
	if (c->local)   /* both groups' maps and flags */
		for (i = 0; i <= CTX_WORDS; i++)
			d->bits[i] &= d->rbits[i];
	/* every member offered its map (the flag word) when the take fails */
	ok = own && d->bits[CTX_WORDS] && !michi_ctx_take(d->bits, &ctx);
	if (ok && c->local) {
		d->bits[ctx / 64] &= ~(1u << (ctx / 2 % 32));
		if (michi_ctx_take(d->bits, &lctx)) {
			ctx_release(ctx);
			ok = 0;
		}
	}
	if (!ok) {
		if (d->bits[CTX_WORDS]) {
			idup_end(d);
			return michi_err(MICHI_ERR_NOMEM, "all %d context ids for nonblocking "
					 "duplicates are in use on some rank (free communicators "
					 "no longer needed)", CTX_NB_WORDS * 32);
		}
		s->jump = 0;   /* another round */
		return MICHI_OK;
	}
	n = c->local ? inter_new_pair(c, ctx, lctx) : comm_new(c, c->peers, c->size, c->rank, ctx);
	if (!n) {
		ctx_release(ctx);
		if (c->local)
			ctx_release(lctx);
	}
	err = dup_finish(d->fname, c, n, d->hints, d->newcomm);
	idup_end(d);
	if (err)
		return michi_err(MICHI_ERR_INTERN, "%s failed with MPI error %d", d->fname, err);
	return MICHI_OK;
}

/* The schedule's end without taking an id (an error) leaves the queue. */
static void idup_free(struct coll_sched *s)
{
	idup_end(s->on_free_arg);
}

static int comm_idup(const char *fname, struct michi_comm *c, const struct michi_info *hints,
		     MPI_Comm *newcomm, MPI_Request *request)
{
	struct coll_op op = { .apply = mask_and, .extent = sizeof(uint32_t), .commute = 1 };
	struct coll_comm cc;
	struct coll_sched *s;
	struct idup *d;
	uint32_t seq;

	if (ERRCHK && !request)
		return michi_mpi_err(c, MPI_ERR_ARG, fname, "(request=NULL): NULL pointer");
	seq = c->coll_seq;   /* the number michi_coll_go gives this call */
	michi_coll_comm(c, &cc);
	if (!(s = coll_sched_new(&cc, COLL_TAG_CTX, &op)))
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
	if (c->local) {
		struct coll_comm lc;

		michi_coll_comm(c->local, &lc);
		coll_sched_set_alt(s, &lc, COLL_TAG_CTX);
	}
	if ((d = coll_sched_tmp(s, sizeof(*d)))) {
		d->parent = c;
		d->hints = hints ? michi_info_copy(hints) : NULL;
		d->newcomm = newcomm;
		/* the parent's id, then the order of its collectives: the
		 * same on every member, so idups of one parent queue alike */
		d->w.key = (uint64_t)c->ctx << 32 | seq;
		d->round = d->own = d->queued = 0;
		d->fname = fname;
		s->on_free = idup_free;
		s->on_free_arg = d;
		coll_sched_call(s, idup_offer, d);
		coll_sched_fence(s);
		if (c->local) {
			/* AND over the local group, swap between the leaders,
			 * spread the remote group's result */
			coll_sched_switch(s);
			coll_build_allreduce_recdbl(s, NULL, d->bits, CTX_WORDS + 1);
			coll_sched_fence(s);
			coll_sched_switch(s);
			if (c->rank == 0) {
				coll_sched_recv(s, d->rbits, sizeof(d->rbits), 0);
				coll_sched_send(s, d->bits, sizeof(d->bits), 0);
				coll_sched_fence(s);
			}
			coll_sched_switch(s);
			coll_build_bcast_binomial(s, d->rbits, sizeof(d->rbits), 0);
			coll_sched_switch(s);
		} else {
			coll_build_allreduce_recdbl(s, NULL, d->bits, CTX_WORDS + 1);
		}
		coll_sched_fence(s);
		coll_sched_call(s, idup_take, d);
	}
	return michi_coll_go(c, s, request, fname);
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	struct michi_comm *c;
	int err;

	if ((err = comm_arg("MPI_Comm_dup", comm, &c, newcomm)))
		return err;
	/* the hints go with the duplicate (MPI-3.1 6.4.2) */
	return comm_dup("MPI_Comm_dup", c, c->hints, newcomm);
}

static int info_arg(struct michi_comm *c, const char *fname, MPI_Info info,
		    struct michi_info **in)
{
	*in = NULL;
	if (info == MPI_INFO_NULL)
		return MPI_SUCCESS;
	*in = michi_info_get(info);
	if (!*in)
		return michi_mpi_err(c, MPI_ERR_INFO, fname, "(info=0x%x): not a valid info object",
				     (unsigned)info);
	return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	struct michi_comm *c;
	int err;

	if ((err = comm_arg("MPI_Comm_idup", comm, &c, newcomm)))
		return err;
	return comm_idup("MPI_Comm_idup", c, c->hints, newcomm, request);
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
			     MPI_Request *request)
{
	struct michi_comm *c;
	struct michi_info *in;
	int err;

	if ((err = comm_arg("MPI_Comm_idup_with_info", comm, &c, newcomm)))
		return err;
	if ((err = info_arg(c, "MPI_Comm_idup_with_info", info, &in)))
		return err;
	return comm_idup("MPI_Comm_idup_with_info", c, in, newcomm, request);
}

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	struct michi_comm *c;
	struct michi_info *in;
	int err;

	if ((err = comm_arg("MPI_Comm_dup_with_info", comm, &c, newcomm)))
		return err;
	if ((err = info_arg(c, "MPI_Comm_dup_with_info", info, &in)))
		return err;
	return comm_dup("MPI_Comm_dup_with_info", c, in, newcomm);
}

/* Hints are kept and reported back; Michi acts on none of them. New
 * values replace old ones key by key; keys not given keep theirs (as
 * MPICH does). */
int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
	struct michi_comm *c;
	struct michi_info *in, *merged;
	int err;

	MICHI_CHECK_INIT("MPI_Comm_set_info");
	c = michi_comm_get(comm);
	if (ERRCHK && unlikely(!c))
		return michi_check_comm_slow(comm, "MPI_Comm_set_info");
	if ((err = info_arg(c, "MPI_Comm_set_info", info, &in)))
		return err;
	merged = michi_info_copy(c->hints);
	if (!merged || michi_info_merge(merged, in) < 0) {
		michi_info_release(merged);
		return michi_mpi_err(c, MPI_ERR_NO_MEM, "MPI_Comm_set_info", "(): no memory");
	}
	michi_info_release(c->hints);
	c->hints = merged;
	return MPI_SUCCESS;
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
	struct michi_comm *c;
	struct michi_info *out;
	int err;

	if ((err = comm_arg("MPI_Comm_get_info", comm, &c, info_used)))
		return err;
	out = michi_info_copy(c->hints);
	if (!out)
		return michi_mpi_err(c, MPI_ERR_NO_MEM, "MPI_Comm_get_info", "(): no memory");
	*info_used = (MPI_Info)michi_p2h(out);
	return MPI_SUCCESS;
}

struct split_entry {
	int color, key, rank;
};

static int split_order(const void *a, const void *b)
{
	const struct split_entry *x = a, *y = b;

	if (x->color != y->color)
		return x->color < y->color ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int michi_comm_split(const char *fname, struct michi_comm *c, int color, int key,
		     MPI_Comm *newcomm)
{
	struct split_entry *all;
	struct michi_comm *n = NULL;
	struct coll_comm cc;
	michi_status_t st;
	int mine[2] = { color, key }, *pairs, *world, i, k = 0, me = -1;
	uint32_t ctx;

	if (ERRCHK && color < 0 && color != MPI_UNDEFINED)
		return michi_mpi_err(c, MPI_ERR_ARG, fname,
				     "(color=%d): negative and not MPI_UNDEFINED", color);
	pairs = malloc((size_t)c->size * 2 * sizeof(int));
	all = malloc((size_t)c->size * sizeof(*all));
	world = malloc((size_t)c->size * sizeof(int));
	if (!pairs || !all || !world) {
		free(pairs);
		free(all);
		free(world);
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
	}
	michi_coll_comm(c, &cc);
	st = coll_allgatherv_ring(&cc, mine, sizeof(mine), pairs, NULL, 2, sizeof(int));
	if (st >= 0)
		st = ctx_alloc(c, &ctx);
	if (st < 0) {
		free(pairs);
		free(all);
		free(world);
		return comm_fail(c, fname, st);
	}
	for (i = 0; i < c->size; i++)
		if (pairs[2 * i] == color && color != MPI_UNDEFINED) {
			all[k].color = color;
			all[k].key = pairs[2 * i + 1];
			all[k].rank = i;
			k++;
		}
	qsort(all, (size_t)k, sizeof(*all), split_order);
	for (i = 0; i < k; i++) {
		world[i] = c->peers[all[i].rank];
		if (all[i].rank == c->rank)
			me = i;
	}
	*newcomm = MPI_COMM_NULL;
	if (color != MPI_UNDEFINED) {
		n = comm_new(c, world, k, me, ctx);
		if (n)
			*newcomm = n->handle;
	}
	/* every rank took the id (agreement); one without a child frees it */
	if (!n)
		ctx_release(ctx);
	free(pairs);
	free(all);
	free(world);
	if (color != MPI_UNDEFINED && !n)
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
	return MPI_SUCCESS;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
	struct michi_comm *c;
	int err;

	if ((err = comm_arg("MPI_Comm_split", comm, &c, newcomm)))
		return err;
	if (c->local)
		return michi_inter_split("MPI_Comm_split", c, color, key, newcomm);
	return michi_comm_split("MPI_Comm_split", c, color, key, newcomm);
}

/*
 * The hardware levels MPI_COMM_TYPE_HW_GUIDED knows (MPI-4.0 7.4.2):
 * "mpi_shared_memory" (or hwloc's "Machine"), a host's shared memory; and,
 * with hwloc, every hwloc object type that has cpus, by hwloc's names,
 * case-insensitive: "NUMANode", "Package" (or "Socket"), "Die",
 * "L3Cache", "L2Cache", "L1Cache", "Core", "PU" (or "HWThread"). Ranks
 * whose binding (the cpus the kernel lets the process run on, as the
 * launcher's --bind-to set them) lies within one object of that type
 * share a communicator, one per object and host; a rank whose binding
 * spans several objects, a level this host does not have, an unknown
 * level, or no info key give MPI_COMM_NULL, as the standard says
 * (MPICH 4 does the same). Above the host, "michi://site" (Michi's own
 * value, in the style of the "mpi://" process sets) gives each site of a
 * grid its communicator (mpi/coll/site.c; MICHI_COMM_TYPE_SITE is the same as
 * a split type). MPI_COMM_TYPE_HW_UNGUIDED splits by the coarsest level
 * the communicator spans several of, site then host (naming the level in
 * the info), and gives MPI_COMM_NULL when it spans neither, as the
 * standard allows.
 */
enum {
	HW_LEVEL_UNKNOWN,       /* no level, or one Michi does not know */
	HW_LEVEL_SITE,          /* the site: hosts joined by a LAN */
	HW_LEVEL_HOST,          /* the host's shared memory */
	HW_LEVEL_OBJECT,        /* objects within a host */
};

#define HW_SITE "michi://site"

#ifdef HAVE_HWLOC
/* The logical index of the one object of type t that holds all of this
 * process's cpus, or MPI_UNDEFINED. */
static int hw_object_of_binding(hwloc_obj_type_t t)
{
	hwloc_topology_t topo;
	hwloc_bitmap_t set = NULL;
	int i, n, idx = MPI_UNDEFINED;

	if (hwloc_topology_init(&topo) != 0)
		return MPI_UNDEFINED;
	if (hwloc_topology_load(topo) != 0 || !(set = hwloc_bitmap_alloc()))
		goto out;
	if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) != 0 &&
	    hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) != 0)
		goto out;
	/* cpus the kernel has but hwloc leaves out (offline) bind nothing */
	hwloc_bitmap_and(set, set, hwloc_topology_get_topology_cpuset(topo));
	if (hwloc_bitmap_iszero(set))
		goto out;
	/* levels at several depths (Group) or none here: no single object */
	n = hwloc_get_nbobjs_by_type(topo, t);
	for (i = 0; i < n; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(topo, t, (unsigned)i);

		if (o && o->cpuset && hwloc_bitmap_isincluded(set, o->cpuset)) {
			idx = (int)o->logical_index;
			break;
		}
	}
out:
	hwloc_bitmap_free(set);
	hwloc_topology_destroy(topo);
	return idx;
}
#endif

/*
 * The kind of level the info names (the same at every rank, as the
 * standard requires the same value), and for HW_LEVEL_OBJECT in *obj the
 * index of this process's object within its host, or MPI_UNDEFINED.
 */
static int hw_guided_level(MPI_Info info, int *obj)
{
	char v[MPI_MAX_INFO_VAL + 1];
	int flag = 0;

	if (info == MPI_INFO_NULL ||
	    PMPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, v, &flag) || !flag)
		return HW_LEVEL_UNKNOWN;
	if (!strcasecmp(v, HW_SITE))
		return HW_LEVEL_SITE;
	if (!strcasecmp(v, "mpi_shared_memory") || !strcasecmp(v, "machine"))
		return HW_LEVEL_HOST;
#ifdef HAVE_HWLOC
	{
		hwloc_obj_type_t t;

		if (!strcasecmp(v, "hwthread"))
			t = HWLOC_OBJ_PU;
		else if (hwloc_type_sscanf(v, &t, NULL, 0) != 0)
			return HW_LEVEL_UNKNOWN;
		/* I/O and Misc objects have no cpus: not a level to split by */
		if (!hwloc_obj_type_is_normal(t) && !hwloc_obj_type_is_memory(t))
			return HW_LEVEL_UNKNOWN;
		if (t == HWLOC_OBJ_MACHINE)
			return HW_LEVEL_HOST;
		*obj = hw_object_of_binding(t);
		return HW_LEVEL_OBJECT;
	}
#else
	(void)obj;
	return HW_LEVEL_UNKNOWN;
#endif
}

static int spans_hosts(const struct michi_comm *c)
{
	int i;

	for (i = 1; i < c->size; i++)
		if (michi_state.host_of[c->peers[i]] != michi_state.host_of[c->peers[0]])
			return 1;
	return 0;
}

/* The site of a world rank (0 while the job knows of one). */
static int site_of(int world)
{
	return michi_state.site_of ? michi_state.site_of[world] : 0;
}

static int spans_sites(const struct michi_comm *c)
{
	int i;

	for (i = 1; i < c->size; i++)
		if (site_of(c->peers[i]) != site_of(c->peers[0]))
			return 1;
	return 0;
}

/*
 * Objects of several hosts: by host first, then by object within the
 * host, so that no (host, object) pair has to fit one int color. Every
 * rank of c takes part in both splits.
 */
static int hw_guided_split(const char *fname, struct michi_comm *c, int host, int obj,
			   int key, MPI_Comm *newcomm)
{
	MPI_Comm byhost;
	int err;

	if ((err = michi_comm_split(fname, c, host, key, &byhost)))
		return err;
	err = michi_comm_split(fname, michi_comm_get(byhost), obj, key, newcomm);
	PMPI_Comm_free(&byhost);
	return err;
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
			 MPI_Comm *newcomm)
{
	static const char fname[] = "MPI_Comm_split_type";
	int host, err, color, obj = MPI_UNDEFINED;
	struct michi_comm *c;

	if ((err = comm_arg(fname, comm, &c, newcomm)))
		return err;
	if (info != MPI_INFO_NULL && !michi_info_get(info))
		return michi_mpi_err(c, MPI_ERR_INFO, fname, "(info=0x%x): not a valid info",
				     (unsigned)info);
	host = michi_state.host_of[michi_state.rank];
	switch (split_type) {
	case MPI_COMM_TYPE_SHARED:   /* hints such as shmem_topo: none honoured */
		color = host;
		break;
	case MICHI_COMM_TYPE_SITE:
		color = site_of(michi_state.rank);
		break;
	case MPI_COMM_TYPE_HW_GUIDED:
		switch (hw_guided_level(info, &obj)) {
		case HW_LEVEL_SITE:
			color = site_of(michi_state.rank);
			break;
		case HW_LEVEL_HOST:
			color = host;
			break;
		case HW_LEVEL_OBJECT:
			if (!michi_state.single_host)
				return hw_guided_split(fname, c, host, obj, key, newcomm);
			color = obj;
			break;
		default:
			color = MPI_UNDEFINED;
		}
		break;
	case MPI_COMM_TYPE_HW_UNGUIDED: {
		int sites = spans_sites(c);

		color = sites ? site_of(michi_state.rank) : spans_hosts(c) ? host : MPI_UNDEFINED;
		if (color != MPI_UNDEFINED && info != MPI_INFO_NULL &&
		    (err = PMPI_Info_set(info, "mpi_hw_resource_type",
					 sites ? HW_SITE : "mpi_shared_memory")))
			return err;
		break;
	}
	case MPI_UNDEFINED:
		color = MPI_UNDEFINED;
		break;
	default:
		return michi_mpi_err(c, MPI_ERR_ARG, fname,
				     "(split_type=%d): not MPI_COMM_TYPE_SHARED, "
				     "MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED, "
				     "MICHI_COMM_TYPE_SITE or MPI_UNDEFINED", split_type);
	}
	return michi_comm_split(fname, c, color, key, newcomm);
}

/* 0 when every member of g belongs to c; else the MPI error (raised). */
static int group_in_comm(struct michi_comm *c, const struct michi_group *g, const char *fname)
{
	int i, *mark = calloc((size_t)michi_state.npeers, sizeof(int));

	if (!mark)
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
	for (i = 0; i < c->size; i++)
		mark[c->peers[i]] = 1;
	for (i = 0; i < g->size; i++)
		if (!mark[g->ranks[i]]) {
			int w = g->ranks[i];

			free(mark);
			return michi_mpi_err(c, MPI_ERR_GROUP, fname,
					     "(group): member %d (world rank %d) is not in comm", i, w);
		}
	free(mark);
	return MPI_SUCCESS;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
	struct michi_comm *c, *n;
	struct michi_group *g;
	michi_status_t st;
	uint32_t ctx;
	int err;

	if ((err = comm_arg("MPI_Comm_create", comm, &c, newcomm)))
		return err;
	if (c->local)
		return michi_inter_create("MPI_Comm_create", c, group, newcomm);
	g = michi_group_get(group);
	if (ERRCHK && !g)
		return michi_mpi_err(c, MPI_ERR_GROUP, "MPI_Comm_create",
				     "(group=0x%x): not a valid group", (unsigned)group);
	/* every member must belong to comm */
	if (ERRCHK && (err = group_in_comm(c, g, "MPI_Comm_create")))
		return err;
	st = ctx_alloc(c, &ctx);
	if (st < 0)
		return comm_fail(c, "MPI_Comm_create", st);
	*newcomm = MPI_COMM_NULL;
	if (g->rank == MPI_UNDEFINED) {
		ctx_release(ctx);
		return MPI_SUCCESS;
	}
	n = comm_new(c, g->ranks, g->size, g->rank, ctx);
	if (!n) {
		ctx_release(ctx);
		return michi_mpi_err(c, MPI_ERR_NO_MEM, "MPI_Comm_create", "(): no memory");
	}
	*newcomm = n->handle;
	return MPI_SUCCESS;
}

/*
 * MPI_Comm_create_group: collective over the group's members only (MPI-3.1
 * 6.4.2), so the context id is agreed among them, with the allreduce run
 * over the group on the parent's collective context. Groups that overlap
 * are created one after the other here (single-threaded); disjoint groups
 * at once do not meet, since their members differ. A process outside the
 * group gets MPI_COMM_NULL.
 */
/* A communicator over g (this process in it) made by g's members alone
 * within c; tag keeps concurrent calls on overlapping groups apart. */
static int create_group(struct michi_comm *c, struct michi_group *g, uint32_t tag,
			const char *fname, struct michi_comm **out)
{
	struct michi_comm *n;
	struct coll_comm cc;
	michi_status_t st;
	uint32_t ctx;

	cc.rank = g->rank;
	cc.size = g->size;
	cc.ctx = c->ctx + 1;
	cc.peers = g->ranks;
	cc.hosts = NULL;
	cc.sites = NULL;
	/* the other processes of comm may already be in comm's next
	 * collective, numbered differently: tags of their own (and the
	 * user's tag, for calls on overlapping groups) keep these apart */
	cc.tag_ofs = -COLL_TAG_MAX * (1 + (int)(tag & 0xffff));
	st = ctx_rounds(&cc, (uint64_t)c->ctx << 32 | (1u + tag), NULL, NULL, NULL, &ctx);
	if (st < 0)
		return comm_fail(c, fname, st);
	n = comm_new(c, g->ranks, g->size, g->rank, ctx);
	if (!n) {
		ctx_release(ctx);
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
	}
	*out = n;
	return MPI_SUCCESS;
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
	static const char fname[] = "MPI_Comm_create_group";
	struct michi_comm *c, *n;
	struct michi_group *g;
	int err;

	if ((err = comm_arg(fname, comm, &c, newcomm)))
		return err;
	g = michi_group_get(group);
	if (ERRCHK && !g)
		return michi_mpi_err(c, MPI_ERR_GROUP, fname, "(group=0x%x): not a valid group",
				     (unsigned)group);
	if (ERRCHK && tag < 0)
		return michi_mpi_err(c, MPI_ERR_TAG, fname, "(tag=%d): tag must not be negative",
				     tag);
	if (ERRCHK && (err = group_in_comm(c, g, fname)))
		return err;
	*newcomm = MPI_COMM_NULL;
	if (g->rank == MPI_UNDEFINED)
		return MPI_SUCCESS;
	if ((err = create_group(c, g, (uint32_t)tag, fname, &n)))
		return err;
	*newcomm = n->handle;
	return MPI_SUCCESS;
}

int michi_comm_from_group(struct michi_group *g, uint32_t tag, const char *fname,
			  struct michi_comm **out)
{
	return create_group(&michi_comm_world, g, tag, fname, out);
}

int PMPI_Comm_free(MPI_Comm *comm)
{
	struct michi_comm *c, **p;
	int err;

	MICHI_CHECK_INIT("MPI_Comm_free");
	if (ERRCHK && !comm)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Comm_free", "(comm=NULL): NULL pointer");
	c = michi_comm_get(*comm);
	if (ERRCHK && unlikely(!c))
		return michi_check_comm_slow(*comm, "MPI_Comm_free");
	if (c == &michi_comm_world || c == &michi_comm_self)
		return michi_mpi_err(c, MPI_ERR_COMM, "MPI_Comm_free",
				     "(comm=%s): a predefined communicator cannot be freed",
				     c->name);
	/* attributes go first, newest first; a failing callback fails the call */
	err = michi_attrs_delete_all((int)c->handle, &c->attrs);
	if (err)
		return michi_mpi_err(c, MPI_ERR_OTHER, "MPI_Comm_free",
				     "(): an attribute delete callback returned %d", err);
	for (p = &comms_live; *p && *p != c; p = &(*p)->next_live)
		;
	if (*p)
		*p = c->next_live;
	ctx_release(c->ctx);
	michi_info_release(c->hints);
	c->hints = NULL;
	free(c->topo);
	c->topo = NULL;
	free(c->hosts_mem);
	c->hosts_mem = NULL;
	if (c->sites_mem)
		lanes_grid_free(c->sites_mem->grid);
	free(c->sites_mem);
	c->sites_mem = NULL;
	free(c->peers);
	michi_errhandler_ref(c->errhandler, -1);
	if (c->local)   /* an intercommunicator's private local half */
		PMPI_Comm_free(&c->local->handle);
	c->local = NULL;
	c->peers = NULL;
	michi_dyn_comm_freed(c->handle);
	michi_obj_free(MICHI_KIND_COMM, c);
	*comm = MPI_COMM_NULL;
	return MPI_SUCCESS;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
	struct michi_comm *c;
	int err;

	if ((err = comm_arg("MPI_Comm_test_inter", comm, &c, flag)))
		return err;
	*flag = c->local != NULL;   /* mpi/comm/intercomm.c */
	return MPI_SUCCESS;
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
	struct michi_comm *a, *b;
	int g;

	MICHI_CHECK_INIT("MPI_Comm_compare");
	a = michi_comm_get(comm1);
	b = michi_comm_get(comm2);
	if (ERRCHK && unlikely(!a))
		return michi_check_comm_slow(comm1, "MPI_Comm_compare");
	if (ERRCHK && unlikely(!b))
		return michi_check_comm_slow(comm2, "MPI_Comm_compare");
	if (ERRCHK && !result)
		return michi_mpi_err(a, MPI_ERR_ARG, "MPI_Comm_compare",
				     "(result=NULL): output pointer is NULL");
	if (a == b) {
		*result = MPI_IDENT;
		return MPI_SUCCESS;
	}
	g = michi_group_cmp(a->peers, a->size, b->peers, b->size);
	*result = g == MPI_IDENT ? MPI_CONGRUENT : g == MPI_SIMILAR ? MPI_SIMILAR : MPI_UNEQUAL;
	return MPI_SUCCESS;
}
