/* SPDX-License-Identifier: MIT */
/*
 * Partitioned communication (MPI-4.0 chapter 4), rank 0 sending to rank
 * 1: MPI_Psend_init/MPI_Precv_init with equal and different partition
 * counts on the two sides (same total), small (eager) and large
 * (rendezvous, streamed over shm) buffers, partitions marked ready out of
 * order with MPI_Pready, MPI_Pready_list and MPI_Pready_range, the
 * receiver polling MPI_Parrived and checking each partition's bytes as
 * soon as it says so, every request restarted ROUNDS times, two requests
 * at once through MPI_Startall/MPI_Waitall, a derived datatype on the
 * sender, each rank to itself, and the error checks (partition out of
 * range, MPI_Pready on an inactive request or twice, wildcards in
 * MPI_Precv_init, MPI_Wait/MPI_Waitall on a send whose partitions are not
 * all ready). Every byte is checked; every poll loop is bounded in time.
 */
#include "mtest.h"

#define ROUNDS 12

/* polls in which a partition read as arrived and a later one, asked
 * after it, not yet: partial rounds (the streamed path over shm);
 * printed, not checked, since it depends on timing */
static long early;

static int val(int round, int tag, long i)
{
	return (int)(round * 1000003L + tag * 7919L + i);
}

static void mark_ready(MPI_Request req, int parts, int round)
{
	int list[64], i;

	switch (round % 3) {
	case 0:   /* in order, one by one */
		for (i = 0; i < parts; i++)
			MPI_Pready(i, req);
		break;
	case 1:   /* reversed, as a list */
		for (i = 0; i < parts; i++)
			list[i] = parts - 1 - i;
		MPI_Pready_list(parts, list, req);
		break;
	default:  /* the second half first, as ranges */
		if (parts > 1)
			MPI_Pready_range(parts / 2, parts - 1, req);
		MPI_Pready_range(0, parts / 2 - (parts > 1), req);
		break;
	}
}

/* Receive side: poll MPI_Parrived and check every partition as soon as it
 * says it arrived; then wait and check the status. */
static void recv_round(MPI_Request req, const int *buf, int rparts, long per, int round, int tag)
{
	int seen[64] = { 0 }, left = rparts, flag;
	double t0 = MPI_Wtime();
	MPI_Status st;
	MPI_Count cnt;

	while (left > 0 && MPI_Wtime() - t0 < MTEST_WAIT_S) {
		int got_one = 0, partial = 0;

		for (int p = 0; p < rparts; p++) {
			MPI_Parrived(req, p, &flag);
			if (!flag)
				partial |= got_one;
			got_one |= flag;
			if (seen[p] || !flag)
				continue;
			seen[p] = 1;
			left--;
			for (long i = p * per; i < (p + 1) * per; i++)
				if (!mtest_check(buf[i] == val(round, tag, i),
						 "tag %d round %d: Parrived(%d) said 1 but [%ld] = %d,"
						 " expected %d", tag, round, p, i, buf[i],
						 val(round, tag, i)))
					break;
		}
		early += partial;
	}
	mtest_check(left == 0, "tag %d round %d: %d partitions never arrived", tag, round, left);
	MPI_Wait(&req, &st);
	MPI_Get_count_c(&st, MPI_INT, &cnt);
	mtest_check(cnt == rparts * per && st.MPI_SOURCE == 0 && st.MPI_TAG == tag,
		    "tag %d: status count %lld source %d tag %d", tag, (long long)cnt,
		    st.MPI_SOURCE, st.MPI_TAG);
	for (long i = 0; i < rparts * per; i++)
		if (!mtest_check(buf[i] == val(round, tag, i), "tag %d round %d: [%ld] = %d", tag,
				 round, i, buf[i]))
			break;
	/* after completion every partition reads as arrived (inactive) */
	MPI_Parrived(req, rparts - 1, &flag);
	mtest_check(flag == 1, "Parrived on a completed round gave %d", flag);
}

static void pair(int sparts, int rparts, long total, int tag)
{
	int *buf = malloc(total * sizeof(int));
	MPI_Request req;

	if (mtest_rank == 0) {
		MPI_Psend_init(buf, sparts, total / sparts, MPI_INT, 1, tag, MPI_COMM_WORLD,
			       MPI_INFO_NULL, &req);
		for (int round = 0; round < ROUNDS; round++) {
			for (long i = 0; i < total; i++)
				buf[i] = val(round, tag, i);
			MPI_Start(&req);
			mark_ready(req, sparts, round);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
		}
	} else {
		MPI_Precv_init(buf, rparts, total / rparts, MPI_INT, 0, tag, MPI_COMM_WORLD,
			       MPI_INFO_NULL, &req);
		for (int round = 0; round < ROUNDS; round++) {
			memset(buf, 0xff, total * sizeof(int));
			MPI_Start(&req);
			recv_round(req, buf, rparts, total / rparts, round, tag);
		}
	}
	MPI_Request_free(&req);
	free(buf);
}

/* Two partitioned pairs at once, started together; the sender's data
 * is a vector (every other int of a buffer twice as long). */
static void two_at_once(void)
{
	enum { T = 6000 };
	int *a = malloc(2 * T * sizeof(int)), *b = malloc(T * sizeof(int));
	MPI_Request reqs[2];
	MPI_Datatype vec0, vec;

	/* one element: T/4 ints at even places, extent T/2 ints, so that
	 * partition i holds a[2k] for k in i*T/4 .. (i+1)*T/4-1 */
	MPI_Type_vector(T / 4, 1, 2, MPI_INT, &vec0);
	MPI_Type_create_resized(vec0, 0, (MPI_Aint)(T / 2) * sizeof(int), &vec);
	MPI_Type_free(&vec0);
	MPI_Type_commit(&vec);
	if (mtest_rank == 0) {
		MPI_Psend_init(a, 4, 1, vec, 1, 50, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
		MPI_Psend_init(b, 3, T / 3, MPI_INT, 1, 51, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);
	} else {
		MPI_Precv_init(a, 2, T / 2, MPI_INT, 0, 50, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
		MPI_Precv_init(b, 5, T / 5, MPI_INT, 0, 51, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);
	}
	MPI_Type_free(&vec);   /* the requests keep it */
	for (int round = 0; round < ROUNDS; round++) {
		if (mtest_rank == 0) {
			for (long i = 0; i < T; i++) {
				a[2 * i] = val(round, 50, i);
				a[2 * i + 1] = -1;
				b[i] = val(round, 51, i);
			}
			MPI_Startall(2, reqs);
			mark_ready(reqs[1], 3, round);
			mark_ready(reqs[0], 4, round + 1);
			MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
		} else {
			memset(a, 0, T * sizeof(int));
			memset(b, 0, T * sizeof(int));
			MPI_Startall(2, reqs);
			MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
			for (long i = 0; i < T; i++)
				if (!mtest_check(a[i] == val(round, 50, i) && b[i] == val(round, 51, i),
						 "Startall round %d: a[%ld] = %d b[%ld] = %d", round, i,
						 a[i], i, b[i]))
					break;
		}
	}
	MPI_Request_free(&reqs[0]);
	MPI_Request_free(&reqs[1]);
	free(a);
	free(b);
}

/* Every rank to itself (the self device): 8 send partitions readied in
 * reverse, 2 receive partitions, 1 MiB, three rounds. */
static void self_pair(void)
{
	enum { T = 1 << 18 };
	int *a = malloc(T * sizeof(int)), *b = malloc(T * sizeof(int));
	MPI_Request s, r;

	MPI_Psend_init(a, 8, T / 8, MPI_INT, mtest_rank, 70, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
	MPI_Precv_init(b, 2, T / 2, MPI_INT, mtest_rank, 70, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
	for (int round = 0; round < 3; round++) {
		for (long i = 0; i < T; i++)
			a[i] = val(round, 70 + mtest_rank, i);
		memset(b, 0, T * sizeof(int));
		MPI_Start(&r);
		MPI_Start(&s);
		for (int p = 7; p >= 0; p--)
			MPI_Pready(p, s);
		MPI_Wait(&s, MPI_STATUS_IGNORE);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
		for (long i = 0; i < T; i++)
			if (!mtest_check(b[i] == val(round, 70 + mtest_rank, i),
					 "self round %d: [%ld] = %d", round, i, b[i]))
				break;
	}
	MPI_Request_free(&s);
	MPI_Request_free(&r);
	free(a);
	free(b);
}

static void expect_error(int err, int want, const char *fn, const char *what)
{
	char msg[MPI_MAX_ERROR_STRING];
	int cls = MPI_SUCCESS, len = 0;

	if (!mtest_check(err != MPI_SUCCESS, "%s succeeded", what))
		return;
	MPI_Error_class(err, &cls);
	MPI_Error_string(err, msg, &len);
	mtest_check(cls == want, "%s: class %d, expected %d (%s)", what, cls, want, msg);
	mtest_check(strstr(msg, fn) != NULL, "%s: message does not name %s: %s", what, fn, msg);
}

static void errors(void)
{
	MPI_Request req;
	int buf[8], list[2] = { 1, 1 }, flag;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (mtest_rank == 0) {
		MPI_Psend_init(buf, 4, 2, MPI_INT, 1, 60, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
		for (int i = 0; i < 8; i++)
			buf[i] = 100 + i;
		expect_error(MPI_Pready(0, req), MPI_ERR_REQUEST, "MPI_Pready", "Pready inactive");
		MPI_Start(&req);
		expect_error(MPI_Pready(4, req), MPI_ERR_ARG, "MPI_Pready", "Pready(4) of 4");
		expect_error(MPI_Pready(-1, req), MPI_ERR_ARG, "MPI_Pready", "Pready(-1)");
		expect_error(MPI_Pready_range(2, 5, req), MPI_ERR_ARG, "MPI_Pready_range",
			     "Pready_range(2, 5)");
		expect_error(MPI_Pready_list(2, list, req), MPI_ERR_ARG, "MPI_Pready_list",
			     "Pready_list twice the same");
		expect_error(MPI_Parrived(req, 0, &flag), MPI_ERR_REQUEST, "MPI_Parrived",
			     "Parrived on a send");
		MPI_Pready_range(0, 0, req);
		MPI_Pready_range(2, 3, req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Request_free(&req);
	} else {
		MPI_Precv_init(buf, 2, 4, MPI_INT, 0, 60, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
		expect_error(MPI_Parrived(req, 2, &flag), MPI_ERR_ARG, "MPI_Parrived",
			     "Parrived(2) of 2");
		expect_error(MPI_Pready(0, req), MPI_ERR_REQUEST, "MPI_Pready", "Pready on a recv");
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		for (int i = 0; i < 8; i++)
			mtest_check(buf[i] == 100 + i, "error round: buf[%d] = %d", i, buf[i]);
		MPI_Request_free(&req);
	}
	/* waiting on a send whose partitions are not all ready fails (this
	 * thread is the only one that could mark them) */
	if (mtest_rank == 0) {
		MPI_Request two[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };

		MPI_Psend_init(buf, 4, 2, MPI_INT, 1, 61, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
		MPI_Start(&req);
		MPI_Pready(2, req);
		expect_error(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait",
			     "Wait with 1 of 4 partitions ready");
		two[1] = req;
		expect_error(MPI_Waitall(2, two, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST,
			     "MPI_Waitall", "Waitall with 1 of 4 partitions ready");
		MPI_Pready_range(0, 1, req);
		MPI_Pready(3, req);
		mtest_check(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS,
			    "Wait once all partitions are ready failed");
		MPI_Request_free(&req);
	} else {
		MPI_Precv_init(buf, 1, 8, MPI_INT, 0, 61, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Request_free(&req);
	}
	expect_error(MPI_Precv_init(buf, 2, 4, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
				    MPI_INFO_NULL, &req), MPI_ERR_RANK, "MPI_Precv_init",
		     "Precv_init(MPI_ANY_SOURCE)");
	expect_error(MPI_Precv_init(buf, 2, 4, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD,
				    MPI_INFO_NULL, &req), MPI_ERR_TAG, "MPI_Precv_init",
		     "Precv_init(MPI_ANY_TAG)");
	expect_error(MPI_Psend_init(buf, 0, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
				    &req), MPI_ERR_ARG, "MPI_Psend_init", "Psend_init(partitions=0)");
	expect_error(MPI_Psend_init(buf, 2, -1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_INFO_NULL,
				    &req), MPI_ERR_COUNT, "MPI_Psend_init", "Psend_init(count=-1)");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	static const int shapes[][2] = {
		{ 1, 1 }, { 4, 4 }, { 8, 2 }, { 3, 6 }, { 16, 1 }, { 1, 16 }, { 12, 8 },
	};

	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		if (mtest_rank == 0)
			printf("partitioned: needs 2 ranks\n");
		MPI_Finalize();
		return 77;
	}
	for (unsigned s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		/* 48 ints: eager; 48 * 8192 ints (1.5 MiB): rendezvous */
		pair(shapes[s][0], shapes[s][1], 48, 10 + s);
		pair(shapes[s][0], shapes[s][1], 48L * 8192, 30 + s);
	}
	two_at_once();
	self_pair();
	errors();
	if (mtest_rank == 1)
		printf("partitioned: %ld polls saw a round partly arrived\n",
		       early);
	mtest_finalize();
	return 0;
}
