/* SPDX-License-Identifier: MIT */
/*
 * MPI_Request_get_status reports completion without freeing the request
 * (so Wait afterwards still returns the status), gives flag 1 and an empty
 * status for MPI_REQUEST_NULL, and flag 0 for a receive nothing can match
 * yet. MPI_Get_elements and Get_count agree with the message length for
 * basic types, including zero-length messages.
 */
#include "mtest.h"

#define TAG_GO 1

static void get_status(void)
{
	MPI_Request req = MPI_REQUEST_NULL;
	MPI_Status st;
	int flag = 0, buf[10] = { 0 }, count = -1, i;
	double end;

	MPI_Request_get_status(req, &flag, &st);
	mtest_check(flag && st.MPI_SOURCE == MPI_ANY_SOURCE &&
		    st.MPI_TAG == MPI_ANY_TAG,
		    "get_status(REQUEST_NULL): flag %d status %d/%d", flag,
		    st.MPI_SOURCE, st.MPI_TAG);

	if (mtest_rank == 0) {
		MPI_Irecv(buf, 10, MPI_INT, 1, 2, MPI_COMM_WORLD, &req);
		/* Rank 1 sends only after our go, so this cannot be done. */
		MPI_Request_get_status(req, &flag, &st);
		mtest_check(!flag, "get_status: receive complete before the "
			    "message was sent");
		MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD);
		end = MPI_Wtime() + MTEST_WAIT_S;
		flag = 0;
		while (!flag && MPI_Wtime() < end)
			MPI_Request_get_status(req, &flag, &st);
		mtest_check(flag, "get_status never saw the receive complete");
		mtest_check(req != MPI_REQUEST_NULL,
			    "get_status freed the request");
		MPI_Request_get_status(req, &flag, &st);
		mtest_check(flag, "get_status: second call says not complete");
		MPI_Get_count(&st, MPI_INT, &count);
		mtest_check(count == 7 && st.MPI_SOURCE == 1 && st.MPI_TAG == 2,
			    "get_status: status %d/%d/%d", st.MPI_SOURCE,
			    st.MPI_TAG, count);
		MPI_Wait(&req, &st);
		MPI_Get_count(&st, MPI_INT, &count);
		mtest_check(count == 7 && st.MPI_SOURCE == 1 && st.MPI_TAG == 2 &&
			    req == MPI_REQUEST_NULL,
			    "Wait after get_status: status %d/%d/%d",
			    st.MPI_SOURCE, st.MPI_TAG, count);
		for (i = 0; i < 7; i++)
			if (!mtest_check(buf[i] == i * 3, "word %d is %d", i,
					 buf[i]))
				break;
	} else if (mtest_rank == 1) {
		for (i = 0; i < 10; i++)
			buf[i] = i * 3;
		MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Isend(buf, 7, MPI_INT, 0, 2, MPI_COMM_WORLD, &req);
		/* get_status on a send: must eventually say complete. */
		end = MPI_Wtime() + MTEST_WAIT_S;
		flag = 0;
		while (!flag && MPI_Wtime() < end)
			MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
		mtest_check(flag, "get_status never saw the send complete");
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}
}

static void elements(void)
{
	double d[5] = { 1, 2, 3, 4, 5 }, r[8];
	short s[3] = { 1, 2, 3 };
	MPI_Status st;
	int count = -1, elems = -1;
	MPI_Count elems_x = -1;

	if (mtest_rank == 1) {
		MPI_Send(d, 5, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
		MPI_Send(d, 0, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD);
		MPI_Send(s, 3, MPI_SHORT, 0, 5, MPI_COMM_WORLD);
		return;
	}
	if (mtest_rank != 0)
		return;
	MPI_Recv(r, 8, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_DOUBLE, &count);
	MPI_Get_elements(&st, MPI_DOUBLE, &elems);
	MPI_Get_elements_x(&st, MPI_DOUBLE, &elems_x);
	mtest_check(count == 5 && elems == 5 && elems_x == 5,
		    "5 doubles: count %d elements %d elements_x %lld", count,
		    elems, (long long)elems_x);
	MPI_Recv(r, 8, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_DOUBLE, &count);
	MPI_Get_elements(&st, MPI_DOUBLE, &elems);
	mtest_check(count == 0 && elems == 0, "0 doubles: count %d elements %d",
		    count, elems);
	MPI_Recv(r, 8 * (int)sizeof(double) / 2, MPI_SHORT, 1, 5,
		 MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_SHORT, &count);
	MPI_Get_elements(&st, MPI_SHORT, &elems);
	mtest_check(count == 3 && elems == 3, "3 shorts: count %d elements %d",
		    count, elems);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	if (mtest_size < 2) {
		mtest_check(0, "reqstatus needs at least 2 ranks");
		return mtest_finalize();
	}
	get_status();
	elements();
	return mtest_finalize();
}
