/* SPDX-License-Identifier: MIT */
/*
 * Receives with MPI_ANY_SOURCE, MPI_ANY_TAG and both, and checks that the
 * status names the real source and tag of the message matched, that
 * Get_count gives the real length, and that messages from one sender on
 * one tag still arrive in order under wildcards. Wildcard receives run only
 * on rank 0, and all traffic of one phase is received before the next.
 */
#include "mtest.h"

#define PER_SENDER 20
#define MAXLEN 64

/* Payload: source, tag, sequence, then filler up to a length that varies. */
static int msg_len(int src, int seq)
{
	return 3 + (src * 5 + seq * 3) % (MAXLEN - 3);
}

static void send_msgs(int tag_base, int same_tag)
{
	int buf[MAXLEN], seq, i, len, tag;

	for (seq = 0; seq < PER_SENDER; seq++) {
		tag = same_tag ? tag_base : tag_base + seq % 4;
		len = msg_len(mtest_rank, seq);
		buf[0] = mtest_rank;
		buf[1] = tag;
		buf[2] = seq;
		for (i = 3; i < len; i++)
			buf[i] = mtest_rank * 1000 + seq + i;
		MPI_Send(buf, len, MPI_INT, 0, tag, MPI_COMM_WORLD);
	}
}

/* Checks one received message against its status; returns its sequence. */
static int check_msg(const int *buf, MPI_Status *st, const char *phase)
{
	int count, i, src = buf[0], seq = buf[2];

	MPI_Get_count(st, MPI_INT, &count);
	if (!mtest_check(st->MPI_SOURCE == src && st->MPI_TAG == buf[1],
			 "%s: status source %d tag %d, payload says %d/%d",
			 phase, st->MPI_SOURCE, st->MPI_TAG, src, buf[1]))
		return -1;
	if (src < 1 || src >= mtest_size || seq < 0 || seq >= PER_SENDER) {
		mtest_error("%s: garbage payload header %d/%d", phase, src, seq);
		return -1;
	}
	mtest_check(count == msg_len(src, seq), "%s: count %d, expected %d",
		    phase, count, msg_len(src, seq));
	for (i = 3; i < count; i++)
		if (!mtest_check(buf[i] == src * 1000 + seq + i,
				 "%s: payload word %d wrong", phase, i))
			break;
	return seq;
}

/* ANY_SOURCE + ANY_TAG: tags differ per message, so only messages of one
 * sender with the same tag are ordered. */
static void phase_any_any(void)
{
	int next[64][4] = { { 0 } }, buf[MAXLEN], n, seq, src;
	MPI_Status st;

	for (n = 0; n < PER_SENDER * (mtest_size - 1); n++) {
		MPI_Recv(buf, MAXLEN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
			 MPI_COMM_WORLD, &st);
		seq = check_msg(buf, &st, "any/any");
		if (seq < 0)
			continue;
		src = st.MPI_SOURCE;
		mtest_check(seq % 4 == st.MPI_TAG - 100 && seq >= next[src][seq % 4],
			    "any/any: from %d seq %d tag %d out of order", src,
			    seq, st.MPI_TAG);
		next[src][seq % 4] = seq + 1;
	}
}

/* ANY_SOURCE with one tag: per-sender order is total. */
static void phase_any_source(void)
{
	int next[64] = { 0 }, buf[MAXLEN], n, seq;
	MPI_Status st;

	for (n = 0; n < PER_SENDER * (mtest_size - 1); n++) {
		MPI_Recv(buf, MAXLEN, MPI_INT, MPI_ANY_SOURCE, 200,
			 MPI_COMM_WORLD, &st);
		seq = check_msg(buf, &st, "any-source");
		if (seq < 0)
			continue;
		mtest_check(seq == next[st.MPI_SOURCE],
			    "any-source: from %d seq %d, expected %d",
			    st.MPI_SOURCE, seq, next[st.MPI_SOURCE]);
		next[st.MPI_SOURCE] = seq + 1;
	}
}

/* ANY_TAG from each source in turn, with Irecv: order per source holds
 * even across tags, because a wildcard tag matches them all in order. */
static void phase_any_tag(void)
{
	int buf[MAXLEN], src, n, seq;
	MPI_Request req;
	MPI_Status st;

	for (src = mtest_size - 1; src >= 1; src--) {
		for (n = 0; n < PER_SENDER; n++) {
			MPI_Irecv(buf, MAXLEN, MPI_INT, src, MPI_ANY_TAG,
				  MPI_COMM_WORLD, &req);
			MPI_Wait(&req, &st);
			seq = check_msg(buf, &st, "any-tag");
			mtest_check(seq == n, "any-tag: from %d seq %d, expected %d",
				    src, seq, n);
		}
	}
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	if (mtest_size < 2 || mtest_size > 64) {
		mtest_check(0, "wildcards needs 2..64 ranks");
		return mtest_finalize();
	}
	if (mtest_rank == 0) {
		phase_any_any();
		mtest_barrier(MPI_COMM_WORLD);
		phase_any_source();
		mtest_barrier(MPI_COMM_WORLD);
		phase_any_tag();
	} else {
		send_msgs(100, 0);
		mtest_barrier(MPI_COMM_WORLD);
		send_msgs(200, 1);
		mtest_barrier(MPI_COMM_WORLD);
		send_msgs(300, 0);
	}
	return mtest_finalize();
}
