/* SPDX-License-Identifier: MIT */
/*
 * tools/michi_info.c: what this Michi build is and how it can be tuned.
 * `michi_info` prints the version and build options; `--params` lists
 * every tunable (environment variable MICHI_<NAME>) with its help line.
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
	setenv("MICHI_TCP_LANE_MIN", "0", 0);
	setenv("MICHI_WAIT_POLICY", "block", 0);
	MPI_Init(NULL, NULL);
	rc = michi_grid_calibrate(out, bytes, verbose);
	MPI_Finalize();
	return rc;
}

static void usage(void)
{
	printf("usage: michi_info [--params [--all]] [--version]\n"
	       "       mpirun ... michi_info --calibrate-grid [--out FILE] [--bytes N[k|m]] [--verbose]\n");
}

int main(int argc, char **argv)
{
	int params = 0, level = 2, cal = 0, verbose = 0, i;
	const char *out = NULL;
	size_t bytes = 4 << 20;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--params") || !strcmp(argv[i], "-p"))
			params = 1;
		else if (!strcmp(argv[i], "--all") || !strcmp(argv[i], "-a"))
			level = 3;
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
