/* SPDX-License-Identifier: MIT */
/*
 * mpi/tools/mpit_events.c: MPI_T events and event sources (MPI-4.0 15.3.8 and
 * 15.3.9).
 *
 * Event types. Each type is raised by a layer below through MTMI's one
 * event hook (mtmi/mtmi.h), set only while a registration exists, so a
 * program without tools pays one untaken branch on an out-of-line path:
 *  - "mtmi_unexpected_message": a message reached MTMI's unexpected
 *    queue (no receive posted for it yet). Elements: the sender's process
 *    index (its rank in MPI_COMM_WORLD for the processes of the first
 *    job), its rank in the communicator, the tag, the communicator's
 *    context id, the size in bytes, and the protocol (enumeration
 *    "mtmi_protocol": eager, synchronous eager, rendezvous). Raised for
 *    peers served by byte devices (self, shm, tcp); a matching device
 *    (ofi, ucx) keeps its unexpected queue to itself.
 *
 * One source, "mtmi": the thread that makes MPI progress; timestamps
 * are CLOCK_MONOTONIC nanoseconds, taken when MTMI raises the event, and
 * events of the source come in time order (MPI_T_SOURCE_ORDERED: MPI
 * calls do not run concurrently, MPI_THREAD_MULTIPLE serialises them).
 *
 * Callbacks and safety levels. An event is raised inside progress, with
 * MTMI's queues in use, so the context requires
 * MPI_T_CB_REQUIRE_MPI_RESTRICTED, or MPI_T_CB_REQUIRE_THREAD_SAFE while
 * MPI runs threaded (MPI_THREAD_MULTIPLE, or the progress thread of
 * mpi/env/async.c: the event may then come in a thread the program does not
 * expect, while its other threads run): of a registration's callbacks
 * the one registered for the lowest level at least that strict is called
 * at once, with that requirement as cb_safety. Such a callback may call
 * the MPI_T functions (event_read, event_copy, event_get_timestamp,
 * event_get_source, source_get_timestamp, pvar reads, the info getters,
 * event_handle_free) but no other MPI function. A registration whose
 * callbacks may not run there (one for MPI_T_CB_REQUIRE_NONE only, or a
 * restricted one in a threaded run) gets its events later: they wait in
 * the registration (up to EVENT_QUEUE of them) and are delivered with
 * cb_safety MPI_T_CB_REQUIRE_NONE in the next idle round of a
 * waiting MPI call (mtmi_idle_hook: no MTMI state in use there, the same
 * point at which another thread may call MPI), where the callback may
 * call any MPI function. Instances live only for the callback's call.
 *
 * Dropped events. An event that finds its registration without a
 * callback, or its queue full, is dropped and counted; the dropped
 * handler (MPI_T_event_set_dropped_handler) gets the count, with the
 * source's index and the cb_safety of the moment, right before the
 * registration's next callback runs, or in the next idle round.
 *
 * Info hints: none is interpreted; the info objects given are kept and
 * returned by the get_info calls (as copies the caller frees).
 */
#include "mpiimpl.h"
#include "mpit.h"
#include "info.h"
#include "mtmi.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EVENT_QUEUE 64          /* instances held for a REQUIRE_NONE callback */
#define EVENT_DATA_MAX 64       /* bytes of the largest event's data */
#define CB_LEVELS 4             /* MPI_T_CB_REQUIRE_NONE ... _ASYNC_SIGNAL_SAFE */

/* ---- the event types -------------------------------------------------------------------- */

/* The data of "mtmi_unexpected_message", as MPI_T_event_copy writes it. */
struct ev_unexpected {
	int32_t peer;
	int32_t source;
	int32_t tag;
	uint32_t context;
	uint64_t bytes;
	int32_t protocol;
};

static const struct michi_t_enum_item proto_items[] = {
	{ MTMI_PROTO_EAGER, "eager" },
	{ MTMI_PROTO_EAGER_SYNC, "synchronous_eager" },
	{ MTMI_PROTO_RNDV, "rendezvous" },
};
struct michi_t_enum michi_enum_mtmi_protocol = { "mtmi_protocol", 3, proto_items };

#define EV_ELEMS_MAX 8

static const struct ev_type {
	const char *name, *desc, *category;
	int verbosity;
	int nelem;
	MPI_Datatype types[EV_ELEMS_MAX];
	MPI_Aint displs[EV_ELEMS_MAX];
	size_t size;
	MPI_T_enum enumtype;
} ev_types[] = {
	{ "mtmi_unexpected_message",
	  "a message reached MTMI's unexpected queue: it arrived before a matching receive was "
	  "posted (a rendezvous offer counts when its RTS arrives). Elements: 0 the sender's "
	  "process index (its MPI_COMM_WORLD rank in the first job), 1 its rank in the "
	  "communicator, 2 the tag, 3 the communicator's context id, 4 the message size in bytes, "
	  "5 the protocol (enumeration mtmi_protocol: 0 eager, 1 synchronous eager, "
	  "2 rendezvous). Raised for peers served by byte devices (self, shm, tcp) only",
	  "mtmi", MPI_T_VERBOSITY_TUNER_DETAIL, 6,
	  { MPI_INT, MPI_INT, MPI_INT, MPI_UINT32_T, MPI_UINT64_T, MPI_INT },
	  { offsetof(struct ev_unexpected, peer), offsetof(struct ev_unexpected, source),
	    offsetof(struct ev_unexpected, tag), offsetof(struct ev_unexpected, context),
	    offsetof(struct ev_unexpected, bytes), offsetof(struct ev_unexpected, protocol) },
	  sizeof(struct ev_unexpected), &michi_enum_mtmi_protocol },
};

#define NEV_TYPES ((int)(sizeof(ev_types) / sizeof(ev_types[0])))
_Static_assert(sizeof(struct ev_unexpected) <= EVENT_DATA_MAX, "event data fits an instance");

/* Index of the type MTMI's event kind is reported as. */
static int ev_type_of(int kind)
{
	switch (kind) {
	case MTMI_EVENT_UNEXPECTED:
		return 0;
	default:
		return -1;
	}
}

int michi_event_table(const char **categories, int max)
{
	int i;

	for (i = 0; i < NEV_TYPES && i < max; i++)
		categories[i] = ev_types[i].category;
	return NEV_TYPES;
}

/* ---- sources ------------------------------------------------------------------------------ */

enum { SRC_MTMI, NSOURCES };

static MPI_Count source_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- instances and registrations --------------------------------------------------------- */

struct michi_t_event_instance {
	int type;
	int source;
	MPI_Count timestamp;
	unsigned char data[EVENT_DATA_MAX] __attribute__((aligned(8)));
};

struct michi_t_event_registration {
	struct michi_t_event_registration *next;   /* live registrations */
	int type;
	struct {
		MPI_T_event_cb_function *fn;
		void *user_data;
		struct michi_info *info;
	} cb[CB_LEVELS];
	struct michi_info *info;                   /* the handle's hints */
	MPI_T_event_dropped_cb_function *dropped_fn;
	MPI_Count dropped;                         /* not reported yet */
	int dropped_source;
	struct michi_t_event_instance *queue;      /* ring of EVENT_QUEUE, for cb[NONE] */
	int qhead, qlen;
	int busy;                                  /* a callback of it runs now */
	int freed;                                 /* freed while busy: end after it */
	MPI_T_event_free_cb_function *free_fn;
	void *free_user_data;
};

static struct michi_t_event_registration *regs;
static int delivering;          /* in michi_events_deliver: no recursion */
/* The requirement of the context callbacks run in now (a free callback
 * that MPI_T_event_handle_free runs at once gets it too). */
static int cur_safety = MPI_T_CB_REQUIRE_NONE;

static struct michi_t_event_registration **reg_link(MPI_T_event_registration h)
{
	struct michi_t_event_registration **p;

	if (!h)
		return NULL;
	for (p = &regs; *p; p = &(*p)->next)
		if (*p == h && !h->freed)
			return p;
	return NULL;
}

static void reg_destroy(struct michi_t_event_registration *r)
{
	int i;

	for (i = 0; i < CB_LEVELS; i++)
		if (r->cb[i].info)
			michi_info_release(r->cb[i].info);
	if (r->info)
		michi_info_release(r->info);
	free(r->queue);
	free(r);
}

/* The lowest level at least `need` that has a callback, or -1. */
static int cb_pick(const struct michi_t_event_registration *r, int need)
{
	int l;

	for (l = need; l < CB_LEVELS; l++)
		if (r->cb[l].fn)
			return l;
	return -1;
}

/* The dropped handler gets the user data of the callback that runs at
 * this level (or of the lowest one registered, when none runs). */
static void report_dropped(struct michi_t_event_registration *r, int safety)
{
	MPI_Count n = r->dropped;
	int l = cb_pick(r, safety);

	if (!n || !r->dropped_fn)
		return;
	if (l < 0)
		l = cb_pick(r, MPI_T_CB_REQUIRE_NONE);
	r->dropped = 0;
	r->dropped_fn(n, r, r->dropped_source, (MPI_T_cb_safety)safety,
		      l >= 0 ? r->cb[l].user_data : NULL);
}

/* Call r's callback of level l on ev at cb_safety `safety`. */
static void invoke(struct michi_t_event_registration *r, int l, struct michi_t_event_instance *ev,
		   int safety)
{
	r->busy++;
	report_dropped(r, safety);
	if (r->cb[l].fn && !r->freed)
		r->cb[l].fn(ev, r, (MPI_T_cb_safety)safety, r->cb[l].user_data);
	r->busy--;
}

static void hooks_update(void);

/* End a registration freed while busy, now that its callback returned. */
static void reg_end_if_freed(struct michi_t_event_registration *r, int safety)
{
	struct michi_t_event_registration **p;

	if (!r->freed || r->busy)
		return;
	for (p = &regs; *p; p = &(*p)->next) {
		if (*p == r) {
			*p = r->next;
			break;
		}
	}
	hooks_update();
	if (r->free_fn)
		r->free_fn(r, (MPI_T_cb_safety)safety, r->free_user_data);
	reg_destroy(r);
}

/* MTMI raised an event (mtmi_event_hook): inside progress. */
static void on_mtmi_event(const struct mtmi_event *e)
{
	struct michi_t_event_registration *r, *next;
	struct michi_t_event_instance ev;
	int type = ev_type_of(e->kind);
	int any_deferred = 0, l, outer = cur_safety;
	int need = michi_mt ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_MPI_RESTRICTED;

	if (type < 0)
		return;
	cur_safety = need;
	ev.type = type;
	ev.source = SRC_MTMI;
	ev.timestamp = source_now();
	memset(ev.data, 0, sizeof(ev.data));
	if (e->kind == MTMI_EVENT_UNEXPECTED) {
		struct ev_unexpected *d = (struct ev_unexpected *)ev.data;

		d->peer = e->peer;
		d->source = e->src_rank;
		d->tag = e->tag;
		d->context = e->ctx;
		d->bytes = e->len;
		d->protocol = e->proto;
	}
	for (r = regs; r; r = next) {
		next = r->next;
		if (r->type != type || r->freed)
			continue;
		l = cb_pick(r, need);
		if (l >= 0) {
			invoke(r, l, &ev, need);
			next = r->next;
			reg_end_if_freed(r, need);
			continue;
		}
		/* a callback that cannot run here (NONE, or MPI_RESTRICTED in
		 * a threaded run) gets it in the next idle round */
		if (cb_pick(r, MPI_T_CB_REQUIRE_NONE) >= 0 && r->qlen < EVENT_QUEUE &&
		    (r->queue || (r->queue = malloc(EVENT_QUEUE * sizeof(*r->queue))))) {
			r->queue[(r->qhead + r->qlen++) % EVENT_QUEUE] = ev;
			any_deferred = 1;
			continue;
		}
		if (!r->dropped)
			r->dropped_source = ev.source;
		r->dropped++;
		if (r->dropped_fn)
			any_deferred = 1;
	}
	if (any_deferred)
		mtmi_idle_hook = michi_events_deliver;
	cur_safety = outer;
}

/*
 * A point where any MPI function may be called (an idle round of a
 * waiting call, mtmi_idle_hook): events held for REQUIRE_NONE callbacks
 * and dropped counts are delivered, in order, with cb_safety NONE.
 */
void michi_events_deliver(void)
{
	struct michi_t_event_registration *r, *next;
	struct michi_t_event_instance ev;
	int l;

	if (delivering)
		return;
	delivering = 1;
	mtmi_idle_hook = NULL;   /* events raised from here on set it again */
	for (r = regs; r; r = next) {
		r->busy++;       /* r stays while its callbacks run */
		while (!r->freed && r->qlen) {
			ev = r->queue[r->qhead];
			r->qhead = (r->qhead + 1) % EVENT_QUEUE;
			r->qlen--;
			l = cb_pick(r, MPI_T_CB_REQUIRE_NONE);
			if (l < 0) {   /* the callback was taken away meanwhile */
				if (!r->dropped)
					r->dropped_source = ev.source;
				r->dropped++;
				continue;
			}
			invoke(r, l, &ev, MPI_T_CB_REQUIRE_NONE);
		}
		if (!r->freed)
			report_dropped(r, MPI_T_CB_REQUIRE_NONE);
		r->busy--;
		next = r->next;
		reg_end_if_freed(r, MPI_T_CB_REQUIRE_NONE);
	}
	delivering = 0;
}

/* MTMI calls us only while some registration exists. */
static void hooks_update(void)
{
	mtmi_event_hook = regs ? on_mtmi_event : NULL;
	if (!regs)
		mtmi_idle_hook = NULL;
}

void michi_events_free_all(void)
{
	struct michi_t_event_registration *r;

	while ((r = regs)) {
		regs = r->next;
		reg_destroy(r);
	}
	hooks_update();
}

/* ---- info arguments ----------------------------------------------------------------------- */

/* Info objects live in the handle arena, which MPI_Init sets up; MPI_T
 * may come first (as MPI_Info_create may). */
static int info_arena(void)
{
	return michi_state.active || michi_arena_init() == MICHI_OK ? MPI_SUCCESS
								    : MPI_T_ERR_MEMORY;
}

/* A copy of info's hints in *out (NULL for MPI_INFO_NULL); an error class. */
static int info_keep(MPI_Info info, struct michi_info **out)
{
	struct michi_info *in;

	*out = NULL;
	if (info == MPI_INFO_NULL)
		return MPI_SUCCESS;
	if (info_arena())
		return MPI_T_ERR_MEMORY;
	if (!(in = michi_info_get(info)))
		return MPI_ERR_INFO;
	if (!(*out = michi_info_copy(in)))
		return MPI_T_ERR_MEMORY;
	return MPI_SUCCESS;
}

/* A new info object with the hints kept in `in` (none: empty). */
static int info_give(const struct michi_info *in, MPI_Info *info_used)
{
	struct michi_info *out;

	if (!info_used)
		return MPI_ERR_ARG;
	if (info_arena() || !(out = michi_info_copy(in)))
		return MPI_T_ERR_MEMORY;
	*info_used = (MPI_Info)michi_p2h(out);
	return MPI_SUCCESS;
}

/* ---- MPI_T_event_* ------------------------------------------------------------------------ */

#define EV_CHECK_INIT() do { \
	if (unlikely(!michi_mpit_active())) \
		return MPI_T_ERR_NOT_INITIALIZED; \
} while (0)

int PMPI_T_event_get_num(int *num_events)
{
	EV_CHECK_INIT();
	if (!num_events)
		return MPI_ERR_ARG;
	*num_events = NEV_TYPES;
	return MPI_SUCCESS;
}

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
			  MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
			  int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
			  int *desc_len, int *bind)
{
	const struct ev_type *t;
	int i, err;

	EV_CHECK_INIT();
	if (event_index < 0 || event_index >= NEV_TYPES)
		return MPI_T_ERR_INVALID_INDEX;
	t = &ev_types[event_index];
	/* MPI-4.0 15.3.8: on input *num_elements is the arrays' length; at
	 * most that many entries are written, and it returns the count */
	if (num_elements) {
		for (i = 0; i < t->nelem && i < *num_elements; i++) {
			if (array_of_datatypes)
				array_of_datatypes[i] = t->types[i];
			if (array_of_displacements)
				array_of_displacements[i] = t->displs[i];
		}
		*num_elements = t->nelem;
	}
	michi_mpit_str_out(name, name_len, t->name);
	michi_mpit_str_out(desc, desc_len, t->desc);
	if (verbosity)
		*verbosity = t->verbosity;
	if (enumtype)
		*enumtype = t->enumtype;
	if (bind)
		*bind = MPI_T_BIND_NO_OBJECT;
	if (info && (err = info_give(NULL, info)))
		return err;
	return MPI_SUCCESS;
}

int PMPI_T_event_get_index(const char *name, int *event_index)
{
	int i;

	EV_CHECK_INIT();
	if (!name || !event_index)
		return MPI_ERR_ARG;
	for (i = 0; i < NEV_TYPES; i++) {
		if (strcmp(ev_types[i].name, name) == 0) {
			*event_index = i;
			return MPI_SUCCESS;
		}
	}
	return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
			      MPI_T_event_registration *event_registration)
{
	struct michi_t_event_registration *r;
	int err;

	(void)obj_handle;   /* every event type is bound to no object */
	EV_CHECK_INIT();
	if (event_index < 0 || event_index >= NEV_TYPES)
		return MPI_T_ERR_INVALID_INDEX;
	if (!event_registration)
		return MPI_ERR_ARG;
	r = calloc(1, sizeof(*r));
	if (!r)
		return MPI_T_ERR_MEMORY;
	if ((err = info_keep(info, &r->info))) {
		free(r);
		return err;
	}
	r->type = event_index;
	r->next = regs;
	regs = r;
	hooks_update();
	*event_registration = r;
	return MPI_SUCCESS;
}

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
	struct michi_info *in;
	int err;

	EV_CHECK_INIT();
	if (!reg_link(event_registration))
		return MPI_T_ERR_INVALID_HANDLE;
	if ((err = info_keep(info, &in)))
		return err;
	if (!in)
		return MPI_SUCCESS;
	if (event_registration->info) {
		err = michi_info_merge(event_registration->info, in) < 0 ? MPI_T_ERR_MEMORY : 0;
		michi_info_release(in);
		return err;
	}
	event_registration->info = in;
	return MPI_SUCCESS;
}

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration,
				 MPI_Info *info_used)
{
	EV_CHECK_INIT();
	if (!reg_link(event_registration))
		return MPI_T_ERR_INVALID_HANDLE;
	return info_give(event_registration->info, info_used);
}

static int safety_ok(MPI_T_cb_safety s)
{
	return (int)s >= MPI_T_CB_REQUIRE_NONE && (int)s < CB_LEVELS;
}

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration,
				   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
				   MPI_T_event_cb_function event_cb_function)
{
	struct michi_t_event_registration *r = event_registration;
	struct michi_info *in;
	int err;

	EV_CHECK_INIT();
	if (!reg_link(r))
		return MPI_T_ERR_INVALID_HANDLE;
	if (!safety_ok(cb_safety))
		return MPI_ERR_ARG;
	if ((err = info_keep(info, &in)))
		return err;
	/* a new callback for a level replaces the old one; NULL removes it */
	if (r->cb[cb_safety].info)
		michi_info_release(r->cb[cb_safety].info);
	r->cb[cb_safety].fn = event_cb_function;
	r->cb[cb_safety].user_data = user_data;
	r->cb[cb_safety].info = in;
	return MPI_SUCCESS;
}

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
				   MPI_T_cb_safety cb_safety, MPI_Info info)
{
	struct michi_t_event_registration *r = event_registration;
	struct michi_info *in;
	int err;

	EV_CHECK_INIT();
	if (!reg_link(r))
		return MPI_T_ERR_INVALID_HANDLE;
	if (!safety_ok(cb_safety))
		return MPI_ERR_ARG;
	if ((err = info_keep(info, &in)))
		return err;
	if (!in)
		return MPI_SUCCESS;
	if (r->cb[cb_safety].info) {
		err = michi_info_merge(r->cb[cb_safety].info, in) < 0 ? MPI_T_ERR_MEMORY : 0;
		michi_info_release(in);
		return err;
	}
	r->cb[cb_safety].info = in;
	return MPI_SUCCESS;
}

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
				   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
	EV_CHECK_INIT();
	if (!reg_link(event_registration))
		return MPI_T_ERR_INVALID_HANDLE;
	if (!safety_ok(cb_safety))
		return MPI_ERR_ARG;
	return info_give(event_registration->cb[cb_safety].info, info_used);
}

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
			     MPI_T_event_free_cb_function free_cb_function)
{
	struct michi_t_event_registration **p, *r;

	EV_CHECK_INIT();
	p = reg_link(event_registration);
	if (!p)
		return MPI_T_ERR_INVALID_HANDLE;
	r = *p;
	r->freed = 1;
	r->free_fn = free_cb_function;
	r->free_user_data = user_data;
	r->qlen = 0;   /* held instances go with it */
	if (r->busy)
		return MPI_SUCCESS;   /* ends when its callback returns */
	*p = r->next;
	hooks_update();
	/* no callback can run on it any more: the free callback, at once */
	if (free_cb_function)
		free_cb_function(r, (MPI_T_cb_safety)cur_safety, user_data);
	reg_destroy(r);
	return MPI_SUCCESS;
}

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
				     MPI_T_event_dropped_cb_function dropped_cb_function)
{
	EV_CHECK_INIT();
	if (!reg_link(event_registration))
		return MPI_T_ERR_INVALID_HANDLE;
	event_registration->dropped_fn = dropped_cb_function;
	return MPI_SUCCESS;
}

/* An instance is only passed to callbacks, valid while one runs; it is
 * not looked up, as the standard asks for no check (and it is on the
 * caller's stack or in a registration's queue, neither a heap object). */
static int instance_ok(MPI_T_event_instance ev)
{
	return ev && ev->type >= 0 && ev->type < NEV_TYPES;
}

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
	const struct ev_type *t;
	size_t n;

	EV_CHECK_INIT();
	if (!instance_ok(event_instance))
		return MPI_T_ERR_INVALID_HANDLE;
	t = &ev_types[event_instance->type];
	if (element_index < 0 || element_index >= t->nelem)
		return MPI_T_ERR_INVALID_INDEX;
	if (!buffer)
		return MPI_ERR_ARG;
	n = (size_t)michi_dt_size(t->types[element_index]);
	memcpy(buffer, event_instance->data + t->displs[element_index], n);
	return MPI_SUCCESS;
}

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
	EV_CHECK_INIT();
	if (!instance_ok(event_instance))
		return MPI_T_ERR_INVALID_HANDLE;
	if (!buffer)
		return MPI_ERR_ARG;
	memcpy(buffer, event_instance->data, ev_types[event_instance->type].size);
	return MPI_SUCCESS;
}

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
	EV_CHECK_INIT();
	if (!instance_ok(event_instance))
		return MPI_T_ERR_INVALID_HANDLE;
	if (!event_timestamp)
		return MPI_ERR_ARG;
	*event_timestamp = event_instance->timestamp;
	return MPI_SUCCESS;
}

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
	EV_CHECK_INIT();
	if (!instance_ok(event_instance))
		return MPI_T_ERR_INVALID_HANDLE;
	if (!source_index)
		return MPI_ERR_ARG;
	*source_index = event_instance->source;
	return MPI_SUCCESS;
}

/* ---- MPI_T_source_* ----------------------------------------------------------------------- */

int PMPI_T_source_get_num(int *num_sources)
{
	EV_CHECK_INIT();
	if (!num_sources)
		return MPI_ERR_ARG;
	*num_sources = NSOURCES;
	return MPI_SUCCESS;
}

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc,
			   int *desc_len, MPI_T_source_order *ordering,
			   MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info)
{
	int err;

	EV_CHECK_INIT();
	if (source_index < 0 || source_index >= NSOURCES)
		return MPI_T_ERR_INVALID_INDEX;
	michi_mpit_str_out(name, name_len, "mtmi");
	michi_mpit_str_out(desc, desc_len,
			   "MTMI, the matching layer, in the thread that makes MPI progress: its "
			   "events come in the order they happened; timestamps are "
			   "CLOCK_MONOTONIC nanoseconds");
	if (ordering)
		*ordering = MPI_T_SOURCE_ORDERED;
	if (ticks_per_second)
		*ticks_per_second = 1000000000;
	if (max_ticks)
		*max_ticks = INT64_MAX;
	if (info && (err = info_give(NULL, info)))
		return err;
	return MPI_SUCCESS;
}

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
	EV_CHECK_INIT();
	if (source_index < 0 || source_index >= NSOURCES)
		return MPI_T_ERR_INVALID_INDEX;
	if (!timestamp)
		return MPI_ERR_ARG;
	*timestamp = source_now();
	return MPI_SUCCESS;
}
