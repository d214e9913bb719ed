/* SPDX-License-Identifier: MIT */
/*
 * Garbage handles under MPI_ERRORS_RETURN: a datatype, communicator or
 * request handle that was never created must be reported (MPI_ERR_TYPE,
 * MPI_ERR_COMM, MPI_ERR_REQUEST) rather than crash, and the library must
 * keep working. The standard does not require detecting garbage handles;
 * an implementation with integer handles (the MPICH ABI that Michi uses)
 * can always check them, one with pointer handles cannot, so there the
 * test skips.
 */
#include "mtest.h"

#define GARBAGE 0x12345678

static int exchanges;

static void exchange_ok(const char *after)
{
	int peer = mtest_size > 1 ? (mtest_rank ^ 1) : 0;
	int out = mtest_rank * 1000 + exchanges, in = -1, rc;

	if (peer >= mtest_size)
		peer = mtest_rank;
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

	if (mtest_check(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS", what)) {
		MPI_Error_class(rc, &got);
		mtest_check(got == cls, "%s: error class %d, expected %d", what,
			    got, cls);
		str[0] = 0;
		MPI_Error_string(rc, str, &len);
		mtest_check(len > 0 && strlen(str) == (size_t)len,
			    "%s: Error_string length %d", what, len);
	}
	exchange_ok(what);
}

int main(int argc, char **argv)
{
	int buf[4] = { 0 };
	MPI_Request req;

	mtest_init(&argc, &argv);
	if (sizeof(MPI_Datatype) != sizeof(int) || sizeof(MPI_Comm) != sizeof(int))
		mtest_skip("handles are pointers here; garbage cannot be "
			   "detected safely");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

	expect_class(MPI_Send(buf, 1, (MPI_Datatype)GARBAGE, 0, 1,
			      MPI_COMM_WORLD),
		     MPI_ERR_TYPE, "Send with a garbage datatype");
	expect_class(MPI_Irecv(buf, 1, (MPI_Datatype)GARBAGE, 0, 1,
			       MPI_COMM_WORLD, &req),
		     MPI_ERR_TYPE, "Irecv with a garbage datatype");
	expect_class(MPI_Send(buf, 1, MPI_INT, 0, 1, (MPI_Comm)GARBAGE),
		     MPI_ERR_COMM, "Send on a garbage communicator");
	expect_class(MPI_Recv(buf, 1, MPI_INT, 0, 1, (MPI_Comm)GARBAGE,
			      MPI_STATUS_IGNORE),
		     MPI_ERR_COMM, "Recv on a garbage communicator");
	req = (MPI_Request)GARBAGE;
	expect_class(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_REQUEST,
		     "Wait on a garbage request");
	return mtest_finalize();
}
