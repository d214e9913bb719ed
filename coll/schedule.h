/* SPDX-License-Identifier: MIT */
/*
 * coll/schedule.h: collective schedules (docs/design.md §5). An algorithm is
 * written once as a builder that appends steps to a schedule: sends and
 * receives on the collective context, local reductions and copies, and
 * calls back into the caller. Steps run in rounds: a fence ends a round,
 * and the next one starts only once every send and receive of the round
 * has completed. The blocking collective runs the schedule to its end;
 * the nonblocking one returns and lets progress run it.
 *
 * Progress: each send or receive of a round completes through its MTMI
 * request's on_complete hook, which only counts; the one that ends the
 * round puts the schedule on a ready list that mtmi_progress() drains
 * after the devices (mtmi_defer), so new rounds are never posted from
 * inside a completion. Posting a round holds one extra count, so
 * operations that complete at once cannot end the round half-posted.
 *
 * A schedule completes a caller's mtmi_req (done, error; its on_complete
 * called) after releasing everything it owned, so the MPI request
 * waiting on it needs nothing else.
 */
#ifndef MICHI_COLL_SCHEDULE_H
#define MICHI_COLL_SCHEDULE_H

#include <stddef.h>

#include "coll.h"
#include "mtmi.h"

struct coll_sched;
struct coll_step;

/* A call step: returns <0 to fail the schedule, else 0; may set
 * s->jump to run again from that step index (a loop). */
typedef michi_status_t (*coll_call_fn)(struct coll_sched *s, void *arg);

enum coll_step_op {
	CS_SEND,
	CS_RECV,
	CS_REDUCE,     /* dst = src op dst, len elements of s->op */
	CS_COPY,       /* len bytes, may overlap */
	CS_CALL,
};

struct coll_step {
	uint8_t op;
	uint8_t fence;         /* starts a new round */
	uint8_t view;          /* which of the schedule's two views it uses */
	int peer;              /* comm rank */
	const void *src;
	void *dst;
	size_t len;
	coll_call_fn fn;
	struct coll_sched *s;
	struct mtmi_req m;
};

#define COLL_SCHED_INLINE 512   /* bytes of scratch inside a schedule */

struct coll_sched {
	struct coll_comm c;    /* the view steps are being added for */
	struct coll_comm alt;  /* the other one (intercommunicators: the
				* local group), and its tag */
	int alt_tag;
	int view;              /* 0 or 1: which view c is */
	struct coll_op op;
	int tag;               /* the collective's tag plus the offset */
	int nsteps, cap;
	int fence_next;        /* building: the next step starts a round */
	int cur;               /* first step of the running round */
	int pending;           /* its sends and receives still running */
	int jump;              /* set by a call step: next round starts here */
	int looping;           /* on the ready list after such a jump */
	int nb;                /* counted in coll_sched_nb_running */
	int persist;           /* kept at its end, to run again */
	int blocking;          /* built for a blocking call, which may wait for
				* every rank of the communicator while it
				* builds (lanes_params_for); 0 unless the
				* caller says so */
	michi_status_t error;
	struct coll_step *steps;
	struct coll_tmp *tmps; /* scratch the schedule frees */
	size_t inl_used;       /* small scratch comes from inl first: no
				* allocation for a small collective */
	max_align_t inl[COLL_SCHED_INLINE / sizeof(max_align_t)];
	struct coll_sched *next_ready;
	struct mtmi_req *done; /* completed when the schedule ends */
	int *peers_copy;       /* nonblocking: the communicator may be freed */
	int *alt_peers_copy;
	/* called when the schedule is freed, ended or not (the caller's
	 * references: a user op, say) */
	void (*on_free)(struct coll_sched *s);
	void *on_free_arg;
};

/* A schedule over c for a collective of tag `tag` (enum coll_tag); op may
 * be NULL. NULL when out of memory. */
struct coll_sched *coll_sched_new(const struct coll_comm *c, int tag, const struct coll_op *op);
void coll_sched_free(struct coll_sched *s);

/* A second view for steps to use (an intercommunicator's local group);
 * coll_sched_switch makes the other view current: builders then see it
 * in s->c, and the steps they add use it. */
void coll_sched_set_alt(struct coll_sched *s, const struct coll_comm *alt, int tag);
void coll_sched_switch(struct coll_sched *s);

/* The node-aware algorithms' views, set before their first step from
 * s->c.hosts: s->c becomes this rank's host (the collective's tag) and
 * the other view the hosts' leaders (COLL_TAG_HOSTS), neither with hosts
 * to be aware of, so what runs within them is flat. Returns 1 on a
 * leader (rank 0 of its host's view). */
int coll_sched_hosts(struct coll_sched *s);
/* The hosts of a view of ranks each on a host of its own. */
extern const struct coll_hosts coll_hosts_apart;

/* The grid-aware algorithms' views (coll/wan.c), set before their first
 * step from s->c.sites: s->c becomes this rank's site, ranks in lane
 * order (the collective's tag), and the other view its lane across the
 * sites (COLL_TAG_SITES: rank t is this lane's rank in site t), empty
 * (size 0) on a rank whose lane is `lanes` or more; neither with sites to
 * be aware of. Returns 0, or <0 out of memory. */
int coll_sched_sites(struct coll_sched *s, int lanes);
/* The cut of total units into p nearly equal parts, part k being
 * [bound[k], bound[k + 1]) (p + 1 entries, scratch of s). */
size_t *coll_wan_bounds(struct coll_sched *s, size_t total, int p);
/* A v layout over n ranks in which rank k < p holds part k of bound and
 * the others nothing (scratch of s). */
struct coll_v *coll_wan_lane_v(struct coll_sched *s, const size_t *bound, int p, int n);

/* Builders. Each returns 0, or <0 when out of memory (the schedule then
 * fails when started). */
int coll_sched_send(struct coll_sched *s, const void *buf, size_t len, int peer);
int coll_sched_recv(struct coll_sched *s, void *buf, size_t len, int peer);
int coll_sched_reduce(struct coll_sched *s, const void *in, void *inout, size_t count);
/* Fold the operand just received (*theirs) into *acc: theirs op acc when
 * theirs_first or the op commutes, else acc op theirs, computed in
 * *theirs, after which the two pointers trade (the builder's view of
 * where the result lives follows them). */
int coll_sched_fold(struct coll_sched *s, char **acc, char **theirs, size_t count,
		    int theirs_first);
int coll_sched_copy(struct coll_sched *s, const void *src, void *dst, size_t len);
int coll_sched_call(struct coll_sched *s, coll_call_fn fn, void *arg);
/* The next step starts a new round. */
void coll_sched_fence(struct coll_sched *s);
/* Scratch of len bytes, freed with the schedule (NULL: no memory). */
void *coll_sched_tmp(struct coll_sched *s, size_t len);

/* Start: runs what it can now; the schedule completes `done` and frees
 * itself. With `own_peers` the communicator's rank map is copied first
 * (a nonblocking collective may outlive MPI_Comm_free). */
michi_status_t coll_sched_start(struct coll_sched *s, struct mtmi_req *done, int own_peers);
/* Make a built schedule persistent (MPI-4.0 persistent collectives):
 * its rank maps copied, its tags apart from every other collective's;
 * from now on each coll_sched_start runs it from its first step and its
 * end leaves it for the next, until coll_sched_free. Returns the error
 * of its building, if any (the caller then frees it). */
michi_status_t coll_sched_persist(struct coll_sched *s);
/* Number s, built on views of a blocking call (COLL_TAG_BLOCKING | its number), as the
 * nonblocking or persistent call seq of its communicator (coll/coll.h):
 * before it starts, and before coll_sched_persist. */
void coll_sched_number(struct coll_sched *s, uint32_t seq);
/* Start and wait for the end (blocking collectives). */
michi_status_t coll_sched_run(struct coll_sched *s);

/* Schedules started with own_peers (the nonblocking ones) that have not
 * ended: what a progress thread has to run (mpi/env/async.c). */
extern int coll_sched_nb_running MICHI_HIDDEN;
/* Bytes the sends and receives of a built schedule move. */
size_t coll_sched_bytes(const struct coll_sched *s);

#endif
