/* SPDX-License-Identifier: MIT */
/*
 * MPI_Init_thread with the level named by MTEST_THREAD_LEVEL (single,
 * funneled, serialized, multiple; default multiple): provided must be one
 * of the four levels, Query_thread must return it, Is_thread_main must be
 * true on the calling thread, and the levels must be ordered as the
 * standard defines. The standard lets provided be above or below the
 * request, so no relation between them is asserted. Communication must
 * work afterwards.
 */
#include "mtest.h"

static int level_from_env(void)
{
	const char *s = getenv("MTEST_THREAD_LEVEL");

	if (!s || !strcmp(s, "multiple"))
		return MPI_THREAD_MULTIPLE;
	if (!strcmp(s, "single"))
		return MPI_THREAD_SINGLE;
	if (!strcmp(s, "funneled"))
		return MPI_THREAD_FUNNELED;
	if (!strcmp(s, "serialized"))
		return MPI_THREAD_SERIALIZED;
	return -1;
}

int main(int argc, char **argv)
{
	int required = level_from_env(), provided = -1, queried = -1, main_t = 0;
	int next, prev, v = -1;

	if (required < 0) {
		printf("MTEST_THREAD_LEVEL must be single, funneled, serialized "
		       "or multiple\n");
		return 1;
	}
	MPI_Init_thread(&argc, &argv, required, &provided);
	mtest_init_done();
	mtest_check(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED &&
		    MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
		    MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
		    "thread level constants are not ordered");
	mtest_check(provided == MPI_THREAD_SINGLE ||
		    provided == MPI_THREAD_FUNNELED ||
		    provided == MPI_THREAD_SERIALIZED ||
		    provided == MPI_THREAD_MULTIPLE,
		    "provided %d is not a thread level", provided);
	MPI_Query_thread(&queried);
	mtest_check(queried == provided, "Query_thread %d, Init_thread gave %d",
		    queried, provided);
	MPI_Is_thread_main(&main_t);
	mtest_check(main_t, "Is_thread_main false on the initialising thread");
	if (mtest_rank == 0 && provided != required)
		printf("note: requested level %d, provided %d\n", required,
		       provided);

	next = (mtest_rank + 1) % mtest_size;
	prev = (mtest_rank + mtest_size - 1) % mtest_size;
	MPI_Sendrecv(&mtest_rank, 1, MPI_INT, next, 1, &v, 1, MPI_INT, prev, 1,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	mtest_check(v == prev, "ring after Init_thread: got %d", v);
	return mtest_finalize();
}
