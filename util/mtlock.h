/* SPDX-License-Identifier: MIT */
/*
 * util/mtlock.h: the one lock behind MPI_THREAD_MULTIPLE.
 *
 * Michi serializes MPI calls from several threads with a single recursive
 * lock (as MPICH's "global" critical section does): every MPI entry point
 * takes it while michi_mt is set and a thread that waits gives it up
 * around each idle round (mtmi_idle), so that a thread blocked in MPI_Recv
 * never keeps another from sending. The lock is recursive because user
 * callbacks that Michi calls with it held (error handlers, user ops,
 * attribute and generalized-request callbacks) may call MPI again.
 *
 * Nothing here is touched in single-thread mode: michi_mt is 0 there and
 * the hot paths test a flag of mpi/ that is already one of their checks.
 */
#ifndef MICHI_MTLOCK_H
#define MICHI_MTLOCK_H

#include <pthread.h>

/* 1 while some part of the library runs at MPI_THREAD_MULTIPLE. */
extern int michi_mt __attribute__((visibility("hidden")));

void michi_mt_lock(void);
void michi_mt_unlock(void);
/* Does the calling thread hold the lock? */
int michi_mt_held(void);
/* Give up every level this thread holds (0 when it holds none) and take
 * them back: a waiting thread brackets its idle time with these. */
unsigned michi_mt_release(void);
void michi_mt_reacquire(unsigned depth);
/* Threads blocked in michi_mt_lock or michi_mt_reacquire right now: a
 * thread that only polls lets them in before it takes the lock again. */
unsigned michi_mt_waiting(void);
/* Wait on cv with the lock (held once by this thread) given up meanwhile,
 * as pthread_cond_wait does with its mutex. */
void michi_mt_cond_wait(pthread_cond_t *cv);
/* While michi_mt_hook_armed is set, michi_mt_unlock calls the hook when a
 * thread gives up its last level, the lock still held: a change that must
 * come after everything done under the lock so far, in the thread that
 * will go on without it (mpi/env/async.c clears michi_mt so). */
extern void (*michi_mt_unlock_hook)(void) __attribute__((visibility("hidden")));
extern int michi_mt_hook_armed __attribute__((visibility("hidden")));

#endif
