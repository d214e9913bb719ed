/* SPDX-License-Identifier: MIT */
/*
 * The grid-aware collectives (coll/<name>_wan.c, issue 29) on sites faked
 * with MICHI_COLL_SITE_RANKS=N (every N consecutive world ranks a site):
 * for every number of lanes from 1 to 4 (the coll_wan_lanes tunable,
 * written through MPI_T between rounds; the library clamps it to the
 * smallest site), Barrier, Bcast from every root (bytes, and a vector
 * type with holes), Allgather(v), Alltoall (in place too), Alltoallv,
 * Reduce to every root and Allreduce with MPI_SUM and with an op that
 * does not commute (2x2 matrix products mod a prime, in rank order), in
 * their blocking, nonblocking and persistent forms, checked byte for
 * byte against what every rank computes itself. The communicators: world,
 * world reversed (the sites' sizes swap order), the even ranks (spanning
 * the sites, smaller ones) and each site alone (no sites: the other
 * algorithms). Without the variable the sites are the job's own, if any.
 */
#include <stdint.h>

#include "mtest.h"
#include "coll_common.h"

#define PRIME 65521

/* a 2x2 matrix product mod PRIME: inout = in * inout */
static void matmul(void *in_, void *inout_, int *len, MPI_Datatype *dt)
{
	const int *a = in_;
	int *b = inout_;

	(void)dt;
	for (int k = 0; k < *len; k++, a += 4, b += 4) {
		int64_t c0 = ((int64_t)a[0] * b[0] + (int64_t)a[1] * b[2]) % PRIME;
		int64_t c1 = ((int64_t)a[0] * b[1] + (int64_t)a[1] * b[3]) % PRIME;
		int64_t c2 = ((int64_t)a[2] * b[0] + (int64_t)a[3] * b[2]) % PRIME;
		int64_t c3 = ((int64_t)a[2] * b[1] + (int64_t)a[3] * b[3]) % PRIME;

		b[0] = (int)c0, b[1] = (int)c1, b[2] = (int)c2, b[3] = (int)c3;
	}
}

static void matrix_of(int rank, int k, int *m)
{
	m[0] = (rank * 7 + k + 1) % PRIME;
	m[1] = (rank + 3 * k + 2) % PRIME;
	m[2] = (rank % 5 + k) % PRIME;
	m[3] = (2 * rank + k + 1) % PRIME;
}

static unsigned char byte_of(int rank, size_t i, int salt)
{
	return (unsigned char)(rank * 131 + i * 7 + (size_t)salt * 17 + (i >> 8));
}

static int int_of(int rank, size_t i, int salt)
{
	return rank * 100003 + (int)i * 3 + salt;
}

static const char *cname;
static int lanes;

#define CHECK(cond, ...) \
	mtest_check(cond, "%s, %d lane(s): " __VA_ARGS__)

/* waits for a nonblocking form's request */
static void finish(MPI_Request *r)
{
	if (*r != MPI_REQUEST_NULL)
		MPI_Wait(r, MPI_STATUS_IGNORE);
}

static void test_bcast(MPI_Comm c, int salt)
{
	static const size_t lens[] = { 1, 1000, 70001, 600000 };
	int rank, n;
	MPI_Datatype vec;

	MPI_Comm_rank(c, &rank);
	MPI_Comm_size(c, &n);
	for (int root = 0; root < n; root++)
		for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
			size_t len = lens[li];
			unsigned char *b = mtest_malloc(len);
			int form = (int)((root + li) % 3), bad = 0;
			MPI_Request r = MPI_REQUEST_NULL;

			/* large messages from two roots only: time */
			if (len > 100000 && root > 1)
				continue;
			for (size_t i = 0; i < len; i++)
				b[i] = rank == root ? byte_of(root, i, salt) : 0;
			if (form == 0) {
				MPI_Bcast(b, (int)len, MPI_BYTE, root, c);
			} else if (form == 1) {
				MPI_Ibcast(b, (int)len, MPI_BYTE, root, c, &r);
				finish(&r);
			} else {
				MPI_Bcast_init(b, (int)len, MPI_BYTE, root, c, MPI_INFO_NULL, &r);
				for (int k = 0; k < 2; k++) {
					MPI_Start(&r);
					MPI_Wait(&r, MPI_STATUS_IGNORE);
				}
				MPI_Request_free(&r);
			}
			for (size_t i = 0; i < len && !bad; i++)
				bad = b[i] != byte_of(root, i, salt);
			CHECK(!bad, "bcast of %zu bytes from %d (form %d) wrong", cname, lanes, len,
			      root, form);
			free(b);
		}
	/* a vector with holes: every other int of 2 * 3001 */
	MPI_Type_vector(3001, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	for (int root = 0; root < n; root += n > 2 ? n - 1 : 1) {
		int *v = mtest_malloc(6002 * sizeof(int)), bad = 0;

		for (int i = 0; i < 6002; i++)
			v[i] = rank == root || i % 2 ? int_of(root, (size_t)i, salt) : -1;
		MPI_Bcast(v, 1, vec, root, c);
		for (int i = 0; i < 6002 && !bad; i++)
			bad = v[i] != int_of(root, (size_t)i, salt);
		CHECK(!bad, "bcast of a vector type from %d wrong (or a hole written)", cname,
		      lanes, root);
		free(v);
	}
	MPI_Type_free(&vec);
}

static void test_allgather(MPI_Comm c, int salt)
{
	static const int blocks[] = { 3, 20000 };
	int rank, n;

	MPI_Comm_rank(c, &rank);
	MPI_Comm_size(c, &n);
	for (int bi = 0; bi < 2; bi++) {
		int bl = blocks[bi], bad = 0;
		int *s = mtest_malloc((size_t)bl * sizeof(int));
		int *r = mtest_malloc((size_t)bl * n * sizeof(int));
		int *counts = mtest_malloc(2 * (size_t)n * sizeof(int)), *displs = counts + n;
		MPI_Request q = MPI_REQUEST_NULL;

		for (int i = 0; i < bl; i++)
			s[i] = int_of(rank, (size_t)i, salt);
		if (bi == 0) {
			MPI_Allgather(s, bl, MPI_INT, r, bl, MPI_INT, c);
		} else {
			MPI_Iallgather(s, bl, MPI_INT, r, bl, MPI_INT, c, &q);
			finish(&q);
		}
		for (int j = 0; j < n && !bad; j++)
			for (int i = 0; i < bl && !bad; i++)
				bad = r[(size_t)j * bl + i] != int_of(j, (size_t)i, salt);
		CHECK(!bad, "allgather of %d ints wrong", cname, lanes, bl);
		/* v: rank j gives (j * 37) % bl + (j % 3 == 1 ? 0 : 1) ints, the
		 * blocks in reverse order */
		for (int j = 0; j < n; j++)
			counts[j] = j % 3 == 1 ? 0 : (j * 37) % bl + 1;
		for (int j = n - 1, at = 0; j >= 0; j--) {
			displs[j] = at;
			at += counts[j];
		}
		memset(r, 0xff, (size_t)bl * n * sizeof(int));
		MPI_Allgatherv(s, counts[rank], MPI_INT, r, counts, displs, MPI_INT, c);
		bad = 0;
		for (int j = 0; j < n && !bad; j++)
			for (int i = 0; i < counts[j] && !bad; i++)
				bad = r[displs[j] + i] != int_of(j, (size_t)i, salt);
		CHECK(!bad, "allgatherv of up to %d ints wrong", cname, lanes, bl);
		free(s);
		free(r);
		free(counts);
	}
}

static void test_alltoall(MPI_Comm c, int salt)
{
	static const int blocks[] = { 5, 9000 };
	int rank, n;

	MPI_Comm_rank(c, &rank);
	MPI_Comm_size(c, &n);
	for (int bi = 0; bi < 2; bi++)
		for (int form = 0; form < 3; form++) {
			int bl = blocks[bi], bad = 0;
			int *s = mtest_malloc((size_t)bl * n * sizeof(int));
			int *r = mtest_malloc((size_t)bl * n * sizeof(int));
			MPI_Request q = MPI_REQUEST_NULL;

			/* block for j: int_of(rank * n + j) */
			for (int j = 0; j < n; j++)
				for (int i = 0; i < bl; i++)
					(form == 2 ? r : s)[(size_t)j * bl + i] =
						int_of(rank * n + j, (size_t)i, salt);
			if (form == 0) {
				MPI_Alltoall(s, bl, MPI_INT, r, bl, MPI_INT, c);
			} else if (form == 1) {
				MPI_Ialltoall(s, bl, MPI_INT, r, bl, MPI_INT, c, &q);
				finish(&q);
			} else {
				MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, bl, MPI_INT, c);
			}
			for (int j = 0; j < n && !bad; j++)
				for (int i = 0; i < bl && !bad; i++)
					bad = r[(size_t)j * bl + i] !=
					      int_of(j * n + rank, (size_t)i, salt);
			CHECK(!bad, "alltoall of %d ints (form %d) wrong", cname, lanes, bl, form);
			free(s);
			free(r);
		}
	/* alltoallv (the other algorithms): j gets (rank + j) % 4 ints */
	{
		int *sc = mtest_malloc(4 * (size_t)n * sizeof(int)), *sd = sc + n, *rc = sd + n,
		    *rd = rc + n, st = 0, rt = 0, bad = 0;
		int *s, *r;

		for (int j = 0; j < n; j++) {
			sc[j] = (rank + j) % 4, sd[j] = st, st += sc[j];
			rc[j] = (j + rank) % 4, rd[j] = rt, rt += rc[j];
		}
		s = mtest_malloc((size_t)st * sizeof(int) + 1);
		r = mtest_malloc((size_t)rt * sizeof(int) + 1);
		for (int j = 0; j < n; j++)
			for (int i = 0; i < sc[j]; i++)
				s[sd[j] + i] = int_of(rank * n + j, (size_t)i, salt);
		MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, c);
		for (int j = 0; j < n && !bad; j++)
			for (int i = 0; i < rc[j] && !bad; i++)
				bad = r[rd[j] + i] != int_of(j * n + rank, (size_t)i, salt);
		CHECK(!bad, "alltoallv wrong", cname, lanes);
		free(s);
		free(r);
		free(sc);
	}
}

static void test_reduce(MPI_Comm c, int salt, MPI_Op matop, MPI_Datatype mat)
{
	static const int counts[] = { 1, 5, 100003 };
	int rank, n;

	MPI_Comm_rank(c, &rank);
	MPI_Comm_size(c, &n);
	for (int ci = 0; ci < 3; ci++) {
		int cnt = counts[ci], bad = 0;
		int *s = mtest_malloc((size_t)cnt * sizeof(int));
		int *r = mtest_malloc((size_t)cnt * sizeof(int));
		MPI_Request q = MPI_REQUEST_NULL;

		for (int i = 0; i < cnt; i++)
			s[i] = int_of(rank, (size_t)i, salt);
		for (int root = 0; root < n; root++) {
			int form = (root + ci) % 3;

			if (cnt > 1000 && root > 1)
				break;
			memset(r, 0, (size_t)cnt * sizeof(int));
			if (form == 0) {
				MPI_Reduce(s, r, cnt, MPI_INT, MPI_SUM, root, c);
			} else if (form == 1) {
				MPI_Ireduce(s, r, cnt, MPI_INT, MPI_SUM, root, c, &q);
				finish(&q);
			} else {   /* in place at the root */
				if (rank == root)
					memcpy(r, s, (size_t)cnt * sizeof(int));
				MPI_Reduce(rank == root ? MPI_IN_PLACE : s, r, cnt, MPI_INT,
					   MPI_SUM, root, c);
			}
			for (int i = 0; rank == root && i < cnt && !bad; i++) {
				int64_t want = 0;

				for (int j = 0; j < n; j++)
					want += int_of(j, (size_t)i, salt);
				bad = r[i] != (int)want;
			}
			CHECK(!bad, "reduce of %d ints to %d (form %d) wrong", cname, lanes, cnt,
			      root, form);
		}
		for (int form = 0; form < 3; form++) {
			if (form == 0) {
				MPI_Allreduce(s, r, cnt, MPI_INT, MPI_SUM, c);
			} else if (form == 1) {
				MPI_Allreduce_init(s, r, cnt, MPI_INT, MPI_SUM, c, MPI_INFO_NULL,
						   &q);
				MPI_Start(&q);
				MPI_Wait(&q, MPI_STATUS_IGNORE);
				MPI_Start(&q);
				MPI_Wait(&q, MPI_STATUS_IGNORE);
				MPI_Request_free(&q);
			} else {
				memcpy(r, s, (size_t)cnt * sizeof(int));
				MPI_Iallreduce(MPI_IN_PLACE, r, cnt, MPI_INT, MPI_SUM, c, &q);
				finish(&q);
			}
			bad = 0;
			for (int i = 0; i < cnt && !bad; i++) {
				int64_t want = 0;

				for (int j = 0; j < n; j++)
					want += int_of(j, (size_t)i, salt);
				bad = r[i] != (int)want;
			}
			CHECK(!bad, "allreduce of %d ints (form %d) wrong", cname, lanes, cnt,
			      form);
		}
		free(s);
		free(r);
	}
	/* not commutative: the product in rank order */
	for (int cnt = 1; cnt <= 33; cnt += 32) {
		int *s = mtest_malloc((size_t)cnt * 4 * sizeof(int));
		int *r = mtest_malloc((size_t)cnt * 4 * sizeof(int));
		int *want = mtest_malloc((size_t)cnt * 4 * sizeof(int)), m[4], bad = 0;

		for (int k = 0; k < cnt; k++) {
			matrix_of(rank, k, s + 4 * k);
			matrix_of(n - 1, k, want + 4 * k);
			for (int j = n - 2; j >= 0; j--) {
				int one = 1;

				matrix_of(j, k, m);
				matmul(m, want + 4 * k, &one, NULL);
			}
		}
		for (int root = 0; root < n; root++) {
			MPI_Reduce(s, r, cnt, mat, matop, root, c);
			bad = rank == root && memcmp(r, want, (size_t)cnt * 4 * sizeof(int));
			CHECK(!bad, "reduce of %d matrices to %d out of order", cname, lanes, cnt,
			      root);
		}
		MPI_Allreduce(s, r, cnt, mat, matop, c);
		CHECK(!memcmp(r, want, (size_t)cnt * 4 * sizeof(int)),
		      "allreduce of %d matrices out of order", cname, lanes, cnt);
		free(s);
		free(r);
		free(want);
	}
}

static void test_comm(MPI_Comm c, const char *name, MPI_Op matop, MPI_Datatype mat)
{
	MPI_Request q;

	cname = name;
	MPI_Barrier(c);
	MPI_Ibarrier(c, &q);
	MPI_Wait(&q, MPI_STATUS_IGNORE);
	test_bcast(c, lanes);
	test_allgather(c, lanes);
	test_alltoall(c, lanes);
	test_reduce(c, lanes, matop, mat);
	MPI_Barrier(c);
}

int main(int argc, char **argv)
{
	int rank, n, provided, site_ranks;
	const char *sr = getenv("MICHI_COLL_SITE_RANKS");
	MPI_Comm rev, even, site;
	MPI_Op matop;
	MPI_Datatype mat;

	mtest_init(&argc, &argv);
	MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	rank = mtest_rank;
	n = mtest_size;
	site_ranks = sr && atoi(sr) > 0 ? atoi(sr) : n;
	MPI_Comm_split(MPI_COMM_WORLD, 0, n - rank, &rev);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : 0, rank, &even);
	MPI_Comm_split(MPI_COMM_WORLD, rank / site_ranks, rank, &site);
	MPI_Op_create(matmul, 0, &matop);
	MPI_Type_contiguous(4, MPI_INT, &mat);
	MPI_Type_commit(&mat);
	for (lanes = 1; lanes <= 4; lanes++) {
		mtest_check(coll_cvar_write_int("coll_wan_lanes", lanes) == MPI_SUCCESS,
			    "MPI_T write of coll_wan_lanes failed");
		test_comm(MPI_COMM_WORLD, "world", matop, mat);
		test_comm(rev, "world reversed", matop, mat);
		if (even != MPI_COMM_NULL)
			test_comm(even, "even ranks", matop, mat);
		test_comm(site, "one site", matop, mat);
	}
	MPI_Op_free(&matop);
	MPI_Type_free(&mat);
	MPI_Comm_free(&rev);
	if (even != MPI_COMM_NULL)
		MPI_Comm_free(&even);
	MPI_Comm_free(&site);
	MPI_T_finalize();
	return mtest_finalize();
}
