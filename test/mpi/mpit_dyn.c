/* SPDX-License-Identifier: MIT */
/*
 * MPI_T counters across MPI_Comm_spawn: the parents read their device's
 * frame and byte counters (shm_frames_sent and shm_ring_bytes_sent, or
 * tcp_frames_sent and tcp_bytes_sent with MICHI_DEVICE=tcp) around a
 * message exchange between parent ranks 0 and 1, spawn a child (which
 * becomes a peer of every parent) and exchange again: the counters must
 * grow by the second exchange as by the first. They used to stop for
 * good once the peer count grew after a first read. The child answers
 * parent rank 0 and disconnects. Run with 2 ranks or more.
 */
#include "mtest.h"

#define NMSG 10
#define MSG_BYTES 100

static MPI_T_pvar_session ses;

static MPI_T_pvar_handle counter(const char *name)
{
	MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
	int idx, count, rc;

	rc = MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx);
	if (!mtest_check(rc == MPI_SUCCESS, "pvar %s: get_index error %d", name, rc))
		return h;
	rc = MPI_T_pvar_handle_alloc(ses, idx, NULL, &h, &count);
	if (mtest_check(rc == MPI_SUCCESS, "pvar %s: handle_alloc error %d", name, rc))
		MPI_T_pvar_start(ses, h);
	return h;
}

static unsigned long long value(MPI_T_pvar_handle h)
{
	unsigned long long v = 0;

	if (h != MPI_T_PVAR_HANDLE_NULL)
		MPI_T_pvar_read(ses, h, &v);
	return v;
}

/* Ranks 0 and 1 swap NMSG messages each way. */
static void exchange(void)
{
	char buf[MSG_BYTES];
	int i, peer = 1 - mtest_rank;

	memset(buf, mtest_rank + 1, sizeof(buf));
	if (mtest_rank > 1)
		return;
	for (i = 0; i < NMSG; i++)
		MPI_Sendrecv_replace(buf, MSG_BYTES, MPI_CHAR, peer, 5, peer, 5, MPI_COMM_WORLD,
				     MPI_STATUS_IGNORE);
}

/* The growth of the frame and byte counters over one exchange. */
static void check_exchange(MPI_T_pvar_handle frames, MPI_T_pvar_handle bytes, const char *when)
{
	unsigned long long f0 = value(frames), b0 = value(bytes), f1, b1;

	exchange();
	f1 = value(frames);
	b1 = value(bytes);
	if (mtest_rank > 1)
		return;
	mtest_check(f1 - f0 >= NMSG, "%s: frames sent grew by %llu over %d messages", when,
		    f1 - f0, NMSG);
	mtest_check(b1 - b0 >= (unsigned long long)NMSG * MSG_BYTES,
		    "%s: bytes sent grew by %llu over %d messages of %d bytes", when, b1 - b0,
		    NMSG, MSG_BYTES);
}

static int child(MPI_Comm parent)
{
	int v = -1;

	MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
	v++;
	MPI_Send(&v, 1, MPI_INT, 0, 2, parent);
	MPI_Comm_disconnect(&parent);
	MPI_Finalize();
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = getenv("MICHI_DEVICE");
	MPI_T_pvar_handle frames, bytes;
	MPI_Comm parent, inter;
	char *cargv[] = { "child", NULL };
	int errcode = -1, v, provided;
	int tcp = dev && strcmp(dev, "tcp") == 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&parent);
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		if (parent == MPI_COMM_NULL) {
			printf("child: no parent\n");
			return 1;
		}
		return child(parent);
	}
	mtest_init_done();
	if (!mtest_is_michi() || mtest_size < 2 || mtest_matching_device())
		mtest_skip("Michi's byte device counters, with 2 ranks or more");
	MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	MPI_T_pvar_session_create(&ses);
	frames = counter(tcp ? "tcp_frames_sent" : "shm_frames_sent");
	bytes = counter(tcp ? "tcp_bytes_sent" : "shm_ring_bytes_sent");

	check_exchange(frames, bytes, "before the spawn");
	MPI_Comm_spawn(argv[0], cargv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, &errcode);
	mtest_check(errcode == MPI_SUCCESS, "spawn: errcode %d", errcode);
	if (mtest_rank == 0) {
		v = 41;
		MPI_Send(&v, 1, MPI_INT, 0, 1, inter);
		MPI_Recv(&v, 1, MPI_INT, 0, 2, inter, MPI_STATUS_IGNORE);
		mtest_check(v == 42, "the child answered %d", v);
	}
	check_exchange(frames, bytes, "after the spawn");
	MPI_Comm_disconnect(&inter);

	MPI_T_pvar_handle_free(ses, &frames);
	MPI_T_pvar_handle_free(ses, &bytes);
	MPI_T_pvar_session_free(&ses);
	MPI_T_finalize();
	return mtest_finalize();
}
