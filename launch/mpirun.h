/* SPDX-License-Identifier: MIT */
/*
 * launch/mpirun.h: what the files of mpirun share (private to mpirun).
 *
 * mpirun.c: tunables, the job state (mr) and main; mpirun_cmdline.c: the
 * command line; mpirun_hosts.c: hosts, hostfiles, Slurm and the placement
 * of ranks; mpirun_start.c: starting the proxies and sending them the job;
 * mpirun_job.c: the job's judge, the name service and the event loop.
 */
#ifndef MICHI_MPIRUN_H
#define MICHI_MPIRUN_H

#include "launch.h"
#include "netif.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/time.h>

/* tunables (launch/mpirun.c) */
extern const char *launch_proxy_path;
extern const char *launch_template;
extern const char *launch_address;
extern double launch_kill_grace;
extern const char *launch_bind_to;
extern int launch_report_bindings;

/* --launcher: which hosts get a forked proxy and which the template */
enum {
	MR_LAUNCH_AUTO,     /* this host's names fork, others take the template */
	MR_LAUNCH_SSH,      /* the same, with an ssh template */
	MR_LAUNCH_FORK,     /* every host forked here: names are identities only */
	MR_LAUNCH_EXEC,     /* every host through the template */
	MR_LAUNCH_SLURM,    /* every host through srun, inside an allocation */
};

enum { MR_ENV_ALL, MR_ENV_LIST, MR_ENV_NONE };

#define MR_SSH_TEMPLATE "ssh -x {host}"
/* one task per host; --mpi=none: the proxy serves PMI to its ranks, srun
 * need not; --overlap: a second mpirun in the same allocation still starts */
#define MR_SRUN_TEMPLATE \
	"srun --ntasks-per-node=1 -N 1 -n 1 --mpi=none --overlap --nodelist={host}"

struct mr_env {
	char *name, *value;
};

struct mr_app {
	int n;
	int argc;
	char **argv;
	struct mr_env *env;
	int nenv;
};

struct mr_kv {
	char *key, *val;
	int from;
};

/* A connection to the connect-back port that has not said hello yet. */
struct mr_pending {
	int fd;             /* -1: slot free */
	struct pmi_wire_reader rd;
	double deadline;
	char name[64];      /* remote address, for the log */
};

/* Remote proxies say hello within a second; strangers may flood the port:
 * at most this many wait at once, the oldest goes for a newcomer. */
#define MR_PENDING_MAX 32
#define MR_HELLO_TIMEOUT 5.0

/* One per host that holds ranks: ranks[0..n) run there, ascending. */
struct mr_proxy {
	pid_t pid;          /* the local proxy, or the template command (ssh) */
	int ctl;            /* -1 until a remote proxy has connected */
	struct pmi_wire_reader rd;
	char host[256];
	int n, *ranks;
	int local;
	int slots;          /* host:N, slots=N; 0: not given */
	char site[64];      /* host@SITE, site=SITE; "": not given */
	int in_fence, done, reaped;
	int connected;      /* its control stream came up (it may close later) */
};

struct mr_state {
	struct mr_app *apps;
	int napps;
	struct mr_env *genv;
	int ngenv;
	int envfw;           /* MR_ENV_*: mpirun's environment on other hosts */
	const char *envlist; /* -genvlist */
	char *wdir;          /* ranks' working directory */
	int wdir_given;      /* -wdir: a host without it fails the job */
	int label;
	double timeout;
	int size;
	struct mr_proxy *proxies;
	int nproxies;
	pid_t *rank_pid;
	int sigfd;
	int aborting;      /* job is being killed */
	int exit_code;     /* first failure's code, 0 if none */
	double kill_deadline;
	char kvsname[128];
	char jobkey[33];
	int nfence;
	struct mr_kv *fence_kv;   /* puts of this fence, for the other proxies */
	int nfence_kv;
	const char *hosts;   /* -hosts list, NULL: this host only */
	const char *hostfile;
	int ppn;
	int map_node;        /* --map-by node: round robin over the hosts */
	int launcher;        /* MR_LAUNCH_* */
	int *rank_proxy;     /* proxy index of every rank */
	int listen_fd;
	char cookie[33];
	char address[1200];  /* ADDR:PORT[,ADDR:PORT...] remote proxies try */
	int port;            /* of the connect-back listener */
	struct mr_pending pending[MR_PENDING_MAX];
	struct launch_ratelimit reject_rl;
};
extern struct mr_state mr;   /* the job, in launch/mpirun.c */

/* mpirun_cmdline.c */
/* a usage error: "mpirun: " fmt (with arg) " (see mpirun --help)"; -1 */
int mr_bad(const char *fmt, const char *arg);
/* a rank count, 1 to 1000000: 0, or -1 if s is not one */
int mr_parse_count(const char *s, int *out);
/* --timeout / MPIEXEC_TIMEOUT into mr.timeout: 0, or -1 (said why) */
int mr_parse_timeout(const char *s);
/* Returns 1 when the program should exit 0 (help, version), -1 on error. */
int mr_parse(int argc, char **argv);

/* mpirun_hosts.c */
int mr_is_local(const char *h);
int mr_plan(void);
int mr_slurm_hosts(void);

/* mpirun_start.c */
int mr_proxy_start(struct mr_proxy *p, int with_stdin);
int mr_send(struct mr_proxy *p, struct pmi_wire_out *o);
int mr_send_job(struct mr_proxy *p);

/* mpirun_job.c */
void mr_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mr_send_failed(struct mr_proxy *p);
int mr_loop(void);

#endif
