/* SPDX-License-Identifier: MIT */
/*
 * launch/mpirun_hosts.c: the hosts of a job: --host lists, hostfiles and Slurm
 * allocations, and the placement of the ranks over them (mr_plan).
 */
#include "config.h"
#include "mpirun.h"

int mr_is_local(const char *h)
{
	const char *me = michi_hostname();
	size_t short_len = strcspn(me, ".");

	return !strcmp(h, "localhost") || !strcmp(h, "127.0.0.1") || !strcmp(h, me) ||
	       (strlen(h) == short_len && !strncmp(h, me, short_len));
}

/* A site name as the library takes it (mpi/coll/site.c): 1 to 63 printable
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
int mr_plan(void)
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
int mr_slurm_hosts(void)
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
