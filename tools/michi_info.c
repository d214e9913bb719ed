/* SPDX-License-Identifier: MIT */
/*
 * tools/michi_info.c: what this Michi build is and how it can be tuned.
 * `michi_info` prints the version and build options; `--params` lists
 * every tunable (environment variable MICHI_<NAME>) with its help line.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mpi.h"

void michi_tunables_print(void *stdio_file, int max_level);

static void usage(void)
{
	printf("usage: michi_info [--params [--all]] [--version]\n");
}

int main(int argc, char **argv)
{
	int params = 0, level = 2, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--params") || !strcmp(argv[i], "-p"))
			params = 1;
		else if (!strcmp(argv[i], "--all") || !strcmp(argv[i], "-a"))
			level = 3;
		else if (!strcmp(argv[i], "--version") || !strcmp(argv[i], "-V")) {
			printf("michi %s\n", PACKAGE_VERSION);
			return 0;
		} else {
			usage();
			return !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ? 0 : 2;
		}
	}
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
	return 0;
}
