/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_mtmi_fake.c: the loopback device of MTMI's unit tests
 * (see check_mtmi_fake.h), with the device-table functions MTMI calls.
 */
#include "config.h"
#include "check_mtmi_fake.h"

#include <stdlib.h>
#include <string.h>

struct fake_frame {
	struct fake_frame *next;
	int peer;
	int stage;                 /* 1 once the header went up */
	void *cookie;
	int queued_send;           /* send returned MICHI_INPROGRESS */
	const void *ubuf;          /* queued send: payload, read at delivery */
	size_t len;
	struct michi_rx rx;
	unsigned char hdr[MICHI_FRAME_HDR_SIZE];
	unsigned char *data;
};

int fake_hold, fake_split, fake_inprogress;
unsigned fake_sent[16];
uint64_t fake_last_len[16];
unsigned fake_blocks;

static struct fake_frame *q_head, *q_tail;
static size_t q_len;
static int fake_nranks;
static uint8_t fake_dead[64];
static struct michi_device fake_dev;
static struct michi_device *fake_table[64];
struct michi_wait_policy michi_wait = { .spin = 1000, .yield = 100, .block_ms = 10 };
struct michi_device **michi_dev_for_peer = fake_table;

static michi_status_t fake_send(int peer, const struct iovec *iov, int iovcnt,
				void *cookie)
{
	struct fake_frame *f;
	size_t len = 0, off = 0;
	int i;

	if (fake_dead[peer])
		return michi_err(MICHI_ERR_PEER, "fake: rank %d is gone", peer);
	for (i = 1; i < iovcnt; i++)
		len += iov[i].iov_len;
	if (len != michi_frame_payload_len(iov[0].iov_base))
		abort();
	f = calloc(1, sizeof(*f));
	if (!f)
		abort();
	memcpy(f->hdr, iov[0].iov_base, MICHI_FRAME_HDR_SIZE);
	f->peer = peer;
	f->len = len;
	f->cookie = cookie;
	fake_sent[f->hdr[8] & 15]++;
	fake_last_len[f->hdr[8] & 15] = len;
	if (fake_inprogress && cookie && iovcnt == 2) {
		f->queued_send = 1;
		f->ubuf = iov[1].iov_base;
	} else {
		f->data = malloc(len ? len : 1);
		for (i = 1; i < iovcnt; i++) {
			memcpy(f->data + off, iov[i].iov_base, iov[i].iov_len);
			off += iov[i].iov_len;
		}
	}
	if (q_tail)
		q_tail->next = f;
	else
		q_head = f;
	q_tail = f;
	q_len++;
	return f->queued_send ? MICHI_INPROGRESS : MICHI_OK;
}

static void frame_free(struct fake_frame *f)
{
	free(f->data);
	free(f);
}

static struct fake_frame *q_pop(void)
{
	struct fake_frame *f = q_head;

	q_head = f->next;
	if (!q_head)
		q_tail = NULL;
	q_len--;
	return f;
}

static void deliver_payload(struct fake_frame *f)
{
	const unsigned char *src = f->queued_send ? f->ubuf : f->data;
	size_t n = f->len < f->rx.cap ? f->len : f->rx.cap;

	if (f->rx.buf && n)
		memcpy(f->rx.buf, src, n);
	mtmi_dev_recv_done(f->peer, &f->rx);
	if (f->queued_send)
		mtmi_dev_send_done(f->cookie, MICHI_OK);
}

int michi_devices_progress(void)
{
	size_t n = q_len, done = 0;
	struct fake_frame *f;

	if (fake_hold)
		return 0;
	while (n-- > 0 && q_head) {
		f = q_head;
		if (f->stage == 0) {
			f->stage = 1;
			mtmi_dev_recv_hdr(f->peer, f->hdr, &f->rx);
			done++;
			if (fake_split && f->len)
				return (int)done;
		}
		q_pop();
		deliver_payload(f);
		frame_free(f);
		done++;
	}
	return (int)done;
}

void michi_devices_block(int timeout_ms)
{
	(void)timeout_ms;
	fake_blocks++;
}

/* frames in this fake are on the wire at once: none wait in a device */
size_t michi_devices_pending(void)
{
	return 0;
}

/* byte devices only: MTMI runs its own queues */
const struct michi_tag_ops *michi_devices_tagged(void)
{
	return NULL;
}

void fake_setup(int nranks, size_t eager_limit)
{
	struct michi_job job;
	int i;

	memset(&job, 0, sizeof(job));
	job.size = nranks;
	job.local_size = 1;
	fake_nranks = nranks;
	fake_hold = fake_split = fake_inprogress = 0;
	fake_blocks = 0;
	memset(fake_sent, 0, sizeof(fake_sent));
	memset(fake_dead, 0, sizeof(fake_dead));
	fake_dev.name = "fake";
	fake_dev.send = fake_send;
	fake_dev.eager_limit = eager_limit;
	for (i = 0; i < nranks; i++)
		fake_table[i] = &fake_dev;
	if (mtmi_init(&job) != MICHI_OK)
		abort();
}

void fake_teardown(void)
{
	struct fake_frame *f;

	while (q_head) {
		f = q_pop();
		frame_free(f);
	}
	mtmi_finalize();
	mtmi_release();
}

size_t fake_queued(void)
{
	return q_len;
}

int fake_drain(void)
{
	int rounds = 0;

	while (q_head && rounds < 1000000) {
		michi_devices_progress();
		rounds++;
	}
	return rounds;
}

int fake_wait(struct mtmi_req *r)
{
	int rounds = 0;

	while (!r->done && rounds < 1000000) {
		michi_devices_progress();
		rounds++;
	}
	return r->done;
}

void fake_fail(int peer)
{
	struct fake_frame *f, *keep_head = NULL, *keep_tail = NULL;

	fake_dead[peer] = 1;
	while (q_head) {
		f = q_pop();
		if (f->peer != peer) {
			f->next = NULL;
			if (keep_tail)
				keep_tail->next = f;
			else
				keep_head = f;
			keep_tail = f;
			continue;
		}
		if (f->queued_send)
			mtmi_dev_send_done(f->cookie, MICHI_ERR_PEER);
		frame_free(f);
	}
	q_len = 0;
	for (f = keep_head; f; f = f->next)
		q_len++;
	q_head = keep_head;
	q_tail = keep_tail;
	mtmi_dev_peer_failed(peer, MICHI_ERR_PEER);
}
