/* SPDX-License-Identifier: MIT */
/*
 * A nonblocking collective that one rank starts before a blocking one and
 * the others after it: for every root r, rank r starts MPI_Iallreduce
 * (MPI_BAND), MPI_Ibcast or MPI_Ibarrier and then enters MPI_Barrier,
 * while the others enter the barrier first and start the nonblocking
 * call after it; then all complete it. Again with a blocking
 * MPI_Allreduce in place of the barrier (the same kind as the
 * nonblocking call). MPI_Iallreduce and MPI_Ibarrier must be incomplete
 * at the root until the others start them, and every result is checked.
 *
 * MPI-4.0 6.12 asks every rank to start the collectives of a
 * communicator in one order, so the program is not a correct MPI
 * program; but it is how the agreement of fault tolerance (ULFM's
 * MPI_Comm_iagree) is built on libraries that lack it: mpi4py's
 * Comm.Iagree starts an MPI_Iallreduce, and its test suite's testIAgree
 * runs exactly this. MPICH and Open MPI run it, since their blocking
 * collectives take no call number: a blocking call never waits for the
 * frames of a nonblocking call of another rank's order. Michi numbers
 * only its nonblocking and persistent calls for the same reason
 * (coll/coll.h); a library that numbers every call hangs here.
 */
#include "mtest.h"

#define NITER 3

enum nb_kind { NB_IALLREDUCE, NB_IBCAST, NB_IBARRIER, NB_KINDS };

static const char *const nb_name[NB_KINDS] = { "MPI_Iallreduce", "MPI_Ibcast",
					       "MPI_Ibarrier" };

/* What rank r contributes to the nonblocking call with root root. */
static int contrib(enum nb_kind k, int r, int root, int it)
{
	if (k == NB_IALLREDUCE)
		return r == root ? 0x0b : 0x0d;   /* 1011 & 1101 = 1001 */
	return 1000 * it + 10 * root + 7;         /* the root's broadcast value */
}

static void nb_start(enum nb_kind k, int root, int it, int *buf, int *in, MPI_Request *req)
{
	*in = contrib(k, mtest_rank, root, it);
	*buf = k == NB_IBCAST && mtest_rank != root ? -1 : *in;
	if (k == NB_IALLREDUCE)
		MPI_Iallreduce(in, buf, 1, MPI_INT, MPI_BAND, MPI_COMM_WORLD, req);
	else if (k == NB_IBCAST)
		MPI_Ibcast(buf, 1, MPI_INT, root, MPI_COMM_WORLD, req);
	else
		MPI_Ibarrier(MPI_COMM_WORLD, req);
}

static void nb_check(enum nb_kind k, int root, int it, int buf, const char *middle)
{
	int want = k == NB_IALLREDUCE ? (mtest_size > 1 ? 0x09 : 0x0b) : contrib(k, 0, root, it);

	if (k != NB_IBARRIER)
		mtest_check(buf == want, "%s (root %d, round %d, around %s): %d, expected %d",
			    nb_name[k], root, it, middle, buf, want);
}

/* The blocking call between: MPI_Barrier, or an MPI_Allreduce (MPI_SUM of
 * the ranks) whose result is checked too. */
static void middle(int allreduce, int root, int it)
{
	int v = mtest_rank + it, sum = -1, want = mtest_size * (mtest_size - 1) / 2 +
						  mtest_size * it;

	if (!allreduce) {
		MPI_Barrier(MPI_COMM_WORLD);
		return;
	}
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	mtest_check(sum == want, "MPI_Allreduce (root %d, round %d) between: %d, expected %d",
		    root, it, sum, want);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	for (int allreduce = 0; allreduce <= 1; allreduce++) {
		const char *mid = allreduce ? "MPI_Allreduce" : "MPI_Barrier";

		for (int k = 0; k < NB_KINDS; k++)
			for (int it = 0; it < NITER; it++)
				for (int root = 0; root < mtest_size; root++) {
					MPI_Request req = MPI_REQUEST_NULL;
					int buf = 0, in = 0, flag = 1;

					MPI_Barrier(MPI_COMM_WORLD);
					if (mtest_rank == root) {
						nb_start(k, root, it, &buf, &in, &req);
						MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
						/* the others start it after the call below
						 * (a root's Ibcast may end without them) */
						mtest_check(!flag || mtest_size == 1 ||
							    k == NB_IBCAST,
							    "%s (root %d) complete before the "
							    "others started it", nb_name[k], root);
						middle(allreduce, root, it);
					} else {
						middle(allreduce, root, it);
						nb_start(k, root, it, &buf, &in, &req);
					}
					MPI_Wait(&req, MPI_STATUS_IGNORE);
					nb_check(k, root, it, buf, mid);
				}
	}
	return mtest_finalize();
}
