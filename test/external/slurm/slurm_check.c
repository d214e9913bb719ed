/* SPDX-License-Identifier: MIT */
/*
 * test/external/slurm/slurm_check.c: what a Michi job started by Slurm
 * must get right, checked by every rank; test/external/slurm/run runs it
 * under srun --mpi=pmi2, srun --mpi=pmix and mpirun inside salloc.
 *
 *   slurm_check N        world size N, a message between every pair of
 *                        ranks (the business cards went through the key-
 *                        value space), allreduce; rank 0 prints No Errors
 *   slurm_check N srun   the same, and srun started the ranks itself: rank
 *                        and node-local rank must be Slurm's (SLURM_PROCID,
 *                        SLURM_LOCALID)
 *   slurm_check N abort  rank N-1 calls MPI_Abort(7) while the others
 *                        wait in a receive that never completes: the
 *                        process manager must end the whole job
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int errs;

#define CHECK(c, ...) do { \
		if (!(c)) { \
			errs++; \
			fprintf(stderr, "rank %d: ", rank); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
		} \
	} while (0)

static int env_int(const char *name)
{
	const char *s = getenv(name);

	return s ? atoi(s) : -1;
}

int main(int argc, char **argv)
{
	int rank, size, want, lrank, lsize, i, sum = 0, total = 0, appnum_ok, by_srun;
	int *out, *in;
	MPI_Comm local;
	void *attr;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	want = argc > 1 ? atoi(argv[1]) : size;
	by_srun = argc > 2 && !strcmp(argv[2], "srun");
	CHECK(size == want, "world size %d, expected %d", size, want);

	if (argc > 2 && !strcmp(argv[2], "abort")) {
		int x;

		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == size - 1)
			MPI_Abort(MPI_COMM_WORLD, 7);
		MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		fprintf(stderr, "rank %d: the receive completed after an abort\n", rank);
		return 3;
	}

	/* srun started the ranks itself: its numbering is the job's */
	if (by_srun) {
		CHECK(env_int("SLURM_PROCID") == rank, "rank %d but SLURM_PROCID=%d", rank,
		      env_int("SLURM_PROCID"));
		CHECK(env_int("SLURM_NTASKS") == size, "size %d but SLURM_NTASKS=%d", size,
		      env_int("SLURM_NTASKS"));
	}
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
	MPI_Comm_rank(local, &lrank);
	MPI_Comm_size(local, &lsize);
	if (by_srun)
		CHECK(env_int("SLURM_LOCALID") == lrank, "local rank %d but SLURM_LOCALID=%d",
		      lrank, env_int("SLURM_LOCALID"));
	MPI_Comm_free(&local);

	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &attr, &appnum_ok);
	CHECK(!appnum_ok || *(int *)attr == 0, "MPI_APPNUM %d, expected 0", *(int *)attr);

	/* a message between every pair, both ways */
	out = malloc((size_t)size * sizeof(int));
	in = malloc((size_t)size * sizeof(int));
	for (i = 0; i < size; i++)
		out[i] = rank * 1000 + i;
	MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < size; i++)
		CHECK(in[i] == i * 1000 + rank, "from rank %d got %d, expected %d", i, in[i],
		      i * 1000 + rank);
	free(out);
	free(in);

	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	CHECK(sum == size * (size - 1) / 2, "allreduce gave %d", sum);
	MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		if (total)
			printf("Found %d errors\n", total);
		else
			printf("No Errors (%d ranks, %d on the node of rank 0)\n", size, lsize);
	}
	MPI_Finalize();
	return 0;
}
