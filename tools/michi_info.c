/* SPDX-License-Identifier: MIT */
/*
 * tools/michi_info.c: what this Michi build is and how it can be tuned.
 * `michi_info` prints the version and build options; `--params` lists
 * every tunable (environment variable MICHI_<NAME>) with its help line;
 * `--mpit` lists what the tool information interface offers (categories,
 * control and performance variables, events), read through MPI_T itself.
 * `--calibrate-grid [--out FILE] [--bytes N]`, run under mpirun over the
 * hosts of two sites or more, measures the lanes' cost model parameters
 * for every pair of sites (mpi/coll/grid.c) and writes the grid profile that
 * jobs read from MICHI_GRID_PROFILE (FILE, or standard output).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

void michi_tunables_print(void *stdio_file, int max_level);
int michi_grid_calibrate(const char *out, size_t bytes, int verbose);

/* A size with an optional k/m/g suffix; 0 on a bad one. */
static size_t size_arg(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	else if (*end == 'g' || *end == 'G')
		v <<= 30, end++;
	return *end ? 0 : (size_t)v;
}

static int calibrate(const char *out, size_t bytes, int verbose)
{
	int rc;

	/* one socket a peer pair: the tcp device's second one for large
	 * frames would double what one lane measures; and waits that sleep:
	 * ranks that spin while they wait for the network take the cores
	 * from the ones timing a transfer wherever ranks share cores (the
	 * emulated grid's hosts: 8 ranks on 2 cores measured alpha 5 ms and
	 * b_LAN 28 Mb/s spinning, 0.01 ms and 96 Mb/s blocking) */
	setenv("MICHI_TCP_STRIPE_MIN", "0", 0);
	setenv("MICHI_WAIT_POLICY", "block", 0);
	MPI_Init(NULL, NULL);
	rc = michi_grid_calibrate(out, bytes, verbose);
	MPI_Finalize();
	return rc;
}

static const char *pvar_class(int c)
{
	switch (c) {
	case MPI_T_PVAR_CLASS_STATE: return "state";
	case MPI_T_PVAR_CLASS_LEVEL: return "level";
	case MPI_T_PVAR_CLASS_SIZE: return "size";
	case MPI_T_PVAR_CLASS_PERCENTAGE: return "percentage";
	case MPI_T_PVAR_CLASS_HIGHWATERMARK: return "highwatermark";
	case MPI_T_PVAR_CLASS_LOWWATERMARK: return "lowwatermark";
	case MPI_T_PVAR_CLASS_COUNTER: return "counter";
	case MPI_T_PVAR_CLASS_AGGREGATE: return "aggregate";
	case MPI_T_PVAR_CLASS_TIMER: return "timer";
	case MPI_T_PVAR_CLASS_GENERIC: return "generic";
	default: return "?";
	}
}

static const char *cvar_scope(int s)
{
	switch (s) {
	case MPI_T_SCOPE_CONSTANT: return "constant";
	case MPI_T_SCOPE_READONLY: return "readonly";
	case MPI_T_SCOPE_LOCAL: return "local";
	case MPI_T_SCOPE_GROUP: return "group";
	case MPI_T_SCOPE_GROUP_EQ: return "group_eq";
	case MPI_T_SCOPE_ALL: return "all";
	case MPI_T_SCOPE_ALL_EQ: return "all_eq";
	default: return "?";
	}
}

/* MPI_Type_get_name needs MPI_Init; MPI_T's types are these few */
static const char *type_name(MPI_Datatype t)
{
	static const struct {
		MPI_Datatype t;
		const char *name;
	} names[] = {
		{ MPI_INT, "MPI_INT" }, { MPI_UNSIGNED, "MPI_UNSIGNED" },
		{ MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG" },
		{ MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG" },
		{ MPI_COUNT, "MPI_COUNT" }, { MPI_CHAR, "MPI_CHAR" }, { MPI_DOUBLE, "MPI_DOUBLE" },
		{ MPI_INT32_T, "MPI_INT32_T" }, { MPI_INT64_T, "MPI_INT64_T" },
		{ MPI_UINT32_T, "MPI_UINT32_T" }, { MPI_UINT64_T, "MPI_UINT64_T" },
		{ MPI_AINT, "MPI_AINT" }, { MPI_DATATYPE_NULL, "-" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].t == t)
			return names[i].name;
	return "?";
}

/* One line a category, variable and event, tab-separated, as MPI_T
 * reports them before MPI_Init (scopes are those a tool may still set):
 *   category NAME  DESC  cvars=a,b  pvars=...  events=...
 *   cvar     NAME  DATATYPE  SCOPE  DESC
 *   pvar     NAME  CLASS  DATATYPE  readonly|writable  DESC
 *   event    NAME  DATATYPE,...  DESC
 * docs/mpit.md is generated from it (scripts/gen-docs). */
static int list_mpit(void)
{
	enum { CV, PV, EV, CAT };
	static char names[4][512][128];
	char desc[1024];
	int provided, n[4], i, k, nl, dl, verb, bind, scope, cls, ro, cont, atom;
	MPI_Datatype dt, dts[32];
	MPI_T_enum et;
	MPI_Aint displs[32];
	MPI_Info info;

	if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
		return 1;
	MPI_T_cvar_get_num(&n[CV]);
	MPI_T_pvar_get_num(&n[PV]);
	MPI_T_event_get_num(&n[EV]);
	MPI_T_category_get_num(&n[CAT]);
	for (k = 0; k < 4; k++)
		if (n[k] > 512)
			n[k] = 512;
	for (i = 0; i < n[CV]; i++) {
		nl = sizeof(names[CV][i]), dl = sizeof(desc);
		if (MPI_T_cvar_get_info(i, names[CV][i], &nl, &verb, &dt, &et, desc, &dl, &bind,
					&scope) == MPI_SUCCESS)
			printf("cvar\t%s\t%s\t%s\t%s\n", names[CV][i], type_name(dt), cvar_scope(scope),
			       desc);
	}
	for (i = 0; i < n[PV]; i++) {
		nl = sizeof(names[PV][i]), dl = sizeof(desc);
		if (MPI_T_pvar_get_info(i, names[PV][i], &nl, &verb, &cls, &dt, &et, desc, &dl, &bind,
					&ro, &cont, &atom) == MPI_SUCCESS)
			printf("pvar\t%s\t%s\t%s\t%s\t%s\n", names[PV][i], pvar_class(cls),
			       type_name(dt), ro ? "readonly" : "writable", desc);
	}
	for (i = 0; i < n[EV]; i++) {
		int ne = 32;

		nl = sizeof(names[EV][i]), dl = sizeof(desc);
		if (MPI_T_event_get_info(i, names[EV][i], &nl, &verb, dts, displs, &ne, &et, &info,
					 desc, &dl, &bind) != MPI_SUCCESS)
			continue;
		if (info != MPI_INFO_NULL)
			MPI_Info_free(&info);
		printf("event\t%s\t", names[EV][i]);
		for (k = 0; k < ne && k < 32; k++)
			printf("%s%s", k ? "," : "", type_name(dts[k]));
		printf("\t%s\n", desc);
	}
	for (i = 0; i < n[CAT]; i++) {   /* names first: a category may list a later one */
		int nc, np, ncat;

		nl = sizeof(names[CAT][i]), dl = sizeof(desc);
		MPI_T_category_get_info(i, names[CAT][i], &nl, desc, &dl, &nc, &np, &ncat);
	}
	for (i = 0; i < n[CAT]; i++) {
		static const char *what[4] = { "cvars", "pvars", "events", "categories" };
		int cnt[4], idx[512], j;

		nl = sizeof(names[CAT][i]), dl = sizeof(desc);
		if (MPI_T_category_get_info(i, names[CAT][i], &nl, desc, &dl, &cnt[CV], &cnt[PV],
					    &cnt[CAT]) != MPI_SUCCESS)
			continue;
		cnt[EV] = 0;
		MPI_T_category_get_num_events(i, &cnt[EV]);
		printf("category\t%s\t%s", names[CAT][i], desc);
		for (k = 0; k < 4; k++) {
			int c = cnt[k] > 512 ? 512 : cnt[k];

			if (k == CV)
				MPI_T_category_get_cvars(i, c, idx);
			else if (k == PV)
				MPI_T_category_get_pvars(i, c, idx);
			else if (k == EV)
				MPI_T_category_get_events(i, c, idx);
			else
				MPI_T_category_get_categories(i, c, idx);
			printf("\t%s=", what[k]);
			for (j = 0; j < c; j++)
				printf("%s%s", j ? "," : "", idx[j] >= 0 && idx[j] < n[k] ? names[k][idx[j]] : "?");
		}
		printf("\n");
	}
	MPI_T_finalize();
	return 0;
}

static void usage(void)
{
	printf("usage: michi_info [--params [--all]] [--mpit] [--version]\n"
	       "       mpirun ... michi_info --calibrate-grid [--out FILE] [--bytes N[k|m]] [--verbose]\n");
}

int main(int argc, char **argv)
{
	int params = 0, level = 2, cal = 0, verbose = 0, mpit = 0, i;
	const char *out = NULL;
	size_t bytes = 4 << 20;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--params") || !strcmp(argv[i], "-p"))
			params = 1;
		else if (!strcmp(argv[i], "--all") || !strcmp(argv[i], "-a"))
			level = 3;
		else if (!strcmp(argv[i], "--mpit"))
			mpit = 1;
		else if (!strcmp(argv[i], "--calibrate-grid"))
			cal = 1;
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--bytes") && i + 1 < argc && (bytes = size_arg(argv[i + 1])))
			i++;
		else if (!strcmp(argv[i], "--verbose"))
			verbose = 1;
		else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
			printf("michi %s\n", PACKAGE_VERSION);
			return 0;
		} else {
			usage();
			return !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ? 0 : 2;
		}
	}
	if (cal)
		return calibrate(out, bytes, verbose);
	if (mpit)
		return list_mpit();
	if (params) {
		michi_tunables_print(stdout, level);
		return 0;
	}
	printf("Michi MPI %s\n", PACKAGE_VERSION);
	printf("  MPI standard:    %d.%d (MPICH ABI, libmpi.so.12)\n", MPI_VERSION, MPI_SUBVERSION);
#ifdef MICHI_ERROR_CHECKING
	printf("  error checking:  runtime\n");
#else
	printf("  error checking:  no\n");
#endif
	printf("  devices:         %s\n", MICHI_DEVICES_BUILT);
	printf("  tunables:        michi_info --params\n");
	printf("  MPI_T:           michi_info --mpit\n");
	return 0;
}
