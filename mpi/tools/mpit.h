/* SPDX-License-Identifier: MIT */
/*
 * mpi/tools/mpit.h: what the MPI_T interface (mpi/tools/mpit.c) and the sources of
 * its performance variables (mpi/tools/mpit_sources.c) share.
 *
 * A performance variable is a named source of one unsigned 64-bit value.
 * Counters only ever grow from MPI_Init on (0 before it, frozen after
 * MPI_Finalize); sessions count from their own start (mpi/tools/mpit.c).
 * Levels and high watermarks are read as they are.
 */
#ifndef MICHI_MPIT_H
#define MICHI_MPIT_H

#include <stdint.h>

struct michi_pvar {
	char name[48];
	char desc[512];
	int var_class;        /* MPI_T_PVAR_CLASS_COUNTER, _LEVEL, _HIGHWATERMARK */
	int verbosity;        /* MPI_T_VERBOSITY_* */
	const char *category; /* name of the category that lists it */
	uint64_t (*read)(int arg);
	int arg;              /* e.g. the device's index in the device table */
};

/* The performance variables, built on the first call; returns how many. */
int michi_pvar_table(const struct michi_pvar **tab);

/* Fold the state the counters come from into their totals, while the
 * layers below still exist: MPI_Finalize calls it before it closes the
 * devices, so that counters read afterwards include the last frames. */
void michi_pvar_snapshot(void);

/* What the layers below declared beside their code (util/tvars.h): the
 * declaration of owner (a device's name, "mtmi"), or NULL; whether a
 * tunable is one that its layer reads again at every use. */
struct michi_tvars;
const struct michi_tvars *michi_tvars_find(const char *owner);
int michi_tvars_live(const char *tunable);

/* An enumeration of MPI_T (MPI_T_enum points at one). */
struct michi_t_enum_item {
	int value;
	const char *name;
};

struct michi_t_enum {
	const char *name;
	int n;
	const struct michi_t_enum_item *items;
};

/* mpi/tools/mpit.c: is MPI_T initialised (MPI_T_init_thread more often than
 * MPI_T_finalize)? */
int michi_mpit_active(void);

/* MPI-3.1 14.3.3's rule for returned strings (mpi/tools/mpit.c). */
void michi_mpit_str_out(char *buf, int *len, const char *s);

/* ---- events (mpi/tools/mpit_events.c) ---- */

/* The enumeration of the protocol element of mtmi_unexpected_message. */
extern struct michi_t_enum michi_enum_mtmi_protocol;

/* Category names of the event types, event index order, at most max;
 * returns how many event types there are. */
int michi_event_table(const char **categories, int max);

/* Deliver the events held for REQUIRE_NONE callbacks (mtmi_idle_hook). */
void michi_events_deliver(void);

/* The last MPI_T_finalize: every registration goes. */
void michi_events_free_all(void);

#endif
