/* SPDX-License-Identifier: MIT */
/*
 * launch/mpirun.c: mpirun / mpiexec, the launcher.
 *
 * Parses the command line (MPICH and Open MPI spellings, MPMD colon
 * syntax), places the ranks over the hosts (--host or --hostfile, default
 * this host; in blocks, or round robin with --map-by node) and starts one
 * michi-proxy per host: a local one by fork with a socketpair as control
 * stream, another host's through a command template (`ssh -x {host}`,
 * `ip netns exec {host}`, srun...; --launcher picks which hosts take it)
 * with --connect back to a TCP port of mpirun (at the first of mpirun's
 * addresses that answers), authenticated by a cookie sent on its stdin.
 * The name a host was given by is its ranks' host identity
 * (MICHI_HOSTNAME), which decides shm within a host and tcp between
 * hosts, also where hosts share a kernel hostname. Then
 * it is the job's judge: it completes fences across proxies, and on the
 * first rank that exits non-zero, dies on a signal, calls abort or exits
 * without finalize after init, it prints one line naming the rank, host
 * and pid, tells every proxy to kill, and exits with that rank's code.
 * SIGINT/SIGTERM/SIGHUP and --timeout end the job the same way.
 */
#include "config.h"
#include "launch.h"
#include "netif.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/time.h>

static const char *launch_proxy_path = "";
MICHI_TUNABLE(launch_proxy_path, "proxy", MICHI_T_STRING, "",
	      MICHI_LEVEL_DEVELOPER,
	      "path of michi-proxy (default: next to the mpirun binary)");

static const char *launch_template = "ssh -x {host}";
MICHI_TUNABLE(launch_template, "launch_template", MICHI_T_STRING, "ssh -x {host}",
	      MICHI_LEVEL_USER,
	      "command that starts michi-proxy on another host; {host} is replaced");

static const char *launch_address = "";
MICHI_TUNABLE(launch_address, "launch_address", MICHI_T_STRING, "",
	      MICHI_LEVEL_USER,
	      "the one address remote proxies connect back to (default: every IPv4 address "
	      "of this host, each proxy takes the first that answers)");

static double launch_kill_grace = 0.5;
MICHI_TUNABLE(launch_kill_grace, "kill_grace", MICHI_T_DOUBLE, "0.5",
	      MICHI_LEVEL_USER,
	      "seconds between SIGTERM and SIGKILL when mpirun ends a job");

static const char *launch_bind_to = "none";
MICHI_TUNABLE(launch_bind_to, "bind_to", MICHI_T_STRING, "none",
	      MICHI_LEVEL_USER,
	      "what each rank is bound to, as --bind-to: none, hwthread, core, l3cache, "
	      "socket or numa (needs hwloc)");

static int launch_report_bindings;
MICHI_TUNABLE(launch_report_bindings, "report_bindings", MICHI_T_BOOL, "0",
	      MICHI_LEVEL_USER,
	      "print each rank's binding to stderr at start (as --report-bindings)");

/* --launcher: which hosts get a forked proxy and which the template */
enum {
	MR_LAUNCH_AUTO,     /* this host's names fork, others take the template */
	MR_LAUNCH_SSH,      /* the same, with an ssh template */
	MR_LAUNCH_FORK,     /* every host forked here: names are identities only */
	MR_LAUNCH_EXEC,     /* every host through the template */
	MR_LAUNCH_SLURM,    /* every host through srun, inside an allocation */
};

enum { MR_ENV_ALL, MR_ENV_LIST, MR_ENV_NONE };

#define MR_SSH_TEMPLATE "ssh -x {host}"
/* one task per host; --mpi=none: the proxy serves PMI to its ranks, srun
 * need not; --overlap: a second mpirun in the same allocation still starts */
#define MR_SRUN_TEMPLATE \
	"srun --ntasks-per-node=1 -N 1 -n 1 --mpi=none --overlap --nodelist={host}"

struct mr_env {
	char *name, *value;
};

struct mr_app {
	int n;
	int argc;
	char **argv;
	struct mr_env *env;
	int nenv;
};

struct mr_kv {
	char *key, *val;
	int from;
};

/* A connection to the connect-back port that has not said hello yet. */
struct mr_pending {
	int fd;             /* -1: slot free */
	struct pmi_wire_reader rd;
	double deadline;
	char name[64];      /* remote address, for the log */
};

/* Remote proxies say hello within a second; strangers may flood the port:
 * at most this many wait at once, the oldest goes for a newcomer. */
#define MR_PENDING_MAX 32
#define MR_HELLO_TIMEOUT 5.0

/* One per host that holds ranks: ranks[0..n) run there, ascending. */
struct mr_proxy {
	pid_t pid;          /* the local proxy, or the template command (ssh) */
	int ctl;            /* -1 until a remote proxy has connected */
	struct pmi_wire_reader rd;
	char host[256];
	int n, *ranks;
	int local;
	int slots;          /* host:N, slots=N; 0: not given */
	char site[64];      /* host@SITE, site=SITE; "": not given */
	int in_fence, done, reaped;
	int connected;      /* its control stream came up (it may close later) */
};

static struct {
	struct mr_app *apps;
	int napps;
	struct mr_env *genv;
	int ngenv;
	int envfw;           /* MR_ENV_*: mpirun's environment on other hosts */
	const char *envlist; /* -genvlist */
	char *wdir;          /* ranks' working directory */
	int wdir_given;      /* -wdir: a host without it fails the job */
	int label;
	double timeout;
	int size;
	struct mr_proxy *proxies;
	int nproxies;
	pid_t *rank_pid;
	int sigfd;
	int aborting;      /* job is being killed */
	int exit_code;     /* first failure's code, 0 if none */
	double kill_deadline;
	char kvsname[128];
	char jobkey[33];
	int nfence;
	struct mr_kv *fence_kv;   /* puts of this fence, for the other proxies */
	int nfence_kv;
	const char *hosts;   /* -hosts list, NULL: this host only */
	const char *hostfile;
	int ppn;
	int map_node;        /* --map-by node: round robin over the hosts */
	int launcher;        /* MR_LAUNCH_* */
	int *rank_proxy;     /* proxy index of every rank */
	int listen_fd;
	char cookie[33];
	char address[1200];  /* ADDR:PORT[,ADDR:PORT...] remote proxies try */
	int port;            /* of the connect-back listener */
	struct mr_pending pending[MR_PENDING_MAX];
	struct launch_ratelimit reject_rl;
} mr = { .listen_fd = -1 };

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

static int mr_bad(const char *fmt, const char *arg)
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

static int mr_parse_count(const char *s, int *out)
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

static int mr_parse_timeout(const char *s)
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
static int mr_parse(int argc, char **argv)
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

/* ---- starting the proxy ----------------------------------------------- */

static int mr_proxy_path(char *buf, size_t len)
{
	ssize_t n;
	char *slash;

	if (launch_proxy_path && *launch_proxy_path) {
		snprintf(buf, len, "%s", launch_proxy_path);
		return 0;
	}
	n = readlink("/proc/self/exe", buf, len - 32);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return -1;
	strcpy(slash + 1, "michi-proxy");
	if (access(buf, X_OK) == 0)
		return 0;
	/* a libtool build keeps binaries in .libs/: look one level up */
	*slash = '\0';
	slash = strrchr(buf, '/');
	if (slash && strcmp(slash, "/.libs") == 0) {
		strcpy(slash + 1, "michi-proxy");
		if (access(buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

static int mr_remote_start(struct mr_proxy *p, const char *path);
static int mr_is_local(const char *h);

static int mr_proxy_start(struct mr_proxy *p, int with_stdin)
{
	char path[PATH_MAX], num[24];
	int sv[2];
	pid_t pid, parent = getpid();

	if (mr_proxy_path(path, sizeof(path)) < 0) {
		fprintf(stderr, "mpirun: cannot find michi-proxy next to mpirun (set MICHI_PROXY)\n");
		return -1;
	}
	if (pmi_wire_reader_init(&p->rd, LAUNCH_CTL_LINE_MAX) < 0)
		return -1;
	if (!p->local)
		return mr_remote_start(p, path);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		fprintf(stderr, "mpirun: socketpair failed: %m\n");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "mpirun: fork failed: %m\n");
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		int fd = fcntl(sv[1], F_DUPFD, 3);   /* without CLOEXEC */

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		if (!with_stdin) {
			int nul = open("/dev/null", O_RDONLY);

			if (nul >= 0 && nul != 0) {
				dup2(nul, 0);
				close(nul);
			}
		}
		snprintf(num, sizeof(num), "%d", fd);
		execl(path, "michi-proxy", "--control-fd", num, (char *)NULL);
		fprintf(stderr, "mpirun: cannot run %s: %m\n", path);
		_exit(127);
	}
	close(sv[1]);
	p->pid = pid;
	p->ctl = sv[0];
	p->connected = 1;
	return 0;
}

/*
 * Split the template at spaces, {host} replaced; no shell involved. A
 * template without {host} gets the host as its last word, so that
 * `--launcher-exec /usr/bin/ssh` works as in MPICH.
 */
static char **mr_template_argv(const struct mr_proxy *p, const char *path)
{
	const char *host = p->host;
	size_t cap = 8, n = 0;
	char **av = calloc(cap, sizeof(*av));
	char *t = malloc(strlen(launch_template) + 8), *save = NULL, *w;

	if (!av || !t)
		goto err;
	strcpy(t, launch_template);
	if (!strstr(t, "{host}"))
		strcat(t, " {host}");
	for (w = strtok_r(t, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		char buf[1024], *h;
		size_t bl = 0;

		while ((h = strstr(w, "{host}"))) {
			bl += (size_t)snprintf(buf + bl, sizeof(buf) - bl, "%.*s%s",
					       (int)(h - w), w, host);
			if (bl >= sizeof(buf))
				goto err;
			w = h + 6;
		}
		snprintf(buf + bl, sizeof(buf) - bl, "%s", w);
		if (n + 5 > cap) {
			char **na = realloc(av, (cap *= 2) * sizeof(*av));

			if (!na)
				goto err;
			av = na;
		}
		if (!(av[n++] = strdup(buf)))
			goto err;
	}
	av[n++] = strdup(path);
	av[n++] = strdup("--connect");
	if (!*launch_address && mr_is_local(host)) {
		/* a proxy that a template starts on this very host (srun on
		 * our node) reaches loopback for sure, and first */
		char *l = malloc(strlen(mr.address) + 32);

		if (l)
			sprintf(l, "127.0.0.1:%d,%s", mr.port, mr.address);
		av[n++] = l;
	} else {
		av[n++] = strdup(mr.address);
	}
	av[n] = NULL;
	free(t);
	return av;
err:
	free(t);
	free(av);   /* the strings leak: mpirun is about to exit */
	return NULL;
}

/* A proxy on another host: run the template, hand it the cookie on stdin,
 * and wait for it to connect back (mr_accept). */
static int mr_remote_start(struct mr_proxy *p, const char *path)
{
	char **av = mr_template_argv(p, path);
	char line[64];
	int in[2], len;
	pid_t pid, parent = getpid();

	if (!av || pipe2(in, O_CLOEXEC) < 0) {
		fprintf(stderr, "mpirun: cannot prepare the start of a proxy on %s\n", p->host);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "mpirun: fork failed: %m\n");
		return -1;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent || dup2(in[0], 0) < 0)
			_exit(127);
		execvp(av[0], av);
		fprintf(stderr, "mpirun: cannot run '%s' to reach host %s: %m\n", av[0], p->host);
		_exit(127);
	}
	close(in[0]);
	len = snprintf(line, sizeof(line), "%s:%d\n", mr.cookie, (int)(p - mr.proxies));
	if (pmi_wire_write_all(in[1], line, (size_t)len) < 0)
		michi_debug("cookie for %s not delivered: %s", p->host, michi_err_msg());
	close(in[1]);
	p->pid = pid;
	p->ctl = -1;
	return 0;
}

static int mr_send(struct mr_proxy *p, struct pmi_wire_out *o)
{
	if (p->ctl < 0)
		return -1;
	if (launch_ctl_send(p->ctl, o) < 0) {
		michi_debug("mpirun: control write to proxy on %s failed: %s",
			    p->host, michi_err_msg());
		return -1;
	}
	return 0;
}

static int mr_send_env(struct mr_proxy *p, const struct mr_env *e)
{
	char *line;
	size_t cap = 3 * (strlen(e->name) + strlen(e->value)) + 64;
	struct pmi_wire_out o;
	int rc;

	if (cap > LAUNCH_CTL_LINE_MAX) {
		fprintf(stderr, "mpirun: environment value of %s is too long\n", e->name);
		return -1;
	}
	line = malloc(cap);
	if (!line)
		return -1;
	pmi_wire_begin(&o, line, cap, "env");
	launch_add_text(&o, "name", e->name);
	launch_add_text(&o, "value", e->value);
	rc = mr_send(p, &o);
	free(line);
	return rc;
}

/* How many ranks from r on run on proxy node, one after the other. */
static int mr_run_length(int r, int node)
{
	int k = r;

	while (k < mr.size && mr.rank_proxy[k] == node)
		k++;
	return k - r;
}

/*
 * MPICH's node map, (vector,(first_node,node_count,ranks_per_node),...):
 * ranks in order, each triple covering node_count consecutive nodes with
 * ranks_per_node consecutive ranks each; blocks give one triple per run of
 * equal hosts, round robin one triple per round. Empty if it does not fit
 * a value (MPICH then works without it).
 */
static void mr_process_mapping(char *map, size_t len)
{
	size_t n = (size_t)snprintf(map, len, "(vector");
	int r = 0;

	while (r < mr.size && n < len) {
		int node = mr.rank_proxy[r], rpn = mr_run_length(r, node), nodes = 1;

		r += rpn;
		while (r < mr.size && mr.rank_proxy[r] == node + nodes &&
		       mr_run_length(r, node + nodes) == rpn) {
			r += rpn;
			nodes++;
		}
		n += (size_t)snprintf(map + n, len - n, ",(%d,%d,%d)", node, nodes, rpn);
	}
	if (n + 2 > len)
		map[0] = '\0';
	else
		strcat(map, ")");
}

/* The rank identity of a proxy's ranks: the name it was given, or this
 * host's own name for the names of this host. */
static const char *mr_identity(const struct mr_proxy *p)
{
	return mr_is_local(p->host) ? michi_hostname() : p->host;
}

/*
 * Variables of mpirun's environment that describe this host, this login
 * or a job around mpirun, not the job's ranks: a proxy on another host
 * keeps its own. The proxy sets the PMI variables itself in any case.
 */
static int mr_env_stays(const char *name, size_t len)
{
	static const char *const exact[] = {
		"HOSTNAME", "HOST", "PWD", "OLDPWD", "SHLVL", "_", "DISPLAY", "XAUTHORITY",
		"MICHI_HOSTNAME", "MICHI_HOST_CPUS", "MICHI_SITE", "MPI_LOCALRANKID",
		"MPI_LOCALNRANKS", NULL
	};
	static const char *const prefix[] = { "SSH_", "SLURM_", "PMI_", "PMIX_", NULL };
	int k;

	for (k = 0; exact[k]; k++)
		if (strlen(exact[k]) == len && !memcmp(exact[k], name, len))
			return 1;
	for (k = 0; prefix[k]; k++)
		if (len >= strlen(prefix[k]) && !memcmp(prefix[k], name, strlen(prefix[k])))
			return 1;
	return 0;
}

static int mr_env_listed(const char *name, size_t len)
{
	const char *l = mr.envlist;

	while (l && *l) {
		size_t n = strcspn(l, ",");

		if (n == len && !memcmp(l, name, len))
			return 1;
		l += n + (l[n] == ',');
	}
	return 0;
}

/*
 * mpirun's environment for a proxy on another host (which does not
 * inherit it), lowest priority: -genv, -x and -env follow and win.
 */
static int mr_send_environ(struct mr_proxy *p)
{
	extern char **environ;
	char **e;

	if (p->local || mr.envfw == MR_ENV_NONE)
		return 0;
	for (e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		struct mr_env v;
		size_t len;
		int rc;

		if (!eq || eq == *e)
			continue;
		len = (size_t)(eq - *e);
		if (mr.envfw == MR_ENV_LIST ? !mr_env_listed(*e, len) : mr_env_stays(*e, len))
			continue;
		v.name = strndup(*e, len);
		v.value = (char *)eq + 1;
		if (!v.name)
			return -1;
		rc = mr_send_env(p, &v);
		free(v.name);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* The arguments and environment of app a, after its app line. */
static int mr_send_app_body(struct mr_proxy *p, int i)
{
	struct mr_app *a = &mr.apps[i];
	struct pmi_wire_out o;
	int j;

	for (j = 0; j < a->argc; j++) {
		size_t cap = 3 * strlen(a->argv[j]) + 32;
		char *l = malloc(cap);
		int rc;

		if (!l || cap > LAUNCH_CTL_LINE_MAX) {
			free(l);
			fprintf(stderr, "mpirun: argument %d of program %d is too long\n", j, i);
			return -1;
		}
		pmi_wire_begin(&o, l, cap, "arg");
		launch_add_text(&o, "value", a->argv[j]);
		rc = mr_send(p, &o);
		free(l);
		if (rc < 0)
			return -1;
	}
	if (mr_send_environ(p) < 0)
		return -1;
	for (j = 0; j < mr.ngenv; j++)
		if (mr_send_env(p, &mr.genv[j]) < 0)
			return -1;
	for (j = 0; j < a->nenv; j++)
		if (mr_send_env(p, &a->env[j]) < 0)
			return -1;
	return 0;
}

/* Where its ranks start: a line of its own, a path can be long. */
static int mr_send_wdir(struct mr_proxy *p)
{
	struct pmi_wire_out o;
	size_t cap;
	char *line;
	int rc;

	if (!mr.wdir)
		return 0;
	cap = 3 * strlen(mr.wdir) + 64;
	if (!(line = malloc(cap)))
		return -1;
	pmi_wire_begin(&o, line, cap, "wdir");
	launch_add_text(&o, "path", mr.wdir);
	pmi_wire_add_int(&o, "required", mr.wdir_given);
	rc = mr_send(p, &o);
	free(line);
	return rc;
}

/*
 * MPI_UNIVERSE_SIZE: the slots of the job's hosts (host:N, slots=N; this
 * host without a count has as many as it has processors, as with MPICH's
 * mpiexec; another one counts its ranks), at least the job's size.
 */
static int mr_universe(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int i, u = 0;

	for (i = 0; i < mr.nproxies; i++) {
		const struct mr_proxy *p = &mr.proxies[i];
		int s = p->slots ? p->slots : p->local && cpus > 0 ? (int)cpus : p->n;

		u += s > p->n ? s : p->n;
	}
	return u > mr.size ? u : mr.size;
}

/* The job as one proxy sees it: its slice of every app context. */
static int mr_send_job(struct mr_proxy *p)
{
	char line[PMI_WIRE_LINE_MAX], map[PMI_WIRE_VAL_MAX];
	struct pmi_wire_out o;
	int i, k = 0, first = 0;

	pmi_wire_begin(&o, line, sizeof(line), "job");
	pmi_wire_add(&o, "kvsname", mr.kvsname);
	pmi_wire_add_int(&o, "size", mr.size);
	pmi_wire_add_int(&o, "universe", mr_universe());
	pmi_wire_add_int(&o, "label", mr.label);
	pmi_wire_add_int(&o, "grace_ms", (long)(launch_kill_grace * 1000));
	pmi_wire_add_int(&o, "keepalive_ms", (long)(launch_keepalive * 1000));
	/* mpirun's stdin reaches only a proxy forked here */
	pmi_wire_add_int(&o, "stdin_rank", p->local && p->ranks[0] == 0 ? 0 : -1);
	launch_add_text(&o, "host", mr_identity(p));
	if (p->site[0])
		launch_add_text(&o, "site", p->site);
	pmi_wire_add(&o, "bind", launch_bind_to);
	pmi_wire_add_int(&o, "report_bindings", launch_report_bindings);
	if (mr_send(p, &o) < 0 || mr_send_wdir(p) < 0)
		return -1;
	pmi_wire_begin(&o, line, sizeof(line), "kv");
	pmi_wire_add(&o, "key", PMI_WIRE_JOB_KEY);
	pmi_wire_add(&o, "value", mr.jobkey);
	if (mr_send(p, &o) < 0)
		return -1;
	mr_process_mapping(map, sizeof(map));
	if (map[0]) {
		pmi_wire_begin(&o, line, sizeof(line), "kv");
		pmi_wire_add(&o, "key", "PMI_process_mapping");
		pmi_wire_add(&o, "value", map);
		if (mr_send(p, &o) < 0)
			return -1;
	}
	/*
	 * Each app's ranks here go as runs of equal stride (blocks: one run
	 * of stride 1; round robin: one run of stride nhosts), one app line
	 * each, its arguments and environment repeated.
	 */
	for (i = 0; i < mr.napps; i++) {
		int end = first + mr.apps[i].n;

		while (k < p->n && p->ranks[k] < end) {
			int r0 = p->ranks[k], stride = 1, n = 1;

			if (k + 1 < p->n && p->ranks[k + 1] < end)
				stride = p->ranks[k + 1] - r0;
			while (k + n < p->n && p->ranks[k + n] < end &&
			       p->ranks[k + n] == r0 + n * stride)
				n++;
			k += n;
			pmi_wire_begin(&o, line, sizeof(line), "app");
			pmi_wire_add_int(&o, "appnum", i);
			pmi_wire_add_int(&o, "first", r0);
			pmi_wire_add_int(&o, "n", n);
			if (stride != 1)
				pmi_wire_add_int(&o, "stride", stride);
			pmi_wire_add_int(&o, "argc", mr.apps[i].argc);
			if (mr_send(p, &o) < 0 || mr_send_app_body(p, i) < 0)
				return -1;
		}
		first = end;
	}
	pmi_wire_begin(&o, line, sizeof(line), "start");
	return mr_send(p, &o);
}

/* ---- the job's judge -------------------------------------------------- */

static void mr_kill_job(void)
{
	char line[32];
	struct pmi_wire_out o;
	int i;

	if (mr.aborting)
		return;
	mr.aborting = 1;
	/* proxies kill with a grace; after this they are killed themselves */
	mr.kill_deadline = michi_wtime() + launch_kill_grace + 5.0;
	for (i = 0; i < mr.nproxies; i++) {
		pmi_wire_begin(&o, line, sizeof(line), "kill");
		mr_send(&mr.proxies[i], &o);
	}
}

static void mr_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void mr_fail(int code, const char *fmt, ...)
{
	va_list ap;

	if (mr.aborting)
		return;
	mr.exit_code = (code & 0xff) ? (code & 0xff) : 1;
	va_start(ap, fmt);
	fprintf(stderr, "mpirun: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	mr_kill_job();
}

static void mr_on_exit(struct mr_proxy *p, const struct pmi_wire_msg *m)
{
	int rank = -1, pid = 0, code = 0, sig = 0, init = 0, fin = 0;

	pmi_wire_get_int(m, "rank", &rank);
	pmi_wire_get_int(m, "pid", &pid);
	pmi_wire_get_int(m, "initialized", &init);
	pmi_wire_get_int(m, "finalized", &fin);
	michi_err_clear();
	if (pmi_wire_get(m, "signal") && pmi_wire_get_int(m, "signal", &sig) == MICHI_OK) {
		mr_fail(128 + sig, "rank %d (pid %d on host %s) killed by signal %d (%s); job aborted",
			rank, pid, p->host, sig, launch_signame(sig));
		return;
	}
	pmi_wire_get_int(m, "code", &code);
	if (code != 0) {
		mr_fail(code, "rank %d (pid %d on host %s) exited with code %d; job aborted",
			rank, pid, p->host, code);
		return;
	}
	if (init && !fin)
		mr_fail(1, "rank %d (pid %d on host %s) exited without calling finalize; job aborted",
			rank, pid, p->host);
}

static void mr_on_abort(struct mr_proxy *p, const struct pmi_wire_msg *m)
{
	int rank = -1, pid = 0, code = 1;
	const char *msg = pmi_wire_get(m, "message");
	char *text = strdup(msg ? msg : "");

	pmi_wire_get_int(m, "rank", &rank);
	pmi_wire_get_int(m, "pid", &pid);
	pmi_wire_get_int(m, "exitcode", &code);
	michi_err_clear();
	if (text)
		pmi_wire_unescape(text);
	mr_fail(code, "rank %d (pid %d on host %s) called abort with exit code %d%s%s; job aborted",
		rank, pid, p->host, code, text && *text ? ": " : "", text ? text : "");
	free(text);
}

/* All proxies arrived: each gets the puts of the others, then fence_out. */
static void mr_fence_complete(void)
{
	char line[PMI_WIRE_LINE_MAX + 64];
	struct pmi_wire_out o;
	int i, k;

	for (i = 0; i < mr.nproxies; i++) {
		for (k = 0; k < mr.nfence_kv; k++) {
			if (mr.fence_kv[k].from == i)
				continue;
			pmi_wire_begin(&o, line, sizeof(line), "kv");
			pmi_wire_add(&o, "key", mr.fence_kv[k].key);
			pmi_wire_add(&o, "value", mr.fence_kv[k].val);
			mr_send(&mr.proxies[i], &o);
		}
		pmi_wire_begin(&o, line, sizeof(line), "fence_out");
		mr_send(&mr.proxies[i], &o);
		mr.proxies[i].in_fence = 0;
	}
	for (k = 0; k < mr.nfence_kv; k++) {
		free(mr.fence_kv[k].key);
		free(mr.fence_kv[k].val);
	}
	mr.nfence_kv = 0;
	mr.nfence = 0;
}

static void mr_on_kv(int from, const struct pmi_wire_msg *m)
{
	const char *k = pmi_wire_get(m, "key"), *v = pmi_wire_get(m, "value");
	struct mr_kv *nk;

	if (!k || !v || mr.nproxies == 1)
		return;   /* one proxy already holds every put */
	nk = realloc(mr.fence_kv, (size_t)(mr.nfence_kv + 1) * sizeof(*nk));
	if (!nk)
		return;
	mr.fence_kv = nk;
	nk += mr.nfence_kv;
	nk->key = strdup(k);
	nk->val = strdup(v);
	nk->from = from;
	if (!nk->key || !nk->val) {
		mr_fail(1, "out of memory for the key-value space");
		return;
	}
	mr.nfence_kv++;
}

/* ---- name service (MPI_Publish_name and friends) ------------------------ */

/*
 * The job's table of published service names: the proxies forward their
 * ranks' publish_name, unpublish_name and lookup_name (launch/proxy.c,
 * proxy_ns_forward) as `ns` lines; each is answered at once with an
 * `ns_reply` for that rank. Names stay until unpublished or the job ends;
 * publishing a name twice fails, as in MPICH's name servers.
 */
struct mr_ns_entry {
	struct mr_ns_entry *next;
	char *service, *port;
};
static struct mr_ns_entry *mr_ns_table;

static void mr_ns_line(struct mr_proxy *p, const struct pmi_wire_msg *m)
{
	char line[PMI_WIRE_LINE_MAX];
	const char *op = pmi_wire_get(m, "op"), *svc = pmi_wire_get(m, "service"),
		   *port = pmi_wire_get(m, "port"), *rank = pmi_wire_get(m, "rank");
	const char *answer, *why = NULL;
	struct mr_ns_entry **e, *n;
	struct pmi_wire_out o;

	if (!op || !svc || !rank)
		return;
	for (e = &mr_ns_table; *e && strcmp((*e)->service, svc) != 0; e = &(*e)->next)
		;
	if (!strcmp(op, "publish_name")) {
		answer = "publish_result";
		if (*e)
			why = "the service name is published already";
		else if (!port)
			why = "no port given";
		else if (!(n = calloc(1, sizeof(*n))) || !(n->service = strdup(svc)) ||
			 !(n->port = strdup(port)))
			why = "mpirun is out of memory";
		else {
			n->next = mr_ns_table;
			mr_ns_table = n;
		}
	} else if (!strcmp(op, "unpublish_name")) {
		answer = "unpublish_result";
		if (!*e) {
			why = "the service name is not published";
		} else {
			n = *e;
			*e = n->next;
			free(n->service);
			free(n->port);
			free(n);
		}
	} else if (!strcmp(op, "lookup_name")) {
		answer = "lookup_result";
		if (!*e)
			why = "the service name is not published";
	} else {
		return;
	}
	pmi_wire_begin(&o, line, sizeof(line), "ns_reply");
	pmi_wire_add(&o, "rank", rank);
	pmi_wire_add(&o, "answer", answer);
	pmi_wire_add(&o, "rc", why ? "-1" : "0");
	launch_add_text(&o, "msg", why ? why : "success");
	if (!why && !strcmp(op, "lookup_name"))
		pmi_wire_add(&o, "port", (*e)->port);
	mr_send(p, &o);
}

static void mr_ctl_line(int idx, const struct pmi_wire_msg *m)
{
	struct mr_proxy *p = &mr.proxies[idx];
	const char *cmd = pmi_wire_cmd(m);
	int rank, pid;

	if (!strcmp(cmd, "started")) {
		if (pmi_wire_get_int(m, "rank", &rank) == MICHI_OK &&
		    pmi_wire_get_int(m, "pid", &pid) == MICHI_OK &&
		    rank >= 0 && rank < mr.size)
			mr.rank_pid[rank] = pid;
	} else if (!strcmp(cmd, "kv")) {
		mr_on_kv(idx, m);
	} else if (!strcmp(cmd, "fence_in")) {
		if (!p->in_fence) {
			p->in_fence = 1;
			if (++mr.nfence == mr.nproxies)
				mr_fence_complete();
		}
	} else if (!strcmp(cmd, "exit")) {
		mr_on_exit(p, m);
	} else if (!strcmp(cmd, "abort")) {
		mr_on_abort(p, m);
	} else if (!strcmp(cmd, "error")) {
		const char *msg = pmi_wire_get(m, "message");
		char *text = strdup(msg ? msg : "");

		if (text)
			pmi_wire_unescape(text);
		mr_fail(1, "proxy on host %s: %s; job aborted", p->host, text ? text : "failed");
		free(text);
	} else if (!strcmp(cmd, "done")) {
		p->done = 1;
	} else if (!strcmp(cmd, "ns")) {
		mr_ns_line(p, m);
	} else {
		michi_warn("mpirun: unknown control line cmd=%s from proxy on %s", cmd, p->host);
	}
	michi_err_clear();
}

static void mr_proxy_read(int idx)
{
	struct mr_proxy *p = &mr.proxies[idx];
	struct pmi_wire_msg m;
	michi_status_t st = pmi_wire_reader_fill(&p->rd, p->ctl);

	for (;;) {
		michi_status_t nx = pmi_wire_reader_next(&p->rd, &m);

		if (nx == MICHI_INPROGRESS)
			break;
		if (nx == MICHI_OK)
			mr_ctl_line(idx, &m);
		else
			michi_warn("mpirun: bad line from proxy on %s: %s", p->host, michi_err_msg());
	}
	if (st == MICHI_ERR_PEER || st == MICHI_ERR_IO) {
		int err = st == MICHI_ERR_IO ? errno : 0;

		close(p->ctl);
		p->ctl = -1;
		if (p->done)
			return;
		if (err == ETIMEDOUT)
			mr_fail(1, "lost the proxy on host %s (pid %d): no answer within %g s "
				"(host down or network cut? tunable MICHI_LAUNCH_KEEPALIVE); job aborted",
				p->host, (int)p->pid, launch_keepalive);
		else
			mr_fail(1, "lost the proxy on host %s (pid %d): %s; job aborted",
				p->host, (int)p->pid,
				err ? strerror(err) : "connection closed (proxy killed?)");
		/* what started it (ssh, the template) ends now; a proxy that
		 * lives on ends its ranks when it finds us gone */
		if (!p->reaped && p->pid > 0)
			kill(p->pid, SIGTERM);
	}
}

/*
 * The job could not be written to a proxy. A proxy that stops reading
 * has usually said why first (a -wdir it cannot enter): its lines are
 * read, for at most a second, so that its reason is the job's message.
 */
static void mr_send_failed(struct mr_proxy *p)
{
	struct pollfd pfd = { .fd = p->ctl, .events = POLLIN };

	if (p->ctl >= 0 && poll(&pfd, 1, 1000) > 0)
		mr_proxy_read((int)(p - mr.proxies));
	mr_fail(1, "cannot send the job to the proxy on host %s", p->host);
}

static void mr_reap(void)
{
	int status, i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < mr.nproxies; i++) {
			struct mr_proxy *p = &mr.proxies[i];

			if (p->pid != pid)
				continue;
			p->reaped = 1;
			if (p->done || mr.aborting)
				continue;
			/* A proxy that exits 0 right after writing "done" may be
			 * reaped before that line is read: the control socket
			 * decides, and its EOF without "done" fails the job. */
			if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && p->ctl >= 0)
				continue;
			if (WIFSIGNALED(status))
				mr_fail(1, "proxy on host %s (pid %d) killed by signal %d (%s); job aborted",
					p->host, (int)pid, WTERMSIG(status),
					launch_signame(WTERMSIG(status)));
			else
				mr_fail(1, "proxy on host %s (pid %d) exited with code %d before the job ended; job aborted",
					p->host, (int)pid, WEXITSTATUS(status));
		}
	}
}

static void mr_signal(void)
{
	struct signalfd_siginfo si;

	while (read(mr.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			mr_reap();
			continue;
		}
		if (!mr.aborting)
			mr_fail(128 + (int)si.ssi_signo,
				"received signal %d (%s); killing the job",
				(int)si.ssi_signo, launch_signame((int)si.ssi_signo));
	}
}

static int mr_finished(void)
{
	int i;

	for (i = 0; i < mr.nproxies; i++)
		if (!mr.proxies[i].reaped)
			return 0;
	return 1;
}

static void mr_reject(struct mr_pending *c, const char *why)
{
	unsigned skipped;

	if (launch_ratelimit_ok(&mr.reject_rl, &skipped)) {
		if (skipped)
			michi_warn("mpirun: rejected a connection from %s: %s (%u more rejected, "
				   "not logged)", c->name, why, skipped);
		else
			michi_warn("mpirun: rejected a connection from %s: %s", c->name, why);
	}
	michi_err_clear();
	pmi_wire_reader_destroy(&c->rd);
	close(c->fd);
	c->fd = -1;
}

/* Something connected to the connect-back port: it waits, nonblocking,
 * for its hello (mr_hello_read), so that a silent or slow stranger never
 * holds up the job. */
static void mr_accept(void)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	struct mr_pending *c = NULL, *old = NULL;
	char ip[INET_ADDRSTRLEN] = "?";
	int fd, i;

	fd = accept4(mr.listen_fd, (struct sockaddr *)&sa, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE) {
			/* out of descriptors: shed the oldest waiting stranger,
			 * else the listener stays readable and we spin */
			for (i = 0; i < MR_PENDING_MAX; i++)
				if (mr.pending[i].fd >= 0 && (!old || mr.pending[i].deadline < old->deadline))
					old = &mr.pending[i];
			if (old)
				mr_reject(old, "out of file descriptors");
		}
		return;
	}
	for (i = 0; i < MR_PENDING_MAX && !c; i++) {
		if (mr.pending[i].fd < 0)
			c = &mr.pending[i];
		else if (!old || mr.pending[i].deadline < old->deadline)
			old = &mr.pending[i];
	}
	if (!c) {
		mr_reject(old, "no hello yet, and newer connections are waiting");
		c = old;
	}
	if (pmi_wire_reader_init(&c->rd, 512) < 0) {
		michi_err_clear();
		close(fd);
		return;
	}
	c->fd = fd;
	c->deadline = michi_wtime() + MR_HELLO_TIMEOUT;
	if (sa.sin_family == AF_INET)
		inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
	snprintf(c->name, sizeof(c->name), "%s:%u", ip, ntohs(sa.sin_port));
}

/* -v: which of our addresses a proxy reached, and from where. */
static void mr_log_arrival(const struct mr_proxy *p, const struct mr_pending *c)
{
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	char ip[INET_ADDRSTRLEN] = "?";

	if (michi_log_level < MICHI_LOG_INFO)
		return;
	if (getsockname(c->fd, (struct sockaddr *)&me, &ml) == 0 && me.sin_family == AF_INET)
		inet_ntop(AF_INET, &me.sin_addr, ip, sizeof(ip));
	michi_info("proxy on host %s connected back to %s:%d from %s", p->host, ip, mr.port,
		   c->name);
}

/* A waiting connection is readable: its first line must be the hello of
 * one of our proxies, with the cookie; then it gets the job. */
static void mr_hello_read(struct mr_pending *c)
{
	struct pmi_wire_msg m;
	const char *cookie, *colon;
	struct mr_proxy *p;
	michi_status_t st = pmi_wire_reader_fill(&c->rd, c->fd);
	int idx, fl;

	if (st == MICHI_ERR_PEER || st == MICHI_ERR_IO) {
		if (st == MICHI_ERR_PEER && c->rd.len == 0) {
			/* not a byte: how a proxy drops the attempts that lost
			 * its race over our addresses (proxy_connect_any) */
			michi_debug("mpirun: %s closed without a word", c->name);
			michi_err_clear();
			pmi_wire_reader_destroy(&c->rd);
			close(c->fd);
			c->fd = -1;
			return;
		}
		mr_reject(c, "closed before its hello");
		return;
	}
	st = pmi_wire_reader_next(&c->rd, &m);
	if (st == MICHI_INPROGRESS)
		return;
	if (st < 0 || strcmp(pmi_wire_cmd(&m), "hello") != 0) {
		mr_reject(c, "not a proxy's hello");
		return;
	}
	cookie = pmi_wire_get(&m, "cookie");
	colon = cookie ? strchr(cookie, ':') : NULL;
	if (!colon || (size_t)(colon - cookie) != strlen(mr.cookie) ||
	    memcmp(cookie, mr.cookie, strlen(mr.cookie)) != 0) {
		mr_reject(c, "wrong cookie");
		return;
	}
	idx = atoi(colon + 1);
	if (idx < 0 || idx >= mr.nproxies || mr.proxies[idx].local ||
	    mr.proxies[idx].ctl >= 0 || mr.proxies[idx].connected) {
		mr_reject(c, "the cookie's proxy is not expected (again)");
		return;
	}
	pmi_wire_reader_destroy(&c->rd);
	p = &mr.proxies[idx];
	mr_log_arrival(p, c);
	/* the job goes out with blocking writes, as to a local proxy */
	fl = fcntl(c->fd, F_GETFL);
	fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK);
	launch_ctl_keepalive(c->fd, launch_keepalive);
	p->ctl = c->fd;
	p->connected = 1;
	c->fd = -1;
	if (mr_send_job(p) < 0)
		mr_send_failed(p);
}

static void mr_pending_timers(double now)
{
	int i;

	for (i = 0; i < MR_PENDING_MAX; i++)
		if (mr.pending[i].fd >= 0 && now >= mr.pending[i].deadline)
			mr_reject(&mr.pending[i], "no hello within 5 s");
}

static int mr_all_connected(void)
{
	int i;

	for (i = 0; i < mr.nproxies; i++)
		if (!mr.proxies[i].connected && !mr.proxies[i].reaped)
			return 0;
	return 1;
}

static int mr_loop(void)
{
	struct pollfd *pfd = calloc((size_t)mr.nproxies + 2 + MR_PENDING_MAX, sizeof(*pfd));
	double start = michi_wtime();
	int i;

	if (!pfd)
		return 1;
	while (!mr_finished()) {
		double now = michi_wtime(), wait = 1.0;
		int n;

		if (mr.timeout > 0 && !mr.aborting && now - start >= mr.timeout)
			mr_fail(124, "job did not finish within the timeout of %g s; killing it",
				mr.timeout);
		if (!mr.aborting && now - start > launch_connect_timeout && !mr_all_connected()) {
			for (i = 0; i < mr.nproxies && mr.proxies[i].connected; i++)
				;
			mr_fail(1, "the proxy on host %s did not connect back to any of %s within %g s "
				"(check MICHI_LAUNCH_TEMPLATE and MICHI_LAUNCH_ADDRESS); job aborted",
				mr.proxies[i].host, mr.address, launch_connect_timeout);
		}
		if (mr.aborting && now >= mr.kill_deadline) {
			/* a proxy that does not end: its ranks die with it
			 * through PR_SET_PDEATHSIG */
			for (i = 0; i < mr.nproxies; i++)
				if (!mr.proxies[i].reaped)
					kill(mr.proxies[i].pid, SIGKILL);
			mr.kill_deadline = now + 1.0;
		}
		if (mr.timeout > 0 && !mr.aborting && start + mr.timeout - now < wait)
			wait = start + mr.timeout - now;
		pfd[0].fd = mr.sigfd;
		pfd[0].events = POLLIN;
		for (i = 0; i < mr.nproxies; i++) {
			pfd[1 + i].fd = mr.proxies[i].ctl;
			pfd[1 + i].events = POLLIN;
		}
		pfd[1 + mr.nproxies].fd = mr.aborting ? -1 : mr.listen_fd;
		pfd[1 + mr.nproxies].events = POLLIN;
		mr_pending_timers(now);
		for (i = 0; i < MR_PENDING_MAX; i++) {
			pfd[2 + mr.nproxies + i].fd = mr.pending[i].fd;
			pfd[2 + mr.nproxies + i].events = POLLIN;
			if (mr.pending[i].fd >= 0 && mr.pending[i].deadline - now < wait)
				wait = mr.pending[i].deadline - now;
		}
		if (wait < 0)
			wait = 0;
		n = poll(pfd, (nfds_t)(2 + mr.nproxies + MR_PENDING_MAX), (int)(wait * 1000) + 1);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "mpirun: poll failed: %m\n");
			return 1;
		}
		if (n <= 0)
			continue;
		for (i = 0; i < mr.nproxies; i++)
			if (pfd[1 + i].revents && mr.proxies[i].ctl >= 0)
				mr_proxy_read(i);
		for (i = 0; i < MR_PENDING_MAX; i++)
			if (pfd[2 + mr.nproxies + i].revents && mr.pending[i].fd >= 0 &&
			    mr.pending[i].fd == pfd[2 + mr.nproxies + i].fd)
				mr_hello_read(&mr.pending[i]);
		if (pfd[1 + mr.nproxies].revents)
			mr_accept();
		if (pfd[0].revents)
			mr_signal();
	}
	free(pfd);
	return mr.exit_code;
}

/* ---- main ------------------------------------------------------------- */

static int mr_cores(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static int mr_random_hex(char out[33])
{
	unsigned char raw[16];
	size_t got = 0;
	int i;

	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "mpirun: getrandom failed: %m\n");
			return -1;
		}
		got += (size_t)n;
	}
	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

static int mr_is_local(const char *h)
{
	const char *me = michi_hostname();
	size_t short_len = strcspn(me, ".");

	return !strcmp(h, "localhost") || !strcmp(h, "127.0.0.1") || !strcmp(h, me) ||
	       (strlen(h) == short_len && !strncmp(h, me, short_len));
}

/* A site name as the library takes it (mpi/site.c): 1 to 63 printable
 * characters without space, '|' or '='. */
static int mr_site_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len >= sizeof(((struct mr_proxy *)0)->site))
		return 0;
	for (i = 0; i < len; i++)
		if (s[i] <= ' ' || s[i] > '~' || s[i] == '|' || s[i] == '=')
			return 0;
	return 1;
}

/* Add a host to mr.proxies (grown as needed); slots 0: not given; site
 * NULL or "": not given (else already checked). */
static int mr_host_add(const char *name, size_t len, int slots, const char *site,
		       size_t site_len, int *cap)
{
	struct mr_proxy *p;

	if (len == 0 || len >= sizeof(p->host))
		return -1;
	if (mr.nproxies == *cap) {
		struct mr_proxy *np = realloc(mr.proxies, (size_t)(*cap = *cap ? 2 * *cap : 16) *
					      sizeof(*np));

		if (!np)
			return -1;
		mr.proxies = np;
	}
	p = &mr.proxies[mr.nproxies++];
	memset(p, 0, sizeof(*p));
	memcpy(p->host, name, len);
	p->host[len] = '\0';
	p->slots = slots;
	if (site)
		memcpy(p->site, site, site_len);
	p->site[site ? site_len : 0] = '\0';
	p->ctl = -1;
	return 0;
}

/* -hosts H1[:N][@SITE],H2... */
static int mr_hosts_parse(const char *list, int *cap)
{
	const char *h = list;

	for (;;) {
		size_t all = strcspn(h, ","), len = all, sl = 0;
		const char *at = memchr(h, '@', all), *colon;
		char num[16];
		int slots = 0;

		if (at) {
			len = (size_t)(at - h);
			sl = all - len - 1;
			if (!mr_site_ok(at + 1, sl))
				return mr_bad("bad site in host list '%s' (1 to 63 printable "
					      "characters without space, '|' or '=')", list);
		}
		colon = memchr(h, ':', len);
		if (colon) {
			size_t nl = len - (size_t)(colon + 1 - h);

			if (nl >= sizeof(num))
				return mr_bad("bad slot count in host list '%s'", list);
			memcpy(num, colon + 1, nl);
			num[nl] = '\0';
			if (mr_parse_count(num, &slots) < 0)
				return mr_bad("bad slot count in host list '%s'", list);
		}
		if (mr_host_add(h, colon ? (size_t)(colon - h) : len, slots, at ? at + 1 : NULL, sl,
				cap) < 0)
			return mr_bad("bad host name in '%s'", list);
		if (!h[all])
			return 0;
		h += all + 1;
	}
}

/*
 * A hostfile: one host a line, as `host`, `host:N` or `host slots=N`
 * (Open MPI's max_slots=N is accepted and ignored), with `site=NAME` for
 * the site of a grid it is in; '#' starts a comment.
 */
static int mr_hostfile_parse(const char *path, int *cap)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int lineno = 0, rc = 0;

	if (!f) {
		fprintf(stderr, "mpirun: cannot open hostfile %s: %m\n", path);
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char *save = NULL, *w, *host, *colon;
		const char *site = NULL;
		int slots = 0;

		lineno++;
		line[strcspn(line, "#\n")] = '\0';
		host = strtok_r(line, " \t\r", &save);
		if (!host)
			continue;
		colon = strchr(host, ':');
		if (colon) {
			*colon = '\0';
			if (mr_parse_count(colon + 1, &slots) < 0)
				rc = -1;
		}
		while (rc == 0 && (w = strtok_r(NULL, " \t\r", &save))) {
			if (!strncmp(w, "slots=", 6) && !colon)
				rc = mr_parse_count(w + 6, &slots);
			else if (!strncmp(w, "max_slots=", 10) || !strncmp(w, "max-slots=", 10))
				continue;
			else if (!strncmp(w, "site=", 5) && mr_site_ok(w + 5, strlen(w + 5)) && !site)
				site = w + 5;
			else
				rc = -1;
		}
		if (rc == 0 && mr_host_add(host, strlen(host), slots, site,
					   site ? strlen(site) : 0, cap) < 0)
			rc = -1;
		if (rc < 0)
			fprintf(stderr, "mpirun: hostfile %s line %d: expected 'host', 'host:N' or "
				"'host slots=N' with N >= 1, and 'site=NAME' once (1 to 63 printable "
				"characters without space, '|' or '=')\n", path, lineno);
	}
	fclose(f);
	if (rc == 0 && mr.nproxies == 0) {
		fprintf(stderr, "mpirun: hostfile %s names no host\n", path);
		rc = -1;
	}
	return rc;
}

/*
 * Place the ranks over the hosts in the order given. By slot (the
 * default) each host is filled with its slots (host:N), or -ppn, or an
 * even share, and what is left goes round the hosts again; ranks stay
 * contiguous per host. By node, rank r goes to the next host in turn that
 * has a free slot (hosts without a count have no limit), and when all are
 * full, round the hosts again regardless. Hosts left without ranks get no
 * proxy.
 */
static int mr_plan(void)
{
	int nh, i, r, k, cap = 0, cursor = 0;

	if (mr.hosts && mr.hostfile)
		return mr_bad("%s", "give --host or --hostfile, not both");
	if (mr.hostfile ? mr_hostfile_parse(mr.hostfile, &cap) < 0 :
	    mr_hosts_parse(mr.hosts ? mr.hosts : michi_hostname(), &cap) < 0)
		return -1;
	nh = mr.nproxies;
	for (i = 1; i < nh; i++)
		if (!mr.proxies[i].site[0] != !mr.proxies[0].site[0]) {
			const struct mr_proxy *with = mr.proxies[0].site[0] ? &mr.proxies[0] :
						      &mr.proxies[i];
			const struct mr_proxy *without = with == mr.proxies ? &mr.proxies[i] :
							 &mr.proxies[0];

			fprintf(stderr, "mpirun: host %s has site %s but host %s has none: give "
				"every host a site or none (%s)\n", with->host, with->site,
				without->host, mr.hostfile ? mr.hostfile : "--host");
			return -1;
		}
	mr.rank_proxy = calloc((size_t)mr.size, sizeof(*mr.rank_proxy));
	if (!mr.rank_proxy)
		return -1;
	if (!mr.map_node) {
		int left = mr.size;

		for (i = 0; i < nh; i++) {
			struct mr_proxy *p = &mr.proxies[i];
			int c = p->slots ? p->slots : mr.ppn ? mr.ppn : (mr.size + nh - 1) / nh;

			p->n = c < left ? c : left;
			left -= p->n;
		}
		for (i = 0; left > 0; i = (i + 1) % nh, left--)
			mr.proxies[i].n++;
		for (i = 0, r = 0; i < nh; i++)
			for (k = 0; k < mr.proxies[i].n; k++)
				mr.rank_proxy[r++] = i;
	} else {
		for (r = 0; r < mr.size; r++) {
			for (i = 0; i < nh; i++) {
				struct mr_proxy *p = &mr.proxies[(cursor + i) % nh];
				int c = p->slots ? p->slots : mr.ppn;

				if (!c || p->n < c)
					break;
			}
			if (i < nh)
				cursor = (cursor + i) % nh;   /* else all full: oversubscribe */
			mr.rank_proxy[r] = cursor;
			mr.proxies[cursor].n++;
			cursor = (cursor + 1) % nh;
		}
	}
	/* drop hosts without ranks; renumber */
	mr.nproxies = 0;
	for (i = 0; i < nh; i++) {
		struct mr_proxy *p = &mr.proxies[i];

		if (!p->n)
			continue;
		p->ranks = malloc((size_t)p->n * sizeof(int));
		if (!p->ranks)
			return -1;
		for (r = 0, k = 0; r < mr.size; r++)
			if (mr.rank_proxy[r] == i) {
				p->ranks[k++] = r;
				mr.rank_proxy[r] = mr.nproxies;
			}
		switch (mr.launcher) {
		case MR_LAUNCH_FORK:
			p->local = 1;
			break;
		case MR_LAUNCH_EXEC:
		case MR_LAUNCH_SLURM:
			/* under Slurm also this host's proxy goes through srun:
			 * salloc may run mpirun outside the allocation, and a
			 * step is what Slurm tracks, limits and cleans up */
			p->local = 0;
			break;
		default:
			p->local = mr_is_local(p->host);
		}
		mr.proxies[mr.nproxies++] = *p;
	}
	return 0;
}

/*
 * SLURM_TASKS_PER_NODE (`4`, `2(x3),1`) as one count per node; 0 when it
 * is absent, malformed or does not cover exactly n nodes.
 */
static int mr_slurm_tasks(int *counts, int n)
{
	const char *s = getenv("SLURM_TASKS_PER_NODE");
	int k = 0;

	while (s && *s) {
		char *end;
		long c = strtol(s, &end, 10), rep = 1;

		if (end == s || c < 1 || c > INT_MAX)
			return 0;
		s = end;
		if (!strncmp(s, "(x", 2)) {
			rep = strtol(s + 2, &end, 10);
			if (end == s + 2 || *end != ')' || rep < 1 || rep > n - k)
				return 0;
			s = end + 1;
		}
		while (rep-- > 0) {
			if (k == n)
				return 0;
			counts[k++] = (int)c;
		}
		if (*s == ',')
			s++;
		else if (*s)
			return 0;
	}
	return k == n;
}

/*
 * --launcher slurm without --host or --hostfile: the allocation's nodes.
 * SLURM_JOB_NODELIST is in Slurm's compressed syntax (node[01-04,07]),
 * which `scontrol show hostnames` expands locally, without the
 * controller; each node's share of SLURM_TASKS_PER_NODE becomes its slot
 * count unless -ppn says otherwise. The result is a --host list.
 */
static int mr_slurm_hosts(void)
{
	const char *list = getenv("SLURM_JOB_NODELIST");
	char *out = NULL, *hosts, *line, *save = NULL;
	size_t len = 0, cap = 0, hl = 0;
	int fd[2], status, n = 0, i, *counts;
	pid_t pid;

	if (!list || !*list)
		list = getenv("SLURM_NODELIST");
	if (!list || !*list)
		return mr_bad("%s", "--launcher slurm: SLURM_JOB_NODELIST is not set; name the "
			      "allocation's nodes with --host or --hostfile");
	if (pipe2(fd, O_CLOEXEC) < 0)
		return mr_bad("%s", "--launcher slurm: pipe failed");
	pid = fork();
	if (pid < 0)
		return mr_bad("%s", "--launcher slurm: fork failed");
	if (pid == 0) {
		dup2(fd[1], 1);
		execlp("scontrol", "scontrol", "show", "hostnames", list, (char *)NULL);
		fprintf(stderr, "mpirun: cannot run scontrol: %m\n");
		_exit(127);
	}
	close(fd[1]);
	for (;;) {
		ssize_t r;

		if (len + 4096 > cap) {
			char *no = cap >= (16u << 20) ? NULL : realloc(out, cap = cap ? 2 * cap : 8192);

			if (!no)
				break;
			out = no;
		}
		r = read(fd[0], out + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!out || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || len == 0) {
		free(out);
		return mr_bad("--launcher slurm: 'scontrol show hostnames %s' failed; name the "
			      "nodes with --host", list);
	}
	out[len] = '\0';
	for (i = 0; i < (int)len; i++)
		n += out[i] == '\n';
	counts = calloc((size_t)n + 1, sizeof(int));
	hosts = malloc(len + (size_t)(n + 1) * 16);   /* never freed: mpirun's lifetime */
	if (!counts || !hosts) {
		free(out);
		free(counts);
		return mr_bad("%s", "--launcher slurm: out of memory");
	}
	if (mr.ppn || !mr_slurm_tasks(counts, n))
		memset(counts, 0, (size_t)n * sizeof(int));
	hosts[0] = '\0';
	for (i = 0, line = strtok_r(out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), i++) {
		hl += (size_t)sprintf(hosts + hl, "%s%s", hl ? "," : "", line);
		if (i < n && counts[i])
			hl += (size_t)sprintf(hosts + hl, ":%d", counts[i]);
	}
	free(out);
	free(counts);
	if (!hl)
		return mr_bad("--launcher slurm: SLURM_JOB_NODELIST='%s' names no node", list);
	michi_debug("mpirun: the allocation's nodes: %s", hosts);
	mr.hosts = hosts;
	return 0;
}

/* --launcher: check it can work here, and pick its template. */
static int mr_launcher_setup(void)
{
	int given = strcmp(launch_template, MR_SSH_TEMPLATE) != 0;

	switch (mr.launcher) {
	case MR_LAUNCH_EXEC:
		if (!given)
			return mr_bad("%s", "--launcher exec needs --launcher-exec TEMPLATE, such as "
				      "'ip netns exec {host}'");
		break;
	case MR_LAUNCH_SLURM:
		/* Slurm's own variables say whether we are inside an allocation */
		if (!getenv("SLURM_JOB_ID") && !getenv("SLURM_JOBID"))
			return mr_bad("%s", "--launcher slurm works inside a Slurm allocation "
				      "(salloc or sbatch), and SLURM_JOB_ID is not set");
		if (!mr.hosts && !mr.hostfile && mr_slurm_hosts() < 0)
			return -1;
		if (!given)
			launch_template = MR_SRUN_TEMPLATE;
		break;
	default:
		break;
	}
	return 0;
}

#define MR_ADDR_MAX 48

/*
 * Every up IPv4 address of this host but loopback, as "A:P,B:P,...": the
 * ones the tcp device would pick (MICHI_TCP_IF's, else all but bridges
 * and link-local) first, as the likelier to be reached from another
 * host, then the rest. Returns how many.
 */
static int mr_addresses(int port)
{
	struct ifaddrs *ifa, *i;
	struct in_addr seen[MR_ADDR_MAX];
	size_t len = 0;
	int n = 0, pass;

	mr.address[0] = '\0';
	if (getifaddrs(&ifa) != 0)
		return 0;
	for (pass = 0; pass < 2; pass++) {
		for (i = ifa; i && n < MR_ADDR_MAX; i = i->ifa_next) {
			struct in_addr a;
			char ip[INET_ADDRSTRLEN];
			int k;

			if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
			    !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
				continue;
			a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
			if (michi_netif_is_loopback(a) ||
			    michi_netif_selected(i->ifa_name, a, i->ifa_flags) != (pass == 0))
				continue;
			for (k = 0; k < n && seen[k].s_addr != a.s_addr; k++)
				;
			if (k < n)
				continue;   /* one address on two interfaces */
			inet_ntop(AF_INET, &a, ip, sizeof(ip));
			if (len + strlen(ip) + 8 >= sizeof(mr.address))
				break;
			len += (size_t)sprintf(mr.address + len, "%s%s:%d", n ? "," : "", ip, port);
			seen[n++] = a;
		}
	}
	freeifaddrs(ifa);
	return n;
}

/*
 * Remote proxies connect back here; only needed when there are any.
 * mpirun cannot know which of its networks another host reaches (a
 * launch node's management network, a login node's cluster side, the
 * bridge to namespace hosts), so it listens on every interface and gives
 * each proxy all its addresses, to try until one answers (the cookie,
 * not the address, keeps strangers out). MICHI_TCP_IF only orders them:
 * it chooses the ranks' network, which this host need not be on.
 * MICHI_LAUNCH_ADDRESS names the one address instead, listened on alone
 * when it is this host's (else, behind NAT or a name, on all).
 */
static int mr_listen(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int i, remote = 0, one_addr = launch_address && *launch_address;

	for (i = 0; i < mr.nproxies; i++)
		remote += !mr.proxies[i].local;
	if (!remote)
		return 0;
	mr.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (mr.listen_fd < 0)
		goto err;
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (one_addr) {
		struct sockaddr_in at = sin;

		if (inet_pton(AF_INET, launch_address, &at.sin_addr) == 1 &&
		    bind(mr.listen_fd, (struct sockaddr *)&at, sizeof(at)) == 0)
			goto bound;
		michi_debug("mpirun: %s is not an address of this host: listening on all",
			    launch_address);
	}
	if (bind(mr.listen_fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		goto err;
bound:
	if (listen(mr.listen_fd, 128) < 0 ||
	    getsockname(mr.listen_fd, (struct sockaddr *)&sin, &sl) < 0)
		goto err;
	mr.port = ntohs(sin.sin_port);
	if (one_addr) {
		snprintf(mr.address, sizeof(mr.address), "%s:%d", launch_address, mr.port);
	} else if (mr_addresses(mr.port) == 0) {
		/* no network at all: only proxies on this host can come */
		snprintf(mr.address, sizeof(mr.address), "127.0.0.1:%d", mr.port);
		michi_warn("mpirun: this host has no IPv4 address but loopback; proxies on other "
			   "hosts cannot connect back");
	}
	michi_info("remote proxies connect back to %s", mr.address);
	return 0;
err:
	fprintf(stderr, "mpirun: cannot listen for remote proxies: %m\n");
	return -1;
}

static int mr_setup(void)
{
	const char *t = getenv("MPIEXEC_TIMEOUT");   /* MPICH's variable */
	sigset_t mask;
	int i, cores, here;

	if (mr.timeout == 0 && t && *t && mr_parse_timeout(t) < 0)
		return -1;
	for (i = 0; i < MR_PENDING_MAX; i++)
		mr.pending[i].fd = -1;
	for (i = 0; i < mr.napps; i++) {
		if (mr.size > INT_MAX - mr.apps[i].n)
			return mr_bad("%s", "too many ranks");
		mr.size += mr.apps[i].n;
	}
	mr.rank_pid = calloc((size_t)mr.size, sizeof(*mr.rank_pid));
	if (!mr.rank_pid || mr_random_hex(mr.jobkey) < 0 || mr_random_hex(mr.cookie) < 0)
		return -1;
	if (mr_launcher_setup() < 0 || mr_plan() < 0 || mr_listen() < 0)
		return -1;
	/*
	 * Only this host's cores are known here. Said only when asked (-v,
	 * MICHI_LOG=info), as MPICH and Open MPI say nothing: test drivers
	 * (MPICH's runtests) and scripts fail a run on any output but the
	 * program's, and oversubscription is allowed and handled anyway.
	 */
	cores = mr_cores();
	for (i = 0, here = 0; i < mr.nproxies; i++)
		here += mr.proxies[i].local ? mr.proxies[i].n : 0;
	if (cores > 0 && here > cores)
		michi_info("note: %d ranks on %d cores (oversubscribed)", here, cores);
	snprintf(mr.kvsname, sizeof(mr.kvsname), "michi_%d_%.8s", (int)getpid(), mr.jobkey + 24);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	mr.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (mr.sigfd < 0) {
		fprintf(stderr, "mpirun: signalfd failed: %m\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rc, i;

	michi_log_init();
	michi_tunables_load();
	michi_log_set_prefix("mpirun");
	rc = mr_parse(argc, argv);
	if (rc != 0)
		return rc > 0 ? 0 : 1;
	if (mr_setup() < 0)
		return 1;
	for (i = 0; i < mr.nproxies; i++) {
		struct mr_proxy *p = &mr.proxies[i];

		if (mr_proxy_start(p, p->ranks[0] == 0) < 0) {
			mr_fail(1, "cannot start the proxy for host %s; job aborted", p->host);
			break;
		}
		if (p->local && mr_send_job(p) < 0)
			mr_send_failed(p);
	}
	return mr_loop();
}
