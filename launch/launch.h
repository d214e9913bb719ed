/* SPDX-License-Identifier: MIT */
/*
 * launch/launch.h: what mpirun and michi-proxy share.
 *
 * The two talk over one stream (a socketpair for the local proxy; later a
 * TCP connection or the stdio of `ssh host michi-proxy`) in the same
 * `cmd=... key=value` line format as PMI-1 (util/pmi_wire.h), with free
 * text percent-encoded. Launcher to proxy: job (with host=, the ranks'
 * host identity), wdir (their working directory), kv, app (ranks first +
 * j * stride, j < n; one line per run of equal stride, each followed by
 * its arg and env lines), arg, env, start, fence_out, kill. Proxy to
 * launcher: hello (a remote proxy's first line, with the cookie), started,
 * kv, fence_in, abort, error (the proxy's own failure, for mpirun to
 * print), exit, done. See launch/proxy.c for the order of a job.
 */
#ifndef MICHI_LAUNCH_H
#define MICHI_LAUNCH_H

#include "michi.h"
#include "pmi_wire.h"

#define LAUNCH_CTL_LINE_MAX (256 * 1024)   /* an escaped argument or env value */
#define LAUNCH_VERSION "0.1.0"

/*
 * The levels a rank can be bound to (--bind-to), as mpirun sends them in
 * the job line; NULL-terminated, "none" first.
 */
extern const char *const launch_bind_names[];

/* Finish o and write it to the control stream; blocking, small lines. */
michi_status_t launch_ctl_send(int fd, struct pmi_wire_out *o);
/* Add a free-text value, percent-encoded (malloc'd scratch, freed here). */
void launch_add_text(struct pmi_wire_out *o, const char *key, const char *text);
/* "Killed", "Segmentation fault", ... */
const char *launch_signame(int sig);

/* seconds of silence after which a TCP control stream counts as dead
 * (tunable launch_keepalive; mpirun passes its value to remote proxies) */
extern double launch_keepalive;
/*
 * Make a TCP control stream fail (read() ends with ETIMEDOUT) once the
 * other side has not answered for about secs seconds: keepalive probes
 * while it is idle, TCP_USER_TIMEOUT while data waits for an ack. A host
 * whose network is cut or that crashed sends no FIN or RST, and nothing
 * else would notice it. No-op on other sockets or with secs <= 0.
 */
void launch_ctl_keepalive(int fd, double secs);

/* seconds mpirun waits for a remote proxy to connect back (tunable
 * launch_connect_timeout); the proxy gives up on mpirun's addresses
 * after half of it, so that its own message, which names each address
 * and why it failed, comes first */
extern double launch_connect_timeout;

/*
 * Rate limit for warnings that a stranger can cause (rejected
 * connections): the first few of each second are logged, then one line
 * with the count of those left out.
 */
struct launch_ratelimit {
	double since;
	unsigned n, quiet;
};
/* 1: log this one, and *skipped is how many were left out before it */
int launch_ratelimit_ok(struct launch_ratelimit *rl, unsigned *skipped);

#endif
