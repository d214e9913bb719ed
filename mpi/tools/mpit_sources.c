/* SPDX-License-Identifier: MIT */
/*
 * mpi/mpit_sources.c: where the MPI_T performance variables get their
 * values.
 *
 * No counter was added to a send, receive or wait path for them (those
 * paths have instruction budgets): every value is derived, when a tool
 * reads it, from state the layers below keep anyway. So this is the one
 * file of mpi/ that reads MTMI's and the devices' private state (through
 * mtmi_priv.h, shm.h and tcp.h, read only); when those layers grow a
 * statistics call, only this file changes.
 *
 *  - frames per device: MTMI numbers every frame it sends to and receives
 *    from each peer (mtmi_tx_seq[], mtmi_rx_seq[], 32 bits each), and one
 *    device serves each peer (michi_dev_for_peer[]). The per-peer numbers
 *    are folded into 64-bit totals per device at every read, so totals
 *    survive the 32-bit wrap (as long as a peer sees fewer than 2^32
 *    frames between two reads) and the end of MPI (MPI_Finalize takes a
 *    last snapshot before the devices close).
 *  - shm ring bytes: each ring's tail counts the 64-byte cells written.
 *  - shm sleeps: shm's own count, kept where it goes to sleep.
 *  - tcp bytes: the kernel's count of bytes sent on each connection.
 *  - the posted queue's length: a walk of MTMI's matching hash.
 *  - the unexpected queue's length, high watermark and match attempts,
 *    and rendezvous sends: MTMI's counters (mtmi_stats), kept on its
 *    out-of-line paths.
 */
#include "mpiimpl.h"
#include "mpit.h"
#include "mtmi_priv.h"
#include "device.h"
#include "shm/shm.h"
#include "tcp/tcp.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/tcp.h>   /* struct tcp_info with tcpi_bytes_sent (Linux 4.19) */

#define DEV_MAX 8
#define PVAR_MAX 32

/*
 * Totals since MPI_Init, and what each per-peer source said at the last
 * fold. Allocated at the first fold after MPI_Init (the world size is
 * known then) and kept after MPI_Finalize, when the totals stay readable.
 */
static struct {
	int n;                    /* peers tracked; 0 before MPI_Init */
	int8_t *dev_of;           /* index in michi_devices[] of each peer's device */
	uint32_t *tx_last, *rx_last;
	uint64_t *cells_last;
	struct tcp_mark {
		const void *conn;     /* connection the mark belongs to */
		int fd;
		uint64_t sent;
	} *tcp_last;              /* two per peer: main connection and lane */
	uint64_t tx[DEV_MAX], rx[DEV_MAX];
	uint64_t shm_cells;
	uint64_t tcp_bytes;
} acc;

static int acc_setup(int n)
{
	int p, i;

	acc.dev_of = calloc((size_t)n, sizeof(*acc.dev_of));
	acc.tx_last = calloc((size_t)n, sizeof(*acc.tx_last));
	acc.rx_last = calloc((size_t)n, sizeof(*acc.rx_last));
	acc.cells_last = calloc((size_t)n, sizeof(*acc.cells_last));
	acc.tcp_last = calloc(2 * (size_t)n, sizeof(*acc.tcp_last));
	if (!acc.dev_of || !acc.tx_last || !acc.rx_last || !acc.cells_last || !acc.tcp_last)
		goto err_free;
	for (p = 0; p < n; p++) {
		acc.dev_of[p] = -1;
		for (i = 0; michi_devices[i] && i < DEV_MAX; i++)
			if (michi_dev_for_peer[p] == michi_devices[i])
				acc.dev_of[p] = (int8_t)i;
	}
	acc.n = n;
	return 0;

err_free:
	free(acc.dev_of);
	free(acc.tx_last);
	free(acc.rx_last);
	free(acc.cells_last);
	free(acc.tcp_last);
	memset(&acc, 0, sizeof(acc));
	return -1;
}

/* Bytes the kernel sent on c since the last fold (0 when unknown). */
static uint64_t tcp_conn_sent(const struct tcp_conn *c, struct tcp_mark *mark)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	uint64_t v, d;

	if (!c || c->fd < 0 || c->state != TCP_CONN_UP)
		return 0;
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
	    len < offsetof(struct tcp_info, tcpi_bytes_sent) + sizeof(ti.tcpi_bytes_sent))
		return 0;
	v = ti.tcpi_bytes_sent;
	/* another connection than last time (a lane opened again): it
	 * counts from its own start */
	if (mark->conn != c || mark->fd != c->fd || v < mark->sent) {
		mark->conn = c;
		mark->fd = c->fd;
		mark->sent = 0;
	}
	d = v - mark->sent;
	mark->sent = v;
	return d;
}

static void fold_tcp(void)
{
	int p;

	if (!tcp.inited || !tcp.peers || tcp.size != acc.n)
		return;
	for (p = 0; p < acc.n; p++) {
		if (p == tcp.rank)
			continue;
		acc.tcp_bytes += tcp_conn_sent(tcp.peers[p].conn, &acc.tcp_last[2 * p]);
		acc.tcp_bytes += tcp_conn_sent(tcp.peers[p].lane, &acc.tcp_last[2 * p + 1]);
	}
}

/* Only between MPI_Init and the end of MPI_Finalize: mtmi_release clears
 * the frame numbers, which is how we know the rest is gone too. */
static void fold(void)
{
	int p;

	if (!mtmi_tx_seq || !mtmi_rx_seq || !michi_dev_for_peer || mtmi_nranks <= 0)
		return;
	if (!acc.n && acc_setup(mtmi_nranks) < 0)
		return;
	if (acc.n != mtmi_nranks)
		return;
	for (p = 0; p < acc.n; p++) {
		/* unsigned 32-bit differences: right across the wrap */
		uint32_t dtx = mtmi_tx_seq[p] - acc.tx_last[p];
		uint32_t drx = mtmi_rx_seq[p] - acc.rx_last[p];

		acc.tx_last[p] = mtmi_tx_seq[p];
		acc.rx_last[p] = mtmi_rx_seq[p];
		if (acc.dev_of[p] >= 0) {
			acc.tx[acc.dev_of[p]] += dtx;
			acc.rx[acc.dev_of[p]] += drx;
		}
		if (shm.tx && shm.tx[p].cells) {
			acc.shm_cells += shm.tx[p].tail - acc.cells_last[p];
			acc.cells_last[p] = shm.tx[p].tail;
		}
	}
	fold_tcp();
}

void michi_pvar_snapshot(void)
{
	fold();
}

/* ---- readers ------------------------------------------------------------ */

static uint64_t read_frames_sent(int dev)
{
	fold();
	return acc.tx[dev];
}

static uint64_t read_frames_received(int dev)
{
	fold();
	return acc.rx[dev];
}

static uint64_t read_shm_ring_bytes(int arg)
{
	(void)arg;
	fold();
	return acc.shm_cells * SHM_CELL;
}

static uint64_t read_shm_sleeps(int arg)
{
	(void)arg;
	return shm_sleeps;
}

static uint64_t read_tcp_bytes(int arg)
{
	(void)arg;
	fold();
	return acc.tcp_bytes;
}

/* a field of mtmi_stats; arg: its offset */
static uint64_t read_mtmi_stat(int arg)
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
	/* wildcard receives wait on their context's list, counted by MTMI */
	return n + mtmi_nwild;
}

/* ---- the table ---------------------------------------------------------- */

static struct michi_pvar pvars[PVAR_MAX];
static int npvars;

static struct michi_pvar *pvar_add(const char *category, int var_class, int verbosity,
				   uint64_t (*read)(int), int arg)
{
	struct michi_pvar *v;

	MICHI_ASSERT_ALWAYS(npvars < PVAR_MAX);
	v = &pvars[npvars++];
	v->category = category;
	v->var_class = var_class;
	v->verbosity = verbosity;
	v->read = read;
	v->arg = arg;
	return v;
}

/* A counter of device d, user detail, named by fmt with d for its %s */
static struct michi_pvar *dev_counter(const char *d, uint64_t (*read)(int), int arg,
				      const char *fmt)
{
	struct michi_pvar *v = pvar_add(d, MPI_T_PVAR_CLASS_COUNTER,
					MPI_T_VERBOSITY_USER_DETAIL, read, arg);

	snprintf(v->name, sizeof(v->name), fmt, d);
	return v;
}

static void table_devices(void)
{
	struct michi_pvar *v;
	int i;

	for (i = 0; michi_devices[i] && i < DEV_MAX; i++) {
		const char *d = michi_devices[i]->name;

		v = dev_counter(d, read_frames_sent, i, "%s_frames_sent");
		snprintf(v->desc, sizeof(v->desc),
			 "frames this rank sent through the %s device: one per eager message, "
			 "plus every protocol frame (rendezvous RTS, CTS, DATA, FIN, PUSH; "
			 "synchronous-send and cancel acknowledgements), so frames, not "
			 "messages; counted from MPI_Init", d);
		v = dev_counter(d, read_frames_received, i, "%s_frames_received");
		snprintf(v->desc, sizeof(v->desc),
			 "frames this rank received through the %s device (the same kinds "
			 "of frames as %s_frames_sent); counted from MPI_Init", d, d);
		if (michi_devices[i] == &michi_device_shm) {
			v = dev_counter(d, read_shm_ring_bytes, 0, "shm_ring_bytes_sent");
			snprintf(v->desc, sizeof(v->desc),
				 "bytes this rank wrote into shared-memory rings to ranks of its "
				 "host, in whole %d-byte cells: eager payloads, pipelined "
				 "rendezvous chunks and each record's %d-byte header, padding "
				 "included; large messages copied by CMA (process_vm_readv/"
				 "writev) are not counted", SHM_CELL, SHM_FIRST_HDR);
			v = dev_counter(d, read_shm_sleeps, 0, "shm_sleeps");
			snprintf(v->desc, sizeof(v->desc),
				 "times this rank slept on its futex waiting for a rank of its "
				 "host (woken or timed out): only where the wait policy lets "
				 "ranks sleep (MICHI_WAIT_POLICY=block, MICHI_WAIT_YIELD), every "
				 "rank of the host wakes sleepers, and shm is the only device "
				 "polled (with tcp too a rank sleeps in poll, not counted); "
				 "counted from MPI_Init");
		}
		if (michi_devices[i] == &michi_device_tcp) {
			v = dev_counter(d, read_tcp_bytes, 0, "tcp_bytes_sent");
			snprintf(v->desc, sizeof(v->desc),
				 "bytes the kernel sent on this rank's tcp connections to other "
				 "ranks (TCP_INFO tcpi_bytes_sent, lanes included): %d-byte frame "
				 "headers and payloads, retransmissions included; sampled when "
				 "read, so bytes of a connection that closed since the last read "
				 "are missed", MICHI_FRAME_HDR_SIZE);
		}
	}
}

/* MTMI's variables: read_posted walks the hash, the rest read mtmi_stats */
#define MTMI_STAT(f) read_mtmi_stat, (int)offsetof(struct mtmi_stats, f)
static const struct {
	int var_class;
	uint64_t (*read)(int);
	int arg;
	const char *name, *desc;
} mtmi_pvars[] = {
	{ MPI_T_PVAR_CLASS_LEVEL, MTMI_STAT(unexp_len), "mtmi_unexpected_queue_length",
	  "messages that arrived before a matching receive was posted and wait in MTMI's "
	  "unexpected queues now (a rendezvous offer counts as one message; a message taken "
	  "by MPI_Mprobe no longer counts)" },
	{ MPI_T_PVAR_CLASS_LEVEL, read_posted, 0, "mtmi_posted_queue_length",
	  "receives posted and not yet matched by a message, wildcard ones included" },
	{ MPI_T_PVAR_CLASS_COUNTER, MTMI_STAT(rndv_sends), "mtmi_rendezvous_sends",
	  "sends that took the rendezvous protocol (one RTS frame each): messages larger "
	  "than the eager limit of the device that serves the destination; counted from "
	  "MPI_Init" },
	{ MPI_T_PVAR_CLASS_HIGHWATERMARK, MTMI_STAT(unexp_max), "mtmi_unexpected_queue_max",
	  "most messages waiting in MTMI's unexpected queues at one time since MPI_Init "
	  "(high watermark of mtmi_unexpected_queue_length)" },
	{ MPI_T_PVAR_CLASS_COUNTER, MTMI_STAT(unexp_cmp), "mtmi_unexpected_match_attempts",
	  "unexpected messages compared with a receive or probe while it looked for its "
	  "match (a search that finds its message first counts 1); counted from MPI_Init" },
};
#undef MTMI_STAT

static void table_mtmi(void)
{
	struct michi_pvar *v;
	size_t i;

	for (i = 0; i < sizeof(mtmi_pvars) / sizeof(mtmi_pvars[0]); i++) {
		v = pvar_add("mtmi", mtmi_pvars[i].var_class, MPI_T_VERBOSITY_TUNER_BASIC,
			     mtmi_pvars[i].read, mtmi_pvars[i].arg);
		snprintf(v->name, sizeof(v->name), "%s", mtmi_pvars[i].name);
		snprintf(v->desc, sizeof(v->desc), "%s", mtmi_pvars[i].desc);
	}
}

int michi_pvar_table(const struct michi_pvar **tab)
{
	if (!npvars) {
		table_devices();
		table_mtmi();
	}
	*tab = pvars;
	return npvars;
}
