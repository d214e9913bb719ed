/* SPDX-License-Identifier: MIT */
/*
 * devices/device.c: the table of devices and the choice of one device per
 * world rank.
 *
 * michi_devices_init() runs before the job's fence: it brings up every
 * device some peer may need (they put their business cards) and fills
 * michi_dev_for_peer[]. The caller then fences and calls
 * michi_devices_post_fence(), which runs each started device's post_fence. Self serves our own rank; every other rank gets
 * tcp for now. MICHI_DEVICE=<name> forces one device for every other
 * rank. When shm arrives, its per-peer choice needs host_of[], known only
 * after the fence, so the choice will move to a post-fence step.
 */
#include "config.h"
#include "device.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct michi_device *michi_devices[] = {
	&michi_device_self,
	&michi_device_tcp,
	NULL,
};

struct michi_device **michi_dev_for_peer;

static const char *device_force = "";
MICHI_TUNABLE(device_force, "device", MICHI_T_STRING, "", MICHI_LEVEL_USER,
	      "device for every other rank (self, tcp); empty: chosen per peer");

#define DEVICES_MAX 8
static struct michi_device *devices_active[DEVICES_MAX];
static int devices_nactive;

static struct michi_device *devices_find(const char *name)
{
	int i;

	for (i = 0; michi_devices[i]; i++)
		if (strcmp(michi_devices[i]->name, name) == 0)
			return michi_devices[i];
	return NULL;
}

static michi_status_t devices_unknown(const char *name)
{
	char known[256] = "";
	size_t n = 0;
	int i;

	for (i = 0; michi_devices[i]; i++)
		n += (size_t)snprintf(known + n, n < sizeof(known) ? sizeof(known) - n : 0,
				      "%s%s", i ? ", " : "", michi_devices[i]->name);
	return michi_err(MICHI_ERR_INVAL, "MICHI_DEVICE=%s: no such device; known devices: %s",
			 name, known);
}

/* The device for other ranks: forced, or the default for this build. */
static michi_status_t devices_remote(struct michi_device **dev)
{
	struct michi_device *d;

	if (!device_force || !*device_force || strcmp(device_force, "auto") == 0) {
		*dev = &michi_device_tcp;
		return MICHI_OK;
	}
	d = devices_find(device_force);
	if (!d)
		return devices_unknown(device_force);
	if (d == &michi_device_self)
		return michi_err(MICHI_ERR_INVAL, "MICHI_DEVICE=self: the self device only "
				 "serves a rank sending to itself; choose one for other ranks");
	*dev = d;
	return MICHI_OK;
}

static michi_status_t devices_start(struct michi_device *d, struct michi_job *job)
{
	michi_status_t st;
	int i;

	for (i = 0; i < devices_nactive; i++)
		if (devices_active[i] == d)
			return MICHI_OK;
	st = d->init(job);
	if (st < 0)
		return st;
	devices_active[devices_nactive++] = d;
	return MICHI_OK;
}

static void devices_stop_all(void)
{
	while (devices_nactive > 0)
		devices_active[--devices_nactive]->finalize();
}

michi_status_t michi_devices_init(struct michi_job *job)
{
	struct michi_device *remote = NULL;
	michi_status_t st;
	int i;

	michi_tunables_load();
	st = devices_remote(&remote);
	if (st < 0)
		return st;
	michi_dev_for_peer = calloc((size_t)job->size, sizeof(*michi_dev_for_peer));
	if (!michi_dev_for_peer)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the device table of %d ranks",
				 job->size);
	st = devices_start(&michi_device_self, job);
	if (st < 0)
		goto err_free_table;
	if (job->size > 1) {
		st = devices_start(remote, job);
		if (st < 0)
			goto err_stop;
	}
	for (i = 0; i < job->size; i++)
		michi_dev_for_peer[i] = i == job->rank ? &michi_device_self : remote;
	return MICHI_OK;

err_stop:
	devices_stop_all();
err_free_table:
	free(michi_dev_for_peer);
	michi_dev_for_peer = NULL;
	return st;
}

michi_status_t michi_devices_post_fence(struct michi_job *job)
{
	michi_status_t st;
	int i;

	for (i = 0; i < devices_nactive; i++) {
		if (!devices_active[i]->post_fence)
			continue;
		st = devices_active[i]->post_fence(job);
		if (st < 0)
			return st;
	}
	return MICHI_OK;
}

michi_status_t michi_devices_finalize(void)
{
	michi_status_t st = MICHI_OK;

	while (devices_nactive > 0) {
		michi_status_t s = devices_active[--devices_nactive]->finalize();

		if (s < 0 && st == MICHI_OK)
			st = s;
	}
	free(michi_dev_for_peer);
	michi_dev_for_peer = NULL;
	return st;
}

int michi_devices_progress(void)
{
	int i, n = 0;

	for (i = 0; i < devices_nactive; i++) {
		int k = devices_active[i]->progress();

		if (unlikely(k < 0))
			return k;
		n += k;
	}
	return n;
}

size_t michi_devices_pending(void)
{
	size_t n = 0;
	int i;

	for (i = 0; i < devices_nactive; i++)
		n += devices_active[i]->pending();
	return n;
}

void michi_devices_block(int timeout_ms)
{
	struct pollfd fds[DEVICES_MAX];
	int i, n = 0;

	for (i = 0; i < devices_nactive; i++) {
		int fd = devices_active[i]->wait_fd();

		if (fd >= 0) {
			fds[n].fd = fd;
			fds[n].events = POLLIN;
			n++;
		}
	}
	/* with no fd (self only), nothing can arrive: sleeping is all we can do */
	poll(n ? fds : NULL, (nfds_t)n, timeout_ms);
}
