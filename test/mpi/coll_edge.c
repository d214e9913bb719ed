/* SPDX-License-Identifier: MIT */
/*
 * Edge cases of collective argument checks that mpi4py's suite meets:
 * MPI_Alltoallv (blocking, nonblocking, persistent, _c) whose send and
 * receive buffers share an address while every count is zero (Python's
 * empty arrays may share one), which is no aliasing; and
 * MPI_Alltoallw_c and MPI_Neighbor_alltoallw with MPI_BOTTOM buffers and
 * absolute byte displacements (MPI_Get_address), which are valid with
 * positive counts whatever the types.
 */
#include "mtest.h"
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size, i, *cnt, *dsp, err;
	MPI_Count *ccnt;
	MPI_Aint *cdsp;
	char buf[8];
	MPI_Request req;

	mtest_init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	cnt = calloc(size, sizeof(int));
	dsp = calloc(size, sizeof(int));
	ccnt = calloc(size, sizeof(MPI_Count));
	cdsp = calloc(size, sizeof(MPI_Aint));

	/* zero counts, one address for both buffers */
	err = MPI_Alltoallv(buf, cnt, dsp, MPI_INT, buf, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
	mtest_check(err == MPI_SUCCESS, "Alltoallv with zero counts, same buffer: error %d", err);
	err = MPI_Ialltoallv(buf, cnt, dsp, MPI_INT, buf, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &req);
	mtest_check(err == MPI_SUCCESS, "Ialltoallv with zero counts, same buffer: error %d", err);
	if (err == MPI_SUCCESS)
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	err = MPI_Alltoallv_init_c(buf, ccnt, cdsp, MPI_INT, buf, ccnt, cdsp, MPI_INT,
				   MPI_COMM_WORLD, MPI_INFO_NULL, &req);
	mtest_check(err == MPI_SUCCESS, "Alltoallv_init_c with zero counts, same buffer: error %d",
		    err);
	if (err == MPI_SUCCESS) {
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Request_free(&req);
	}
	/* with a positive count the same buffers still alias: an error */
	for (i = 0; i < size; i++)
		cnt[i] = 1;
	{
		int *big = calloc(size, sizeof(int));

		err = MPI_Alltoallv(big, cnt, dsp, MPI_INT, big, cnt, dsp, MPI_INT, MPI_COMM_WORLD);
		mtest_check(err != MPI_SUCCESS, "Alltoallv with aliased buffers succeeded");
		free(big);
	}

	/* alltoallw_c from MPI_BOTTOM: absolute byte displacements (MPI_Aint
	 * in the large-count form), plain types */
	{
		int *sv = malloc(size * sizeof(int)), *rv = malloc(size * sizeof(int));
		MPI_Aint *sd = malloc(size * sizeof(MPI_Aint)), *rd = malloc(size * sizeof(MPI_Aint));
		MPI_Datatype *ty = malloc(size * sizeof(MPI_Datatype));

		for (i = 0; i < size; i++) {
			sv[i] = rank * 1000 + i;
			rv[i] = -1;
			MPI_Get_address(&sv[i], &sd[i]);
			MPI_Get_address(&rv[i], &rd[i]);
			ty[i] = MPI_INT;
			ccnt[i] = 1;
		}
		err = MPI_Alltoallw_c(MPI_BOTTOM, ccnt, sd, ty, MPI_BOTTOM, ccnt, rd, ty,
				      MPI_COMM_WORLD);
		mtest_check(err == MPI_SUCCESS, "Alltoallw_c from MPI_BOTTOM: error %d", err);
		for (i = 0; i < size && err == MPI_SUCCESS; i++)
			mtest_check(rv[i] == i * 1000 + rank, "Alltoallw_c: from rank %d got %d", i,
				    rv[i]);
		free(sv);
		free(rv);
		free(sd);
		free(rd);
		free(ty);
	}

	/* neighbor alltoallw on a periodic ring, buffers at MPI_BOTTOM */
	{
		MPI_Comm ring;
		int dims[1] = { size }, periods[1] = { 1 }, sval[2], rval[2] = { -1, -1 };
		int counts[2] = { 1, 1 }, left, right;
		MPI_Aint sd[2], rd[2];
		MPI_Datatype types[2] = { MPI_INT, MPI_INT };

		MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
		MPI_Cart_shift(ring, 0, 1, &left, &right);
		sval[0] = rank * 10;      /* to the left neighbour */
		sval[1] = rank * 10 + 1;  /* to the right one */
		MPI_Get_address(&sval[0], &sd[0]);
		MPI_Get_address(&sval[1], &sd[1]);
		MPI_Get_address(&rval[0], &rd[0]);
		MPI_Get_address(&rval[1], &rd[1]);
		MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
		err = MPI_Neighbor_alltoallw(MPI_BOTTOM, counts, sd, types, MPI_BOTTOM, counts, rd,
					     types, ring);
		mtest_check(err == MPI_SUCCESS, "Neighbor_alltoallw from MPI_BOTTOM: error %d", err);
		/* from the left neighbour its right block, from the right its left one */
		mtest_check(rval[0] == left * 10 + 1 && rval[1] == right * 10,
			    "Neighbor_alltoallw got %d %d, expected %d %d", rval[0], rval[1],
			    left * 10 + 1, right * 10);
		MPI_Comm_free(&ring);
	}
	free(cnt);
	free(dsp);
	free(ccnt);
	free(cdsp);
	return mtest_finalize();
}
