/* SPDX-License-Identifier: MIT */
/*
 * test/launch/pmi_client_test.c: a PMI-level rank for the launcher tests.
 *
 * Links only util/ and mpi/env/pmi.c (no MPI): initialises PMI, puts a key,
 * fences, reads every other rank's key and checks it, then does whatever
 * the options ask (exit with a code, die on a signal, call abort, sleep,
 * echo stdin) so that the shell tests can observe mpirun's behaviour.
 * Prints "rank R of N ok" on success; any check that fails exits 2.
 */
#include "config.h"
#include "pmi.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(cond, ...) do { if (!(cond)) { \
	fprintf(stderr, "pmi_client_test: rank %d: ", info.rank); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, " (%s)\n", michi_err_msg()); \
	exit(2); } } while (0)

static struct pmi_info info;

static int opt_int(int argc, char **argv, const char *name, int def)
{
	int i;

	for (i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return atoi(argv[i + 1]);
	return def;
}

static int opt_flag(int argc, char **argv, const char *name)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

static void check_big_values(void)
{
	size_t max = pmi_max_val_len();
	char *v = malloc(max + 2), *back = malloc(max + 2);

	CHECK(v && back, "no memory");
	memset(v, 'x', max + 1);
	v[max + 1] = '\0';
	CHECK(pmi_put("big-too-long", v) == MICHI_ERR_INVAL,
	      "a %zu-byte value was not rejected", max + 1);
	michi_err_clear();
	v[max] = '\0';
	CHECK(pmi_put("big-ok", v) == MICHI_OK, "a %zu-byte value was rejected", max);
	CHECK(pmi_fence() == MICHI_OK, "fence after big put");
	CHECK(pmi_get(0, "big-ok", back, max + 2) == MICHI_OK, "get big value");
	CHECK(strcmp(v, back) == 0, "big value came back different");
	free(v);
	free(back);
}

static void exchange(void)
{
	char key[64], val[512], want[512];
	int r;

	snprintf(key, sizeof(key), "k%d", info.rank);
	snprintf(val, sizeof(val), "v%d-of-%d=%s", info.rank, info.size, info.kvsname);
	CHECK(pmi_put(key, val) == MICHI_OK, "put %s", key);
	CHECK(pmi_fence() == MICHI_OK, "fence");
	for (r = 0; r < info.size; r++) {
		snprintf(key, sizeof(key), "k%d", r);
		snprintf(want, sizeof(want), "v%d-of-%d=%s", r, info.size, info.kvsname);
		CHECK(pmi_get(r, key, val, sizeof(val)) == MICHI_OK, "get %s", key);
		CHECK(strcmp(val, want) == 0, "key %s is '%s', expected '%s'", key, val, want);
	}
	CHECK(pmi_get(0, "no-such-key", val, sizeof(val)) == MICHI_ERR_PMI,
	      "a missing key was found");
	michi_err_clear();
}

int main(int argc, char **argv)
{
	char val[128];
	int i;

	michi_log_init();
	CHECK(pmi_init(&info) == MICHI_OK, "pmi_init failed");
	if (opt_flag(argc, argv, "--info"))
		printf("info rank=%d size=%d appnum=%d local_rank=%d local_size=%d universe=%d singleton=%d\n",
		       info.rank, info.size, info.appnum, info.local_rank,
		       info.local_size, info.universe_size, info.singleton);
	exchange();
	if (opt_flag(argc, argv, "--bigval"))
		check_big_values();
	if (opt_flag(argc, argv, "--jobkey")) {
		CHECK(pmi_get(0, PMI_JOB_KEY, val, sizeof(val)) == MICHI_OK, "no job key");
		CHECK(strlen(val) == 32 && strspn(val, "0123456789abcdef") == 32,
		      "job key '%s' is not 32 hex digits", val);
		printf("jobkey %s\n", val);
	}
	if (opt_flag(argc, argv, "--stdin") && info.rank == 0) {
		char line[256];

		while (fgets(line, sizeof(line), stdin))
			printf("stdin: %s", line);
	}
	if (opt_flag(argc, argv, "--stdin") && info.rank != 0)
		CHECK(getchar() == EOF, "rank %d got stdin data", info.rank);
	if (opt_int(argc, argv, "--kill-rank", -1) == info.rank)
		raise(SIGKILL);
	if (opt_int(argc, argv, "--abort-rank", -1) == info.rank) {
		pmi_abort(opt_int(argc, argv, "--abort-code", 1),
			  "test abort from pmi_client_test");
		sleep(10);
		exit(99);
	}
	if (opt_int(argc, argv, "--exit-rank", -1) == info.rank) {
		if (!opt_flag(argc, argv, "--no-finalize"))
			pmi_finalize();
		exit(opt_int(argc, argv, "--exit-code", 1));
	}
	for (i = opt_int(argc, argv, "--sleep", 0) * 10; i > 0; i--)
		usleep(100000);
	CHECK(pmi_fence() == MICHI_OK, "final fence");
	CHECK(pmi_finalize() == MICHI_OK, "finalize");
	printf("rank %d of %d ok\n", info.rank, info.size);
	return 0;
}
