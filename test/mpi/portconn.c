/* SPDX-License-Identifier: MIT */
/*
 * MPI_Open_port, MPI_Comm_accept/connect between the two halves of the
 * world (at least 2 ranks), the port passed once by message and once
 * through the name service (MPI_Publish_name/Lookup_name, served by
 * Michi's mpirun); messages both ways over the intercommunicator, a merge
 * (the accepting half first), MPI_Comm_disconnect, MPI_Close_port; a
 * lookup after MPI_Unpublish_name fails with MPI_ERR_NAME, a connect to
 * a closed port with MPI_ERR_PORT, and the library goes on working.
 *
 * With PORTCONN_NO_NS=1 (a launcher without a name service, or a
 * singleton) the name service calls must fail with MPI_ERR_SERVICE or
 * MPI_ERR_NAME instead.
 */
#include "mtest.h"

#include <unistd.h>

static void exchange(MPI_Comm inter, int accepting, int lrank, int lsize)
{
	int rsize = 0, v, i;

	MPI_Comm_remote_size(inter, &rsize);
	/* local rank i sends to remote rank i % rsize; each receives from any */
	v = (accepting ? 1000 : 2000) + lrank;
	MPI_Send(&v, 1, MPI_INT, lrank % rsize, 5, inter);
	for (i = 0; i < rsize; i++) {
		MPI_Status st;

		if (i % lsize != lrank)
			continue;
		MPI_Recv(&v, 1, MPI_INT, i, 5, inter, &st);
		mtest_check(v == (accepting ? 2000 : 1000) + i, "got %d from remote rank %d", v, i);
	}
}

static void merge_check(MPI_Comm inter, int accepting, int lrank, int lsize)
{
	MPI_Comm merged;
	int rsize = 0, mrank = -1, msize = 0, sum = 0;

	MPI_Comm_remote_size(inter, &rsize);
	MPI_Intercomm_merge(inter, 0, &merged);   /* same high: acceptors first */
	MPI_Comm_rank(merged, &mrank);
	MPI_Comm_size(merged, &msize);
	mtest_check(msize == lsize + rsize, "merged size %d", msize);
	mtest_check(mrank == (accepting ? lrank : rsize + lrank), "merged rank %d (local %d)",
		    mrank, lrank);
	MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
	mtest_check(sum == msize * (msize - 1) / 2, "merged rank sum %d", sum);
	MPI_Comm_free(&merged);
}

int main(int argc, char **argv)
{
	char port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME], svc[64];
	MPI_Comm half, inter;
	int accepting, lrank, lsize, err, cls, no_ns;
	const char *e = getenv("PORTCONN_NO_NS");

	mtest_init(&argc, &argv);
	no_ns = e && atoi(e);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	if (mtest_size < 2) {
		/* alone: only the failures can be checked */
		MPI_Open_port(MPI_INFO_NULL, port);
		err = MPI_Publish_name("michi-portconn-alone", MPI_INFO_NULL, port);
		MPI_Error_class(err, &cls);
		if (no_ns)
			mtest_check(cls == MPI_ERR_SERVICE, "publish without a name service: "
				    "class %d", cls);
		else if (err == MPI_SUCCESS)
			MPI_Unpublish_name("michi-portconn-alone", MPI_INFO_NULL, port);
		MPI_Close_port(port);
		return mtest_finalize();
	}
	accepting = mtest_rank < mtest_size / 2;
	MPI_Comm_split(MPI_COMM_WORLD, accepting, mtest_rank, &half);
	MPI_Comm_rank(half, &lrank);
	MPI_Comm_size(half, &lsize);

	/* 1: the port name by message, world rank 0 to the other half's root */
	if (mtest_rank == 0) {
		MPI_Open_port(MPI_INFO_NULL, port);
		MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, mtest_size / 2, 1, MPI_COMM_WORLD);
	} else if (mtest_rank == mtest_size / 2) {
		MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	if (accepting)
		err = MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
	else
		err = MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
	if (mtest_check(err == MPI_SUCCESS, "%s failed (%d)", accepting ? "accept" : "connect",
			err)) {
		exchange(inter, accepting, lrank, lsize);
		merge_check(inter, accepting, lrank, lsize);
		MPI_Comm_disconnect(&inter);
		mtest_check(inter == MPI_COMM_NULL, "disconnect left the handle set");
	}

	/* 2: the same port through the name service */
	snprintf(svc, sizeof(svc), "michi portconn %d", (int)getppid());
	if (mtest_rank == 0) {
		err = MPI_Publish_name(svc, MPI_INFO_NULL, port);
		MPI_Error_class(err, &cls);
		if (no_ns)
			mtest_check(cls == MPI_ERR_SERVICE, "publish without a name service: class %d",
				    cls);
		else
			mtest_check(err == MPI_SUCCESS, "publish failed (class %d)", cls);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (!no_ns) {
		if (mtest_rank == mtest_size / 2) {
			err = MPI_Lookup_name(svc, MPI_INFO_NULL, found);
			mtest_check(err == MPI_SUCCESS && strcmp(found, port) == 0,
				    "lookup gave %d '%.60s'", err, err ? "" : found);
		}
		if (accepting)
			err = MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
		else
			err = MPI_Comm_connect(found, MPI_INFO_NULL, 0, half, &inter);
		if (mtest_check(err == MPI_SUCCESS, "second %s failed",
				accepting ? "accept" : "connect")) {
			exchange(inter, accepting, lrank, lsize);
			MPI_Comm_disconnect(&inter);
		}
		if (mtest_rank == 0)
			mtest_check(MPI_Unpublish_name(svc, MPI_INFO_NULL, port) == MPI_SUCCESS,
				    "unpublish failed");
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (mtest_rank == mtest_size / 2) {
		err = MPI_Lookup_name(svc, MPI_INFO_NULL, found);
		MPI_Error_class(err, &cls);
		mtest_check(cls == MPI_ERR_NAME, "lookup of an unpublished name: class %d", cls);
	}

	/* 3: a closed port refuses */
	if (mtest_rank == 0)
		mtest_check(MPI_Close_port(port) == MPI_SUCCESS, "close_port failed");
	MPI_Barrier(MPI_COMM_WORLD);
	if (mtest_rank == mtest_size / 2) {
		err = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
		MPI_Error_class(err, &cls);
		mtest_check(cls == MPI_ERR_PORT, "connect to a closed port: class %d", cls);
		err = MPI_Comm_connect("no-such-port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
		MPI_Error_class(err, &cls);
		mtest_check(cls == MPI_ERR_PORT, "connect to a malformed port: class %d", cls);
	}
	MPI_Comm_free(&half);
	return mtest_finalize();
}
