/* SPDX-License-Identifier: MIT */
/*
 * Shared helpers for the MPI integration tests under test/mpi/. Each test
 * program includes this header once. It counts errors per rank, and at the
 * end gathers the counts to rank 0 with point-to-point messages only (the
 * suite must run before collectives exist) and prints the MPICH suite line
 * " No Errors" or " Found N errors", which run-testlist looks for. The
 * helpers use tags at the top of the guaranteed range (TAG_UB >= 32767) so
 * tests keep 0..32000 for themselves. There is no private communicator
 * (MPI_Comm_dup is collective), so a test may post a receive with both
 * MPI_ANY_SOURCE and MPI_ANY_TAG only on rank 0, and only before it calls
 * mtest_finalize; the helpers never send to rank 0 before it asks.
 */
#ifndef MTEST_H
#define MTEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MTEST_TAG_BARRIER 32765
#define MTEST_TAG_GO 32766
#define MTEST_TAG_COUNT 32767
/* Upper bound for any polling loop in a test; run-testlist's own timeout
 * is the last line of defence, this one gives a readable message. */
#define MTEST_WAIT_S 20.0
#define MTEST_MAX_PRINTED 20

static int mtest_rank = -1;
static int mtest_size = -1;
static int mtest_errors;

static inline void mtest_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * With MTEST_EXPECT_LIBRARY=Name in the environment, the library the
 * program actually runs on must name itself so in MPI_Get_library_version:
 * this is how the ABI runs prove that an MPICH-built binary loaded Michi.
 */
static inline void mtest_check_library(void)
{
	const char *want = getenv("MTEST_EXPECT_LIBRARY");
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;

	if (!want || !*want)
		return;
	MPI_Get_library_version(v, &len);
	if (!strstr(v, want))
		mtest_error("expected to run on %s, but the library is: %.80s", want, v);
}

/* 1 when the run forces one of Michi's matching devices (MICHI_DEVICE=ofi
 * or ucx): the network library matches and moves the messages, so the
 * byte devices' counters stay still and the library's own rules hold
 * where MPI leaves room (a truncated receive may deliver nothing; a
 * standard send may wait for the receiver to progress). */
static inline int mtest_matching_device(void)
{
	const char *d = getenv("MICHI_DEVICE");

	return d && (strcmp(d, "ofi") == 0 || strcmp(d, "ucx") == 0);
}

/* 1 when the library runs as Michi: for checks of Michi's own
 * behaviour where the standard leaves room (the tests also run on MPICH). */
static inline int mtest_is_michi(void)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;

	MPI_Get_library_version(v, &len);
	return strstr(v, "Michi") != NULL;
}

static inline void mtest_init_done(void)
{
	MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &mtest_size);
	mtest_check_library();
}

static inline void mtest_init(int *argc, char ***argv)
{
	MPI_Init(argc, argv);
	mtest_init_done();
}

__attribute__((format(printf, 1, 2)))
static inline void mtest_error(const char *fmt, ...)
{
	va_list ap;

	mtest_errors++;
	if (mtest_errors > MTEST_MAX_PRINTED)
		return;
	printf("rank %d: error: ", mtest_rank);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Returns cond so callers can skip follow-up checks that would only
 * repeat the same failure. */
#define mtest_check(cond, ...)                  \
	({                                      \
		int mtest_ok_ = !!(cond);       \
		if (!mtest_ok_)                 \
			mtest_error(__VA_ARGS__); \
		mtest_ok_;                      \
	})

static inline void mtest_sleep(double seconds)
{
	struct timespec ts;

	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0)
		;
}

/*
 * A barrier out of messages in three steps: rank 0 invites every rank,
 * each answers, then rank 0 releases all. Nothing is sent to rank 0 before
 * it has entered, so a wildcard receive still posted there by the test
 * cannot match barrier traffic. A rank leaves only after rank 0 has sent
 * its release, which the timing tests rely on. Must not run while a
 * wildcard receive of the test is pending on a rank other than 0.
 */
static inline void mtest_barrier(MPI_Comm comm)
{
	int rank, size, i;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	if (rank == 0) {
		for (i = 1; i < size; i++)
			MPI_Send(NULL, 0, MPI_BYTE, i, MTEST_TAG_BARRIER, comm);
		for (i = 1; i < size; i++)
			MPI_Recv(NULL, 0, MPI_BYTE, i, MTEST_TAG_BARRIER, comm,
				 MPI_STATUS_IGNORE);
		for (i = 1; i < size; i++)
			MPI_Send(NULL, 0, MPI_BYTE, i, MTEST_TAG_BARRIER, comm);
	} else {
		MPI_Recv(NULL, 0, MPI_BYTE, 0, MTEST_TAG_BARRIER, comm,
			 MPI_STATUS_IGNORE);
		MPI_Send(NULL, 0, MPI_BYTE, 0, MTEST_TAG_BARRIER, comm);
		MPI_Recv(NULL, 0, MPI_BYTE, 0, MTEST_TAG_BARRIER, comm,
			 MPI_STATUS_IGNORE);
	}
}

/*
 * Rank 0 first sends "go" to every rank and only then collects the counts,
 * so that no count message can arrive while a wildcard receive of the test
 * itself is still posted on rank 0. Returns the process exit code.
 */
static inline int mtest_report(void)
{
	int i, n, total = mtest_errors;

	if (mtest_rank == 0) {
		for (i = 1; i < mtest_size; i++)
			MPI_Send(NULL, 0, MPI_BYTE, i, MTEST_TAG_GO,
				 MPI_COMM_WORLD);
		for (i = 1; i < mtest_size; i++) {
			MPI_Recv(&n, 1, MPI_INT, i, MTEST_TAG_COUNT,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			total += n;
		}
		return total;
	}
	MPI_Recv(NULL, 0, MPI_BYTE, 0, MTEST_TAG_GO, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	MPI_Send(&mtest_errors, 1, MPI_INT, 0, MTEST_TAG_COUNT,
		 MPI_COMM_WORLD);
	return 0;
}

static inline void mtest_print_result(int total)
{
	if (total)
		printf(" Found %d errors\n", total);
	else
		printf(" No Errors\n");
	fflush(stdout);
}

static inline int mtest_finalize(void)
{
	int total = mtest_report();

	if (mtest_rank == 0)
		mtest_print_result(total);
	MPI_Finalize();
	return mtest_rank == 0 && total ? 1 : 0;
}

/* Every rank must reach the same decision; exit 77 tells run-testlist. */
static inline void mtest_skip(const char *why)
{
	if (mtest_rank <= 0)
		printf("SKIP: %s\n", why);
	fflush(stdout);
	MPI_Finalize();
	exit(77);
}

/* A pattern that differs per byte position and per message, so shifted,
 * truncated or swapped payloads are all detected. */
static inline unsigned char mtest_pattern(size_t i, unsigned seed)
{
	uint32_t x = (uint32_t)i * 2654435761u + seed * 40503u + 1;

	return (unsigned char)(x ^ (x >> 13) ^ (x >> 24));
}

static inline void mtest_fill(void *buf, size_t n, unsigned seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = mtest_pattern(i, seed);
}

/* Returns the first wrong offset, or -1 when the buffer matches. */
static inline long mtest_verify(const void *buf, size_t n, unsigned seed)
{
	const unsigned char *p = buf;
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != mtest_pattern(i, seed))
			return (long)i;
	return -1;
}

static inline int mtest_errclass(int rc)
{
	int cls = -1;

	MPI_Error_class(rc, &cls);
	return cls;
}

static inline void *mtest_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		printf("rank %d: out of memory (%zu bytes)\n", mtest_rank, n);
		fflush(stdout);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return p;
}

#endif /* MTEST_H */
