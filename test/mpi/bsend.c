/* SPDX-License-Identifier: MIT */
/*
 * Buffered mode: Bsend and Ibsend complete locally, copying into the
 * attached buffer, even while the receiver has posted nothing. Rank 0 fills
 * the buffer with many messages before rank 1 starts receiving, reuses its
 * own send buffer at once (the copy must be what arrives), and then
 * detaches, which must wait until everything buffered was delivered and
 * hand back the same buffer and size. Buffer sizes come from Pack_size
 * plus MPI_BSEND_OVERHEAD, as the standard prescribes.
 */
#include "mtest.h"

#define NMSG 40
#define MSG 1000
#define LARGE (300 * 1000)
#define TAG_GO 1

static int bsend_space(int count, int nmsg)
{
	int packed = 0;

	MPI_Pack_size(count, MPI_BYTE, MPI_COMM_WORLD, &packed);
	return nmsg * (packed + MPI_BSEND_OVERHEAD);
}

/* Rank 0 buffers nmsg messages of n bytes with one send buffer, then lets
 * rank 1 receive them; detach returns only after delivery. */
static void fill_and_drain(int n, int nmsg, int nonblocking)
{
	int size = bsend_space(n, nmsg), dsize = 0, i;
	unsigned char *msg = mtest_malloc(n), *bbuf = NULL;
	void *dbuf = NULL;
	MPI_Request req;
	MPI_Status st;
	int count;

	if (mtest_rank == 0) {
		bbuf = mtest_malloc(size);
		MPI_Buffer_attach(bbuf, size);
		for (i = 0; i < nmsg; i++) {
			mtest_fill(msg, n, (unsigned)i);
			if (nonblocking) {
				MPI_Ibsend(msg, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD,
					   &req);
				MPI_Wait(&req, MPI_STATUS_IGNORE);
			} else {
				MPI_Bsend(msg, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
			}
			/* Overwrite at once: the buffered copy must be sent. */
			memset(msg, 0xcc, n);
		}
		MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD);
		MPI_Buffer_detach(&dbuf, &dsize);
		mtest_check(dbuf == bbuf && dsize == size,
			    "detach returned %p/%d, attached %p/%d", dbuf, dsize,
			    (void *)bbuf, size);
		free(bbuf);
	} else if (mtest_rank == 1) {
		/* Nothing is posted until all sends have completed locally. */
		MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		for (i = 0; i < nmsg; i++) {
			memset(msg, 0, n);
			MPI_Recv(msg, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &count);
			mtest_check(count == n, "message %d: count %d", i, count);
			if (!mtest_check(mtest_verify(msg, n, (unsigned)i) < 0,
					 "%s %d B message %d: wrong data",
					 nonblocking ? "Ibsend" : "Bsend", n, i))
				break;
		}
	}
	free(msg);
}

/*
 * Detach may return once the buffered message is "transmitted", which need
 * not mean received (an eager copy already sits at the receiver). What it
 * guarantees is that the buffer is no longer used: scribbling over it after
 * detach must not change what rank 1 receives later.
 */
static void detach_releases(void)
{
	int size = bsend_space(MSG, 1), dsize, v[MSG / 4];
	void *bbuf, *dbuf;
	MPI_Request req;

	if (mtest_rank == 0) {
		bbuf = mtest_malloc(size);
		MPI_Buffer_attach(bbuf, size);
		for (int i = 0; i < MSG / 4; i++)
			v[i] = i;
		MPI_Bsend(v, MSG / 4, MPI_INT, 1, 3, MPI_COMM_WORLD);
		MPI_Buffer_detach(&dbuf, &dsize);
		memset(bbuf, 0xdd, size);
		free(bbuf);
		MPI_Send(NULL, 0, MPI_BYTE, 1, TAG_GO, MPI_COMM_WORLD);
	} else if (mtest_rank == 1) {
		/* Posted first: "transmitted" may need the receiver. */
		MPI_Irecv(v, MSG / 4, MPI_INT, 0, 3, MPI_COMM_WORLD, &req);
		MPI_Recv(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		for (int i = 0; i < MSG / 4; i++)
			if (!mtest_check(v[i] == i, "after detach: word %d is %d",
					 i, v[i]))
				break;
	}
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	if (mtest_size < 2) {
		mtest_check(0, "bsend needs at least 2 ranks");
		return mtest_finalize();
	}
	fill_and_drain(MSG, NMSG, 0);
	fill_and_drain(MSG, NMSG, 1);
	fill_and_drain(0, NMSG, 0);
	fill_and_drain(LARGE, 4, 0);
	fill_and_drain(LARGE, 4, 1);
	detach_releases();
	return mtest_finalize();
}
