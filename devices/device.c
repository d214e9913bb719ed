/* SPDX-License-Identifier: MIT */
/*
 * devices/device.c: the table of devices, the choice of one device per
 * world rank, polling, and how a rank with nothing to do waits.
 *
 * The devices are the rows of devices/devices.def; this file names none
 * of them: what it needs to know is data in each one's struct.
 * michi_devices_init() runs before the job's fence and starts every device
 * some peer may need, so that each can put its business card: the
 * MICHI_DEV_OWN_RANK devices (self) always, and every device of nonzero
 * priority whose wanted() says a peer may need it (shm: the launcher does
 * not say this rank is alone on its host; tcp: it does not say every rank
 * is on this host). After the fence the host map is known:
 * michi_devices_post_fence() runs each started device's post_fence and
 * gives each peer the started device of highest priority that reaches it
 * (self for our own rank, shm for a rank on our host, tcp for the rest).
 * MICHI_DEVICE=<name> forces one device for every other rank; a matching
 * device (ofi, ucx: michi_device.tagged) forced so serves every rank,
 * this one included, and MTMI then hands it the matching
 * (michi_devices_tagged). Only devices that serve some peer are polled
 * (not the OWN_RANK ones: self delivers inside send).
 *
 * Waiting (docs/design.md §2, "No thread is required"): idle polls, then
 * sched_yield, and sleeps in the devices' wait only when asked to
 * (wait_yield >= 0 or wait_policy block) or where every peer's device
 * wakes a sleeper through a file descriptor (devices_wait_fds). The
 * automatic policy compares the ranks on this kernel (hosts that are
 * network namespaces of one machine count together) with the processors
 * (hwloc when configured, else the online CPUs): with a core per rank a
 * waiting rank polls, then
 * yields; oversubscribed, it gives the core away after a few polls, since
 * the rank it waits for may need that core. Neither sleeps, as in MPICH
 * and Open MPI, and so shm senders skip the check for a sleeping
 * receiver. A yielding rank does not starve the one it waits for: the
 * scheduler runs it again only after the others on its processor (Linux
 * 6.6's EEVDF pushes its deadline back by a slice; CFS skips it). A
 * sleeping one did harm: ranks that slept through another rank's long
 * computation woke up together on the processor they had slept on and
 * stayed stacked there until the load balancer moved them, milliseconds
 * later, and their senders paid futex wakes (see devices_wait_policy). A
 * polling call
 * (MPI_Test and friends) that finds nothing yields too, but at most once
 * per poll_yield_us: a loop that only tests hands the core over within
 * that time, while a program that tests between small pieces of its own
 * work (HPCC's RandomAccess tests after every table update, millions of
 * times a second) does not pay a context switch per call.
 */
#include "config.h"
#include "device.h"

#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

int michi_tag_inline;

#define MICHI_DEVICE(name) extern struct michi_device michi_device_##name MICHI_HIDDEN;
#define MICHI_DEVICE_UNBUILT(name, how)
#include "devices.def"
#undef MICHI_DEVICE
#undef MICHI_DEVICE_UNBUILT

struct michi_device *michi_devices[] = {
#define MICHI_DEVICE(name) &michi_device_##name,
#define MICHI_DEVICE_UNBUILT(name, how)
#include "devices.def"
#undef MICHI_DEVICE
#undef MICHI_DEVICE_UNBUILT
	NULL,
};

/* Devices configure leaves out when their library is missing, and what
 * builds them: a request for one at run time names it. */
static const struct {
	const char *name, *how;
} devices_unbuilt[] = {
#define MICHI_DEVICE(name)
#define MICHI_DEVICE_UNBUILT(name, how) { #name, how },
#include "devices.def"
#undef MICHI_DEVICE
#undef MICHI_DEVICE_UNBUILT
	{ NULL, NULL },
};

struct michi_device **michi_dev_for_peer;
static int devices_npeers;   /* entries of michi_dev_for_peer */
struct michi_wait_policy michi_wait;

static const char *device_force = "";
MICHI_TUNABLE(device_force, "device", MICHI_T_STRING, "", MICHI_LEVEL_USER,
	      "device for every other rank (shm, tcp), or a matching device for every rank "
	      "(ofi, ucx, when built); empty or auto: shm on the same host, else tcp");

static const char *wait_policy = "auto";
MICHI_TUNABLE(wait_policy, "wait_policy", MICHI_T_STRING, "auto", MICHI_LEVEL_TUNER,
	      "how a waiting rank idles: auto (spin, then yield; spins shorter when ranks "
	      "outnumber cores; sleeps only after wait_yield rounds when that is set), "
	      "spin, yield or block");
static int poll_yield_us = 20;
MICHI_TUNABLE(poll_yield_us, "poll_yield_us", MICHI_T_INT, "20", MICHI_LEVEL_TUNER,
	      "ranks outnumbering cores: MPI_Test and the other polling calls that find "
	      "nothing give the core away at most once per this many microseconds "
	      "(0: every time)");
static int wait_spin = -1;
MICHI_TUNABLE(wait_spin, "wait_spin", MICHI_T_INT, "-1", MICHI_LEVEL_TUNER,
	      "idle polls before a waiting rank yields (-1: 2000 with a core per rank, "
	      "else 2)");
static int wait_yield = -1;
MICHI_TUNABLE(wait_yield, "wait_yield", MICHI_T_INT, "-1", MICHI_LEVEL_TUNER,
	      "sched_yield rounds before a waiting rank sleeps (-1: automatic: after "
	      "wait_fd_yield rounds where ranks outnumber processors and every peer's "
	      "device wakes a sleeper through a file descriptor, else never)");
static int wait_fd_yield = 4;
MICHI_TUNABLE(wait_fd_yield, "wait_fd_yield", MICHI_T_INT, "4", MICHI_LEVEL_TUNER,
	      "wait_yield -1, ranks outnumbering processors, every peer on a device with a "
	      "file descriptor to sleep on (tcp): sched_yield rounds before a waiting "
	      "rank sleeps there");
static int wait_block_ms = 10;
MICHI_TUNABLE(wait_block_ms, "wait_block_ms", MICHI_T_INT, "10", MICHI_LEVEL_TUNER,
	      "longest single sleep of a waiting rank in the devices' wait (ms)");

#define DEVICES_MAX 8
static struct michi_device *devices_active[DEVICES_MAX];   /* started */
static int devices_nactive;
static struct michi_device *devices_poll[DEVICES_MAX];     /* serving a peer */
static int devices_npoll;
static struct michi_device *devices_forced;

struct michi_device *michi_device_find(const char *name)
{
	int i;

	for (i = 0; michi_devices[i]; i++)
		if (strcmp(michi_devices[i]->name, name) == 0)
			return michi_devices[i];
	return NULL;
}

static michi_status_t devices_unknown(const char *name)
{
	char known[256] = "";
	size_t n = 0;
	int i;

	for (i = 0; devices_unbuilt[i].name; i++)
		if (strcmp(devices_unbuilt[i].name, name) == 0)
			return michi_err(MICHI_ERR_UNSUPPORTED,
					 "MICHI_DEVICE=%s: this Michi was built without the %s "
					 "device; install %s and run configure again (its summary "
					 "lists the devices it builds)", name, name,
					 devices_unbuilt[i].how);

	for (i = 0; michi_devices[i]; i++)
		n += (size_t)snprintf(known + n, n < sizeof(known) ? sizeof(known) - n : 0,
				      "%s%s", i ? ", " : "", michi_devices[i]->name);
	return michi_err(MICHI_ERR_INVAL, "MICHI_DEVICE=%s: no such device; known devices: %s",
			 name, known);
}

static michi_status_t devices_parse_force(void)
{
	struct michi_device *d;

	devices_forced = NULL;
	if (!device_force || !*device_force || strcmp(device_force, "auto") == 0)
		return MICHI_OK;
	d = michi_device_find(device_force);
	if (!d)
		return devices_unknown(device_force);
	if (d->caps & MICHI_DEV_OWN_RANK)
		return michi_err(MICHI_ERR_INVAL, "MICHI_DEVICE=%s: the %s device only "
				 "serves a rank sending to itself; choose one for other ranks",
				 d->name, d->name);
	devices_forced = d;
	return MICHI_OK;
}

static michi_status_t devices_start(struct michi_device *d, struct michi_job *job)
{
	michi_status_t st;
	int i;

	for (i = 0; i < devices_nactive; i++)
		if (devices_active[i] == d)
			return MICHI_OK;
	st = d->init(job);
	if (st < 0)
		return st;
	devices_active[devices_nactive++] = d;
	return MICHI_OK;
}

static int devices_started(const struct michi_device *d)
{
	int i;

	for (i = 0; i < devices_nactive; i++)
		if (devices_active[i] == d)
			return 1;
	return 0;
}

static void devices_stop_all(void)
{
	while (devices_nactive > 0)
		devices_active[--devices_nactive]->finalize();
	devices_npoll = 0;
}

/* The per-peer tables of the devices whose inline paths are asked for
 * every peer (MICHI_DEV_FRAMES), started or not: n 0 frees them. */
static michi_status_t devices_peers(int n)
{
	michi_status_t st;
	int i;

	for (i = 0; michi_devices[i]; i++) {
		if (!(michi_devices[i]->caps & MICHI_DEV_FRAMES) || !michi_devices[i]->peers)
			continue;
		st = michi_devices[i]->peers(n);
		if (st < 0)
			return st;
	}
	return MICHI_OK;
}

michi_status_t michi_devices_init(struct michi_job *job)
{
	michi_status_t st;
	int i;

	michi_tunables_load();
	if (!job->up)
		return michi_err(MICHI_ERR_INTERN, "devices started without MTMI's upcalls "
				 "(job->up)");
	st = devices_parse_force();
	if (st < 0)
		return st;
	michi_dev_for_peer = calloc((size_t)job->size, sizeof(*michi_dev_for_peer));
	if (!michi_dev_for_peer)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the device table of %d ranks",
				 job->size);
	devices_npeers = job->size;
	st = devices_peers(job->size);
	if (st < 0)
		goto err_free_table;
	for (i = 0; michi_devices[i]; i++) {
		struct michi_device *d = michi_devices[i];

		if (d->caps & MICHI_DEV_OWN_RANK)
			st = devices_start(d, job);
		else if (devices_forced)
			/* a matching device serves every rank, a singleton too */
			st = d == devices_forced && (d->tagged || job->size > 1) ?
			     devices_start(d, job) : MICHI_OK;
		else if (job->size > 1 && d->priority > 0 && (!d->wanted || d->wanted(job)))
			st = devices_start(d, job);
		if (st < 0)
			goto err_stop;
	}
	return MICHI_OK;

err_stop:
	devices_stop_all();
err_free_table:
	free(michi_dev_for_peer);
	michi_dev_for_peer = NULL;
	devices_peers(0);
	return st;
}

static int devices_host_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef HAVE_HWLOC
	hwloc_topology_t topo;

	/* the processors this machine lets the job use (cgroups included),
	 * not just the ones this process happens to be bound to */
	if (hwloc_topology_init(&topo) == 0) {
		if (hwloc_topology_load(topo) == 0) {
			int k = hwloc_bitmap_weight(hwloc_topology_get_allowed_cpuset(topo));

			if (k > 0)
				n = k;
		}
		hwloc_topology_destroy(topo);
	}
#endif
	/* Michi's proxy says how many of them its affinity leaves the job
	 * (taskset -c 0 mpirun ...: two ranks there share one processor), as
	 * "count,proxy pid"; a process the proxy did not start itself (one
	 * that inherited the variable) keeps hwloc's count */
	{
		const char *e = getenv("MICHI_HOST_CPUS");
		char *end;
		long k = e ? strtol(e, &end, 10) : 0;

		if (e && *end == ',' && strtol(end + 1, &end, 10) == (long)getppid() &&
		    *end == '\0' && k > 0 && k < n)
			n = k;
	}
	return n > 0 ? (int)n : 1;
}

static void devices_wait_policy(const struct michi_job *job)
{
	struct michi_wait_policy *w = &michi_wait;

	w->cores = devices_host_cpus();
	/* the ranks on this kernel, not only on this host: hosts that are
	 * network namespaces of one machine (test/net/grid) share its
	 * processors */
	w->ranks = job->kernel_size > job->local_size ? job->kernel_size : job->local_size;
	w->oversubscribed = w->ranks > w->cores;
	w->poll_yield_ticks = w->oversubscribed && poll_yield_us > 0 ?
		(uint64_t)(poll_yield_us * michi_ticks_per_us()) : 0;
	w->spin = wait_spin >= 0 ? (unsigned)wait_spin : w->oversubscribed ? 2 : 2000;
	/* No sleep unless wait_yield asks for one, after that many yield
	 * rounds. The automatic policy used to sleep after 200 rounds where
	 * ranks outnumber processors. HPCC 1.5.0's latency test follows
	 * SingleFFT, through which three ranks wait for one: sleeping, they
	 * gathered on the other processor and were still stacked there,
	 * three against one, for the few milliseconds of the ping-pongs. On
	 * 4 ranks on the 2 cores (bench/results/2026-11-27-hpcc-*) the
	 * ping-pong latency went from 2.38 us, rounds up to 3.17, to 1.65 and
	 * 1.83 us in two runs, rounds at most 2.36 (Open MPI 2.17 and 1.70);
	 * MPIFFT and the rings moved within their scatter between rounds;
	 * MPIRandomAccess fell from 0.0273 to 0.0265 and 0.0246 GUP/s, still
	 * 1.3x MPICH's. Sleeping sooner (10 rounds) had helped that latency
	 * by freeing the pair's processors, but cost PTRANS, MPIFFT and the
	 * rings the futex wakes. */
	w->yield = wait_yield >= 0 ? (unsigned)wait_yield : 0;  /* else for ever, below */
	w->block_ms = wait_block_ms > 0 ? wait_block_ms : 1;
	/* senders check for sleepers only where a receiver may sleep */
	w->may_block = wait_yield >= 0;
	if (strcmp(wait_policy, "spin") == 0) {
		w->spin = ~0ull;
		w->yield = 0;
		w->may_block = 0;
	} else if (strcmp(wait_policy, "yield") == 0) {
		w->spin = 0;
		w->yield = ~0ull;
		w->may_block = 0;
	} else if (strcmp(wait_policy, "block") == 0) {
		w->spin = 0;
		w->yield = 0;
		w->may_block = 1;
	} else if (strcmp(wait_policy, "auto") != 0) {
		michi_warn("wait_policy '%s' unknown (auto|spin|yield|block), using auto",
			   wait_policy);
	}
	if (!w->may_block && w->spin != ~0ull)
		w->yield = ~0ull - w->spin;   /* yield for ever, never sleep */
	if (w->may_block)
		michi_debug("wait policy %s: %d ranks here on %d processors, %llu polls, %llu "
			    "yields, then sleeps of %d ms", wait_policy, w->ranks, w->cores,
			    w->spin, w->yield, w->block_ms);
	else
		michi_debug("wait policy %s: %d ranks here on %d processors, %llu polls, then "
			    "yields, never sleeps", wait_policy, w->ranks, w->cores,
			    w->spin);
}

/*
 * The automatic policy, once the devices serving peers are known: where
 * ranks outnumber processors and every such device has a file descriptor
 * that a peer's message wakes (tcp; not shm, whose senders would need to
 * wake a sleeper themselves), a waiting rank sleeps there after a few
 * yields. Yielding for ever kept every waiting rank runnable: on the grid
 * (test/net/grid: 16 hosts that are network namespaces of a 2-processor
 * machine) the ranks that had work, and the link emulator, shared the
 * processors with 15 pollers. The kernel's wake through the socket costs
 * a sender nothing it did not pay already.
 */
static void devices_wait_fds(void)
{
	struct michi_wait_policy *w = &michi_wait;
	int i;

	if (wait_yield >= 0 || strcmp(wait_policy, "auto") != 0 || !w->oversubscribed ||
	    !devices_npoll)
		return;
	for (i = 0; i < devices_npoll; i++)
		if (devices_poll[i]->wait_fd() < 0)
			return;
	w->yield = wait_fd_yield >= 0 ? (unsigned)wait_fd_yield : 0;
	w->may_block = 1;
	michi_debug("wait policy auto: every peer wakes a sleeper through a file descriptor: "
		    "%llu polls, %llu yields, then sleeps of %d ms", w->spin, w->yield,
		    w->block_ms);
}

/* The started device of highest priority that reaches rank, or NULL. */
static struct michi_device *devices_best(int rank)
{
	struct michi_device *best = NULL;
	int i;

	for (i = 0; i < devices_nactive; i++) {
		struct michi_device *d = devices_active[i];

		if (d->priority > 0 && (!best || d->priority > best->priority) &&
		    (!d->reaches || d->reaches(rank)))
			best = d;
	}
	return best;
}

static michi_status_t devices_choose(struct michi_job *job)
{
	int i, j;

	for (i = 0; i < job->size; i++) {
		struct michi_device *d;

		/* a matching device matches every message, ours included */
		if (devices_forced && (i != job->rank || devices_forced->tagged))
			d = devices_forced;
		else
			d = devices_best(i);
		if (!d || (d->reaches && !d->reaches(i)))
			return michi_err(MICHI_ERR_PEER, "no device reaches rank %d (host %d, "
					 "ours %d)%s", i, job->host_of[i], job->host_of[job->rank],
					 devices_forced ? ": MICHI_DEVICE forces one that cannot"
							: ": the launcher put it on this host but its "
							  "host name differs");
		michi_dev_for_peer[i] = d;
		if (d->caps & MICHI_DEV_OWN_RANK)
			continue;
		for (j = 0; j < devices_npoll; j++)
			if (devices_poll[j] == d)
				break;
		if (j == devices_npoll)
			devices_poll[devices_npoll++] = d;
	}
	return MICHI_OK;
}

michi_status_t michi_devlib_open(const char *dev, const char *const *sonames,
				 const struct michi_devlib_sym *syms, void **handle)
{
	const char *const *n;
	void *h = NULL;

	for (n = sonames; *n && !h; n++)
		h = dlopen(*n, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return michi_err(MICHI_ERR_UNSUPPORTED, "%s: cannot load %s: %s", dev, sonames[0],
				 dlerror());
	for (; syms->name; syms++) {
		*syms->addr = dlsym(h, syms->name);
		if (!*syms->addr) {
			michi_status_t st = michi_err(MICHI_ERR_UNSUPPORTED, "%s: %s lacks %s (a "
						      "library older than the one Michi was "
						      "built with?)", dev, sonames[0], syms->name);

			dlclose(h);
			return st;
		}
	}
	*handle = h;
	return MICHI_OK;
}

const struct michi_tag_ops *michi_devices_tagged(void)
{
	const struct michi_tag_ops *ops = devices_forced && devices_npoll ?
					  devices_forced->tagged : NULL;

	michi_tag_inline = ops ? devices_forced->tag_inline : MICHI_TAG_INLINE_NONE;
	return ops;
}

michi_status_t michi_devices_post_fence(struct michi_job *job)
{
	michi_status_t st;
	int i;

	devices_wait_policy(job);
	for (i = 0; i < devices_nactive; i++) {
		if (!devices_active[i]->post_fence)
			continue;
		st = devices_active[i]->post_fence(job);
		if (st < 0)
			return st;
	}
	st = devices_choose(job);
	if (st < 0)
		return st;
	devices_wait_fds();
	return st;
}

michi_status_t michi_devices_finalize(void)
{
	michi_status_t st = MICHI_OK;

	devices_npoll = 0;
	while (devices_nactive > 0) {
		michi_status_t s = devices_active[--devices_nactive]->finalize();

		if (s < 0 && st == MICHI_OK)
			st = s;
	}
	free(michi_dev_for_peer);
	michi_dev_for_peer = NULL;
	devices_npeers = 0;
	/* the per-peer tables of the devices that did not start (a started
	 * one's finalize frees its own) */
	devices_peers(0);
	return st;
}

int michi_devices_progress(void)
{
	int i, n = 0;

	if (likely(devices_npoll == 1))	/* one host's ranks, or all on tcp */
		return devices_poll[0]->progress();
	for (i = 0; i < devices_npoll; i++) {
		int k = devices_poll[i]->progress();

		if (unlikely(k < 0))
			return k;
		n += k;
	}
	return n;
}

size_t michi_devices_pending(void)
{
	size_t n = 0;
	int i;

	for (i = 0; i < devices_nactive; i++)
		n += devices_active[i]->pending();
	return n;
}

/*
 * A device with a wait fd wakes poll(); one with its own block (shm's
 * futex) sleeps there when it is the only one. With both, poll sleeps
 * at most 1 ms at a time, since the other device's wake cannot reach it,
 * and not at all where the blocker says sleeping could oversleep its
 * peers' messages (then it yields).
 */
void michi_devices_block(int timeout_ms)
{
	struct michi_device *blocker = NULL;
	struct pollfd fds[DEVICES_MAX];
	int i, n = 0;

	for (i = 0; i < devices_npoll; i++) {
		int fd = devices_poll[i]->wait_fd();

		if (fd >= 0) {
			fds[n].fd = fd;
			fds[n].events = POLLIN;
			n++;
		} else if (devices_poll[i]->block) {
			blocker = devices_poll[i];
		}
	}
	if (blocker && n == 0) {
		blocker->block(timeout_ms);
		return;
	}
	/* the fds bound the sleep to 1 ms (a wake of the blocker's cannot
	 * reach poll); where the blocker would not even be woken (shm with a
	 * peer that does not wake sleepers), not at all, for latency */
	if (blocker && blocker->block(0) < 0)
		timeout_ms = 0;
	else if (blocker && timeout_ms > 1)
		timeout_ms = 1;
	/* with no fd (self only), nothing can arrive: sleeping is all we can do */
	poll(n ? fds : NULL, (nfds_t)n, timeout_ms);
	if (!timeout_ms)
		sched_yield();
}

/* ---- peers of other jobs (mpi/comm/dynproc.c) ------------------------------ */

/* The first device of the table that serves other jobs' processes. */
static struct michi_device *devices_dyn_dev(void)
{
	int i;

	for (i = 0; michi_devices[i]; i++)
		if (michi_devices[i]->dyn)
			return michi_devices[i];
	return NULL;
}

static michi_status_t devices_dyn_start(struct michi_job *job, struct michi_device **dp)
{
	struct michi_device *d = devices_dyn_dev();
	michi_status_t st;

	if (devices_forced && devices_forced->tagged)
		return michi_err(MICHI_ERR_UNSUPPORTED, "MICHI_DEVICE=%s: processes of other "
				 "jobs (spawn, connect/accept, join) need the %s device; run "
				 "without forcing a matching device", devices_forced->name,
				 d ? d->name : "tcp");
	if (!d)
		return michi_err(MICHI_ERR_UNSUPPORTED, "processes of other jobs (spawn, "
				 "connect/accept, join): this Michi has no device that serves them");
	*dp = d;
	if (devices_started(d))
		return MICHI_OK;
	if (devices_nactive == DEVICES_MAX)
		return michi_err(MICHI_ERR_INTERN, "more than %d devices started", DEVICES_MAX);
	st = d->dyn->start(job);
	if (st < 0)
		return st;
	devices_active[devices_nactive++] = d;
	return MICHI_OK;
}

michi_status_t michi_devices_dyn_card(struct michi_job *job, char *card, size_t len)
{
	struct michi_device *d;
	michi_status_t st = devices_dyn_start(job, &d);

	if (st < 0)
		return st;
	return d->dyn->card(card, len);
}

int michi_devices_dyn_find(const uint8_t key[16], int rank)
{
	struct michi_device *d = devices_dyn_dev();

	if (!d || !devices_started(d))
		return -1;
	return d->dyn->find(key, rank);
}

michi_status_t michi_devices_dyn_add(struct michi_job *job, int index, const uint8_t key[16],
				     int rank, const char *host, const char *card)
{
	struct michi_device **nd, *d;
	michi_status_t st;
	int i;

	st = devices_dyn_start(job, &d);
	if (st < 0)
		return st;
	if (index >= devices_npeers) {
		/* the inline paths' per-peer tables grow with it (a new
		 * entry refuses in-place frames) */
		nd = realloc(michi_dev_for_peer, (size_t)(index + 1) * sizeof(*nd));
		if (!nd)
			return michi_err(MICHI_ERR_NOMEM, "no memory for peer %d", index);
		michi_dev_for_peer = nd;
		for (i = devices_npeers; i <= index; i++)
			michi_dev_for_peer[i] = NULL;
		devices_npeers = index + 1;
		st = devices_peers(index + 1);
		if (st < 0)
			return st;
	}
	st = d->dyn->add(index, key, rank, host, card);
	if (st < 0)
		return st;
	michi_dev_for_peer[index] = d;
	for (i = 0; i < devices_npoll; i++)
		if (devices_poll[i] == d)
			return MICHI_OK;
	devices_poll[devices_npoll++] = d;
	return MICHI_OK;
}
