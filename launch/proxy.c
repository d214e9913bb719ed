/* SPDX-License-Identifier: MIT */
/*
 * launch/proxy.c: michi-proxy, the per-host half of mpirun.
 *
 * mpirun starts one proxy per host (a local one by fork+exec with
 * --control-fd, another host's with --connect back to the first of
 * mpirun's addresses that answers, see launch/mpirun.c) and sends it the
 * job over the control stream: job, kv presets, then per app context
 * `app`, its `arg`s and `env`s, and `start`.
 * The proxy forks its ranks, each in its own process group with a PMI_FD
 * socketpair and stdout/stderr pipes, serves PMI-1 on those sockets from
 * one poll loop, relays output line by line (labelled with -l) through
 * bounded buffers, feeds its stdin to the rank mpirun names, and reports
 * starts, fences, aborts and exits to mpirun. mpirun decides when the job
 * dies; `kill` makes the proxy send SIGTERM, then SIGKILL after a grace.
 * If mpirun goes away (control stream closed) the proxy kills its ranks.
 *
 * This file holds the state, the loop, the connection to mpirun and main;
 * the rest is in proxy_pmi.c, proxy_io.c, proxy_ctl.c and proxy_ranks.c
 * (launch/proxy.h lists what they share).
 */
#include "config.h"
#include "proxy.h"

/* seconds between SIGTERM and SIGKILL; mpirun sends its kill_grace */
double proxy_kill_grace = 0.5;

struct proxy_state px = { .ctl = -1, .in_fd = -1, .in_pipe = -1, .stdin_rank = -1 };

/* ---- the loop --------------------------------------------------------- */

static void proxy_reap(void)
{
	int status, i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < px.nranks; i++) {
			struct proxy_rank *r = &px.ranks[i];

			if (r->pid != pid)
				continue;
			r->reaped = 1;
			/* an abort or finalize the rank sent before dying
			 * must reach mpirun before its exit */
			if (r->pmi_fd >= 0)
				proxy_pmi_read(r);
			if (!px.killing)
				proxy_flush_rank(r);
			proxy_report_exit(r, status);
		}
	}
}

static void proxy_signal(void)
{
	struct signalfd_siginfo si;

	while (read(px.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			proxy_reap();
		else
			proxy_begin_kill();
	}
}

static void proxy_stdin_read(void)
{
	ssize_t n = read(px.in_fd, px.in_buf + px.in_len, sizeof(px.in_buf) - px.in_len);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		px.in_fd = -1;   /* fd 0 itself stays open; we just stop */
		return;
	}
	px.in_len += (size_t)n;
}

static void proxy_stdin_write(void)
{
	ssize_t n = write(px.in_pipe, px.in_buf, px.in_len);

	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN)
			return;
		/* rank closed its stdin */
		close(px.in_pipe);
		px.in_pipe = -1;
		px.in_fd = -1;
		return;
	}
	memmove(px.in_buf, px.in_buf + n, px.in_len - (size_t)n);
	px.in_len -= (size_t)n;
}

static int proxy_all_done(void)
{
	int i;

	for (i = 0; i < px.nranks; i++) {
		struct proxy_rank *r = &px.ranks[i];

		if (!r->reaped || r->io[0].fd >= 0 || r->io[1].fd >= 0)
			return 0;
	}
	return 1;
}

enum { PFD_CTL, PFD_SIG, PFD_OUT, PFD_ERR, PFD_IN, PFD_INPIPE, PFD_FIXED };

static int proxy_timeout_ms(void)
{
	double left;

	if (!px.killing)
		return 1000;
	left = px.kill_at - michi_wtime();
	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

static michi_status_t proxy_loop(struct pmi_wire_reader *ctl_rd)
{
	struct pollfd *pfd;
	int started = 0, i, nfd;
	double end_at = 0;

	pfd = calloc(PFD_FIXED, sizeof(*pfd));
	if (!pfd)
		return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for poll set");
	for (;;) {
		struct pmi_wire_msg m;
		michi_status_t st;

		if (started && proxy_all_done()) {
			if (!px.done_sent) {
				char line[32];
				struct pmi_wire_out o;

				pmi_wire_begin(&o, line, sizeof(line), "done");
				proxy_ctl_send(&o);
				px.done_sent = 1;
				end_at = michi_wtime() + 5.0;
			}
			/* a finished job waits for its reader (a dead reader
			 * fails the write and drops the rest); a killed one
			 * gives output a few seconds */
			if ((px.sink[0].len == 0 && px.sink[1].len == 0) ||
			    (px.killing && michi_wtime() > end_at))
				break;
		}
		if (px.killing && michi_wtime() >= px.kill_at) {
			proxy_kill_all(SIGKILL);
			/* grandchildren may hold the pipes: stop waiting for them */
			for (i = 0; i < px.nranks; i++)
				if (px.ranks[i].reaped)
					for (int w = 0; w < 2; w++)
						if (px.ranks[i].io[w].fd >= 0) {
							proxy_stream_lines(&px.ranks[i], w, 1);
							close(px.ranks[i].io[w].fd);
							px.ranks[i].io[w].fd = -1;
						}
			px.kill_at = michi_wtime() + 0.2;
		}
		memset(pfd, 0, sizeof(*pfd) * PFD_FIXED);
		for (i = 0; i < PFD_FIXED; i++)
			pfd[i].fd = -1;
		pfd[PFD_CTL].fd = px.ctl;
		pfd[PFD_CTL].events = POLLIN;
		pfd[PFD_SIG].fd = px.sigfd;
		pfd[PFD_SIG].events = POLLIN;
		for (i = 0; i < 2; i++) {
			pfd[PFD_OUT + i].fd = px.sink[i].len ? px.sink[i].fd : -1;
			pfd[PFD_OUT + i].events = POLLOUT;
		}
		if (px.in_fd >= 0 && px.in_pipe >= 0 && px.in_len < sizeof(px.in_buf)) {
			pfd[PFD_IN].fd = px.in_fd;
			pfd[PFD_IN].events = POLLIN;
		}
		if (px.in_pipe >= 0 && px.in_len > 0) {
			pfd[PFD_INPIPE].fd = px.in_pipe;
			pfd[PFD_INPIPE].events = POLLOUT;
		}
		nfd = PFD_FIXED;
		for (i = 0; i < px.nranks; i++) {
			struct proxy_rank *r = &px.ranks[i];

			pfd[nfd].fd = r->pmi_fd;
			pfd[nfd++].events = POLLIN;
			for (int w = 0; w < 2; w++) {
				int full = px.sink[w].len >= PROXY_SINK_MAX;

				pfd[nfd].fd = full ? -1 : r->io[w].fd;
				pfd[nfd++].events = POLLIN;
			}
		}
		if (poll(pfd, (nfds_t)nfd, proxy_timeout_ms()) < 0) {
			if (errno == EINTR)
				continue;
			return michi_err(MICHI_ERR_IO, "proxy: poll failed: %m");
		}
		if (pfd[PFD_SIG].revents)
			proxy_signal();
		if (pfd[PFD_CTL].revents) {
			int was_started = started;

			st = pmi_wire_reader_fill(ctl_rd, px.ctl);
			for (;;) {
				michi_status_t nx = pmi_wire_reader_next(ctl_rd, &m);

				if (nx == MICHI_INPROGRESS)
					break;
				if (nx == MICHI_OK)
					nx = proxy_ctl_line(&m, &started);
				if (nx < 0) {
					proxy_report_error(michi_err_msg());
					michi_err_clear();
					proxy_begin_kill();
					if (!started) {
						proxy_drain_ctl();
						return MICHI_ERR_INVAL;
					}
				}
			}
			if (started && !was_started) {
				struct pollfd *np = realloc(pfd, sizeof(*pfd) *
					(PFD_FIXED + 3 * (size_t)px.nranks));

				if (!np)
					return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for poll set");
				pfd = np;
				continue;   /* revents below belong to the old set */
			}
			if (st == MICHI_ERR_PEER || st == MICHI_ERR_IO) {
				int err = st == MICHI_ERR_IO ? errno : 0;

				close(px.ctl);
				px.ctl = -1;
				michi_err_clear();
				if (!px.killing && !px.done_sent)
					michi_error("proxy on host %s: lost mpirun (%s); killing its %d ranks",
						    px.host ? px.host : michi_hostname(),
						    err == ETIMEDOUT ? "no answer within the keepalive time" :
						    err ? strerror(err) : "connection closed", px.nranks);
				if (!started)
					return MICHI_ERR_PEER;
				proxy_begin_kill();
			}
		}
		for (i = 0; i < 2; i++)
			if (pfd[PFD_OUT + i].revents)
				proxy_sink_write(&px.sink[i]);
		if (pfd[PFD_IN].revents)
			proxy_stdin_read();
		if (pfd[PFD_INPIPE].revents)
			proxy_stdin_write();
		if (px.in_fd < 0 && px.in_len == 0 && px.in_pipe >= 0) {
			close(px.in_pipe);   /* EOF reaches the rank */
			px.in_pipe = -1;
		}
		nfd = PFD_FIXED;
		for (i = 0; i < px.nranks; i++) {
			struct proxy_rank *r = &px.ranks[i];

			if (pfd[nfd++].revents && r->pmi_fd >= 0)
				proxy_pmi_read(r);
			for (int w = 0; w < 2; w++)
				if (pfd[nfd++].revents && r->io[w].fd >= 0)
					proxy_stream_read(r, w);
		}
	}
	free(pfd);
	return MICHI_OK;
}

static void proxy_usage(void)
{
	fprintf(stderr,
		"usage: michi-proxy --control-fd N | --connect ADDR:PORT[,ADDR:PORT...]\n"
		"  started by mpirun, one per host; not meant to be run by hand.\n"
		"  --connect reads a one-line cookie from stdin, then connects back to\n"
		"  the first of mpirun's addresses that answers.\n");
}

/* The cookie comes on stdin so that it never shows in ps. */
static int proxy_read_cookie(char *buf, size_t len)
{
	double until = michi_wtime() + 30.0;
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd pfd = { .fd = 0, .events = POLLIN };
		double left = until - michi_wtime();
		ssize_t r;

		if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			return -1;
		r = read(0, buf + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (buf[n] == '\n') {
			buf[n] = '\0';
			return 0;
		}
		n++;
	}
	return -1;
}

/*
 * Connecting back to mpirun. mpirun gives every address it has (it
 * cannot know which of its networks this host reaches: a launch node on
 * a management network, a login node with a public and a cluster side,
 * a namespace host that only sees a bridge), and the proxy tries them as
 * a browser tries a name's addresses (RFC 8305): in order of preference,
 * the next one started when the one before failed or has not answered
 * within PROXY_TRY_DELAY, the first to connect taken. An address that
 * cannot work then costs at most that delay, even one that swallows
 * SYNs and would take the kernel minutes to give up on.
 */
#define PROXY_TRY_MAX   64
#define PROXY_TRY_DELAY 0.25   /* RFC 8305's connection attempt delay */

struct proxy_try {
	struct sockaddr_storage sa;
	socklen_t salen;
	char name[300];    /* ADDR:PORT as mpirun gave it */
	int tier;          /* PROXY_TIER_*: order of the tries */
	int fd;            /* connecting; -1 otherwise */
	int err;           /* errno of its failure; 0: not failed (yet) */
	const char *why;   /* a failure without errno (name not resolved) */
};

enum {
	PROXY_TIER_NEAR,   /* loopback (mpirun sends it only to its own host), or
			    * on a subnet of one of our interfaces */
	PROXY_TIER_ROUTED, /* reached through a router, if at all */
	PROXY_TIER_OWN,    /* an address of this host: mpirun's only if we share
			    * its host (then loopback comes first), else a
			    * bridge both hosts have (docker0), tried last */
};

static int proxy_try_tier(const struct sockaddr *sa, const struct ifaddrs *ifs)
{
	const struct ifaddrs *i;
	struct in_addr a;
	int tier = PROXY_TIER_ROUTED;

	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr) ?
		       PROXY_TIER_NEAR : PROXY_TIER_ROUTED;
	a = ((const struct sockaddr_in *)sa)->sin_addr;
	if ((ntohl(a.s_addr) >> 24) == 127)
		return PROXY_TIER_NEAR;
	for (i = ifs; i; i = i->ifa_next) {
		uint32_t own, mask;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
			continue;
		own = ((const struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
		if (own == a.s_addr)
			return PROXY_TIER_OWN;
		mask = i->ifa_netmask ? ((const struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr : 0;
		if (!(i->ifa_flags & IFF_LOOPBACK) && mask && ((own ^ a.s_addr) & mask) == 0)
			tier = PROXY_TIER_NEAR;
	}
	return tier;
}

/* "A:P,B:P,..." (names too) into *tries, resolved, in tier order. */
static int proxy_try_list(const char *list, struct proxy_try **out)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct proxy_try *t = calloc(PROXY_TRY_MAX, sizeof(*t)), *sorted;
	struct ifaddrs *ifs = NULL;
	const char *item = list;
	int n = 0, k, tier;

	sorted = calloc(PROXY_TRY_MAX, sizeof(*sorted));
	if (!t || !sorted) {
		free(t);
		free(sorted);
		michi_error("no memory for mpirun's addresses");
		return -1;
	}
	if (getifaddrs(&ifs) != 0)
		ifs = NULL;   /* no preference then: mpirun's order */
	while (*item && n < PROXY_TRY_MAX) {
		size_t len = strcspn(item, ",");
		char host[256], port[16];
		const char *last = item + len;
		struct addrinfo *res = NULL, *ai;
		int rc;

		while (last > item && last[-1] != ':')
			last--;
		last = last > item ? last - 1 : NULL;   /* the port's colon */
		if (!last || last == item || (size_t)(last - item) >= sizeof(host) ||
		    (size_t)(item + len - last) >= 16) {
			michi_error("--connect needs ADDR:PORT[,ADDR:PORT...], not '%s'", list);
			goto err;
		}
		/* [v6]:port as well as v4:port and name:port */
		if (*item == '[' && last[-1] == ']')
			snprintf(host, sizeof(host), "%.*s", (int)(last - item - 2), item + 1);
		else
			snprintf(host, sizeof(host), "%.*s", (int)(last - item), item);
		snprintf(port, sizeof(port), "%.*s", (int)(item + len - last - 1), last + 1);
		rc = getaddrinfo(host, port, &hints, &res);
		if (rc != 0) {
			snprintf(t[n].name, sizeof(t[n].name), "%.*s", (int)len, item);
			t[n].why = gai_strerror(rc);
			t[n].fd = -1;
			t[n].tier = PROXY_TIER_NEAR;   /* listed first among the failures */
			n++;
		}
		for (ai = res; ai && n < PROXY_TRY_MAX; ai = ai->ai_next) {
			if (ai->ai_addrlen > sizeof(t[n].sa))
				continue;
			memcpy(&t[n].sa, ai->ai_addr, ai->ai_addrlen);
			t[n].salen = ai->ai_addrlen;
			snprintf(t[n].name, sizeof(t[n].name), "%.*s", (int)len, item);
			t[n].tier = ifs ? proxy_try_tier(ai->ai_addr, ifs) : PROXY_TIER_ROUTED;
			t[n].fd = -1;
			n++;
		}
		if (res)
			freeaddrinfo(res);
		item += len + (item[len] == ',');
	}
	if (ifs)
		freeifaddrs(ifs);
	/* a stable sort by tier: mpirun's order stays within one */
	for (tier = PROXY_TIER_NEAR, k = 0; tier <= PROXY_TIER_OWN; tier++)
		for (int j = 0; j < n; j++)
			if (t[j].tier == tier)
				sorted[k++] = t[j];
	free(t);
	*out = sorted;
	return n;
err:
	if (ifs)
		freeifaddrs(ifs);
	free(t);
	free(sorted);
	return -1;
}

/* Start try t: 1 connected at once, 0 in progress, -1 failed (t->err). */
static int proxy_try_start(struct proxy_try *t)
{
	if (t->why)
		return -1;
	t->fd = socket(t->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (t->fd < 0) {
		t->err = errno;
		return -1;
	}
	if (connect(t->fd, (struct sockaddr *)&t->sa, t->salen) == 0)
		return 1;
	if (errno == EINPROGRESS)
		return 0;
	t->err = errno;
	close(t->fd);
	t->fd = -1;
	return -1;
}

/*
 * Connect to one of mpirun's addresses within secs: the fd (blocking),
 * or -1 after an error that names every address and why it failed.
 */
static int proxy_connect_any(struct proxy_try *t, int n, double secs)
{
	struct pollfd pfd[PROXY_TRY_MAX];
	int map[PROXY_TRY_MAX];
	double now = michi_wtime(), deadline = now + secs, next = now;
	int started = 0, active = 0, fd = -1, won = -1, i;
	char msg[2048];
	size_t ml;

	for (;;) {
		double until;
		int np = 0;

		now = michi_wtime();
		/* the next address when its time has come or nothing is pending */
		while (won < 0 && started < n && (now >= next || active == 0)) {
			int rc = proxy_try_start(&t[started]);

			if (rc > 0)
				won = started;
			else if (rc == 0)
				active++;
			/* one that failed at once (no route) lets the next start now */
			next = rc == 0 ? now + PROXY_TRY_DELAY : now;
			started++;
		}
		if (won >= 0 || (active == 0 && started == n) || now >= deadline)
			break;
		for (i = 0; i < started; i++)
			if (t[i].fd >= 0) {
				pfd[np].fd = t[i].fd;
				pfd[np].events = POLLOUT;
				map[np++] = i;
			}
		until = started < n && next < deadline ? next : deadline;
		if (poll(pfd, (nfds_t)np, (int)((until - now) * 1000) + 1) < 0 && errno != EINTR) {
			michi_error("poll while connecting to mpirun: %m");
			break;
		}
		for (i = 0; i < np && won < 0; i++) {
			struct proxy_try *c = &t[map[i]];
			int err = 0;
			socklen_t el = sizeof(err);

			if (!pfd[i].revents)
				continue;
			if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
				err = errno;
			active--;
			if (err == 0) {
				won = map[i];
				break;
			}
			c->err = err;
			close(c->fd);
			c->fd = -1;
			next = michi_wtime();
		}
	}
	if (won >= 0) {
		fd = t[won].fd;
		t[won].fd = -1;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		michi_debug("connected to mpirun at %s", t[won].name);
	}
	/* the others; mpirun takes a connection closed before a byte came
	 * for a loser of this race, not for a stranger */
	for (i = 0; i < started; i++)
		if (t[i].fd >= 0) {
			close(t[i].fd);
			t[i].fd = -1;
			t[i].err = ETIMEDOUT;
		}
	if (fd >= 0)
		return fd;
	ml = (size_t)snprintf(msg, sizeof(msg), "cannot connect to mpirun at any of its addresses, "
			      "tried in this order:");
	for (i = 0; i < n && ml < sizeof(msg); i++) {
		char why[64];

		if (t[i].why)
			snprintf(why, sizeof(why), "%s", t[i].why);
		else if (t[i].err == ETIMEDOUT)
			snprintf(why, sizeof(why), "no answer within %g s", secs);
		else if (t[i].err)
			snprintf(why, sizeof(why), "%s", strerror(t[i].err));
		else
			snprintf(why, sizeof(why), "not tried, time was up");
		ml += (size_t)snprintf(msg + ml, sizeof(msg) - ml, "%s %s (%s%s)", i ? "," : "",
				       t[i].name, why,
				       t[i].tier == PROXY_TIER_OWN ? "; an address of this host" : "");
	}
	michi_error("%s (tunable MICHI_LAUNCH_ADDRESS on mpirun's side names the one to use)", msg);
	return -1;
}

static int proxy_connect(const char *list)
{
	struct proxy_try *tries;
	char cookie[128], line[512];
	struct pmi_wire_out o;
	int fd, n;

	if (proxy_read_cookie(cookie, sizeof(cookie)) < 0) {
		michi_error("no cookie line on stdin within 30 s");
		return -1;
	}
	n = proxy_try_list(list, &tries);
	if (n < 0)
		return -1;
	if (n == 0) {
		free(tries);
		michi_error("--connect names no address of mpirun: '%s'", list);
		return -1;
	}
	fd = proxy_connect_any(tries, n, launch_connect_timeout > 0 ? launch_connect_timeout / 2 : 15);
	free(tries);
	if (fd < 0)
		return -1;
	launch_ctl_keepalive(fd, launch_keepalive);
	pmi_wire_begin(&o, line, sizeof(line), "hello");
	pmi_wire_add(&o, "cookie", cookie);
	pmi_wire_add(&o, "host", michi_hostname());
	if (launch_ctl_send(fd, &o) < 0) {
		michi_error("cannot greet mpirun: %s", michi_err_msg());
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The ranks unlink their host's segment once all of them have attached;
 * a job that died before that (a rank killed during MPI_Init, mpirun
 * killed) leaves the name behind. Once our ranks are gone, nobody of the
 * job can still need it.
 */
static void proxy_shm_cleanup(void)
{
	size_t n = strlen(px.shm_prefix);
	struct dirent *e;
	DIR *d;

	if (!n || !(d = opendir("/dev/shm")))
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, px.shm_prefix, n) != 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			michi_debug("proxy: removed /dev/shm/%s left by the job", e->d_name);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	struct pmi_wire_reader ctl_rd;
	sigset_t mask;
	michi_status_t st;
	char *end;

	michi_log_init();
	michi_tunables_load();
	michi_log_set_prefix("michi-proxy");
	if (argc != 3) {
		proxy_usage();
		return 2;
	}
	px.in_fd = fcntl(0, F_GETFD) >= 0 ? 0 : -1;
	if (strcmp(argv[1], "--connect") == 0) {
		px.ctl = proxy_connect(argv[2]);
		if (px.ctl < 0)
			return 1;
		px.in_fd = -1;   /* stdin carried the cookie; ranks get /dev/null */
	} else if (strcmp(argv[1], "--control-fd") == 0) {
		px.ctl = (int)strtol(argv[2], &end, 10);
		if (*end || px.ctl < 0 || fcntl(px.ctl, F_SETFD, FD_CLOEXEC) < 0) {
			proxy_usage();
			return 2;
		}
	} else {
		proxy_usage();
		return 2;
	}
	/* if mpirun dies, we get SIGTERM and end the ranks */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	px.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (px.sigfd < 0) {
		michi_error("signalfd failed: %m");
		return 1;
	}
	px.sink[0].fd = 1;
	px.sink[1].fd = 2;
	if (pmi_wire_reader_init(&ctl_rd, LAUNCH_CTL_LINE_MAX) < 0)
		return 1;
	st = proxy_loop(&ctl_rd);
	if (st < 0)
		proxy_kill_all(SIGKILL);
	proxy_shm_cleanup();
	return st < 0 ? 1 : 0;
}
