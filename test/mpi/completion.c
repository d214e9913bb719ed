/* SPDX-License-Identifier: MIT */
/*
 * The multiple-completion calls: Waitall, Waitany, Waitsome, Testall,
 * Testany and Testsome over arrays that contain MPI_REQUEST_NULL, over
 * arrays of nothing but null requests (index/outcount MPI_UNDEFINED, empty
 * statuses), and with one receive that fails by truncation under
 * MPI_ERRORS_RETURN, which must give MPI_ERR_IN_STATUS with the failing
 * status marked MPI_ERR_TRUNCATE and the others MPI_SUCCESS or
 * MPI_ERR_PENDING. Each completed request must be set to MPI_REQUEST_NULL
 * and completed exactly once.
 */
#include "mtest.h"

#define N 8
#define TAG_READY 1000

static void expect_empty(MPI_Status *st, const char *what)
{
	int count = -1;

	MPI_Get_count(st, MPI_INT, &count);
	mtest_check(st->MPI_SOURCE == MPI_ANY_SOURCE &&
		    st->MPI_TAG == MPI_ANY_TAG && count == 0,
		    "%s: status %d/%d/%d is not empty", what, st->MPI_SOURCE,
		    st->MPI_TAG, count);
}

static void all_null(void)
{
	MPI_Request r[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL,
			     MPI_REQUEST_NULL };
	MPI_Status st[3];
	int idx = 0, flag = 0, out = 0, ids[3];

	MPI_Waitall(3, r, st);
	for (int i = 0; i < 3; i++)
		expect_empty(&st[i], "Waitall of null requests");
	MPI_Waitany(3, r, &idx, &st[0]);
	mtest_check(idx == MPI_UNDEFINED, "Waitany of nulls: index %d", idx);
	expect_empty(&st[0], "Waitany of null requests");
	MPI_Testany(3, r, &idx, &flag, &st[0]);
	mtest_check(flag && idx == MPI_UNDEFINED,
		    "Testany of nulls: flag %d index %d", flag, idx);
	MPI_Waitsome(3, r, &out, ids, st);
	mtest_check(out == MPI_UNDEFINED, "Waitsome of nulls: outcount %d", out);
	MPI_Testsome(3, r, &out, ids, st);
	mtest_check(out == MPI_UNDEFINED, "Testsome of nulls: outcount %d", out);
	flag = 0;
	MPI_Testall(3, r, &flag, st);
	mtest_check(flag, "Testall of nulls: flag 0");
	MPI_Waitall(0, r, st);
	MPI_Waitany(0, r, &idx, &st[0]);
	mtest_check(idx == MPI_UNDEFINED, "Waitany of 0 requests: index %d", idx);
}

/* Rank 1 posts N receives, every third slot MPI_REQUEST_NULL; rank 0
 * sends after a ready message, last tag first so completion order is not
 * array order. The returned entries are checked by the caller's method. */
static int post_recvs(MPI_Request *r, int *buf)
{
	int i, n = 0;

	for (i = 0; i < N; i++) {
		buf[i] = -1;
		if (i % 3 == 2) {
			r[i] = MPI_REQUEST_NULL;
			continue;
		}
		MPI_Irecv(&buf[i], 1, MPI_INT, 0, i, MPI_COMM_WORLD, &r[i]);
		n++;
	}
	MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
	return n;
}

static void send_all(int round)
{
	int i, v;

	MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_READY, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	for (i = N - 1; i >= 0; i--) {
		if (i % 3 == 2)
			continue;
		v = round * 100 + i;
		MPI_Send(&v, 1, MPI_INT, 1, i, MPI_COMM_WORLD);
	}
}

/* Records one completion of index i and checks status and data. */
static void completed(int method, int i, MPI_Status *st, const int *buf,
		      int *seen, MPI_Request *r)
{
	static const char *names[] = { "Waitall", "Waitany", "Waitsome",
				       "Testall", "Testany", "Testsome" };

	if (!mtest_check(i >= 0 && i < N && i % 3 != 2,
			 "%s: bad index %d", names[method], i))
		return;
	mtest_check(!seen[i]++, "%s: index %d completed twice", names[method], i);
	mtest_check(r[i] == MPI_REQUEST_NULL, "%s: request %d not reset",
		    names[method], i);
	mtest_check(st->MPI_SOURCE == 0 && st->MPI_TAG == i &&
		    buf[i] == method * 100 + i,
		    "%s: index %d status %d/%d data %d", names[method], i,
		    st->MPI_SOURCE, st->MPI_TAG, buf[i]);
}

static void receive_all(int method)
{
	MPI_Request r[N];
	MPI_Status st[N];
	int buf[N], seen[N] = { 0 }, ids[N], n, done = 0, idx, out, flag, i;
	double end = MPI_Wtime() + MTEST_WAIT_S;

	n = post_recvs(r, buf);
	while (done < n && MPI_Wtime() < end) {
		switch (method) {
		case 0:
		case 3:
			flag = 1;
			if (method == 0)
				MPI_Waitall(N, r, st);
			else
				MPI_Testall(N, r, &flag, st);
			if (!flag)
				break;
			for (i = 0; i < N; i++) {
				if (i % 3 == 2)
					expect_empty(&st[i], "null entry");
				else
					completed(method, i, &st[i], buf, seen, r);
			}
			done = n;
			break;
		case 1:
		case 4:
			flag = 1;
			if (method == 1)
				MPI_Waitany(N, r, &idx, &st[0]);
			else
				MPI_Testany(N, r, &idx, &flag, &st[0]);
			if (flag && idx == MPI_UNDEFINED) {
				mtest_error("Wait/Testany: undefined index with "
					    "%d requests active", n - done);
				done = n;
			} else if (flag) {
				completed(method, idx, &st[0], buf, seen, r);
				done++;
			}
			break;
		default:
			if (method == 2)
				MPI_Waitsome(N, r, &out, ids, st);
			else
				MPI_Testsome(N, r, &out, ids, st);
			if (out == MPI_UNDEFINED) {
				mtest_error("Wait/Testsome: undefined outcount "
					    "with %d requests active", n - done);
				done = n;
			}
			for (i = 0; i < out; i++)
				completed(method, ids[i], &st[i], buf, seen, r);
			done += out > 0 ? out : 0;
			break;
		}
	}
	mtest_check(done == n, "method %d: %d of %d completed", method, done, n);
	for (i = 0; i < N; i++)
		if (i % 3 != 2)
			mtest_check(seen[i] == 1, "method %d: index %d seen %d times",
				    method, i, seen[i]);
}

/*
 * Under MPI_ERRORS_RETURN, a truncated receive inside Waitall and inside
 * Waitsome: MPI_ERR_IN_STATUS, the error in the failing status, and a
 * library that works afterwards.
 */
static void truncated_in_array(int use_waitsome)
{
	int small[3][4], big[8], i, rc, cls, out, ids[3], done = 0;
	MPI_Request r[3];
	MPI_Status st[3];

	for (i = 0; i < 8; i++)
		big[i] = i;
	if (mtest_rank == 0) {
		MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_READY, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Send(big, 2, MPI_INT, 1, 1, MPI_COMM_WORLD);
		MPI_Send(big, 8, MPI_INT, 1, 2, MPI_COMM_WORLD);
		MPI_Send(big, 3, MPI_INT, 1, 3, MPI_COMM_WORLD);
		return;
	}
	for (i = 0; i < 3; i++)
		MPI_Irecv(small[i], 4, MPI_INT, 0, i + 1, MPI_COMM_WORLD, &r[i]);
	MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_READY, MPI_COMM_WORLD);
	if (!use_waitsome) {
		rc = mtest_errclass(MPI_Waitall(3, r, st));
		mtest_check(rc == MPI_ERR_IN_STATUS,
			    "Waitall with a truncated receive returned class %d, "
			    "expected MPI_ERR_IN_STATUS", rc);
		if (rc != MPI_ERR_IN_STATUS)
			return;
		for (i = 0; i < 3; i++) {
			cls = mtest_errclass(st[i].MPI_ERROR);
			if (i == 1) {
				mtest_check(cls == MPI_ERR_TRUNCATE,
					    "Waitall: failed status has class %d",
					    cls);
			} else if (cls == MPI_ERR_PENDING) {
				/* Neither failed nor completed: still ours. */
				MPI_Wait(&r[i], &st[i]);
			} else {
				mtest_check(cls == MPI_SUCCESS,
					    "Waitall: status %d has class %d", i,
					    cls);
			}
		}
	} else {
		double end = MPI_Wtime() + MTEST_WAIT_S;
		int failed = 0;

		while (done < 3 && MPI_Wtime() < end) {
			rc = mtest_errclass(MPI_Waitsome(3, r, &out, ids, st));
			if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
				mtest_error("Waitsome returned class %d", rc);
				return;
			}
			for (i = 0; i < out; i++) {
				cls = rc == MPI_SUCCESS ? MPI_SUCCESS :
				      mtest_errclass(st[i].MPI_ERROR);
				if (ids[i] == 1)
					failed = cls == MPI_ERR_TRUNCATE;
				else
					mtest_check(cls == MPI_SUCCESS,
						    "Waitsome: index %d class %d",
						    ids[i], cls);
			}
			done += out;
		}
		mtest_check(done == 3 && failed, "Waitsome: %d done, truncation "
			    "%sreported", done, failed ? "" : "not ");
	}
	mtest_check(small[0][0] == 0 && small[0][1] == 1 && small[2][2] == 2,
		    "data of the good receives next to a truncated one is wrong");
}

int main(int argc, char **argv)
{
	int method, v;

	mtest_init(&argc, &argv);
	all_null();
	if (mtest_size < 2) {
		mtest_check(0, "completion needs at least 2 ranks");
		return mtest_finalize();
	}
	for (method = 0; method < 6; method++) {
		if (mtest_rank == 0)
			send_all(method);
		else if (mtest_rank == 1)
			receive_all(method);
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (mtest_rank < 2) {
		truncated_in_array(0);
		truncated_in_array(1);
		/* The library still works after the failures. */
		v = 5;
		if (mtest_rank == 0)
			MPI_Send(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
		else {
			v = 0;
			MPI_Recv(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			mtest_check(v == 5, "exchange after errors: got %d", v);
		}
	}
	return mtest_finalize();
}
