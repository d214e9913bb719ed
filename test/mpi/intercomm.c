/* SPDX-License-Identifier: MIT */
/*
 * Intercommunicators (issue 4): WORLD split in two halves joined with
 * MPI_Intercomm_create; sizes, ranks, the remote group; point-to-point
 * across (specific and ANY_SOURCE receives, the source is the remote
 * rank); MPI_Barrier; a dup whose traffic stays apart from the
 * original's; MPI_Intercomm_merge in both orders; MPI_Comm_split and
 * MPI_Comm_create on the intercommunicator; the collectives across (each
 * group gets the other group's data), blocking and nonblocking, and
 * MPI_Scan refused with MPI_ERR_COMM (MPI defines it on intracommunicators
 * only).
 */
#include "mtest.h"

static int rank, size;

/* The rooted, reducing and all-to-all collectives across ic: group A
 * (low) holds the root first, then group B. */
static void collectives(MPI_Comm ic)
{
	int lrank, lsize, rsize, low, i, g, x, y, err, cls;
	int *a, *b;
	MPI_Request req;

	MPI_Comm_rank(ic, &lrank);
	MPI_Comm_size(ic, &lsize);
	MPI_Comm_remote_size(ic, &rsize);
	low = rank < size / 2;
	a = mtest_malloc(sizeof(int) * (size_t)(lsize + rsize) * 4);
	b = mtest_malloc(sizeof(int) * (size_t)(lsize + rsize) * 4);

	/* allreduce and its nonblocking twin: the sum over the other group */
	x = lrank + 1;
	MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, ic);
	mtest_check(y == rsize * (rsize + 1) / 2, "allreduce across: %d, expected %d", y,
		    rsize * (rsize + 1) / 2);
	y = -1;
	MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, ic, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	mtest_check(y == rsize, "iallreduce across: %d, expected %d", y, rsize);

	for (g = 0; g < 2; g++) {
		int in_root_group = low == (g == 0), root = in_root_group ?
			(lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;

		/* bcast from rank 0 of the root group */
		y = in_root_group ? 4242 + g : -1;
		MPI_Bcast(&y, 1, MPI_INT, root, ic);
		if (!in_root_group)
			mtest_check(y == 4242 + g, "bcast across: %d", y);
		/* reduce to it */
		x = lrank + 10;
		y = -1;
		MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, root, ic);
		if (root == MPI_ROOT)
			mtest_check(y == rsize * (rsize - 1) / 2 + 10 * rsize,
				    "reduce across: %d", y);
		/* gather to it, then scatter back, nonblocking */
		x = 100 * lrank + g;
		for (i = 0; i < rsize; i++)
			a[i] = -1;
		MPI_Igather(&x, 1, MPI_INT, a, 1, MPI_INT, root, ic, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		for (i = 0; root == MPI_ROOT && i < rsize; i++)
			mtest_check(a[i] == 100 * i + g, "gather across: [%d] = %d", i, a[i]);
		for (i = 0; i < rsize; i++)
			a[i] = 7 * i + g;
		y = -1;
		MPI_Scatter(a, 1, MPI_INT, &y, 1, MPI_INT, root, ic);
		if (!in_root_group)
			mtest_check(y == 7 * lrank + g, "scatter across: %d", y);
	}

	/* allgather and alltoall: blocks of the other group */
	x = 1000 + lrank;
	MPI_Allgather(&x, 1, MPI_INT, a, 1, MPI_INT, ic);
	for (i = 0; i < rsize; i++)
		mtest_check(a[i] == 1000 + i, "allgather across: [%d] = %d", i, a[i]);
	for (i = 0; i < rsize; i++)
		a[i] = 10000 * lrank + i;
	MPI_Ialltoall(a, 1, MPI_INT, b, 1, MPI_INT, ic, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	for (i = 0; i < rsize; i++)
		mtest_check(b[i] == 10000 * i + lrank, "alltoall across: [%d] = %d", i, b[i]);

	/* reduce_scatter_block: element j of the other group's sum, block by
	 * block; both groups hold lsize * rsize elements in all */
	for (i = 0; i < lsize * rsize; i++)
		a[i] = i + lrank;
	MPI_Reduce_scatter_block(a, b, rsize, MPI_INT, MPI_SUM, ic);
	{
		int blk = rsize;

		for (i = 0; i < blk; i++) {
			int e = lrank * blk + i;

			mtest_check(b[i] == rsize * e + rsize * (rsize - 1) / 2,
				    "reduce_scatter_block across: [%d] = %d", i, b[i]);
		}
	}
	MPI_Ibarrier(ic, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);

	MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
	err = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic);
	MPI_Error_class(err, &cls);
	mtest_check(cls == MPI_ERR_COMM, "scan on an intercommunicator: class %d", cls);
	free(a);
	free(b);
}

/* Each process sends its world rank to remote rank (my local rank mod
 * remote size) and takes what the remote side sends it. */
static void exchange(MPI_Comm ic, const char *what, int tag)
{
	int lrank, lsize, rsize, i, nin = 0, v;
	MPI_Request req;
	MPI_Group rg, wg;

	MPI_Comm_rank(ic, &lrank);
	MPI_Comm_size(ic, &lsize);
	MPI_Comm_remote_size(ic, &rsize);
	MPI_Comm_remote_group(ic, &rg);
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	/* how many remote ranks send to me: those r with r mod lsize == lrank */
	for (i = 0; i < rsize; i++)
		nin += i % lsize == lrank;
	MPI_Isend(&rank, 1, MPI_INT, lrank % rsize, tag, ic, &req);
	for (i = 0; i < nin; i++) {
		MPI_Status st;
		int wr;

		MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, ic, &st);
		/* the source is the sender's rank in the remote group */
		MPI_Group_translate_ranks(rg, 1, &st.MPI_SOURCE, wg, &wr);
		mtest_check(wr == v && st.MPI_SOURCE % lsize == lrank,
			    "%s: got %d from remote rank %d (world %d)", what, v, st.MPI_SOURCE, wr);
	}
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Group_free(&rg);
	MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
	MPI_Comm half, ic, dup, merged, split, created;
	int left, lsize, rsize, flag, i, sum, want, r;

	mtest_init(&argc, &argv);
	rank = mtest_rank;
	size = mtest_size;
	if (size < 2) {
		printf(" No Errors\n");   /* nothing to join */
		MPI_Finalize();
		return 0;
	}
	left = rank < size / 2;
	MPI_Comm_split(MPI_COMM_WORLD, left, rank, &half);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, left ? size / 2 : 0, 42, &ic);
	MPI_Comm_test_inter(ic, &flag);
	MPI_Comm_size(ic, &lsize);
	MPI_Comm_remote_size(ic, &rsize);
	MPI_Comm_rank(ic, &r);
	mtest_check(flag, "Comm_test_inter says no");
	mtest_check(lsize == (left ? size / 2 : size - size / 2) && lsize + rsize == size,
		    "sizes: local %d remote %d", lsize, rsize);
	mtest_check(r == (left ? rank : rank - size / 2), "rank %d in the intercommunicator", r);

	exchange(ic, "intercomm", 1);
	MPI_Barrier(ic);

	/* a dup: its messages never match the original's */
	MPI_Comm_dup(ic, &dup);
	if (r == 0) {
		int a = 100 + left, b = 200 + left;

		MPI_Send(&a, 1, MPI_INT, 0, 5, ic);
		MPI_Send(&b, 1, MPI_INT, 0, 5, dup);
	}
	if (r == 0) {
		int a, b;

		MPI_Recv(&b, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE);
		MPI_Recv(&a, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE);
		mtest_check(a == 100 + !left && b == 200 + !left, "dup mixed traffic: %d %d", a, b);
	}
	exchange(dup, "dup", 2);

	/* merge: the group passing high = 0 comes first */
	for (i = 0; i < 2; i++) {
		int high = i ? left : !left, mr, ms, lo_first = i ? !left : left;

		MPI_Intercomm_merge(ic, high, &merged);
		MPI_Comm_rank(merged, &mr);
		MPI_Comm_size(merged, &ms);
		want = lo_first ? r : rsize + r;
		mtest_check(ms == size && mr == want, "merge %d: rank %d of %d, want %d", i, mr, ms,
			    want);
		MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged);
		mtest_check(sum == size * (size - 1) / 2, "merged allreduce %d", sum);
		MPI_Comm_free(&merged);
	}

	/* split by parity of the local rank: even ranks face even ranks */
	MPI_Comm_split(ic, r % 2, -r, &split);
	if (split != MPI_COMM_NULL) {
		int ss, sr, srs, nl = 0, nr = 0;

		for (i = 0; i < lsize; i++)
			nl += i % 2 == r % 2;
		for (i = 0; i < rsize; i++)
			nr += i % 2 == r % 2;
		MPI_Comm_size(split, &ss);
		MPI_Comm_rank(split, &sr);
		MPI_Comm_remote_size(split, &srs);
		/* key -r: the highest local rank comes first */
		mtest_check(ss == nl && srs == nr && sr == (nl - 1 - r / 2),
			    "split: size %d (want %d) remote %d (want %d) rank %d", ss, nl, srs,
			    nr, sr);
		exchange(split, "split", 3);
		MPI_Comm_free(&split);
	} else {
		int nr = 0;

		for (i = 0; i < rsize; i++)
			nr += i % 2 == r % 2;
		mtest_check(nr == 0, "split gave MPI_COMM_NULL with %d remote partners", nr);
	}

	/* create: each side drops its rank 0 when it has more than one */
	{
		MPI_Group g, sub;
		int zero = 0;

		MPI_Comm_group(ic, &g);
		if (lsize > 1)
			MPI_Group_excl(g, 1, &zero, &sub);
		else
			MPI_Group_incl(g, 1, &zero, &sub);
		MPI_Comm_create(ic, sub, &created);
		if (lsize > 1 && r == 0) {
			mtest_check(created == MPI_COMM_NULL, "create: an excluded rank got a comm");
		} else {
			int cr, crs;

			mtest_check(created != MPI_COMM_NULL, "create: a member got MPI_COMM_NULL");
			if (created != MPI_COMM_NULL) {
				MPI_Comm_rank(created, &cr);
				MPI_Comm_remote_size(created, &crs);
				mtest_check(cr == (lsize > 1 ? r - 1 : 0) &&
					    crs == (rsize > 1 ? rsize - 1 : 1),
					    "create: rank %d remote size %d", cr, crs);
				exchange(created, "create", 4);
			}
		}
		if (created != MPI_COMM_NULL)
			MPI_Comm_free(&created);
		MPI_Group_free(&sub);
		MPI_Group_free(&g);
	}

	collectives(ic);
	MPI_Barrier(ic);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&ic);
	MPI_Comm_free(&half);
	return mtest_finalize();
}
