/* SPDX-License-Identifier: MIT */
/*
 * MPI_Comm_spawn_multiple with two commands (this program, as "a" once
 * and as "b" twice) and the info keys wdir, path and host: "a" starts in
 * wdir "/", "b" is found through path by its bare name and placed on this
 * host by name. The children check MPI_APPNUM (0 for a, 1 for b), their
 * world of 3 and where they run, and report to parent rank 0. Before
 * that, spawning a program that does not exist fails with MPI_ERR_SPAWN,
 * every entry of array_of_errcodes says so on every parent (not the root
 * alone), and the library goes on.
 */
#include "mtest.h"

#include <libgen.h>
#include <limits.h>
#include <unistd.h>

static int child(MPI_Comm parent, const char *which)
{
	int *appnum, flag = 0, size, errs = 0, rank;
	char cwd[PATH_MAX];

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	errs += size != 3;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
	if (!flag || *appnum != (which[0] == 'a' ? 0 : 1)) {
		printf("child %s: MPI_APPNUM %s %d\n", which, flag ? "is" : "unset",
		       flag ? *appnum : -1);
		errs++;
	}
	if (which[0] == 'a' && (!getcwd(cwd, sizeof(cwd)) || strcmp(cwd, "/") != 0)) {
		printf("child a: runs in %s, not in wdir /\n", cwd);
		errs++;
	}
	MPI_Send(&errs, 1, MPI_INT, 0, 1, parent);
	MPI_Comm_disconnect(&parent);
	MPI_Finalize();
	return 0;
}

int main(int argc, char **argv)
{
	char exe[PATH_MAX], dir[PATH_MAX], base[PATH_MAX], host[MPI_MAX_PROCESSOR_NAME];
	char *cmds[2], *argv_a[] = { "a", NULL }, *argv_b[] = { "b", NULL }, **argvs[2];
	int maxprocs[2] = { 1, 2 }, errcodes[3], i, err, cls, v, hl;
	MPI_Info infos[2];
	MPI_Comm parent, inter;

	MPI_Init(&argc, &argv);
	MPI_Comm_get_parent(&parent);
	if (parent != MPI_COMM_NULL && argc > 1)
		return child(parent, argv[1]);
	mtest_init_done();
	if (!realpath(argv[0], exe)) {
		printf("cannot resolve %s\n", argv[0]);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s", exe);
	snprintf(base, sizeof(base), "%s", exe);
	MPI_Get_processor_name(host, &hl);

	/* a program that does not exist */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	for (i = 0; i < 3; i++)
		errcodes[i] = -1;
	err = MPI_Comm_spawn("/nonexistent/michi-no-such-program", MPI_ARGV_NULL, 3,
			     MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errcodes);
	MPI_Error_class(err, &cls);
	mtest_check(cls == MPI_ERR_SPAWN, "spawn of a missing program: class %d", cls);
	mtest_check(inter == MPI_COMM_NULL, "spawn of a missing program gave a communicator");
	for (i = 0; i < 3; i++)
		mtest_check(errcodes[i] == MPI_ERR_SPAWN, "errcodes[%d] = %d", i, errcodes[i]);

	/* two commands */
	cmds[0] = exe;
	cmds[1] = basename(base);
	argvs[0] = argv_a;
	argvs[1] = argv_b;
	MPI_Info_create(&infos[0]);
	MPI_Info_create(&infos[1]);
	MPI_Info_set(infos[0], "wdir", "/");
	MPI_Info_set(infos[1], "path", dirname(dir));
	MPI_Info_set(infos[1], "host", host);
	err = MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &inter,
				      errcodes);
	MPI_Info_free(&infos[0]);
	MPI_Info_free(&infos[1]);
	if (!mtest_check(err == MPI_SUCCESS, "spawn_multiple failed (%d)", err))
		return mtest_finalize();
	for (i = 0; i < 3; i++)
		mtest_check(errcodes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, errcodes[i]);
	if (mtest_rank == 0)
		for (i = 0; i < 3; i++) {
			MPI_Recv(&v, 1, MPI_INT, i, 1, inter, MPI_STATUS_IGNORE);
			mtest_check(v == 0, "child %d found %d errors", i, v);
		}
	MPI_Comm_disconnect(&inter);
	return mtest_finalize();
}
