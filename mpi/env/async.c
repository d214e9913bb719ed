/* SPDX-License-Identifier: MIT */
/*
 * mpi/env/async.c: the progress thread of nonblocking collectives.
 *
 * Progress happens inside MPI calls (docs/design.md §2), so a nonblocking
 * collective moves only while its rank is in MPI: one started before a
 * stretch of computation, with an MPI_Test now and then, runs mostly in
 * the MPI_Wait at the end, and the two take their sum. Where the host
 * has cores to spare, one thread per process runs such collectives in
 * the background instead. The first collective that wants it starts it;
 * it polls MTMI under the lock of util/mtlock.h until no nonblocking
 * schedule is left (coll/schedule.h counts them), stays up a while for
 * the next one, and then sleeps until a collective wakes it.
 *
 * While the thread runs, michi_mt is set, so every MPI call of the
 * process takes the lock as under MPI_THREAD_MULTIPLE; the rest of the
 * time the hot paths are exactly the single-threaded ones. The switch:
 * michi_async_kick, the last thing the MPI call that started the
 * collective does (its request is out by then), sets michi_mt with the
 * lock held and wakes the thread. When the thread finds no schedule
 * left it stops polling and asks for the switch back; the next program
 * thread to give the lock up entirely clears michi_mt just before it
 * does (util/mtlock.h's unlock hook), so everything the progress thread
 * did comes before, through the lock, whatever that thread reads next
 * without it. util/mtlock.h's stubs unlock what they locked, whatever
 * michi_mt says meanwhile.
 *
 * Sharing the work: a program thread that waits (MPI_Wait) polls by
 * itself, as it would alone, and the thread stands aside meanwhile
 * (mtmi_wait_tick); MPI_Test on a collective's request the thread has
 * not completed answers without the lock (michi_async_test), so that the
 * program's short visits do not queue behind the thread's copies and
 * reductions; a thread waiting for the lock gets it before the next poll.
 *
 * MPICH has a progress thread behind MPICH_ASYNC_PROGRESS=1, off by
 * default. Here the default, "auto", starts it only for collectives that
 * move async_progress_bytes or more and run no code of the program
 * (user-defined ops, a duplicate's attribute copy callbacks), and only
 * where the host has at least two processors per rank and this process
 * may use more than one of them: an oversubscribed rank's thread would
 * take the core its peers need. Once running it progresses every
 * pending schedule, so program code may still run on it when such a
 * collective is in flight beside one that started it, and with "on".
 *
 * Limits: an error met on the thread reaches the program as the
 * request's status with the generic text of its class (the detailed
 * message is the thread's own); a nonblocking collective started from a
 * callback inside an MPI call that holds no lock (an attribute delete
 * callback in MPI_Comm_free, at MPI_THREAD_SINGLE) switches the lock on
 * while that outer call goes on without it.
 */
#define _GNU_SOURCE
#include "mpiimpl.h"
#include "pt2pt.h"
#include "schedule.h"
#include "mtlock.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>

static const char *async_progress = "auto";
MICHI_TUNABLE(async_progress, "async_progress", MICHI_T_STRING, "auto", MICHI_LEVEL_USER,
	      "a thread that runs nonblocking collectives while the program computes: "
	      "auto (where the host has two processors per rank and the collective moves "
	      "async_progress_bytes or more), on or off");
static size_t async_progress_bytes = 65536;
MICHI_TUNABLE(async_progress_bytes, "async_progress_bytes", MICHI_T_SIZE, "64k",
	      MICHI_LEVEL_TUNER,
	      "async_progress=auto: the least a nonblocking collective sends and receives "
	      "(bytes, on this rank) for the progress thread to run it");

enum { ASYNC_UNDECIDED = -1, ASYNC_OFF, ASYNC_AUTO, ASYNC_ON };
static int async_mode = ASYNC_UNDECIDED;

/* Idle polls in a row after which the thread yields its core between
 * polls, and after which it sleeps between them: a collective that waits
 * on a slow peer should not keep a whole core busy. */
#define ASYNC_SPIN	2000
#define ASYNC_DOZE	200000
/* How long the thread stays up after the last collective ended, for the
 * next one (us). */
#define ASYNC_LINGER_US	1000
/* Most pauses between two idle polls. */
#define ASYNC_BACKOFF	64
/* Most pauses the thread spends letting a waiting thread take the lock. */
#define ASYNC_HANDOFF	20000

/* All below change with the lock held (or, before the thread exists,
 * from the one thread that runs MPI). */
static pthread_t async_thread;
static pthread_cond_t async_wake = PTHREAD_COND_INITIALIZER;
static int async_started, async_stop;
static int async_on;   /* michi_mt_async is set: the thread may poll */
static int async_off_wanted;   /* none left: the next full unlock clears it */
static __thread int async_self;   /* this is the progress thread */
int michi_async_running;   /* the thread polls, for lock-free readers */
static uint64_t async_waiter_ticks;   /* how fresh a waiter's stamp is */
static uint64_t async_linger_ticks;   /* how long the thread stays up idle */
static int async_sleeping;            /* the thread waits on async_wake */

static void async_decide(void)
{
	cpu_set_t set;
	int mine = 1;

	async_waiter_ticks = (uint64_t)(5 * michi_ticks_per_us());
	async_linger_ticks = (uint64_t)(ASYNC_LINGER_US * michi_ticks_per_us());
	if (strcmp(async_progress, "on") == 0) {
		async_mode = ASYNC_ON;
		return;
	}
	async_mode = ASYNC_OFF;
	if (strcmp(async_progress, "off") == 0)
		return;
	if (strcmp(async_progress, "auto") != 0)
		michi_warn("async_progress '%s' unknown (auto|on|off), using auto",
			   async_progress);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		mine = CPU_COUNT(&set);
	if (mtmi_host_cores() >= 2 * mtmi_host_ranks() && mine >= 2)
		async_mode = ASYNC_AUTO;
	michi_debug("async progress %s: %d ranks here on %d processors, %d for this process",
		    async_mode == ASYNC_AUTO ? "auto" : "off", mtmi_host_ranks(),
		    mtmi_host_cores(), mine);
}

/* A program thread waits and polls by itself (mtmi_wait_tick is fresh). */
static int async_waiter(void)
{
	uint64_t t = __atomic_load_n(&mtmi_wait_tick, __ATOMIC_RELAXED);

	return michi_ticks() - t < async_waiter_ticks;
}

/* Between two polls, with the lock given up: a thread that waits for the
 * lock gets it first, and a program thread that waits and polls by
 * itself is left alone until it is done; an idle thread backs off. */
static void async_pause(unsigned long long idle)
{
	michi_mt_unlock();
	for (int i = 0; i < ASYNC_HANDOFF && michi_mt_waiting(); i++)
		michi_cpu_relax();
	if (idle > ASYNC_DOZE) {
		struct timespec ts = { 0, 20 * 1000 };

		nanosleep(&ts, NULL);
	} else if (idle > ASYNC_SPIN || mtmi_oversubscribed()) {
		sched_yield();
	} else {
		/* a little longer each idle poll: a polling thread on the
		 * program thread's sibling hyperthread slows it down */
		for (unsigned long long i = 0; i <= idle && i < ASYNC_BACKOFF; i++)
			michi_cpu_relax();
	}
	for (unsigned long i = 0; async_waiter(); i++) {
		if (i > ASYNC_SPIN || mtmi_oversubscribed())
			sched_yield();
		else
			michi_cpu_relax();
	}
	michi_mt_lock();
}

/* With the lock held: the thread may (1) or may not (0) poll. */
static void async_set(int on)
{
	__atomic_store_n(&async_on, on, __ATOMIC_RELEASE);
	michi_mt_async(on);
}

/* With the lock held: the thread polls (1) or not (0). Set by the thread
 * itself once it runs, not by the kick: until it does, the calls that
 * wait must keep polling themselves. */
static void async_polling(int on)
{
	__atomic_store_n(&michi_async_running, on, __ATOMIC_RELEASE);
}

/* The thread has collectives to run (read without the lock too). */
static int async_wanted(void)
{
	return __atomic_load_n(&async_on, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&async_off_wanted, __ATOMIC_ACQUIRE);
}

/* Asks for michi_mt to go off (1) or takes that back (0); with the lock
 * held. */
static void async_want_off(int off)
{
	__atomic_store_n(&async_off_wanted, off, __ATOMIC_RELEASE);
	michi_mt_hook_armed = off;
}

/* util/mtlock.h's unlock hook: a program thread gives the lock up
 * entirely while the progress thread has asked for the switch back. */
static void async_unlock_hook(void)
{
	if (async_self || !async_off_wanted || coll_sched_nb_running)
		return;
	async_want_off(0);
	async_set(0);
}

/* With the lock held, which it gives up meanwhile: before it sleeps, the
 * thread watches for a while whether another collective comes, so that
 * one started soon after finds it awake and pays no wake-up. It touches
 * nothing but the flag. Not where ranks outnumber cores. */
static void async_linger(void)
{
	uint64_t end;

	if (mtmi_oversubscribed())
		return;
	michi_mt_unlock();
	end = michi_ticks() + async_linger_ticks;
	while (!async_wanted() && !__atomic_load_n(&async_stop, __ATOMIC_ACQUIRE) &&
	       (int64_t)(michi_ticks() - end) < 0)
		for (int i = 0; i < ASYNC_BACKOFF; i++)
			michi_cpu_relax();
	michi_mt_lock();
}

static void *async_main(void *arg)
{
	unsigned long long idle = 0;

	(void)arg;
	async_self = 1;
	mtmi_agent_thread();
	michi_mt_lock();
	while (!async_stop) {
		if (!async_wanted()) {
			async_linger();
			if (!async_wanted() && !async_stop) {
				async_sleeping = 1;
				michi_mt_cond_wait(&async_wake);
				async_sleeping = 0;
			}
			idle = 0;
			continue;
		}
		if (!coll_sched_nb_running) {
			/* nothing left: the calls go back to the unlocked paths
			 * at the program's next full unlock */
			async_polling(0);
			async_want_off(1);
			continue;
		}
		if (!michi_async_running)
			async_polling(1);
		if (mtmi_progress() > 0)
			idle = 0;
		else
			idle++;
		/* an error met here is the request's (m.error), reported by
		 * the call that completes it; none stays recorded for this
		 * thread, where no call would report it */
		michi_err_clear();
		async_pause(idle);
	}
	async_polling(0);
	michi_mt_unlock();
	return NULL;
}

/* With the lock held. 0, or -1 when no thread could be made. */
static int async_start(void)
{
	sigset_t all, old;
	int rc;

	michi_mt_unlock_hook = async_unlock_hook;
	/* signals stay with the program's own threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&async_thread, NULL, async_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		michi_warn("no progress thread (pthread_create: %s); nonblocking collectives "
			   "progress inside MPI calls only", strerror(rc));
		return -1;
	}
	async_started = 1;
	return 0;
}

void michi_async_kick(size_t bytes, int user_code)
{
	int took;

	if (unlikely(async_mode == ASYNC_UNDECIDED))
		async_decide();
	if (async_mode == ASYNC_OFF ||
	    (async_mode == ASYNC_AUTO && (bytes < async_progress_bytes || user_code)))
		return;
	/* michi_mt is clear when this thread does not hold the lock: no
	 * other thread runs MPI, the progress thread sleeps */
	took = !michi_mt_held();
	if (took)
		michi_mt_lock();
	if (!async_started && async_start() < 0) {
		async_mode = ASYNC_OFF;
	} else if (!async_wanted()) {
		if (!async_on)
			async_set(1);
		async_want_off(0);
		if (async_sleeping)
			pthread_cond_signal(&async_wake);
	}
	if (took)
		michi_mt_unlock();
}

int michi_async_test(MPI_Request *request, int *flag)
{
	struct michi_request *r;

	if (michi_mt_held() || !request || !flag || *request == MPI_REQUEST_NULL)
		return 0;
	r = michi_req_get(*request);
	if (!r || r->kind != MICHI_REQ_COLL ||
	    __atomic_load_n(&r->m.done, __ATOMIC_ACQUIRE))
		return 0;
	*flag = 0;
	return 1;
}

void michi_async_end(void)
{
	unsigned depth;
	int took;

	if (!async_started)
		return;
	took = !michi_mt_held();
	if (took)
		michi_mt_lock();
	__atomic_store_n(&async_stop, 1, __ATOMIC_RELEASE);
	pthread_cond_signal(&async_wake);
	depth = michi_mt_release();
	pthread_join(async_thread, NULL);
	michi_mt_reacquire(depth);
	async_started = 0;
	async_want_off(0);
	if (async_on)
		async_set(0);
	if (took)
		michi_mt_unlock();
}
