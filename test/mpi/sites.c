/* SPDX-License-Identifier: MIT */
/*
 * The job's sites as a program sees them (mpi/coll/site.c): MTEST_SITES lists
 * the expected site of every world rank, comma-separated labels (equal
 * labels: one site; the labels need not be the library's names), e.g.
 * "a,a,b,b". Every rank checks that
 *   - MPI_Comm_split_type(MICHI_COMM_TYPE_SITE) and MPI_COMM_TYPE_HW_GUIDED
 *     with mpi_hw_resource_type "michi://site" give exactly the world
 *     ranks of its expected site, in world order;
 *   - MPI_COMM_TYPE_HW_UNGUIDED on the world splits by site and names
 *     "michi://site" when there are several, else by host (or
 *     MPI_COMM_NULL on one host);
 *   - every rank holds the same map: the site communicators' leaders
 *     (their world rank 0's) gathered at every rank agree;
 *   - collectives over the world and over a communicator that spans the
 *     sites give the right results with the sites known (coll_sites).
 * MTEST_SITES unset: one site expected.
 */
#include "mtest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 256

static char label[MAXR][32];

static int parse_expected(int size)
{
	const char *e = getenv("MTEST_SITES");
	int i = 0;

	if (!e || !*e) {
		for (i = 0; i < size; i++)
			strcpy(label[i], "one");
		return 0;
	}
	while (*e && i < MAXR) {
		size_t n = strcspn(e, ",");

		if (n >= sizeof(label[0]))
			n = sizeof(label[0]) - 1;
		memcpy(label[i], e, n);
		label[i][n] = '\0';
		i++;
		e += n;
		if (*e == ',')
			e++;
	}
	if (i != size) {
		mtest_error("MTEST_SITES lists %d ranks, the job has %d", i, size);
		return -1;
	}
	return 0;
}

/* newcomm must hold exactly the world ranks labelled as me, in order. */
static void check_site_comm(MPI_Comm newcomm, const char *what)
{
	int rank = mtest_rank, size = mtest_size, n = 0, i, k, want[MAXR], got[MAXR];
	MPI_Group wg, ng;

	for (i = 0; i < size; i++)
		if (!strcmp(label[i], label[rank]))
			want[n++] = i;
	if (!mtest_check(newcomm != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what))
		return;
	MPI_Comm_size(newcomm, &k);
	if (!mtest_check(k == n, "%s: %d ranks, expected %d (site '%s')", what, k, n,
			 label[rank]))
		return;
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	MPI_Comm_group(newcomm, &ng);
	for (i = 0; i < n; i++)
		got[i] = i;
	MPI_Group_translate_ranks(ng, n, got, wg, got);
	for (i = 0; i < n; i++)
		mtest_check(got[i] == want[i], "%s: member %d is world rank %d, expected %d",
			    what, i, got[i], want[i]);
	MPI_Group_free(&wg);
	MPI_Group_free(&ng);
}

static int nsites_expected(void)
{
	int i, j, n = 0;

	for (i = 0; i < mtest_size; i++) {
		for (j = 0; j < i && strcmp(label[i], label[j]); j++)
			;
		n += j == i;
	}
	return n;
}

int main(int argc, char **argv)
{
	int rank, size, i, flag, sum, leader, *leaders;
	char v[MPI_MAX_INFO_VAL + 1];
	MPI_Comm sc, gc, uc, half;
	MPI_Info info;

	mtest_init(&argc, &argv);
	rank = mtest_rank;
	size = mtest_size;
	if (size > MAXR || parse_expected(size) < 0)
		return mtest_finalize();

#ifdef MICHI_COMM_TYPE_SITE   /* Michi's mpi.h (not in the MPICH-ABI pass's) */
	MPI_Comm_split_type(MPI_COMM_WORLD, MICHI_COMM_TYPE_SITE, rank, MPI_INFO_NULL, &sc);
	check_site_comm(sc, "MICHI_COMM_TYPE_SITE");
#endif

	MPI_Info_create(&info);
	MPI_Info_set(info, "mpi_hw_resource_type", "michi://site");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, info, &gc);
	MPI_Info_free(&info);
	check_site_comm(gc, "MPI_COMM_TYPE_HW_GUIDED michi://site");
#ifndef MICHI_COMM_TYPE_SITE   /* the site communicator for the checks below */
	sc = MPI_COMM_NULL;
	if (gc != MPI_COMM_NULL)
		MPI_Comm_dup(gc, &sc);
#endif

	MPI_Info_create(&info);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, info, &uc);
	if (nsites_expected() > 1) {
		check_site_comm(uc, "MPI_COMM_TYPE_HW_UNGUIDED");
		MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, v, &flag);
		mtest_check(flag && !strcmp(v, "michi://site"),
			    "MPI_COMM_TYPE_HW_UNGUIDED across sites names '%s', expected "
			    "michi://site", flag ? v : "(nothing)");
	}
	MPI_Info_free(&info);

	/* the same map everywhere: each site's lowest world rank, as every
	 * rank sees it, gathered at every rank */
	leader = rank;
	if (sc != MPI_COMM_NULL)
		MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, sc);
	leaders = malloc((size_t)size * sizeof(int));
	MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < size; i++) {
		int j;

		for (j = 0; j < size && strcmp(label[j], label[i]); j++)
			;
		mtest_check(leaders[i] == j, "rank %d's site leader is %d, expected %d", i,
			    leaders[i], j);
	}
	free(leaders);

	/* collectives with the sites known: the world and every other rank */
	sum = 0;
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	mtest_check(sum == size * (size - 1) / 2, "world allreduce: %d", sum);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	{
		int hs, bc = rank == (rank % 2) ? 1000 + rank : -1;

		MPI_Comm_size(half, &hs);
		MPI_Bcast(&bc, 1, MPI_INT, 0, half);
		mtest_check(bc == 1000 + rank % 2, "half bcast: %d", bc);
		MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half);
		mtest_check(sum == (rank % 2 ? hs * hs : hs * (hs - 1)), "half allreduce: %d (of %d)",
			    sum, hs);
	}
	MPI_Comm_free(&half);

	if (sc != MPI_COMM_NULL)
		MPI_Comm_free(&sc);
	if (gc != MPI_COMM_NULL)
		MPI_Comm_free(&gc);
	if (uc != MPI_COMM_NULL)
		MPI_Comm_free(&uc);
	return mtest_finalize();
}
