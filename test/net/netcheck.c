/* SPDX-License-Identifier: MIT */
/*
 * test/net/netcheck.c: the MPI program of the multi-host tests. Passes a
 * token round the ring, checks an allreduce, then finds out which device
 * serves each peer: one small message to every peer in turn, with the
 * MPI_T counters shm_frames_sent and tcp_frames_sent read before and
 * after the send (a first round opens the connections, so the measured
 * one sends nothing else). Prints
 *   netcheck rank R host H
 *   netcheck rank R cwd DIR
 *   netcheck rank R NETCHECK_ENV=VALUE|(unset)
 *   netcheck rank R peer P host Q via shm|tcp|self|?
 * and checks itself that a peer of the same host name is served by shm
 * and one of another by tcp; exits 1 on any failure, after MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, failed;
static MPI_T_pvar_session session;

static void check(int ok, const char *what, int arg)
{
	if (ok)
		return;
	printf("netcheck rank %d FAIL: %s (%d)\n", rank, what, arg);
	failed = 1;
}

static MPI_T_pvar_handle counter(const char *name)
{
	MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
	int idx, count;

	if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS ||
	    MPI_T_pvar_handle_alloc(session, idx, NULL, &h, &count) != MPI_SUCCESS)
		return MPI_T_PVAR_HANDLE_NULL;
	MPI_T_pvar_start(session, h);
	return h;
}

static unsigned long long value(MPI_T_pvar_handle h)
{
	unsigned long long v = 0;

	if (h != MPI_T_PVAR_HANDLE_NULL)
		MPI_T_pvar_read(session, h, &v);
	return v;
}

int main(int argc, char **argv)
{
	char name[MPI_MAX_PROCESSOR_NAME], *names;
	MPI_T_pvar_handle shm, tcp;
	char dir[4096];
	long token, sum;
	int provided, len, d, round;

	MPI_Init(&argc, &argv);
	MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(name, &len);
	printf("netcheck rank %d host %s\n", rank, name);
	if (getcwd(dir, sizeof(dir)))
		printf("netcheck rank %d cwd %s\n", rank, dir);
	printf("netcheck rank %d NETCHECK_ENV=%s\n", rank,
	       getenv("NETCHECK_ENV") ? getenv("NETCHECK_ENV") : "(unset)");
	names = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
	MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
		      MPI_CHAR, MPI_COMM_WORLD);

	/* ring: rank 0 starts, each adds its rank */
	if (size > 1) {
		if (rank == 0) {
			token = 0;
			MPI_Send(&token, 1, MPI_LONG, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_LONG, size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			check(token == (long)size * (size - 1) / 2, "ring token", (int)token);
		} else {
			MPI_Recv(&token, 1, MPI_LONG, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			token += rank;
			MPI_Send(&token, 1, MPI_LONG, (rank + 1) % size, 1, MPI_COMM_WORLD);
		}
	}
	token = rank;
	MPI_Allreduce(&token, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	check(sum == (long)size * (size - 1) / 2, "allreduce sum", (int)sum);

	MPI_T_pvar_session_create(&session);
	shm = counter("shm_frames_sent");
	tcp = counter("tcp_frames_sent");
	check(tcp != MPI_T_PVAR_HANDLE_NULL, "no pvar tcp_frames_sent", 0);
	for (round = 0; round < 2; round++) {
		for (d = 1; d < size; d++) {
			int to = (rank + d) % size, from = (rank + size - d) % size, in = -1;
			unsigned long long s0 = value(shm), t0 = value(tcp), s1, t1;
			const char *via;
			MPI_Request req;

			MPI_Isend(&rank, 1, MPI_INT, to, 2, MPI_COMM_WORLD, &req);
			s1 = value(shm) - s0;
			t1 = value(tcp) - t0;
			MPI_Recv(&in, 1, MPI_INT, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Wait(&req, MPI_STATUS_IGNORE);
			check(in == from, "pairwise message from", from);
			if (round == 0)
				continue;
			via = s1 && !t1 ? "shm" : t1 && !s1 ? "tcp" : "?";
			printf("netcheck rank %d peer %d host %s via %s\n", rank, to,
			       names + (size_t)to * MPI_MAX_PROCESSOR_NAME, via);
			if (strcmp(names + (size_t)to * MPI_MAX_PROCESSOR_NAME, name) == 0)
				check(!strcmp(via, "shm"), "same host, not shm: peer", to);
			else
				check(!strcmp(via, "tcp"), "other host, not tcp: peer", to);
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_T_pvar_session_free(&session);
	MPI_T_finalize();
	free(names);
	if (!failed)
		printf("netcheck rank %d ok\n", rank);
	MPI_Finalize();
	return failed;
}
