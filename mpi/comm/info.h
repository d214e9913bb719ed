/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/info.h: info objects (mpi/comm/info.c), shared with the communicator
 * calls that take hints.
 */
#ifndef MICHI_INFO_H
#define MICHI_INFO_H

#include "mpiimpl.h"

struct michi_info {
	struct michi_obj h;
	int n, cap;
	struct michi_info_kv {
		char *key, *val;
	} *kv;                 /* in insertion order */
};

extern struct michi_info michi_info_env;

/* The object behind a handle (MPI_INFO_ENV included), or NULL. */
struct michi_info *michi_info_get(MPI_Info h);
/* A new object with src's pairs (NULL: empty); NULL when out of memory. */
struct michi_info *michi_info_copy(const struct michi_info *src);
/* Set src's pairs in dst (src NULL: nothing). */
michi_status_t michi_info_merge(struct michi_info *dst, const struct michi_info *src);
void michi_info_release(struct michi_info *in);
void michi_info_env_init(int thread_level);

#endif
