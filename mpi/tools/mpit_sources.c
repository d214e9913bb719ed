/* SPDX-License-Identifier: MIT */
/*
 * mpi/tools/mpit_sources.c: the MPI_T performance variables, from what the
 * layers below declare beside their code (util/tvars.h): MTMI's
 * (mtmi/mtmi_mpit.c) and each device's (devices/<dev>/<dev>_mpit.c).
 * Nothing here knows a device or reads a layer's state: the table is,
 * for each device of the device table (mtmi_dev_name, in its order), the
 * frames MTMI moved through it (mtmi_dev_frames) and then the variables
 * the device declared; after the devices, the variables of the other
 * owners (MTMI's).
 *
 * No counter was added to a send, receive or wait path for them (those
 * paths have instruction budgets): every value is derived, when a tool
 * reads it, from state the layers keep anyway.
 */
#include "mpiimpl.h"
#include "mpit.h"
#include "tvars.h"

#include <stdio.h>
#include <string.h>

#define PVAR_MAX 64

/* The linker defines these around the section that MICHI_TVARS fills. */
extern const struct michi_tvars __start_michi_tvars[] __attribute__((weak));
extern const struct michi_tvars __stop_michi_tvars[] __attribute__((weak));

#define TVARS_FOR_EACH(t) \
	for ((t) = __start_michi_tvars; (t) && (t) < __stop_michi_tvars; (t)++)

const struct michi_tvars *michi_tvars_find(const char *owner)
{
	const struct michi_tvars *t;

	TVARS_FOR_EACH(t)
		if (strcmp(t->owner, owner) == 0)
			return t;
	return NULL;
}

int michi_tvars_live(const char *tunable)
{
	const struct michi_tvars *t;
	int i;

	TVARS_FOR_EACH(t)
		for (i = 0; t->live && t->live[i]; i++)
			if (strcmp(t->live[i], tunable) == 0)
				return 1;
	return 0;
}

void michi_pvar_snapshot(void)
{
	const struct michi_tvars *t;

	TVARS_FOR_EACH(t)
		if (t->snapshot)
			t->snapshot();
}

/* ---- readers ------------------------------------------------------------ */

static uint64_t read_frames_sent(int dev)
{
	return mtmi_dev_frames(dev, 0);
}

static uint64_t read_frames_received(int dev)
{
	return mtmi_dev_frames(dev, 1);
}

/* ---- the table ---------------------------------------------------------- */

static struct michi_pvar pvars[PVAR_MAX];
static int npvars;

static struct michi_pvar *pvar_add(const char *category, int var_class, int verbosity,
				   uint64_t (*read)(int), int arg)
{
	struct michi_pvar *v;

	MICHI_ASSERT_ALWAYS(npvars < PVAR_MAX);
	v = &pvars[npvars++];
	v->category = category;
	v->var_class = var_class;
	v->verbosity = verbosity;
	v->read = read;
	v->arg = arg;
	return v;
}

/* A counter of device d, user detail, named by fmt with d for its %s */
static struct michi_pvar *dev_counter(const char *d, uint64_t (*read)(int), int arg,
				      const char *fmt)
{
	struct michi_pvar *v = pvar_add(d, MPI_T_PVAR_CLASS_COUNTER,
					MPI_T_VERBOSITY_USER_DETAIL, read, arg);

	snprintf(v->name, sizeof(v->name), fmt, d);
	return v;
}

static const int tvar_class[] = {
	[MICHI_TVAR_COUNTER] = MPI_T_PVAR_CLASS_COUNTER,
	[MICHI_TVAR_LEVEL] = MPI_T_PVAR_CLASS_LEVEL,
	[MICHI_TVAR_HIGHWATERMARK] = MPI_T_PVAR_CLASS_HIGHWATERMARK,
};

static const int tvar_verbosity[] = {
	MPI_T_VERBOSITY_USER_BASIC, MPI_T_VERBOSITY_USER_DETAIL, MPI_T_VERBOSITY_USER_ALL,
	MPI_T_VERBOSITY_TUNER_BASIC, MPI_T_VERBOSITY_TUNER_DETAIL, MPI_T_VERBOSITY_TUNER_ALL,
	MPI_T_VERBOSITY_MPIDEV_BASIC, MPI_T_VERBOSITY_MPIDEV_DETAIL, MPI_T_VERBOSITY_MPIDEV_ALL,
};

/* The variables an owner declared, listed in its category. */
static void table_owner(const struct michi_tvars *t)
{
	const struct michi_tvar_pvar *d;
	struct michi_pvar *v;
	int i;

	for (i = 0; i < t->npvars; i++) {
		d = &t->pvars[i];
		MICHI_ASSERT_ALWAYS(d->var_class >= 0 && d->var_class <= MICHI_TVAR_HIGHWATERMARK &&
				    d->verbosity >= 0 && d->verbosity <= MICHI_TVAR_MPIDEV_ALL);
		v = pvar_add(t->owner, tvar_class[d->var_class], tvar_verbosity[d->verbosity],
			     d->read, d->arg);
		snprintf(v->name, sizeof(v->name), "%s", d->name);
		if (d->desc)
			snprintf(v->desc, sizeof(v->desc), "%s", d->desc);
		else if (d->describe)
			d->describe(v->desc, sizeof(v->desc));
	}
}

static void table_devices(void)
{
	const struct michi_tvars *t;
	struct michi_pvar *v;
	const char *d;
	int i;

	for (i = 0; (d = mtmi_dev_name(i)) != NULL; i++) {
		v = dev_counter(d, read_frames_sent, i, "%s_frames_sent");
		snprintf(v->desc, sizeof(v->desc),
			 "frames this rank sent through the %s device: one per eager message, "
			 "plus every protocol frame (rendezvous RTS, CTS, DATA, FIN, PUSH; "
			 "synchronous-send and cancel acknowledgements), so frames, not "
			 "messages; counted from MPI_Init", d);
		v = dev_counter(d, read_frames_received, i, "%s_frames_received");
		snprintf(v->desc, sizeof(v->desc),
			 "frames this rank received through the %s device (the same kinds "
			 "of frames as %s_frames_sent); counted from MPI_Init", d, d);
		t = michi_tvars_find(d);
		if (t)
			table_owner(t);
	}
}

/* The owners that are not devices (MTMI), after the devices. */
static void table_others(void)
{
	const struct michi_tvars *t;
	const char *d;
	int i;

	TVARS_FOR_EACH(t) {
		for (i = 0; (d = mtmi_dev_name(i)) != NULL; i++)
			if (strcmp(d, t->owner) == 0)
				break;
		if (!d)
			table_owner(t);
	}
}

int michi_pvar_table(const struct michi_pvar **tab)
{
	if (!npvars) {
		table_devices();
		table_others();
	}
	*tab = pvars;
	return npvars;
}
