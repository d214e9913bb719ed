/* SPDX-License-Identifier: MIT */
/*
 * test/launch/shm_clean_prog.c: the MPI rank that shm_clean.sh runs to
 * prove that no shared-memory segment outlives a job, however it ends.
 * The test compiles it at run time against the build tree. Each rank
 * reports the mode of every /dev/shm/michi-* segment it has mapped, moves
 * messages of a few sizes around a ring (small, eager-sized and large, so
 * every protocol of the shm device has touched the segment) and verifies
 * them, passes a barrier, then ends the way argv[1] asks:
 *   normal      MPI_Finalize and exit 0
 *   abort       rank VICTIM calls MPI_Abort(MPI_COMM_WORLD, 7)
 *   kill        rank VICTIM raises SIGKILL after the traffic
 *   kill-early  rank VICTIM raises SIGKILL right after MPI_Init
 *   kill-init   rank VICTIM raises SIGKILL before MPI_Init, while the
 *               others are inside it
 *   sleep       every rank prints "ready R" and sleeps (mpirun is killed)
 *   sleep-init  rank VICTIM prints "delaying R" and sleeps before
 *               MPI_Init, so the others wait inside it (mpirun is killed)
 * VICTIM is argv[2] (default 2). Sleeps are bounded (60 s); a data error
 * exits 2.
 */
#include <mpi.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLEEP_S 60

static int rank = -1, size;

static void nap(int seconds)
{
	int i;

	for (i = 0; i < seconds * 10; i++)
		usleep(100000);
}

static void report_mode(const char *name, const struct stat *st)
{
	printf("segment %s mode %03o rank %d\n", name, (unsigned)(st->st_mode & 07777), rank);
}

/*
 * A segment may already be unlinked once every local rank has attached:
 * the mapping then still names it, and /proc/self/map_files reaches the
 * file (where the kernel lets us), as does any descriptor still open.
 */
static void scan_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 256], last[PATH_MAX] = "", link[PATH_MAX + 64];
	char *path, *dash;
	struct stat st;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		path = strstr(line, "/dev/shm/michi-");
		if (!path)
			continue;
		path[strcspn(path, " \n")] = '\0';
		if (strcmp(path, last) == 0)
			continue;
		snprintf(last, sizeof(last), "%s", path);
		dash = strchr(line, ' ');
		if (dash)
			*dash = '\0';
		snprintf(link, sizeof(link), "/proc/self/map_files/%s", line);
		if (stat(path, &st) == 0 || stat(link, &st) == 0)
			report_mode(path + strlen("/dev/shm/"), &st);
	}
	fclose(f);
}

static void scan_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char link[64], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (!d)
		return;
	while ((e = readdir(d))) {
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strncmp(target, "/dev/shm/michi-", 15) == 0 && stat(link, &st) == 0)
			report_mode(target + strlen("/dev/shm/"), &st);
	}
	closedir(d);
}

static void fill(unsigned char *b, int n, int from, int round)
{
	int i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 7 + from * 31 + round * 13 + (i >> 8));
}

/* Passes each size twice around the ring and checks what arrives. */
static void ring(void)
{
	static const int sizes[] = { 0, 8, 4096, 65536, 1 << 20 };
	unsigned char *out = malloc(1 << 20), *in = malloc(1 << 20), *want = malloc(1 << 20);
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int s, round, count;
	MPI_Status st;

	if (!out || !in || !want) {
		fprintf(stderr, "rank %d: out of memory\n", rank);
		exit(2);
	}
	for (s = 0; s < (int)(sizeof(sizes) / sizeof(sizes[0])); s++)
		for (round = 0; round < 2; round++) {
			fill(out, sizes[s], rank, round);
			fill(want, sizes[s], prev, round);
			MPI_Sendrecv(out, sizes[s], MPI_BYTE, next, s, in, sizes[s], MPI_BYTE,
				     prev, s, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &count);
			if (count != sizes[s] || memcmp(in, want, (size_t)sizes[s])) {
				fprintf(stderr, "rank %d: ring message of %d B from %d is wrong\n",
					rank, sizes[s], prev);
				exit(2);
			}
		}
	free(out);
	free(in);
	free(want);
}

static int env_rank(void)
{
	const char *r = getenv("PMI_RANK");

	return r ? atoi(r) : -1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "normal";
	int victim = argc > 2 ? atoi(argv[2]) : 2, i;

	if (strcmp(mode, "kill-init") == 0 && env_rank() == victim)
		raise(SIGKILL);
	if (strcmp(mode, "sleep-init") == 0 && env_rank() == victim) {
		printf("delaying %d\n", victim);
		fflush(stdout);
		nap(SLEEP_S);
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* before anything else: the later the victim dies, the likelier
	 * the others have all attached (and the name is gone) */
	if (strcmp(mode, "kill-early") == 0 && rank == victim)
		raise(SIGKILL);
	scan_maps();
	scan_fds();
	fflush(stdout);
	ring();
	MPI_Barrier(MPI_COMM_WORLD);
	if (strcmp(mode, "kill") == 0 && rank == victim)
		raise(SIGKILL);
	if (strcmp(mode, "abort") == 0 && rank == victim)
		MPI_Abort(MPI_COMM_WORLD, 7);
	if (strcmp(mode, "sleep") == 0) {
		printf("ready %d\n", rank);
		fflush(stdout);
		nap(SLEEP_S);
	}
	/* the other ranks of a dying job wait here until they are killed */
	for (i = 0; i < 2; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	printf("done %d\n", rank);
	MPI_Finalize();
	return 0;
}
