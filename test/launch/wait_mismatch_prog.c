/* SPDX-License-Identifier: MIT */
/*
 * test/launch/wait_mismatch_prog.c: ranks 0 and 1 ping-pong, each taking
 * a few milliseconds before it sends so that the other runs out of work
 * and reaches the sleeping stage of its wait policy; every message is
 * checked. Then each rank prints MPI_T's shm_sleeps, "sleeps rank=R
 * n=N", and "ok" when all went well, the total still readable after
 * MPI_Finalize included.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 40
#define PAUSE_NS 2000000L

/* MPI_T's shm_sleeps, counted from the handle's start */
static MPI_T_pvar_session sleeps_session;
static MPI_T_pvar_handle sleeps_handle = MPI_T_PVAR_HANDLE_NULL;

static void sleeps_open(void)
{
	int provided, idx, count;

	if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS ||
	    MPI_T_pvar_get_index("shm_sleeps", MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS ||
	    MPI_T_pvar_session_create(&sleeps_session) != MPI_SUCCESS)
		return;
	if (MPI_T_pvar_handle_alloc(sleeps_session, idx, NULL, &sleeps_handle, &count) !=
	    MPI_SUCCESS || count != 1 ||
	    MPI_T_pvar_start(sleeps_session, sleeps_handle) != MPI_SUCCESS)
		sleeps_handle = MPI_T_PVAR_HANDLE_NULL;
}

/* ~0 when MPI_T had no such variable */
static unsigned long long sleeps_read(void)
{
	unsigned long long v = ~0ull;

	if (sleeps_handle != MPI_T_PVAR_HANDLE_NULL)
		MPI_T_pvar_read(sleeps_session, sleeps_handle, &v);
	return v;
}

static void sleeps_close(void)
{
	if (sleeps_handle != MPI_T_PVAR_HANDLE_NULL) {
		MPI_T_pvar_handle_free(sleeps_session, &sleeps_handle);
		MPI_T_pvar_session_free(&sleeps_session);
	}
	MPI_T_finalize();
}

int main(int argc, char **argv)
{
	struct timespec pause = { 0, PAUSE_NS };
	int rank, size, i, v, bad = 0;
	unsigned long long n, after;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	sleeps_open();
	for (i = 0; i < ROUNDS && size >= 2; i++) {
		if (rank == 0) {
			nanosleep(&pause, NULL);
			MPI_Send(&i, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (v != 3 * i + 1)
				bad++;
		} else if (rank == 1) {
			MPI_Recv(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (v != i)
				bad++;
			nanosleep(&pause, NULL);
			v = 3 * v + 1;
			MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	n = sleeps_read();
	MPI_Finalize();
	/* the total stays readable after MPI_Finalize: MPI_Finalize's own
	 * waits may add a few sleeps, never take any away */
	after = sleeps_read();
	sleeps_close();
	printf("sleeps rank=%d n=%llu\n", rank, n);
	if (bad)
		printf("rank %d: %d wrong messages\n", rank, bad);
	else if (n == ~0ull)
		printf("rank %d: no shm_sleeps variable\n", rank);
	else if (after < n || after - n > 1000)
		printf("rank %d: shm_sleeps %llu after MPI_Finalize, %llu before\n", rank, after, n);
	else
		printf("ok\n");
	return bad ? 1 : 0;
}
