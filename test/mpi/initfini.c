/* SPDX-License-Identifier: MIT */
/*
 * The environment calls around MPI_Init and MPI_Finalize: Initialized and
 * Finalized before, between and after; Get_version against the header's
 * MPI_VERSION; Get_library_version, Get_processor_name; Wtime increasing
 * with a Wtick in (0, 1]; the predefined attributes on MPI_COMM_WORLD
 * (TAG_UB >= 32767, HOST, IO, WTIME_IS_GLOBAL). Errors found after
 * Finalize are printed locally and turn into a non-zero exit code.
 */
#include "mtest.h"

static void attrs(void)
{
	int *val, flag = 0;

	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag);
	if (mtest_check(flag, "TAG_UB attribute missing"))
		mtest_check(*val >= 32767, "TAG_UB %d < 32767", *val);
	flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &val, &flag);
	if (mtest_check(flag, "HOST attribute missing"))
		mtest_check(*val == MPI_PROC_NULL ||
			    (*val >= 0 && *val < mtest_size),
			    "HOST attribute %d", *val);
	flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &val, &flag);
	if (mtest_check(flag, "IO attribute missing"))
		mtest_check(*val == MPI_PROC_NULL || *val == MPI_ANY_SOURCE ||
			    (*val >= 0 && *val < mtest_size),
			    "IO attribute %d", *val);
	flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag);
	if (flag)
		mtest_check(*val == 0 || *val == 1, "WTIME_IS_GLOBAL %d", *val);
}

static void versions(void)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[MPI_MAX_PROCESSOR_NAME];
	int major = -1, minor = -1, len = -1;

	MPI_Get_version(&major, &minor);
	/* A binary built against another implementation's header (the ABI
	 * runs, MTEST_EXPECT_LIBRARY set) may see a different standard
	 * version at run time; it must still be a real one. */
	if (getenv("MTEST_EXPECT_LIBRARY"))
		mtest_check(major >= 3 && minor >= 0, "Get_version %d.%d is not an MPI version",
			    major, minor);
	else
		mtest_check(major == MPI_VERSION && minor == MPI_SUBVERSION,
		    "Get_version %d.%d, header says %d.%d", major, minor,
		    MPI_VERSION, MPI_SUBVERSION);
	mtest_check(major >= 3, "MPI version %d.%d older than 3", major, minor);
	lib[0] = 0;
	MPI_Get_library_version(lib, &len);
#ifdef OPEN_MPI
	/* Open MPI 4 counts the terminating NUL in resultlen; the standard
	 * puts the NUL at version[resultlen]. */
	if (len > 0 && strlen(lib) + 1 == (size_t)len)
		len--;
#endif
	mtest_check(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING &&
		    strlen(lib) == (size_t)len,
		    "Get_library_version: length %d, string has %zu", len,
		    strlen(lib));
	host[0] = 0;
	len = -1;
	MPI_Get_processor_name(host, &len);
	mtest_check(len > 0 && len < MPI_MAX_PROCESSOR_NAME &&
		    strlen(host) == (size_t)len,
		    "Get_processor_name: length %d '%s'", len, host);
}

static void clocks(void)
{
	double t0 = MPI_Wtime(), t1, tick = MPI_Wtick();

	mtest_check(tick > 0 && tick <= 1, "Wtick %g", tick);
	mtest_sleep(0.05);
	t1 = MPI_Wtime();
	mtest_check(t1 - t0 >= 0.04 && t1 - t0 < 5,
		    "Wtime advanced %g s over a 0.05 s sleep", t1 - t0);
	for (int i = 0; i < 1000; i++) {
		t0 = t1;
		t1 = MPI_Wtime();
		if (!mtest_check(t1 >= t0, "Wtime went backwards"))
			break;
	}
}

int main(int argc, char **argv)
{
	int flag = -1, total, provided = -1;

	MPI_Initialized(&flag);
	if (flag != 0) {
		printf("Initialized before MPI_Init: %d\n", flag);
		return 1;
	}
	MPI_Finalized(&flag);
	if (flag != 0) {
		printf("Finalized before MPI_Init: %d\n", flag);
		return 1;
	}
	mtest_init(&argc, &argv);
	MPI_Initialized(&flag);
	mtest_check(flag == 1, "Initialized after MPI_Init: %d", flag);
	MPI_Finalized(&flag);
	mtest_check(flag == 0, "Finalized before MPI_Finalize: %d", flag);
	MPI_Query_thread(&provided);
	mtest_check(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
		    "Query_thread after MPI_Init: %d", provided);
	attrs();
	versions();
	clocks();

	/* mtest_finalize would end MPI before the checks below. */
	total = mtest_report();
	MPI_Finalize();
	MPI_Finalized(&flag);
	if (flag != 1) {
		printf("rank %d: error: Finalized after MPI_Finalize: %d\n",
		       mtest_rank, flag);
		return 1;
	}
	MPI_Initialized(&flag);
	if (flag != 1) {
		printf("rank %d: error: Initialized after MPI_Finalize: %d\n",
		       mtest_rank, flag);
		return 1;
	}
	if (mtest_rank == 0)
		mtest_print_result(total);
	return total ? 1 : 0;
}
