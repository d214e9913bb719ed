/* SPDX-License-Identifier: MIT */
/*
 * coll/coll.h: collective algorithms over MTMI point-to-point.
 *
 * Collectives use the communicator's collective context (ctx + 1), so
 * their messages never match point-to-point receives. Each algorithm is one
 * file; the collectives issue grows this into selection tables and
 * schedules shared by the blocking and nonblocking forms.
 */
#ifndef MICHI_COLL_H
#define MICHI_COLL_H

#include "michi.h"

struct coll_comm {
	int rank, size;
	uint32_t ctx;          /* the collective context */
	const int *peers;      /* world rank of each comm rank */
};

/* Dissemination barrier: ceil(log2 n) rounds of zero-byte messages. */
michi_status_t coll_barrier_dissem(const struct coll_comm *c);

#endif
