/* SPDX-License-Identifier: MIT */
/*
 * launch/mpirun_cmdline.c: mpirun's command line (mr_parse): MPICH and Open MPI
 * spellings, MPMD colon syntax, and the ranks' working directory.
 */
#include "config.h"
#include "mpirun.h"

/* ---- command line ----------------------------------------------------- */

static void mr_usage(FILE *f)
{
	fprintf(f,
		"usage: mpirun [options] [-n N] program [args] [: [-n N] program [args]]...\n"
		"  -n, -np N            number of ranks for this program (default 1)\n"
		"  -env VAR VAL         set VAR for this program's ranks\n"
		"  -genv VAR VAL        set VAR for all ranks\n"
		"  -x VAR[=VAL]         export VAR (with VAL, or its current value) to all ranks\n"
		"  -l, --tag-output     prefix every output line with [rank]\n"
		"  --timeout S          kill the job after S seconds (also MPIEXEC_TIMEOUT)\n"
		"  --host H1[:N][@S],H2...  run on these hosts (-host, -hosts, -H); N: its\n"
		"                       slots; S: its site, the cluster of a grid it is in\n"
		"                       (its ranks' MICHI_SITE; every host one or none)\n"
		"  --hostfile FILE      hosts from FILE (-f, -machinefile), one a line:\n"
		"                       'host', 'host:N' or 'host slots=N', and 'site=S';\n"
		"                       '#' comments. Without sites on 3+ hosts, MPI_Init\n"
		"                       infers them from round-trip times (MICHI_SITE_INFER)\n"
		"  -ppn N               ranks per host (slots of hosts without their own)\n"
		"  --map-by slot|node   slot (default): fill each host's slots (or -ppn,\n"
		"                       or an even share) in order; node: round robin over\n"
		"                       the hosts, skipping full ones\n"
		"  --launcher L         how proxies start: ssh (other hosts by ssh), fork\n"
		"                       (every host here: names are identities only), exec\n"
		"                       (every host by the template), slurm (every host by\n"
		"                       srun, inside an allocation; hosts default to its\n"
		"                       nodes); default: this host's names by fork, others\n"
		"                       by the template\n"
		"  --launcher-exec T    template that starts a proxy on a host, {host}\n"
		"                       replaced, appended when absent (--launch-template;\n"
		"                       default 'ssh -x {host}'; MICHI_LAUNCH_TEMPLATE)\n"
		"  --launch-address A   the address other hosts reach mpirun at (default: they\n"
		"                       try all of this host's; MICHI_LAUNCH_ADDRESS)\n"
		"  --bind-to X          bind each rank to one X of its host, round robin in\n"
		"                       local rank order: none (default), hwthread, core,\n"
		"                       l3cache, socket, numa (needs hwloc; MICHI_BIND_TO)\n"
		"  --report-bindings    print each rank's binding to stderr (MICHI_REPORT_BINDINGS)\n"
		"  -v, --verbose        mpirun's own log at info (MICHI_LOG=info sets it for\n"
		"                       the ranks too): notes such as more ranks than cores;\n"
		"                       without it mpirun prints nothing on success\n"
		"  --oversubscribe, --allow-run-as-root: accepted, always in effect\n"
		"  -genvall             ranks on other hosts get mpirun's environment (the\n"
		"                       default, as MPICH; host-specific variables such as\n"
		"                       HOSTNAME, PWD, SSH_*, SLURM_*, PMI_* stay behind)\n"
		"  -genvlist A,B        ... only these variables (and -genv, -x)\n"
		"  -genvnone            ... none of it (only -genv, -x); ranks on this host\n"
		"                       always inherit mpirun's environment\n"
		"  -wdir DIR            ranks start in DIR (-wd, --wdir, -gwdir); default:\n"
		"                       mpirun's directory, or the home directory (with a\n"
		"                       warning) on a host without it\n"
		"  -h, --help           this text\n"
		"  --version            print the version\n"
		"Each rank gets PMI_FD/PMI_RANK/PMI_SIZE (PMI-1); stdin goes to rank 0\n"
		"when rank 0 runs on this host.\n"
		"Tunables (environment):\n");
	michi_tunables_print(f, MICHI_LEVEL_DEVELOPER);
}

int mr_bad(const char *fmt, const char *arg)
{
	fprintf(stderr, "mpirun: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see mpirun --help)\n");
	return -1;
}

static int mr_add_env(struct mr_env **list, int *n, const char *name,
		      const char *value)
{
	struct mr_env *l = realloc(*list, (size_t)(*n + 1) * sizeof(**list));

	if (!l)
		return -1;
	*list = l;
	l[*n].name = strdup(name);
	l[*n].value = strdup(value);
	if (!l[*n].name || !l[*n].value)
		return -1;
	(*n)++;
	return 0;
}

int mr_parse_count(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > 1000000)
		return -1;
	*out = (int)v;
	return 0;
}

static int mr_parse_x(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[256];

	if (eq) {
		if (eq == arg || (size_t)(eq - arg) >= sizeof(name))
			return mr_bad("bad -x argument '%s'", arg);
		memcpy(name, arg, (size_t)(eq - arg));
		name[eq - arg] = '\0';
		return mr_add_env(&mr.genv, &mr.ngenv, name, eq + 1);
	}
	if (!getenv(arg))
		return 0;   /* as Open MPI: nothing to export */
	return mr_add_env(&mr.genv, &mr.ngenv, arg, getenv(arg));
}

int mr_parse_timeout(const char *s)
{
	char *end;

	errno = 0;
	mr.timeout = strtod(s, &end);
	if (errno || end == s || *end || mr.timeout < 0)
		return mr_bad("bad timeout '%s': expected seconds", s);
	return 0;
}

static int mr_parse_map(const char *s)
{
	if (!strcasecmp(s, "slot") || !strcasecmp(s, "core"))
		mr.map_node = 0;
	else if (!strcasecmp(s, "node"))
		mr.map_node = 1;
	else
		return -1;
	return 0;
}

/* The --bind-to values, as the proxy expects them (launch_bind_names). */
static int mr_parse_bind(const char *s)
{
	int i;

	for (i = 0; launch_bind_names[i]; i++)
		if (!strcasecmp(s, launch_bind_names[i]))
			break;
	if (!launch_bind_names[i]) {
		/* Open MPI's and hwloc's spellings of the same levels */
		if (!strcasecmp(s, "pu") || !strcasecmp(s, "hwthreads"))
			s = "hwthread";
		else if (!strcasecmp(s, "package") || !strcasecmp(s, "sockets"))
			s = "socket";
		else if (!strcasecmp(s, "numanode") || !strcasecmp(s, "numa-node"))
			s = "numa";
		else if (!strcasecmp(s, "cores"))
			s = "core";
		else if (!strcasecmp(s, "l3"))
			s = "l3cache";
		else
			return mr_bad("--bind-to (or MICHI_BIND_TO) '%s': expected none, hwthread, "
				      "core, l3cache, socket or numa", s);
	}
#ifndef HAVE_HWLOC
	if (strcasecmp(s, "none")) {
		fprintf(stderr, "mpirun: --bind-to %s needs hwloc, and this Michi was built "
			"without it (configure --with-hwloc); use --bind-to none\n", s);
		return -1;
	}
#endif
	for (i = 0; launch_bind_names[i]; i++)
		if (!strcasecmp(s, launch_bind_names[i]))
			launch_bind_to = launch_bind_names[i];
	return 0;
}

static int mr_parse_launcher(const char *s)
{
	static const char *const names[] = { [MR_LAUNCH_SSH] = "ssh", [MR_LAUNCH_FORK] = "fork",
					     [MR_LAUNCH_EXEC] = "exec", [MR_LAUNCH_SLURM] = "slurm" };
	int i;

	for (i = MR_LAUNCH_SSH; i <= MR_LAUNCH_SLURM; i++)
		if (!strcmp(s, names[i])) {
			mr.launcher = i;
			return 0;
		}
	return -1;
}

/*
 * The ranks' working directory as an absolute path: -wdir (relative to
 * ours), else ours, spelled as $PWD when that names it (a symlinked home
 * is more likely to exist by that name on the other hosts).
 */
static int mr_wdir_setup(void)
{
	char cwd[PATH_MAX], *w;
	const char *pwd = getenv("PWD");
	struct stat a, b;

	if (pwd && pwd[0] == '/' && stat(pwd, &a) == 0 && stat(".", &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino && strlen(pwd) < sizeof(cwd))
		strcpy(cwd, pwd);
	else if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';   /* removed under us: ranks start where proxies do */
	if (!mr.wdir) {
		mr.wdir = cwd[0] ? strdup(cwd) : NULL;
		return 0;
	}
	if (mr.wdir[0] != '/') {
		if (!cwd[0])
			return mr_bad("-wdir %s is relative, and mpirun's directory is gone", mr.wdir);
		w = malloc(strlen(cwd) + strlen(mr.wdir) + 2);
		if (!w)
			return mr_bad("%s", "out of memory");
		sprintf(w, "%s/%s", cwd, mr.wdir);
		free(mr.wdir);
		mr.wdir = w;
	}
	return 0;
}

/* Returns 1 when the program should exit 0 (help, version), -1 on error. */
int mr_parse(int argc, char **argv)
{
	struct mr_app *a = NULL;
	int i = 1;

	while (i < argc) {
		struct mr_app *na = realloc(mr.apps, (size_t)(mr.napps + 1) * sizeof(*na));

		if (!na)
			return mr_bad("%s", "out of memory");
		mr.apps = na;
		a = &mr.apps[mr.napps++];
		memset(a, 0, sizeof(*a));
		a->n = 1;
		for (; i < argc && argv[i][0] == '-'; i++) {
			const char *o = argv[i];
			int has1 = i + 1 < argc, has2 = i + 2 < argc;

			if (o[1] == '-' && o[2] != '\0')
				o++;   /* --np == -np */
			if (!strcmp(o, "-n") || !strcmp(o, "-np") || !strcmp(o, "-c")) {
				if (!has1 || mr_parse_count(argv[i + 1], &a->n) < 0)
					return mr_bad("%s needs a rank count >= 1", argv[i]);
				i++;
			} else if (!strcmp(o, "-env") || !strcmp(o, "-genv")) {
				if (!has2)
					return mr_bad("%s needs VAR and VALUE", argv[i]);
				if (o[1] == 'e' ? mr_add_env(&a->env, &a->nenv, argv[i + 1], argv[i + 2]) :
				    mr_add_env(&mr.genv, &mr.ngenv, argv[i + 1], argv[i + 2]))
					return mr_bad("%s", "out of memory");
				i += 2;
			} else if (!strcmp(o, "-x")) {
				if (!has1 || mr_parse_x(argv[i + 1]) < 0)
					return mr_bad("%s needs VAR or VAR=VALUE", argv[i]);
				i++;
			} else if (!strcmp(o, "-l") || !strcmp(o, "-tag-output") ||
				   !strcmp(o, "-prepend-rank")) {
				mr.label = 1;
			} else if (!strcmp(o, "-timeout")) {
				if (!has1 || mr_parse_timeout(argv[i + 1]) < 0)
					return -1;
				i++;
			} else if (!strcmp(o, "-hosts") || !strcmp(o, "-host") || !strcmp(o, "-H")) {
				if (!has1)
					return mr_bad("%s needs a host list", argv[i]);
				mr.hosts = argv[++i];
			} else if (!strcmp(o, "-hostfile") || !strcmp(o, "-f") ||
				   !strcmp(o, "-machinefile")) {
				if (!has1)
					return mr_bad("%s needs a file name", argv[i]);
				mr.hostfile = argv[++i];
			} else if (!strcmp(o, "-map-by")) {
				if (!has1 || mr_parse_map(argv[i + 1]) < 0)
					return mr_bad("%s needs 'slot' or 'node'", argv[i]);
				i++;
			} else if (!strcmp(o, "-launcher") || !strcmp(o, "-bootstrap")) {
				if (!has1 || mr_parse_launcher(argv[i + 1]) < 0)
					return mr_bad("%s needs one of ssh, fork, exec, slurm", argv[i]);
				i++;
			} else if (!strcmp(o, "-ppn")) {
				if (!has1 || mr_parse_count(argv[i + 1], &mr.ppn) < 0)
					return mr_bad("%s needs a count >= 1", argv[i]);
				i++;
			} else if (!strcmp(o, "-launch-template") || !strcmp(o, "-launcher-exec") ||
				   !strcmp(o, "-bootstrap-exec")) {
				if (!has1)
					return mr_bad("%s needs a command", argv[i]);
				launch_template = argv[++i];
			} else if (!strcmp(o, "-launch-address")) {
				if (!has1)
					return mr_bad("%s needs an address", argv[i]);
				launch_address = argv[++i];
			} else if (!strcmp(o, "-bind-to") || !strcmp(o, "-binding")) {
				if (!has1)
					return mr_bad("%s needs none, hwthread, core, l3cache, socket or numa",
						      argv[i]);
				launch_bind_to = argv[++i];   /* checked below */
			} else if (!strcmp(o, "-report-bindings")) {
				launch_report_bindings = 1;
			} else if (!strcmp(o, "-genvall")) {
				mr.envfw = MR_ENV_ALL;
			} else if (!strcmp(o, "-genvnone")) {
				mr.envfw = MR_ENV_NONE;
			} else if (!strcmp(o, "-genvlist")) {
				if (!has1)
					return mr_bad("%s needs a comma-separated list of names", argv[i]);
				mr.envfw = MR_ENV_LIST;
				mr.envlist = argv[++i];
			} else if (!strcmp(o, "-wdir") || !strcmp(o, "-wd") || !strcmp(o, "-gwdir")) {
				if (!has1 || !argv[i + 1][0])
					return mr_bad("%s needs a directory", argv[i]);
				free(mr.wdir);
				mr.wdir = strdup(argv[++i]);
				if (!mr.wdir)
					return mr_bad("%s", "out of memory");
				mr.wdir_given = 1;
			} else if (!strcmp(o, "-v") || !strcmp(o, "-verbose")) {
				/* mpirun's own log only: MICHI_LOG, which the ranks
				 * also read, still sets theirs */
				if (michi_log_level < MICHI_LOG_INFO)
					michi_log_level = MICHI_LOG_INFO;
			} else if (!strcmp(o, "-oversubscribe") ||
				   !strcmp(o, "-allow-run-as-root")) {
				/* what these ask for is the default here:
				 * oversubscription and root are allowed */
			} else if (!strcmp(o, "-h") || !strcmp(o, "-help")) {
				mr_usage(stdout);
				return 1;
			} else if (!strcmp(o, "-version") || !strcmp(o, "-V")) {
				printf("mpirun (Michi MPI) %s\n", LAUNCH_VERSION);
				return 1;
			} else {
				return mr_bad("unknown option '%s'", argv[i]);
			}
		}
		if (i >= argc || !strcmp(argv[i], ":"))
			return mr_bad("%s", "missing program name");
		a->argv = &argv[i];
		while (i < argc && strcmp(argv[i], ":"))
			i++, a->argc++;
		if (i < argc) {
			i++;   /* the colon */
			if (i >= argc)
				return mr_bad("%s", "nothing after ':'");
		}
	}
	if (mr.napps == 0) {
		mr_usage(stderr);
		return -1;
	}
	/* --bind-to, else MICHI_BIND_TO */
	if (mr_parse_bind(launch_bind_to) < 0)
		return -1;
	return mr_wdir_setup();
}
