/* SPDX-License-Identifier: MIT */
/*
 * MPI_Comm_spawn: the parents (any number, a singleton too) start two
 * copies of this program, which find their parent with
 * MPI_Comm_get_parent; MPI_Comm_get_parent is MPI_COMM_NULL in the
 * parents. Parent and children exchange messages over the
 * intercommunicator both ways, merge it (parents first) and reduce over
 * the merged communicator; the children spawn one grandchild once (a
 * nested spawn), which talks to them; everyone disconnects, after which
 * the children's MPI_Comm_get_parent is MPI_COMM_NULL. MPI_UNIVERSE_SIZE
 * is set and at least the world's size; every parent finds MPI_SUCCESS
 * in all of array_of_errcodes. The children report their error
 * counts to parent rank 0, which prints the verdict.
 */
#include "mtest.h"

#define NCHILD 2

static int grandchild(MPI_Comm parent)
{
	int rsize = 0, v = -1, errs = 0;

	MPI_Comm_remote_size(parent, &rsize);
	errs += rsize != NCHILD;
	/* every child sends its rank, the grandchild answers each with 3x */
	for (int i = 0; i < NCHILD; i++) {
		MPI_Status st;

		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, parent, &st);
		errs += v != 1000 + st.MPI_SOURCE;
		v *= 3;
		MPI_Send(&v, 1, MPI_INT, st.MPI_SOURCE, 8, parent);
	}
	MPI_Send(&errs, 1, MPI_INT, 0, 9, parent);
	MPI_Comm_disconnect(&parent);
	MPI_Finalize();
	return 0;
}

static int child(MPI_Comm parent, char **argv)
{
	int rank, size, rsize = 0, v = -1, errs = 0, merged_rank = -1, merged_size = 0, sum = 0;
	int high, errcode = -1, gerr = -1;
	MPI_Comm merged, gc;
	char cmd[4096];

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	errs += size != NCHILD;
	MPI_Comm_remote_size(parent, &rsize);
	/* the parent's message, and an answer */
	MPI_Recv(&v, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE);
	if (v != 100 + rank) {
		printf("child %d: got %d from the parent, expected %d\n", rank, v, 100 + rank);
		errs++;
	}
	v = 2 * v;
	MPI_Send(&v, 1, MPI_INT, 0, 2, parent);

	/* merged: parents first */
	high = 1;
	MPI_Intercomm_merge(parent, high, &merged);
	MPI_Comm_rank(merged, &merged_rank);
	MPI_Comm_size(merged, &merged_size);
	errs += merged_size != rsize + size;
	errs += merged_rank != rsize + rank;
	MPI_Allreduce(&merged_rank, &sum, 1, MPI_INT, MPI_SUM, merged);
	errs += sum != merged_size * (merged_size - 1) / 2;
	MPI_Comm_free(&merged);

	/* a nested spawn, once */
	snprintf(cmd, sizeof(cmd), "%s", argv[0]);
	{
		char *gargv[] = { "grandchild", NULL };

		MPI_Comm_spawn(cmd, gargv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &gc, &errcode);
	}
	if (rank == 0)
		errs += errcode != MPI_SUCCESS;
	v = 1000 + rank;
	MPI_Send(&v, 1, MPI_INT, 0, 7, gc);
	MPI_Recv(&v, 1, MPI_INT, 0, 8, gc, MPI_STATUS_IGNORE);
	errs += v != 3 * (1000 + rank);
	if (rank == 0) {
		MPI_Recv(&gerr, 1, MPI_INT, 0, 9, gc, MPI_STATUS_IGNORE);
		errs += gerr != 0;
	}
	MPI_Comm_disconnect(&gc);

	/* the verdict to parent rank 0 */
	MPI_Send(&errs, 1, MPI_INT, 0, 3, parent);
	MPI_Comm_disconnect(&parent);
	MPI_Comm_get_parent(&parent);
	if (parent != MPI_COMM_NULL)
		printf("child %d: MPI_Comm_get_parent is not MPI_COMM_NULL after disconnect\n",
		       rank);
	MPI_Finalize();
	return 0;
}

int main(int argc, char **argv)
{
	MPI_Comm parent, inter, merged;
	int errcodes[NCHILD], *usize, flag = 0, i, v, rsize = 0, merged_rank = -1, sum = 0;
	int merged_size = 0;
	char *cargv[] = { "child", NULL };

	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&parent);
	if (argc > 1 && strcmp(argv[1], "grandchild") == 0) {
		if (parent == MPI_COMM_NULL) {
			printf("grandchild: no parent\n");
			return 1;
		}
		return grandchild(parent);
	}
	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		if (parent == MPI_COMM_NULL) {
			printf("child: no parent\n");
			return 1;
		}
		return child(parent, argv);
	}
	mtest_init_done();
	mtest_check(parent == MPI_COMM_NULL, "MPI_Comm_get_parent is not MPI_COMM_NULL in a "
		    "process that was not spawned");
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
	if (mtest_check(flag, "MPI_UNIVERSE_SIZE is not set"))
		mtest_check(*usize >= mtest_size, "MPI_UNIVERSE_SIZE %d below the world's %d",
			    *usize, mtest_size);

	for (i = 0; i < NCHILD; i++)
		errcodes[i] = -1;
	MPI_Comm_spawn(argv[0], cargv, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
		       errcodes);
	for (i = 0; i < NCHILD; i++)
		mtest_check(errcodes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, errcodes[i]);
	MPI_Comm_remote_size(inter, &rsize);
	mtest_check(rsize == NCHILD, "remote size %d, spawned %d", rsize, NCHILD);
	if (mtest_rank == 0) {
		for (i = 0; i < NCHILD; i++) {
			v = 100 + i;
			MPI_Send(&v, 1, MPI_INT, i, 1, inter);
		}
		for (i = 0; i < NCHILD; i++) {
			MPI_Recv(&v, 1, MPI_INT, i, 2, inter, MPI_STATUS_IGNORE);
			mtest_check(v == 2 * (100 + i), "child %d answered %d", i, v);
		}
	}
	MPI_Intercomm_merge(inter, 0, &merged);
	MPI_Comm_rank(merged, &merged_rank);
	MPI_Comm_size(merged, &merged_size);
	mtest_check(merged_size == mtest_size + NCHILD, "merged size %d", merged_size);
	mtest_check(merged_rank == mtest_rank, "merged rank %d, world rank %d", merged_rank,
		    mtest_rank);
	MPI_Allreduce(&merged_rank, &sum, 1, MPI_INT, MPI_SUM, merged);
	mtest_check(sum == merged_size * (merged_size - 1) / 2, "sum of merged ranks %d", sum);
	MPI_Comm_free(&merged);
	if (mtest_rank == 0)
		for (i = 0; i < NCHILD; i++) {
			MPI_Recv(&v, 1, MPI_INT, i, 3, inter, MPI_STATUS_IGNORE);
			mtest_check(v == 0, "child %d found %d errors", i, v);
		}
	MPI_Comm_disconnect(&inter);
	return mtest_finalize();
}
