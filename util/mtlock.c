/* SPDX-License-Identifier: MIT */
/*
 * util/mtlock.c: the recursive lock of util/mtlock.h.
 *
 * A plain mutex plus a per-thread depth: the depth says whether this
 * thread holds the lock without reading an owner field that other threads
 * write, and it lets a waiting thread drop all its levels at once.
 */
#include "mtlock.h"

#include <pthread.h>

int michi_mt;

static pthread_mutex_t mt_mutex = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned mt_depth;

void michi_mt_lock(void)
{
	if (mt_depth++ == 0)
		pthread_mutex_lock(&mt_mutex);
}

void michi_mt_unlock(void)
{
	if (--mt_depth == 0)
		pthread_mutex_unlock(&mt_mutex);
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
		pthread_mutex_lock(&mt_mutex);
		mt_depth = depth;
	}
}
