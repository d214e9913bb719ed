/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_dev.c: the devices' start, stop, table, wait policy and
 * native inline path, for the MPI core, which reaches the devices through
 * MTMI only (mpi/env/init.c, mpi/env/async.c, mpi/pt2pt/pt2pt.c, MPI_T). Apart
 * from mtmi.c so that the engine's unit tests, which link mtmi.c with a
 * fake device layer, need no stubs for them.
 */
#include "config.h"
#include "mtmi_priv.h"

michi_status_t mtmi_devices_start(struct michi_job *job)
{
	return michi_devices_init(job);
}

michi_status_t mtmi_devices_post_fence(struct michi_job *job)
{
	return michi_devices_post_fence(job);
}

michi_status_t mtmi_devices_stop(void)
{
	return michi_devices_finalize();
}

const char *mtmi_dev_name(int i)
{
	int n;

	if (i < 0)
		return NULL;
	for (n = 0; n < i && michi_devices[n]; n++)
		;
	return michi_devices[n] ? michi_devices[n]->name : NULL;
}

int mtmi_host_ranks(void)
{
	return michi_wait.ranks;
}

int mtmi_host_cores(void)
{
	return michi_wait.cores;
}

int mtmi_oversubscribed(void)
{
	return michi_wait.oversubscribed;
}

int mtmi_native_inline(void)
{
	return michi_tag_inline;
}
