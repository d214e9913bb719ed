/* SPDX-License-Identifier: MIT */
/*
 * MPI_Intercomm_create_from_groups (MPI-4.0): the world split into the
 * even and the odd ranks, joined with leaders other than rank 0 of each
 * group; the intercommunicator's sizes, remote group, point-to-point
 * across it, a collective on it, a merge, its error handler and info; a
 * second intercommunicator with another string tag at once; and errors
 * that return (MPI_COMM_SELF's handler): a caller outside local_group,
 * overlapping groups, a leader out of range.
 */
#include <string.h>

#include "mtest.h"

/* the world ranks of one parity */
static MPI_Group parity_group(MPI_Group world, int size, int parity)
{
	int r[64], n = 0, i;
	MPI_Group g;

	for (i = parity; i < size && n < 64; i += 2)
		r[n++] = i;
	MPI_Group_incl(world, n, r, &g);
	return g;
}

int main(int argc, char **argv)
{
	MPI_Group world, mine, other, rgroup;
	MPI_Comm inter, inter2, merged;
	MPI_Errhandler eh;
	MPI_Info info, used;
	int rank, size, parity, nmine, nother, lsize, rsize, rc, cmp, i, flag;
	int sum, want, got, peer, mrank;
	char val[64];

	mtest_init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2 || size > 64) {
		mtest_skip("needs 2 to 64 ranks");
		return 77;
	}
	parity = rank % 2;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	mine = parity_group(world, size, parity);
	other = parity_group(world, size, !parity);
	MPI_Group_size(mine, &nmine);
	MPI_Group_size(other, &nother);

	MPI_Info_create(&info);
	MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
	/* leaders: the last member of each group */
	rc = MPI_Intercomm_create_from_groups(mine, nmine - 1, other, nother - 1,
					      "org.michi.test.parity", info, MPI_ERRORS_RETURN,
					      &inter);
	mtest_check(rc == MPI_SUCCESS, "Intercomm_create_from_groups = %d", rc);
	if (rc != MPI_SUCCESS)
		return mtest_finalize();
	MPI_Comm_test_inter(inter, &flag);
	mtest_check(flag, "the result is not an intercommunicator");
	MPI_Comm_size(inter, &lsize);
	MPI_Comm_remote_size(inter, &rsize);
	mtest_check(lsize == nmine && rsize == nother, "sizes %d/%d, want %d/%d", lsize, rsize,
		    nmine, nother);
	MPI_Comm_remote_group(inter, &rgroup);
	MPI_Group_compare(rgroup, other, &cmp);
	mtest_check(cmp == MPI_IDENT, "remote group compares %d to the other group", cmp);
	MPI_Group_free(&rgroup);
	MPI_Comm_get_errhandler(inter, &eh);
	mtest_check(eh == MPI_ERRORS_RETURN, "errhandler 0x%x, want MPI_ERRORS_RETURN",
		    (unsigned)eh);
	MPI_Errhandler_free(&eh);
	MPI_Comm_get_info(inter, &used);
	val[0] = '\0';
	MPI_Info_get(used, "mpi_assert_no_any_tag", sizeof(val) - 1, val, &flag);
	mtest_check(flag && !strcmp(val, "true"), "info: mpi_assert_no_any_tag \"%s\"", val);
	MPI_Info_free(&used);

	/* a second one at once, other tag, default leaders */
	rc = MPI_Intercomm_create_from_groups(mine, 0, other, 0, "org.michi.test.second",
					      MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &inter2);
	mtest_check(rc == MPI_SUCCESS, "second Intercomm_create_from_groups = %d", rc);

	/* point-to-point: local rank i of the evens with local rank i of the odds */
	MPI_Comm_rank(inter, &i);
	peer = i < rsize ? i : MPI_PROC_NULL;
	got = -1;
	MPI_Sendrecv(&rank, 1, MPI_INT, peer, 7, &got, 1, MPI_INT, peer, 7, inter2,
		     MPI_STATUS_IGNORE);
	if (peer != MPI_PROC_NULL)
		mtest_check(got == 2 * i + !parity, "sendrecv across got %d, want %d", got,
			    2 * i + !parity);
	/* a collective: every rank gets the sum of the remote group's world ranks */
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter);
	for (want = 0, i = !parity; i < size; i += 2)
		want += i;
	mtest_check(sum == want, "allreduce over the intercommunicator gave %d, want %d", sum,
		    want);
	/* a merge: the evens first */
	MPI_Intercomm_merge(inter, parity, &merged);
	MPI_Comm_rank(merged, &mrank);
	mtest_check(mrank == (parity ? (size + 1) / 2 + rank / 2 : rank / 2),
		    "merged rank %d for world rank %d", mrank, rank);
	MPI_Comm_free(&merged);
	MPI_Comm_free(&inter2);
	MPI_Comm_free(&inter);

	/* errors return through MPI_COMM_SELF's handler */
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	rc = MPI_Intercomm_create_from_groups(other, 0, mine, 0, "org.michi.test.bad",
					      MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter);
	mtest_check(mtest_errclass(rc) == MPI_ERR_GROUP && inter == MPI_COMM_NULL,
		    "caller outside local_group: class %d", mtest_errclass(rc));
	rc = MPI_Intercomm_create_from_groups(mine, 0, world, 0, "org.michi.test.bad",
					      MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter);
	mtest_check(mtest_errclass(rc) == MPI_ERR_GROUP, "overlapping groups: class %d",
		    mtest_errclass(rc));
	rc = MPI_Intercomm_create_from_groups(mine, nmine, other, 0, "org.michi.test.bad",
					      MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter);
	mtest_check(mtest_errclass(rc) == MPI_ERR_RANK, "local_leader out of range: class %d",
		    mtest_errclass(rc));
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);

	MPI_Info_free(&info);
	MPI_Group_free(&mine);
	MPI_Group_free(&other);
	MPI_Group_free(&world);
	return mtest_finalize();
}
