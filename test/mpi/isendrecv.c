/* SPDX-License-Identifier: MIT */
/*
 * MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0): a ring shift with
 * each, at sizes from empty to rendezvous, with a predefined and a
 * strided (vector) type; the status of the receive half (source, tag,
 * count, ANY_SOURCE); PROC_NULL on either side; many pairs at once
 * completed by MPI_Waitall; a pair freed with MPI_Request_free before it
 * ends; a receive half that truncates, which must fail the request with
 * MPI_ERR_TRUNCATE and leave the library usable. The large-count forms
 * MPI_Isendrecv_c and MPI_Isendrecv_replace_c: the same ring shifts with
 * MPI_Count counts and a strided (resized) type for the replace form.
 */
#include "mtest.h"

static const int sizes[] = { 0, 1, 100, 4096, 300000 };
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static int val(int from, int i, int seed)
{
	return from * 100003 + i * 7 + seed;
}

static void ring_plain(int n, int seed)
{
	int me = mtest_rank, np = mtest_size, right = (me + 1) % np, left = (me + np - 1) % np;
	int *s = mtest_malloc((n + 1) * sizeof(int)), *r = mtest_malloc((n + 1) * sizeof(int));
	MPI_Request req;
	MPI_Status st;
	int i, got, bad = -1;

	for (i = 0; i < n; i++)
		s[i] = val(me, i, seed);
	memset(r, 0xff, (n + 1) * sizeof(int));
	MPI_Isendrecv(s, n, MPI_INT, right, 7, r, n + 1, MPI_INT, MPI_ANY_SOURCE, 7,
		      MPI_COMM_WORLD, &req);
	MPI_Wait(&req, &st);
	MPI_Get_count(&st, MPI_INT, &got);
	for (i = 0; i < n && bad < 0; i++)
		if (r[i] != val(left, i, seed))
			bad = i;
	mtest_check(bad < 0, "Isendrecv n=%d: element %d wrong", n, bad);
	mtest_check(st.MPI_SOURCE == left && st.MPI_TAG == 7 && got == n,
		    "Isendrecv n=%d: status source %d tag %d count %d, want %d 7 %d", n,
		    st.MPI_SOURCE, st.MPI_TAG, got, left, n);
	mtest_check(r[n] == -1, "Isendrecv n=%d: wrote past the message", n);
	free(s);
	free(r);
}

/* every other int of 2n, shifted around the ring in place */
static void ring_replace_vector(int n, int seed)
{
	int me = mtest_rank, np = mtest_size, right = (me + 1) % np, left = (me + np - 1) % np;
	int *b = mtest_malloc((2 * n + 1) * sizeof(int)), i, bad = -1;
	MPI_Datatype v;
	MPI_Request req;
	MPI_Status st;

	MPI_Type_vector(n ? n : 1, 1, 2, MPI_INT, &v);
	MPI_Type_commit(&v);
	for (i = 0; i < 2 * n + 1; i++)
		b[i] = i % 2 ? -5 : val(me, i / 2, seed);
	MPI_Isendrecv_replace(b, n ? 1 : 0, v, right, 3, left, 3, MPI_COMM_WORLD, &req);
	MPI_Type_free(&v);     /* the pending request holds the type */
	MPI_Wait(&req, &st);
	for (i = 0; i < 2 * n && bad < 0; i++)
		if (b[i] != (i % 2 ? -5 : val(left, i / 2, seed)))
			bad = i;
	mtest_check(bad < 0, "Isendrecv_replace vector n=%d: int %d wrong", n, bad);
	mtest_check(st.MPI_SOURCE == left && st.MPI_TAG == 3,
		    "Isendrecv_replace n=%d: status source %d tag %d", n, st.MPI_SOURCE,
		    st.MPI_TAG);
	free(b);
}

static void ring_replace_plain(int n, int seed)
{
	int me = mtest_rank, np = mtest_size, right = (me + 1) % np, left = (me + np - 1) % np;
	double *b = mtest_malloc((n + 1) * sizeof(double));
	MPI_Request req;
	int i, bad = -1, flag = 0;

	for (i = 0; i < n; i++)
		b[i] = val(me, i, seed);
	MPI_Isendrecv_replace(b, n, MPI_DOUBLE, right, 4, left, 4, MPI_COMM_WORLD, &req);
	while (!flag)
		MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
	for (i = 0; i < n && bad < 0; i++)
		if (b[i] != val(left, i, seed))
			bad = i;
	mtest_check(bad < 0, "Isendrecv_replace n=%d: element %d wrong", n, bad);
	free(b);
}

static void proc_null(void)
{
	int x = 5, y = 9;
	MPI_Request req;
	MPI_Status st;
	int got;

	MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0,
		      MPI_COMM_WORLD, &req);
	MPI_Wait(&req, &st);
	MPI_Get_count(&st, MPI_INT, &got);
	mtest_check(y == 9 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG &&
		    got == 0, "Isendrecv PROC_NULL: y %d source %d tag %d count %d", y,
		    st.MPI_SOURCE, st.MPI_TAG, got);
	MPI_Isendrecv_replace(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0,
			      MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	mtest_check(x == 5, "Isendrecv_replace PROC_NULL changed the buffer (%d)", x);
}

/* every rank exchanges with every other at once */
static void all_pairs(int seed)
{
	int me = mtest_rank, np = mtest_size, p, bad = 0;
	int *s = mtest_malloc(np * sizeof(int)), *r = mtest_malloc(np * sizeof(int));
	MPI_Request *req = mtest_malloc(np * sizeof(MPI_Request));

	for (p = 0; p < np; p++) {
		s[p] = val(me, p, seed);
		MPI_Isendrecv(&s[p], 1, MPI_INT, p, 11, &r[p], 1, MPI_INT, p, 11, MPI_COMM_WORLD,
			      &req[p]);
	}
	MPI_Waitall(np, req, MPI_STATUSES_IGNORE);
	for (p = 0; p < np; p++)
		bad += r[p] != val(p, me, seed);
	mtest_check(!bad, "Isendrecv all pairs: %d wrong", bad);
	free(s);
	free(r);
	free(req);
}

static void freed_early(void)
{
	int me = mtest_rank, np = mtest_size, right = (me + 1) % np, left = (me + np - 1) % np;
	int x = me, y = -1;
	MPI_Request req;

	MPI_Isendrecv(&x, 1, MPI_INT, right, 21, &y, 1, MPI_INT, left, 21, MPI_COMM_WORLD, &req);
	MPI_Request_free(&req);
	mtest_check(req == MPI_REQUEST_NULL, "Request_free did not reset the handle");
	MPI_Barrier(MPI_COMM_WORLD);   /* both halves end while others wait here */
	MPI_Sendrecv(&x, 1, MPI_INT, right, 22, &y, 1, MPI_INT, left, 22, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	mtest_check(y == left, "after a freed pair: got %d from %d", y, left);
}

static void truncated(void)
{
	int me = mtest_rank, np = mtest_size, right = (me + 1) % np, left = (me + np - 1) % np;
	int s[4] = { 1, 2, 3, 4 }, r[2];
	MPI_Request req;
	MPI_Status st;
	int rc;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Isendrecv(s, 4, MPI_INT, right, 30, r, 2, MPI_INT, left, 30, MPI_COMM_WORLD, &req);
	rc = MPI_Wait(&req, &st);
	mtest_check(mtest_errclass(rc) == MPI_ERR_TRUNCATE,
		    "Isendrecv into a short buffer: error class %d, want MPI_ERR_TRUNCATE",
		    mtest_errclass(rc));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	ring_plain(3, 99);   /* still usable */
}

/* MPI_Isendrecv_c, then MPI_Isendrecv_replace_c of a strided type, n ints */
static void ring_c(MPI_Count n, int seed)
{
	int me = mtest_rank, np = mtest_size, right = (me + 1) % np, left = (me + np - 1) % np;
	int *s = mtest_malloc((size_t)(n + 1) * sizeof(int));
	int *r = mtest_malloc((size_t)(2 * n + 1) * sizeof(int));
	MPI_Datatype v;
	MPI_Request req;
	MPI_Status st;
	MPI_Count got, i, bad = -1;

	for (i = 0; i < n; i++)
		s[i] = val(me, (int)(i % 1000003), seed);
	memset(r, 0xff, (size_t)(n + 1) * sizeof(int));
	MPI_Isendrecv_c(s, n, MPI_INT, right, 11, r, n + 1, MPI_INT, MPI_ANY_SOURCE, 11,
			MPI_COMM_WORLD, &req);
	MPI_Wait(&req, &st);
	MPI_Get_count_c(&st, MPI_INT, &got);
	for (i = 0; i < n && bad < 0; i++)
		if (r[i] != val(left, (int)(i % 1000003), seed))
			bad = i;
	mtest_check(bad < 0, "Isendrecv_c n=%lld: element %lld wrong", (long long)n,
		    (long long)bad);
	mtest_check(st.MPI_SOURCE == left && st.MPI_TAG == 11 && got == n,
		    "Isendrecv_c n=%lld: status source %d tag %d count %lld, want %d 11 %lld",
		    (long long)n, st.MPI_SOURCE, st.MPI_TAG, (long long)got, left, (long long)n);
	mtest_check(r[n] == -1, "Isendrecv_c n=%lld: wrote past the message", (long long)n);

	/* every other int of 2n, in place */
	MPI_Type_vector(1, 1, 2, MPI_INT, &v);
	MPI_Type_create_resized(v, 0, 2 * sizeof(int), &v);
	MPI_Type_commit(&v);
	for (i = 0; i < 2 * n + 1; i++)
		r[i] = i % 2 ? -5 : val(me, (int)(i / 2 % 1000003), seed + 1);
	MPI_Isendrecv_replace_c(r, n, v, right, 12, left, 12, MPI_COMM_WORLD, &req);
	MPI_Type_free(&v);
	MPI_Wait(&req, &st);
	MPI_Get_count_c(&st, MPI_INT, &got);
	bad = -1;
	for (i = 0; i < 2 * n + 1 && bad < 0; i++)
		if (r[i] != (i % 2 ? -5 : i == 2 * n ? val(me, (int)(n % 1000003), seed + 1)
						     : val(left, (int)(i / 2 % 1000003), seed + 1)))
			bad = i;
	mtest_check(bad < 0, "Isendrecv_replace_c n=%lld: int %lld wrong", (long long)n,
		    (long long)bad);
	mtest_check(st.MPI_SOURCE == left && st.MPI_TAG == 12 && got == n,
		    "Isendrecv_replace_c n=%lld: status source %d tag %d count %lld",
		    (long long)n, st.MPI_SOURCE, st.MPI_TAG, (long long)got);
	free(s);
	free(r);
}

int main(int argc, char **argv)
{
	int i;

	mtest_init(&argc, &argv);
	for (i = 0; i < NSIZES; i++) {
		ring_plain(sizes[i], i);
		ring_replace_plain(sizes[i], i + 10);
		ring_replace_vector(sizes[i], i + 20);
		ring_c(sizes[i], i + 30);
	}
	proc_null();
	all_pairs(5);
	freed_early();
	truncated();
	return mtest_finalize();
}
