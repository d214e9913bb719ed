/* SPDX-License-Identifier: MIT */
/*
 * mpi/tools/mpit.c: the MPI tool information interface (MPI_T, MPI-4.0
 * chapter 15): control variables, performance variables and their
 * sessions, categories. Events and their sources are in
 * mpi/tools/mpit_events.c; the categories list them too.
 *
 * Control variables are the tunables table (util/michi.h), one per
 * MICHI_TUNABLE entry, in table order, named as the tunable is
 * ("mtmi_hash_buckets"; the environment variable adds MICHI_ and upper
 * case). Types map to MPI_INT (int), MPI_UNSIGNED_LONG (size),
 * MPI_DOUBLE (double), MPI_CHAR (string, read into a buffer of
 * MPIT_STRING_MAX characters) and MPI_INT with the enumeration
 * "michi_bool" (bool: 0 no, 1 yes); the audience level gives the
 * verbosity (user, tuner, developer: *_BASIC). Scope and writes:
 *  - most tunables are read once, while MPI_Init sets the library up.
 *    Before MPI_Init they can be written (MPI_T_init_thread loads them
 *    from the environment first, and MPI_Init keeps what was written) and
 *    their scope is MPI_T_SCOPE_LOCAL, or MPI_T_SCOPE_ALL_EQ where every
 *    rank must agree ("device"). From MPI_Init on they say
 *    MPI_T_SCOPE_READONLY and a write returns MPI_T_ERR_CVAR_SET_NEVER:
 *    the value in use can no longer change in this process.
 *  - the few that the library reads again whenever it uses them
 *    (cvar_live[] below: timeouts, collective selection, ...) stay
 *    writable all along. The tunables table has no field for this yet, so
 *    the list lives here; a tunable missing from it is safely read-only
 *    after MPI_Init.
 * MPI_T_ERR_CVAR_SET_NOT_NOW is never returned: no variable becomes
 * writable again later.
 *
 * Performance variables come from mpi/tools/mpit_sources.c, which lists what
 * MTMI and the devices declare beside their code (util/tvars.h). Counters are not
 * continuous: a handle counts from MPI_T_pvar_start, holds its value
 * while stopped, and can be reset or written (it then counts on from the
 * value written); two sessions count independently. Levels and high
 * watermarks are continuous and read-only (MPI_T_ERR_PVAR_NO_STARTSTOP,
 * MPI_T_ERR_PVAR_NO_WRITE). All are unsigned long long, bound to no
 * object.
 *
 * Categories group the control variables by layer, from the tunable's
 * name (rndv_* and mtmi_*: "mtmi", a device's <device>_*: the device's,
 * ...), and the performance variables by device; "devices" holds the
 * per-device categories, which the devices describe (util/tvars.h), and
 * "wait". A tunable of a new prefix gets a category of its
 * own; categories with nothing in them are not listed. The set is fixed
 * at the first MPI_T_init_thread, so MPI_T_category_changed always gives
 * the same number.
 *
 * MPI_T works before MPI_Init and after MPI_Finalize; initialisations are
 * counted, and the last MPI_T_finalize frees the sessions and handles.
 * MPI_T functions never call error handlers: they return error classes
 * (MPI_ERR_ARG for a NULL output pointer, MPI_T_ERR_INVALID for a value
 * a variable cannot take, such as 2 for a bool or an over-long string).
 * Thread support as for MPI: MPI_THREAD_MULTIPLE takes util/mtlock.h's
 * lock around every MPI_T call, as it does for the rest of MPI.
 */
#include "mpiimpl.h"
#include "mpit.h"
#include "tvars.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MPIT_STRING_MAX 1024     /* count of a string control variable */

_Static_assert(sizeof(size_t) == sizeof(unsigned long), "size tunables read as MPI_UNSIGNED_LONG");

static int mpit_refs;

int michi_mpit_active(void)
{
	return mpit_refs > 0;
}

/* Tunables the library reads whenever it uses them, so a write takes
 * effect at any time. Checked against every use (grep the variable). */
static const struct {
	const char *name;
	int scope;
} cvar_live[] = {
	/* every rank of a communicator must choose the same algorithm */
	{ "coll_allreduce_flat_ranks", MPI_T_SCOPE_ALL_EQ },
	{ "coll_allreduce_flat_bytes", MPI_T_SCOPE_ALL_EQ },
	/* the lanes of a multilane scatter or gather (coll/lanes.c) */
	{ "coll_lanes_p", MPI_T_SCOPE_ALL_EQ },
	{ "coll_lanes_h", MPI_T_SCOPE_ALL_EQ },
	{ "coll_lanes_params", MPI_T_SCOPE_ALL_EQ },
	{ "coll_lanes_v_bytes", MPI_T_SCOPE_ALL_EQ },
	/* the grid-aware collectives' lanes (coll/wan.c) */
	{ "coll_wan_lanes", MPI_T_SCOPE_ALL_EQ },
	{ "coll_wan_lanes_max", MPI_T_SCOPE_ALL_EQ },
	{ "coll_wan_lane_bytes", MPI_T_SCOPE_ALL_EQ },
	/* the receiver alone decides to split a rendezvous */
	{ "rndv_split_min", MPI_T_SCOPE_LOCAL },
	{ "mtmi_finalize_timeout", MPI_T_SCOPE_LOCAL },
	{ "pmi_timeout", MPI_T_SCOPE_LOCAL },
	/* and the devices' own, which each device declares beside its code
	 * (util/tvars.h, michi_tvars_live): MPI_T_SCOPE_LOCAL */
};

/* Read at MPI_Init only, and every rank must set the same value. */
static const char *const cvar_all_eq[] = { "device" };

/* ---- strings and enumerations ----------------------------------------------- */

/* MPI-3.1 14.3.3: at most *len - 1 characters and a null, and *len
 * becomes the returned string's length plus one (the truncated string's,
 * as in MPICH and Open MPI); a NULL buffer or *len 0 asks for the whole
 * string's length plus one only. */
void michi_mpit_str_out(char *buf, int *len, const char *s)
{
	size_t n = strlen(s);

	if (!len)
		return;
	if (buf && *len > 0) {
		if (n > (size_t)*len - 1)
			n = (size_t)*len - 1;
		memcpy(buf, s, n);
		buf[n] = '\0';
	}
	*len = (int)n + 1;
}

static const struct michi_t_enum_item bool_items[] = { { 0, "no" }, { 1, "yes" } };
static struct michi_t_enum enum_bool = { "michi_bool", 2, bool_items };

/* ---- the variable and category tables ------------------------------------------- */

static const struct michi_tunable **cvars;
static int ncvars;
static char **cvar_owned;        /* strings written through MPI_T, per cvar */

static const struct michi_pvar *pvars;
static int npvars;

#define EVENTS_MAX 16
static const char *event_cats[EVENTS_MAX];
static int nevents;

struct mpit_cat {
	const char *name;
	const char *desc;
	int parent;                  /* index, -1 for none */
	int *cv, ncv;
	int *pv, npv;
	int *ev, nev;
	int *sub, nsub;
};

static struct mpit_cat *cats;
static int ncats;

/* Category of a tunable by its name: a prefix ending in '_' matches the
 * start of the name, any other the whole name. */
static const struct {
	const char *prefix;
	const char *cat;
} cat_rules[] = {
	{ "mtmi_", "mtmi" }, { "rndv_", "mtmi" },
	{ "device", "devices" },
	/* a device's tunables, <device>_*: the device's category (cvar_cat_name) */
	{ "wait_", "wait" },
	{ "coll_", "coll" },
	{ "pmi_", "pmi" },
	{ "launch_", "launch" }, { "proxy", "launch" }, { "kill_grace", "launch" },
};

struct cat_desc {
	const char *name, *parent, *desc;
};

/* The categories listed first, in this order; after "devices", the
 * devices that describe a category of their own (util/tvars.h), in the
 * device table's order (cat_known_build). */
#define CAT_DEVICES 2
static const struct cat_desc cat_known_fixed[] = {
	{ "mtmi", NULL, "MTMI, the matching layer: matching queues and the eager and "
	  "rendezvous protocols over byte devices" },
	{ "devices", NULL, "the devices and the choice of one device per peer" },
	{ "wait", "devices", "how a rank with nothing to do waits: polls, yields, sleeps" },
	{ "coll", NULL, "collective algorithms and their selection" },
	{ "pmi", NULL, "the process manager client that bootstraps the job" },
	{ "launch", NULL, "mpirun and its per-host proxies" },
};

#define CAT_FIXED ((int)(sizeof(cat_known_fixed) / sizeof(cat_known_fixed[0])))
#define CAT_DEV_MAX 16

static struct cat_desc cat_known[CAT_FIXED + CAT_DEV_MAX];
static int cat_nknown;

static void cat_known_build(void)
{
	const struct michi_tvars *t;
	const char *d;
	int i;

	cat_nknown = 0;
	for (i = 0; i < CAT_DEVICES; i++)
		cat_known[cat_nknown++] = cat_known_fixed[i];
	for (i = 0; (d = mtmi_dev_name(i)) != NULL && i < CAT_DEV_MAX; i++) {
		t = michi_tvars_find(d);
		if (t && t->desc)
			cat_known[cat_nknown++] = (struct cat_desc){ t->owner, "devices", t->desc };
	}
	for (i = CAT_DEVICES; i < CAT_FIXED; i++)
		cat_known[cat_nknown++] = cat_known_fixed[i];
}

/* A device's tunable, <device>_*: the device's category. */
static const char *cvar_dev_cat(const char *tname)
{
	const char *d;
	size_t n;
	int i;

	for (i = 0; (d = mtmi_dev_name(i)) != NULL; i++) {
		n = strlen(d);
		if (strncmp(tname, d, n) == 0 && tname[n] == '_' && michi_tvars_find(d))
			return d;
	}
	return NULL;
}

static int rule_match(const char *prefix, const char *name)
{
	size_t n = strlen(prefix);

	if (n && prefix[n - 1] == '_')
		return strncmp(name, prefix, n) == 0;
	return strcmp(name, prefix) == 0;
}

/* Index of category name in the table being built, added when missing. */
static int cat_find_add(struct mpit_cat *tab, int *n, const char *name)
{
	int i;

	for (i = 0; i < *n; i++)
		if (strcmp(tab[i].name, name) == 0)
			return i;
	tab[*n].name = name;
	tab[*n].desc = "other tunables of this name prefix";
	tab[*n].parent = -1;
	return (*n)++;
}

static const char *cvar_cat_name(const char *tname)
{
	static const char *owned[64];
	static int nowned;
	const char *dev;
	size_t i, len;
	char *s;

	for (i = 0; i < sizeof(cat_rules) / sizeof(cat_rules[0]); i++)
		if (rule_match(cat_rules[i].prefix, tname))
			return cat_rules[i].cat;
	dev = cvar_dev_cat(tname);
	if (dev)
		return dev;
	/* a prefix nobody listed: its first word */
	len = strcspn(tname, "_");
	for (i = 0; i < (size_t)nowned; i++)
		if (strlen(owned[i]) == len && strncmp(owned[i], tname, len) == 0)
			return owned[i];
	s = strndup(tname, len);
	if (!s || nowned == (int)(sizeof(owned) / sizeof(owned[0]))) {
		free(s);
		return "other";
	}
	owned[nowned++] = s;
	return s;
}

static int *int_list(int n)
{
	return calloc((size_t)(n ? n : 1), sizeof(int));
}

/*
 * Built once, at the first MPI_T_init_thread: every later call sees the
 * same indices. Returns MPI_SUCCESS or MPI_T_ERR_MEMORY.
 */
static int tables_build(void)
{
	const struct michi_tunable *t;
	struct mpit_cat *tmp;
	int *keep, *newidx, ntmp, max, i, j;

	for (t = michi_tunables_begin(); t && t < michi_tunables_end(); t++)
		ncvars++;
	cvars = calloc((size_t)(ncvars ? ncvars : 1), sizeof(*cvars));
	cvar_owned = calloc((size_t)(ncvars ? ncvars : 1), sizeof(*cvar_owned));
	if (!cvars || !cvar_owned)
		return MPI_T_ERR_MEMORY;
	i = 0;
	for (t = michi_tunables_begin(); t && t < michi_tunables_end(); t++)
		cvars[i++] = t;
	npvars = michi_pvar_table(&pvars);
	nevents = michi_event_table(event_cats, EVENTS_MAX);
	MICHI_ASSERT_ALWAYS(nevents <= EVENTS_MAX);

	/* every category could be new: one per variable plus the known ones */
	cat_known_build();
	max = cat_nknown + ncvars + npvars + nevents;
	tmp = calloc((size_t)max, sizeof(*tmp));
	keep = int_list(max);
	newidx = int_list(max);
	if (!tmp || !keep || !newidx)
		goto err_nomem;
	ntmp = 0;
	for (i = 0; i < cat_nknown; i++) {
		tmp[ntmp].name = cat_known[i].name;
		tmp[ntmp].desc = cat_known[i].desc;
		tmp[ntmp].parent = -1;
		ntmp++;
	}
	for (i = 0; i < cat_nknown; i++)
		if (cat_known[i].parent)
			tmp[i].parent = cat_find_add(tmp, &ntmp, cat_known[i].parent);
	for (i = 0; i < max; i++) {
		tmp[i].cv = int_list(ncvars);
		tmp[i].pv = int_list(npvars);
		tmp[i].ev = int_list(nevents);
		tmp[i].sub = int_list(max);
		if (!tmp[i].cv || !tmp[i].pv || !tmp[i].ev || !tmp[i].sub)
			goto err_nomem;
	}
	for (i = 0; i < ncvars; i++) {
		j = cat_find_add(tmp, &ntmp, cvar_cat_name(cvars[i]->name));
		tmp[j].cv[tmp[j].ncv++] = i;
	}
	for (i = 0; i < npvars; i++) {
		j = cat_find_add(tmp, &ntmp, pvars[i].category);
		tmp[j].pv[tmp[j].npv++] = i;
	}
	for (i = 0; i < nevents; i++) {
		j = cat_find_add(tmp, &ntmp, event_cats[i]);
		tmp[j].ev[tmp[j].nev++] = i;
	}
	/* a category is listed when it holds a variable or a listed category
	 * (parents come before their children, one level deep) */
	for (i = 0; i < ntmp; i++)
		keep[i] = tmp[i].ncv || tmp[i].npv || tmp[i].nev;
	for (i = 0; i < ntmp; i++)
		if (keep[i] && tmp[i].parent >= 0)
			keep[tmp[i].parent] = 1;
	for (i = 0, j = 0; i < ntmp; i++)
		newidx[i] = keep[i] ? j++ : -1;
	cats = calloc((size_t)(j ? j : 1), sizeof(*cats));
	if (!cats)
		goto err_nomem;
	for (i = 0; i < ntmp; i++) {
		struct mpit_cat *c;

		if (!keep[i])
			continue;
		c = &cats[newidx[i]];
		*c = tmp[i];
		c->parent = tmp[i].parent >= 0 ? newidx[tmp[i].parent] : -1;
		c->nsub = 0;
		tmp[i].cv = tmp[i].pv = tmp[i].ev = tmp[i].sub = NULL;   /* now owned by cats */
	}
	ncats = j;
	for (i = 0; i < ncats; i++)
		if (cats[i].parent >= 0)
			cats[cats[i].parent].sub[cats[cats[i].parent].nsub++] = i;
	for (i = 0; i < max; i++) {
		free(tmp[i].cv);
		free(tmp[i].pv);
		free(tmp[i].ev);
		free(tmp[i].sub);
	}
	free(tmp);
	free(keep);
	free(newidx);
	return MPI_SUCCESS;

err_nomem:
	for (i = 0; tmp && i < max; i++) {
		free(tmp[i].cv);
		free(tmp[i].pv);
		free(tmp[i].ev);
		free(tmp[i].sub);
	}
	free(tmp);
	free(keep);
	free(newidx);
	free(cvars);
	free(cvar_owned);
	cvars = NULL;
	cvar_owned = NULL;
	ncvars = npvars = nevents = 0;
	return MPI_T_ERR_MEMORY;
}

/* ---- init and finalize ---------------------------------------------------------------- */

#define MPIT_CHECK_INIT() do { \
	if (unlikely(mpit_refs <= 0)) \
		return MPI_T_ERR_NOT_INITIALIZED; \
} while (0)

static void sessions_free_all(void);
static void cvar_handles_free_all(void);

int PMPI_T_init_thread(int required, int *provided)
{
	int err;

	if (!provided)
		return MPI_ERR_ARG;
	if (!cats) {
		/* values from the environment first: what a tool writes then
		 * stays, since MPI_Init loads the table only once */
		michi_tunables_load();
		err = tables_build();
		if (err)
			return err;
	}
	mpit_refs++;
	*provided = michi_thread_level(required);
	if (*provided == MPI_THREAD_MULTIPLE)
		michi_mt_tool(1);
	return MPI_SUCCESS;
}

int PMPI_T_finalize(void)
{
	MPIT_CHECK_INIT();
	if (--mpit_refs == 0) {
		/* the tables stay (indices must not change), the objects go */
		sessions_free_all();
		cvar_handles_free_all();
		michi_events_free_all();
		michi_mt_tool(0);
	}
	return MPI_SUCCESS;
}

/* ---- enumerations ----------------------------------------------------------------------- */

static int enum_ok(MPI_T_enum e)
{
	return e == &enum_bool || e == &michi_enum_mtmi_protocol;
}

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
	MPIT_CHECK_INIT();
	if (!enum_ok(enumtype))
		return MPI_T_ERR_INVALID_HANDLE;
	if (!num)
		return MPI_ERR_ARG;
	*num = enumtype->n;
	michi_mpit_str_out(name, name_len, enumtype->name);
	return MPI_SUCCESS;
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
	MPIT_CHECK_INIT();
	if (!enum_ok(enumtype))
		return MPI_T_ERR_INVALID_HANDLE;
	if (indx < 0 || indx >= enumtype->n)
		return MPI_T_ERR_INVALID_ITEM;
	if (!value)
		return MPI_ERR_ARG;
	*value = enumtype->items[indx].value;
	michi_mpit_str_out(name, name_len, enumtype->items[indx].name);
	return MPI_SUCCESS;
}

/* ---- control variables ---------------------------------------------------------------- */

/* Handles are checked against the lists of live ones, so a stale or
 * garbage pointer gets an error class, never a dereference. */
struct michi_t_cvar_handle {
	int index;
	struct michi_t_cvar_handle *next;   /* live handles */
};

static struct michi_t_cvar_handle *cvar_handles;

static int mpi_started(void)
{
	return michi_state.active || michi_state.initialized || michi_state.finalized;
}

static int cvar_live_scope(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(cvar_live) / sizeof(cvar_live[0]); i++)
		if (strcmp(cvar_live[i].name, name) == 0)
			return cvar_live[i].scope;
	return michi_tvars_live(name) ? MPI_T_SCOPE_LOCAL : 0;
}

static int cvar_scope(const struct michi_tunable *t)
{
	int s = cvar_live_scope(t->name);
	size_t i;

	if (s)
		return s;
	if (mpi_started())
		return MPI_T_SCOPE_READONLY;
	for (i = 0; i < sizeof(cvar_all_eq) / sizeof(cvar_all_eq[0]); i++)
		if (strcmp(cvar_all_eq[i], t->name) == 0)
			return MPI_T_SCOPE_ALL_EQ;
	return MPI_T_SCOPE_LOCAL;
}

static MPI_Datatype cvar_type(const struct michi_tunable *t)
{
	switch (t->type) {
	case MICHI_T_SIZE: return MPI_UNSIGNED_LONG;
	case MICHI_T_DOUBLE: return MPI_DOUBLE;
	case MICHI_T_STRING: return MPI_CHAR;
	default: return MPI_INT;   /* int, bool */
	}
}

static int cvar_verbosity(const struct michi_tunable *t)
{
	switch (t->level) {
	case MICHI_LEVEL_USER: return MPI_T_VERBOSITY_USER_BASIC;
	case MICHI_LEVEL_TUNER: return MPI_T_VERBOSITY_TUNER_BASIC;
	default: return MPI_T_VERBOSITY_MPIDEV_BASIC;
	}
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
	MPIT_CHECK_INIT();
	if (!num_cvar)
		return MPI_ERR_ARG;
	*num_cvar = ncvars;
	return MPI_SUCCESS;
}

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
			 MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
			 int *bind, int *scope)
{
	const struct michi_tunable *t;
	char env[128], d[768];
	size_t i, n;

	MPIT_CHECK_INIT();
	if (cvar_index < 0 || cvar_index >= ncvars)
		return MPI_T_ERR_INVALID_INDEX;
	t = cvars[cvar_index];
	michi_mpit_str_out(name, name_len, t->name);
	if (verbosity)
		*verbosity = cvar_verbosity(t);
	if (datatype)
		*datatype = cvar_type(t);
	if (enumtype)
		*enumtype = t->type == MICHI_T_BOOL ? &enum_bool : MPI_T_ENUM_NULL;
	if (desc_len) {
		n = (size_t)snprintf(env, sizeof(env), "MICHI_");
		for (i = 0; t->name[i] && n + 1 < sizeof(env); i++)
			env[n++] = (char)toupper((unsigned char)t->name[i]);
		env[n] = '\0';
		snprintf(d, sizeof(d), "%s (environment variable %s, default '%s'; %s)", t->help,
			 env, t->defval ? t->defval : "",
			 cvar_live_scope(t->name) ? "may change at any time"
						  : "read at MPI_Init, set it before");
		michi_mpit_str_out(desc, desc_len, d);
	}
	if (bind)
		*bind = MPI_T_BIND_NO_OBJECT;
	if (scope)
		*scope = cvar_scope(t);
	return MPI_SUCCESS;
}

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
	int i;

	MPIT_CHECK_INIT();
	if (!name || !cvar_index)
		return MPI_ERR_ARG;
	for (i = 0; i < ncvars; i++) {
		if (strcmp(cvars[i]->name, name) == 0) {
			*cvar_index = i;
			return MPI_SUCCESS;
		}
	}
	return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
			     int *count)
{
	struct michi_t_cvar_handle *h;

	(void)obj_handle;   /* every variable is bound to no object */
	MPIT_CHECK_INIT();
	if (cvar_index < 0 || cvar_index >= ncvars)
		return MPI_T_ERR_INVALID_INDEX;
	if (!handle || !count)
		return MPI_ERR_ARG;
	h = malloc(sizeof(*h));
	if (!h)
		return MPI_T_ERR_MEMORY;
	h->index = cvar_index;
	h->next = cvar_handles;
	cvar_handles = h;
	*handle = h;
	*count = cvars[cvar_index]->type == MICHI_T_STRING ? MPIT_STRING_MAX : 1;
	return MPI_SUCCESS;
}

/* A live handle, found in the list (a stale pointer is never dereferenced). */
static struct michi_t_cvar_handle **cvar_handle_link(MPI_T_cvar_handle h)
{
	struct michi_t_cvar_handle **p;

	if (!h)
		return NULL;
	for (p = &cvar_handles; *p; p = &(*p)->next)
		if (*p == h)
			return p;
	return NULL;
}

static void cvar_handles_free_all(void)
{
	struct michi_t_cvar_handle *h;

	while ((h = cvar_handles)) {
		cvar_handles = h->next;
		free(h);
	}
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
	struct michi_t_cvar_handle **p, *h;

	MPIT_CHECK_INIT();
	if (!handle)
		return MPI_ERR_ARG;
	p = cvar_handle_link(*handle);
	if (!p)
		return MPI_T_ERR_INVALID_HANDLE;
	h = *p;
	*p = h->next;
	free(h);
	*handle = MPI_T_CVAR_HANDLE_NULL;
	return MPI_SUCCESS;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
	const struct michi_tunable *t;

	MPIT_CHECK_INIT();
	if (!cvar_handle_link(handle))
		return MPI_T_ERR_INVALID_HANDLE;
	if (!buf)
		return MPI_ERR_ARG;
	t = cvars[handle->index];
	switch (t->type) {
	case MICHI_T_INT:
	case MICHI_T_BOOL:
		*(int *)buf = *(const int *)t->var;
		break;
	case MICHI_T_SIZE:
		*(unsigned long *)buf = *(const size_t *)t->var;
		break;
	case MICHI_T_DOUBLE:
		*(double *)buf = *(const double *)t->var;
		break;
	case MICHI_T_STRING: {
		const char *s = *(const char *const *)t->var;
		int len = MPIT_STRING_MAX;

		michi_mpit_str_out(buf, &len, s ? s : "");
		break;
	}
	default:
		return MPI_T_ERR_INVALID;
	}
	return MPI_SUCCESS;
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
	const struct michi_tunable *t;
	int i;

	MPIT_CHECK_INIT();
	if (!cvar_handle_link(handle))
		return MPI_T_ERR_INVALID_HANDLE;
	if (!buf)
		return MPI_ERR_ARG;
	i = handle->index;
	t = cvars[i];
	if (cvar_scope(t) == MPI_T_SCOPE_READONLY)
		return MPI_T_ERR_CVAR_SET_NEVER;
	switch (t->type) {
	case MICHI_T_INT:
		*(int *)t->var = *(const int *)buf;
		break;
	case MICHI_T_BOOL:
		if (*(const int *)buf != 0 && *(const int *)buf != 1)
			return MPI_T_ERR_INVALID;
		*(int *)t->var = *(const int *)buf;
		break;
	case MICHI_T_SIZE:
		*(size_t *)t->var = *(const unsigned long *)buf;
		break;
	case MICHI_T_DOUBLE:
		*(double *)t->var = *(const double *)buf;
		break;
	case MICHI_T_STRING: {
		char *s;

		if (strnlen(buf, MPIT_STRING_MAX) == MPIT_STRING_MAX)
			return MPI_T_ERR_INVALID;
		s = strdup(buf);
		if (!s)
			return MPI_T_ERR_MEMORY;
		/* the old string may be the environment's or the default:
		 * only copies made here are ours to free */
		*(const char **)t->var = s;
		free(cvar_owned[i]);
		cvar_owned[i] = s;
		break;
	}
	default:
		return MPI_T_ERR_INVALID;
	}
	return MPI_SUCCESS;
}

/* ---- performance variables ---------------------------------------------------------- */

struct michi_t_pvar_handle {
	int index;
	struct michi_t_pvar_handle *next;   /* the session's handles */
	int started;
	uint64_t base;     /* source value at the last start, reset or write */
	uint64_t accum;    /* value counted up to base */
};

struct michi_t_pvar_session {
	struct michi_t_pvar_session *next;  /* live sessions */
	struct michi_t_pvar_handle *handles;
};

static struct michi_t_pvar_session *sessions;

static int pvar_continuous(const struct michi_pvar *v)
{
	return v->var_class != MPI_T_PVAR_CLASS_COUNTER;
}

static int pvar_readonly(const struct michi_pvar *v)
{
	return v->var_class != MPI_T_PVAR_CLASS_COUNTER;
}

int PMPI_T_pvar_get_num(int *num_pvar)
{
	MPIT_CHECK_INIT();
	if (!num_pvar)
		return MPI_ERR_ARG;
	*num_pvar = npvars;
	return MPI_SUCCESS;
}

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
			 int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
			 char *desc, int *desc_len, int *bind, int *readonly, int *continuous,
			 int *atomic)
{
	const struct michi_pvar *v;

	MPIT_CHECK_INIT();
	if (pvar_index < 0 || pvar_index >= npvars)
		return MPI_T_ERR_INVALID_INDEX;
	v = &pvars[pvar_index];
	michi_mpit_str_out(name, name_len, v->name);
	michi_mpit_str_out(desc, desc_len, v->desc);
	if (verbosity)
		*verbosity = v->verbosity;
	if (var_class)
		*var_class = v->var_class;
	if (datatype)
		*datatype = MPI_UNSIGNED_LONG_LONG;
	if (enumtype)
		*enumtype = MPI_T_ENUM_NULL;
	if (bind)
		*bind = MPI_T_BIND_NO_OBJECT;
	if (readonly)
		*readonly = pvar_readonly(v);
	if (continuous)
		*continuous = pvar_continuous(v);
	/* values change only inside MPI calls, and MPI calls do not run
	 * concurrently (under MPI_THREAD_MULTIPLE they hold one lock): read
	 * and reset together see one value */
	if (atomic)
		*atomic = 1;
	return MPI_SUCCESS;
}

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
	int i;

	MPIT_CHECK_INIT();
	if (!name || !pvar_index)
		return MPI_ERR_ARG;
	for (i = 0; i < npvars; i++) {
		if (pvars[i].var_class == var_class && strcmp(pvars[i].name, name) == 0) {
			*pvar_index = i;
			return MPI_SUCCESS;
		}
	}
	return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
	struct michi_t_pvar_session *s;

	MPIT_CHECK_INIT();
	if (!session)
		return MPI_ERR_ARG;
	s = calloc(1, sizeof(*s));
	if (!s)
		return MPI_T_ERR_MEMORY;
	s->next = sessions;
	sessions = s;
	*session = s;
	return MPI_SUCCESS;
}

static struct michi_t_pvar_session **session_link(MPI_T_pvar_session s)
{
	struct michi_t_pvar_session **p;

	if (!s)
		return NULL;
	for (p = &sessions; *p; p = &(*p)->next)
		if (*p == s)
			return p;
	return NULL;
}

static void session_destroy(struct michi_t_pvar_session *s)
{
	struct michi_t_pvar_handle *h;

	while ((h = s->handles)) {
		s->handles = h->next;
		free(h);
	}
	free(s);
}

static void sessions_free_all(void)
{
	struct michi_t_pvar_session *s;

	while ((s = sessions)) {
		sessions = s->next;
		session_destroy(s);
	}
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
	struct michi_t_pvar_session **p, *s;

	MPIT_CHECK_INIT();
	if (!session)
		return MPI_ERR_ARG;
	p = session_link(*session);
	if (!p)
		return MPI_T_ERR_INVALID_SESSION;
	s = *p;
	*p = s->next;
	session_destroy(s);
	*session = MPI_T_PVAR_SESSION_NULL;
	return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
			     MPI_T_pvar_handle *handle, int *count)
{
	struct michi_t_pvar_handle *h;

	(void)obj_handle;   /* bound to no object */
	MPIT_CHECK_INIT();
	if (!session_link(session))
		return MPI_T_ERR_INVALID_SESSION;
	if (pvar_index < 0 || pvar_index >= npvars)
		return MPI_T_ERR_INVALID_INDEX;
	if (!handle || !count)
		return MPI_ERR_ARG;
	h = calloc(1, sizeof(*h));
	if (!h)
		return MPI_T_ERR_MEMORY;
	h->index = pvar_index;
	/* continuous variables run from the start; counters wait for start */
	h->started = pvar_continuous(&pvars[pvar_index]);
	h->next = session->handles;
	session->handles = h;
	*handle = h;
	*count = 1;
	return MPI_SUCCESS;
}

/* MPI_SUCCESS with *hp the handle's link in its session, or the error. */
static int pvar_handle_find(MPI_T_pvar_session session, MPI_T_pvar_handle handle,
			    struct michi_t_pvar_handle ***hp)
{
	struct michi_t_pvar_handle **p;

	if (!session_link(session))
		return MPI_T_ERR_INVALID_SESSION;
	if (!handle || handle == MPI_T_PVAR_ALL_HANDLES)
		return MPI_T_ERR_INVALID_HANDLE;
	for (p = &session->handles; *p; p = &(*p)->next) {
		if (*p == handle) {
			*hp = p;
			return MPI_SUCCESS;
		}
	}
	return MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
	struct michi_t_pvar_handle **p, *h;
	int err;

	MPIT_CHECK_INIT();
	if (!handle)
		return MPI_ERR_ARG;
	err = pvar_handle_find(session, *handle, &p);
	if (err)
		return err;
	h = *p;
	*p = h->next;
	free(h);
	*handle = MPI_T_PVAR_HANDLE_NULL;
	return MPI_SUCCESS;
}

/*
 * The handle's value; *now gets the source's value it was computed from
 * (the source is read once, so that a read and a reset see one value).
 */
static uint64_t pvar_value(const struct michi_t_pvar_handle *h, uint64_t *now)
{
	const struct michi_pvar *v = &pvars[h->index];

	*now = h->started ? v->read(v->arg) : 0;
	if (pvar_continuous(v))
		return *now;
	if (!h->started)
		return h->accum;
	return h->accum + (*now - h->base);
}

/* Counters only: the handle's value becomes val at source value now and
 * counts on from there. */
static void pvar_set(struct michi_t_pvar_handle *h, uint64_t val, uint64_t now)
{
	h->accum = val;
	h->base = now;
}

/* start, stop and reset of one handle */
enum { PV_START, PV_STOP, PV_RESET };

static int pvar_op(struct michi_t_pvar_handle *h, int op)
{
	const struct michi_pvar *v = &pvars[h->index];

	switch (op) {
	case PV_START:
		if (pvar_continuous(v))
			return MPI_T_ERR_PVAR_NO_STARTSTOP;
		if (!h->started) {
			h->base = v->read(v->arg);
			h->started = 1;
		}
		return MPI_SUCCESS;
	case PV_STOP:
		if (pvar_continuous(v))
			return MPI_T_ERR_PVAR_NO_STARTSTOP;
		if (h->started) {
			h->accum += v->read(v->arg) - h->base;
			h->started = 0;
		}
		return MPI_SUCCESS;
	default:
		if (pvar_readonly(v))
			return MPI_T_ERR_PVAR_NO_WRITE;
		pvar_set(h, 0, h->started ? v->read(v->arg) : 0);
		return MPI_SUCCESS;
	}
}

static int pvar_op_any(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int op)
{
	struct michi_t_pvar_handle **p, *h;
	int err;

	MPIT_CHECK_INIT();
	if (handle != MPI_T_PVAR_ALL_HANDLES) {
		err = pvar_handle_find(session, handle, &p);
		return err ? err : pvar_op(*p, op);
	}
	if (!session_link(session))
		return MPI_T_ERR_INVALID_SESSION;
	/* MPI-3.1 14.3.7: with MPI_T_PVAR_ALL_HANDLES, continuous variables
	 * (start, stop) and read-only ones (reset) are ignored; nothing else
	 * can fail here */
	for (h = session->handles; h; h = h->next)
		pvar_op(h, op);
	return MPI_SUCCESS;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
	return pvar_op_any(session, handle, PV_START);
}

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
	return pvar_op_any(session, handle, PV_STOP);
}

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
	return pvar_op_any(session, handle, PV_RESET);
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
	struct michi_t_pvar_handle **p;
	uint64_t now;
	int err;

	MPIT_CHECK_INIT();
	err = pvar_handle_find(session, handle, &p);
	if (err)
		return err;
	if (!buf)
		return MPI_ERR_ARG;
	*(unsigned long long *)buf = pvar_value(*p, &now);
	return MPI_SUCCESS;
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
	struct michi_t_pvar_handle **p;
	uint64_t now;
	int err;

	MPIT_CHECK_INIT();
	err = pvar_handle_find(session, handle, &p);
	if (err)
		return err;
	if (!buf)
		return MPI_ERR_ARG;
	if (pvar_readonly(&pvars[(*p)->index]))
		return MPI_T_ERR_PVAR_NO_WRITE;
	*(unsigned long long *)buf = pvar_value(*p, &now);
	pvar_set(*p, 0, now);
	return MPI_SUCCESS;
}

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
	struct michi_t_pvar_handle **p;
	uint64_t now;
	int err;

	MPIT_CHECK_INIT();
	err = pvar_handle_find(session, handle, &p);
	if (err)
		return err;
	if (!buf)
		return MPI_ERR_ARG;
	if (pvar_readonly(&pvars[(*p)->index]))
		return MPI_T_ERR_PVAR_NO_WRITE;
	pvar_value(*p, &now);
	pvar_set(*p, *(const unsigned long long *)buf, now);
	return MPI_SUCCESS;
}

/* ---- categories ------------------------------------------------------------------------ */

int PMPI_T_category_get_num(int *num_cat)
{
	MPIT_CHECK_INIT();
	if (!num_cat)
		return MPI_ERR_ARG;
	*num_cat = ncats;
	return MPI_SUCCESS;
}

int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
			     int *desc_len, int *num_cvars, int *num_pvars, int *num_categories)
{
	const struct mpit_cat *c;

	MPIT_CHECK_INIT();
	if (cat_index < 0 || cat_index >= ncats)
		return MPI_T_ERR_INVALID_INDEX;
	c = &cats[cat_index];
	michi_mpit_str_out(name, name_len, c->name);
	michi_mpit_str_out(desc, desc_len, c->desc);
	if (num_cvars)
		*num_cvars = c->ncv;
	if (num_pvars)
		*num_pvars = c->npv;
	if (num_categories)
		*num_categories = c->nsub;
	return MPI_SUCCESS;
}

int PMPI_T_category_get_index(const char *name, int *cat_index)
{
	int i;

	MPIT_CHECK_INIT();
	if (!name || !cat_index)
		return MPI_ERR_ARG;
	for (i = 0; i < ncats; i++) {
		if (strcmp(cats[i].name, name) == 0) {
			*cat_index = i;
			return MPI_SUCCESS;
		}
	}
	return MPI_T_ERR_INVALID_NAME;
}

enum { CAT_CVARS, CAT_PVARS, CAT_EVENTS, CAT_SUBS };

static int cat_list(int cat_index, int len, int indices[], int what)
{
	const struct mpit_cat *c;
	const int *which;
	int i, n;

	MPIT_CHECK_INIT();
	if (cat_index < 0 || cat_index >= ncats)
		return MPI_T_ERR_INVALID_INDEX;
	if (len < 0 || (len > 0 && !indices))
		return MPI_ERR_ARG;
	c = &cats[cat_index];
	which = what == CAT_CVARS ? c->cv : what == CAT_PVARS ? c->pv
	      : what == CAT_EVENTS ? c->ev : c->sub;
	n = what == CAT_CVARS ? c->ncv : what == CAT_PVARS ? c->npv
	  : what == CAT_EVENTS ? c->nev : c->nsub;
	for (i = 0; i < n && i < len; i++)
		indices[i] = which[i];
	return MPI_SUCCESS;
}

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
	return cat_list(cat_index, len, indices, CAT_CVARS);
}

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
	return cat_list(cat_index, len, indices, CAT_PVARS);
}

int PMPI_T_category_get_events(int cat_index, int len, int indices[])
{
	return cat_list(cat_index, len, indices, CAT_EVENTS);
}

int PMPI_T_category_get_num_events(int cat_index, int *num_events)
{
	MPIT_CHECK_INIT();
	if (cat_index < 0 || cat_index >= ncats)
		return MPI_T_ERR_INVALID_INDEX;
	if (!num_events)
		return MPI_ERR_ARG;
	*num_events = cats[cat_index].nev;
	return MPI_SUCCESS;
}

int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
	return cat_list(cat_index, len, indices, CAT_SUBS);
}

int PMPI_T_category_changed(int *update_number)
{
	MPIT_CHECK_INIT();
	if (!update_number)
		return MPI_ERR_ARG;
	/* the tables are built once and never change */
	*update_number = 0;
	return MPI_SUCCESS;
}
