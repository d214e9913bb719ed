/* SPDX-License-Identifier: MIT */
/*
 * mpi/mpiimpl.h: the MPI core's internal header.
 *
 * Objects live in one slab arena reserved at init (mpi/env/arena.c): the
 * arena is a 4 GiB-aligned window whose upper 2 GiB hold objects, so every
 * object's low 32 bits have the top bit set and its upper 32 bits are the
 * same. A handle is the low half of the address; the pointer is one OR.
 * The window is cut into 16 regions of 128 MiB, one per object kind, so a
 * handle's bits 27-30 name its kind: validation checks the region, that
 * the offset lies in the committed, object-aligned part, and the object's
 * header tag. Region 1 (0x88000000-0x8fffffff) is never used, because
 * MPICH's predefined pair datatypes 0x8c000000-0x8c000004 live there.
 *
 * Predefined handles have the top bit clear and decode without memory:
 * a builtin datatype's byte size is bits 8-15 of its handle.
 */
#ifndef MICHI_MPIIMPL_H
#define MICHI_MPIIMPL_H

#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mpi.h"
#include "mpi/bindings/locked.h"   /* PMPI_X -> michi_impl_X, see gen_stubs.py */
#include "michi.h"
#include "mtlock.h"
#include "mtmi.h"

/* Nothing declared below leaves libmpi: hidden symbols are reached
 * directly (rip-relative), not through the GOT, which the hot paths'
 * state tests feel. */
#pragma GCC visibility push(hidden)

#ifdef MICHI_ERROR_CHECKING
#define ERRCHK 1
#else
#define ERRCHK 0
#endif

/*
 * Most PMPI_X definitions of the core are renamed michi_impl_X by the
 * generated mpi/bindings/locked.h, and mpi/bindings/locked.c defines PMPI_X
 * (the MPI_THREAD_MULTIPLE lock around michi_impl_X) and the MPI_X alias.
 * A hot call keeps its name instead: MICHI_ALIAS(X) after its definition
 * makes MPI_X a weak alias of it, and its body passes MICHI_GATE (below).
 * MICHI_ALIAS_UNLOCKED(X) marks a call that needs no lock at all.
 */
#define MICHI_ALIAS(name) _Pragma(MICHI_STR(weak MPI_##name = PMPI_##name))
#define MICHI_ALIAS_UNLOCKED(name) MICHI_ALIAS(name)
#define MICHI_STR(x) #x

/* ---- arena and slabs --------------------------------------------------- */

enum michi_kind {
	MICHI_KIND_REQUEST = 0,
	MICHI_KIND_RESERVED = 1,   /* holds MPICH's pair-datatype handles */
	MICHI_KIND_COMM = 2,
	MICHI_KIND_GROUP = 3,
	MICHI_KIND_DATATYPE = 4,
	MICHI_KIND_OP = 5,
	MICHI_KIND_INFO = 6,
	MICHI_KIND_ERRHANDLER = 7,
	MICHI_KIND_KEYVAL = 8,
	MICHI_KIND_WIN = 9,
	MICHI_KIND_MESSAGE = 10,
	MICHI_KIND_FILE = 11,
	MICHI_KIND_MAX = 16,
};

#define MICHI_REGION_SHIFT 27
#define MICHI_REGION_MASK  0x07ffffffu
#define MICHI_HANDLE_USER  0x80000000u

/* Object header tag: a live object of kind k has tag MICHI_TAG(k); a free
 * one has 0, so a stale handle is caught when error checking is on. */
#define MICHI_TAG(k) (0x4d490000u | (uint32_t)(k))

struct michi_obj {
	uint32_t tag;
	uint32_t refs;     /* references held by the user and by pending operations */
};

struct michi_slab {
	struct michi_free *free;   /* stack of free objects (intrusive) */
	char *bump;                /* next never-used object */
	char *commit_end;          /* pages committed up to here */
	char *base, *end;          /* the kind's region */
	uint32_t objsize;          /* power of two */
	uint32_t objmask;          /* objsize - 1 */
	size_t live;               /* objects in use (debug builds only) */
};

struct michi_free {
	uint32_t tag;   /* 0 */
	uint32_t pad;
	struct michi_free *next;
};

extern uintptr_t michi_arena_hi;
extern struct michi_slab michi_slabs[MICHI_KIND_MAX];

michi_status_t michi_arena_init(void);
void *michi_slab_grow(struct michi_slab *s, int kind);  /* out of line, cold */

static inline void *michi_h2p(uint32_t h)
{
	return (void *)(michi_arena_hi | h);
}

static inline uint32_t michi_p2h(const void *p)
{
	return (uint32_t)(uintptr_t)p;
}

/* Pop a free object without growing the slab: NULL when none is free.
 * For leaf fast paths, which fall back to michi_obj_alloc's caller. */
static inline void *michi_obj_pop(int kind)
{
	struct michi_slab *s = &michi_slabs[kind];
	struct michi_free *f = s->free;
	struct michi_obj *o;

	if (unlikely(f == NULL))
		return NULL;
	s->free = f->next;
	o = (struct michi_obj *)f;
	o->tag = MICHI_TAG(kind);
	o->refs = 1;
#ifndef NDEBUG
	s->live++;
#endif
	return o;
}

/* O(1): pop the kind's free stack, or take the next fresh object. */
static inline void *michi_obj_alloc(int kind)
{
	struct michi_obj *o = michi_obj_pop(kind);

	if (likely(o != NULL))
		return o;
	o = michi_slab_grow(&michi_slabs[kind], kind);
	if (unlikely(!o))
		return NULL;
	o->tag = MICHI_TAG(kind);
	o->refs = 1;
#ifndef NDEBUG
	michi_slabs[kind].live++;
#endif
	return o;
}

static inline void michi_obj_free(int kind, void *p)
{
	struct michi_slab *s = &michi_slabs[kind];
	struct michi_free *f = p;

	f->tag = 0;
	f->next = s->free;
	s->free = f;
#ifndef NDEBUG
	s->live--;
#endif
}

/* A user handle of `kind` that points at a live object, or NULL. */
static inline void *michi_obj_check(uint32_t h, int kind)
{
	const struct michi_slab *s = &michi_slabs[kind];
	struct michi_obj *o;

	if (unlikely((h >> MICHI_REGION_SHIFT) != (MICHI_HANDLE_USER >> MICHI_REGION_SHIFT | (uint32_t)kind)))
		return NULL;
	o = michi_h2p(h);
	if (unlikely((char *)o >= s->bump || ((uintptr_t)o & s->objmask)))
		return NULL;
	if (unlikely(o->tag != MICHI_TAG(kind)))
		return NULL;
	return o;
}

/* ---- datatypes ---------------------------------------------------------- */

/* MPICH builtin datatypes: 0x4c00SSII, SS = size in bytes. */
#define MICHI_DT_BUILTIN_MASK 0xfc000000u
#define MICHI_DT_BUILTIN      0x4c000000u

/*
 * A derived datatype (mpi/datatype/derived.c). Its typemap is kept flattened: a list
 * of runs, each `count` blocks of `len` bytes of one predefined element
 * type, block k at off + k*stride from the start of one instance, in
 * typemap order, so that packing a vector is one run and an indexed type
 * one run per block (adjacent ones of one element type merged). The constructor's arguments are kept for get_contents, and
 * the derived types among them hold a reference, so a type freed by the
 * user lives on while a type built from it, or a pending receive, uses it.
 */
struct michi_dt_run {
	MPI_Aint off;
	MPI_Aint stride;
	MPI_Count len;
	MPI_Count count;
	MPI_Datatype elem;            /* what the bytes are (external32) */
};

struct michi_dtype {
	struct michi_obj h;           /* refs: the user's handle plus users */
	MPI_Count size;               /* data bytes of one instance */
	MPI_Aint lb, ub;              /* extent = ub - lb */
	MPI_Aint true_lb, true_ub;
	MPI_Count nelem;              /* predefined elements of one instance */
	struct michi_dt_run *runs;
	size_t nruns;
	MPI_Datatype elem;            /* the one predefined element type, or
				       * MPI_DATATYPE_NULL when they differ */
	int align;                    /* of the widest element (struct padding) */
	uint8_t committed;
	uint8_t contig;               /* count instances are size*count bytes at true_lb */
	uint8_t has_lb, has_ub;       /* sticky MPI_LB/MPI_UB or resized bounds */
	uint8_t predef;               /* MPI_Type_create_f90_*: not to be freed */
	uint8_t combiner;             /* MPI_COMBINER_* (all below 256) */
	uint8_t blocked;              /* committed, of many one-block runs: after
				       * the runs, per run its gap from the last
				       * one's end and its length as int32 pairs
				       * (michi_dt_blocks; mpi/datatype/dtype_pack.c walks
				       * 8 bytes a block, not a 40-byte run) */
	int ni, na, nc, nd;           /* get_envelope (nc: large counts, from
				       * the MPI-4.0 _c constructors) */
	int *ints;                    /* get_contents: one block for all four,
				       * the large counts after the addresses
				       * (michi_dt_counts) */
	MPI_Aint *aints;
	MPI_Datatype *types;
	char name[MPI_MAX_OBJECT_NAME];
};
_Static_assert(sizeof(struct michi_dtype) <= 256, "datatype fits its slab object");

static inline const int32_t *michi_dt_blocks(const struct michi_dtype *t)
{
	return t->blocked ? (const int32_t *)(const void *)(t->runs + t->nruns) : NULL;
}

static inline MPI_Count *michi_dt_counts(const struct michi_dtype *t)
{
	return (MPI_Count *)(t->aints + t->na);
}

/* A struct type's block count and block i's length, wherever its
 * constructor (MPI_Type_create_struct or its _c form) put them. */
static inline MPI_Count michi_dt_struct_n(const struct michi_dtype *t)
{
	return t->nc ? michi_dt_counts(t)[0] : t->ints[0];
}

static inline MPI_Count michi_dt_struct_bl(const struct michi_dtype *t, MPI_Count i)
{
	return t->nc ? michi_dt_counts(t)[1 + i] : t->ints[1 + i];
}

/* A derived datatype handle's object (validated), or NULL. */
static inline struct michi_dtype *michi_dt_get(MPI_Datatype dt)
{
	return michi_obj_check((uint32_t)dt, MICHI_KIND_DATATYPE);
}

/* Each builtin handle at the slot of its low byte (MPICH numbers them
 * uniquely there); all ones elsewhere. One load and one compare check a
 * handle whole: prefix, size and number. */
extern uint32_t michi_dt_builtin_tab[256];

static inline int michi_dt_is_builtin(MPI_Datatype dt)
{
	return ((uint32_t)dt & MICHI_DT_BUILTIN_MASK) == MICHI_DT_BUILTIN;
}

static inline int michi_dt_builtin_valid(MPI_Datatype dt)
{
	return michi_dt_builtin_tab[(uint32_t)dt & 0xffu] == (uint32_t)dt;
}

/* Size and extent of a datatype that error checking accepted. Builtins
 * decode from the handle; pair types and user types are out of line. */
void michi_dt_size_extent_slow(MPI_Datatype dt, MPI_Count *size, MPI_Aint *extent);
static inline MPI_Aint michi_dt_extent(MPI_Datatype dt)
{
	MPI_Count sz;
	MPI_Aint ext;

	if (likely(michi_dt_is_builtin(dt)))
		return ((uint32_t)dt >> 8) & 0xff;
	michi_dt_size_extent_slow(dt, &sz, &ext);
	return ext;
}
static inline MPI_Count michi_dt_size(MPI_Datatype dt)
{
	MPI_Count sz;
	MPI_Aint ext;

	if (likely(michi_dt_is_builtin(dt)))
		return ((uint32_t)dt >> 8) & 0xff;
	michi_dt_size_extent_slow(dt, &sz, &ext);
	return sz;
}
/* 0 when dt is a datatype point-to-point can move in this version. */
int michi_dt_check(MPI_Datatype dt);
/* 1 for the types made of two elements (MPI_2INT, MPI_DOUBLE_INT, ...). */
int michi_dt_is_pair(MPI_Datatype dt);
/* A pair type's two elements (offsets, lengths); returns its alignment,
 * 0 when dt is not one of the five pair types. */
int michi_dt_pair_layout(MPI_Datatype dt, MPI_Aint off[2], MPI_Count len[2],
			 MPI_Datatype *first);
void michi_dt_init(void);
const char *michi_dt_name(MPI_Datatype dt);

/* ---- communicators ----------------------------------------------------- */

struct coll_hosts;
struct coll_sites;

struct michi_comm {
	struct michi_obj h;
	/* ctx then rank: together they are the (ctx, src_rank) word of an
	 * MTMI frame header, loaded at once by the send fast path */
	uint32_t ctx;          /* point-to-point context; ctx + 1 for collectives */
	int rank, size;
	int *peers;            /* world rank of each comm rank */
	/* the context and rank bits of its sends' match tags over a
	 * matching device (mtmi_native_base(ctx, rank)), set with them */
	uint64_t native_base;
	MPI_Errhandler errhandler;
	MPI_Comm handle;
	struct michi_comm *next_live;   /* user communicators (mpi/comm/comm_create.c) */
	struct michi_info *hints;       /* info set on it (mpi/comm/info.c), or NULL */
	struct michi_topo *topo;        /* virtual topology (mpi/comm/topo.c), or NULL */
	struct michi_attr *attrs;       /* attributes, newest first (mpi/comm/attr.c) */
	/* an intercommunicator (mpi/comm/intercomm.c): rank, size and peers above
	 * are those point-to-point uses (my local rank; the remote group),
	 * and `local` is a private intracommunicator of the local group */
	struct michi_comm *local;
	uint32_t coll_seq;     /* nonblocking and persistent collectives
				* started on it (mpi/coll/coll.c) */
	uint32_t coll_blk;     /* blocking ones, numbered apart (mpi/coll/coll.c) */
	/* its hosts for the node-aware collectives (mpi/coll/coll.c), built at
	 * its first collective: NULL for one host; hosts_mem is what to free */
	const struct coll_hosts *hosts;
	struct coll_hosts *hosts_mem;
	int hosts_done;
	/* its sites for the grid-aware collectives, built with hosts: NULL
	 * for one site; sites_mem is what to free */
	const struct coll_sites *sites;
	struct coll_sites *sites_mem;
	/* an intercommunicator to another job (mpi/comm/dynproc.c): which group
	 * MPI_Intercomm_merge puts first when both pass the same `high`,
	 * since world ranks of two jobs do not compare: 1 this group, 2 the
	 * remote one, 0 the one whose leader has the lower world rank */
	int dyn_order;
	char name[MPI_MAX_OBJECT_NAME];
};

/* Context ids and communicator objects (mpi/comm/comm_create.c), for the
 * intercommunicator constructors of mpi/comm/intercomm.c: agree on an id free
 * on every process of two groups (lc the local one; swap trades lc's
 * ANDed map of n bytes for the other group's, on every member of lc, and
 * returns an MPI error code), take the lowest id free in a map, give one
 * back; a communicator over n world ranks. */
#define MICHI_CTX_WORDS 64
int michi_ctx_agree(struct michi_comm *lc, uint64_t key, int (*swap)(void *arg, const uint32_t *mine,
							       uint32_t *theirs, size_t n),
		    void *arg, uint32_t *ctx);
int michi_ctx_take(const uint32_t *bits, uint32_t *ctx);
void michi_ctx_release(uint32_t ctx);
struct michi_comm *michi_comm_new(const struct michi_comm *parent, const int *world, int n,
				  int rank, uint32_t ctx);
/* An intercommunicator's dup, split and create (mpi/comm/intercomm.c). */
int michi_inter_dup(const char *fname, struct michi_comm *c, MPI_Comm *newcomm);
int michi_inter_split(const char *fname, struct michi_comm *c, int color, int key,
		      MPI_Comm *newcomm);
int michi_inter_create(const char *fname, struct michi_comm *c, MPI_Group group,
		       MPI_Comm *newcomm);
/* A new intercommunicator to the peers remote[] (nremote of them) with
 * context ctx, this process at `rank` of local (its local half, taken
 * over); on failure ctx and local are given back (mpi/comm/intercomm.c). */
int michi_inter_make(struct michi_comm *parent, const int *remote, int nremote, int rank,
		     uint32_t ctx, MPI_Comm local, MPI_Comm *newcomm, const char *fname);

/* ---- dynamic processes (mpi/comm/dynproc.c) ---- */
/* MPI_Init of a spawned process: connect to the parents (MPI error code). */
int michi_dyn_init(void);
/* MPI_Intercomm_create where a process of another job takes part: the
 * leaders (local_leader of lc, remote_leader of peer_comm) trade every
 * member's address over peer_comm with tag, and each member of lc fills
 * remote[nremote] with its peer indices for the other group. */
int michi_dyn_members(struct michi_comm *lc, int local_leader, MPI_Comm peer_comm,
		      int remote_leader, int tag, int *remote, int nremote, const char *fname);
/* comm is being freed: MPI_Comm_get_parent forgets it if it was the parent. */
void michi_dyn_comm_freed(MPI_Comm comm);
/* MPI_Finalize: reap the launchers MPI_Comm_spawn started, close ports. */
void michi_dyn_finalize(void);
/* The bootstrap's view of this job (mpi/env/init.c), for dynproc.c. */
struct michi_job *michi_job_get(void);
/* Who started this process: 0 no process manager (a singleton), 1 Michi's
 * mpirun, 2 another one (Hydra, Slurm: they cannot spawn Michi jobs). */
int michi_launcher_kind(void);

/* The collective view of c (coll/coll.h) for a call on it, with the tags of
 * a blocking call; michi_coll_go numbers a nonblocking call's schedule. */
struct coll_comm;
void michi_coll_comm(struct michi_comm *c, struct coll_comm *cc);
/* mpi/coll/site.c: the name of a site of the job (grid profiles are keyed by
 * it; faked: a site of the coll_site_ranks tunable). mpi/coll/grid.c: the lanes' state of a communicator's sites (coll/lanes_params.h),
 * job_site[s] the job's site of its site s; the calibration of
 * `michi_info --calibrate-grid` (0, or the exit status). */
void michi_site_name(int site, int faked, char *buf, size_t len);
struct lanes_grid *michi_grid_new(const struct michi_comm *c, const struct coll_sites *ss,
				  const int *job_site, int faked);
MICHI_EXPORT int michi_grid_calibrate(const char *out, size_t bytes, int verbose);
/* Run a built schedule (coll/schedule.h) of a collective on c: to the end
 * when request is NULL, else behind a new request; s NULL is a request
 * complete at once. Returns an MPI error code. */
struct coll_sched;
int michi_coll_go(struct michi_comm *c, struct coll_sched *s, MPI_Request *request,
		  const char *fname);

/* Empty every user communicator (size 0) at MPI_Finalize. */
void michi_comms_finalize(void);
/* MPI_Comm_split on c (mpi/comm/comm_create.c), for the topology constructors. */
int michi_comm_split(const char *fname, struct michi_comm *c, int color, int key,
		     MPI_Comm *newcomm);
/* A copy of a topology (one malloc block), NULL when out of memory. */
struct michi_topo *michi_topo_dup(const struct michi_topo *t);
/* The neighbours of c's topology in MPI's order (MPI-3.1 7.6): sets
 * *nin and *nout and, with in and out given, fills them. Returns 1 for a
 * Cartesian topology, 0 for the others, -1 when c has none. */
int michi_topo_neighbors(const struct michi_comm *c, int *nin, int *nout, int *in, int *out);

extern struct michi_comm michi_comm_world, michi_comm_self;

static inline uint64_t michi_comm_ctx_src(const struct michi_comm *c)
{
	uint64_t w;

	__builtin_memcpy(&w, &c->ctx, sizeof(w));
	return w;
}
_Static_assert(offsetof(struct michi_comm, rank) == offsetof(struct michi_comm, ctx) + 4,
	       "michi_comm_ctx_src reads ctx and rank as one word");

/* Resolve a communicator handle: WORLD first, the common case. */
static inline struct michi_comm *michi_comm_get(MPI_Comm comm)
{
	if (likely(comm == MPI_COMM_WORLD))
		return &michi_comm_world;
	if (comm == MPI_COMM_SELF)
		return &michi_comm_self;
	return michi_obj_check((uint32_t)comm, MICHI_KIND_COMM);
}

/* ---- requests ------------------------------------------------------------ */

enum michi_req_kind {
	MICHI_REQ_SEND = 1,
	MICHI_REQ_RECV,
	MICHI_REQ_DONE,        /* complete from the start: PROC_NULL, buffered sends */
	MICHI_REQ_COLL,        /* a nonblocking collective: its schedule (coll/schedule.h)
				* completes m and has released all it held */
	MICHI_REQ_PAIR,        /* MPI_Isendrecv(_replace): mpi/pt2pt/isendrecv.c completes m
				* once both halves have ended */
	/* persistent kinds last: michi_req_finish keeps them (kind >= PSEND) */
	MICHI_REQ_PSEND,
	MICHI_REQ_PRECV,
	MICHI_REQ_PART_SEND,   /* partitioned (mpi/pt2pt/part.c): r->part holds the rest */
	MICHI_REQ_PART_RECV,
	MICHI_REQ_PCOLL,       /* a persistent collective: r->buf is its schedule
				* (mpi/coll/coll.c), run again at every start */
	/* generalized (mpi/pt2pt/grequest.c): after the persistent kinds, so the
	 * paths that only free (kind < PSEND) leave it to its callbacks */
	MICHI_REQ_GREQ,
};

/* r->mode: the MTMI modes plus the buffered mode, which only mpi/ knows */
#define MICHI_MODE_BUFFERED 3

struct michi_request {
	struct michi_obj h;
	uint8_t kind;
	uint8_t active;        /* persistent: started and not yet completed */
	uint8_t freed;         /* Request_free called while still pending */
	uint8_t mode;          /* enum mtmi_mode or MICHI_MODE_BUFFERED */
	struct michi_comm *comm;
	MPI_Datatype dtype;
	/* persistent requests keep their arguments */
	void *buf;
	MPI_Count count;       /* MPI_Count: the _c forms keep counts above INT_MAX */
	int rank;              /* dest or source (comm rank) */
	int tag;
	void *stage;           /* packed copy of a derived-type buffer (mpi/pt2pt/pt2pt_dt.c) */
	struct michi_part *part;   /* partitioned requests (mpi/pt2pt/part.c) */
	struct mtmi_req m;
};

/* one request per kind slot, small enough for the 256-byte slab objects */
_Static_assert(sizeof(struct michi_request) <= 256, "request fits its slab object");

static inline struct michi_request *michi_req_alloc(void)
{
	return michi_obj_alloc(MICHI_KIND_REQUEST);
}

static inline void michi_req_free(struct michi_request *r)
{
	michi_obj_free(MICHI_KIND_REQUEST, r);
}

/* Fill an inactive persistent request of that kind (mpi/pt2pt/request.c). */
void michi_req_persist_init(struct michi_request *r, int kind, int mode, struct michi_comm *c,
			    MPI_Datatype dt, void *buf, MPI_Count count, int rank, int tag);
/* Start a persistent request (MPI_Start). */
int michi_req_start(struct michi_request *r, const char *fname);
/* mpi/coll/coll.c: start a persistent collective's round; free its schedule
 * (the request is being freed, not active) */
int michi_pcoll_start(struct michi_request *r, const char *fname);
void michi_pcoll_free(struct michi_request *r);

/* Partitioned requests (mpi/pt2pt/part.c): start a round, free what the request
 * holds (MPI_Request_free), cancel one whose send is not posted yet
 * (1: done here, 0: cancel it through MTMI). */
int michi_part_start(struct michi_request *r, const char *fname);
void michi_part_free(struct michi_request *r);
int michi_part_cancel(struct michi_request *r);
int michi_part_wait_check(struct michi_request *r, const char *fname, const char *arg)
	__attribute__((cold));

/* ---- errors ------------------------------------------------------------- */

/*
 * Report an error from an MPI function: builds "MPI_Send(dest=9): rank out
 * of range, communicator has 4 ranks (rank 2 on host node3)", calls the
 * communicator's error handler (comm NULL: COMM_WORLD's) and returns the
 * error code to hand back to the user.
 */
int michi_mpi_err(struct michi_comm *comm, int errclass, const char *fname,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5), cold));
/* The two halves of michi_mpi_err: an error code carrying the sentence,
 * and the communicator's handler called on it (returns the code). Multi-
 * completion calls build codes for statuses and raise one
 * MPI_ERR_IN_STATUS instead. */
int michi_mpi_err_code(int errclass, const char *fname, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), cold));
int michi_mpi_err_raise(struct michi_comm *comm, int code) __attribute__((cold));
/* The same through handler eh of the object with handle `handle` (a
 * session: mpi/comm/session.c). */
int michi_mpi_err_raise_eh(MPI_Errhandler eh, int handle, int code) __attribute__((cold));
int michi_mpi_status_code(michi_status_t st, const char *fname) __attribute__((cold));
/* The largest error class or code in use (MPI_LASTUSEDCODE). */
int michi_err_lastused(void);
/* Map a michi_status_t from below to an MPI error class. */
int michi_mpi_class(michi_status_t st);
/* Error code for a status from below, message from michi_err_msg(). */
int michi_mpi_err_status(struct michi_comm *comm, michi_status_t st, const char *fname)
	__attribute__((cold));
/* An error code carrying a message (no handler called). */
int michi_errcode_new(int errclass, const char *msg);
int michi_mpi_unsupported(const char *fname);
/* The argument errors every family reports, each one sentence naming the
 * argument and its value (cold; mpi/env/errors.c). */
int michi_err_count(struct michi_comm *c, const char *fname, MPI_Count count) __attribute__((cold));
int michi_err_rank(struct michi_comm *c, const char *fname, const char *arg, int rank) __attribute__((cold));
int michi_err_tag(struct michi_comm *c, const char *fname, int tag, int recv) __attribute__((cold));
int michi_err_type(struct michi_comm *c, const char *fname, MPI_Datatype dt) __attribute__((cold));
int michi_err_buf(struct michi_comm *c, const char *fname, MPI_Count count) __attribute__((cold));
int michi_err_null(struct michi_comm *c, const char *fname, const char *arg) __attribute__((cold));
int michi_err_request(const char *fname, const char *arg, MPI_Request h) __attribute__((cold));
int michi_err_nomem(struct michi_comm *c, const char *fname) __attribute__((cold));
/* A failed MTMI start (st < 0), and a completed MTMI request's error
 * (truncation says the sizes), as MPI error codes with the handler called. */
int michi_start_error(struct michi_comm *c, michi_status_t st, const char *fname) __attribute__((cold));
int michi_mtmi_error(struct michi_comm *c, const struct mtmi_req *m, const char *fname)
	__attribute__((cold));
/* A user error handler's references: one per communicator using it and
 * one for the user's handle (predefined handlers are not counted). */
void michi_errhandler_ref(MPI_Errhandler eh, int delta);
void michi_errors_init(void);

/* ---- global state ------------------------------------------------------- */

struct michi_state {
	int fast;              /* active and not MPI_THREAD_MULTIPLE: hot paths' one test */
	uint32_t fast_tag_end; /* tag_ub + 1, or 0 to send every fast path to MICHI_GATE */
	uint32_t native_tag_end; /* tag_ub + 1 when fast and over a matching device
				  * (fast_tag_end 0 then): the native fast paths */
	int active;            /* between MPI_Init and MPI_Finalize */
	int initialized;       /* MPI_Init done */
	int finalized;
	int thread_level;
	int rank, size;        /* world */
	/* peer indices in use: the world's ranks, then processes of other
	 * jobs (mpi/comm/dynproc.c); arrays indexed by a communicator's peers[]
	 * need this many entries */
	int npeers;
	int tag_ub;
	int single_host;       /* every rank of the job shares one host */
	const int *host_of;    /* host index of every world rank (and of
				* other jobs' processes, mpi/comm/dynproc.c) */
	const int *site_of;    /* site index of every world rank, or NULL
				* when the job knows of one site only */
	const char *host;
	int universe_size;     /* MPI_UNIVERSE_SIZE: the launcher's slots */
	int appnum;            /* MPI_APPNUM: this process's MPMD command */
};

extern struct michi_state michi_state;

/* mpi/coll/site.c: the job's sites (michi_state.site_of). */
/* this process's site name from MICHI_SITE ("" none); an error names a bad one */
michi_status_t michi_site_mine(const char **site);
/* names[i]: world rank i's site ("" none), read with the host map */
michi_status_t michi_sites_from_names(int size, char *const *names);
/* after MTMI and the predefined communicators: the inference where no
 * site was given, and the log; collective over the world */
michi_status_t michi_sites_init(void);
void michi_sites_finalize(void);

/* Argument checks shared by the point-to-point calls. */
#define MICHI_CHECK_INIT(fname) do { \
	if (ERRCHK && unlikely(!michi_state.active)) \
		return michi_not_initialized(fname); \
} while (0)
int michi_not_initialized(const char *fname) __attribute__((cold));

/*
 * The entry check of a hot call X (one that makes its own alias): where
 * michi_state.fast is clear, either MPI is not initialized (the error is
 * returned), or MPI_THREAD_MULTIPLE is on and this thread does not hold
 * the lock yet (the call is made again through the generated
 * michi_locked_X, which takes it), or it holds it already (the body runs).
 * Calls whose fast path tests michi_state.fast_tag_end instead pass it on
 * their general path. Without error checking the test stays: it is what
 * keeps threads apart.
 */
#define MICHI_GATE(fname, name, args) do { \
	if (unlikely(!michi_state.fast)) { \
		int gate_ = michi_gate(fname); \
		if (gate_ < 0) \
			return michi_locked_##name args; \
		if (gate_) \
			return gate_; \
	} \
} while (0)
/* 0: go on (lock held), -1: take the lock, else an MPI error code */
int michi_gate(const char *fname);
/* Users of the runtime (mpi/env/init.c): MPI_Init and each MPI-4.0 session
 * take one, MPI_Finalize and MPI_Session_finalize give it back; the
 * first starts the runtime, the last shuts it down. MPI error codes. */
int michi_runtime_up(const char *fname, int required);
int michi_runtime_down(const char *fname);
/* The thread level provided for a required one: every level is. */
static inline int michi_thread_level(int required)
{
	return required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
	     : required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE : required;
}
/* MPI's and MPI_T's thread levels: MULTIPLE (1) or less (0) */
void michi_mt_mpi(int on);
void michi_mt_tool(int on);
/* The progress thread's share of michi_mt (mpi/env/async.c), set and cleared
 * with the lock held or while no other thread runs MPI */
void michi_mt_async(int on);
/* mpi/env/async.c: a nonblocking collective that moves `bytes` has started
 * and not yet ended: let the progress thread run it where it may (called
 * last in the MPI call that started it, after its request is out);
 * user_code: running it may call the program's code (a user op) */
void michi_async_kick(size_t bytes, int user_code);
/* Stop the progress thread (the runtime is ending). */
void michi_async_end(void);
/* 1 while the progress thread runs the schedules: every call takes the
 * lock then (michi_state.fast is clear) */
extern int michi_async_running MICHI_HIDDEN;
/* MPI_Test while the progress thread runs: 1 (and *flag 0) for a
 * collective's request it has not completed yet, answered without the
 * lock, which the thread needs more than this caller does; else 0 (the
 * call goes on as usual) */
int michi_async_test(MPI_Request *request, int *flag);

int michi_check_comm_slow(MPI_Comm comm, const char *fname) __attribute__((cold));

#pragma GCC visibility pop

#endif
