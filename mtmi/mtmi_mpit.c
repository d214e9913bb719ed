/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_mpit.c: MTMI's MPI_T performance variables (util/tvars.h),
 * and the frames it moved through each device, which mpi/tools/mpit_sources.c
 * lists with that device's variables.
 *
 * No counter was added to a send, receive or wait path for them (those
 * paths have instruction budgets): every value is derived, when a tool
 * reads it, from state MTMI keeps anyway.
 *
 *  - frames per device: MTMI numbers every frame it sends to and receives
 *    from each peer (mtmi_tx_seq[], mtmi_rx_seq[], 32 bits each), and one
 *    device serves each peer (michi_dev_for_peer[]). The per-peer numbers
 *    are folded into 64-bit totals per device at every read, so totals
 *    survive the 32-bit wrap (as long as a peer sees fewer than 2^32
 *    frames between two reads) and the end of MPI (MPI_Finalize takes a
 *    last snapshot before the devices close).
 *  - the posted queue's length: a walk of the matching hash.
 *  - the unexpected queue's length, high watermark and match attempts,
 *    and rendezvous sends: the counters of mtmi_stats, kept on the
 *    out-of-line paths.
 */
#include "config.h"
#include "mtmi_priv.h"
#include "tvars.h"

#include <stdlib.h>
#include <string.h>

#define DEV_MAX 8

/*
 * Totals since MPI_Init, and what each peer's frame numbers said at the
 * last fold. Sized at the first fold after MPI_Init and grown with the
 * peers (processes of other jobs, mtmi_dyn.c); kept after MPI_Finalize,
 * when the totals stay readable.
 */
static struct {
	int n;                    /* peers tracked; 0 before MPI_Init */
	int8_t *dev_of;           /* index in michi_devices[] of each peer's device */
	uint32_t *tx_last, *rx_last;
	uint64_t tx[DEV_MAX], rx[DEV_MAX];
} acc;

/* Track peers acc.n .. n - 1 too, from frame number 0. */
static int acc_grow(int n)
{
	size_t k = (size_t)n;
	int8_t *dev = realloc(acc.dev_of, k * sizeof(*dev));
	uint32_t *tx, *rx;
	int p, i;

	if (dev)
		acc.dev_of = dev;
	tx = realloc(acc.tx_last, k * sizeof(*tx));
	if (tx)
		acc.tx_last = tx;
	rx = realloc(acc.rx_last, k * sizeof(*rx));
	if (rx)
		acc.rx_last = rx;
	if (!dev || !tx || !rx)
		return -1;
	for (p = acc.n; p < n; p++) {
		acc.tx_last[p] = acc.rx_last[p] = 0;
		acc.dev_of[p] = -1;
		for (i = 0; michi_devices[i] && i < DEV_MAX; i++)
			if (michi_dev_for_peer[p] == michi_devices[i])
				acc.dev_of[p] = (int8_t)i;
	}
	acc.n = n;
	return 0;
}

/* Only between MPI_Init and the end of MPI_Finalize: mtmi_release clears
 * the frame numbers, which is how we know the devices are gone too. */
static void fold(void)
{
	int p;

	if (!mtmi_tx_seq || !mtmi_rx_seq || !michi_dev_for_peer || mtmi_nranks <= 0)
		return;
	if (mtmi_nranks > acc.n && acc_grow(mtmi_nranks) < 0)
		return;
	for (p = 0; p < mtmi_nranks; p++) {
		/* unsigned 32-bit differences: right across the wrap */
		uint32_t dtx = mtmi_tx_seq[p] - acc.tx_last[p];
		uint32_t drx = mtmi_rx_seq[p] - acc.rx_last[p];

		acc.tx_last[p] = mtmi_tx_seq[p];
		acc.rx_last[p] = mtmi_rx_seq[p];
		if (acc.dev_of[p] >= 0) {
			acc.tx[acc.dev_of[p]] += dtx;
			acc.rx[acc.dev_of[p]] += drx;
		}
	}
}

uint64_t mtmi_dev_frames(int i, int received)
{
	if (i < 0 || i >= DEV_MAX)
		return 0;
	fold();
	return received ? acc.rx[i] : acc.tx[i];
}

/* a field of mtmi_stats; arg: its offset */
static uint64_t read_stat(int arg)
{
	uint64_t v;

	memcpy(&v, (const char *)&mtmi_stats + arg, sizeof(v));
	return v;
}

static uint64_t read_posted(int arg)
{
	const struct mtmi_req *r;
	uint64_t n = 0;
	size_t i;

	(void)arg;
	if (!mtmi_buckets)
		return 0;
	for (i = 0; i <= mtmi_bucket_mask; i++)
		for (r = mtmi_buckets[i].posted.head; r; r = r->next)
			n++;
	/* wildcard receives wait on their context's list, counted apart */
	return n + mtmi_nwild;
}

#define STAT(f) read_stat, (int)offsetof(struct mtmi_stats, f)
static const struct michi_tvar_pvar mtmi_pvars[] = {
	{ "mtmi_unexpected_queue_length", MICHI_TVAR_LEVEL, MICHI_TVAR_TUNER_BASIC,
	  STAT(unexp_len),
	  "messages that arrived before a matching receive was posted and wait in MTMI's "
	  "unexpected queues now (a rendezvous offer counts as one message; a message taken "
	  "by MPI_Mprobe no longer counts)", NULL },
	{ "mtmi_posted_queue_length", MICHI_TVAR_LEVEL, MICHI_TVAR_TUNER_BASIC, read_posted, 0,
	  "receives posted and not yet matched by a message, wildcard ones included", NULL },
	{ "mtmi_rendezvous_sends", MICHI_TVAR_COUNTER, MICHI_TVAR_TUNER_BASIC, STAT(rndv_sends),
	  "sends that took the rendezvous protocol (one RTS frame each): messages larger "
	  "than the eager limit of the device that serves the destination; counted from "
	  "MPI_Init", NULL },
	{ "mtmi_unexpected_queue_max", MICHI_TVAR_HIGHWATERMARK, MICHI_TVAR_TUNER_BASIC,
	  STAT(unexp_max),
	  "most messages waiting in MTMI's unexpected queues at one time since MPI_Init "
	  "(high watermark of mtmi_unexpected_queue_length)", NULL },
	{ "mtmi_unexpected_match_attempts", MICHI_TVAR_COUNTER, MICHI_TVAR_TUNER_BASIC,
	  STAT(unexp_cmp),
	  "unexpected messages compared with a receive or probe while it looked for its "
	  "match (a search that finds its message first counts 1); counted from MPI_Init",
	  NULL },
};
#undef STAT

MICHI_TVARS(mtmi, "mtmi", NULL, mtmi_pvars, MICHI_TVARS_N(mtmi_pvars), fold, NULL);
