/* SPDX-License-Identifier: MIT */
/*
 * devices/shm/shm.c: the shared-memory byte device's entry points: setup
 * after the fence, progress, sleeping and waking, the single-copy pull,
 * peer liveness and finalize.
 *
 * Waiting: a rank that has nothing to do sleeps only where the wait
 * policy of device.c lets it (MICHI_WAIT_YIELD, MICHI_WAIT_POLICY=block;
 * by default no rank sleeps). Then it sets its `sleeping` flag, checks
 * its rings once more and sleeps on its futex word in the segment; a rank
 * that publishes a record to it, or frees room in a ring it has frames
 * queued for, sees the flag and wakes it (shm.h, shm_notify). Senders
 * check the flag only when the policy lets ranks sleep, so by default no
 * sender pays for it; a rank sleeps only once every local peer has said
 * in the segment that it checks (shm_sleep_ok).
 *
 * Large messages: MTMI's rendezvous offers the sender's buffer address
 * and the receiver pulls the bytes with process_vm_readv (cross-memory
 * attach, one copy). Whether the kernel lets us (ptrace access rules,
 * Yama, seccomp in containers) is probed once, on a word each rank
 * publishes for the purpose; when it does not, or MICHI_SHM_CMA=off, the
 * pull reports MICHI_ERR_UNSUPPORTED and MTMI falls back to CTS and DATA
 * streamed through the ring (two copies, pipelined by chunks).
 *
 * Liveness: a local rank that dies leaves no socket to close, so an idle
 * rank looks at its peers' pidfds now and then (at most once a second)
 * and before every sleep, and reports a dead peer to MTMI. It reads the
 * clock for that every 4096 idle polls, or every 64 where ranks
 * outnumber processors: there each idle poll may yield the core for a
 * scheduler slice, and 4096 of those could take seconds.
 */
#include "config.h"
#include "shm.h"
#include "shm_fast.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

struct shm_state shm;
uint64_t shm_sleeps;

static size_t shm_eager_limit = 16384;
MICHI_TUNABLE(shm_eager_limit, "shm_eager_limit", MICHI_T_SIZE, "16k", MICHI_LEVEL_TUNER,
	      "largest message sent eagerly through shared memory (bytes); larger ones "
	      "take the rendezvous (CMA pull or pipelined copy)");
static const char *shm_cma_mode = "auto";
MICHI_TUNABLE(shm_cma_mode, "shm_cma", MICHI_T_STRING, "auto", MICHI_LEVEL_TUNER,
	      "single-copy pull of large messages with process_vm_readv: auto (when the "
	      "kernel permits), on (warn when it does not), off (always the pipelined two-copy path)");
static int shm_poll_budget = 32;
MICHI_TUNABLE(shm_poll_budget, "shm_poll_budget", MICHI_T_INT, "32", MICHI_LEVEL_DEVELOPER,
	      "records taken from one ring per progress call before the next ring's turn");

static int futex_call(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
	return (int)syscall(SYS_futex, (uint32_t *)w, op, val, ts, NULL, 0);
}

void shm_wake_slow(struct shm_proc *p)
{
	atomic_fetch_add_explicit(&p->futex, 1, memory_order_seq_cst);
	futex_call(&p->futex, FUTEX_WAKE, 1, NULL);
}

/*
 * The send table is indexed by every peer on the inline paths (device.h:
 * the in-place frames are asked for every peer), so it exists whether or
 * not shm started, for every peer, those of other jobs too: a zeroed
 * entry refuses (fast_lim 0). n 0 frees it (shm_finalize does too).
 */
michi_status_t shm_peers(int n)
{
	struct shm_tx *t;

	if (n == 0) {
		free(shm.tx);
		shm.tx = NULL;
		shm.ntx = 0;
		return MICHI_OK;
	}
	if (n <= shm.ntx)
		return MICHI_OK;
	t = realloc(shm.tx, (size_t)n * sizeof(*t));
	if (!t)
		return michi_err(MICHI_ERR_NOMEM, "shm: no memory for the send table of %d peers",
				 n);
	memset(t + shm.ntx, 0, (size_t)(n - shm.ntx) * sizeof(*t));
	shm.tx = t;
	shm.ntx = n;
	return MICHI_OK;
}

int shm_frame_wake(int peer)
{
	shm_wake_slow(shm.tx[peer].peer);
	return 0;
}

static michi_status_t shm_init(struct michi_job *job)
{
	/* the segment needs the host map, known after the fence */
	shm.up = *job->up;
	michi_device_shm.eager_limit = shm_eager_limit;
	shm.idle_mask = 4095;   /* post_fence knows better */
	if (strcmp(shm_cma_mode, "off") == 0) {
		shm.cma = -1;
		michi_device_shm.pull = NULL;
		michi_device_shm.push = NULL;
		michi_debug("shm: CMA off: large messages take the pipelined two-copy path");
	} else if (strcmp(shm_cma_mode, "auto") != 0 && strcmp(shm_cma_mode, "on") != 0) {
		return michi_err(MICHI_ERR_INVAL, "MICHI_SHM_CMA=%s: use auto, on or off",
				 shm_cma_mode);
	}
	return MICHI_OK;
}

static michi_status_t shm_post_fence(struct michi_job *job)
{
	michi_status_t st = shm_seg_attach(job);
	int i;

	if (st)
		return st;
	shm.idle_mask = michi_wait.oversubscribed ? 63 : 4095;
	shm.peer_pidfd = malloc((size_t)shm.nlocal * sizeof(int));
	if (!shm.peer_pidfd)
		return michi_err(MICHI_ERR_NOMEM, "shm: no memory for %d pidfds", shm.nlocal);
	for (i = 0; i < shm.nlocal; i++)
		shm.peer_pidfd[i] = -1;
	shm.next_liveness = michi_wtime() + 1.0;
	return MICHI_OK;
}

/* The peer's pid, once it has attached (0 before). */
static pid_t peer_pid(int local)
{
	return atomic_load_explicit((_Atomic int32_t *)&shm.procs[local].pid,
				    memory_order_acquire);
}

/* A rank found dead: what it published before it died is still in its
 * ring to us (its exit made those stores visible), so take that first:
 * eager messages and ones streamed whole through the ring complete; a
 * rendezvous offer among them fails at its pull, the sender's memory
 * being gone. Then fail what is left with it. Only a race reaches
 * records here (they came in between the idle poll's look at the rings
 * and the liveness check), so no test forces it. */
static void peer_died(int local)
{
	int rank = shm.procs[local].world_rank, j;

	for (j = 0; j < shm.nrx; j++)
		if (shm.rx[j].peer == rank)
			while (shm_rx_ready(&shm.rx[j]) &&
			       shm_rx_poll(&shm.rx[j], shm_poll_budget) > 0)
				;

	michi_err(MICHI_ERR_PEER, "rank %d (pid %d) on this host has exited or was killed",
		  rank, (int)shm.procs[local].pid);
	if (shm.peer_pidfd[local] >= 0)
		close(shm.peer_pidfd[local]);
	shm.peer_pidfd[local] = -2;
	shm_tx_fail(&shm.tx[rank], MICHI_ERR_PEER);
	shm.up.peer_failed(rank, MICHI_ERR_PEER);
}

/* Whether local rank i and we have exchanged anything yet (rings are
 * mapped for every local pair, rx in local order without us). */
static int shm_talked(int i)
{
	const struct shm_rx *r = &shm.rx[i < shm.my_local ? i : i - 1];

	return r->head != 0 || shm.tx[r->peer].tail != 0;
}

/*
 * Returns peers found dead. A pidfd (immune to pid reuse) is kept only for
 * the peers we talked to, so that a rank's fds grow with its partners and
 * not with the ranks of its host (256 on one host would hold 255 each);
 * the others, and all without pidfds (kernel < 5.3), get kill(pid, 0).
 */
static int shm_liveness(void)
{
	int i, dead = 0;

	for (i = 0; i < shm.nlocal; i++) {
		pid_t pid;

		if (i == shm.my_local || shm.peer_pidfd[i] == -2)
			continue;
		pid = peer_pid(i);
		if (pid <= 0)
			continue;
		if (shm.peer_pidfd[i] == -1) {
#ifdef SYS_pidfd_open
			if (shm_talked(i))
				shm.peer_pidfd[i] = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
			if (shm.peer_pidfd[i] < 0) {
				shm.peer_pidfd[i] = -1;
				if (kill(pid, 0) != 0 && errno == ESRCH) {
					peer_died(i);
					dead++;
				}
				continue;
			}
		}
		{
			struct pollfd pf = { .fd = shm.peer_pidfd[i], .events = POLLIN };

			if (poll(&pf, 1, 0) == 1) {
				peer_died(i);
				dead++;
			}
		}
	}
	return dead;
}

/* Every idle_mask + 1 idle polls, and at most once a second: are the
 * local peers alive? */
static __attribute__((noinline)) int shm_idle_check(void)
{
	if (michi_wtime() < shm.next_liveness)
		return 0;
	shm.next_liveness = michi_wtime() + 1.0;
	return shm_liveness();
}

static __attribute__((noinline)) int shm_progress_rings(void)
{
	int i, n = 0;

	if (unlikely(shm.ntxbusy)) {
		for (i = 0; i < shm.nrx; i++) {
			struct shm_tx *t = &shm.tx[shm.rx[i].peer];

			if (t->qhead)
				n += shm_tx_push(t, shm.rx[i].peer);
		}
	}
	for (i = 0; i < shm.nrx; i++)
		if (shm_rx_ready(&shm.rx[i]))
			n += shm_rx_poll(&shm.rx[i], shm_poll_budget);
	if (likely(n) || likely(++shm.idle_ticks & shm.idle_mask))
		return n;
	return shm_idle_check();
}

/*
 * The idle poll (MPI_Test and MPI_Iprobe loops call it back to back) only
 * looks at the stamp at each ring's head, with no frame to push; the
 * work, when there is some, is out of line.
 */
static int shm_progress(void)
{
	const struct shm_rx *rx = shm.rx;
	int i, nrx = shm.nrx;

	if (unlikely(shm.ntxbusy))
		return shm_progress_rings();
	for (i = 0; i < nrx; i++)
		if (shm_rx_ready(&rx[i]))
			return shm_progress_rings();
	if (likely(++shm.idle_ticks & shm.idle_mask))
		return 0;
	return shm_idle_check();
}

static int shm_has_work(void)
{
	int i;

	for (i = 0; i < shm.nrx; i++) {
		if (shm_rx_ready(&shm.rx[i]))
			return 1;
		if (shm_tx_ready(&shm.tx[shm.rx[i].peer]))
			return 1;
	}
	return 0;
}

/*
 * May this rank sleep? Only when every local peer wakes sleepers after it
 * publishes: a peer whose wait settings differ (an MPMD program with its
 * own MICHI_WAIT_*, or a control variable set through MPI_T before
 * MPI_Init on some ranks only) would leave it asleep for the whole
 * timeout on each of its messages. Each rank says so in its line of the
 * segment when it attaches; a peer that has not attached yet leaves the
 * answer open, a peer that does not wake closes it for good, with one
 * warning.
 */
static int shm_sleep_ok(void)
{
	int i;

	if (likely(shm.sleep_ok))
		return shm.sleep_ok > 0;
	for (i = 0; i < shm.nlocal; i++) {
		if (i == shm.my_local)
			continue;
		if (!peer_pid(i))
			return 0;
		if (!shm.procs[i].wakes) {
			shm.sleep_ok = -1;
			michi_warn("shm: this rank's wait policy lets it sleep, but that of local "
				   "rank %d (world rank %d) does not wake sleeping peers: their "
				   "MICHI_WAIT_POLICY/MICHI_WAIT_YIELD settings differ; this rank "
				   "yields instead of sleeping up to wait_block_ms per message. "
				   "Give every rank the same MICHI_WAIT_* (mpirun -genv)", i,
				   shm.procs[i].world_rank);
			return 0;
		}
	}
	shm.sleep_ok = 1;
	return 1;
}

/*
 * Sleep until a peer wakes us or timeout_ms passes. The flag goes up
 * with a full barrier before the last look at the rings, pairing with
 * shm_notify's fence on the sender's side. Where a peer would not wake
 * us (shm_sleep_ok), yield instead and return -1; timeout_ms 0 only
 * asks that question. Counts the sleeps (shm_sleeps).
 */
static int shm_block(int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
	uint32_t v;

	if (!shm.me)
		return 0;
	if (!shm_sleep_ok()) {
		if (timeout_ms)
			sched_yield();
		return -1;
	}
	if (!timeout_ms)
		return 0;
	atomic_exchange_explicit(&shm.me->sleeping, 1, memory_order_seq_cst);
	v = atomic_load_explicit(&shm.me->futex, memory_order_seq_cst);
	/* a sleep: woken, or timed out; not a word that had moved on */
	if (!shm_has_work() && !shm_liveness() &&
	    (futex_call(&shm.me->futex, FUTEX_WAIT, v, &ts) == 0 || errno == ETIMEDOUT))
		shm_sleeps++;
	atomic_store_explicit(&shm.me->sleeping, 0, memory_order_relaxed);
	return 0;
}

static int shm_wait_fd(void)
{
	return -1;
}

static size_t shm_pending(void)
{
	return shm.pending;
}

/* Is the kernel letting us read other ranks' memory? One look at a word
 * a peer published, compared with what it wrote beside it. */
static int cma_probe(int local)
{
	struct shm_proc *p = &shm.procs[local];
	uint64_t v = 0;
	struct iovec l = { &v, sizeof(v) };
	struct iovec r = { (void *)(uintptr_t)p->probe_addr, sizeof(v) };
	ssize_t n = process_vm_readv(peer_pid(local), &l, 1, &r, 1, 0);

	if (n == (ssize_t)sizeof(v) && v == p->probe_val) {
		michi_debug("shm: single-copy CMA pull in use (process_vm_readv permitted)");
		return 1;
	}
	if (strcmp(shm_cma_mode, "on") == 0)
		michi_warn("shm: MICHI_SHM_CMA=on but process_vm_readv is not permitted "
			   "here (%s); large messages take the two-copy path",
			   n < 0 ? strerror(errno) : "probe word mismatch");
	else
		michi_debug("shm: CMA not permitted (%s): two-copy rendezvous",
			    n < 0 ? strerror(errno) : "probe word mismatch");
	return -1;
}

/*
 * Copy len bytes between our buffer and address raddr in peer's memory,
 * with process_vm_readv (pull) or process_vm_writev (push), which may
 * stop short. EPERM before any byte moved means the kernel forbids it:
 * MICHI_ERR_UNSUPPORTED, and pulls are not tried again.
 */
static michi_status_t shm_cma_copy(int peer, void *buf, uint64_t raddr, size_t len, int push)
{
	pid_t pid = peer_pid(shm.local_of[peer]);
	const char *what = push ? "push" : "pull";
	size_t done = 0;

	while (done < len) {
		struct iovec l = { (char *)buf + done, len - done };
		struct iovec r = { (void *)(uintptr_t)(raddr + done), len - done };
		ssize_t n = push ? process_vm_writev(pid, &l, 1, &r, 1, 0)
				 : process_vm_readv(pid, &l, 1, &r, 1, 0);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ESRCH)
			return michi_err(MICHI_ERR_PEER, "shm: rank %d exited during a %s", peer,
					 what);
		if (n < 0 && (errno == EPERM || errno == ENOSYS) && done == 0) {
			if (!push)
				shm.cma = -1;
			return MICHI_ERR_UNSUPPORTED;
		}
		return michi_err(MICHI_ERR_IO, "shm: %s of %zu bytes at 0x%llx of rank %d: %s",
				 what, len, (unsigned long long)(raddr + done), peer,
				 n < 0 ? strerror(errno) : "no progress");
	}
	return MICHI_OK;
}

static michi_status_t shm_pull(int peer, void *dst, uint64_t raddr, size_t len)
{
	if (unlikely(shm.cma == 0))
		shm.cma = cma_probe(shm.local_of[peer]);
	if (shm.cma < 0)
		return MICHI_ERR_UNSUPPORTED;
	if (len == 0)
		return MICHI_OK;   /* the question whether it is possible */
	return shm_cma_copy(peer, dst, raddr, len, 0);
}

static michi_status_t shm_push(int peer, uint64_t raddr, const void *src, size_t len)
{
	if (shm.cma < 0)
		return MICHI_ERR_UNSUPPORTED;
	return shm_cma_copy(peer, (void *)src, raddr, len, 1);
}

static michi_status_t shm_finalize(void)
{
	int i;

	if (shm.peer_pidfd) {
		for (i = 0; i < shm.nlocal; i++)
			if (shm.peer_pidfd[i] >= 0)
				close(shm.peer_pidfd[i]);
		free(shm.peer_pidfd);
	}
	if (shm.tx)
		for (i = 0; i < shm.nrx; i++)
			shm_tx_fail(&shm.tx[shm.rx[i].peer], MICHI_ERR_PEER);
	shm_seg_detach();
	free(shm.tx);
	free(shm.rx);
	free(shm.local_of);
	memset(&shm, 0, sizeof(shm));
	return MICHI_OK;
}

/* After post_fence: rank shares our host and has a ring from us. */
static int shm_reaches(int rank)
{
	return shm.tx && shm.tx[rank].cells != NULL;
}

/* The ops-table entry for callers outside the inline path (MTMI's
 * control frames): the same fast path, out of line. */
static michi_status_t shm_send(int peer, const struct iovec *iov, int iovcnt, void *cookie)
{
	return shm_send_fast(peer, iov, iovcnt, cookie);
}

/* ranks on this host besides us: -1, the launcher did not say */
static int shm_wanted(const struct michi_job *job)
{
	return job->local_size != 1;
}

struct michi_device michi_device_shm = {
	.name = "shm",
	.priority = 20,
	.wanted = shm_wanted,
	.caps = MICHI_DEV_FRAMES,
	.peers = shm_peers,
	.init = shm_init,
	.post_fence = shm_post_fence,
	.finalize = shm_finalize,
	.send = shm_send,
	.progress = shm_progress,
	.wait_fd = shm_wait_fd,
	.pending = shm_pending,
	.block = shm_block,
	.pull = shm_pull,
	.push = shm_push,
	.reaches = shm_reaches,
	.eager_limit = 16384,
};
