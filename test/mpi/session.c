/* SPDX-License-Identifier: MIT */
/*
 * MPI-4.0 sessions without MPI_Init: info objects made before any
 * initialisation (MPI_Info_create, MPI_Info_create_env) feed
 * MPI_Session_init; two sessions live at once; the process sets
 * mpi://WORLD and mpi://SELF (lengths, names, sizes, case), groups from
 * them, and communicators made with MPI_Comm_create_from_group that carry
 * collectives and point-to-point; errors on a session go to its handler
 * (MPI_ERRORS_RETURN) and leave it usable; the last MPI_Session_finalize
 * ends the runtime, after which info objects still work.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		errs++; \
		if (errs < 20) { \
			printf("check failed: "); \
			printf(__VA_ARGS__); \
			printf("\n"); \
		} \
	} \
} while (0)

static int get_int(MPI_Info info, const char *key)
{
	char v[64];
	int flag = 0;

	MPI_Info_get(info, key, sizeof(v) - 1, v, &flag);
	return flag ? atoi(v) : -1;
}

/* one communicator from a process set: an allreduce and a ring shift on it */
static void use_pset(MPI_Session s, const char *pset, int want_size, const char *tag)
{
	MPI_Group g;
	MPI_Comm c;
	int size, rank, sum = 0, got = -1, rc;

	rc = MPI_Group_from_session_pset(s, pset, &g);
	CHECK(rc == MPI_SUCCESS, "Group_from_session_pset(%s) = %d", pset, rc);
	if (rc)
		return;
	rc = MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
	CHECK(rc == MPI_SUCCESS, "Comm_create_from_group(%s) = %d", pset, rc);
	MPI_Group_free(&g);
	if (rc)
		return;
	MPI_Comm_size(c, &size);
	MPI_Comm_rank(c, &rank);
	CHECK(size == want_size, "%s: size %d, want %d", pset, size, want_size);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
	CHECK(sum == size * (size - 1) / 2, "%s: allreduce gave %d", pset, sum);
	MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT,
		     (rank + size - 1) % size, 5, c, MPI_STATUS_IGNORE);
	CHECK(got == (rank + size - 1) % size, "%s: ring gave %d", pset, got);
	MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
	MPI_Info hints, env, info;
	MPI_Session s1, s2;
	MPI_Group g;
	char name[MPI_MAX_PSET_NAME_LEN], v[64];
	int n, len, i, flag, wsize, rc, init;

	/* info calls before anything is initialised */
	MPI_Info_create(&hints);
	MPI_Info_set(hints, "thread_level", "MPI_THREAD_SERIALIZED");
	MPI_Info_create_env(argc, argv, &env);
	MPI_Info_get(env, "command", sizeof(v) - 1, v, &flag);
	CHECK(flag && strstr(argv[0], v) == argv[0], "Info_create_env: command \"%s\"", v);

	rc = MPI_Session_init(hints, MPI_ERRORS_RETURN, &s1);
	CHECK(rc == MPI_SUCCESS && s1 != MPI_SESSION_NULL, "Session_init = %d", rc);
	if (rc)
		return 1;
	MPI_Initialized(&init);
	CHECK(!init, "MPI_Initialized is true in a sessions-only process");
	MPI_Session_get_info(s1, &info);
	MPI_Info_get(info, "thread_level", sizeof(v) - 1, v, &flag);
	CHECK(flag && (!strcmp(v, "MPI_THREAD_SERIALIZED") || !strcmp(v, "MPI_THREAD_MULTIPLE")),
	      "Session_get_info: thread_level %s", flag ? v : "(none)");
	MPI_Info_free(&info);

	MPI_Session_get_num_psets(s1, MPI_INFO_NULL, &n);
	CHECK(n >= 2, "Session_get_num_psets = %d", n);
	wsize = -1;
	for (i = 0; i < n; i++) {
		len = 0;
		MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, NULL);
		CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d: length %d", i, len);
		MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, name);
		CHECK((int)strlen(name) + 1 == len, "pset %d: \"%s\" and length %d", i, name, len);
		MPI_Session_get_pset_info(s1, name, &info);
		if (!strcmp(name, "mpi://WORLD"))
			wsize = get_int(info, "mpi_size");
		if (!strcmp(name, "mpi://SELF"))
			CHECK(get_int(info, "mpi_size") == 1, "SELF: mpi_size %d",
			      get_int(info, "mpi_size"));
		MPI_Info_free(&info);
	}
	CHECK(wsize >= 1 && wsize == get_int(env, "maxprocs"),
	      "WORLD: mpi_size %d, Info_create_env maxprocs %d", wsize, get_int(env, "maxprocs"));

	/* a second session, a case-folded name, errors that return */
	rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2);
	CHECK(rc == MPI_SUCCESS, "second Session_init = %d", rc);
	rc = MPI_Group_from_session_pset(s2, "mpi://no-such-set", &g);
	CHECK(rc != MPI_SUCCESS, "a pset that does not exist gave a group");
	len = 0;
	rc = MPI_Session_get_nth_pset(s2, MPI_INFO_NULL, n, &len, NULL);
	CHECK(rc != MPI_SUCCESS, "get_nth_pset(n=%d) past the end succeeded", n);

	use_pset(s1, "mpi://WORLD", wsize, "org.example.world");
	use_pset(s2, "mpi://world", wsize, "org.example.world2");
	use_pset(s2, "mpi://SELF", 1, "org.example.self");

	rc = MPI_Session_finalize(&s2);
	CHECK(rc == MPI_SUCCESS && s2 == MPI_SESSION_NULL, "Session_finalize(s2) = %d", rc);
	use_pset(s1, "mpi://WORLD", wsize, "org.example.again");
	rc = MPI_Session_finalize(&s1);
	CHECK(rc == MPI_SUCCESS, "Session_finalize(s1) = %d", rc);

	/* after the runtime ended: info objects still work */
	MPI_Info_set(hints, "after", "yes");
	MPI_Info_get(hints, "after", sizeof(v) - 1, v, &flag);
	CHECK(flag && !strcmp(v, "yes"), "Info after the last session");
	MPI_Info_free(&hints);
	MPI_Info_free(&env);
	if (errs)
		printf(" Found %d errors\n", errs);
	else
		printf(" No Errors\n");
	return errs != 0;
}
