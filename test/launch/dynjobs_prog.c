/* SPDX-License-Identifier: MIT */
/*
 * test/launch/dynjobs.sh's program: two separately started jobs meet
 * through MPI_Open_port/MPI_Comm_accept/MPI_Comm_connect.
 *
 *   dynjobs_prog server FILE   rank 0 opens a port and writes its name to
 *                              FILE (through FILE.tmp, renamed); the job
 *                              accepts
 *   dynjobs_prog client FILE   waits for FILE (at most 20 s) and connects
 *   dynjobs_prog nospawn       (under another launcher) MPI_Comm_spawn and
 *                              MPI_Publish_name/MPI_Lookup_name return
 *                              errors: prints "spawn class C: message",
 *                              "publish class C", "lookup class C"
 *
 * Both sides then exchange messages (every local rank with every remote
 * one), merge (the server's ranks first) and allreduce over the merged
 * communicator. Each rank prints "linked <role> rank R pid P"; the server
 * then waits (at most 30 s) for FILE.go, which the script creates after
 * probing the server's ports as a stranger, and both sides disconnect.
 * Rank 0 prints " No Errors" or the error count.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int errs;

#define CHECK(c, ...) do { if (!(c)) { errs++; printf(__VA_ARGS__); printf("\n"); } } while (0)

static int wait_file(const char *path, double secs)
{
	double t0 = MPI_Wtime();

	while (access(path, R_OK) != 0) {
		int flag;

		if (MPI_Wtime() - t0 > secs)
			return -1;
		/* progress: the ranks answer the stranger's handshakes */
		MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
		usleep(2000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char port[MPI_MAX_PORT_NAME] = "", tmp[4096], go[4096];
	int rank, size, rsize = 0, server, i, v, mrank = -1, msize = 0, sum = 0, total = 0;
	MPI_Comm inter, merged;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc == 2 && strcmp(argv[1], "nospawn") == 0) {
		char msg[MPI_MAX_ERROR_STRING], found[MPI_MAX_PORT_NAME];
		int err, cls, len;

		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
		err = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
				     &inter, MPI_ERRCODES_IGNORE);
		MPI_Error_class(err, &cls);
		MPI_Error_string(err, msg, &len);
		if (rank == 0)
			printf("spawn class %d: %s\n", cls, msg);
		if (rank == 0) {
			err = MPI_Publish_name("michi-dynjobs", MPI_INFO_NULL, "michi-port:x");
			MPI_Error_class(err, &cls);
			printf("publish class %d\n", err ? cls : 0);
			err = MPI_Lookup_name("michi-dynjobs-none", MPI_INFO_NULL, found);
			MPI_Error_class(err, &cls);
			printf("lookup class %d\n", err ? cls : 0);
			fflush(stdout);
		}
		MPI_Finalize();
		return 0;
	}
	if (argc != 3 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client FILE\n", argv[0]);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	server = strcmp(argv[1], "server") == 0;
	snprintf(go, sizeof(go), "%s.go", argv[2]);
	if (server) {
		if (rank == 0) {
			FILE *f;

			MPI_Open_port(MPI_INFO_NULL, port);
			snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
			f = fopen(tmp, "w");
			if (!f || fprintf(f, "%s\n", port) < 0 || fclose(f) != 0 ||
			    rename(tmp, argv[2]) != 0) {
				perror("port file");
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
		}
		MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
	} else {
		if (rank == 0) {
			FILE *f;

			if (wait_file(argv[2], 20.0) < 0 || !(f = fopen(argv[2], "r")) ||
			    !fgets(port, sizeof(port), f)) {
				fprintf(stderr, "client: no port in %s\n", argv[2]);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			fclose(f);
			port[strcspn(port, "\n")] = '\0';
		}
		MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
	}
	MPI_Comm_remote_size(inter, &rsize);
	/* every local rank to every remote one, both ways */
	for (i = 0; i < rsize; i++) {
		int out = (server ? 10000 : 20000) + 100 * rank + i, in = -1;

		MPI_Sendrecv(&out, 1, MPI_INT, i, 1, &in, 1, MPI_INT, i, 1, inter,
			     MPI_STATUS_IGNORE);
		v = (server ? 20000 : 10000) + 100 * i + rank;
		CHECK(in == v, "%s rank %d: got %d from remote rank %d, expected %d",
		      argv[1], rank, in, i, v);
	}
	MPI_Intercomm_merge(inter, server ? 0 : 1, &merged);
	MPI_Comm_rank(merged, &mrank);
	MPI_Comm_size(merged, &msize);
	CHECK(msize == size + rsize, "merged size %d", msize);
	CHECK(mrank == (server ? rank : rsize + rank), "merged rank %d", mrank);
	MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
	CHECK(sum == msize * (msize - 1) / 2, "merged rank sum %d", sum);
	MPI_Comm_free(&merged);
	printf("linked %s rank %d pid %d\n", argv[1], rank, (int)getpid());
	fflush(stdout);
	if (server && wait_file(go, 30.0) < 0)
		CHECK(0, "server rank %d: no %s within 30 s", rank, go);
	MPI_Comm_disconnect(&inter);
	if (server && rank == 0)
		MPI_Close_port(port);
	MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		if (total)
			printf(" Found %d errors\n", total);
		else
			printf(" No Errors\n");
	}
	MPI_Finalize();
	return 0;
}
