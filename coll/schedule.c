/* SPDX-License-Identifier: MIT */
/*
 * coll/schedule.c: the schedule engine (coll/schedule.h).
 */
#include <stdlib.h>

#include "schedule.h"

struct coll_tmp {
	struct coll_tmp *next;
	max_align_t data[];
};

/* schedules whose round ended, for the progress hook; and a few freed
 * ones kept with their step arrays, so a small blocking collective
 * allocates nothing */
static struct coll_sched *ready_head, **ready_tail = &ready_head;
#define SCHED_CACHE 8
static struct coll_sched *cache[SCHED_CACHE];
static int ncache;
int coll_sched_nb_running;

struct coll_sched *coll_sched_new(const struct coll_comm *c, int tag, const struct coll_op *op)
{
	struct coll_sched *s;

	if (ncache) {
		s = cache[--ncache];
	} else {
		s = malloc(sizeof(*s));
		if (!s)
			return NULL;
		s->cap = 0;
		s->steps = NULL;
	}
	s->c = *c;
	if (op)
		s->op = *op;
	s->tag = tag + c->tag_ofs;
	s->nsteps = 0;
	s->fence_next = 0;
	s->cur = 0;
	s->pending = 0;
	s->jump = -1;
	s->looping = 0;
	s->nb = 0;
	s->persist = 0;
	s->blocking = 0;
	s->alt_tag = 0;
	s->error = MICHI_OK;
	s->tmps = NULL;
	s->inl_used = 0;
	s->next_ready = NULL;
	s->done = NULL;
	s->peers_copy = NULL;
	s->alt_peers_copy = NULL;
	s->alt.size = 0;
	s->view = 0;
	s->on_free = NULL;
	return s;
}

void coll_sched_free(struct coll_sched *s)
{
	struct coll_tmp *t, *next;

	if (s->on_free)
		s->on_free(s);
	for (t = s->tmps; t; t = next) {
		next = t->next;
		free(t);
	}
	free(s->peers_copy);
	free(s->alt_peers_copy);
	if (ncache < SCHED_CACHE && s->cap <= 64) {
		cache[ncache++] = s;
		return;
	}
	free(s->steps);
	free(s);
}

static struct coll_step *step_add(struct coll_sched *s, int op)
{
	struct coll_step *st;

	if (s->error < 0)
		return NULL;
	if (s->nsteps == s->cap) {
		int cap = s->cap ? s->cap * 2 : 16;
		struct coll_step *n = realloc(s->steps, (size_t)cap * sizeof(*n));

		if (!n) {
			s->error = michi_err(MICHI_ERR_NOMEM, "no memory for a collective's schedule "
					     "of %d steps", cap);
			return NULL;
		}
		s->steps = n;
		s->cap = cap;
	}
	st = &s->steps[s->nsteps++];
	st->op = (uint8_t)op;
	st->fence = s->fence_next;
	st->view = (uint8_t)s->view;
	s->fence_next = 0;
	return st;
}

int coll_sched_send(struct coll_sched *s, const void *buf, size_t len, int peer)
{
	struct coll_step *st = step_add(s, CS_SEND);

	if (!st)
		return -1;
	st->src = buf;
	st->len = len;
	st->peer = peer;
	return 0;
}

int coll_sched_recv(struct coll_sched *s, void *buf, size_t len, int peer)
{
	struct coll_step *st = step_add(s, CS_RECV);

	if (!st)
		return -1;
	st->dst = buf;
	st->len = len;
	st->peer = peer;
	return 0;
}

int coll_sched_reduce(struct coll_sched *s, const void *in, void *inout, size_t count)
{
	struct coll_step *st = step_add(s, CS_REDUCE);

	if (!st)
		return -1;
	st->src = in;
	st->dst = inout;
	st->len = count;
	return 0;
}

int coll_sched_fold(struct coll_sched *s, char **acc, char **theirs, size_t count,
		    int theirs_first)
{
	char *x = *acc;

	if (theirs_first || s->op.commute)
		return coll_sched_reduce(s, *theirs, *acc, count);
	/* apply writes its second operand: acc op theirs lands in theirs,
	 * and the two buffers trade names instead of being copied */
	if (coll_sched_reduce(s, *acc, *theirs, count))
		return -1;
	*acc = *theirs;
	*theirs = x;
	return 0;
}

int coll_sched_copy(struct coll_sched *s, const void *src, void *dst, size_t len)
{
	struct coll_step *st;

	if (!len || src == dst)
		return 0;
	if (!(st = step_add(s, CS_COPY)))
		return -1;
	st->src = src;
	st->dst = dst;
	st->len = len;
	return 0;
}

int coll_sched_call(struct coll_sched *s, coll_call_fn fn, void *arg)
{
	struct coll_step *st = step_add(s, CS_CALL);

	if (!st)
		return -1;
	st->fn = fn;
	st->dst = arg;
	return 0;
}

void coll_sched_fence(struct coll_sched *s)
{
	/* the mark goes on the next step added */
	s->fence_next = s->nsteps > 0;
}

void coll_sched_set_alt(struct coll_sched *s, const struct coll_comm *alt, int tag)
{
	s->alt = *alt;
	s->alt_tag = tag + alt->tag_ofs;
}

void coll_sched_switch(struct coll_sched *s)
{
	struct coll_comm c = s->c;
	int tag = s->tag;

	s->c = s->alt;
	s->tag = s->alt_tag;
	s->alt = c;
	s->alt_tag = tag;
	s->view ^= 1;
}

const struct coll_hosts coll_hosts_apart = { .nhosts = 0 };

int coll_sched_hosts(struct coll_sched *s)
{
	const struct coll_hosts *h = s->c.hosts;
	struct coll_comm local = s->c, leaders = s->c;

	local.rank = h->lrank;
	local.size = h->first[h->myhost + 1] - h->first[h->myhost];
	local.peers = h->local_world;
	local.hosts = NULL;
	local.sites = NULL;
	leaders.rank = h->lrank ? -1 : h->myhost;
	leaders.size = h->nhosts;
	leaders.peers = h->leader_world;
	leaders.hosts = &coll_hosts_apart;
	leaders.sites = NULL;
	s->c = local;
	coll_sched_set_alt(s, &leaders, COLL_TAG_HOSTS);
	return !h->lrank;
}

void *coll_sched_tmp(struct coll_sched *s, size_t len)
{
	size_t words = (len + sizeof(max_align_t) - 1) / sizeof(max_align_t);
	struct coll_tmp *t;

	if (words * sizeof(max_align_t) <= sizeof(s->inl) - s->inl_used) {
		void *p = (char *)s->inl + s->inl_used;

		s->inl_used += words * sizeof(max_align_t);
		return p;
	}
	t = malloc(sizeof(*t) + (len ? len : 1));
	if (!t) {
		if (s->error >= 0)
			s->error = michi_err(MICHI_ERR_NOMEM, "no memory for %zu bytes of a "
					     "collective's scratch", len);
		return NULL;
	}
	t->next = s->tmps;
	s->tmps = t;
	return t->data;
}

/* ---- running ------------------------------------------------------------------- */

static int run_ready(void);

static void ready_push(struct coll_sched *s)
{
	s->next_ready = NULL;
	*ready_tail = s;
	ready_tail = &s->next_ready;
	mtmi_defer = run_ready;
}

static void step_done(struct mtmi_req *m)
{
	struct coll_step *st = container_of(m, struct coll_step, m);
	struct coll_sched *s = st->s;

	if (m->error < 0 && s->error >= 0)
		s->error = m->error;
	else if (st->op == CS_RECV && m->count != st->len && s->error >= 0)
		s->error = michi_err(MICHI_ERR_TRUNCATE, "collective message from rank %d has "
				     "%zu bytes, expected %zu", st->peer, m->count, st->len);
	if (--s->pending == 0)
		ready_push(s);
}

static void sched_end(struct coll_sched *s)
{
	struct mtmi_req *done = s->done;
	michi_status_t err = s->error;

	coll_sched_nb_running -= s->nb;
	s->nb = 0;
	/* a persistent schedule stays for the next start; the caller's
	 * on_complete may free it, so nothing touches s after it */
	if (!s->persist)
		coll_sched_free(s);
	done->error = err < 0 ? err : 0;
	done->count = 0;
	done->cancelled = 0;
	__atomic_store_n(&done->done, 1, __ATOMIC_RELEASE);
	if (done->on_complete)
		done->on_complete(done);
}

/* Run rounds from s->cur until one has sends or receives in flight, or
 * the schedule ends. */
static void advance(struct coll_sched *s)
{
	while (s->cur < s->nsteps && s->error >= 0) {
		int i = s->cur;

		s->pending = 1;   /* held while posting */
		s->jump = -1;
		do {
			struct coll_step *st = &s->steps[i];
			const struct coll_comm *v = st->view == s->view ? &s->c : &s->alt;
			int tag = st->view == s->view ? s->tag : s->alt_tag;
			michi_status_t r = MICHI_OK;

			switch (st->op) {
			case CS_SEND:
				st->s = s;
				st->m.on_complete = step_done;
				s->pending++;
				r = mtmi_isend(st->src, st->len, v->peers[st->peer], v->rank, tag,
					       v->ctx, MTMI_MODE_STANDARD, &st->m);
				break;
			case CS_RECV:
				st->s = s;
				st->m.on_complete = step_done;
				s->pending++;
				r = mtmi_irecv(st->dst, st->len, v->peers[st->peer], st->peer, tag,
					       v->ctx, &st->m);
				break;
			case CS_REDUCE:
				s->op.apply(&s->op, st->src, st->dst, st->len);
				break;
			case CS_COPY:
				memmove(st->dst, st->src, st->len);
				break;
			case CS_CALL:
				r = st->fn(s, st->dst);
				break;
			}
			if (r < 0) {
				if (st->op == CS_SEND || st->op == CS_RECV)
					s->pending--;   /* never started */
				s->error = r;
				break;
			}
			i++;
		} while (i < s->nsteps && !s->steps[i].fence && s->jump < 0);
		s->cur = s->jump >= 0 ? s->jump : i;
		if (--s->pending > 0)
			return;   /* the last completion puts s on the ready list */
		if (s->jump >= 0) {
			/* a loop that ran through without waiting goes on in the
			 * next progress call: what it waits for may need progress
			 * elsewhere first (a call step's condition); it is not
			 * progress, so waiters still back off */
			s->looping = 1;
			ready_push(s);
			return;
		}
	}
	sched_end(s);
}

/* Run the schedules that were ready when called; those that become
 * ready meanwhile wait for the next progress call. */
static int run_ready(void)
{
	struct coll_sched *s = ready_head, *next;
	int n = 0;

	ready_head = NULL;
	ready_tail = &ready_head;
	mtmi_defer = NULL;
	for (; s; s = next) {
		next = s->next_ready;
		n += !s->looping;
		s->looping = 0;
		advance(s);
	}
	return n;
}

/* A view's own copy of its rank map. */
static int copy_peers(struct coll_comm *v, int **copy)
{
	if (v->size <= 0)
		return 0;
	if (!(*copy = malloc((size_t)v->size * sizeof(int))))
		return -1;
	memcpy(*copy, v->peers, (size_t)v->size * sizeof(int));
	v->peers = *copy;
	return 0;
}

void coll_sched_number(struct coll_sched *s, uint32_t seq)
{
	int ofs = (int)((seq & COLL_SEQ_MASK) << COLL_SEQ_SHIFT);

	s->tag += ofs - s->c.tag_ofs;
	s->c.tag_ofs = ofs;
	if (s->alt.size > 0) {
		s->alt_tag += ofs - s->alt.tag_ofs;
		s->alt.tag_ofs = ofs;
	}
}

michi_status_t coll_sched_persist(struct coll_sched *s)
{
	if (s->error < 0)
		return s->error;
	if (copy_peers(&s->c, &s->peers_copy) || copy_peers(&s->alt, &s->alt_peers_copy))
		return michi_err(MICHI_ERR_NOMEM, "no memory for a collective's rank map");
	s->tag += COLL_TAG_PERSIST;
	s->alt_tag += COLL_TAG_PERSIST;
	s->persist = 1;
	return MICHI_OK;
}

/* A persistent schedule's next round, from its first step; its rank maps
 * are its own already. Out of line: the blocking collectives' start stays
 * as small as before. */
static __attribute__((noinline)) michi_status_t sched_restart(struct coll_sched *s,
							     struct mtmi_req *done)
{
	s->cur = 0;
	s->pending = 0;
	s->jump = -1;
	s->looping = 0;
	s->error = MICHI_OK;
	s->done = done;
	done->done = 0;
	done->error = 0;
	s->nb = 1;
	coll_sched_nb_running++;
	advance(s);
	return MICHI_OK;
}

michi_status_t coll_sched_start(struct coll_sched *s, struct mtmi_req *done, int own_peers)
{
	michi_status_t err = s->error;

	if (unlikely(s->persist))
		return sched_restart(s, done);
	if (err < 0) {
		coll_sched_free(s);
		return err;
	}
	s->done = done;
	done->done = 0;
	done->error = 0;
	if (own_peers && (copy_peers(&s->c, &s->peers_copy) ||
			  copy_peers(&s->alt, &s->alt_peers_copy))) {
		coll_sched_free(s);
		return michi_err(MICHI_ERR_NOMEM, "no memory for a collective's rank map");
	}
	s->nb = own_peers != 0;
	coll_sched_nb_running += s->nb;
	advance(s);
	return MICHI_OK;
}

size_t coll_sched_bytes(const struct coll_sched *s)
{
	size_t n = 0;

	for (int i = 0; i < s->nsteps; i++)
		if (s->steps[i].op == CS_SEND || s->steps[i].op == CS_RECV)
			n += s->steps[i].len;
	return n;
}

michi_status_t coll_sched_run(struct coll_sched *s)
{
	struct mtmi_req done;
	michi_status_t st;

	done.on_complete = NULL;
	st = coll_sched_start(s, &done, 0);
	if (st < 0)
		return st;
	return mtmi_wait(&done);
}
