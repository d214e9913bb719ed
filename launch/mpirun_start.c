/* SPDX-License-Identifier: MIT */
/*
 * launch/mpirun_start.c: starting one michi-proxy per host (forked here, or
 * through the launch template with --connect back) and sending it the job:
 * its ranks, their mapping, environment, working directory and app contexts.
 */
#include "config.h"
#include "mpirun.h"

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

int mr_proxy_start(struct mr_proxy *p, int with_stdin)
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

int mr_send(struct mr_proxy *p, struct pmi_wire_out *o)
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
int mr_send_job(struct mr_proxy *p)
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
