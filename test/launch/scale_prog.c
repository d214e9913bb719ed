/* SPDX-License-Identifier: MIT */
/*
 * test/launch/scale_prog.c: the rank of test/launch/scale.sh. A ring
 * (each rank sends to the next, receives from the previous, a few
 * rounds) and an MPI_Allreduce of the ranks, checked; then every rank
 * counts its open file descriptors (/proc/self/fd) before MPI_Finalize and
 * rank 0 prints "fds max M min m" over the ranks, and "ok N" on success.
 */
#include <mpi.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;   /* the directory's own fd */
}

int main(int argc, char **argv)
{
	int rank, size, i, next, prev, tok, sum = 0, fds, mx, mn, bad = 0, anybad;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	next = (rank + 1) % size;
	prev = (rank + size - 1) % size;
	for (i = 0; i < 3; i++) {
		MPI_Sendrecv(&rank, 1, MPI_INT, next, i, &tok, 1, MPI_INT, prev, i, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		if (tok != prev) {
			fprintf(stderr, "rank %d: ring round %d got %d from %d\n", rank, i, tok, prev);
			bad = 1;
		}
	}
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (sum != size * (size - 1) / 2) {
		fprintf(stderr, "rank %d: allreduce gave %d, want %d\n", rank, sum, size * (size - 1) / 2);
		bad = 1;
	}
	fds = count_fds();
	MPI_Reduce(&fds, &mx, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&fds, &mn, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
	MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("fds max %d min %d\n", mx, mn);
		if (!anybad)
			printf("ok %d\n", size);
	}
	MPI_Finalize();
	return 0;
}
