/* SPDX-License-Identifier: MIT */
/*
 * test/mpi/coll_common.h: what the collective tests share (coll_basic.c,
 * coll_nb.c, coll_neighbor.c, coll_sweep.c, coll_lanes.c, coll_sites.c):
 * the values of blocks, int buffers and the check that a send buffer
 * stayed, the layouts of the v and alltoallv tests, completing one
 * request by MPI_Wait, a bounded MPI_Test loop or MPI_Waitall, and
 * setting a control variable. Include after mtest.h; public MPI only, so
 * that the MPICH-ABI pass builds it too. A test may define
 * COLL_TEST_LIMIT_S before including it.
 */
#ifndef COLL_COMMON_H
#define COLL_COMMON_H

#include <sched.h>
#include <stdint.h>
#include <string.h>

#ifndef COLL_TEST_LIMIT_S
#define COLL_TEST_LIMIT_S 30.0	/* give up on a polling loop after this */
#endif

/* element i of the block rank `from` gives rank `to` (or block `to`; 0
 * where all get the same), different per call (seed): a hash, so that
 * blocks of different calls or of different peers never look alike; 24
 * bits, so never -1 or -2 (the fillers of buffers) */
static inline int coll_hval(int from, int to, long i, int seed)
{
	uint64_t x = (uint64_t)(from + 1) * 0x9e3779b97f4a7c15ull;

	x ^= (uint64_t)(to + 1) * 0xc2b2ae3d27d4eb4full + (uint64_t)i * 0x165667b19e3779f9ull;
	x ^= (uint64_t)seed * 0xd6e8feb86659fd93ull;
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return (int)(x & 0xffffff);
}

/* n ints (at least one, so that an empty buffer has an address) */
static inline int *coll_iarr(long n)
{
	return mtest_malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
}

/* n ints set to -1, so that what a call did not write shows */
static inline int *coll_ibuf(long n)
{
	int *p = coll_iarr(n);

	memset(p, 0xff, (size_t)(n > 0 ? n : 1) * sizeof(int));
	return p;
}

static inline int *coll_dup_ints(const int *p, long n)
{
	int *q = coll_iarr(n);

	if (n)
		memcpy(q, p, (size_t)n * sizeof(int));
	return q;
}

/* v layouts of n ranks: rank i has cnt or cnt/2 elements, blocks in
 * reverse rank order with 3-element gaps; returns the span in elements */
static inline long coll_vlayout(int n, int cnt, int *vc, int *vd)
{
	long at = 0;

	for (int i = n - 1; i >= 0; i--) {
		vc[i] = i % 2 ? cnt : cnt / 2;
		vd[i] = (int)at;
		at += vc[i] + 3;
	}
	return at;
}

/* elements rank a sends to rank b in the alltoallv/w tests */
static inline int coll_a2av_count(int cnt, int a, int b)
{
	return ((a + 2 * b) % 3) * cnt / 2;
}

/* blocks in reverse peer order with 2-element gaps; returns the span.
 * mode 1: send side, 0: receive side, 2: symmetric counts for in place */
static inline long coll_a2av_layout(int n, int cnt, int me, int mode, int *vc, int *vd)
{
	long at = 0;

	for (int k = n - 1; k >= 0; k--) {
		vc[k] = mode == 1 ? coll_a2av_count(cnt, me, k) :
			mode == 0 ? coll_a2av_count(cnt, k, me) :
			coll_a2av_count(cnt, me + k, me + k);
		vd[k] = (int)at;
		at += vc[k] + 2;
	}
	return at;
}

/* the send buffer s of n ints must be as it was (s0) after the call
 * `what`; reports the first int that changed */
static inline void coll_check_sendbuf(const int *s, const int *s0, long n, const char *what)
{
	for (long i = 0; i < n; i++) {
		if (s[i] != s0[i]) {
			mtest_error("%s: send buffer int %ld changed from %d to %d", what, i, s0[i],
				    s[i]);
			return;
		}
	}
}

/* set the int control variable `name` (MPI_T, initialized); returns an
 * MPI error code */
static inline int coll_cvar_write_int(const char *name, int v)
{
	MPI_T_cvar_handle h;
	int i = -1, count = 0, rc = MPI_T_cvar_get_index(name, &i);

	if (rc != MPI_SUCCESS)
		return rc;
	rc = MPI_T_cvar_handle_alloc(i, NULL, &h, &count);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = MPI_T_cvar_write(h, &v);
	MPI_T_cvar_handle_free(&h);
	return rc;
}

static inline void coll_too_long(const char *what)
{
	mtest_error("%s: not complete after %.0f s, giving up", what, COLL_TEST_LIMIT_S);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* How a test completes one request. */
enum coll_how { COLL_WAIT, COLL_TEST, COLL_WAITALL, COLL_NHOW };
static const char *const coll_how_names[COLL_NHOW] = { "MPI_Wait", "MPI_Test loop",
						       "MPI_Waitall" };

/* Complete *req (the call `what`) as `how` says; a test loop gives up
 * after COLL_TEST_LIMIT_S. The request must be MPI_REQUEST_NULL after. */
static inline void coll_complete(MPI_Request *req, enum coll_how how, const char *what)
{
	MPI_Status st;
	int flag = 0;
	double t0;

	switch (how) {
	case COLL_WAIT:
		MPI_Wait(req, &st);
		break;
	case COLL_TEST:
		t0 = MPI_Wtime();
		/* yielding: a rank that spins here takes the core from the
		 * ranks it waits for when they outnumber the cores */
		while (MPI_Test(req, &flag, &st), !flag) {
			if (MPI_Wtime() - t0 > COLL_TEST_LIMIT_S)
				coll_too_long(what);
			sched_yield();
		}
		break;
	default:
		MPI_Waitall(1, req, &st);
		break;
	}
	mtest_check(*req == MPI_REQUEST_NULL, "%s: request not MPI_REQUEST_NULL when complete",
		    what);
}

#endif
