/* SPDX-License-Identifier: MIT */
/*
 * Collectives of more than 2^31 bytes through the large-count calls, on 2
 * ranks of one host: MPI_Bcast_c of 3 GiB (3 * 2^30 MPI_BYTE elements, a
 * count no int holds), then MPI_Allgather_c in place of two 1.1 GiB
 * blocks (2.2 GiB received per rank) and a persistent MPI_Bcast_init_c of
 * 2.5 GiB started twice. Every byte is checked against a pattern that
 * differs per word, per call and per round. Needs about 7 GiB of free
 * memory (MemAvailable) on the host, else the test exits 77 (skip).
 */
#include "mtest.h"

#define GIB ((size_t)1 << 30)

/* MemAvailable of the host in bytes, 0 when unknown */
static size_t mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (size_t)kb * 1024;
}

static uint64_t word(size_t j, uint64_t seed)
{
	return (j + 1) * 0x9e3779b97f4a7c15ull ^ seed;
}

static void fill(uint64_t *w, size_t nwords, uint64_t seed)
{
	for (size_t j = 0; j < nwords; j++)
		w[j] = word(j, seed);
}

/* the first wrong word, or nwords */
static size_t verify(const uint64_t *w, size_t nwords, uint64_t seed)
{
	for (size_t j = 0; j < nwords; j++)
		if (w[j] != word(j, seed))
			return j;
	return nwords;
}

int main(int argc, char **argv)
{
	size_t need = 7 * GIB, have, big = 3 * GIB, blk = GIB + GIB / 8, pbig = 2 * GIB + GIB / 2;
	int ok, all_ok, k;
	uint64_t *buf;
	MPI_Request req;
	size_t bad;

	mtest_init(&argc, &argv);
	if (mtest_size != 2) {
		if (mtest_rank == 0)
			printf("coll_large: needs 2 ranks\n");
		MPI_Finalize();
		return 77;
	}
	have = mem_available();
	ok = have >= need;
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all_ok) {
		if (mtest_rank == 0)
			printf("coll_large: skipped, MemAvailable %zu MiB, needs %zu MiB\n",
			       have >> 20, need >> 20);
		MPI_Finalize();
		return 77;
	}
	buf = malloc(big);
	ok = buf != NULL;
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all_ok) {
		if (mtest_rank == 0)
			printf("coll_large: skipped, malloc of %zu MiB failed\n", big >> 20);
		free(buf);
		MPI_Finalize();
		return 77;
	}

	/* 3 GiB from rank 1 */
	if (mtest_rank == 1)
		fill(buf, big / 8, 11);
	else
		memset(buf, 0, big);
	MPI_Bcast_c(buf, (MPI_Count)big, MPI_BYTE, 1, MPI_COMM_WORLD);
	bad = verify(buf, big / 8, 11);
	mtest_check(bad == big / 8, "Bcast_c of %zu bytes: word %zu wrong", big, bad);

	/* in-place allgather of two blocks of blk bytes: block r comes from
	 * rank r, in 8-byte elements */
	fill(buf + mtest_rank * (blk / 8), blk / 8, 100 + (uint64_t)mtest_rank);
	memset(buf + (1 - mtest_rank) * (blk / 8), 0, blk);
	MPI_Allgather_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, (MPI_Count)(blk / 8), MPI_UINT64_T,
			MPI_COMM_WORLD);
	for (k = 0; k < 2; k++) {
		bad = verify(buf + k * (blk / 8), blk / 8, 100 + (uint64_t)k);
		mtest_check(bad == blk / 8, "Allgather_c block %d of %zu bytes: word %zu wrong", k,
			    blk, bad);
	}

	/* persistent, two rounds with new data */
	MPI_Bcast_init_c(buf, (MPI_Count)pbig, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
	for (k = 0; k < 2; k++) {
		if (mtest_rank == 0)
			fill(buf, pbig / 8, 1000 + (uint64_t)k);
		else
			memset(buf, 0, pbig);
		MPI_Start(&req);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		bad = verify(buf, pbig / 8, 1000 + (uint64_t)k);
		mtest_check(bad == pbig / 8, "Bcast_init_c round %d of %zu bytes: word %zu wrong",
			    k, pbig, bad);
	}
	MPI_Request_free(&req);
	free(buf);
	return mtest_finalize();
}
