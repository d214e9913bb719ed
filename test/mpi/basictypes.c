/* SPDX-License-Identifier: MIT */
/*
 * Every predefined C basic datatype travels between two ranks with its
 * value intact: MPI_Type_size matches sizeof of the C type, received
 * values equal the sent ones element by element (extremes included), and
 * Get_count in units of the type is the element count. Catches a type
 * table with a wrong size or a byte count taken as an element count.
 */
#include "mtest.h"
#include <float.h>
#include <limits.h>
#include <stdbool.h>

#define N 37

/* Each entry fills a buffer of N elements with values derived from i and
 * the type's range, and compares two such buffers. */
#define TYPE_CASE(ctype, mpitype, expr)                                        \
	{                                                                      \
		ctype out[N], in[N + 1];                                       \
		for (int i = 0; i < N; i++)                                    \
			out[i] = (ctype)(expr);                                \
		run_case(#mpitype, mpitype, sizeof(ctype), out, in, N);        \
	}

static int case_no;

static void run_case(const char *name, MPI_Datatype type, size_t csize,
		     void *out, void *in, int n)
{
	int size = -1, count = -1, peer = 1 - mtest_rank;
	MPI_Status st;

	MPI_Type_size(type, &size);
	mtest_check(size == (int)csize, "%s: Type_size %d, sizeof %zu", name,
		    size, csize);
	case_no++;
	if (mtest_rank == 0) {
		MPI_Send(out, n, type, peer, case_no, MPI_COMM_WORLD);
		return;
	}
	memset(in, 0, csize * (n + 1));
	MPI_Recv(in, n + 1, type, peer, case_no, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, type, &count);
	mtest_check(count == n, "%s: count %d, expected %d", name, count, n);
	mtest_check(!memcmp(in, out, csize * n), "%s: values differ", name);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	if (mtest_size < 2) {
		mtest_check(0, "basictypes needs at least 2 ranks");
		return mtest_finalize();
	}
	if (mtest_rank > 1)
		return mtest_finalize();

	TYPE_CASE(char, MPI_CHAR, 'a' + i % 26);
	TYPE_CASE(signed char, MPI_SIGNED_CHAR, i % 2 ? SCHAR_MIN + i : SCHAR_MAX - i);
	TYPE_CASE(unsigned char, MPI_UNSIGNED_CHAR, UCHAR_MAX - i);
	TYPE_CASE(unsigned char, MPI_BYTE, i * 7);
	TYPE_CASE(short, MPI_SHORT, i % 2 ? SHRT_MIN + i : SHRT_MAX - i);
	TYPE_CASE(unsigned short, MPI_UNSIGNED_SHORT, USHRT_MAX - i);
	TYPE_CASE(int, MPI_INT, i % 2 ? INT_MIN + i : INT_MAX - i);
	TYPE_CASE(unsigned, MPI_UNSIGNED, UINT_MAX - i);
	TYPE_CASE(long, MPI_LONG, i % 2 ? LONG_MIN + i : LONG_MAX - i);
	TYPE_CASE(unsigned long, MPI_UNSIGNED_LONG, ULONG_MAX - i);
	TYPE_CASE(long long, MPI_LONG_LONG, i % 2 ? LLONG_MIN + i : LLONG_MAX - i);
	TYPE_CASE(long long, MPI_LONG_LONG_INT, -i * 1000003LL);
	TYPE_CASE(unsigned long long, MPI_UNSIGNED_LONG_LONG, ULLONG_MAX - i);
	TYPE_CASE(float, MPI_FLOAT, i % 3 ? FLT_MAX / (i + 1) : -FLT_MIN * i);
	TYPE_CASE(double, MPI_DOUBLE, i % 3 ? DBL_MAX / (i + 1) : -DBL_MIN * i);
	TYPE_CASE(int8_t, MPI_INT8_T, INT8_MIN + i);
	TYPE_CASE(uint8_t, MPI_UINT8_T, UINT8_MAX - i);
	TYPE_CASE(int16_t, MPI_INT16_T, INT16_MIN + i);
	TYPE_CASE(uint16_t, MPI_UINT16_T, UINT16_MAX - i);
	TYPE_CASE(int32_t, MPI_INT32_T, INT32_MIN + i);
	TYPE_CASE(uint32_t, MPI_UINT32_T, UINT32_MAX - i);
	TYPE_CASE(int64_t, MPI_INT64_T, INT64_MIN + i);
	TYPE_CASE(uint64_t, MPI_UINT64_T, UINT64_MAX - i);
	TYPE_CASE(bool, MPI_C_BOOL, i % 3 == 0);
	TYPE_CASE(wchar_t, MPI_WCHAR, L'A' + i);
	TYPE_CASE(MPI_Aint, MPI_AINT, (MPI_Aint)i * -4096);
	TYPE_CASE(MPI_Offset, MPI_OFFSET, (MPI_Offset)i << 40);
	TYPE_CASE(MPI_Count, MPI_COUNT, (MPI_Count)i << 33);
	return mtest_finalize();
}
