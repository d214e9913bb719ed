/* SPDX-License-Identifier: MIT */
/*
 * Probe, Iprobe, Mprobe, Improbe, Mrecv and Imrecv between two ranks:
 * probed status gives the real source, tag and count (also for a 4 MiB
 * message that is not yet received), a probe leaves the message to the
 * next receive, and a matched probe takes the message out of the queue so
 * a later receive gets the following one.
 */
#include "mtest.h"

#define BIG (4 << 20)

static void expect_status(MPI_Status *st, int src, int tag, int bytes,
			  const char *what)
{
	int count = -1;

	MPI_Get_count(st, MPI_BYTE, &count);
	mtest_check(st->MPI_SOURCE == src && st->MPI_TAG == tag && count == bytes,
		    "%s: status source %d tag %d count %d, expected %d/%d/%d",
		    what, st->MPI_SOURCE, st->MPI_TAG, count, src, tag, bytes);
}

static void expect_data(const unsigned char *buf, int n, unsigned seed,
			const char *what)
{
	long bad = mtest_verify(buf, n, seed);

	mtest_check(bad < 0, "%s: wrong byte at %ld", what, bad);
}

/* Iprobe until found, bounded in time. */
static int iprobe_wait(int src, int tag, MPI_Status *st)
{
	double end = MPI_Wtime() + MTEST_WAIT_S;
	int flag = 0;

	while (!flag && MPI_Wtime() < end)
		MPI_Iprobe(src, tag, MPI_COMM_WORLD, &flag, st);
	return mtest_check(flag, "Iprobe(%d, %d) found nothing in %.0f s", src,
			   tag, MTEST_WAIT_S);
}

static void improbe_wait(int src, int tag, MPI_Message *msg, MPI_Status *st)
{
	double end = MPI_Wtime() + MTEST_WAIT_S;
	int flag = 0;

	while (!flag && MPI_Wtime() < end)
		MPI_Improbe(src, tag, MPI_COMM_WORLD, &flag, msg, st);
	mtest_check(flag, "Improbe(%d, %d) found nothing in %.0f s", src, tag,
		    MTEST_WAIT_S);
}

static void receiver(unsigned char *buf)
{
	MPI_Status st;
	MPI_Message msg, msg2;
	MPI_Request req;
	int flag;

	/* Nothing has been sent yet: tag 1 is only sent after our go. */
	MPI_Iprobe(1, 1, MPI_COMM_WORLD, &flag, &st);
	mtest_check(!flag, "Iprobe found a message that was never sent");
	MPI_Send(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);

	/* Blocking probe of a large message, twice: probing does not consume. */
	MPI_Probe(1, 1, MPI_COMM_WORLD, &st);
	expect_status(&st, 1, 1, BIG, "Probe big");
	MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
	expect_status(&st, 1, 1, BIG, "Probe big again, wildcards");
	MPI_Recv(buf, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &st);
	expect_status(&st, 1, 1, BIG, "Recv big after probe");
	expect_data(buf, BIG, 1, "Recv big after probe");

	/* Iprobe small, then receive it. */
	if (iprobe_wait(1, 2, &st)) {
		expect_status(&st, 1, 2, 10, "Iprobe small");
		MPI_Recv(buf, 10, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &st);
		expect_data(buf, 10, 2, "Recv small after Iprobe");
	}

	/* Mprobe takes A out of the queue; the next Recv gets B. */
	MPI_Mprobe(1, 3, MPI_COMM_WORLD, &msg, &st);
	expect_status(&st, 1, 3, 100, "Mprobe A");
	MPI_Recv(buf, BIG, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &st);
	expect_status(&st, 1, 3, 200, "Recv after Mprobe gets B");
	expect_data(buf, 200, 32, "B");
	MPI_Mrecv(buf, 100, MPI_BYTE, &msg, &st);
	mtest_check(msg == MPI_MESSAGE_NULL, "Mrecv did not reset the message");
	expect_status(&st, 1, 3, 100, "Mrecv A");
	expect_data(buf, 100, 31, "A");

	/* Improbe + Imrecv of a large message, and Mprobe with wildcards. */
	improbe_wait(1, 4, &msg, &st);
	expect_status(&st, 1, 4, BIG, "Improbe big");
	MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg2, &st);
	expect_status(&st, 1, 5, 0, "Mprobe wildcard skips the matched big");
	MPI_Imrecv(buf, BIG, MPI_BYTE, &msg, &req);
	mtest_check(msg == MPI_MESSAGE_NULL, "Imrecv did not reset the message");
	MPI_Wait(&req, &st);
	expect_status(&st, 1, 4, BIG, "Imrecv big");
	expect_data(buf, BIG, 4, "Imrecv big");
	MPI_Mrecv(NULL, 0, MPI_BYTE, &msg2, &st);
	expect_status(&st, 1, 5, 0, "Mrecv zero bytes");

	/* Get_count from a probe in another datatype unit. */
	MPI_Probe(1, 6, MPI_COMM_WORLD, &st);
	{
		int count = -1;

		MPI_Get_count(&st, MPI_DOUBLE, &count);
		mtest_check(count == 33, "Probe doubles: count %d, expected 33",
			    count);
	}
	MPI_Recv(buf, 33, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD, &st);
	for (int i = 0; i < 33; i++)
		if (!mtest_check(((double *)buf)[i] == i * 0.5,
				 "double %d wrong", i))
			break;
}

static void sender(unsigned char *buf)
{
	double d[33];
	int i;

	MPI_Recv(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	mtest_fill(buf, BIG, 1);
	MPI_Send(buf, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
	mtest_fill(buf, 10, 2);
	MPI_Send(buf, 10, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
	/* Nonblocking: A is only received after B, and a standard send
	 * may wait for its receive. */
	{
		MPI_Request r[2];

		mtest_fill(buf, 100, 31);
		mtest_fill(buf + 100, 200, 32);
		MPI_Isend(buf, 100, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &r[0]);
		MPI_Isend(buf + 100, 200, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &r[1]);
		MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
	}
	mtest_fill(buf, BIG, 4);
	/* The big one must not block the zero-byte one behind it: Isend. */
	{
		MPI_Request r;

		MPI_Isend(buf, BIG, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &r);
		MPI_Send(NULL, 0, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	}
	for (i = 0; i < 33; i++)
		d[i] = i * 0.5;
	MPI_Send(d, 33, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	unsigned char *buf;

	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		mtest_check(0, "probe needs exactly 2 ranks");
		return mtest_finalize();
	}
	buf = mtest_malloc(BIG);
	if (mtest_rank == 0)
		receiver(buf);
	else
		sender(buf);
	free(buf);
	return mtest_finalize();
}
