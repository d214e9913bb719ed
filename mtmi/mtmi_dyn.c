/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_dyn.c: processes of other jobs (mpi/comm/dynproc.c: connect/accept,
 * spawn, join) through MTMI, the core's one door below it. A process of
 * another job takes a peer index above the world's: MTMI grows its
 * per-peer tables (sequence numbers, liveness), then the devices learn how
 * to reach it (devices/device.c, the tcp device). Apart from mtmi.c so that
 * the engine's unit tests, which link mtmi.c with a fake device layer,
 * need no other-job stubs.
 */
#include "config.h"
#include "mtmi_priv.h"
#include "device.h"

michi_status_t mtmi_peer_card(struct michi_job *job, char *card, size_t len)
{
	return michi_devices_dyn_card(job, card, len);
}

int mtmi_peer_find(const uint8_t key[16], int rank)
{
	return michi_devices_dyn_find(key, rank);
}

michi_status_t mtmi_peer_add(struct michi_job *job, int index, const uint8_t key[16],
			     int rank, const char *host, const char *card)
{
	michi_status_t st = mtmi_peers_grow(index + 1);

	if (st < 0)
		return st;
	return michi_devices_dyn_add(job, index, key, rank, host, card);
}
