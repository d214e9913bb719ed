/* SPDX-License-Identifier: MIT */
/*
 * Michi's error sentences: under MPI_ERRORS_RETURN, the string of a
 * returned error code names the function, the bad argument with its
 * value, and the rank and host of the caller, e.g.
 *   MPI_Send(dest=9): rank out of range, communicator has 2 ranks
 *   (rank 0 on host node3)
 * This is Michi's contract, not the standard's: on another library the
 * test skips. Also: a fatal error (the default handler) ends the whole
 * job, which the launcher tests check; here every error returns.
 */
#include "mtest.h"

static char host[MPI_MAX_PROCESSOR_NAME];

static void expect_words(int rc, const char *what, const char *w1, const char *w2)
{
	char str[MPI_MAX_ERROR_STRING], want[64];
	int len = 0;

	if (!mtest_check(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS", what))
		return;
	MPI_Error_string(rc, str, &len);
	mtest_check(strstr(str, w1) != NULL, "%s: '%s' lacks '%s'", what, str, w1);
	mtest_check(strstr(str, w2) != NULL, "%s: '%s' lacks '%s'", what, str, w2);
	snprintf(want, sizeof(want), "rank %d on host ", mtest_rank);
	mtest_check(strstr(str, want) != NULL, "%s: '%s' lacks '%s'", what, str, want);
	mtest_check(strstr(str, host) != NULL, "%s: '%s' lacks host '%s'", what, str, host);
}

int main(int argc, char **argv)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING];
	int len, buf[4] = { 0 }, bad = 0;
	MPI_Request req;

	mtest_init(&argc, &argv);
	MPI_Get_library_version(lib, &len);
	if (!strstr(lib, "Michi")) {
		if (mtest_rank == 0)
			printf("errmsg: error sentences are Michi's format; %.40s is not Michi\n", lib);
		MPI_Finalize();
		return 77;
	}
	MPI_Get_processor_name(host, &len);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	expect_words(MPI_Send(buf, 1, MPI_INT, mtest_size + 7, 0, MPI_COMM_WORLD),
		     "Send to a bad rank", "MPI_Send", "dest=");
	expect_words(MPI_Recv(buf, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
		     "Recv with a negative tag", "MPI_Recv", "tag=-5");
	expect_words(MPI_Isend(buf, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req),
		     "Isend with a negative count", "MPI_Isend", "count=-1");
	expect_words(MPI_Irecv(buf, 1, (MPI_Datatype)0x12345678, 0, 0, MPI_COMM_WORLD, &req),
		     "Irecv with a garbage datatype", "MPI_Irecv", "datatype=0x12345678");
	expect_words(MPI_Send(buf, 1, MPI_INT, 0, 0, (MPI_Comm)0x7654321),
		     "Send on a garbage communicator", "MPI_Send", "comm=0x7654321");
	bad = MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL);
	expect_words(bad, "Send on MPI_COMM_NULL", "MPI_Send", "MPI_COMM_NULL");
	req = (MPI_Request)0x11223344;
	expect_words(MPI_Wait(&req, MPI_STATUS_IGNORE), "Wait on a garbage request",
		     "MPI_Wait", "request=0x11223344");
	/* An old code keeps its own sentence, or falls back to its class's,
	 * after hundreds of newer errors: never another call's sentence. */
	{
		char str[MPI_MAX_ERROR_STRING];
		int first = MPI_Send(buf, 1, MPI_INT, mtest_size + 1000, 0, MPI_COMM_WORLD);
		int i;

		for (i = 0; i < 600; i++)
			MPI_Send(buf, 1, MPI_INT, mtest_size + 2000 + i, 0, MPI_COMM_WORLD);
		MPI_Error_string(first, str, &len);
		mtest_check(strstr(str, "dest=2") == NULL,
			    "an old error code reads a newer sentence: '%s'", str);
	}
	/* an unimplemented function names itself */
	expect_words(MPI_Register_datarep("michi-none", MPI_CONVERSION_FN_NULL,
					  MPI_CONVERSION_FN_NULL, NULL, NULL),
		     "an unimplemented function", "MPI_Register_datarep", "not implemented");
	mtest_finalize();
	return 0;
}
