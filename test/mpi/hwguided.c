/* SPDX-License-Identifier: MIT */
/*
 * MPI_Comm_split_type with MPI_COMM_TYPE_SHARED and MPI_COMM_TYPE_HW_GUIDED
 * (MPI-4.0 7.4.2) against the test's own view of the hardware: each rank
 * reads its cpus (sched_getaffinity) and, from Linux's sysfs, which core,
 * cache, package and NUMA node each of them belongs to. A rank whose cpus
 * all lie in one object of the level must get a communicator of exactly
 * the ranks in that same object (ordered by the key, here the world
 * rank); a rank whose cpus span several objects, or a level the library
 * does not know, gets MPI_COMM_NULL. Run unbound and bound (mpirun
 * --bind-to core, or MICHI_BIND_TO) the two outcomes both show up.
 *
 * A library may support fewer levels (the standard leaves the set open;
 * Michi without hwloc knows only mpi_shared_memory): a level that gives
 * MPI_COMM_NULL at every rank passes with a note, unless MTEST_HW_STRICT=1
 * (test/launch/hwguided.sh sets it where Michi has hwloc).
 */
#define _GNU_SOURCE   /* sched_getaffinity */
#include "mtest.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#define KEY_LEN 512

/* The first line of a sysfs file, without its newline; 0 if missing. */
static int read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");
	char *nl;

	if (!f)
		return 0;
	if (!fgets(out, (int)len, f)) {
		fclose(f);
		return 0;
	}
	fclose(f);
	if ((nl = strchr(out, '\n')))
		*nl = '\0';
	return 1;
}

/* Which object of the level cpu c belongs to, as a string that is the
 * same for every cpu of that object; 0 if sysfs does not say. */
static int cpu_key(const char *level, int c, char *out, size_t len)
{
	char path[256], v[64];
	int i, lv;

	if (!strcmp(level, "HWThread") || !strcmp(level, "PU")) {
		snprintf(out, len, "cpu%d", c);
		return 1;
	}
	if (!strcmp(level, "Core")) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/core_cpus_list", c);
		if (read_line(path, out, len))
			return 1;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c);
		return read_line(path, out, len);
	}
	if (!strcmp(level, "Package")) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/package_cpus_list", c);
		if (read_line(path, out, len))
			return 1;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/core_siblings_list", c);
		return read_line(path, out, len);
	}
	if (sscanf(level, "L%dCache", &lv) == 1) {
		/* the data or unified cache of that level */
		for (i = 0; i < 16; i++) {
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/level", c, i);
			if (!read_line(path, v, sizeof(v)))
				return 0;
			if (atoi(v) != lv)
				continue;
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cache/index%d/type", c, i);
			if (!read_line(path, v, sizeof(v)) || !strcmp(v, "Instruction"))
				continue;
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", c, i);
			return read_line(path, out, len);
		}
		return 0;
	}
	if (!strcmp(level, "NUMANode")) {
		DIR *d;
		struct dirent *e;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", c);
		if (!(d = opendir(path)))
			return 0;
		/* no nodeN link: one node, the whole machine (as hwloc says) */
		snprintf(out, len, "node-all");
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9')
				snprintf(out, len, "%s", e->d_name);
		closedir(d);
		return 1;
	}
	return 0;
}

/* This rank's object of the level: 1 and its key when all its cpus share
 * one, else 0. */
static int my_key(const char *level, char *out, size_t len)
{
	char k[KEY_LEN];
	cpu_set_t set;
	int c, have = 0;

	char host[MPI_MAX_PROCESSOR_NAME];
	int n;

	/* objects are a host's: the same cpus elsewhere are another object */
	MPI_Get_processor_name(host, &n);
	if (!strcmp(level, "mpi_shared_memory")) {
		snprintf(out, len, "%s", host);
		return 1;
	}
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		if (!cpu_key(level, c, k, sizeof(k)))
			return 0;
		if (!have)
			snprintf(out, len, "%s:%s", host, k);
		else if (strcmp(strrchr(out, ':') + 1, k))
			return 0;
		have = 1;
	}
	return have;
}

/* Split by the level (type HW_GUIDED, or SHARED when level is NULL) and
 * compare with what the keys of all ranks say. */
static void check_level(const char *level, int expect_known, int strict)
{
	char (*keys)[KEY_LEN] = calloc((size_t)mtest_size, KEY_LEN), mine[KEY_LEN] = "";
	int *has = calloc((size_t)mtest_size, sizeof(int)), in, got, any, want = 0, i, j, s;
	const char *name = level ? level : "SHARED";
	MPI_Comm c = MPI_COMM_NULL;
	MPI_Info info;

	in = expect_known && my_key(level ? level : "mpi_shared_memory", mine, sizeof(mine));
	MPI_Allgather(&in, 1, MPI_INT, has, 1, MPI_INT, MPI_COMM_WORLD);
	MPI_Allgather(mine, KEY_LEN, MPI_CHAR, keys, KEY_LEN, MPI_CHAR, MPI_COMM_WORLD);
	if (level) {
		MPI_Info_create(&info);
		MPI_Info_set(info, "mpi_hw_resource_type", level);
		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, mtest_rank, info, &c);
		MPI_Info_free(&info);
	} else {
		MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mtest_rank, MPI_INFO_NULL, &c);
	}
	got = c != MPI_COMM_NULL;
	MPI_Allreduce(&got, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (!any && !strict && expect_known) {
		if (mtest_rank == 0)
			printf("note: %s gives MPI_COMM_NULL everywhere (level not supported)\n", name);
		goto out;
	}
	if (!in) {
		mtest_check(!got, "%s: got a communicator, but this rank's cpus are not within one "
			    "object (or the level is unknown)", name);
		goto out;
	}
	mtest_check(got, "%s: MPI_COMM_NULL, but this rank's cpus lie within one object (%s)",
		    name, mine);
	if (!got)
		goto out;
	for (i = 0; i < mtest_size; i++)
		want += has[i] && !strcmp(keys[i], mine);
	MPI_Comm_size(c, &s);
	mtest_check(s == want, "%s: communicator of %d ranks, %d share object %s", name, s, want, mine);
	if (s == want) {
		MPI_Group wg, cg;
		int *r = malloc((size_t)s * sizeof(int)), *w = malloc((size_t)s * sizeof(int));

		for (i = 0; i < s; i++)
			r[i] = i;
		MPI_Comm_group(MPI_COMM_WORLD, &wg);
		MPI_Comm_group(c, &cg);
		MPI_Group_translate_ranks(cg, s, r, wg, w);
		/* key = world rank: members in world order */
		for (i = 0, j = 0; i < mtest_size; i++)
			if (has[i] && !strcmp(keys[i], mine)) {
				mtest_check(w[j] == i, "%s: member %d is world rank %d, want %d",
					    name, j, w[j], i);
				j++;
			}
		MPI_Group_free(&wg);
		MPI_Group_free(&cg);
		free(r);
		free(w);
	}
out:
	if (c != MPI_COMM_NULL)
		MPI_Comm_free(&c);
	free(keys);
	free(has);
}

int main(int argc, char **argv)
{
	static const char *const levels[] = {
		"mpi_shared_memory", "NUMANode", "Package", "L3Cache", "L2Cache", "L1Cache",
		"Core", "HWThread",
	};
	const char *s = getenv("MTEST_HW_STRICT");
	int strict = s && atoi(s) > 0;
	size_t i;

	mtest_init(&argc, &argv);
	check_level(NULL, 1, 1);
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
		check_level(levels[i], 1, strict || i == 0);
	/* MPI-4.0: an unknown level gives MPI_COMM_NULL at every rank */
	check_level("no-such-level", 0, 1);
	return mtest_finalize();
}
