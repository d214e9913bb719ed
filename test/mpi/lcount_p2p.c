/* SPDX-License-Identifier: MIT */
/*
 * The MPI-4.0 large-count (_c) point-to-point forms beyond the basic ones
 * (largecount.c): Sendrecv_c, Sendrecv_replace_c (predefined and derived
 * types), Bsend_c, Ibsend_c, Buffer_attach_c/detach_c, the persistent
 * Send/Ssend/Rsend/Bsend/Recv_init_c restarted several times,
 * Mrecv_c/Imrecv_c (also into a derived type) and Op_create_c through
 * MPI_Reduce_local_c. Every received byte is checked. Counts here are
 * small; messages above 2^31 bytes are lcount_big.c's. Also checks
 * that MPI_Buffer_detach (int) refuses a buffer whose size does not fit
 * an int, and that MPI_Buffer_detach_c then takes it back.
 */
#include "mtest.h"

#define N 4099   /* odd, not a power of two */
#define ROUNDS 7

static int val(int from, int round, int i)
{
	return from * 1000003 + round * 7919 + i;
}

static void fill(int *a, int n, int from, int round)
{
	for (int i = 0; i < n; i++)
		a[i] = val(from, round, i);
}

static int check(const int *a, int n, int from, int round, const char *what)
{
	for (int i = 0; i < n; i++)
		if (!mtest_check(a[i] == val(from, round, i), "%s: [%d] = %d, expected %d", what, i,
				 a[i], val(from, round, i)))
			return 0;
	return 1;
}

static MPI_Count user_calls, user_len;

/* inout = in + inout, and records the length it was given */
static void add_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
	const int *a = in;
	int *b = inout;

	user_calls++;
	user_len = *len;
	if (*dt != MPI_INT)
		return;
	for (MPI_Count i = 0; i < *len; i++)
		b[i] += a[i];
}

int main(int argc, char **argv)
{
	static int a[N], b[N], c[2 * N];
	MPI_Count cnt = -1;
	MPI_Datatype vec;
	MPI_Request req, reqs[2];
	MPI_Message msg;
	MPI_Status st;
	MPI_Op op;
	int me, other, round, err, flag;

	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		if (mtest_rank == 0)
			printf("lcount_p2p: needs 2 ranks\n");
		MPI_Finalize();
		return 77;
	}
	me = mtest_rank;
	other = 1 - me;

	/* Sendrecv_c both ways at once */
	fill(a, N, me, 0);
	memset(b, 0, sizeof(b));
	MPI_Sendrecv_c(a, (MPI_Count)N, MPI_INT, other, 1, b, (MPI_Count)N, MPI_INT, other, 1,
		       MPI_COMM_WORLD, &st);
	check(b, N, other, 0, "Sendrecv_c");
	MPI_Get_count_c(&st, MPI_INT, &cnt);
	mtest_check(cnt == N && st.MPI_SOURCE == other && st.MPI_TAG == 1,
		    "Sendrecv_c status: count %lld source %d tag %d", (long long)cnt, st.MPI_SOURCE,
		    st.MPI_TAG);

	/* Sendrecv_replace_c: predefined, then a derived vector (every other int) */
	fill(a, N, me, 1);
	MPI_Sendrecv_replace_c(a, (MPI_Count)N, MPI_INT, other, 2, other, 2, MPI_COMM_WORLD, &st);
	check(a, N, other, 1, "Sendrecv_replace_c");
	MPI_Type_vector_c(N, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	for (int i = 0; i < 2 * N; i++)
		c[i] = i % 2 ? -7 : val(me, 2, i / 2);
	MPI_Sendrecv_replace_c(c, (MPI_Count)1, vec, other, 3, other, 3, MPI_COMM_WORLD, &st);
	for (int i = 0; i < 2 * N; i++)
		if (!mtest_check(c[i] == (i % 2 ? -7 : val(other, 2, i / 2)),
				 "Sendrecv_replace_c(vector) c[%d] = %d", i, c[i]))
			break;
	MPI_Get_elements_c(&st, MPI_INT, &cnt);
	mtest_check(cnt == N, "Get_elements_c after the vector: %lld", (long long)cnt);

	/* buffered: attach_c, Bsend_c, Ibsend_c, detach_c */
	{
		MPI_Count bsize = 3 * (N * sizeof(int) + MPI_BSEND_OVERHEAD), got = 0;
		void *bbuf = malloc(bsize), *back = NULL;

		MPI_Buffer_attach_c(bbuf, bsize);
		fill(a, N, me, 3);
		MPI_Bsend_c(a, (MPI_Count)N, MPI_INT, other, 4, MPI_COMM_WORLD);
		fill(a, N, me, 4);   /* the buffered copy went out, not this */
		MPI_Ibsend_c(a, (MPI_Count)N, MPI_INT, other, 5, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		MPI_Recv_c(b, (MPI_Count)N, MPI_INT, other, 4, MPI_COMM_WORLD, &st);
		check(b, N, other, 3, "Bsend_c");
		MPI_Recv_c(b, (MPI_Count)N, MPI_INT, other, 5, MPI_COMM_WORLD, &st);
		check(b, N, other, 4, "Ibsend_c");
		MPI_Buffer_detach_c(&back, &got);
		mtest_check(back == bbuf && got == bsize, "Buffer_detach_c gave %p %lld", back,
			    (long long)got);
		free(bbuf);
	}

	/* a buffer whose size does not fit an int: the int detach refuses it
	 * (attaching only records it; nothing is sent, so the memory is never
	 * touched and need not exist: reserve the address range only) */
	{
		MPI_Count huge = (MPI_Count)3 << 30, got = 0;
		char big_stub[16];
		void *back = NULL;
		int isize = -1;

		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		MPI_Buffer_attach_c(big_stub, huge);
		err = MPI_Buffer_detach(&back, &isize);
		mtest_check(err != MPI_SUCCESS, "MPI_Buffer_detach of a %lld-byte buffer succeeded"
			    " (size %d)", (long long)huge, isize);
		if (err != MPI_SUCCESS) {
			int cls;

			MPI_Error_class(err, &cls);
			mtest_check(cls == MPI_ERR_BUFFER, "detach error class %d", cls);
		}
		err = MPI_Buffer_detach_c(&back, &got);
		mtest_check(err == MPI_SUCCESS && got == huge && back == big_stub,
			    "Buffer_detach_c: err %d size %lld", err, (long long)got);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	}

	/* persistent _c forms, restarted ROUNDS times; the receiver's
	 * Recv_init_c is started before the partner's ready send may go */
	{
		MPI_Count bsize = ROUNDS * (N * sizeof(int) + MPI_BSEND_OVERHEAD), got;
		void *bbuf = malloc(bsize), *back;
		MPI_Request sreq[4], rreq;
		int modes, m;

		MPI_Buffer_attach_c(bbuf, bsize);
		MPI_Send_init_c(a, (MPI_Count)N, MPI_INT, other, 10, MPI_COMM_WORLD, &sreq[0]);
		MPI_Ssend_init_c(a, (MPI_Count)N, MPI_INT, other, 11, MPI_COMM_WORLD, &sreq[1]);
		MPI_Rsend_init_c(a, (MPI_Count)N, MPI_INT, other, 12, MPI_COMM_WORLD, &sreq[2]);
		MPI_Bsend_init_c(a, (MPI_Count)N, MPI_INT, other, 13, MPI_COMM_WORLD, &sreq[3]);
		modes = 4;
		for (round = 0; round < ROUNDS; round++) {
			for (m = 0; m < modes; m++) {
				/* rank 1 receives first, rank 0 sends, in each mode */
				if (me == 1) {
					MPI_Recv_init_c(b, (MPI_Count)N, MPI_INT, 0, 10 + m,
							MPI_COMM_WORLD, &rreq);
					memset(b, 0, sizeof(b));
					MPI_Start(&rreq);
					/* tell rank 0 the receive is posted (ready mode) */
					MPI_Send(&m, 1, MPI_INT, 0, 20, MPI_COMM_WORLD);
					MPI_Wait(&rreq, &st);
					check(b, N, 0, round * 10 + m, "persistent _c");
					MPI_Get_count_c(&st, MPI_INT, &cnt);
					mtest_check(cnt == N, "persistent count %lld", (long long)cnt);
					MPI_Request_free(&rreq);
				} else {
					int go;

					MPI_Recv(&go, 1, MPI_INT, 1, 20, MPI_COMM_WORLD,
						 MPI_STATUS_IGNORE);
					fill(a, N, 0, round * 10 + m);
					MPI_Start(&sreq[m]);
					MPI_Wait(&sreq[m], MPI_STATUS_IGNORE);
				}
			}
		}
		for (m = 0; m < modes; m++)
			MPI_Request_free(&sreq[m]);
		MPI_Buffer_detach_c(&back, &got);
		free(bbuf);
	}

	/* matched probe and Mrecv_c / Imrecv_c (the second into a vector) */
	fill(a, N, me, 5);
	MPI_Isend_c(a, (MPI_Count)N, MPI_INT, other, 30, MPI_COMM_WORLD, &reqs[0]);
	MPI_Isend_c(a, (MPI_Count)N, MPI_INT, other, 31, MPI_COMM_WORLD, &reqs[1]);
	MPI_Mprobe(other, 30, MPI_COMM_WORLD, &msg, &st);
	memset(b, 0, sizeof(b));
	MPI_Mrecv_c(b, (MPI_Count)N, MPI_INT, &msg, &st);
	check(b, N, other, 5, "Mrecv_c");
	flag = 0;
	for (int spins = 0; !flag && spins < 20000000; spins++)
		MPI_Improbe(other, 31, MPI_COMM_WORLD, &flag, &msg, &st);
	mtest_check(flag, "Improbe never found tag 31");
	if (flag) {
		for (int i = 0; i < 2 * N; i++)
			c[i] = -9;
		MPI_Imrecv_c(c, (MPI_Count)1, vec, &msg, &req);
		MPI_Wait(&req, &st);
		for (int i = 0; i < 2 * N; i++)
			if (!mtest_check(c[i] == (i % 2 ? -9 : val(other, 5, i / 2)),
					 "Imrecv_c(vector) c[%d] = %d", i, c[i]))
				break;
	}
	MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
	MPI_Type_free(&vec);

	/* types above 2^31 bytes (no memory behind them): sizes and extents
	 * through the _c queries, MPI_UNDEFINED through the int ones */
	{
		MPI_Count g = (MPI_Count)3 << 30, sz = 0, lb = -1, ext = 0, psz = 0;
		MPI_Count h = ((MPI_Count)1 << 31) + 1;
		MPI_Datatype big, big2;
		int isz = 0;

		MPI_Type_contiguous_c(g, MPI_BYTE, &big);
		MPI_Type_commit(&big);
		MPI_Type_size_c(big, &sz);
		MPI_Type_size(big, &isz);
		MPI_Type_get_extent_c(big, &lb, &ext);
		MPI_Pack_size_c(2, big, MPI_COMM_WORLD, &psz);
		mtest_check(sz == g && ext == g && lb == 0 && isz == MPI_UNDEFINED && psz >= 2 * g,
			    "contiguous_c(3 GiB): size_c %lld, size %d, lb %lld, extent %lld,"
			    " pack_size_c(2) %lld", (long long)sz, isz, (long long)lb,
			    (long long)ext, (long long)psz);
		MPI_Type_vector_c(h, 1, 2, MPI_CHAR, &big2);
		MPI_Type_commit(&big2);
		MPI_Type_size_c(big2, &sz);
		MPI_Type_get_extent_c(big2, &lb, &ext);
		mtest_check(sz == h && ext == 2 * h - 1, "vector_c(2^31+1, 1, 2): size %lld extent %lld",
			    (long long)sz, (long long)ext);
		MPI_Type_free(&big);
		MPI_Type_free(&big2);
	}

	/* Op_create_c: one call with the whole MPI_Count length */
	MPI_Op_create_c(add_c, 1, &op);
	fill(a, N, me, 6);
	fill(b, N, me, 7);
	MPI_Reduce_local_c(a, b, (MPI_Count)N, MPI_INT, op);
	mtest_check(user_calls == 1 && user_len == N, "user function: %lld calls, len %lld",
		    (long long)user_calls, (long long)user_len);
	for (int i = 0; i < N; i++)
		if (!mtest_check(b[i] == val(me, 6, i) + val(me, 7, i), "Op_create_c b[%d] = %d", i,
				 b[i]))
			break;
	MPI_Op_free(&op);

	mtest_finalize();
	return 0;
}
