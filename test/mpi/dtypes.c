/* SPDX-License-Identifier: MIT */
/*
 * Derived datatypes (issue 4): every constructor's size, bounds and true
 * bounds against values worked out by hand from MPI-3.1 4.1; envelope and
 * contents; MPI_Pack/MPI_Unpack against the typemap; and transfers between
 * ranks 0 and 1 with derived types on one side or both: blocking,
 * nonblocking, persistent, Sendrecv(_replace), Mrecv, Bsend, rendezvous
 * sizes, a short message into a larger type (MPI_Get_elements), MPI_PACKED
 * against typed data, pair types against an equal struct, a type freed
 * while a receive with it is pending, and an uncommitted type refused.
 * Large MPI_Pack and MPI_Unpack calls (which stream their output past
 * the cache, mpi/datatype/dtype_pack.c) are checked byte by byte for blocks of
 * odd and even lengths at odd addresses.
 */
#include "mtest.h"

#include <stddef.h>

struct ints_double {
	int v[6];
	double d;
};

struct ext_mix {
	int i;
	double d;
	short s;
};

struct double_int {
	double d;
	int i;
};

static void check_type(const char *what, MPI_Datatype t, MPI_Count size, MPI_Aint lb,
		       MPI_Aint extent, MPI_Aint tlb, MPI_Aint textent)
{
	MPI_Count sz;
	MPI_Aint l, e;

	MPI_Type_size_x(t, &sz);
	if (sz != size)
		mtest_error("%s: size %lld, expected %lld", what, (long long)sz, (long long)size);
	MPI_Type_get_extent(t, &l, &e);
	if (l != lb || e != extent)
		mtest_error("%s: lb %ld extent %ld, expected %ld %ld", what, (long)l, (long)e,
			    (long)lb, (long)extent);
	MPI_Type_get_true_extent(t, &l, &e);
	if (l != tlb || e != textent)
		mtest_error("%s: true lb %ld extent %ld, expected %ld %ld", what, (long)l, (long)e,
			    (long)tlb, (long)textent);
}

/* Pack one instance of t over ints 0, 1, 2, ... and compare with want. */
static void check_pack_ints(const char *what, MPI_Datatype t, int count, MPI_Aint base,
			    const int *want, int n)
{
	int src[256], out[256], back[256], pos = 0, psize, i;

	for (i = 0; i < 256; i++)
		src[i] = i;
	MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize);
	if (psize != n * (int)sizeof(int))
		mtest_error("%s: pack size %d, expected %d", what, psize, n * (int)sizeof(int));
	MPI_Pack((char *)src + base, count, t, out, (int)sizeof(out), &pos, MPI_COMM_WORLD);
	if (pos != n * (int)sizeof(int))
		mtest_error("%s: packed %d bytes, expected %d", what, pos, n * (int)sizeof(int));
	for (i = 0; i < n; i++)
		if (out[i] != want[i]) {
			mtest_error("%s: packed int %d is %d, expected %d", what, i, out[i], want[i]);
			break;
		}
	memset(back, 0xff, sizeof(back));
	pos = 0;
	MPI_Unpack(out, (int)sizeof(out), &pos, (char *)back + base, count, t, MPI_COMM_WORLD);
	for (i = 0; i < n; i++)
		if (back[want[i]] != want[i])
			mtest_error("%s: unpacked int at %d is %d", what, want[i], back[want[i]]);
	for (i = 0, pos = 0; i < 256; i++) {
		int j, hit = 0;

		for (j = 0; j < n; j++)
			hit |= want[j] == i;
		if (!hit && back[i] != -1)
			pos++;
	}
	if (pos)
		mtest_error("%s: unpack wrote %d ints outside the typemap", what, pos);
}

static void local_checks(void)
{
	MPI_Datatype vec, hvec, idx, neg, st, rs, cv, sub, subf, ib, dup;
	int bl[3] = { 2, 1, 3 }, disp[3] = { 0, 5, 8 }, ni, na, nd, comb;
	int ints[8];
	MPI_Aint aints[4];
	MPI_Datatype types[2];

	MPI_Type_vector(4, 2, 3, MPI_INT, &vec);
	check_type("vector(4,2,3,int)", vec, 32, 0, 44, 0, 44);
	{
		const int want[] = { 0, 1, 3, 4, 6, 7, 9, 10 };

		MPI_Type_commit(&vec);
		check_pack_ints("vector", vec, 1, 0, want, 8);
	}
	MPI_Type_get_envelope(vec, &ni, &na, &nd, &comb);
	if (comb != MPI_COMBINER_VECTOR || ni != 3 || na != 0 || nd != 1)
		mtest_error("vector envelope: combiner %d, %d ints, %d addresses, %d types", comb,
			    ni, na, nd);
	MPI_Type_get_contents(vec, 3, 0, 1, ints, aints, types);
	if (ints[0] != 4 || ints[1] != 2 || ints[2] != 3 || types[0] != MPI_INT)
		mtest_error("vector contents: %d %d %d", ints[0], ints[1], ints[2]);

	MPI_Type_create_hvector(3, 1, 16, MPI_DOUBLE, &hvec);
	check_type("hvector(3,1,16B,double)", hvec, 24, 0, 40, 0, 40);

	MPI_Type_indexed(3, bl, disp, MPI_INT, &idx);
	check_type("indexed({2,1,3},{0,5,8},int)", idx, 24, 0, 44, 0, 44);
	{
		const int want[] = { 0, 1, 5, 8, 9, 10, 11, 12, 16, 19, 20, 21 };

		MPI_Type_commit(&idx);
		check_pack_ints("indexed x2", idx, 2, 0, want, 12);
	}
	{
		int b2[2] = { 1, 1 }, d2[2] = { 4, -2 };

		MPI_Type_indexed(2, b2, d2, MPI_INT, &neg);
		check_type("indexed negative", neg, 8, -8, 28, -8, 28);
		{
			const int want[] = { 12, 6 };

			MPI_Type_commit(&neg);
			check_pack_ints("indexed negative", neg, 1, 8 * sizeof(int), want, 2);
		}
	}
	{
		int b2[2] = { 1, 1 };
		MPI_Aint d2[2] = { 0, 8 };
		MPI_Datatype t2[2] = { MPI_DOUBLE, MPI_CHAR };

		MPI_Type_create_struct(2, b2, d2, t2, &st);
		/* padded to the double's alignment, as C pads the struct */
		check_type("struct{double,char}", st, 9, 0, 16, 0, 9);
	}
	MPI_Type_create_resized(MPI_INT, -4, 12, &rs);
	check_type("resized(int,-4,12)", rs, 4, -4, 12, 0, 4);
	MPI_Type_contiguous(2, vec, &cv);
	check_type("contiguous(2,vector)", cv, 64, 0, 88, 0, 88);
	{
		const int want[] = { 0, 1, 3, 4, 6, 7, 9, 10, 11, 12, 14, 15, 17, 18, 20, 21 };

		MPI_Type_commit(&cv);
		check_pack_ints("contiguous(2,vector)", cv, 1, 0, want, 16);
	}
	{
		int sizes[2] = { 4, 5 }, subs[2] = { 2, 3 }, starts[2] = { 1, 2 };

		MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
		check_type("subarray C", sub, 24, 0, 80, 28, 32);
		{
			const int want[] = { 7, 8, 9, 12, 13, 14 };

			MPI_Type_commit(&sub);
			check_pack_ints("subarray C", sub, 1, 0, want, 6);
		}
		MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &subf);
		check_type("subarray Fortran", subf, 24, 0, 80, 36, 40);
		{
			const int want[] = { 9, 10, 13, 14, 17, 18 };

			MPI_Type_commit(&subf);
			check_pack_ints("subarray Fortran", subf, 1, 0, want, 6);
		}
	}
	{
		int d3[3] = { 6, 0, 3 };

		MPI_Type_create_indexed_block(3, 2, d3, MPI_INT, &ib);
		check_type("indexed_block", ib, 24, 0, 32, 0, 32);
		{
			const int want[] = { 6, 7, 0, 1, 3, 4 };

			MPI_Type_commit(&ib);
			check_pack_ints("indexed_block (typemap order)", ib, 1, 0, want, 6);
		}
	}
	MPI_Type_dup(vec, &dup);
	check_type("dup(vector)", dup, 32, 0, 44, 0, 44);
	MPI_Type_get_envelope(dup, &ni, &na, &nd, &comb);
	if (comb != MPI_COMBINER_DUP || nd != 1)
		mtest_error("dup envelope: combiner %d, %d types", comb, nd);
	MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
	if (comb != MPI_COMBINER_NAMED)
		mtest_error("MPI_INT envelope: combiner %d", comb);
	{
		MPI_Datatype m;

		MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m);
		if (m != MPI_REAL8)
			mtest_error("match_size(REAL, 8) is not MPI_REAL8");
	}
	{
		char name[MPI_MAX_OBJECT_NAME];
		int len;

		MPI_Type_set_name(vec, "my vector");
		MPI_Type_get_name(vec, name, &len);
		if (strcmp(name, "my vector") != 0)
			mtest_error("type name '%s'", name);
	}
	MPI_Type_free(&hvec);
	MPI_Type_free(&idx);
	MPI_Type_free(&neg);
	MPI_Type_free(&st);
	MPI_Type_free(&rs);
	MPI_Type_free(&cv);
	MPI_Type_free(&sub);
	MPI_Type_free(&subf);
	MPI_Type_free(&ib);
	MPI_Type_free(&dup);
	if (vec == MPI_DATATYPE_NULL)
		mtest_error("handle freed early");
	MPI_Type_free(&vec);
	if (vec != MPI_DATATYPE_NULL)
		mtest_error("MPI_Type_free did not reset the handle");
}

/* Darray: a 4x6 int array on a 2x2 grid, block rows and cyclic(2)
 * columns; each process's elements, in C order. */
static void darray_checks(void)
{
	int gs[2] = { 4, 6 }, ds[2] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC };
	int da[2] = { MPI_DISTRIBUTE_DFLT_DARG, 2 }, ps[2] = { 2, 2 }, r;
	/* rank 0: rows 0-1, cols 0,1,4,5; rank 1: rows 0-1, cols 2,3;
	 * rank 2: rows 2-3, cols 0,1,4,5; rank 3: rows 2-3, cols 2,3 */
	static const int want[4][8] = {
		{ 0, 1, 4, 5, 6, 7, 10, 11 }, { 2, 3, 8, 9 },
		{ 12, 13, 16, 17, 18, 19, 22, 23 }, { 14, 15, 20, 21 } };
	static const int nwant[4] = { 8, 4, 8, 4 };

	for (r = 0; r < 4; r++) {
		MPI_Datatype t;
		char what[32];

		MPI_Type_create_darray(4, r, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &t);
		MPI_Type_commit(&t);
		snprintf(what, sizeof(what), "darray rank %d", r);
		check_pack_ints(what, t, 1, 0, want[r], nwant[r]);
		{
			MPI_Aint lb, ext;

			MPI_Type_get_extent(t, &lb, &ext);
			if (lb != 0 || ext != 24 * (MPI_Aint)sizeof(int))
				mtest_error("%s: lb %ld extent %ld", what, (long)lb, (long)ext);
		}
		MPI_Type_free(&t);
	}
}

/* The f90 types and external32: sizes, byte patterns the standard fixes,
 * and round trips. */
static void ext32_checks(void)
{
	MPI_Datatype r8, i4, cx;
	int ni, na, nd, comb, ints[2];
	MPI_Aint sz, pos = 0;
	unsigned char buf[64];
	struct ext_mix in = { 0x01020304, 1.0, 0x0a0b }, out;
	int b3[3] = { 1, 1, 1 };
	MPI_Aint d3[3] = { offsetof(struct ext_mix, i), offsetof(struct ext_mix, d),
			   offsetof(struct ext_mix, s) };
	MPI_Datatype t3[3] = { MPI_INT, MPI_DOUBLE, MPI_SHORT }, st;
	static const unsigned char want[] = { 1, 2, 3, 4, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0,
					      0x0a, 0x0b };

	MPI_Type_create_f90_real(15, MPI_UNDEFINED, &r8);
	MPI_Type_size_x(r8, &(MPI_Count){ 0 });
	MPI_Type_get_envelope(r8, &ni, &na, &nd, &comb);
	if (comb != MPI_COMBINER_F90_REAL || ni != 2)
		mtest_error("f90 real envelope: combiner %d, %d ints", comb, ni);
	MPI_Type_get_contents(r8, 2, 0, 0, ints, NULL, NULL);
	if (ints[0] != 15 || ints[1] != MPI_UNDEFINED)
		mtest_error("f90 real contents %d %d", ints[0], ints[1]);
	{
		int s1, s2, s3;

		MPI_Type_size(r8, &s1);
		MPI_Type_create_f90_integer(9, &i4);
		MPI_Type_size(i4, &s2);
		MPI_Type_create_f90_complex(6, 30, &cx);
		MPI_Type_size(cx, &s3);
		if (s1 != 8 || s2 != 4 || s3 != 8)
			mtest_error("f90 sizes: real(15) %d, integer(9) %d, complex(6,30) %d", s1,
				    s2, s3);
	}
	{
		/* the f90 types are predefined: committing one (as mpi4py does
		 * with every type it hands out) is allowed and does nothing,
		 * as committing MPI_INT or a pair type is */
		MPI_Datatype f90[3] = { r8, i4, cx }, pre[2] = { MPI_INT, MPI_DOUBLE_INT };
		int k, rc, s;

		MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
		for (k = 0; k < 3; k++) {
			rc = MPI_Type_commit(&f90[k]);
			if (rc != MPI_SUCCESS || MPI_Type_size(f90[k], &s) != MPI_SUCCESS)
				mtest_error("MPI_Type_commit of f90 type %d: error class %d", k,
					    mtest_errclass(rc));
		}
		for (k = 0; k < 2; k++)
			if ((rc = MPI_Type_commit(&pre[k])) != MPI_SUCCESS)
				mtest_error("MPI_Type_commit of predefined type %d: error class %d",
					    k, mtest_errclass(rc));
		MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	}

	/* MPICH 4.0.2 traps (SIGILL) in MPI_Pack_external_size on any struct
	 * type: this part runs on Michi only */
	if (!mtest_is_michi())
		goto basic;
	MPI_Type_create_struct(3, b3, d3, t3, &st);
	MPI_Type_commit(&st);
	MPI_Pack_external_size("external32", 1, st, &sz);
	if (sz != (MPI_Aint)sizeof(want))
		mtest_error("external32 size of {int,double,short}: %ld, expected %zu",
			    (long)sz, sizeof(want));
	MPI_Pack_external("external32", &in, 1, st, buf, (MPI_Aint)sizeof(buf), &pos);
	if (pos != (MPI_Aint)sizeof(want) || memcmp(buf, want, sizeof(want)) != 0)
		mtest_error("external32 bytes differ from the standard's representation");
	memset(&out, 0, sizeof(out));
	pos = 0;
	MPI_Unpack_external("external32", buf, (MPI_Aint)sizeof(buf), &pos, &out, 1, st);
	if (out.i != in.i || out.d != in.d || out.s != in.s)
		mtest_error("external32 round trip: %x %g %x", out.i, out.d, out.s);
	MPI_Type_free(&st);
basic:
	{
		/* C long is 4 bytes in external32, whatever it is here */
		long l[2] = { -2, 0x12345678 }, m[2];
		static const unsigned char wl[8] = { 0xff, 0xff, 0xff, 0xfe, 0x12, 0x34, 0x56, 0x78 };

		pos = 0;
		MPI_Pack_external("external32", l, 2, MPI_LONG, buf, (MPI_Aint)sizeof(buf), &pos);
		if (pos != 8 || memcmp(buf, wl, 8) != 0)
			mtest_error("external32 long: %ld bytes, %02x%02x%02x%02x", (long)pos,
				    buf[0], buf[1], buf[2], buf[3]);
		pos = 0;
		MPI_Unpack_external("external32", buf, 8, &pos, m, 2, MPI_LONG);
		if (m[0] != -2 || m[1] != 0x12345678)
			mtest_error("external32 long round trip: %ld %ld", m[0], m[1]);
	}
	{
		long double x[2] = { 1.5L, -3.25e-300L }, y[2];
		static const unsigned char q15[16] = { 0x3f, 0xff, 0x80 };

		pos = 0;
		MPI_Pack_external("external32", x, 2, MPI_LONG_DOUBLE, buf, (MPI_Aint)sizeof(buf),
				  &pos);
		/* 1.5 as IEEE binary128: 3fff 8000 0000 ... */
		if (pos != 32 || memcmp(buf, q15, 16) != 0)
			mtest_error("external32 long double: %ld bytes, %02x%02x %02x", (long)pos,
				    buf[0], buf[1], buf[2]);
		pos = 0;
		MPI_Unpack_external("external32", buf, 32, &pos, y, 2, MPI_LONG_DOUBLE);
		if (y[0] != x[0] || y[1] != x[1])
			mtest_error("external32 long double round trip");
	}
}

/* ---- transfers between ranks 0 and 1 ---------------------------------------- */

#define N 100000   /* doubles: the packed vector is 800 kB, a rendezvous */

static void transfers(void)
{
	MPI_Datatype strided, rstrided;
	MPI_Status s;
	double *a = malloc(2 * N * sizeof(double)), *b = malloc(2 * N * sizeof(double));
	int i, bad, peer = 1 - mtest_rank;

	MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &strided);
	MPI_Type_commit(&strided);
	for (i = 0; i < 2 * N; i++)
		a[i] = mtest_rank * 1e6 + i;

	/* blocking: strided out, contiguous in; then the reverse */
	if (mtest_rank == 0) {
		MPI_Send(a, 1, strided, 1, 1, MPI_COMM_WORLD);
		memset(b, 0, 2 * N * sizeof(double));
		MPI_Recv(b, 1, strided, 1, 2, MPI_COMM_WORLD, &s);
		for (i = 0, bad = 0; i < N; i++)
			bad += b[2 * i] != 1e6 + i || b[2 * i + 1] != 0;
		if (bad)
			mtest_error("contiguous into strided: %d wrong", bad);
	} else {
		int cnt;

		MPI_Recv(b, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &s);
		for (i = 0, bad = 0; i < N; i++)
			bad += b[i] != 2.0 * i;
		if (bad)
			mtest_error("strided into contiguous: %d wrong", bad);
		MPI_Get_count(&s, MPI_DOUBLE, &cnt);
		if (cnt != N)
			mtest_error("Get_count %d, expected %d", cnt, N);
		MPI_Send(a, N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
	}

	/* nonblocking both ways with derived types on both sides; the
	 * receive's type is freed while the receive is pending */
	{
		MPI_Request rq[2];
		MPI_Status st2[2];

		MPI_Type_dup(strided, &rstrided);
		memset(b, 0, 2 * N * sizeof(double));
		MPI_Irecv(b + 1, 1, rstrided, peer, 3, MPI_COMM_WORLD, &rq[0]);
		MPI_Type_free(&rstrided);
		MPI_Isend(a, 1, strided, peer, 3, MPI_COMM_WORLD, &rq[1]);
		MPI_Waitall(2, rq, st2);
		for (i = 0, bad = 0; i < N; i++)
			bad += b[2 * i + 1] != peer * 1e6 + 2.0 * i || b[2 * i] != 0;
		if (bad)
			mtest_error("Isend/Irecv strided both sides: %d wrong", bad);
	}

	/* Sendrecv and Sendrecv_replace with a derived type */
	memset(b, 0, 2 * N * sizeof(double));
	MPI_Sendrecv(a, 1, strided, peer, 4, b, N, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, &s);
	for (i = 0, bad = 0; i < N; i++)
		bad += b[i] != peer * 1e6 + 2.0 * i;
	if (bad)
		mtest_error("Sendrecv strided: %d wrong", bad);
	memcpy(b, a, 2 * N * sizeof(double));
	MPI_Sendrecv_replace(b, 1, strided, peer, 5, peer, 5, MPI_COMM_WORLD, &s);
	for (i = 0, bad = 0; i < N; i++)
		bad += b[2 * i] != peer * 1e6 + 2.0 * i || b[2 * i + 1] != a[2 * i + 1];
	if (bad)
		mtest_error("Sendrecv_replace strided: %d wrong", bad);

	/* persistent, started three times; Bsend; Ssend; Mprobe/Mrecv */
	{
		MPI_Request p;
		int k;

		if (mtest_rank == 0)
			MPI_Send_init(a, 1, strided, 1, 6, MPI_COMM_WORLD, &p);
		else
			MPI_Recv_init(b, 1, strided, 0, 6, MPI_COMM_WORLD, &p);
		for (k = 0; k < 3; k++) {
			if (mtest_rank == 0)
				a[0] = k;
			else
				memset(b, 0, 2 * N * sizeof(double));
			MPI_Start(&p);
			MPI_Wait(&p, &s);
			if (mtest_rank == 1) {
				for (i = 1, bad = b[0] != k; i < N; i++)
					bad += b[2 * i] != 2.0 * i || b[2 * i + 1] != 0;
				if (bad)
					mtest_error("persistent start %d: %d wrong", k, bad);
			}
		}
		a[0] = 0;
		MPI_Request_free(&p);
	}
	{
		int bsize = (int)(N * sizeof(double)) + MPI_BSEND_OVERHEAD;
		void *buf = malloc((size_t)bsize);
		MPI_Message msg;

		if (mtest_rank == 0) {
			MPI_Buffer_attach(buf, bsize);
			MPI_Bsend(a, 1, strided, 1, 7, MPI_COMM_WORLD);
			MPI_Buffer_detach(&buf, &bsize);
			MPI_Ssend(a, 1, strided, 1, 8, MPI_COMM_WORLD);
		} else {
			memset(b, 0, 2 * N * sizeof(double));
			MPI_Recv(b, N, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, &s);
			for (i = 0, bad = 0; i < N; i++)
				bad += b[i] != 2.0 * i;
			if (bad)
				mtest_error("Bsend strided: %d wrong", bad);
			MPI_Mprobe(0, 8, MPI_COMM_WORLD, &msg, &s);
			memset(b, 0, 2 * N * sizeof(double));
			MPI_Mrecv(b, 1, strided, &msg, &s);
			for (i = 0, bad = 0; i < N; i++)
				bad += b[2 * i] != 2.0 * i || b[2 * i + 1] != 0;
			if (bad)
				mtest_error("Ssend/Mrecv strided: %d wrong", bad);
		}
		free(buf);
	}

	/* a short message into a larger type: elements, not count */
	if (mtest_rank == 0) {
		int v[5] = { 1, 2, 3, 4, 5 };

		MPI_Send(v, 5, MPI_INT, 1, 9, MPI_COMM_WORLD);
	} else {
		MPI_Datatype vi;
		int v[16] = { 0 }, cnt, el;

		MPI_Type_vector(4, 2, 4, MPI_INT, &vi);
		MPI_Type_commit(&vi);
		MPI_Recv(v, 1, vi, 0, 9, MPI_COMM_WORLD, &s);
		MPI_Get_count(&s, vi, &cnt);
		MPI_Get_elements(&s, vi, &el);
		if (cnt != MPI_UNDEFINED || el != 5)
			mtest_error("short message: count %d (want MPI_UNDEFINED), elements %d "
				    "(want 5)", cnt, el);
		if (v[0] != 1 || v[1] != 2 || v[4] != 3 || v[5] != 4 || v[8] != 5 || v[2] ||
		    v[9])
			mtest_error("short message landed wrong: %d %d %d %d %d", v[0], v[1], v[4],
				    v[5], v[8]);
		MPI_Type_free(&vi);
	}

	/* MPI_PACKED out, typed in */
	if (mtest_rank == 0) {
		char pk[64];
		int pos = 0, v[6] = { 10, 11, 12, 13, 14, 15 };
		double d = 2.5;

		MPI_Pack(v, 6, MPI_INT, pk, (int)sizeof(pk), &pos, MPI_COMM_WORLD);
		MPI_Pack(&d, 1, MPI_DOUBLE, pk, (int)sizeof(pk), &pos, MPI_COMM_WORLD);
		MPI_Send(pk, pos, MPI_PACKED, 1, 10, MPI_COMM_WORLD);
	} else {
		struct ints_double in;
		int b2[2] = { 6, 1 };
		MPI_Aint d2[2] = { 0, offsetof(struct ints_double, d) };
		MPI_Datatype t2[2] = { MPI_INT, MPI_DOUBLE }, st;

		MPI_Type_create_struct(2, b2, d2, t2, &st);
		MPI_Type_commit(&st);
		memset(&in, 0, sizeof(in));
		MPI_Recv(&in, 1, st, 0, 10, MPI_COMM_WORLD, &s);
		if (in.v[0] != 10 || in.v[5] != 15 || in.d != 2.5)
			mtest_error("MPI_PACKED into a struct: %d %d %g", in.v[0], in.v[5], in.d);
		MPI_Type_free(&st);
	}

	/* a pair type against the equal struct */
	{
		struct double_int p[3], q[3];
		int b2[2] = { 1, 1 }, el;
		MPI_Aint d2[2] = { 0, offsetof(struct double_int, i) };
		MPI_Datatype t2[2] = { MPI_DOUBLE, MPI_INT }, st;

		MPI_Type_create_struct(2, b2, d2, t2, &st);
		MPI_Type_commit(&st);
		for (i = 0; i < 3; i++) {
			p[i].d = 0.5 + i;
			p[i].i = 7 * i;
		}
		memset(q, 0, sizeof(q));
		if (mtest_rank == 0) {
			MPI_Send(p, 3, MPI_DOUBLE_INT, 1, 11, MPI_COMM_WORLD);
			MPI_Recv(q, 3, MPI_DOUBLE_INT, 1, 12, MPI_COMM_WORLD, &s);
		} else {
			MPI_Recv(q, 3, st, 0, 11, MPI_COMM_WORLD, &s);
			MPI_Send(q, 3, st, 0, 12, MPI_COMM_WORLD);
		}
		for (i = 0, bad = 0; i < 3; i++)
			bad += q[i].d != 0.5 + i || q[i].i != 7 * i;
		if (bad)
			mtest_error("MPI_DOUBLE_INT against struct{double,int}: %d wrong", bad);
		MPI_Get_elements(&s, MPI_DOUBLE_INT, &el);
		if (el != 6)
			mtest_error("Get_elements(MPI_DOUBLE_INT) %d, expected 6", el);
		MPI_Type_free(&st);
	}

	/* an uncommitted type is refused with MPI_ERR_TYPE, and MPI goes on */
	{
		MPI_Datatype u;
		int err, cls;

		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		MPI_Type_contiguous(2, MPI_INT, &u);
		err = MPI_Send(a, 1, u, peer, 13, MPI_COMM_WORLD);
		MPI_Error_class(err, &cls);
		if (cls != MPI_ERR_TYPE)
			mtest_error("send with an uncommitted type: class %d, want MPI_ERR_TYPE", cls);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
		MPI_Type_free(&u);
	}
	MPI_Type_free(&strided);
	free(a);
	free(b);
}

/* Collectives with derived types: a broadcast of a strided type; sum
 * reductions over derived types refused as the standard says. */
static void coll_checks(void)
{
	MPI_Datatype v, c3;
	int a[12], r[12], i, k, bad = 0, root = mtest_size - 1;
	double d[6], e[6];

	MPI_Type_vector(3, 2, 4, MPI_INT, &v);   /* ints 0,1,4,5,8,9 */
	MPI_Type_commit(&v);
	MPI_Type_contiguous(3, MPI_DOUBLE, &c3);
	MPI_Type_commit(&c3);
	for (i = 0; i < 12; i++)
		a[i] = mtest_rank == root ? 100 + i : -1;
	MPI_Bcast(a, 1, v, root, MPI_COMM_WORLD);
	for (i = 0; i < 12; i++) {
		int in = (i % 4) < 2;

		if (a[i] != (in || mtest_rank == root ? 100 + i : -1))
			bad++;
	}
	if (bad)
		mtest_error("Bcast of vector(3,2,4,int): %d wrong", bad);
	/* predefined ops are defined on predefined types only (MPI-3.1
	 * 5.9.2): a reduction over a derived type fails with MPI_ERR_OP, as in
	 * MPICH and Open MPI, and MPI goes on */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (k = 0; k < 2; k++) {
		int err, cls;

		for (i = 0; i < 6; i++)
			d[i] = i;
		err = k ? MPI_Allreduce(d, e, 2, c3, MPI_SUM, MPI_COMM_WORLD)
			: MPI_Allreduce(a, r, 1, v, MPI_SUM, MPI_COMM_WORLD);
		MPI_Error_class(err, &cls);
		if (cls != MPI_ERR_OP)
			mtest_error("MPI_SUM over a %s derived type: class %d, want MPI_ERR_OP",
				    k ? "contiguous" : "strided", cls);
	}
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Allreduce(&mtest_rank, &k, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (k != mtest_size * (mtest_size - 1) / 2)
		mtest_error("Allreduce after the refused ones: %d", k);
	MPI_Type_free(&v);
	MPI_Type_free(&c3);
}

/* MPI_Pack and MPI_Unpack of hvectors over 3 MiB of bytes: blocks of
 * each length at gaps of the same length, the typed side at an odd
 * offset and the packed side at an odd one and at an aligned one; the
 * packed bytes, the unpacked ones and the untouched gaps are all
 * checked. On the aligned pass 512 and 4096 take the prefetch into L2
 * of mpi/datatype/dtype_pack.c (blocks of at least 512 bytes, a multiple of 16);
 * 496, 511 and 1000 do not. */
static void large_pack_checks(void)
{
	static const int lens[] = { 1, 3, 8, 24, 64, 100, 256, 496, 511, 512, 1000, 4096,
				    65536 + 7 };
	const size_t span = 3 << 20;
	unsigned char *typed = malloc(span + 64), *packed = malloc(span + 64);
	unsigned char *back = malloc(span + 64);
	size_t i, k, b;

	if (!typed || !packed || !back)
		mtest_error("large pack: no memory");
	for (i = 0; i < span + 64; i++)
		typed[i] = (unsigned char)(i * 7 + i / 251);
	for (k = 0; k < 2 * sizeof(lens) / sizeof(lens[0]); k++) {
		/* each length with the packed side at an odd offset, then aligned */
		int len = lens[k % (sizeof(lens) / sizeof(lens[0]))];
		int at = k < sizeof(lens) / sizeof(lens[0]) ? 3 : 0;
		int n = (int)(span / (2 * (size_t)len)), pos = at, psize, bad = 0;
		MPI_Datatype t;

		MPI_Type_create_hvector(n, len, 2 * (MPI_Aint)len, MPI_BYTE, &t);
		MPI_Type_commit(&t);
		MPI_Pack_size(1, t, MPI_COMM_WORLD, &psize);
		if (psize < n * len)
			mtest_error("large pack %d: pack size %d < %d", len, psize, n * len);
		MPI_Pack(typed + 5, 1, t, packed, (int)span + 64, &pos, MPI_COMM_WORLD);
		if (pos != at + n * len)
			mtest_error("large pack %d: position %d, expected %d", len, pos, at + n * len);
		for (b = 0; b < (size_t)n * (size_t)len && bad < 5; b++)
			if (packed[at + b] != typed[5 + b / (size_t)len * 2 * (size_t)len +
						      b % (size_t)len]) {
				mtest_error("large pack %d: packed byte %zu wrong", len, b);
				bad++;
			}
		memset(back, 0xee, span + 64);
		pos = at;
		MPI_Unpack(packed, (int)span + 64, &pos, back + 1, 1, t, MPI_COMM_WORLD);
		if (pos != at + n * len)
			mtest_error("large unpack %d: position %d", len, pos);
		for (b = 0; b < (size_t)n * 2 * (size_t)len && bad < 10; b++) {
			int in_block = b % (2 * (size_t)len) < (size_t)len;
			unsigned char want = in_block ? typed[5 + b] : 0xee;

			if (back[1 + b] != want) {
				mtest_error("large unpack %d: byte %zu is %u, expected %u%s", len, b,
					    back[1 + b], want, in_block ? "" : " (a gap)");
				bad++;
			}
		}
		if (back[0] != 0xee)
			mtest_error("large unpack %d: wrote before the buffer", len);
		MPI_Type_free(&t);
	}
	free(typed);
	free(packed);
	free(back);
}

/* Transfers large enough for huge-page staging (mpi/pt2pt/pt2pt_dt.c, 2 MiB and
 * up) and for its reuse: a strided type of 3 MiB packed, blocking, then
 * nonblocking both ways at once, then matched probe and receive, each
 * checked; three rounds reuse the kept buffers. */
static void large_transfers(void)
{
	const int n = 3 << 17;   /* doubles: 3 MiB packed */
	double *a = malloc(2 * (size_t)n * sizeof(double));
	double *b = malloc(2 * (size_t)n * sizeof(double));
	int i, bad, round, peer = 1 - mtest_rank;
	MPI_Datatype v;

	if (!a || !b)
		mtest_error("large transfers: no memory");
	MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v);
	MPI_Type_commit(&v);
	for (i = 0; i < 2 * n; i++)
		a[i] = mtest_rank * 1e7 + i;
	for (round = 0; round < 3; round++) {
		MPI_Request rq[2];
		MPI_Message msg;

		memset(b, 0, 2 * (size_t)n * sizeof(double));
		if (mtest_rank == 0)
			MPI_Send(a, 1, v, 1, 20, MPI_COMM_WORLD);
		else
			MPI_Recv(b, 1, v, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 0, bad = 0; mtest_rank == 1 && i < n; i++)
			bad += b[2 * i] != 2.0 * i || b[2 * i + 1] != 0;
		if (bad)
			mtest_error("large blocking strided, round %d: %d wrong", round, bad);

		memset(b, 0, 2 * (size_t)n * sizeof(double));
		MPI_Irecv(b, 1, v, peer, 21, MPI_COMM_WORLD, &rq[0]);
		MPI_Isend(a + 1, 1, v, peer, 21, MPI_COMM_WORLD, &rq[1]);
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
		for (i = 0, bad = 0; i < n; i++)
			bad += b[2 * i] != peer * 1e7 + 2.0 * i + 1 || b[2 * i + 1] != 0;
		if (bad)
			mtest_error("large nonblocking strided, round %d: %d wrong", round, bad);

		memset(b, 0, 2 * (size_t)n * sizeof(double));
		if (mtest_rank == 0) {
			MPI_Send(a, 1, v, 1, 22, MPI_COMM_WORLD);
		} else {
			MPI_Mprobe(0, 22, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
			MPI_Mrecv(b + 1, 1, v, &msg, MPI_STATUS_IGNORE);
			for (i = 0, bad = 0; i < n; i++)
				bad += b[2 * i + 1] != 2.0 * i || b[2 * i] != 0;
			if (bad)
				mtest_error("large Mrecv strided, round %d: %d wrong", round, bad);
		}
	}
	MPI_Type_free(&v);
	free(a);
	free(b);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	local_checks();
	darray_checks();
	ext32_checks();
	large_pack_checks();
	coll_checks();
	if (mtest_size >= 2 && mtest_rank < 2) {
		transfers();
		large_transfers();
	}
	return mtest_finalize();
}
