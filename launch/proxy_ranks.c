/* SPDX-License-Identifier: MIT */
/*
 * launch/proxy_ranks.c: starting a proxy's ranks: binding them (--bind-to,
 * with hwloc) and forking each with its PMI socket, pipes and environment.
 */
#include "config.h"
#include "proxy.h"

/* ---- binding ---------------------------------------------------------- */

/*
 * --bind-to: rank k of this host (local rank order) is bound to object
 * k mod n of the level, n the objects of that level hwloc sees in what
 * the proxy may use, by logical index; with more ranks than objects,
 * several share one, and the proxy says so once. The child binds itself
 * between fork and exec, so the rank's first instruction runs there.
 */
static michi_status_t proxy_bind_setup(void)
{
#ifdef HAVE_HWLOC
	static const struct {
		const char *name;
		hwloc_obj_type_t type;
	} lv[] = {
		{ "hwthread", HWLOC_OBJ_PU }, { "core", HWLOC_OBJ_CORE },
		{ "l3cache", HWLOC_OBJ_L3CACHE }, { "socket", HWLOC_OBJ_PACKAGE },
		{ "numa", HWLOC_OBJ_NUMANODE },
	};
	size_t i;
#endif
	const char *host = px.host && *px.host ? px.host : michi_hostname();

	if (!px.bind || !strcmp(px.bind, "none"))
		return MICHI_OK;
#ifdef HAVE_HWLOC
	for (i = 0; i < sizeof(lv) / sizeof(lv[0]) && strcmp(lv[i].name, px.bind); i++)
		;
	if (i == sizeof(lv) / sizeof(lv[0]))
		return michi_err(MICHI_ERR_INVAL, "proxy: unknown --bind-to level '%s'", px.bind);
	px.bind_type = lv[i].type;
	if (hwloc_topology_init(&px.topo) != 0 || hwloc_topology_load(px.topo) != 0)
		return michi_err(MICHI_ERR_IO, "proxy: hwloc cannot read the topology of host "
				 "%s for --bind-to %s: %m", host, px.bind);
	px.nobjs = hwloc_get_nbobjs_by_type(px.topo, px.bind_type);
	if (px.nobjs <= 0)
		return michi_err(MICHI_ERR_INVAL, "proxy: host %s has no %s that hwloc can see; "
				 "choose another --bind-to level", host, px.bind);
	/* sharing a socket or a cache is what those levels are for */
	if (px.nranks > px.nobjs && (px.bind_type == HWLOC_OBJ_PU || px.bind_type == HWLOC_OBJ_CORE))
		michi_warn("%d ranks on host %s and %d %s%s: ranks are bound round robin, "
			   "several to each", px.nranks, host, px.nobjs, px.bind,
			   px.nobjs == 1 ? "" : "s");
	return MICHI_OK;
#else
	return michi_err(MICHI_ERR_INVAL, "proxy: --bind-to %s needs hwloc, and this "
			 "michi-proxy (on host %s) was built without it", px.bind, host);
#endif
}

/* In the child, before exec: bind as proxy_bind_setup decided. */
static void proxy_bind_child(const struct proxy_rank *r)
{
#ifdef HAVE_HWLOC
	hwloc_obj_t obj;

	if (r->bind_obj < 0)
		return;
	obj = hwloc_get_obj_by_type(px.topo, px.bind_type, (unsigned)r->bind_obj);
	if (!obj || hwloc_set_cpubind(px.topo, obj->cpuset, HWLOC_CPUBIND_PROCESS) != 0) {
		fprintf(stderr, "mpirun: cannot bind rank %d to %s %d on %s: %m\n",
			r->rank, px.bind, r->bind_obj,
			px.host && *px.host ? px.host : michi_hostname());
		_exit(127);
	}
#else
	(void)r;
#endif
}

/* "0-3,8": the cpus a rank may run on */
static void proxy_cpu_list(const struct proxy_rank *r, char *buf, size_t len)
{
	cpu_set_t set;
	size_t n = 0;
	int c, first = -1;

	buf[0] = '\0';
#ifdef HAVE_HWLOC
	if (r->bind_obj >= 0) {
		hwloc_obj_t obj = hwloc_get_obj_by_type(px.topo, px.bind_type,
							 (unsigned)r->bind_obj);

		if (obj)
			hwloc_bitmap_list_snprintf(buf, len, obj->cpuset);
		return;
	}
#endif
	(void)r;
	/* not bound: it inherited ours */
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	for (c = 0; c <= CPU_SETSIZE && n < len; c++) {
		int in = c < CPU_SETSIZE && CPU_ISSET(c, &set);

		if (in && first < 0)
			first = c;
		if (!in && first >= 0) {
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", first);
			if (c - 1 > first && n < len)
				n += (size_t)snprintf(buf + n, len - n, "-%d", c - 1);
			first = -1;
		}
	}
}

/* --report-bindings: one line per rank on the job's stderr */
static void proxy_report_binding(const struct proxy_rank *r)
{
	char cpus[256], line[512];
	const char *host = px.host && *px.host ? px.host : michi_hostname();
	int n;

	if (!px.report_bindings)
		return;
	proxy_cpu_list(r, cpus, sizeof(cpus));
	if (r->bind_obj >= 0)
		n = snprintf(line, sizeof(line), "[%s] rank %d bound to %s %d (cpus %s)\n",
			     host, r->rank, px.bind, r->bind_obj, cpus);
	else
		n = snprintf(line, sizeof(line), "[%s] rank %d not bound (cpus %s)\n",
			     host, r->rank, cpus);
	if (n > 0)
		proxy_sink_append(&px.sink[1], line, (size_t)n < sizeof(line) ? (size_t)n :
				  sizeof(line) - 1);
}

/* ---- starting ranks --------------------------------------------------- */

static void proxy_child(struct proxy_rank *r, const struct proxy_app *a,
			int pmi_fd, int out[2], int err[2], int in_fd, pid_t parent)
{
	sigset_t none;
	char num[24];
	int i, fd;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(in_fd, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
		_exit(127);
	/* the PMI socket is the one fd a rank inherits on purpose */
	fd = fcntl(pmi_fd, F_DUPFD, 3);
	if (fd < 0)
		_exit(127);
	/* the job's variables first: the launcher's own below win */
	for (i = 0; i < a->nenv; i++)
		setenv(a->env[2 * i], a->env[2 * i + 1], 1);
	snprintf(num, sizeof(num), "%d", fd);
	setenv("PMI_FD", num, 1);
	snprintf(num, sizeof(num), "%d", r->rank);
	setenv("PMI_RANK", num, 1);
	snprintf(num, sizeof(num), "%d", px.size);
	setenv("PMI_SIZE", num, 1);
	snprintf(num, sizeof(num), "%d", r->local_rank);
	setenv("MPI_LOCALRANKID", num, 1);
	snprintf(num, sizeof(num), "%d", px.nranks);
	setenv("MPI_LOCALNRANKS", num, 1);
	/* the name mpirun started us by: network namespaces share the
	 * kernel's hostname, and their ranks must not take shm to each other */
	if (px.host && *px.host)
		setenv("MICHI_HOSTNAME", px.host, 1);
	/* the host's site from the hostfile or --host H@SITE: over what
	 * the environment or -env says (mpi/coll/site.c) */
	if (px.site && *px.site)
		setenv("MICHI_SITE", px.site, 1);
	unsetenv("PMI_PORT");
	unsetenv("PMI_ID");
	/* the processors the job may use here, before the rank binds itself:
	 * a taskset or cpuset around mpirun narrows them below what hwloc
	 * says the machine allows, and the library counts this host's ranks
	 * against them (devices/device.c). With the proxy's pid: only a
	 * direct child takes it, not a program that inherits it later. */
	{
		cpu_set_t cs;
		char v[48];

		if (sched_getaffinity(0, sizeof(cs), &cs) == 0 && CPU_COUNT(&cs) > 0) {
			snprintf(v, sizeof(v), "%d,%d", CPU_COUNT(&cs), (int)parent);
			setenv("MICHI_HOST_CPUS", v, 1);
		}
	}
	proxy_bind_child(r);
	execvp(a->argv[0], a->argv);
	fprintf(stderr, "mpirun: cannot run '%s' (rank %d on %s): %m\n",
		a->argv[0], r->rank, px.host && *px.host ? px.host : michi_hostname());
	_exit(127);
}

static michi_status_t proxy_spawn(struct proxy_rank *r, const struct proxy_app *a)
{
	int sv[2], out[2], err[2], in_pipe[2] = { -1, -1 }, in_fd;
	pid_t pid, parent = getpid();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return michi_err(MICHI_ERR_IO, "proxy: socketpair failed: %m");
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return michi_err(MICHI_ERR_IO, "proxy: pipe failed: %m");
	if (r->rank == px.stdin_rank && px.in_fd >= 0) {
		if (pipe2(in_pipe, O_CLOEXEC) < 0)
			return michi_err(MICHI_ERR_IO, "proxy: pipe failed: %m");
		in_fd = in_pipe[0];
	} else {
		in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (in_fd < 0)
			return michi_err(MICHI_ERR_IO, "proxy: cannot open /dev/null: %m");
	}
	pid = fork();
	if (pid < 0)
		return michi_err(MICHI_ERR_IO, "proxy: fork for rank %d failed: %m", r->rank);
	if (pid == 0)
		proxy_child(r, a, sv[1], out, err, in_fd, parent);
	/* both sides set the group so that a kill right after fork hits it */
	setpgid(pid, pid);
	r->pid = pid;
	close(sv[1]);
	close(out[1]);
	close(err[1]);
	close(in_fd);
	r->pmi_fd = sv[0];
	/* a dead rank's socket may still be open in its children: never
	 * block on it */
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	r->io[0].fd = out[0];
	r->io[1].fd = err[0];
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	if (in_pipe[1] >= 0) {
		fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
		px.in_pipe = in_pipe[1];
	}
	return pmi_wire_reader_init(&r->rd, PMI_WIRE_LINE_MAX);
}

michi_status_t proxy_start(void)
{
	char line[128];
	struct pmi_wire_out o;
	michi_status_t st0;
	int i, j, k = 0;

	for (i = 0; i < px.napps; i++)
		px.nranks += px.apps[i].n;
	px.ranks = calloc((size_t)px.nranks + 1, sizeof(*px.ranks));
	if (!px.ranks)
		return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for %d ranks", px.nranks);
	if ((st0 = proxy_bind_setup()) < 0)
		return st0;
	for (i = 0; i < px.napps; i++) {
		for (j = 0; j < px.apps[i].n; j++, k++) {
			struct proxy_rank *r = &px.ranks[k];
			michi_status_t st;

			r->rank = px.apps[i].first + j * px.apps[i].stride;
			r->local_rank = k;
			r->appnum = px.apps[i].appnum;
			r->pmi_fd = r->io[0].fd = r->io[1].fd = -1;
			r->bind_obj = -1;
#ifdef HAVE_HWLOC
			if (px.nobjs > 0)
				r->bind_obj = k % px.nobjs;
#endif
			st = proxy_spawn(r, &px.apps[i]);
			if (st < 0)
				return st;
			proxy_report_binding(r);
			pmi_wire_begin(&o, line, sizeof(line), "started");
			pmi_wire_add_int(&o, "rank", r->rank);
			pmi_wire_add_int(&o, "pid", r->pid);
			proxy_ctl_send(&o);
		}
	}
	return MICHI_OK;
}
