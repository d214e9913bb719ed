/* SPDX-License-Identifier: MIT */
/*
 * util/mtlock.c: the recursive lock of util/mtlock.h.
 *
 * A plain mutex plus a per-thread depth: the depth says whether this
 * thread holds the lock without reading an owner field that other threads
 * write, and it lets a waiting thread drop all its levels at once.
 */
#include "mtlock.h"

int michi_mt;

static pthread_mutex_t mt_mutex = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned mt_depth;
static unsigned mt_waiters;

/* Take the mutex; only a contended take counts itself as waiting. */
static void mt_take(void)
{
	if (pthread_mutex_trylock(&mt_mutex) == 0)
		return;
	__atomic_add_fetch(&mt_waiters, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&mt_mutex);
	__atomic_sub_fetch(&mt_waiters, 1, __ATOMIC_RELAXED);
}

void michi_mt_lock(void)
{
	if (mt_depth++ == 0)
		mt_take();
}

void (*michi_mt_unlock_hook)(void);
int michi_mt_hook_armed;

void michi_mt_unlock(void)
{
	if (--mt_depth == 0) {
		if (__builtin_expect(michi_mt_hook_armed, 0))
			michi_mt_unlock_hook();
		pthread_mutex_unlock(&mt_mutex);
	}
}

int michi_mt_held(void)
{
	return mt_depth != 0;
}

unsigned michi_mt_release(void)
{
	unsigned depth = mt_depth;

	if (depth) {
		mt_depth = 0;
		pthread_mutex_unlock(&mt_mutex);
	}
	return depth;
}

void michi_mt_reacquire(unsigned depth)
{
	if (depth) {
		mt_take();
		mt_depth = depth;
	}
}

unsigned michi_mt_waiting(void)
{
	return __atomic_load_n(&mt_waiters, __ATOMIC_RELAXED);
}

void michi_mt_cond_wait(pthread_cond_t *cv)
{
	pthread_cond_wait(cv, &mt_mutex);
}
