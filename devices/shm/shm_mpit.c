/* SPDX-License-Identifier: MIT */
/*
 * devices/shm/shm_mpit.c: the shm device's MPI_T variables (util/tvars.h),
 * read from state the device keeps anyway: no counter on a send path.
 *
 *  - ring bytes: each ring's tail counts the 64-byte cells written; the
 *    per-ring counts are folded into a total at every read and at
 *    MPI_Finalize's snapshot, before the rings are unmapped.
 *  - sleeps: shm's own count, kept where it goes to sleep.
 */
#include "config.h"
#include "shm.h"
#include "tvars.h"

#include <stdio.h>
#include <stdlib.h>

static uint64_t cells;          /* since MPI_Init */
static uint64_t *cells_last;    /* per world rank, at the last fold */
static int ncells_last;

/* Only while the send table exists (MPI_Init to the devices' close). */
static void fold(void)
{
	int p;

	if (!shm.tx || shm.nworld <= 0)
		return;
	if (!cells_last) {
		cells_last = calloc((size_t)shm.nworld, sizeof(*cells_last));
		if (!cells_last)
			return;
		ncells_last = shm.nworld;
	}
	for (p = 0; p < ncells_last && p < shm.nworld; p++) {
		if (!shm.tx[p].cells)
			continue;
		cells += shm.tx[p].tail - cells_last[p];
		cells_last[p] = shm.tx[p].tail;
	}
}

static uint64_t read_ring_bytes(int arg)
{
	(void)arg;
	fold();
	return cells * SHM_CELL;
}

static uint64_t read_sleeps(int arg)
{
	(void)arg;
	return shm_sleeps;
}

static void describe_ring_bytes(char *buf, size_t len)
{
	snprintf(buf, len,
		 "bytes this rank wrote into shared-memory rings to ranks of its "
		 "host, in whole %d-byte cells: eager payloads, pipelined "
		 "rendezvous chunks and each record's %d-byte header, padding "
		 "included; large messages copied by CMA (process_vm_readv/"
		 "writev) are not counted", SHM_CELL, SHM_FIRST_HDR);
}

static const struct michi_tvar_pvar shm_pvars[] = {
	{ "shm_ring_bytes_sent", MICHI_TVAR_COUNTER, MICHI_TVAR_USER_DETAIL, read_ring_bytes, 0,
	  NULL, describe_ring_bytes },
	{ "shm_sleeps", MICHI_TVAR_COUNTER, MICHI_TVAR_USER_DETAIL, read_sleeps, 0,
	  "times this rank slept on its futex waiting for a rank of its "
	  "host (woken or timed out): only where the wait policy lets "
	  "ranks sleep (MICHI_WAIT_POLICY=block, MICHI_WAIT_YIELD), every "
	  "rank of the host wakes sleepers, and shm is the only device "
	  "polled (with tcp too a rank sleeps in poll, not counted); "
	  "counted from MPI_Init", NULL },
};

MICHI_TVARS(shm, "shm", "the shared-memory device between the ranks of one host",
	    shm_pvars, MICHI_TVARS_N(shm_pvars), fold, NULL);
