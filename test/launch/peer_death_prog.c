/* SPDX-License-Identifier: MIT */
/*
 * test/launch/peer_death_prog.c: rank 2 kills itself while rank 0 waits
 * in a receive from it, under a launcher that leaves the others running
 * (mpiexec.mpich -disable-auto-cleanup): Michi itself must notice, from
 * the shared-memory device's look at its idle peers, and fail the
 * receive with an error (MPI_ERRORS_RETURN) rather than wait for ever.
 * Rank 0 writes "failed after S s: MESSAGE" and tells the other ranks;
 * ranks leave without MPI_Finalize, whose fence the dead rank would
 * never join. Each rank writes its line to PREFIX.RANK (argv[1]): Hydra
 * stops forwarding the output of a job once one of its ranks was
 * killed.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec pause = { 0, 200 * 1000 * 1000 };
	char msg[MPI_MAX_ERROR_STRING], path[4096];
	FILE *out;
	int rank, size, v = 0, r, rc, len;
	double t0;

	/* Hydra tells the ranks left of a failure with SIGUSR1, whose default
	 * action would end them; MPICH's library catches it, Michi's does not */
	signal(SIGUSR1, SIG_IGN);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (size < 3 || argc < 2) {
		fprintf(stderr, "usage: peer_death PREFIX, on at least 3 ranks\n");
		_exit(2);
	}
	snprintf(path, sizeof(path), "%s.%d", argv[1], rank);
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		_exit(2);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 2) {
		nanosleep(&pause, NULL);
		raise(SIGKILL);
	}
	if (rank != 0) {
		rc = MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		fprintf(out, "rank %d: %s\n", rank, rc == MPI_SUCCESS && v == 7 ? "released" : "wrong");
		fclose(out);
		_exit(0);
	}
	t0 = MPI_Wtime();
	rc = MPI_Recv(&v, 1, MPI_INT, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (rc == MPI_SUCCESS) {
		fprintf(out, "rank 0: the receive from the dead rank completed\n");
		fflush(out);
	} else {
		MPI_Error_string(rc, msg, &len);
		fprintf(out, "rank 0: failed after %.1f s: %s\n", MPI_Wtime() - t0, msg);
		fflush(out);
	}
	v = 7;
	for (r = 1; r < size; r++)
		if (r != 2)
			MPI_Send(&v, 1, MPI_INT, r, 1, MPI_COMM_WORLD);
	fclose(out);
	_exit(0);
}
