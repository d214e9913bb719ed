/* SPDX-License-Identifier: MIT */
/*
 * launch/mpirun.c: mpirun / mpiexec, the launcher.
 *
 * Parses the command line (MPICH and Open MPI spellings, MPMD colon
 * syntax), places the ranks over the hosts (--host or --hostfile, default
 * this host; in blocks, or round robin with --map-by node) and starts one
 * michi-proxy per host: a local one by fork with a socketpair as control
 * stream, another host's through a command template (`ssh -x {host}`,
 * `ip netns exec {host}`, srun...; --launcher picks which hosts take it)
 * with --connect back to a TCP port of mpirun (at the first of mpirun's
 * addresses that answers), authenticated by a cookie sent on its stdin.
 * The name a host was given by is its ranks' host identity
 * (MICHI_HOSTNAME), which decides shm within a host and tcp between
 * hosts, also where hosts share a kernel hostname. Then
 * it is the job's judge: it completes fences across proxies, and on the
 * first rank that exits non-zero, dies on a signal, calls abort or exits
 * without finalize after init, it prints one line naming the rank, host
 * and pid, tells every proxy to kill, and exits with that rank's code.
 * SIGINT/SIGTERM/SIGHUP and --timeout end the job the same way.
 *
 * This file holds the tunables, the job state and main; the rest is in
 * mpirun_cmdline.c, mpirun_hosts.c, mpirun_start.c and mpirun_job.c
 * (launch/mpirun.h lists what they share).
 */
#include "config.h"
#include "mpirun.h"

const char *launch_proxy_path = "";
MICHI_TUNABLE(launch_proxy_path, "proxy", MICHI_T_STRING, "",
	      MICHI_LEVEL_DEVELOPER,
	      "path of michi-proxy (default: next to the mpirun binary)");

const char *launch_template = "ssh -x {host}";
MICHI_TUNABLE(launch_template, "launch_template", MICHI_T_STRING, "ssh -x {host}",
	      MICHI_LEVEL_USER,
	      "command that starts michi-proxy on another host; {host} is replaced");

const char *launch_address = "";
MICHI_TUNABLE(launch_address, "launch_address", MICHI_T_STRING, "",
	      MICHI_LEVEL_USER,
	      "the one address remote proxies connect back to (default: every IPv4 address "
	      "of this host, each proxy takes the first that answers)");

double launch_kill_grace = 0.5;
MICHI_TUNABLE(launch_kill_grace, "kill_grace", MICHI_T_DOUBLE, "0.5",
	      MICHI_LEVEL_USER,
	      "seconds between SIGTERM and SIGKILL when mpirun ends a job");

const char *launch_bind_to = "none";
MICHI_TUNABLE(launch_bind_to, "bind_to", MICHI_T_STRING, "none",
	      MICHI_LEVEL_USER,
	      "what each rank is bound to, as --bind-to: none, hwthread, core, l3cache, "
	      "socket or numa (needs hwloc)");

int launch_report_bindings;
MICHI_TUNABLE(launch_report_bindings, "report_bindings", MICHI_T_BOOL, "0",
	      MICHI_LEVEL_USER,
	      "print each rank's binding to stderr at start (as --report-bindings)");

struct mr_state mr = { .listen_fd = -1 };

/* ---- main ------------------------------------------------------------- */

static int mr_cores(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

static int mr_random_hex(char out[33])
{
	unsigned char raw[16];
	size_t got = 0;
	int i;

	while (got < sizeof(raw)) {
		ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "mpirun: getrandom failed: %m\n");
			return -1;
		}
		got += (size_t)n;
	}
	for (i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

static int mr_launcher_setup(void)
{
	int given = strcmp(launch_template, MR_SSH_TEMPLATE) != 0;

	switch (mr.launcher) {
	case MR_LAUNCH_EXEC:
		if (!given)
			return mr_bad("%s", "--launcher exec needs --launcher-exec TEMPLATE, such as "
				      "'ip netns exec {host}'");
		break;
	case MR_LAUNCH_SLURM:
		/* Slurm's own variables say whether we are inside an allocation */
		if (!getenv("SLURM_JOB_ID") && !getenv("SLURM_JOBID"))
			return mr_bad("%s", "--launcher slurm works inside a Slurm allocation "
				      "(salloc or sbatch), and SLURM_JOB_ID is not set");
		if (!mr.hosts && !mr.hostfile && mr_slurm_hosts() < 0)
			return -1;
		if (!given)
			launch_template = MR_SRUN_TEMPLATE;
		break;
	default:
		break;
	}
	return 0;
}

#define MR_ADDR_MAX 48

/*
 * Every up IPv4 address of this host but loopback, as "A:P,B:P,...": the
 * ones the tcp device would pick (MICHI_TCP_IF's, else all but bridges
 * and link-local) first, as the likelier to be reached from another
 * host, then the rest. Returns how many.
 */
static int mr_addresses(int port)
{
	struct ifaddrs *ifa, *i;
	struct in_addr seen[MR_ADDR_MAX];
	size_t len = 0;
	int n = 0, pass;

	mr.address[0] = '\0';
	if (getifaddrs(&ifa) != 0)
		return 0;
	for (pass = 0; pass < 2; pass++) {
		for (i = ifa; i && n < MR_ADDR_MAX; i = i->ifa_next) {
			struct in_addr a;
			char ip[INET_ADDRSTRLEN];
			int k;

			if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
			    !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
				continue;
			a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
			if (michi_netif_is_loopback(a) ||
			    michi_netif_selected(i->ifa_name, a, i->ifa_flags) != (pass == 0))
				continue;
			for (k = 0; k < n && seen[k].s_addr != a.s_addr; k++)
				;
			if (k < n)
				continue;   /* one address on two interfaces */
			inet_ntop(AF_INET, &a, ip, sizeof(ip));
			if (len + strlen(ip) + 8 >= sizeof(mr.address))
				break;
			len += (size_t)sprintf(mr.address + len, "%s%s:%d", n ? "," : "", ip, port);
			seen[n++] = a;
		}
	}
	freeifaddrs(ifa);
	return n;
}

/*
 * Remote proxies connect back here; only needed when there are any.
 * mpirun cannot know which of its networks another host reaches (a
 * launch node's management network, a login node's cluster side, the
 * bridge to namespace hosts), so it listens on every interface and gives
 * each proxy all its addresses, to try until one answers (the cookie,
 * not the address, keeps strangers out). MICHI_TCP_IF only orders them:
 * it chooses the ranks' network, which this host need not be on.
 * MICHI_LAUNCH_ADDRESS names the one address instead, listened on alone
 * when it is this host's (else, behind NAT or a name, on all).
 */
static int mr_listen(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int i, remote = 0, one_addr = launch_address && *launch_address;

	for (i = 0; i < mr.nproxies; i++)
		remote += !mr.proxies[i].local;
	if (!remote)
		return 0;
	mr.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (mr.listen_fd < 0)
		goto err;
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (one_addr) {
		struct sockaddr_in at = sin;

		if (inet_pton(AF_INET, launch_address, &at.sin_addr) == 1 &&
		    bind(mr.listen_fd, (struct sockaddr *)&at, sizeof(at)) == 0)
			goto bound;
		michi_debug("mpirun: %s is not an address of this host: listening on all",
			    launch_address);
	}
	if (bind(mr.listen_fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		goto err;
bound:
	if (listen(mr.listen_fd, 128) < 0 ||
	    getsockname(mr.listen_fd, (struct sockaddr *)&sin, &sl) < 0)
		goto err;
	mr.port = ntohs(sin.sin_port);
	if (one_addr) {
		snprintf(mr.address, sizeof(mr.address), "%s:%d", launch_address, mr.port);
	} else if (mr_addresses(mr.port) == 0) {
		/* no network at all: only proxies on this host can come */
		snprintf(mr.address, sizeof(mr.address), "127.0.0.1:%d", mr.port);
		michi_warn("mpirun: this host has no IPv4 address but loopback; proxies on other "
			   "hosts cannot connect back");
	}
	michi_info("remote proxies connect back to %s", mr.address);
	return 0;
err:
	fprintf(stderr, "mpirun: cannot listen for remote proxies: %m\n");
	return -1;
}

static int mr_setup(void)
{
	const char *t = getenv("MPIEXEC_TIMEOUT");   /* MPICH's variable */
	sigset_t mask;
	int i, cores, here;

	if (mr.timeout == 0 && t && *t && mr_parse_timeout(t) < 0)
		return -1;
	for (i = 0; i < MR_PENDING_MAX; i++)
		mr.pending[i].fd = -1;
	for (i = 0; i < mr.napps; i++) {
		if (mr.size > INT_MAX - mr.apps[i].n)
			return mr_bad("%s", "too many ranks");
		mr.size += mr.apps[i].n;
	}
	mr.rank_pid = calloc((size_t)mr.size, sizeof(*mr.rank_pid));
	if (!mr.rank_pid || mr_random_hex(mr.jobkey) < 0 || mr_random_hex(mr.cookie) < 0)
		return -1;
	if (mr_launcher_setup() < 0 || mr_plan() < 0 || mr_listen() < 0)
		return -1;
	/*
	 * Only this host's cores are known here. Said only when asked (-v,
	 * MICHI_LOG=info), as MPICH and Open MPI say nothing: test drivers
	 * (MPICH's runtests) and scripts fail a run on any output but the
	 * program's, and oversubscription is allowed and handled anyway.
	 */
	cores = mr_cores();
	for (i = 0, here = 0; i < mr.nproxies; i++)
		here += mr.proxies[i].local ? mr.proxies[i].n : 0;
	if (cores > 0 && here > cores)
		michi_info("note: %d ranks on %d cores (oversubscribed)", here, cores);
	snprintf(mr.kvsname, sizeof(mr.kvsname), "michi_%d_%.8s", (int)getpid(), mr.jobkey + 24);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	mr.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (mr.sigfd < 0) {
		fprintf(stderr, "mpirun: signalfd failed: %m\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rc, i;

	michi_log_init();
	michi_tunables_load();
	michi_log_set_prefix("mpirun");
	rc = mr_parse(argc, argv);
	if (rc != 0)
		return rc > 0 ? 0 : 1;
	if (mr_setup() < 0)
		return 1;
	for (i = 0; i < mr.nproxies; i++) {
		struct mr_proxy *p = &mr.proxies[i];

		if (mr_proxy_start(p, p->ranks[0] == 0) < 0) {
			mr_fail(1, "cannot start the proxy for host %s; job aborted", p->host);
			break;
		}
		if (p->local && mr_send_job(p) < 0)
			mr_send_failed(p);
	}
	return mr_loop();
}
