/* SPDX-License-Identifier: MIT */
/*
 * util/tvars.h: the MPI_T variables that a layer below mpi/ declares
 * beside its own code (a device in devices/<dev>/<dev>_mpit.c, MTMI in
 * mtmi/mtmi_mpit.c), so that mpi/mpit*.c reads them without knowing the
 * layer: one MICHI_TVARS entry per layer names its owner, the category's
 * description, its performance variables (name, description, a getter)
 * and the tunables it reads again at every use.
 *
 * mpi/tools/mpit_sources.c lists a device's variables after the frame counters
 * that MTMI keeps for it, devices in the device table's order
 * (mtmi_dev_name), then the other owners' (MTMI's). A getter is called
 * before MPI_Init and after MPI_Finalize too: it answers 0 until its
 * layer has started, and the last totals once it has stopped (the
 * snapshot, called by MPI_Finalize while the layer is still up, keeps
 * them).
 */
#ifndef MICHI_TVARS_H
#define MICHI_TVARS_H

#include <stddef.h>
#include <stdint.h>

/* MPI_T_PVAR_CLASS_* (mpi/tools/mpit_sources.c maps them) */
enum michi_tvar_class {
	MICHI_TVAR_COUNTER,        /* grows from MPI_Init on */
	MICHI_TVAR_LEVEL,          /* read as it is */
	MICHI_TVAR_HIGHWATERMARK,
};

/* MPI_T_VERBOSITY_*, in MPI's order */
enum michi_tvar_verbosity {
	MICHI_TVAR_USER_BASIC, MICHI_TVAR_USER_DETAIL, MICHI_TVAR_USER_ALL,
	MICHI_TVAR_TUNER_BASIC, MICHI_TVAR_TUNER_DETAIL, MICHI_TVAR_TUNER_ALL,
	MICHI_TVAR_MPIDEV_BASIC, MICHI_TVAR_MPIDEV_DETAIL, MICHI_TVAR_MPIDEV_ALL,
};

/* One performance variable: an unsigned 64-bit value. */
struct michi_tvar_pvar {
	const char *name;
	int var_class;             /* enum michi_tvar_class */
	int verbosity;             /* enum michi_tvar_verbosity */
	uint64_t (*read)(int arg);
	int arg;
	/* the description: desc, or, when desc is NULL, what describe
	 * writes (a text with numbers from the layer's constants) */
	const char *desc;
	void (*describe)(char *buf, size_t len);
};

struct michi_tvars {
	/* a device's name (as its struct michi_device names it), or a
	 * layer's ("mtmi"): the category that lists the variables */
	const char *owner;
	/* a device's category description (the category sits under
	 * "devices"), or NULL: mpi/tools/mpit.c describes it generically */
	const char *desc;
	const struct michi_tvar_pvar *pvars;
	int npvars;
	/* NULL, or: fold the state the getters read into totals that
	 * outlive the layer; MPI_Finalize calls it before the devices close */
	void (*snapshot)(void);
	/* NULL, or a NULL-terminated list of the owner's tunables that it
	 * reads again at every use: they stay writable through MPI_T after
	 * MPI_Init (scope MPI_T_SCOPE_LOCAL) */
	const char *const *live;
};

#define MICHI_TVARS(id_, ...) \
	static const struct michi_tvars michi_tvars_ent_##id_ \
	__attribute__((used, section("michi_tvars"), aligned(sizeof(void *)))) = { __VA_ARGS__ }

#define MICHI_TVARS_N(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif
