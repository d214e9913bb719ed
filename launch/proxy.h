/* SPDX-License-Identifier: MIT */
/*
 * launch/proxy.h: what the files of michi-proxy share (private to it).
 *
 * proxy.c: the proxy's state (px), its event loop, the connection to
 * mpirun and main; proxy_pmi.c: the key-value space, the PMI-1 server and
 * the name service; proxy_io.c: the output relay; proxy_ctl.c: reports to
 * mpirun and its control messages; proxy_ranks.c: binding and starting
 * the ranks.
 */
#ifndef MICHI_PROXY_H
#define MICHI_PROXY_H

#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

#define PROXY_PARTIAL_MAX 4096          /* longest line kept whole */
#define PROXY_SINK_MAX    (1 << 20)     /* bytes queued per output stream */
#define PROXY_STDIN_MAX   65536
#define PROXY_KVS_BUCKETS 4096

/* seconds between SIGTERM and SIGKILL; mpirun sends its kill_grace */
extern double proxy_kill_grace;

struct proxy_stream {
	int fd;                       /* read end of the rank's pipe, -1 at EOF */
	size_t len;
	char part[PROXY_PARTIAL_MAX];
};

struct proxy_rank {
	int rank, local_rank, appnum;
	pid_t pid;
	int pmi_fd;
	struct pmi_wire_reader rd;
	struct proxy_stream io[2];    /* stdout, stderr */
	int in_fence, initialized, finalized, reaped;
	int bind_obj;                 /* logical index of its object; -1: not bound */
};

struct proxy_sink {
	int fd;
	char *buf;
	size_t head, len, cap;
};

struct proxy_kv {
	struct proxy_kv *next;
	char *key, *val;
};

struct proxy_app {
	int appnum, first, n, stride;   /* ranks first + j * stride, j < n */
	int argc, argmax, nenv;
	char **argv;
	char **env;                   /* name, value, name, value ... */
};

struct proxy_state {
	int ctl;
	int sigfd;
	char kvsname[PMI_WIRE_KVSNAME_MAX];
	char *host;                   /* the ranks' host identity, from mpirun */
	char *site;                   /* their site (hostfile site=, --host H@SITE), or NULL */
	char shm_prefix[48];          /* the job's /dev/shm names, from its key */
	int size, universe, label, stdin_rank;
	struct proxy_app *apps;
	int napps;
	struct proxy_rank *ranks;
	int nranks;
	int nfence;
	struct proxy_kv *kvs[PROXY_KVS_BUCKETS];
	struct proxy_kv *pending;     /* puts since the last fence, for mpirun */
	struct proxy_sink sink[2];
	/* stdin relay to one rank */
	int in_fd, in_pipe;
	char in_buf[PROXY_STDIN_MAX];
	size_t in_len;
	int killing;
	double kill_at;
	int done_sent;
	/* --bind-to: a launch_bind_names entry, and the objects of that level */
	const char *bind;
	int report_bindings;
#ifdef HAVE_HWLOC
	hwloc_topology_t topo;
	hwloc_obj_type_t bind_type;
	int nobjs;
#endif
};
extern struct proxy_state px;   /* the proxy, in launch/proxy.c */

/* proxy_pmi.c */
void proxy_note_key(const char *hex);
michi_status_t proxy_kvs_put(const char *key, const char *val, int remember);
void proxy_pmi_reply(struct proxy_rank *r, struct pmi_wire_out *o);
void proxy_ns_reply(const struct pmi_wire_msg *m);
void proxy_pmi_read(struct proxy_rank *r);

/* proxy_io.c */
void proxy_sink_append(struct proxy_sink *s, const char *p, size_t n);
void proxy_stream_lines(struct proxy_rank *r, int which, int at_eof);
size_t proxy_stream_read(struct proxy_rank *r, int which);
void proxy_sink_write(struct proxy_sink *s);
void proxy_flush_rank(struct proxy_rank *r);

/* proxy_ctl.c */
void proxy_begin_kill(void);
void proxy_ctl_send(struct pmi_wire_out *o);
void proxy_report_error(const char *msg);
void proxy_drain_ctl(void);
void proxy_report_exit(struct proxy_rank *r, int status);
void proxy_fence_check(void);
void proxy_kill_all(int sig);
michi_status_t proxy_ctl_line(const struct pmi_wire_msg *m, int *started);

/* proxy_ranks.c */
michi_status_t proxy_start(void);

#endif
