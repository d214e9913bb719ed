/* SPDX-License-Identifier: MIT */
/*
 * The loop whose instructions bench/instr/count.sh counts with callgrind
 * (BENCH.md, "Instruction counts"). Rank 0 runs under valgrind: each
 * iteration posts MPI_Irecv for a 4-byte reply, MPI_Isend of 4 bytes,
 * then waits for both; rank 1 answers each message with a blocking
 * Recv/Send. Only instr_loop() is collected (count.sh passes
 * --toggle-collect=instr_loop), after a warm-up that opens connections
 * and fills pools, so start-up costs do not leak into per-call figures.
 *
 * By default each MPI_Wait is made on a request that has already
 * completed, as in the YAMPI figures: before the Wait, the request is
 * polled with MPI_Request_get_status, which drives progress but leaves
 * the request alive. The progress work is thus charged to
 * MPI_Request_get_status and MPI_Wait measures only the completion
 * path. "-p" (plain) calls MPI_Wait directly, so that the Wait on the
 * receive also pays for the progress that brings the reply in.
 *
 * Then instr_test_idle() (also collected) calls MPI_Test n times on a
 * receive from MPI_ANY_SOURCE that nothing matches yet, rank 1 waiting
 * in a blocking receive meanwhile: the idle poll of a loop that tests
 * while it computes (HPCC's MPIRandomAccess tests after every update).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IL_TAG		23
#define IL_IDLE_TAG	24
#define IL_WARMUP	200

/* Polls until req is complete without freeing it; returns the number of
 * polls so that the compiler cannot drop the loop. */
static inline long il_until_complete(MPI_Request *req)
{
	long polls = 0;
	int flag = 0;

	while (!flag) {
		MPI_Request_get_status(*req, &flag, MPI_STATUS_IGNORE);
		polls++;
	}
	return polls;
}

/* The two waits of the measured loop go through these so that the
 * profile holds one call edge per wait site: their costs differ (the
 * receive completes through the progress engine, the send usually at
 * once) and callgrind's per-function totals would blend them. */
__attribute__((noinline)) void instr_wait_send(MPI_Request *req)
{
	MPI_Wait(req, MPI_STATUS_IGNORE);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep the edge */
}

__attribute__((noinline)) void instr_wait_recv(MPI_Request *req)
{
	MPI_Wait(req, MPI_STATUS_IGNORE);
	__asm__ volatile("" ::: "memory");
}

/* Rank 0's side of n iterations. Inlined into the warm-up and into the
 * measured loop, with measured constant, so that each has its own call
 * edges: callgrind counts calls even while collection is off, and shared
 * edges would add the warm-up's calls to the measured ones. */
static inline __attribute__((always_inline)) long
il_iterate(int *sbuf, int *rbuf, long n, int plain, int measured)
{
	MPI_Request sreq, rreq;
	long i, polls = 0;

	for (i = 0; i < n; i++) {
		*sbuf = (int)i;
		MPI_Irecv(rbuf, 4, MPI_BYTE, 1, IL_TAG, MPI_COMM_WORLD, &rreq);
		MPI_Isend(sbuf, 4, MPI_BYTE, 1, IL_TAG, MPI_COMM_WORLD, &sreq);
		if (!plain)
			polls += il_until_complete(&sreq);
		if (measured)
			instr_wait_send(&sreq);
		else
			MPI_Wait(&sreq, MPI_STATUS_IGNORE);
		if (!plain)
			polls += il_until_complete(&rreq);
		if (measured)
			instr_wait_recv(&rreq);
		else
			MPI_Wait(&rreq, MPI_STATUS_IGNORE);
	}
	return polls;
}

/* Callgrind toggles collection on every entry of the function it is
 * given by name: only instr_loop() is collected. */
__attribute__((noinline)) long instr_warmup(int *sbuf, int *rbuf, long n,
					    int plain)
{
	return il_iterate(sbuf, rbuf, n, plain, 0);
}

__attribute__((noinline)) long instr_loop(int *sbuf, int *rbuf, long n,
					  int plain)
{
	return il_iterate(sbuf, rbuf, n, plain, 1);
}

/* n MPI_Test calls on a request that must stay incomplete; returns how
 * many found it complete (0, or the run is wrong). */
__attribute__((noinline)) long instr_test_idle(MPI_Request *req, long n)
{
	long i, done = 0;
	int flag;

	for (i = 0; i < n; i++) {
		MPI_Test(req, &flag, MPI_STATUS_IGNORE);
		done += flag;
	}
	return done;
}

static void il_echo(int *buf, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		MPI_Recv(buf, 4, MPI_BYTE, 0, IL_TAG, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Send(buf, 4, MPI_BYTE, 0, IL_TAG, MPI_COMM_WORLD);
	}
}

int main(int argc, char **argv)
{
	long n = 20000, polls;
	int rank, nranks, plain = 0, c;
	int sbuf = 0, rbuf = 0, idle = 0;
	MPI_Request ireq;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((c = getopt(argc, argv, "n:p")) != -1) {
		if (c == 'n')
			n = atol(optarg);
		else if (c == 'p')
			plain = 1;
		else
			n = -1;
	}
	if (n < 1 || nranks != 2) {
		if (rank == 0)
			fprintf(stderr, "usage: isend_loop [-n iters] [-p], "
				"exactly 2 ranks (got %d)\n", nranks);
		MPI_Finalize();
		return 2;
	}

	if (rank == 0) {
		instr_warmup(&sbuf, &rbuf, IL_WARMUP, plain);
		MPI_Barrier(MPI_COMM_WORLD);
		polls = instr_loop(&sbuf, &rbuf, n, plain);
		if (rbuf != (int)(n - 1)) {
			fprintf(stderr, "isend_loop: last reply %d, expected "
				"%ld\n", rbuf, n - 1);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		MPI_Irecv(&idle, 1, MPI_INT, MPI_ANY_SOURCE, IL_IDLE_TAG,
			  MPI_COMM_WORLD, &ireq);
		if (instr_test_idle(&ireq, n) != 0) {
			fprintf(stderr, "isend_loop: the idle receive completed\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		/* now rank 1 may send what completes it */
		MPI_Send(&idle, 1, MPI_INT, 1, IL_IDLE_TAG, MPI_COMM_WORLD);
		MPI_Wait(&ireq, MPI_STATUS_IGNORE);
		printf("isend_loop: %ld iterations, %s waits, %.2f polls per "
		       "wait\n", n, plain ? "plain" : "completed",
		       (double)polls / (2.0 * n));
	} else {
		il_echo(&rbuf, IL_WARMUP);
		MPI_Barrier(MPI_COMM_WORLD);
		il_echo(&rbuf, n);
		MPI_Recv(&idle, 1, MPI_INT, 0, IL_IDLE_TAG, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		MPI_Send(&idle, 1, MPI_INT, 0, IL_IDLE_TAG, MPI_COMM_WORLD);
	}
	MPI_Finalize();
	return 0;
}
