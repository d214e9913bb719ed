/* SPDX-License-Identifier: MIT */
/*
 * Real messages above 2^31 bytes (MPI-4.0 large counts), 2 ranks on one
 * host: 3 GiB of MPI_BYTE with MPI_Send_c/MPI_Recv_c (count 3 * 2^30),
 * then the same bytes sent with MPI_Isend_c into a derived type on the
 * receiver (a vector of 4000-byte blocks at a 4096-byte stride: the
 * library unpacks), MPI_Sendrecv_c, MPI_Pack_c/MPI_Unpack_c with
 * MPI_Count positions, and MPI_Reduce_local_c through an op from
 * MPI_Op_create_c whose function must be called once with the whole
 * count (2^31 + 7). Every byte is checked, and MPI_Get_count_c and
 * MPI_Get_elements_c must read the count above 2^31 from the status's
 * count_lo/count_hi fields, while MPI_Get_count (int) says MPI_UNDEFINED.
 *
 * It needs about 10 GiB of memory on the host: it exits 77 (skip) with
 * the reason when /proc/meminfo's MemAvailable is lower. Measured here:
 * 20 s user and 25 s system time; wall 115-166 s over shm and 291 s over
 * tcp loopback on a 2-core machine that ran other builds (load 16).
 */
#include "mtest.h"

#define GIB ((size_t)1 << 30)
#define BIG (3 * GIB)
#define BLK 4000
#define STRIDE 4096
#define NEED_KB (10UL << 20)   /* 10 GiB */

static unsigned char pat(size_t i, int salt)
{
	return (unsigned char)((i * 2654435761u >> 13) + (i >> 24) + salt);
}

static void fill(unsigned char *p, size_t n, int salt)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pat(i, salt);
}

static int check(const unsigned char *p, size_t n, int salt, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pat(i, salt)) {
			mtest_error("%s: byte %zu is %u, expected %u", what, i, p[i], pat(i, salt));
			return 0;
		}
	return 1;
}

static unsigned long mem_available_kb(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static MPI_Count xor_calls, xor_len;

static void xor_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
	const unsigned char *a = in;
	unsigned char *b = inout;

	xor_calls++;
	xor_len = *len;
	if (*dt != MPI_BYTE)
		return;
	for (MPI_Count i = 0; i < *len; i++)
		b[i] ^= a[i];
}

static void check_count(const MPI_Status *st, MPI_Count want, const char *what)
{
	MPI_Count c = -1, e = -1;
	int ic = 0;

	MPI_Get_count_c(st, MPI_BYTE, &c);
	MPI_Get_elements_c(st, MPI_BYTE, &e);
	MPI_Get_count(st, MPI_BYTE, &ic);
	mtest_check(c == want && e == want, "%s: Get_count_c %lld, Get_elements_c %lld, want %lld",
		    what, (long long)c, (long long)e, (long long)want);
	mtest_check(ic == MPI_UNDEFINED, "%s: MPI_Get_count (int) gave %d, not MPI_UNDEFINED",
		    what, ic);
	mtest_check(st->count_hi_and_cancelled >> 1 == (int)(want >> 32) &&
		    (unsigned)st->count_lo == (unsigned)want,
		    "%s: status count_lo 0x%x count_hi 0x%x", what, (unsigned)st->count_lo,
		    (unsigned)st->count_hi_and_cancelled >> 1);
}

int main(int argc, char **argv)
{
	unsigned char *buf = NULL, *buf2 = NULL;
	size_t nblk = BIG / BLK, vbytes = nblk * BLK;
	MPI_Datatype vec;
	MPI_Request req;
	MPI_Status st;
	double t0;
	int ok, all_ok, me;

	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		if (mtest_rank == 0)
			printf("lcount_big: needs 2 ranks\n");
		MPI_Finalize();
		return 77;
	}
	if (sizeof(size_t) < 8) {
		if (mtest_rank == 0)
			printf("lcount_big: needs a 64-bit address space\n");
		MPI_Finalize();
		return 77;
	}
	me = mtest_rank;
	t0 = MPI_Wtime();
	/* both ranks share the host: rank 0 decides for both */
	ok = me != 0 || mem_available_kb() >= NEED_KB;
	if (ok) {
		buf = malloc(me == 0 ? BIG : nblk * STRIDE);
		ok = buf != NULL;
	}
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all_ok) {
		if (me == 0)
			printf("lcount_big: MemAvailable %lu kB, needs %lu kB (3 GiB messages)\n",
			       mem_available_kb(), NEED_KB);
		free(buf);
		MPI_Finalize();
		return 77;
	}

	/* 1: 3 GiB of MPI_BYTE, count 3 * 2^30 */
	if (me == 0) {
		fill(buf, BIG, 1);
		MPI_Send_c(buf, (MPI_Count)BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
	} else {
		memset(buf, 0, BIG);
		MPI_Recv_c(buf, (MPI_Count)BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
		check_count(&st, (MPI_Count)BIG, "Recv_c 3 GiB");
		check(buf, BIG, 1, "Recv_c 3 GiB");
	}

	/* 2: the receiver's derived type spreads the same stream over blocks */
	MPI_Type_vector_c((MPI_Count)nblk, BLK, STRIDE, MPI_BYTE, &vec);
	MPI_Type_commit(&vec);
	if (me == 0) {
		fill(buf, vbytes, 2);
		MPI_Isend_c(buf, (MPI_Count)vbytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	} else {
		MPI_Irecv_c(buf, 1, vec, 0, 2, MPI_COMM_WORLD, &req);
		MPI_Wait(&req, &st);
		check_count(&st, (MPI_Count)vbytes, "Irecv_c into a vector");
		for (size_t k = 0; k < nblk; k++) {
			const unsigned char *p = buf + k * STRIDE;
			size_t base = k * BLK;
			size_t j;

			for (j = 0; j < BLK; j++)
				if (p[j] != pat(base + j, 2))
					break;
			if (j < BLK) {
				mtest_error("vector: block %zu byte %zu is %u, expected %u", k, j, p[j],
					    pat(base + j, 2));
				break;
			}
		}
	}
	MPI_Type_free(&vec);

	/* 3: Sendrecv_c, 2^31 + 5 bytes from rank 0 to rank 1 */
	{
		MPI_Count n = ((MPI_Count)1 << 31) + 5;

		if (me == 0) {
			fill(buf, (size_t)n, 3);
			MPI_Sendrecv_c(buf, n, MPI_BYTE, 1, 3, NULL, 0, MPI_BYTE, MPI_PROC_NULL, 3,
				       MPI_COMM_WORLD, &st);
		} else {
			MPI_Sendrecv_c(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 3, buf, n, MPI_BYTE, 0, 3,
				       MPI_COMM_WORLD, &st);
			check_count(&st, n, "Sendrecv_c");
			check(buf, (size_t)n, 3, "Sendrecv_c");
		}
	}

	/* 4: rank 0 alone: Pack_c/Unpack_c and Reduce_local_c above 2^31,
	 * with a second buffer (rank 1 has freed its own) */
	if (me == 1) {
		free(buf);
		buf = NULL;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (me == 0) {
		MPI_Count n = ((MPI_Count)1 << 31) + 7, size = 0, pos = 0;
		MPI_Op op;

		buf2 = malloc((size_t)n);
		if (!buf2) {
			mtest_error("cannot allocate %lld bytes for Pack_c", (long long)n);
		} else {
			fill(buf, (size_t)n, 4);
			MPI_Pack_size_c(n, MPI_BYTE, MPI_COMM_WORLD, &size);
			mtest_check(size >= n, "Pack_size_c %lld < %lld", (long long)size,
				    (long long)n);
			MPI_Pack_c(buf, n, MPI_BYTE, buf2, n, &pos, MPI_COMM_WORLD);
			mtest_check(pos == n, "Pack_c position %lld, want %lld", (long long)pos,
				    (long long)n);
			check(buf2, (size_t)n, 4, "Pack_c");
			memset(buf, 0, (size_t)n);
			pos = 0;
			MPI_Unpack_c(buf2, n, &pos, buf, n, MPI_BYTE, MPI_COMM_WORLD);
			mtest_check(pos == n, "Unpack_c position %lld", (long long)pos);
			check(buf, (size_t)n, 4, "Unpack_c");

			/* buf2 ^= buf makes it all zero; one call with all n */
			MPI_Op_create_c(xor_c, 1, &op);
			MPI_Reduce_local_c(buf, buf2, n, MPI_BYTE, op);
			mtest_check(xor_calls == 1 && xor_len == n,
				    "user function: %lld calls, last len %lld, want 1 call of %lld",
				    (long long)xor_calls, (long long)xor_len, (long long)n);
			for (size_t i = 0; i < (size_t)n; i++)
				if (buf2[i]) {
					mtest_error("Reduce_local_c: byte %zu is %u", i, buf2[i]);
					break;
				}
			MPI_Op_free(&op);
			free(buf2);
		}
	}
	free(buf);
	if (me == 0)
		printf("lcount_big: %.1f s\n", MPI_Wtime() - t0);
	mtest_finalize();
	return 0;
}
