/* SPDX-License-Identifier: MIT */
/*
 * Every collective in the forms MPI-4.0 added beside the int ones: the
 * large-count (_c) blocking and nonblocking calls, and the persistent
 * ones (MPI_Bcast_init ...) in their int and _c forms, each started many
 * times with new data in the same buffers. Results are checked element
 * by element against values computed here: every root, in place where
 * MPI allows it, a derived datatype (whose data a persistent call must
 * pack again at every start), neighbourhood forms on a ring, and rooted,
 * all-to-all and reduction forms on an intercommunicator. Then Startall
 * of several persistent collectives at once, MPI_Wait on an inactive
 * one, and MPI_Request_free of inactive ones; errors: a bad info object,
 * a negative large count, MPI_Cancel and a second MPI_Start of an active
 * persistent collective.
 */
#include "mtest.h"

enum { M_INT, M_C, M_IC, M_INIT, M_INIT_C, M_NMODES };
static const char *mode_name[] = { "int", "_c", "I_c", "_init", "_init_c" };
#define ROUNDS(m) ((m) >= M_INIT ? 6 : 1)
#define NB 5   /* elements of a uniform block */

static int rank, size;

/* element i of rank r's data in round k */
static int val(int r, int i, int k)
{
	return r * 100000 + i * 7 + k * 13 + 1;
}

/* the count of rank r's block in the v forms: 0 to 3, some empty */
static int vcnt(int r)
{
	return (r * 2 + 1) % 4;
}

/* Run one call of a collective in mode m, round k: the blocking forms
 * directly, the nonblocking one and the persistent ones through req
 * (created in round 0 and started every round). */
#define RUN(m, k, req, BLK, BLKC, NBC, INIT, INITC) do { \
	switch (m) { \
	case M_INT: BLK; break; \
	case M_C: BLKC; break; \
	case M_IC: NBC; MPI_Wait(&(req), MPI_STATUS_IGNORE); break; \
	case M_INIT: if ((k) == 0) { INIT; } MPI_Start(&(req)); \
		MPI_Wait(&(req), MPI_STATUS_IGNORE); break; \
	case M_INIT_C: if ((k) == 0) { INITC; } MPI_Start(&(req)); \
		MPI_Wait(&(req), MPI_STATUS_IGNORE); break; \
	} \
} while (0)

static void end_req(int m, MPI_Request *req)
{
	if (m >= M_INIT) {
		mtest_check(*req != MPI_REQUEST_NULL, "%s: persistent request vanished",
			    mode_name[m]);
		MPI_Request_free(req);
	}
	mtest_check(*req == MPI_REQUEST_NULL, "%s: request left behind", mode_name[m]);
}

#define CHECK_EQ(got, want, what, m, k, i) do { \
	if ((got) != (want)) \
		mtest_error("%s%s round %d: [%d] = %d, expected %d", what, mode_name[m], k, i, \
			    (int)(got), (int)(want)); \
} while (0)

/* an info object with a key Michi does not know: accepted, ignored */
static MPI_Info some_info;

static MPI_Info info_of(int k)
{
	return k % 2 ? MPI_INFO_NULL : some_info;
}

/* ---- broadcast, with a contiguous and a strided type ------------------------------ */

static void t_bcast(MPI_Comm comm, int m)
{
	int buf[3 * NB + 1], root, k, i;
	MPI_Datatype vec;
	MPI_Request req = MPI_REQUEST_NULL;

	MPI_Type_vector(NB, 1, 3, MPI_INT, &vec);   /* every third int */
	MPI_Type_commit(&vec);
	for (root = 0; root < size; root++) {
		for (k = 0; k < ROUNDS(m); k++) {
			for (i = 0; i < NB; i++)
				buf[i] = rank == root ? val(root, i, k) : -1;
			RUN(m, k, req, MPI_Bcast(buf, NB, MPI_INT, root, comm),
			    MPI_Bcast_c(buf, NB, MPI_INT, root, comm),
			    MPI_Ibcast_c(buf, NB, MPI_INT, root, comm, &req),
			    MPI_Bcast_init(buf, NB, MPI_INT, root, comm, info_of(k), &req),
			    MPI_Bcast_init_c(buf, NB, MPI_INT, root, comm, MPI_INFO_NULL, &req));
			for (i = 0; i < NB; i++)
				CHECK_EQ(buf[i], val(root, i, k), "bcast", m, k, i);
		}
		end_req(m, &req);
		/* the strided type: the gaps stay as they were */
		for (k = 0; k < ROUNDS(m); k++) {
			for (i = 0; i < 3 * NB; i++)
				buf[i] = rank == root || i % 3 ? val(root, i, k) : -1;
			RUN(m, k, req, MPI_Bcast(buf, 1, vec, root, comm),
			    MPI_Bcast_c(buf, 1, vec, root, comm),
			    MPI_Ibcast_c(buf, 1, vec, root, comm, &req),
			    MPI_Bcast_init(buf, 1, vec, root, comm, MPI_INFO_NULL, &req),
			    MPI_Bcast_init_c(buf, 1, vec, root, comm, MPI_INFO_NULL, &req));
			for (i = 0; i < 3 * NB; i++)
				CHECK_EQ(buf[i], val(root, i, k), "bcast(vector)", m, k, i);
		}
		end_req(m, &req);
	}
	MPI_Type_free(&vec);
}

/* ---- reductions ---------------------------------------------------------------- */

static int sum_to(int upto, int i, int k)   /* sum of val(r, i, k), r < upto */
{
	int r, s = 0;

	for (r = 0; r < upto; r++)
		s += val(r, i, k);
	return s;
}

static void t_reduce(MPI_Comm comm, int m)
{
	int sb[NB], rb[NB], root, k, i, inplace;
	MPI_Request req = MPI_REQUEST_NULL;

	for (root = 0; root < size; root++)
		for (inplace = 0; inplace < 2; inplace++) {
			const void *s = inplace && rank == root ? MPI_IN_PLACE : sb;

			for (k = 0; k < ROUNDS(m); k++) {
				for (i = 0; i < NB; i++) {
					sb[i] = val(rank, i, k);
					rb[i] = s == MPI_IN_PLACE ? sb[i] : -1;
				}
				RUN(m, k, req, MPI_Reduce(s, rb, NB, MPI_INT, MPI_SUM, root, comm),
				    MPI_Reduce_c(s, rb, NB, MPI_INT, MPI_SUM, root, comm),
				    MPI_Ireduce_c(s, rb, NB, MPI_INT, MPI_SUM, root, comm, &req),
				    MPI_Reduce_init(s, rb, NB, MPI_INT, MPI_SUM, root, comm,
						    MPI_INFO_NULL, &req),
				    MPI_Reduce_init_c(s, rb, NB, MPI_INT, MPI_SUM, root, comm,
						      MPI_INFO_NULL, &req));
				for (i = 0; rank == root && i < NB; i++)
					CHECK_EQ(rb[i], sum_to(size, i, k), "reduce", m, k, i);
			}
			end_req(m, &req);
		}
}

static void t_allreduce_scan(MPI_Comm comm, int m)
{
	int sb[NB], rb[NB], k, i, inplace, which;
	MPI_Request req = MPI_REQUEST_NULL;

	for (which = 0; which < 3; which++)   /* allreduce, scan, exscan */
		for (inplace = 0; inplace < 2; inplace++) {
			const void *s = inplace ? MPI_IN_PLACE : sb;

			for (k = 0; k < ROUNDS(m); k++) {
				for (i = 0; i < NB; i++) {
					sb[i] = val(rank, i, k);
					rb[i] = inplace ? sb[i] : -1;
				}
				if (which == 0)
					RUN(m, k, req, MPI_Allreduce(s, rb, NB, MPI_INT, MPI_SUM, comm),
					    MPI_Allreduce_c(s, rb, NB, MPI_INT, MPI_SUM, comm),
					    MPI_Iallreduce_c(s, rb, NB, MPI_INT, MPI_SUM, comm, &req),
					    MPI_Allreduce_init(s, rb, NB, MPI_INT, MPI_SUM, comm,
							       MPI_INFO_NULL, &req),
					    MPI_Allreduce_init_c(s, rb, NB, MPI_INT, MPI_SUM, comm,
								 MPI_INFO_NULL, &req));
				else if (which == 1)
					RUN(m, k, req, MPI_Scan(s, rb, NB, MPI_INT, MPI_SUM, comm),
					    MPI_Scan_c(s, rb, NB, MPI_INT, MPI_SUM, comm),
					    MPI_Iscan_c(s, rb, NB, MPI_INT, MPI_SUM, comm, &req),
					    MPI_Scan_init(s, rb, NB, MPI_INT, MPI_SUM, comm,
							  MPI_INFO_NULL, &req),
					    MPI_Scan_init_c(s, rb, NB, MPI_INT, MPI_SUM, comm,
							    MPI_INFO_NULL, &req));
				else
					RUN(m, k, req, MPI_Exscan(s, rb, NB, MPI_INT, MPI_SUM, comm),
					    MPI_Exscan_c(s, rb, NB, MPI_INT, MPI_SUM, comm),
					    MPI_Iexscan_c(s, rb, NB, MPI_INT, MPI_SUM, comm, &req),
					    MPI_Exscan_init(s, rb, NB, MPI_INT, MPI_SUM, comm,
							    MPI_INFO_NULL, &req),
					    MPI_Exscan_init_c(s, rb, NB, MPI_INT, MPI_SUM, comm,
							      MPI_INFO_NULL, &req));
				for (i = 0; i < NB; i++) {
					if (which == 2 && rank == 0)
						continue;   /* undefined there */
					CHECK_EQ(rb[i], sum_to(which == 0 ? size : which == 1 ?
							       rank + 1 : rank, i, k),
						 which == 0 ? "allreduce" : which == 1 ? "scan" :
						 "exscan", m, k, i);
				}
			}
			end_req(m, &req);
		}
}

static void t_reduce_scatter(MPI_Comm comm, int m)
{
	int *sb, *rb, *counts, total = 0, off = 0, k, i, r, inplace, block;
	MPI_Count *ccounts;
	MPI_Request req = MPI_REQUEST_NULL;

	counts = malloc((size_t)size * sizeof(int));
	ccounts = malloc((size_t)size * sizeof(MPI_Count));
	for (r = 0; r < size; r++) {
		counts[r] = vcnt(r);
		ccounts[r] = vcnt(r);
		if (r < rank)
			off += counts[r];
		total += counts[r];
	}
	sb = malloc((size_t)(total + NB * size + 1) * sizeof(int));
	rb = malloc((size_t)(total + NB * size + 1) * sizeof(int));
	for (block = 0; block < 2; block++)
		for (inplace = 0; inplace < 2; inplace++) {
			const void *s = inplace ? MPI_IN_PLACE : sb;
			int n = block ? NB * size : total, mine = block ? NB : counts[rank];
			int first = block ? NB * rank : off;

			for (k = 0; k < ROUNDS(m); k++) {
				for (i = 0; i < n; i++) {
					sb[i] = val(rank, i, k);
					rb[i] = inplace ? sb[i] : -1;
				}
				if (block)
					RUN(m, k, req,
					    MPI_Reduce_scatter_block(s, rb, NB, MPI_INT, MPI_SUM, comm),
					    MPI_Reduce_scatter_block_c(s, rb, NB, MPI_INT, MPI_SUM, comm),
					    MPI_Ireduce_scatter_block_c(s, rb, NB, MPI_INT, MPI_SUM, comm,
									&req),
					    MPI_Reduce_scatter_block_init(s, rb, NB, MPI_INT, MPI_SUM, comm,
									  MPI_INFO_NULL, &req),
					    MPI_Reduce_scatter_block_init_c(s, rb, NB, MPI_INT, MPI_SUM,
									    comm, MPI_INFO_NULL, &req));
				else
					RUN(m, k, req,
					    MPI_Reduce_scatter(s, rb, counts, MPI_INT, MPI_SUM, comm),
					    MPI_Reduce_scatter_c(s, rb, ccounts, MPI_INT, MPI_SUM, comm),
					    MPI_Ireduce_scatter_c(s, rb, ccounts, MPI_INT, MPI_SUM, comm,
								  &req),
					    MPI_Reduce_scatter_init(s, rb, counts, MPI_INT, MPI_SUM, comm,
								    MPI_INFO_NULL, &req),
					    MPI_Reduce_scatter_init_c(s, rb, ccounts, MPI_INT, MPI_SUM,
								      comm, MPI_INFO_NULL, &req));
				for (i = 0; i < mine; i++)
					CHECK_EQ(rb[i], sum_to(size, first + i, k),
						 block ? "reduce_scatter_block" : "reduce_scatter", m, k,
						 i);
			}
			end_req(m, &req);
		}
	free(sb);
	free(rb);
	free(counts);
	free(ccounts);
}

/* ---- gather and scatter ----------------------------------------------------------- */

static void t_gather_scatter(MPI_Comm comm, int m)
{
	int n = size, *counts = malloc((size_t)n * sizeof(int)), *displs = malloc((size_t)n * sizeof(int));
	MPI_Count *cc = malloc((size_t)n * sizeof(MPI_Count));
	MPI_Aint *cd = malloc((size_t)n * sizeof(MPI_Aint));
	int *all = malloc((size_t)(NB * n + 4 * n + 8) * sizeof(int)), mine[NB + 4];
	int root, k, i, r, inplace, total = 0;
	MPI_Request req = MPI_REQUEST_NULL;

	for (r = 0; r < n; r++) {   /* blocks in reverse order, a gap of one between */
		counts[r] = vcnt(r);
		cc[r] = counts[r];
	}
	for (r = n - 1; r >= 0; r--) {
		displs[r] = total;
		cd[r] = total;
		total += counts[r] + 1;
	}
	for (root = 0; root < n; root++) {
		/* gather, in place at the root or not */
		for (inplace = 0; inplace < 2; inplace++) {
			const void *s = inplace && rank == root ? MPI_IN_PLACE : mine;

			for (k = 0; k < ROUNDS(m); k++) {
				for (i = 0; i < NB; i++)
					mine[i] = val(rank, i, k);
				for (i = 0; i < NB * n; i++)
					all[i] = rank == root && inplace && i / NB == rank ?
						 val(rank, i % NB, k) : -1;
				RUN(m, k, req,
				    MPI_Gather(s, NB, MPI_INT, all, NB, MPI_INT, root, comm),
				    MPI_Gather_c(s, NB, MPI_INT, all, NB, MPI_INT, root, comm),
				    MPI_Igather_c(s, NB, MPI_INT, all, NB, MPI_INT, root, comm, &req),
				    MPI_Gather_init(s, NB, MPI_INT, all, NB, MPI_INT, root, comm,
						    MPI_INFO_NULL, &req),
				    MPI_Gather_init_c(s, NB, MPI_INT, all, NB, MPI_INT, root, comm,
						      MPI_INFO_NULL, &req));
				for (i = 0; rank == root && i < NB * n; i++)
					CHECK_EQ(all[i], val(i / NB, i % NB, k), "gather", m, k, i);
			}
			end_req(m, &req);
		}
		/* gatherv */
		for (k = 0; k < ROUNDS(m); k++) {
			for (i = 0; i < NB; i++)
				mine[i] = val(rank, i, k);
			for (i = 0; i < total; i++)
				all[i] = -1;
			RUN(m, k, req,
			    MPI_Gatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root,
					comm),
			    MPI_Gatherv_c(mine, cc[rank], MPI_INT, all, cc, cd, MPI_INT, root, comm),
			    MPI_Igatherv_c(mine, cc[rank], MPI_INT, all, cc, cd, MPI_INT, root, comm,
					   &req),
			    MPI_Gatherv_init(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT,
					     root, comm, MPI_INFO_NULL, &req),
			    MPI_Gatherv_init_c(mine, cc[rank], MPI_INT, all, cc, cd, MPI_INT, root,
					       comm, MPI_INFO_NULL, &req));
			for (r = 0; rank == root && r < n; r++) {
				for (i = 0; i < counts[r]; i++)
					CHECK_EQ(all[displs[r] + i], val(r, i, k), "gatherv", m, k,
						 displs[r] + i);
				CHECK_EQ(all[displs[r] + counts[r]], -1, "gatherv gap", m, k, r);
			}
		}
		end_req(m, &req);
		/* scatter, in place at the root or not */
		for (inplace = 0; inplace < 2; inplace++) {
			void *rbuf = inplace && rank == root ? MPI_IN_PLACE : mine;

			for (k = 0; k < ROUNDS(m); k++) {
				for (i = 0; i < NB * n; i++)
					all[i] = rank == root ? val(i / NB, i % NB, k) : -1;
				for (i = 0; i < NB; i++)
					mine[i] = -1;
				RUN(m, k, req,
				    MPI_Scatter(all, NB, MPI_INT, rbuf, NB, MPI_INT, root, comm),
				    MPI_Scatter_c(all, NB, MPI_INT, rbuf, NB, MPI_INT, root, comm),
				    MPI_Iscatter_c(all, NB, MPI_INT, rbuf, NB, MPI_INT, root, comm, &req),
				    MPI_Scatter_init(all, NB, MPI_INT, rbuf, NB, MPI_INT, root, comm,
						     MPI_INFO_NULL, &req),
				    MPI_Scatter_init_c(all, NB, MPI_INT, rbuf, NB, MPI_INT, root, comm,
						       MPI_INFO_NULL, &req));
				for (i = 0; rbuf != MPI_IN_PLACE && i < NB; i++)
					CHECK_EQ(mine[i], val(rank, i, k), "scatter", m, k, i);
			}
			end_req(m, &req);
		}
		/* scatterv */
		for (k = 0; k < ROUNDS(m); k++) {
			for (r = 0; r < n; r++)
				for (i = 0; i < counts[r]; i++)
					all[displs[r] + i] = rank == root ? val(r, i, k) : -1;
			for (i = 0; i < NB; i++)
				mine[i] = -1;
			RUN(m, k, req,
			    MPI_Scatterv(all, counts, displs, MPI_INT, mine, counts[rank], MPI_INT, root,
					 comm),
			    MPI_Scatterv_c(all, cc, cd, MPI_INT, mine, cc[rank], MPI_INT, root, comm),
			    MPI_Iscatterv_c(all, cc, cd, MPI_INT, mine, cc[rank], MPI_INT, root, comm,
					    &req),
			    MPI_Scatterv_init(all, counts, displs, MPI_INT, mine, counts[rank], MPI_INT,
					      root, comm, MPI_INFO_NULL, &req),
			    MPI_Scatterv_init_c(all, cc, cd, MPI_INT, mine, cc[rank], MPI_INT, root,
						comm, MPI_INFO_NULL, &req));
			for (i = 0; i < NB; i++)
				CHECK_EQ(mine[i], i < counts[rank] ? val(rank, i, k) : -1, "scatterv", m,
					 k, i);
		}
		end_req(m, &req);
	}
	free(counts);
	free(displs);
	free(cc);
	free(cd);
	free(all);
}

/* ---- allgather and alltoall --------------------------------------------------------- */

static void t_allgather(MPI_Comm comm, int m)
{
	int n = size, *counts = malloc((size_t)n * sizeof(int)), *displs = malloc((size_t)n * sizeof(int));
	MPI_Count *cc = malloc((size_t)n * sizeof(MPI_Count));
	MPI_Aint *cd = malloc((size_t)n * sizeof(MPI_Aint));
	int *all = malloc((size_t)(3 * NB * n + 4 * n + 8) * sizeof(int)), mine[3 * NB];
	int k, i, r, inplace, total = 0;
	MPI_Datatype pair;
	MPI_Request req = MPI_REQUEST_NULL;

	/* two ints, one skipped: a type that is not contiguous */
	MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
	MPI_Type_commit(&pair);
	for (r = 0; r < n; r++) {
		counts[r] = vcnt(r);
		cc[r] = counts[r];
	}
	for (r = n - 1; r >= 0; r--) {
		displs[r] = total;
		cd[r] = total;
		total += counts[r] + 1;
	}
	for (inplace = 0; inplace < 2; inplace++) {
		const void *s = inplace ? MPI_IN_PLACE : mine;

		for (k = 0; k < ROUNDS(m); k++) {
			for (i = 0; i < NB; i++)
				mine[i] = val(rank, i, k);
			for (i = 0; i < NB * n; i++)
				all[i] = inplace && i / NB == rank ? val(rank, i % NB, k) : -1;
			RUN(m, k, req, MPI_Allgather(s, NB, MPI_INT, all, NB, MPI_INT, comm),
			    MPI_Allgather_c(s, NB, MPI_INT, all, NB, MPI_INT, comm),
			    MPI_Iallgather_c(s, NB, MPI_INT, all, NB, MPI_INT, comm, &req),
			    MPI_Allgather_init(s, NB, MPI_INT, all, NB, MPI_INT, comm, MPI_INFO_NULL,
					       &req),
			    MPI_Allgather_init_c(s, NB, MPI_INT, all, NB, MPI_INT, comm, MPI_INFO_NULL,
						 &req));
			for (i = 0; i < NB * n; i++)
				CHECK_EQ(all[i], val(i / NB, i % NB, k), "allgather", m, k, i);
		}
		end_req(m, &req);
	}
	/* allgatherv into a strided type: each rank sends 2 * counts ints,
	 * received as counts pairs of ints two apart (extent 3 ints), pair
	 * j of block r at all[3 * (displs[r] + j)] */
	for (k = 0; k < ROUNDS(m); k++) {
		int sc = 2 * counts[rank];
		MPI_Count csc = sc;

		for (i = 0; i < 2 * NB; i++)
			mine[i] = val(rank, i, k);
		for (i = 0; i < 3 * total + 2; i++)
			all[i] = -1;
		RUN(m, k, req,
		    MPI_Allgatherv(mine, sc, MPI_INT, all, counts, displs, pair, comm),
		    MPI_Allgatherv_c(mine, csc, MPI_INT, all, cc, cd, pair, comm),
		    MPI_Iallgatherv_c(mine, csc, MPI_INT, all, cc, cd, pair, comm, &req),
		    MPI_Allgatherv_init(mine, sc, MPI_INT, all, counts, displs, pair, comm,
					MPI_INFO_NULL, &req),
		    MPI_Allgatherv_init_c(mine, csc, MPI_INT, all, cc, cd, pair, comm,
					  MPI_INFO_NULL, &req));
		for (r = 0; r < n; r++)
			for (i = 0; i < counts[r]; i++) {
				int e = 3 * (displs[r] + i);

				CHECK_EQ(all[e], val(r, 2 * i, k), "allgatherv(vector)", m, k, e);
				CHECK_EQ(all[e + 1], -1, "allgatherv(vector) gap", m, k, e + 1);
				CHECK_EQ(all[e + 2], val(r, 2 * i + 1, k), "allgatherv(vector)", m, k,
					 e + 2);
			}
	}
	end_req(m, &req);
	MPI_Type_free(&pair);
	free(counts);
	free(displs);
	free(cc);
	free(cd);
	free(all);
}

static void t_alltoall(MPI_Comm comm, int m)
{
	int n = size, r, k, i, inplace, w;
	int *sb = malloc((size_t)(NB * n + 1) * sizeof(int)), *rb = malloc((size_t)(NB * n + 1) * sizeof(int));
	int *sc = malloc((size_t)n * sizeof(int)), *sd = malloc((size_t)n * sizeof(int));
	int *rc = malloc((size_t)n * sizeof(int)), *rd = malloc((size_t)n * sizeof(int));
	int *wsd = malloc((size_t)n * sizeof(int)), *wrd = malloc((size_t)n * sizeof(int));
	MPI_Count *csc = malloc((size_t)n * sizeof(MPI_Count)), *crc = malloc((size_t)n * sizeof(MPI_Count));
	MPI_Aint *csd = malloc((size_t)n * sizeof(MPI_Aint)), *crd = malloc((size_t)n * sizeof(MPI_Aint));
	MPI_Aint *cwsd = malloc((size_t)n * sizeof(MPI_Aint)), *cwrd = malloc((size_t)n * sizeof(MPI_Aint));
	MPI_Datatype *types = malloc((size_t)n * sizeof(MPI_Datatype));
	MPI_Request req = MPI_REQUEST_NULL;

	for (inplace = 0; inplace < 2; inplace++) {
		const void *s = inplace ? MPI_IN_PLACE : sb;

		for (k = 0; k < ROUNDS(m); k++) {
			/* block r of rank x holds val(x, r * NB + i) */
			for (i = 0; i < NB * n; i++) {
				sb[i] = val(rank, i, k);
				rb[i] = inplace ? sb[i] : -1;
			}
			RUN(m, k, req, MPI_Alltoall(s, NB, MPI_INT, rb, NB, MPI_INT, comm),
			    MPI_Alltoall_c(s, NB, MPI_INT, rb, NB, MPI_INT, comm),
			    MPI_Ialltoall_c(s, NB, MPI_INT, rb, NB, MPI_INT, comm, &req),
			    MPI_Alltoall_init(s, NB, MPI_INT, rb, NB, MPI_INT, comm, MPI_INFO_NULL,
					      &req),
			    MPI_Alltoall_init_c(s, NB, MPI_INT, rb, NB, MPI_INT, comm, MPI_INFO_NULL,
						&req));
			for (i = 0; i < NB * n; i++)
				CHECK_EQ(rb[i], val(i / NB, rank * NB + i % NB, k), "alltoall", m, k, i);
		}
		end_req(m, &req);
	}
	/* v and w: to rank r I send vcnt(rank + r) elements, from r I get
	 * vcnt(r + rank) (the same); blocks laid out in reverse order */
	for (r = 0; r < n; r++) {
		sc[r] = rc[r] = vcnt(rank + r);
		csc[r] = crc[r] = sc[r];
		types[r] = MPI_INT;
	}
	for (r = n - 1, i = 0; r >= 0; r--) {
		sd[r] = rd[r] = i;
		csd[r] = crd[r] = i;
		wsd[r] = wrd[r] = i * (int)sizeof(int);
		cwsd[r] = cwrd[r] = i * (MPI_Aint)sizeof(int);
		i += sc[r];
	}
	for (w = 0; w < 2; w++)
		for (inplace = 0; inplace < 2; inplace++) {
			const void *s = inplace ? MPI_IN_PLACE : sb;

			for (k = 0; k < ROUNDS(m); k++) {
				for (r = 0; r < n; r++)
					for (i = 0; i < sc[r]; i++) {
						sb[sd[r] + i] = val(rank, r * 10 + i, k);
						rb[rd[r] + i] = inplace ? sb[sd[r] + i] : -1;
					}
				if (w)
					RUN(m, k, req,
					    MPI_Alltoallw(s, sc, wsd, types, rb, rc, wrd, types, comm),
					    MPI_Alltoallw_c(s, csc, cwsd, types, rb, crc, cwrd, types, comm),
					    MPI_Ialltoallw_c(s, csc, cwsd, types, rb, crc, cwrd, types,
							     comm, &req),
					    MPI_Alltoallw_init(s, sc, wsd, types, rb, rc, wrd, types, comm,
							       MPI_INFO_NULL, &req),
					    MPI_Alltoallw_init_c(s, csc, cwsd, types, rb, crc, cwrd, types,
								 comm, MPI_INFO_NULL, &req));
				else
					RUN(m, k, req,
					    MPI_Alltoallv(s, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm),
					    MPI_Alltoallv_c(s, csc, csd, MPI_INT, rb, crc, crd, MPI_INT,
							    comm),
					    MPI_Ialltoallv_c(s, csc, csd, MPI_INT, rb, crc, crd, MPI_INT,
							     comm, &req),
					    MPI_Alltoallv_init(s, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, comm,
							       MPI_INFO_NULL, &req),
					    MPI_Alltoallv_init_c(s, csc, csd, MPI_INT, rb, crc, crd,
								 MPI_INT, comm, MPI_INFO_NULL, &req));
				for (r = 0; r < n; r++)
					for (i = 0; i < rc[r]; i++)
						CHECK_EQ(rb[rd[r] + i], val(r, rank * 10 + i, k),
							 w ? "alltoallw" : "alltoallv", m, k, rd[r] + i);
			}
			end_req(m, &req);
		}
	free(sb);
	free(rb);
	free(sc);
	free(sd);
	free(rc);
	free(rd);
	free(wsd);
	free(wrd);
	free(csc);
	free(crc);
	free(csd);
	free(crd);
	free(cwsd);
	free(cwrd);
	free(types);
}

static void t_barrier(MPI_Comm comm, int m)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int k;

	if (m != M_INIT)
		return;
	MPI_Barrier_init(comm, MPI_INFO_NULL, &req);
	for (k = 0; k < 20; k++) {
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}
	MPI_Request_free(&req);
}

/* ---- neighbourhood collectives on a periodic ring ---------------------------------- */

static void t_neighbor(MPI_Comm world, int m)
{
	int dims[1] = { 0 }, periods[1] = { 1 }, k, i, j, left, right;
	int sb[2 * NB], rb[2 * NB + 2], c2[2] = { NB, NB }, d2[2] = { 0, NB + 1 };
	int sdsp[2] = { 0, NB };
	MPI_Count cc2[2] = { NB, NB };
	MPI_Aint cd2[2] = { 0, NB + 1 }, csd[2] = { 0, NB }, wsd[2], wrd[2];
	MPI_Datatype t2[2] = { MPI_INT, MPI_INT };
	MPI_Comm ring;
	MPI_Request req = MPI_REQUEST_NULL;
	int cnt2[2] = { NB, NB };

	dims[0] = size;
	MPI_Cart_create(world, 1, dims, periods, 0, &ring);
	MPI_Cart_shift(ring, 0, 1, &left, &right);
	wsd[0] = 0;
	wsd[1] = NB * (MPI_Aint)sizeof(int);
	wrd[0] = 0;
	wrd[1] = (NB + 1) * (MPI_Aint)sizeof(int);
	for (j = 0; j < 5; j++) {   /* allgather, allgatherv, alltoall, alltoallv, alltoallw */
		for (k = 0; k < ROUNDS(m); k++) {
			for (i = 0; i < 2 * NB; i++)
				sb[i] = val(rank, i, k);
			for (i = 0; i < 2 * NB + 2; i++)
				rb[i] = -1;
			switch (j) {
			case 0:
				RUN(m, k, req,
				    MPI_Neighbor_allgather(sb, NB, MPI_INT, rb, NB, MPI_INT, ring),
				    MPI_Neighbor_allgather_c(sb, NB, MPI_INT, rb, NB, MPI_INT, ring),
				    MPI_Ineighbor_allgather_c(sb, NB, MPI_INT, rb, NB, MPI_INT, ring,
							      &req),
				    MPI_Neighbor_allgather_init(sb, NB, MPI_INT, rb, NB, MPI_INT, ring,
								MPI_INFO_NULL, &req),
				    MPI_Neighbor_allgather_init_c(sb, NB, MPI_INT, rb, NB, MPI_INT, ring,
								  MPI_INFO_NULL, &req));
				break;
			case 1:
				RUN(m, k, req,
				    MPI_Neighbor_allgatherv(sb, NB, MPI_INT, rb, c2, d2, MPI_INT, ring),
				    MPI_Neighbor_allgatherv_c(sb, NB, MPI_INT, rb, cc2, cd2, MPI_INT,
							      ring),
				    MPI_Ineighbor_allgatherv_c(sb, NB, MPI_INT, rb, cc2, cd2, MPI_INT,
							       ring, &req),
				    MPI_Neighbor_allgatherv_init(sb, NB, MPI_INT, rb, c2, d2, MPI_INT,
								 ring, MPI_INFO_NULL, &req),
				    MPI_Neighbor_allgatherv_init_c(sb, NB, MPI_INT, rb, cc2, cd2,
								   MPI_INT, ring, MPI_INFO_NULL,
								   &req));
				break;
			case 2:
				RUN(m, k, req,
				    MPI_Neighbor_alltoall(sb, NB, MPI_INT, rb, NB, MPI_INT, ring),
				    MPI_Neighbor_alltoall_c(sb, NB, MPI_INT, rb, NB, MPI_INT, ring),
				    MPI_Ineighbor_alltoall_c(sb, NB, MPI_INT, rb, NB, MPI_INT, ring,
							     &req),
				    MPI_Neighbor_alltoall_init(sb, NB, MPI_INT, rb, NB, MPI_INT, ring,
							       MPI_INFO_NULL, &req),
				    MPI_Neighbor_alltoall_init_c(sb, NB, MPI_INT, rb, NB, MPI_INT, ring,
								 MPI_INFO_NULL, &req));
				break;
			case 3:
				RUN(m, k, req,
				    MPI_Neighbor_alltoallv(sb, cnt2, sdsp, MPI_INT, rb, c2, d2, MPI_INT,
							   ring),
				    MPI_Neighbor_alltoallv_c(sb, cc2, csd, MPI_INT, rb, cc2, cd2,
							     MPI_INT, ring),
				    MPI_Ineighbor_alltoallv_c(sb, cc2, csd, MPI_INT, rb, cc2, cd2,
							      MPI_INT, ring, &req),
				    MPI_Neighbor_alltoallv_init(sb, cnt2, sdsp, MPI_INT, rb, c2, d2,
								MPI_INT, ring, MPI_INFO_NULL, &req),
				    MPI_Neighbor_alltoallv_init_c(sb, cc2, csd, MPI_INT, rb, cc2, cd2,
								  MPI_INT, ring, MPI_INFO_NULL,
								  &req));
				break;
			default:
				RUN(m, k, req,
				    MPI_Neighbor_alltoallw(sb, cnt2, wsd, t2, rb, c2, wrd, t2, ring),
				    MPI_Neighbor_alltoallw_c(sb, cc2, wsd, t2, rb, cc2, wrd, t2, ring),
				    MPI_Ineighbor_alltoallw_c(sb, cc2, wsd, t2, rb, cc2, wrd, t2, ring,
							      &req),
				    MPI_Neighbor_alltoallw_init(sb, cnt2, wsd, t2, rb, c2, wrd, t2, ring,
								MPI_INFO_NULL, &req),
				    MPI_Neighbor_alltoallw_init_c(sb, cc2, wsd, t2, rb, cc2, wrd, t2,
								  ring, MPI_INFO_NULL, &req));
				break;
			}
			/* in-neighbours: left then right; the allgathers send
			 * block 0 to both, the alltoalls block 0 to the left
			 * and block 1 to the right */
			for (i = 0; i < NB; i++) {
				int gap = j == 0 || j == 2 ? 0 : 1;
				int fromleft = j == 0 || j == 1 ? val(left, i, k) : val(left, NB + i, k);
				int fromright = val(right, i, k);

				CHECK_EQ(rb[i], fromleft, "neighbor (left)", m, k, i);
				CHECK_EQ(rb[NB + gap + i], fromright, "neighbor (right)", m, k, i);
			}
		}
		end_req(m, &req);
	}
	MPI_Comm_free(&ring);
}

/* ---- intercommunicators -------------------------------------------------------------- */

static void t_inter(int m)
{
	MPI_Comm half, inter;
	int color = rank % 2, lrank, lsize, rsize, k, i, buf[NB], *all, *sb;
	MPI_Request req = MPI_REQUEST_NULL;

	if (size < 2)
		return;
	MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
	MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
	MPI_Comm_rank(half, &lrank);
	MPI_Comm_size(half, &lsize);
	MPI_Comm_remote_size(inter, &rsize);
	all = malloc((size_t)(NB * (rsize + lsize)) * sizeof(int));
	sb = malloc((size_t)(NB * (rsize + lsize)) * sizeof(int));
	/* broadcast from rank 0 of the even group */
	for (k = 0; k < ROUNDS(m); k++) {
		int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;

		for (i = 0; i < NB; i++)
			buf[i] = color == 0 && lrank == 0 ? val(0, i, k) : -1;
		RUN(m, k, req, MPI_Bcast(buf, NB, MPI_INT, root, inter),
		    MPI_Bcast_c(buf, NB, MPI_INT, root, inter),
		    MPI_Ibcast_c(buf, NB, MPI_INT, root, inter, &req),
		    MPI_Bcast_init(buf, NB, MPI_INT, root, inter, MPI_INFO_NULL, &req),
		    MPI_Bcast_init_c(buf, NB, MPI_INT, root, inter, MPI_INFO_NULL, &req));
		for (i = 0; color == 1 && i < NB; i++)
			CHECK_EQ(buf[i], val(0, i, k), "inter bcast", m, k, i);
	}
	end_req(m, &req);
	/* allgather: every rank gets the other group's blocks, by its ranks */
	for (k = 0; k < ROUNDS(m); k++) {
		for (i = 0; i < NB; i++)
			buf[i] = val(2 * lrank + color, i, k);
		for (i = 0; i < NB * rsize; i++)
			all[i] = -1;
		RUN(m, k, req, MPI_Allgather(buf, NB, MPI_INT, all, NB, MPI_INT, inter),
		    MPI_Allgather_c(buf, NB, MPI_INT, all, NB, MPI_INT, inter),
		    MPI_Iallgather_c(buf, NB, MPI_INT, all, NB, MPI_INT, inter, &req),
		    MPI_Allgather_init(buf, NB, MPI_INT, all, NB, MPI_INT, inter, MPI_INFO_NULL,
				       &req),
		    MPI_Allgather_init_c(buf, NB, MPI_INT, all, NB, MPI_INT, inter, MPI_INFO_NULL,
					 &req));
		for (i = 0; i < NB * rsize; i++)
			CHECK_EQ(all[i], val(2 * (i / NB) + 1 - color, i % NB, k), "inter allgather",
				 m, k, i);
	}
	end_req(m, &req);
	/* allreduce: the sum over the other group */
	for (k = 0; k < ROUNDS(m); k++) {
		int want;

		for (i = 0; i < NB; i++) {
			buf[i] = val(2 * lrank + color, i, k);
			all[i] = -1;
		}
		RUN(m, k, req, MPI_Allreduce(buf, all, NB, MPI_INT, MPI_SUM, inter),
		    MPI_Allreduce_c(buf, all, NB, MPI_INT, MPI_SUM, inter),
		    MPI_Iallreduce_c(buf, all, NB, MPI_INT, MPI_SUM, inter, &req),
		    MPI_Allreduce_init(buf, all, NB, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &req),
		    MPI_Allreduce_init_c(buf, all, NB, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL,
					 &req));
		for (i = 0; i < NB; i++) {
			int r;

			for (r = 0, want = 0; r < rsize; r++)
				want += val(2 * r + 1 - color, i, k);
			CHECK_EQ(all[i], want, "inter allreduce", m, k, i);
		}
	}
	end_req(m, &req);
	/* alltoall: block j to remote rank j */
	for (k = 0; k < ROUNDS(m); k++) {
		for (i = 0; i < NB * rsize; i++) {
			sb[i] = val(2 * lrank + color, i, k);
			all[i] = -1;
		}
		RUN(m, k, req, MPI_Alltoall(sb, NB, MPI_INT, all, NB, MPI_INT, inter),
		    MPI_Alltoall_c(sb, NB, MPI_INT, all, NB, MPI_INT, inter),
		    MPI_Ialltoall_c(sb, NB, MPI_INT, all, NB, MPI_INT, inter, &req),
		    MPI_Alltoall_init(sb, NB, MPI_INT, all, NB, MPI_INT, inter, MPI_INFO_NULL,
				      &req),
		    MPI_Alltoall_init_c(sb, NB, MPI_INT, all, NB, MPI_INT, inter, MPI_INFO_NULL,
					&req));
		for (i = 0; i < NB * rsize; i++)
			CHECK_EQ(all[i], val(2 * (i / NB) + 1 - color, lrank * NB + i % NB, k),
				 "inter alltoall", m, k, i);
	}
	end_req(m, &req);
	/* gather to rank 0 of the odd group */
	for (k = 0; k < ROUNDS(m); k++) {
		int root = color == 1 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;

		for (i = 0; i < NB; i++)
			buf[i] = val(2 * lrank + color, i, k);
		for (i = 0; i < NB * rsize; i++)
			all[i] = -1;
		RUN(m, k, req, MPI_Gather(buf, NB, MPI_INT, all, NB, MPI_INT, root, inter),
		    MPI_Gather_c(buf, NB, MPI_INT, all, NB, MPI_INT, root, inter),
		    MPI_Igather_c(buf, NB, MPI_INT, all, NB, MPI_INT, root, inter, &req),
		    MPI_Gather_init(buf, NB, MPI_INT, all, NB, MPI_INT, root, inter, MPI_INFO_NULL,
				    &req),
		    MPI_Gather_init_c(buf, NB, MPI_INT, all, NB, MPI_INT, root, inter,
				      MPI_INFO_NULL, &req));
		for (i = 0; root == MPI_ROOT && i < NB * rsize; i++)
			CHECK_EQ(all[i], val(2 * (i / NB), i % NB, k), "inter gather", m, k, i);
	}
	end_req(m, &req);
	free(all);
	free(sb);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&half);
}

/* ---- several persistent collectives at once -------------------------------------------- */

static void t_startall(void)
{
	MPI_Request reqs[4];
	int a[NB], b[NB], c[NB], d[NB * 64], k, i;
	MPI_Status st, sts[4];
	int flag = 0;

	MPI_Bcast_init(a, NB, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
	MPI_Allreduce_init(b, c, NB, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[1]);
	MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[2]);
	MPI_Allgather_init_c(b, 1, MPI_INT, d, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
			     &reqs[3]);
	/* inactive: completes at once with an empty status */
	MPI_Wait(&reqs[1], &st);
	mtest_check(reqs[1] != MPI_REQUEST_NULL, "Wait on an inactive persistent collective "
		    "freed it");
	MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE);
	mtest_check(flag, "Test on an inactive persistent collective: flag 0");
	for (k = 0; k < 50; k++) {
		for (i = 0; i < NB; i++) {
			a[i] = rank == 0 ? val(0, i, k) : -1;
			b[i] = val(rank, i, k);
			c[i] = -1;
		}
		MPI_Startall(4, reqs);
		MPI_Waitall(4, reqs, sts);
		for (i = 0; i < NB; i++) {
			CHECK_EQ(a[i], val(0, i, k), "startall bcast", M_INIT, k, i);
			CHECK_EQ(c[i], val(size - 1, i, k), "startall allreduce", M_INIT, k, i);
		}
		for (i = 0; i < size; i++)
			CHECK_EQ(d[i], val(i, 0, k), "startall allgather", M_INIT_C, k, i);
	}
	for (i = 0; i < 4; i++) {
		MPI_Request_free(&reqs[i]);
		mtest_check(reqs[i] == MPI_REQUEST_NULL, "Request_free left request %d", i);
	}
}

/* ---- errors: a clear class, the request untouched ------------------------------- */

static void t_errors(void)
{
	int buf[2] = { 0, 0 }, err, cls;
	MPI_Count neg = -1;
	MPI_Request req = MPI_REQUEST_NULL;
	MPI_Info bad = (MPI_Info)0x7fff1234;   /* no info object has this handle */

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	err = MPI_Bcast_init(buf, 2, MPI_INT, 0, MPI_COMM_WORLD, bad, &req);
	MPI_Error_class(err, &cls);
	mtest_check(cls == MPI_ERR_INFO, "Bcast_init with a bad info: class %d, expected "
		    "MPI_ERR_INFO", cls);
	mtest_check(req == MPI_REQUEST_NULL, "Bcast_init failed but set the request");
	err = MPI_Bcast_c(buf, neg, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Error_class(err, &cls);
	mtest_check(cls == MPI_ERR_COUNT, "Bcast_c(count=-1): class %d, expected MPI_ERR_COUNT",
		    cls);
	err = MPI_Allreduce_init(buf, buf + 1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
				 MPI_INFO_NULL, NULL);
	mtest_check(err != MPI_SUCCESS, "Allreduce_init with request NULL succeeded");
	/* a persistent collective cannot be cancelled; it still completes */
	MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req);
	MPI_Start(&req);
	err = MPI_Cancel(&req);
	MPI_Error_class(err, &cls);
	mtest_check(cls == MPI_ERR_REQUEST, "Cancel of a persistent collective: class %d, "
		    "expected MPI_ERR_REQUEST", cls);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	/* started twice: the second start is refused */
	MPI_Start(&req);
	err = MPI_Start(&req);
	mtest_check(err != MPI_SUCCESS, "MPI_Start of an active persistent collective succeeded");
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Request_free(&req);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	int m;

	mtest_init(&argc, &argv);
	rank = mtest_rank;
	size = mtest_size;
	MPI_Info_create(&some_info);
	MPI_Info_set(some_info, "michi_test_unknown_key", "1");
	for (m = 0; m < M_NMODES; m++) {
		t_bcast(MPI_COMM_WORLD, m);
		t_reduce(MPI_COMM_WORLD, m);
		t_allreduce_scan(MPI_COMM_WORLD, m);
		t_reduce_scatter(MPI_COMM_WORLD, m);
		t_gather_scatter(MPI_COMM_WORLD, m);
		t_allgather(MPI_COMM_WORLD, m);
		t_alltoall(MPI_COMM_WORLD, m);
		t_barrier(MPI_COMM_WORLD, m);
		t_neighbor(MPI_COMM_WORLD, m);
		t_inter(m);
	}
	t_startall();
	t_errors();
	MPI_Info_free(&some_info);
	return mtest_finalize();
}
