/* SPDX-License-Identifier: MIT */
/*
 * launch/mpirun_job.c: the job's judge (exits, aborts, fences, the first
 * failure ends the job), the name service, the proxies' control lines and
 * the connect-back port, and mpirun's event loop (mr_loop).
 */
#include "config.h"
#include "mpirun.h"

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

void mr_fail(int code, const char *fmt, ...)
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
 * ranks' publish_name, unpublish_name and lookup_name (launch/proxy_pmi.c,
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
void mr_send_failed(struct mr_proxy *p)
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

int mr_loop(void)
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
