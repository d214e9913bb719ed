/* SPDX-License-Identifier: MIT */
/*
 * Invalid arguments under MPI_ERRORS_RETURN on MPI_COMM_WORLD: each call
 * must return an error whose class (MPI_Error_class) names the bad
 * argument (rank, tag, count, datatype, communicator, buffer), whose
 * MPI_Error_string is a non-empty sentence, and after each failure a normal
 * message exchange must still work. Only invalid values the standard
 * defines are used here; garbage handles are in errgarbage.c.
 */
#include "mtest.h"

static int peer;
static int exchanges;

/* A real message round after each error: the library must be usable. */
static void exchange_ok(const char *after)
{
	int out = mtest_rank * 1000 + exchanges, in = -1, rc;

	rc = MPI_Sendrecv(&out, 1, MPI_INT, peer, 5, &in, 1, MPI_INT, peer, 5,
			  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	mtest_check(rc == MPI_SUCCESS && in == peer * 1000 + exchanges,
		    "exchange after %s failed: rc %d, got %d", after, rc, in);
	exchanges++;
}

static void expect_class(int rc, int cls, const char *what)
{
	char str[MPI_MAX_ERROR_STRING];
	int got = -1, len = -1;

	if (!mtest_check(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS", what))
		goto out;
	MPI_Error_class(rc, &got);
	mtest_check(got == cls, "%s: error class %d, expected %d", what, got,
		    cls);
	str[0] = 0;
	MPI_Error_string(rc, str, &len);
	mtest_check(len > 0 && len < MPI_MAX_ERROR_STRING &&
		    strlen(str) == (size_t)len,
		    "%s: Error_string length %d for '%s'", what, len, str);
out:
	exchange_ok(what);
}

/* The predefined classes map to themselves and have strings. */
static void classes(void)
{
	static const int cls[] = { MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT,
				   MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM,
				   MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_TRUNCATE,
				   MPI_ERR_OTHER, MPI_ERR_IN_STATUS,
				   MPI_ERR_PENDING, MPI_ERR_ARG };
	char str[MPI_MAX_ERROR_STRING];
	int i, got, len;

	for (i = 0; i < (int)(sizeof(cls) / sizeof(cls[0])); i++) {
		MPI_Error_class(cls[i], &got);
		mtest_check(got == cls[i], "Error_class(%d) = %d", cls[i], got);
		len = -1;
		MPI_Error_string(cls[i], str, &len);
		mtest_check(len > 0, "Error_string(%d): empty", cls[i]);
	}
	mtest_check(MPI_ERR_LASTCODE >= MPI_ERR_ARG,
		    "MPI_ERR_LASTCODE below the predefined classes");
}

int main(int argc, char **argv)
{
	int buf[4] = { 0 }, *tag_ub, flag = 0, rc;
	MPI_Request req;

	mtest_init(&argc, &argv);
	peer = mtest_size > 1 ? (mtest_rank ^ 1) : 0;
	if (peer >= mtest_size)
		peer = mtest_rank;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	/* Errors without a valid communicator may be raised on COMM_SELF. */
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);

	classes();
	expect_class(MPI_Send(buf, 1, MPI_INT, mtest_size, 1, MPI_COMM_WORLD),
		     MPI_ERR_RANK, "Send to rank size");
	expect_class(MPI_Send(buf, 1, MPI_INT, -5, 1, MPI_COMM_WORLD),
		     MPI_ERR_RANK, "Send to rank -5");
	expect_class(MPI_Recv(buf, 1, MPI_INT, mtest_size + 3, 1,
			      MPI_COMM_WORLD, MPI_STATUS_IGNORE),
		     MPI_ERR_RANK, "Recv from rank size+3");
	expect_class(MPI_Isend(buf, 1, MPI_INT, mtest_size, 1, MPI_COMM_WORLD,
			       &req), MPI_ERR_RANK, "Isend to rank size");
	expect_class(MPI_Send(buf, 1, MPI_INT, peer, -1, MPI_COMM_WORLD),
		     MPI_ERR_TAG, "Send with tag -1");
	expect_class(MPI_Recv(buf, 1, MPI_INT, peer, -7, MPI_COMM_WORLD,
			      MPI_STATUS_IGNORE),
		     MPI_ERR_TAG, "Recv with tag -7");
	if (flag && *tag_ub < 0x7fffffff)
		expect_class(MPI_Send(buf, 1, MPI_INT, peer, *tag_ub + 1,
				      MPI_COMM_WORLD),
			     MPI_ERR_TAG, "Send with tag TAG_UB+1");
	expect_class(MPI_Send(buf, -1, MPI_INT, peer, 1, MPI_COMM_WORLD),
		     MPI_ERR_COUNT, "Send with count -1");
	expect_class(MPI_Irecv(buf, -3, MPI_INT, peer, 1, MPI_COMM_WORLD, &req),
		     MPI_ERR_COUNT, "Irecv with count -3");
	expect_class(MPI_Send(buf, 1, MPI_DATATYPE_NULL, peer, 1,
			      MPI_COMM_WORLD),
		     MPI_ERR_TYPE, "Send with MPI_DATATYPE_NULL");
	expect_class(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, peer, 1,
			      MPI_COMM_WORLD, MPI_STATUS_IGNORE),
		     MPI_ERR_TYPE, "Recv with MPI_DATATYPE_NULL");
	expect_class(MPI_Send(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL),
		     MPI_ERR_COMM, "Send on MPI_COMM_NULL");
	expect_class(MPI_Irecv(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL, &req),
		     MPI_ERR_COMM, "Irecv on MPI_COMM_NULL");
	expect_class(MPI_Send(NULL, 4, MPI_INT, peer, 1, MPI_COMM_WORLD),
		     MPI_ERR_BUFFER, "Send of 4 ints from NULL");
	/* Both sides send first, so nonblocking: a standard send may block. */
	rc = MPI_Isend(NULL, 0, MPI_INT, peer, 11, MPI_COMM_WORLD, &req);
	mtest_check(rc == MPI_SUCCESS, "Isend of 0 ints from NULL failed");
	rc = MPI_Recv(NULL, 0, MPI_INT, peer, 11, MPI_COMM_WORLD,
		      MPI_STATUS_IGNORE);
	mtest_check(rc == MPI_SUCCESS, "Recv of 0 ints into NULL failed");
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	exchange_ok("the zero-count NULL buffer exchange");
	return mtest_finalize();
}
