/* SPDX-License-Identifier: MIT */
/*
 * The MPI-4.0 large-count datatype constructors (MPI_Type_vector_c and
 * the rest): each makes the same type as its int form (size, extent,
 * true extent, the bytes MPI_Pack gives, a round trip between two ranks)
 * and keeps its arguments as large counts (MPI_Type_get_envelope_c,
 * MPI_Type_get_contents_c), while the int MPI_Type_get_envelope refuses
 * such a type (MPI_ERR_TYPE here; MPICH says MPI_ERR_OTHER). Then a type over more than 2^31
 * elements (a contiguous of 3 Gi bytes, never touched) reports its size
 * and extent in full through MPI_Type_size_c and _get_extent_c.
 */
#include "mtest.h"

#define BUFN 4096

/* same layout: size, extents, packed bytes of 2 instances from buf */
static void same(MPI_Datatype a, MPI_Datatype b, const char *what)
{
	static char in[BUFN * 8];
	char pa[BUFN * 8], pb[BUFN * 8];
	MPI_Count sa, sb, la, ea, lb, eb, tla, tea, tlb, teb;
	int posa = 0, posb = 0, i;

	for (i = 0; i < (int)sizeof(in); i++)
		in[i] = (char)(i * 7 + 3);
	MPI_Type_size_c(a, &sa);
	MPI_Type_size_c(b, &sb);
	MPI_Type_get_extent_c(a, &la, &ea);
	MPI_Type_get_extent_c(b, &lb, &eb);
	MPI_Type_get_true_extent_c(a, &tla, &tea);
	MPI_Type_get_true_extent_c(b, &tlb, &teb);
	mtest_check(sa == sb && la == lb && ea == eb && tla == tlb && tea == teb,
		    "%s: size %lld/%lld lb %lld/%lld extent %lld/%lld true %lld,%lld/%lld,%lld",
		    what, (long long)sa, (long long)sb, (long long)la, (long long)lb,
		    (long long)ea, (long long)eb, (long long)tla, (long long)tea,
		    (long long)tlb, (long long)teb);
	if (sa != sb || 2 * sa > (MPI_Count)sizeof(pa))
		return;
	MPI_Pack(in + 64, 2, a, pa, sizeof(pa), &posa, MPI_COMM_WORLD);
	MPI_Pack(in + 64, 2, b, pb, sizeof(pb), &posb, MPI_COMM_WORLD);
	mtest_check(posa == posb && !memcmp(pa, pb, (size_t)posa), "%s: packed bytes differ",
		    what);
}

/* envelope_c and contents_c: combiner, counts of each kind, the large counts */
static void contents(MPI_Datatype t, int combiner, int ni, int nc, const MPI_Count *want,
		     const char *what)
{
	MPI_Count ci, ca, cc, cd, big[64];
	MPI_Datatype types[8];
	int comb = -1, ints[64], k, i, nint, na, nd, rc;
	MPI_Aint addrs[8];

	MPI_Type_get_envelope_c(t, &ci, &ca, &cc, &cd, &comb);
	mtest_check(comb == combiner && ci == ni && ca == 0 && cc == nc,
		    "%s: envelope_c combiner %d ints %lld addrs %lld counts %lld", what, comb,
		    (long long)ci, (long long)ca, (long long)cc);
	if (cc != nc || nc > 64 || cd > 8)
		return;
	MPI_Type_get_contents_c(t, ci, ca, cc, cd, ints, addrs, big, types);
	for (k = 0; k < nc; k++)
		if (big[k] != want[k])
			break;
	mtest_check(k == nc, "%s: large count %d is %lld, want %lld", what, k,
		    (long long)(k < nc ? big[k] : 0), (long long)(k < nc ? want[k] : 0));
	for (i = 0; i < cd; i++) {
		int c2;

		MPI_Type_get_envelope(types[i], &nint, &na, &nd, &c2);
		if (c2 != MPI_COMBINER_NAMED)
			MPI_Type_free(&types[i]);
	}
	rc = MPI_Type_get_envelope(t, &nint, &na, &nd, &comb);
	mtest_check(rc != MPI_SUCCESS, "%s: MPI_Type_get_envelope took a large-count type",
		    what);
}

static void commit_pair(MPI_Datatype *a, MPI_Datatype *b)
{
	MPI_Type_commit(a);
	MPI_Type_commit(b);
}

static void free_pair(MPI_Datatype *a, MPI_Datatype *b)
{
	MPI_Type_free(a);
	MPI_Type_free(b);
}

/* a vector type moves between ranks 0 and 1 and lands where the int one would */
static void round_trip(MPI_Datatype t, const char *what)
{
	static double buf[BUFN], ref[BUFN];
	int i, bad = 0;

	if (mtest_size < 2 || mtest_rank > 1)
		return;
	for (i = 0; i < BUFN; i++)
		buf[i] = mtest_rank == 0 ? i + 0.5 : -1;
	if (mtest_rank == 0) {
		MPI_Send(buf, 1, t, 1, 9, MPI_COMM_WORLD);
		return;
	}
	MPI_Recv(buf, 1, t, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (i = 0; i < BUFN; i++)
		ref[i] = -1;
	for (i = 0; i < 10; i++) {   /* vector_c(10, 3, 7) of doubles */
		ref[i * 7] = i * 7 + 0.5;
		ref[i * 7 + 1] = i * 7 + 1.5;
		ref[i * 7 + 2] = i * 7 + 2.5;
	}
	for (i = 0; i < BUFN; i++)
		bad += buf[i] != ref[i];
	mtest_check(!bad, "%s: %d doubles wrong after a round trip", what, bad);
}

int main(int argc, char **argv)
{
	MPI_Datatype a, b, types2[2] = { MPI_INT, MPI_DOUBLE };
	MPI_Count cbl[3] = { 2, 1, 3 }, cd[3] = { 0, 5, 9 }, cdb[3] = { 0, 40, 72 };
	int ibl[3] = { 2, 1, 3 }, id[3] = { 0, 5, 9 };
	MPI_Aint ad[3] = { 0, 40, 72 };
	MPI_Count sz = 0, lb, ext;

	mtest_init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

	MPI_Type_contiguous_c(5, MPI_DOUBLE, &a);
	MPI_Type_contiguous(5, MPI_DOUBLE, &b);
	commit_pair(&a, &b);
	same(a, b, "contiguous_c");
	contents(a, MPI_COMBINER_CONTIGUOUS, 0, 1, (MPI_Count[]){ 5 }, "contiguous_c");
	free_pair(&a, &b);

	MPI_Type_vector_c(10, 3, 7, MPI_DOUBLE, &a);
	MPI_Type_vector(10, 3, 7, MPI_DOUBLE, &b);
	commit_pair(&a, &b);
	same(a, b, "vector_c");
	contents(a, MPI_COMBINER_VECTOR, 0, 3, (MPI_Count[]){ 10, 3, 7 }, "vector_c");
	round_trip(a, "vector_c");
	free_pair(&a, &b);

	MPI_Type_create_hvector_c(4, 2, 24, MPI_INT, &a);
	MPI_Type_create_hvector(4, 2, 24, MPI_INT, &b);
	commit_pair(&a, &b);
	same(a, b, "hvector_c");
	contents(a, MPI_COMBINER_HVECTOR, 0, 3, (MPI_Count[]){ 4, 2, 24 }, "hvector_c");
	free_pair(&a, &b);

	MPI_Type_indexed_c(3, cbl, cd, MPI_INT, &a);
	MPI_Type_indexed(3, ibl, id, MPI_INT, &b);
	commit_pair(&a, &b);
	same(a, b, "indexed_c");
	contents(a, MPI_COMBINER_INDEXED, 0, 7, (MPI_Count[]){ 3, 2, 1, 3, 0, 5, 9 }, "indexed_c");
	free_pair(&a, &b);

	MPI_Type_create_hindexed_c(3, cbl, cdb, MPI_INT, &a);
	MPI_Type_create_hindexed(3, ibl, ad, MPI_INT, &b);
	commit_pair(&a, &b);
	same(a, b, "hindexed_c");
	contents(a, MPI_COMBINER_HINDEXED, 0, 7, (MPI_Count[]){ 3, 2, 1, 3, 0, 40, 72 },
		 "hindexed_c");
	free_pair(&a, &b);

	MPI_Type_create_indexed_block_c(3, 2, cd, MPI_SHORT, &a);
	MPI_Type_create_indexed_block(3, 2, id, MPI_SHORT, &b);
	commit_pair(&a, &b);
	same(a, b, "indexed_block_c");
	contents(a, MPI_COMBINER_INDEXED_BLOCK, 0, 5, (MPI_Count[]){ 3, 2, 0, 5, 9 },
		 "indexed_block_c");
	free_pair(&a, &b);

	MPI_Type_create_hindexed_block_c(3, 2, cdb, MPI_INT, &a);
	MPI_Type_create_hindexed_block(3, 2, ad, MPI_INT, &b);
	commit_pair(&a, &b);
	same(a, b, "hindexed_block_c");
	contents(a, MPI_COMBINER_HINDEXED_BLOCK, 0, 5, (MPI_Count[]){ 3, 2, 0, 40, 72 },
		 "hindexed_block_c");
	free_pair(&a, &b);

	MPI_Type_create_struct_c(2, (MPI_Count[]){ 3, 2 }, (MPI_Count[]){ 0, 16 }, types2, &a);
	MPI_Type_create_struct(2, (int[]){ 3, 2 }, (MPI_Aint[]){ 0, 16 }, types2, &b);
	commit_pair(&a, &b);
	same(a, b, "struct_c");
	contents(a, MPI_COMBINER_STRUCT, 0, 5, (MPI_Count[]){ 2, 3, 2, 0, 16 }, "struct_c");
	free_pair(&a, &b);

	MPI_Type_create_subarray_c(2, (MPI_Count[]){ 8, 9 }, (MPI_Count[]){ 3, 4 },
				   (MPI_Count[]){ 2, 5 }, MPI_ORDER_C, MPI_FLOAT, &a);
	MPI_Type_create_subarray(2, (int[]){ 8, 9 }, (int[]){ 3, 4 }, (int[]){ 2, 5 },
				 MPI_ORDER_C, MPI_FLOAT, &b);
	commit_pair(&a, &b);
	same(a, b, "subarray_c");
	contents(a, MPI_COMBINER_SUBARRAY, 2, 6, (MPI_Count[]){ 8, 9, 3, 4, 2, 5 }, "subarray_c");
	free_pair(&a, &b);

	MPI_Type_create_darray_c(4, 3, 2, (MPI_Count[]){ 10, 12 },
				 (int[]){ MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
				 (int[]){ MPI_DISTRIBUTE_DFLT_DARG, 2 }, (int[]){ 2, 2 },
				 MPI_ORDER_C, MPI_DOUBLE, &a);
	MPI_Type_create_darray(4, 3, 2, (int[]){ 10, 12 },
			       (int[]){ MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC },
			       (int[]){ MPI_DISTRIBUTE_DFLT_DARG, 2 }, (int[]){ 2, 2 },
			       MPI_ORDER_C, MPI_DOUBLE, &b);
	commit_pair(&a, &b);
	same(a, b, "darray_c");
	contents(a, MPI_COMBINER_DARRAY, 3 * 2 + 4, 2, (MPI_Count[]){ 10, 12 }, "darray_c");
	free_pair(&a, &b);

	MPI_Type_create_resized_c(MPI_INT, -4, 12, &a);
	MPI_Type_create_resized(MPI_INT, -4, 12, &b);
	commit_pair(&a, &b);
	same(a, b, "resized_c");
	contents(a, MPI_COMBINER_RESIZED, 0, 2, (MPI_Count[]){ -4, 12 }, "resized_c");
	free_pair(&a, &b);

	/* past 2^31: 3 Gi bytes as one type, sizes and extents in full */
	MPI_Type_contiguous_c(3LL << 30, MPI_BYTE, &a);
	MPI_Type_commit(&a);
	MPI_Type_size_c(a, &sz);
	MPI_Type_get_extent_c(a, &lb, &ext);
	mtest_check(sz == 3LL << 30 && lb == 0 && ext == 3LL << 30,
		    "contiguous_c(3 Gi bytes): size %lld lb %lld extent %lld", (long long)sz,
		    (long long)lb, (long long)ext);
	MPI_Type_vector_c(3, 1LL << 30, 3LL << 30, MPI_BYTE, &b);
	MPI_Type_commit(&b);
	MPI_Type_size_c(b, &sz);
	MPI_Type_get_extent_c(b, &lb, &ext);
	mtest_check(sz == 3LL << 30 && ext == (2LL * (3LL << 30)) + (1LL << 30),
		    "vector_c(3, 1 Gi, 3 Gi): size %lld extent %lld", (long long)sz,
		    (long long)ext);
	free_pair(&a, &b);

	/* errors: a negative length, NULL arrays */
	mtest_check(MPI_Type_create_hindexed_c(2, (MPI_Count[]){ 1, -1 }, cdb, MPI_INT, &a) !=
		    MPI_SUCCESS, "a negative block length accepted");
	mtest_check(MPI_Type_indexed_c(2, NULL, cd, MPI_INT, &a) != MPI_SUCCESS,
		    "NULL block lengths accepted");
	return mtest_finalize();
}
