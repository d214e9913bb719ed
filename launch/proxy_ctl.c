/* SPDX-License-Identifier: MIT */
/*
 * launch/proxy_ctl.c: michi-proxy and mpirun: what the proxy reports (errors,
 * exits, fences) and the control messages it obeys (job, kv, app, start,
 * fence_out, kill).
 */
#include "config.h"
#include "proxy.h"

/* ---- talking to mpirun ------------------------------------------------ */

static void proxy_ctl_fail(void)
{
	/* without mpirun nobody can decide for the job: end it */
	proxy_begin_kill();
}

void proxy_ctl_send(struct pmi_wire_out *o)
{
	if (px.ctl < 0)
		return;
	if (launch_ctl_send(px.ctl, o) < 0) {
		michi_error("proxy: lost mpirun: %s", michi_err_msg());
		close(px.ctl);
		px.ctl = -1;
		proxy_ctl_fail();
	}
}

/*
 * A failure of this proxy's own (a bad job, a -wdir it cannot enter):
 * mpirun prints it and ends the job. Over ssh the proxy's stderr may be
 * cut off by that end, so the control stream carries it; stderr too when
 * mpirun is gone.
 */
void proxy_report_error(const char *msg)
{
	size_t cap = 3 * strlen(msg) + 64;
	char *line = malloc(cap);
	struct pmi_wire_out o;

	if (px.ctl < 0 || !line) {
		michi_error("%s", msg);
		free(line);
		return;
	}
	pmi_wire_begin(&o, line, cap, "error");
	launch_add_text(&o, "message", msg);
	proxy_ctl_send(&o);
	free(line);
}

/*
 * A proxy that fails before its ranks start (a -wdir it cannot enter)
 * has just reported why, but mpirun may still be writing the rest of the
 * job. Closing now, with those lines unread, would reset the connection:
 * mpirun's write would fail first and the report could be lost with the
 * reset. So the proxy ends its side of the stream and reads what is left
 * until mpirun closes, at most two seconds.
 */
void proxy_drain_ctl(void)
{
	char buf[4096];
	struct pollfd pfd = { .fd = px.ctl, .events = POLLIN };
	int i;

	if (px.ctl < 0)
		return;
	shutdown(px.ctl, SHUT_WR);   /* not a socket (a local pipe): nothing */
	for (i = 0; i < 20; i++) {
		int n = poll(&pfd, 1, 100);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			continue;
		if (read(px.ctl, buf, sizeof(buf)) <= 0)
			break;
	}
}

void proxy_report_exit(struct proxy_rank *r, int status)
{
	char line[512];
	struct pmi_wire_out o;

	pmi_wire_begin(&o, line, sizeof(line), "exit");
	pmi_wire_add_int(&o, "rank", r->rank);
	pmi_wire_add_int(&o, "pid", r->pid);
	if (WIFSIGNALED(status))
		pmi_wire_add_int(&o, "signal", WTERMSIG(status));
	else
		pmi_wire_add_int(&o, "code", WEXITSTATUS(status));
	pmi_wire_add_int(&o, "initialized", r->initialized);
	pmi_wire_add_int(&o, "finalized", r->finalized);
	proxy_ctl_send(&o);
}

void proxy_fence_check(void)
{
	char line[PMI_WIRE_LINE_MAX + 64];
	struct pmi_wire_out o;
	struct proxy_kv *p;

	if (px.nfence < px.nranks)
		return;
	while ((p = px.pending)) {
		px.pending = p->next;
		pmi_wire_begin(&o, line, sizeof(line), "kv");
		pmi_wire_add(&o, "key", p->key);
		pmi_wire_add(&o, "value", p->val);
		proxy_ctl_send(&o);
		free(p->key);
		free(p->val);
		free(p);
	}
	pmi_wire_begin(&o, line, sizeof(line), "fence_in");
	proxy_ctl_send(&o);
	px.nfence = INT_MIN / 2;   /* no barrier_in counts until fence_out */
}


/* ---- control messages from mpirun ------------------------------------- */

static char *proxy_text(const struct pmi_wire_msg *m, const char *key)
{
	const char *v = pmi_wire_get(m, key);
	char *s = strdup(v ? v : "");

	if (s)
		pmi_wire_unescape(s);
	return s;
}

static void proxy_fence_out(void)
{
	char line[64];
	struct pmi_wire_out o;
	int i;

	px.nfence = 0;
	for (i = 0; i < px.nranks; i++) {
		px.ranks[i].in_fence = 0;
		pmi_wire_begin(&o, line, sizeof(line), "barrier_out");
		pmi_wire_add(&o, "rc", "0");
		proxy_pmi_reply(&px.ranks[i], &o);
	}
}

void proxy_kill_all(int sig)
{
	int i;

	for (i = 0; i < px.nranks; i++)
		if (px.ranks[i].pid > 0 && !px.ranks[i].reaped)
			kill(-px.ranks[i].pid, sig);
}

void proxy_begin_kill(void)
{
	if (px.killing)
		return;
	px.killing = 1;
	px.kill_at = michi_wtime() + proxy_kill_grace;
	proxy_kill_all(SIGTERM);
}

/*
 * mpirun's working directory (or -wdir) for the ranks: the proxy moves
 * there itself. Missing here: with -wdir the job fails, else its ranks on
 * this host start in the home directory, and the user is told.
 */
static michi_status_t proxy_chdir(const struct pmi_wire_msg *m)
{
	char *path = proxy_text(m, "path");
	const char *host = px.host && *px.host ? px.host : michi_hostname();
	const char *home = getenv("HOME");
	michi_status_t st = MICHI_OK;
	int required = 0;

	if (!path)
		return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for the working directory");
	if (pmi_wire_get(m, "required"))
		pmi_wire_get_int(m, "required", &required);
	if (chdir(path) < 0) {
		int e = errno;

		if (required) {
			st = michi_err(MICHI_ERR_INVAL, "cannot enter the working directory %s "
				       "(-wdir): %s", path, strerror(e));
		} else {
			if (!home || chdir(home) < 0)
				home = chdir("/") == 0 ? "/" : "the proxy's directory";
			michi_warn("host %s has no directory %s (%s); its ranks start in %s",
				   host, path, strerror(e), home);
		}
	}
	free(path);
	return st;
}

michi_status_t proxy_ctl_line(const struct pmi_wire_msg *m, int *started)
{
	const char *cmd = pmi_wire_cmd(m);
	struct proxy_app *a = px.napps ? &px.apps[px.napps - 1] : NULL;

	if (strcmp(cmd, "job") == 0) {
		const char *k = pmi_wire_get(m, "kvsname");

		if (!k || strlen(k) >= sizeof(px.kvsname) ||
		    pmi_wire_get_int(m, "size", &px.size) < 0 ||
		    pmi_wire_get_int(m, "universe", &px.universe) < 0 ||
		    pmi_wire_get_int(m, "label", &px.label) < 0 ||
		    pmi_wire_get_int(m, "stdin_rank", &px.stdin_rank) < 0)
			return michi_err(MICHI_ERR_INVAL, "proxy: bad job line from mpirun");
		strcpy(px.kvsname, k);
		/* an older mpirun sends no bind: none */
		px.bind = launch_bind_names[0];
		k = pmi_wire_get(m, "bind");
		if (k) {
			int b;

			for (b = 0; launch_bind_names[b] && strcmp(k, launch_bind_names[b]); b++)
				;
			if (!launch_bind_names[b])
				return michi_err(MICHI_ERR_INVAL, "proxy: mpirun asks for --bind-to %s, "
						 "which this michi-proxy does not know", k);
			px.bind = launch_bind_names[b];
		}
		k = pmi_wire_get(m, "report_bindings");
		px.report_bindings = k && atoi(k) > 0;
		free(px.host);
		px.host = pmi_wire_get(m, "host") ? proxy_text(m, "host") : NULL;
		free(px.site);
		px.site = pmi_wire_get(m, "site") ? proxy_text(m, "site") : NULL;
		k = pmi_wire_get(m, "grace_ms");
		if (k && atoi(k) >= 0)
			proxy_kill_grace = atoi(k) / 1000.0;
		/* mpirun's value wins: over ssh our environment is not its */
		k = pmi_wire_get(m, "keepalive_ms");
		if (k && atoi(k) >= 0) {
			launch_keepalive = atoi(k) / 1000.0;
			launch_ctl_keepalive(px.ctl, launch_keepalive);
		}
	} else if (strcmp(cmd, "wdir") == 0) {
		return proxy_chdir(m);
	} else if (strcmp(cmd, "kv") == 0) {
		const char *k = pmi_wire_get(m, "key"), *v = pmi_wire_get(m, "value");

		if (!k || !v)
			return michi_err(MICHI_ERR_INVAL, "proxy: bad kv line from mpirun");
		if (strcmp(k, "michi-job-key") == 0)
			proxy_note_key(v);
		return proxy_kvs_put(k, v, 0);
	} else if (strcmp(cmd, "app") == 0) {
		struct proxy_app *na = realloc(px.apps, (size_t)(px.napps + 1) * sizeof(*na));

		if (!na)
			return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for an app");
		px.apps = na;
		a = &px.apps[px.napps++];
		memset(a, 0, sizeof(*a));
		if (pmi_wire_get_int(m, "appnum", &a->appnum) < 0 ||
		    pmi_wire_get_int(m, "first", &a->first) < 0 ||
		    pmi_wire_get_int(m, "n", &a->n) < 0 || a->n < 0 ||
		    pmi_wire_get_int(m, "argc", &a->argc) < 0 || a->argc < 1)
			return michi_err(MICHI_ERR_INVAL, "proxy: bad app line from mpirun");
		a->stride = 1;
		if (pmi_wire_get(m, "stride") &&
		    (pmi_wire_get_int(m, "stride", &a->stride) < 0 || a->stride < 1))
			return michi_err(MICHI_ERR_INVAL, "proxy: bad stride in app line");
		a->argv = calloc((size_t)a->argc + 1, sizeof(char *));
		if (!a->argv)
			return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for argv");
		a->argmax = a->argc;
		a->argc = 0;
	} else if (strcmp(cmd, "arg") == 0 && a) {
		if (a->argc >= a->argmax)
			return michi_err(MICHI_ERR_INVAL, "proxy: more arg lines than app argc");
		a->argv[a->argc] = proxy_text(m, "value");
		if (!a->argv[a->argc])
			return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for an argument");
		a->argc++;
	} else if (strcmp(cmd, "env") == 0 && a) {
		char **ne = realloc(a->env, (size_t)(a->nenv + 1) * 2 * sizeof(char *));

		if (!ne)
			return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for env");
		a->env = ne;
		ne[2 * a->nenv] = proxy_text(m, "name");
		ne[2 * a->nenv + 1] = proxy_text(m, "value");
		a->nenv++;
	} else if (strcmp(cmd, "start") == 0) {
		for (int i = 0; i < px.napps; i++)
			if (px.apps[i].argc != px.apps[i].argmax || px.apps[i].argc == 0)
				return michi_err(MICHI_ERR_INVAL, "proxy: app %d lacks arguments", i);
		*started = 1;
		return proxy_start();
	} else if (strcmp(cmd, "fence_out") == 0) {
		proxy_fence_out();
	} else if (strcmp(cmd, "kill") == 0) {
		proxy_begin_kill();
	} else if (strcmp(cmd, "ns_reply") == 0) {
		proxy_ns_reply(m);
	} else {
		michi_warn("proxy: ignoring unknown control command '%s'", cmd);
	}
	return MICHI_OK;
}
