/* SPDX-License-Identifier: MIT */
/*
 * launch/launch.h: what mpirun and michi-proxy share.
 *
 * The two talk over one stream (a socketpair for the local proxy; later a
 * TCP connection or the stdio of `ssh host michi-proxy`) in the same
 * `cmd=... key=value` line format as PMI-1 (util/pmi_wire.h), with free
 * text percent-encoded. Launcher to proxy: job (with host=, the ranks'
 * host identity), kv, app (ranks first + j * stride, j < n; one line per
 * run of equal stride, each followed by its arg and env lines), arg, env,
 * start, fence_out, kill. Proxy to launcher: hello (a remote proxy's first line,
 * with the cookie), started, kv, fence_in, abort, exit, done. See
 * launch/proxy.c for the order of a job.
 */
#ifndef MICHI_LAUNCH_H
#define MICHI_LAUNCH_H

#include "michi.h"
#include "pmi_wire.h"

#define LAUNCH_CTL_LINE_MAX (256 * 1024)   /* an escaped argument or env value */
#define LAUNCH_VERSION "0.1.0"

/* Finish o and write it to the control stream; blocking, small lines. */
michi_status_t launch_ctl_send(int fd, struct pmi_wire_out *o);
/* Add a free-text value, percent-encoded (malloc'd scratch, freed here). */
void launch_add_text(struct pmi_wire_out *o, const char *key, const char *text);
/* "Killed", "Segmentation fault", ... */
const char *launch_signame(int sig);

#endif
