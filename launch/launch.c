/* SPDX-License-Identifier: MIT */
/*
 * launch/launch.c: helpers for the control stream that mpirun and
 * michi-proxy share (see launch.h).
 */
#include "config.h"
#include "launch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

double launch_keepalive = 20.0;
MICHI_TUNABLE(launch_keepalive, "launch_keepalive", MICHI_T_DOUBLE, "20",
	      MICHI_LEVEL_USER,
	      "seconds without an answer after which mpirun and a remote proxy give each "
	      "other up (a cut network, a crashed host); 0: the system's TCP defaults");

double launch_connect_timeout = 30.0;
MICHI_TUNABLE(launch_connect_timeout, "launch_connect_timeout", MICHI_T_DOUBLE, "30",
	      MICHI_LEVEL_USER,
	      "seconds a remote proxy may take to connect back to mpirun (its start by the "
	      "template included); the proxy tries mpirun's addresses for half of it");

michi_status_t launch_ctl_send(int fd, struct pmi_wire_out *o)
{
	michi_status_t st = pmi_wire_end(o);

	if (st < 0)
		return st;
	return pmi_wire_write_all(fd, o->buf, o->len);
}

void launch_add_text(struct pmi_wire_out *o, const char *key, const char *text)
{
	size_t len = strlen(text), cap = 3 * len + 1;
	char *esc = malloc(cap);

	if (!esc) {
		if (o->st == MICHI_OK)
			o->st = michi_err(MICHI_ERR_NOMEM, "launch: no memory to encode '%s'", key);
		return;
	}
	pmi_wire_escape(esc, cap, text, len);
	pmi_wire_add(o, key, esc);
	free(esc);
}

const char *const launch_bind_names[] = {
	"none", "hwthread", "core", "l3cache", "socket", "numa", NULL
};

const char *launch_signame(int sig)
{
	const char *s = strsignal(sig);

	return s ? s : "unknown signal";
}

void launch_ctl_keepalive(int fd, double secs)
{
	int one = 1, type = 0, cnt = 3, idle;
	unsigned ms;
	socklen_t len = sizeof(type);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (secs <= 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
	    type != SOCK_STREAM || getsockname(fd, (struct sockaddr *)&ss, &sl) < 0 ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
		return;
	/* probes every quarter of the time (whole seconds, the kernel's
	 * unit); the user timeout then ends the connection at the first
	 * unanswered probe past secs, or when data has waited that long */
	idle = (int)(secs / 4);
	if (idle < 1)
		idle = 1;
	ms = secs * 1000 > 0x7fffffff ? 0x7fffffff : (unsigned)(secs * 1000);
	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &idle, sizeof(idle)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt)) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof(ms)) < 0)
		michi_warn("cannot set keepalive on the control connection: %m");
}

int launch_ratelimit_ok(struct launch_ratelimit *rl, unsigned *skipped)
{
	double now = michi_wtime();

	if (now - rl->since >= 1.0) {
		rl->since = now;
		rl->n = 0;
	}
	if (rl->n >= 5) {
		rl->quiet++;
		return 0;
	}
	rl->n++;
	*skipped = rl->quiet;
	rl->quiet = 0;
	return 1;
}
