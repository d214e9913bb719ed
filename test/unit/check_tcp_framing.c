/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_tcp_framing.c: the device layer, self and tcp devices
 * (and the shm ring's stamps) against a fake MTMI, with several "ranks"
 * as forked processes talking over loopback or shared memory.
 *
 * The fake MTMI (the four byte-device upcalls, its table in job.up) checks every frame: the
 * header names its source and a per-peer sequence number (order), the
 * payload is a pattern derived from both (content; the header may flip
 * bits of the last byte), and the sender can ask the receiver for a
 * smaller buffer (truncation). The fake job has an
 * in-memory key-value space and fence in a shared mapping. Each test forks
 * its ranks, which report failures through the shared mapping; every wait
 * is bounded. Needs Check's fork mode (the default): tunables are read
 * from the environment once per process.
 */
#include "config.h"
#include "device.h"
#include "tcp/tcp.h"
#include "shm/shm.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* the devices under test, named as their folders define them */
extern struct michi_device michi_device_self MICHI_HIDDEN;

#define MAXR     8
#define HMAGIC   0xfeedf00dULL
#define KVS_MAX  64

/* ---- shared between the rank processes -------------------------------- */

struct shared {
	int nproc;
	int bar_count, bar_gen;
	int lock;
	int nkv;
	struct { char key[32]; char val[512]; } kv[KVS_MAX];
	int flag[8];
	char msg[MAXR][512];
};

static struct shared *sh;
static int my_rank;

static void child_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void child_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sh->msg[my_rank], sizeof(sh->msg[0]), fmt, ap);
	va_end(ap);
	_exit(1);
}

#define CHILD_CHECK(c, ...) do { if (!(c)) child_fail(__VA_ARGS__); } while (0)

static void sh_lock(void)
{
	while (__atomic_exchange_n(&sh->lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void sh_unlock(void)
{
	__atomic_store_n(&sh->lock, 0, __ATOMIC_RELEASE);
}

static michi_status_t fake_kvs_put(const char *key, const char *val)
{
	sh_lock();
	if (sh->nkv < KVS_MAX) {
		snprintf(sh->kv[sh->nkv].key, sizeof(sh->kv[0].key), "%s", key);
		snprintf(sh->kv[sh->nkv].val, sizeof(sh->kv[0].val), "%s", val);
		sh->nkv++;
	}
	sh_unlock();
	return MICHI_OK;
}

static michi_status_t fake_kvs_get(int from, const char *key, char *val, size_t len)
{
	int i;

	sh_lock();
	for (i = sh->nkv - 1; i >= 0; i--) {
		if (strcmp(sh->kv[i].key, key) == 0) {
			snprintf(val, len, "%s", sh->kv[i].val);
			sh_unlock();
			return MICHI_OK;
		}
	}
	sh_unlock();
	return MICHI_ERR_PMI;
}

/* Barrier over the test's processes; keeps the devices going meanwhile. */
static michi_status_t barrier(void)
{
	int gen = __atomic_load_n(&sh->bar_gen, __ATOMIC_ACQUIRE);
	double end = michi_wtime() + 20;

	if (__atomic_add_fetch(&sh->bar_count, 1, __ATOMIC_ACQ_REL) == sh->nproc) {
		__atomic_store_n(&sh->bar_count, 0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&sh->bar_gen, 1, __ATOMIC_ACQ_REL);
		return MICHI_OK;
	}
	while (__atomic_load_n(&sh->bar_gen, __ATOMIC_ACQUIRE) == gen) {
		michi_devices_progress();
		usleep(200);
		CHILD_CHECK(michi_wtime() < end, "barrier timed out");
	}
	return MICHI_OK;
}

/* ---- fake MTMI -------------------------------------------------------- */

struct rcv {
	void *buf;
	size_t cap, len;
	uint64_t seq;
	int src;
	uint8_t xlast;   /* XORed into the pattern's last byte */
};

static uint64_t next_seq[MAXR], send_seq[MAXR];
static long frames_in[MAXR];
static int send_done_ok, send_done_err, failed_peer = -1;
static michi_status_t failed_st;
static int in_upcall;

static inline uint8_t pat(uint64_t i, uint64_t seq, int src)
{
	return (uint8_t)(i * 7 + seq * 13 + (uint64_t)src + 1);
}

static inline uint8_t pat_x(uint64_t i, uint64_t len, uint64_t seq, int src, uint8_t xlast)
{
	return pat(i, seq, src) ^ (i + 1 == len ? xlast : 0);
}

void mtmi_dev_recv_hdr(int peer, const void *hdr, struct michi_rx *rx)
{
	const uint64_t *h = hdr;
	struct rcv *r;

	CHILD_CHECK(!in_upcall, "upcall re-entered");
	CHILD_CHECK(h[4] == HMAGIC, "frame from %d: bad header magic %llx", peer,
		    (unsigned long long)h[4]);
	CHILD_CHECK(h[2] == (uint64_t)peer, "frame says source %llu, device says %d",
		    (unsigned long long)h[2], peer);
	CHILD_CHECK(h[1] == next_seq[peer], "from %d: got seq %llu, expected %llu", peer,
		    (unsigned long long)h[1], (unsigned long long)next_seq[peer]);
	next_seq[peer]++;
	r = malloc(sizeof(*r));
	r->len = h[0];
	r->cap = h[3] ? h[3] - 1 : h[0];
	r->seq = h[1];
	r->src = peer;
	r->xlast = (uint8_t)h[5];
	/* 64 guard bytes behind the buffer must survive truncation */
	r->buf = r->cap || !h[3] ? malloc(r->cap + 64) : NULL;
	if (r->buf)
		memset(r->buf, 0xee, r->cap + 64);
	rx->buf = r->buf;
	rx->cap = r->cap;
	rx->cookie = r;
}

void mtmi_dev_recv_done(int peer, struct michi_rx *rx)
{
	struct rcv *r = rx->cookie;
	size_t i, n = r->len < r->cap ? r->len : r->cap;

	for (i = 0; i < n; i++)
		CHILD_CHECK(((uint8_t *)r->buf)[i] == pat_x(i, r->len, r->seq, r->src, r->xlast),
			    "from %d seq %llu len %zu: byte %zu wrong", peer,
			    (unsigned long long)r->seq, r->len, i);
	for (i = n; r->buf && i < r->cap + 64; i++)
		CHILD_CHECK(((uint8_t *)r->buf)[i] == 0xee,
			    "from %d seq %llu: byte %zu beyond the payload written", peer,
			    (unsigned long long)r->seq, i);
	frames_in[peer]++;
	free(r->buf);
	free(r);
}

void mtmi_dev_send_done(void *cookie, michi_status_t st)
{
	free(cookie);
	if (st == MICHI_OK)
		send_done_ok++;
	else
		send_done_err++;
}

void mtmi_dev_peer_failed(int peer, michi_status_t st)
{
	failed_peer = peer;
	failed_st = st;
}

/* the table the devices get in job->up */
static const struct michi_upcalls fake_up = {
	.recv_hdr = mtmi_dev_recv_hdr,
	.recv_done = mtmi_dev_recv_done,
	.send_done = mtmi_dev_send_done,
	.peer_failed = mtmi_dev_peer_failed,
};

/* ---- rank helpers ----------------------------------------------------- */

static struct michi_job job;
static int host_of[MAXR];

static void rank_init(int rank, int size, uint8_t keybyte)
{
	michi_status_t st;

	job.rank = rank;
	job.size = size;
	job.local_rank = rank;
	job.local_size = size;
	job.hostname = "testhost";
	memset(job.key, 0, sizeof(job.key));
	job.host_of = host_of;
	job.kvs_put = fake_kvs_put;
	job.kvs_fence = barrier;
	job.kvs_get = fake_kvs_get;
	job.up = &fake_up;
	/* the order of mpi/env/init.c: devices, fence, post_fence of each */
	st = michi_devices_init(&job);
	CHILD_CHECK(st == MICHI_OK, "rank %d: michi_devices_init: %s", rank, michi_err_msg());
	/* mpi/env/init.c learns the job key only after the fence */
	memset(job.key, keybyte, sizeof(job.key));
	barrier();
	st = michi_devices_post_fence(&job);
	CHILD_CHECK(st == MICHI_OK, "rank %d: post_fence: %s", rank, michi_err_msg());
}

/* Send one test frame of len bytes; cap+1 in the header, 0 = take it all;
 * xlast flips bits of the payload's last byte. */
static michi_status_t send_frame_x(int peer, size_t len, uint64_t capp1, uint8_t xlast)
{
	uint64_t h[MICHI_FRAME_HDR_SIZE / 8] = { len, send_seq[peer], (uint64_t)my_rank,
						 capp1, HMAGIC, xlast };
	struct iovec iov[2];
	uint8_t *buf = malloc(len + 1);
	michi_status_t st;
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = pat_x(i, len, send_seq[peer], my_rank, xlast);
	iov[0].iov_base = h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = buf;
	iov[1].iov_len = len;
	st = michi_dev_for_peer[peer]->send(peer, iov, len ? 2 : 1, buf);
	if (st != MICHI_INPROGRESS)
		free(buf);
	if (st >= 0)
		send_seq[peer]++;
	/* scribble over the header: the device must have copied what it needs */
	memset(h, 0x55, sizeof(h));
	return st;
}

static michi_status_t send_frame(int peer, size_t len, uint64_t capp1)
{
	return send_frame_x(peer, len, capp1, 0);
}

static void wait_for(int (*cond)(void *), void *arg, double secs, const char *what)
{
	double end = michi_wtime() + secs;

	while (!cond(arg)) {
		CHILD_CHECK(michi_devices_progress() >= 0, "progress failed: %s", michi_err_msg());
		CHILD_CHECK(michi_wtime() < end, "rank %d: timed out waiting for %s", my_rank, what);
		if (!cond(arg))
			michi_devices_block(5);
	}
}

static int cond_frames(void *arg)
{
	long *want = arg;   /* want[peer], -1 = any */
	int i;

	for (i = 0; i < MAXR; i++)
		if (want[i] >= 0 && frames_in[i] < want[i])
			return 0;
	return 1;
}

static void wait_frames_from(int peer, long n, double secs)
{
	long want[MAXR];
	int i;

	for (i = 0; i < MAXR; i++)
		want[i] = i == peer ? n : -1;
	wait_for(cond_frames, want, secs, "frames");
}

static int cond_sends(void *arg)
{
	return send_done_ok + send_done_err >= *(int *)arg;
}

static void rank_finalize(void)
{
	michi_status_t st = michi_devices_finalize();

	CHILD_CHECK(st == MICHI_OK, "rank %d finalize: %s", my_rank, michi_err_msg());
	CHILD_CHECK(failed_peer == -1, "rank %d: peer %d reported failed: %s", my_rank,
		    failed_peer, michi_err_msg());
}

/* Fork n ranks running fn; fail the test if any fails or runs past secs. */
static void run_ranks(int n, void (*fn)(int rank, int n), double secs)
{
	pid_t pid[MAXR];
	int i, left = n, status;
	double end;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert(sh != MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	sh->nproc = n;
	for (i = 0; i < n; i++) {
		pid[i] = fork();
		ck_assert(pid[i] >= 0);
		if (pid[i] == 0) {
			my_rank = i;
			alarm((unsigned)secs + 5);
			fn(i, n);
			_exit(0);
		}
	}
	end = michi_wtime() + secs;
	while (left > 0) {
		for (i = 0; i < n; i++) {
			if (pid[i] <= 0 || waitpid(pid[i], &status, WNOHANG) != pid[i])
				continue;
			ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
				      "rank %d failed (status %#x): %s", i, status, sh->msg[i]);
			pid[i] = 0;
			left--;
		}
		if (michi_wtime() > end) {
			for (i = 0; i < n; i++)
				if (pid[i] > 0)
					kill(pid[i], SIGKILL);
			ck_abort_msg("ranks did not finish within %g s", secs);
		}
		usleep(2000);
	}
	munmap(sh, sizeof(*sh));
}

/* ---- tests ------------------------------------------------------------ */

static const size_t sizes[] = { 0, 1, 48, 65535, 65537, 16u << 20 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void rank_sizes(int rank, int n)
{
	int peer = 1 - rank, inprog = 0, sent;
	size_t i;

	rank_init(rank, n, 7);
	CHILD_CHECK(michi_dev_for_peer[rank] == &michi_device_self, "own rank not on self");
	CHILD_CHECK(michi_dev_for_peer[peer] == &michi_device_tcp, "peer not on tcp");
	/* self delivers inside send */
	for (i = 0; i < NSIZES; i++) {
		CHILD_CHECK(send_frame(rank, sizes[i], 0) == MICHI_OK, "self send failed");
		CHILD_CHECK(frames_in[rank] == (long)i + 1, "self did not deliver synchronously");
	}
	for (i = 0; i < NSIZES; i++) {
		michi_status_t st = send_frame(peer, sizes[i], 0);

		CHILD_CHECK(st >= 0, "send of %zu bytes: %s", sizes[i], michi_err_msg());
		inprog += st == MICHI_INPROGRESS;
	}
	sent = inprog;
	wait_for(cond_sends, &sent, 20, "send completions");
	wait_frames_from(peer, NSIZES, 20);
	CHILD_CHECK(send_done_err == 0, "send_done reported errors");
	barrier();
	rank_finalize();
}

START_TEST(test_sizes)
{
	run_ranks(2, rank_sizes, 60);
}
END_TEST

#define NTINY 20000

static void rank_tiny(int rank, int n)
{
	int peer, i, inprog = 0;

	rank_init(rank, n, 7);
	for (i = 0; i < NTINY; i++) {
		for (peer = 0; peer < n; peer++) {
			michi_status_t st;

			if (peer == rank)
				continue;
			st = send_frame(peer, (size_t)(i % 17), 0);
			CHILD_CHECK(st >= 0, "tiny send %d: %s", i, michi_err_msg());
			inprog += st == MICHI_INPROGRESS;
		}
		if (i % 64 == 0)
			michi_devices_progress();
	}
	wait_for(cond_sends, &inprog, 30, "tiny send completions");
	for (peer = 0; peer < n; peer++)
		if (peer != rank)
			wait_frames_from(peer, NTINY, 30);
	barrier();
	rank_finalize();
}

START_TEST(test_many_tiny)
{
	run_ranks(3, rank_tiny, 90);
}
END_TEST

static void rank_truncate(int rank, int n)
{
	static const struct { size_t len; uint64_t capp1; } fr[] = {
		{ 100, 10 + 1 }, { 50, 0 }, { 200000, 1000 + 1 }, { 48, 0 },
		{ 1 << 20, 1 }, /* cap 0: the whole payload discarded */
		{ 3000000, 70000 + 1 }, { 65537, 0 }, { 10, 100 + 1 }, { 0, 5 },
	};
	size_t i, nf = sizeof(fr) / sizeof(fr[0]);
	int inprog = 0;

	rank_init(rank, n, 7);
	if (rank == 0) {
		for (i = 0; i < nf; i++) {
			michi_status_t st = send_frame(1, fr[i].len, fr[i].capp1);

			CHILD_CHECK(st >= 0, "send: %s", michi_err_msg());
			inprog += st == MICHI_INPROGRESS;
		}
		wait_for(cond_sends, &inprog, 20, "sends");
	} else {
		wait_frames_from(0, (long)nf, 20);
	}
	barrier();
	rank_finalize();
}

START_TEST(test_truncate)
{
	run_ranks(2, rank_truncate, 60);
}
END_TEST

static int cond_flag(void *arg)
{
	return __atomic_load_n((int *)arg, __ATOMIC_ACQUIRE) != 0;
}

/* The receiver stops reading for a while: the sender's large frame and
 * the small one behind it queue, and complete later in order. */
static void rank_late(int rank, int n)
{
	rank_init(rank, n, 7);
	if (rank == 0) {
		michi_status_t st;
		int want;

		CHILD_CHECK(send_frame(1, 8, 0) >= 0, "first send");
		wait_frames_from(1, 1, 10);  /* connection up both ways */
		want = send_done_ok + 2;
		st = send_frame(1, 16u << 20, 0);
		CHILD_CHECK(st == MICHI_INPROGRESS, "16 MiB send to a sleeping peer returned %d", st);
		st = send_frame(1, 4, 0);
		CHILD_CHECK(st == MICHI_INPROGRESS, "frame behind a queued one returned %d", st);
		michi_devices_progress();
		CHILD_CHECK(send_done_ok + send_done_err == want - 2, "send_done fired too early");
		__atomic_store_n(&sh->flag[0], 1, __ATOMIC_RELEASE);
		wait_for(cond_sends, &want, 20, "late sends");
		CHILD_CHECK(send_done_err == 0, "late send failed");
	} else {
		wait_frames_from(0, 1, 10);
		CHILD_CHECK(send_frame(0, 8, 0) >= 0, "ack send");
		/* do not read until the sender saw its queue build up */
		while (!cond_flag(&sh->flag[0]))
			usleep(1000);
		usleep(300000);
		wait_frames_from(0, 3, 20);
	}
	barrier();
	rank_finalize();
}

START_TEST(test_late_receiver)
{
	run_ranks(2, rank_late, 60);
}
END_TEST

static int count_sockets(void)
{
	char path[64], target[64];
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++) {
		ssize_t k;

		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		k = readlink(path, target, sizeof(target) - 1);
		if (k <= 0)
			continue;
		target[k] = '\0';
		n += strncmp(target, "socket:", 7) == 0;
	}
	return n;
}

/* Everyone connects to everyone at the same moment, with frames queued on
 * both sides of every pair before any connection exists. */
static void rank_simul(int rank, int n)
{
	int peer, i, inprog = 0;
	double end;

	rank_init(rank, n, 7);
	barrier();
	for (i = 0; i < 200; i++) {
		for (peer = 0; peer < n; peer++) {
			michi_status_t st;

			if (peer == rank)
				continue;
			st = send_frame(peer, (size_t)(i * 37 % 3000), 0);
			CHILD_CHECK(st >= 0, "send: %s", michi_err_msg());
			inprog += st == MICHI_INPROGRESS;
		}
	}
	wait_for(cond_sends, &inprog, 20, "sends");
	for (peer = 0; peer < n; peer++)
		if (peer != rank)
			wait_frames_from(peer, 200, 20);
	barrier();
	/* the losing sockets go once their reject arrives: one per peer
	 * plus the listener stay */
	end = michi_wtime() + 5;
	while ((i = count_sockets()) != n && michi_wtime() < end) {
		michi_devices_progress();
		usleep(1000);
	}
	/* nobody closes its connections before everybody has counted */
	barrier();
	CHILD_CHECK(i == n, "rank %d has %d sockets open, want %d", rank, i, n);
	rank_finalize();
}

START_TEST(test_simultaneous)
{
	run_ranks(4, rank_simul, 60);
}
END_TEST

static int card_port(int rank)
{
	char key[32], val[512], *colon;

	snprintf(key, sizeof(key), "tcp-%d", rank);
	CHILD_CHECK(fake_kvs_get(rank, key, val, sizeof(val)) == MICHI_OK, "no card %s", key);
	colon = strrchr(val, ':');
	return atoi(colon + 1);
}

static int raw_connect(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHILD_CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "raw connect: %m");
	return fd;
}

/* Expect the device to close fd within secs (EOF or reset). */
static void raw_expect_closed(int fd, double secs)
{
	struct timeval tv = { .tv_sec = (long)secs };
	char buf[256];
	ssize_t k;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	do {
		k = read(fd, buf, sizeof(buf));
	} while (k > 0);
	CHILD_CHECK(k == 0 || errno == ECONNRESET, "socket not closed by the device (%zd, %m)", k);
	close(fd);
}

/* Rank 2 belongs to another job (other key); garbage and a silent socket
 * hit rank 0 too. Ranks 0 and 1 must go on working. */
static void rank_badkey(int rank, int n)
{
	rank_init(rank, n, rank == 2 ? 9 : 7);
	if (rank == 2) {
		michi_status_t st = send_frame(0, 100, 0);
		int one = 1;

		CHILD_CHECK(st >= 0, "send: %s", michi_err_msg());
		wait_for(cond_sends, &one, 10, "rejection");
		CHILD_CHECK(send_done_err == 1, "frame to a foreign job was not failed");
		CHILD_CHECK(strstr(michi_err_msg(), "rejected"), "error says: %s", michi_err_msg());
		CHILD_CHECK(failed_peer == 0, "peer_failed not called for rank 0");
		__atomic_store_n(&sh->flag[2], 1, __ATOMIC_RELEASE);
		barrier();
		return;
	}
	if (rank == 1) {
		int fd = raw_connect(card_port(0));

		CHILD_CHECK(write(fd, "GET / HTTP/1.0\r\n\r\n", 18) == 18, "write");
		raw_expect_closed(fd, 5);
		fd = raw_connect(card_port(0));
		raw_expect_closed(fd, 5);  /* silent: handshake timeout */
		__atomic_store_n(&sh->flag[1], 1, __ATOMIC_RELEASE);
		CHILD_CHECK(send_frame(0, 1000, 0) >= 0, "send after garbage: %s", michi_err_msg());
		wait_frames_from(0, 1, 10);
	} else {
		wait_for(cond_flag, &sh->flag[1], 15, "garbage sockets");
		wait_for(cond_flag, &sh->flag[2], 15, "foreign rank");
		wait_frames_from(1, 1, 10);
		CHILD_CHECK(send_frame(1, 1000, 0) >= 0, "send: %s", michi_err_msg());
		CHILD_CHECK(frames_in[2] == 0, "took a frame from another job");
	}
	barrier();
	rank_finalize();
}

START_TEST(test_bad_key)
{
	setenv("MICHI_TCP_HANDSHAKE_TIMEOUT", "0.5", 1);
	run_ranks(3, rank_badkey, 60);
	unsetenv("MICHI_TCP_HANDSHAKE_TIMEOUT");
}
END_TEST

/* Rank 1 of 2 never starts; its card names a port nobody listens on. */
static void rank_dead(int rank, int n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	char card[64], want[128];
	int fd, one = 1, port;
	double t0, dt;
	michi_status_t st;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHILD_CHECK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "bind");
	getsockname(fd, (struct sockaddr *)&sa, &len);
	port = ntohs(sa.sin_port);
	close(fd);
	snprintf(card, sizeof(card), "127.0.0.1:%d", port);
	fake_kvs_put("tcp-1", card);
	rank_init(0, 2, 7);
	t0 = michi_wtime();
	st = send_frame(1, 10, 0);
	CHILD_CHECK(st == MICHI_INPROGRESS, "send to a dead port returned %d", st);
	wait_for(cond_sends, &one, 10, "connect failure");
	dt = michi_wtime() - t0;
	CHILD_CHECK(send_done_err == 1, "queued frame not failed");
	CHILD_CHECK(dt >= 0.9 && dt < 3, "gave up after %g s, timeout is 1 s", dt);
	snprintf(want, sizeof(want), "rank 0 cannot reach rank 1 at 127.0.0.1:%d: Connection refused (after 1",
		 port);
	CHILD_CHECK(strstr(michi_err_msg(), want), "error says '%s', want '%s...'",
		    michi_err_msg(), want);
	CHILD_CHECK(failed_peer == 1 && failed_st < 0, "peer_failed not called");
	t0 = michi_wtime();
	CHILD_CHECK(send_frame(1, 10, 0) < 0, "send to a failed peer did not fail");
	CHILD_CHECK(michi_wtime() - t0 < 0.1, "send to a failed peer hung");
	failed_peer = -1;
	michi_devices_finalize();
}

START_TEST(test_dead_port)
{
	setenv("MICHI_TCP_CONNECT_TIMEOUT", "1", 1);
	run_ranks(1, rank_dead, 30);
	unsetenv("MICHI_TCP_CONNECT_TIMEOUT");
}
END_TEST

/* Rank 1 exits in the middle of a stream: rank 0 hears of it. */
static void rank_exit(int rank, int n)
{
	rank_init(rank, n, 7);
	if (rank == 1) {
		wait_frames_from(0, 10, 10);
		_exit(0);
	}
	{
		double end = michi_wtime() + 10;
		michi_status_t st;

		while (failed_peer < 0) {
			/* may fail at once (EPIPE) or later; either way the upcall comes */
			send_frame(1, 5000, 0);
			michi_devices_progress();
			usleep(1000);
			CHILD_CHECK(michi_wtime() < end, "peer exit not noticed: %s", michi_err_msg());
		}
		CHILD_CHECK(failed_peer == 1 && failed_st < 0, "wrong peer failed");
		CHILD_CHECK(strstr(michi_err_msg(), "rank 0 lost its connection to rank 1 at 127.0.0.1:"),
			    "error says: %s", michi_err_msg());
		st = send_frame(1, 10, 0);
		CHILD_CHECK(st < 0, "send after failure returned %d", st);
		failed_peer = -1;
		michi_devices_finalize();
	}
}

START_TEST(test_peer_exit)
{
	run_ranks(2, rank_exit, 30);
}
END_TEST

static void rank_unknown_dev(int rank, int n)
{
	struct michi_job j = { .rank = 0, .size = 2, .local_size = 2, .kvs_put = fake_kvs_put,
			       .kvs_get = fake_kvs_get, .up = &fake_up };
	michi_status_t st = michi_devices_init(&j);

	CHILD_CHECK(st == MICHI_ERR_INVAL, "unknown device accepted (%d)", st);
	CHILD_CHECK(strstr(michi_err_msg(), "MICHI_DEVICE=bogus") &&
		    strstr(michi_err_msg(), "self, shm, tcp"), "error says: %s", michi_err_msg());
}

START_TEST(test_unknown_device)
{
	setenv("MICHI_DEVICE", "bogus", 1);
	run_ranks(1, rank_unknown_dev, 10);
	setenv("MICHI_DEVICE", "tcp", 1);
}
END_TEST

/* Every split of frames across reads: a byte stream of frames goes into a
 * socketpair in chunks of 1 to 300 bytes, the receive path runs after
 * each chunk, with a 4 KiB receive buffer. */
static void rank_splits(int rank, int n)
{
	size_t cap = 16 << 20, len = 0, off = 0, chunk;
	uint8_t *stream = malloc(cap);
	struct tcp_conn c;
	uint64_t seq;
	int sv[2];

	for (seq = 0; seq < 3000; seq++) {
		uint64_t plen = seq % 5 == 0 ? 0 : (seq * 97) % 9000;
		uint64_t capp1 = seq % 7 == 3 ? plen / 2 + 1 : 0;
		uint64_t h[6] = { plen, seq, 1, capp1, HMAGIC };
		uint64_t i;

		CHILD_CHECK(len + sizeof(h) + plen <= cap, "stream too long");
		memcpy(stream + len, h, sizeof(h));
		len += sizeof(h);
		for (i = 0; i < plen; i++)
			stream[len++] = pat(i, seq, 1);
	}
	CHILD_CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair: %m");
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	memset(&tcp, 0, sizeof(tcp));
	tcp.up = fake_up;
	tcp.rank = 0;
	tcp.size = 2;
	tcp.peers = calloc(2, sizeof(*tcp.peers));
	tcp_rbuf_size = 4096;
	memset(&c, 0, sizeof(c));
	c.fd = sv[0];
	c.state = TCP_CONN_UP;
	c.peer = 1;
	c.rbuf = malloc(tcp_rbuf_size);
	srand(12345);
	while (off < len) {
		chunk = off < 20000 ? 1 : (size_t)(rand() % 300) + 1;
		if (chunk > len - off)
			chunk = len - off;
		CHILD_CHECK(write(sv[1], stream + off, chunk) == (ssize_t)chunk, "write: %m");
		off += chunk;
		tcp_recv_event(&c);
		CHILD_CHECK(c.state == TCP_CONN_UP, "connection dropped at offset %zu", off);
	}
	CHILD_CHECK(frames_in[1] == 3000, "%ld frames of 3000 delivered", frames_in[1]);
	CHILD_CHECK(c.rpos == c.rlen && !c.rx_active, "bytes left over after the last frame");
	close(sv[1]);
	close(sv[0]);
	free(c.rbuf);
	free(stream);
}

START_TEST(test_splits)
{
	run_ranks(1, rank_splits, 30);
}
END_TEST

/* Interface choice for the business card. */
static void rank_iface(int rank, int n)
{
	char card[512];
	michi_status_t st;

	michi_tunables_load();
	st = tcp_iface_card(4242, 1, card, sizeof(card));
	CHILD_CHECK(st == MICHI_OK && strcmp(card, "127.0.0.1/8:4242") == 0,
		    "all-local card is '%s'", card);
	st = tcp_iface_card(4242, 0, card, sizeof(card));
	CHILD_CHECK(st == MICHI_OK, "default card: %s", michi_err_msg());
	CHILD_CHECK(!strstr(card, "127.0.0.1") || !strchr(card, ','),
		    "loopback advertised beside other addresses: %s", card);
	CHILD_CHECK(!strstr(card, "169.254."), "link-local advertised: %s", card);
}

static void rank_iface_forced(int rank, int n)
{
	char card[512];
	michi_status_t st;

	michi_tunables_load();
	st = tcp_iface_card(4242, 0, card, sizeof(card));
	CHILD_CHECK(st == MICHI_OK && strcmp(card, "127.0.0.1/8:4242") == 0,
		    "MICHI_TCP_IF=%s card is '%s'", getenv("MICHI_TCP_IF"), card);
}

static void rank_iface_none(int rank, int n)
{
	char card[512];
	michi_status_t st;

	michi_tunables_load();
	st = tcp_iface_card(4242, 0, card, sizeof(card));
	CHILD_CHECK(st == MICHI_ERR_INVAL, "nonexistent interface accepted: %s", card);
	CHILD_CHECK(strstr(michi_err_msg(), "MICHI_TCP_IF=nosuch0") &&
		    strstr(michi_err_msg(), "lo 127.0.0.1"), "error says: %s", michi_err_msg());
}

/* A card's address: "a.b.c.d[/len]:port", anything else refused. */
START_TEST(test_iface_parse)
{
	static const struct { const char *s; int ok, prefix; uint16_t port; } t[] = {
		{ "10.80.1.2/16:4242", 1, 16, 4242 },
		{ "10.80.1.2:4242", 1, 32, 4242 },   /* no prefix: the address alone */
		{ "127.0.0.1/8:1", 1, 8, 1 },
		{ "10.80.1.2/0:65535", 1, 0, 65535 },
		{ "10.80.1.2/33:4242", 0, 0, 0 },
		{ "10.80.1.2/:4242", 0, 0, 0 },
		{ "10.80.1.2/16x:4242", 0, 0, 0 },
		{ "10.80.1.2/16:", 0, 0, 0 },
		{ "10.80.1.2/16:70000", 0, 0, 0 },
		{ "10.80.1/16:4242", 0, 0, 0 },
		{ "no-address", 0, 0, 0 },
		{ "1.2.3.4/8/8:4242", 0, 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct sockaddr_in sa;
		int prefix = -1, ok = tcp_iface_parse(t[i].s, &sa, &prefix);

		ck_assert_msg(ok == t[i].ok, "'%s': parsed %d", t[i].s, ok);
		if (ok)
			ck_assert_msg(prefix == t[i].prefix && ntohs(sa.sin_port) == t[i].port,
				      "'%s': prefix %d port %u", t[i].s, prefix, ntohs(sa.sin_port));
	}
}
END_TEST

START_TEST(test_iface)
{
	run_ranks(1, rank_iface, 10);
	setenv("MICHI_TCP_IF", "lo", 1);
	run_ranks(1, rank_iface_forced, 10);
	/* a range no interface of a test machine has (TEST-NET-2), then loopback */
	setenv("MICHI_TCP_IF", "198.51.100.0/24,127.0.0.0/8", 1);
	run_ranks(1, rank_iface_forced, 10);
	setenv("MICHI_TCP_IF", "nosuch0", 1);
	run_ranks(1, rank_iface_none, 10);
	unsetenv("MICHI_TCP_IF");
}
END_TEST

/* A loopback address in the card of a rank on another host is useless. */
static void rank_remote_lo(int rank, int n)
{
	michi_status_t st;

	fake_kvs_put("tcp-1", "127.0.0.1:4242");
	host_of[1] = 1;
	rank_init(0, 2, 7);
	st = send_frame(1, 10, 0);
	CHILD_CHECK(st < 0, "send via another host's loopback returned %d", st);
	CHILD_CHECK(strstr(michi_err_msg(), "rank 0 cannot reach rank 1: its tcp card "
			   "'127.0.0.1:4242' has no address usable"), "error says: %s",
		    michi_err_msg());
	failed_peer = -1;
	michi_devices_finalize();
}

START_TEST(test_remote_loopback)
{
	run_ranks(1, rank_remote_lo, 10);
}
END_TEST

/* Rank 1 is a hand-written peer that speaks the wire protocol: it starts
 * listening late (rank 0 must retry refused connects), checks the hello,
 * takes one frame, answers one, says goodbye and closes. */
static void raw_read(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t k = read(fd, (char *)buf + got, len - got);

		CHILD_CHECK(k > 0, "raw peer: read: %zd %m", k);
		got += (size_t)k;
	}
}

static void rank_retry(int rank, int n)
{
	if (rank == 1) {
		struct sockaddr_in sa = { .sin_family = AF_INET };
		socklen_t len = sizeof(sa);
		struct tcp_hello h;
		struct tcp_reply r = { .magic = "MICHI", .version = TCP_VERSION, .rank = 1 };
		uint64_t fh[6], back[6] = { 5, 0, 1, 0, HMAGIC }, bye[6] = { UINT64_MAX };
		uint8_t key[16], pay[10], bpay[5];
		char card[64];
		int fd = socket(AF_INET, SOCK_STREAM, 0), c, i;
		struct timeval tv = { .tv_sec = 5 };

		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		CHILD_CHECK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "bind");
		getsockname(fd, (struct sockaddr *)&sa, &len);
		snprintf(card, sizeof(card), "127.0.0.1:%d", ntohs(sa.sin_port));
		fake_kvs_put("tcp-1", card);
		barrier();
		usleep(400000);  /* bound, not listening: connects are refused */
		CHILD_CHECK(listen(fd, 4) == 0, "listen");
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		c = accept(fd, NULL, NULL);
		CHILD_CHECK(c >= 0, "raw peer: nobody connected: %m");
		setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		raw_read(c, &h, sizeof(h));
		memset(key, 7, sizeof(key));
		CHILD_CHECK(sizeof(h) == 48 && memcmp(h.magic, "MICHI", 6) == 0 && h.version == TCP_VERSION &&
			    h.bom == 0x01020304 && memcmp(h.key, key, 16) == 0 && h.rank == 0,
			    "bad hello");
		CHILD_CHECK(write(c, &r, sizeof(r)) == sizeof(r), "reply");
		raw_read(c, fh, sizeof(fh));
		CHILD_CHECK(fh[0] == 10 && fh[1] == 0 && fh[2] == 0 && fh[4] == HMAGIC, "bad frame");
		raw_read(c, pay, sizeof(pay));
		for (i = 0; i < 10; i++)
			CHILD_CHECK(pay[i] == pat((uint64_t)i, 0, 0), "bad payload");
		for (i = 0; i < 5; i++)
			bpay[i] = pat((uint64_t)i, 0, 1);
		CHILD_CHECK(write(c, back, sizeof(back)) == sizeof(back) &&
			    write(c, bpay, 5) == 5 && write(c, bye, sizeof(bye)) == sizeof(bye),
			    "raw peer: write");
		close(c);
		close(fd);
		return;
	}
	{
		double t0, dt;
		int one = 1;
		michi_status_t st;

		rank_init(0, 2, 7);
		t0 = michi_wtime();
		CHILD_CHECK(send_frame(1, 10, 0) == MICHI_INPROGRESS, "first send not queued");
		wait_for(cond_sends, &one, 10, "connect with retries");
		dt = michi_wtime() - t0;
		CHILD_CHECK(send_done_ok == 1, "queued frame failed: %s", michi_err_msg());
		CHILD_CHECK(dt > 0.3, "connected after %g s to a peer listening after 0.4 s", dt);
		wait_frames_from(1, 1, 10);
		t0 = michi_wtime();
		do {
			michi_devices_progress();
			st = send_frame(1, 10, 0);
			CHILD_CHECK(michi_wtime() - t0 < 5, "peer's goodbye not seen");
		} while (st >= 0);
		CHILD_CHECK(strstr(michi_err_msg(), "rank 0 cannot send to rank 1: it has finalized"),
			    "error says: %s", michi_err_msg());
		michi_devices_progress();
		CHILD_CHECK(failed_peer == -1, "orderly close reported as failure");
		michi_devices_finalize();
	}
}

START_TEST(test_retry_and_wire)
{
	run_ranks(2, rank_retry, 30);
}
END_TEST

/* Finalize right after queueing a large frame: finalize flushes it. */
static void rank_fin_flush(int rank, int n)
{
	rank_init(rank, n, 7);
	CHILD_CHECK(michi_dev_for_peer[1 - rank] == &michi_device_tcp, "MICHI_DEVICE=tcp ignored");
	if (rank == 0) {
		michi_status_t st = send_frame(1, 16u << 20, 0);
		michi_status_t st2 = send_frame(1, 100, 0);

		CHILD_CHECK(st == MICHI_INPROGRESS && st2 == MICHI_INPROGRESS,
			    "sends before any connection returned %d %d", st, st2);
		rank_finalize();
		CHILD_CHECK(send_done_ok == 2, "finalize did not flush (%d done, %d failed)",
			    send_done_ok, send_done_err);
	} else {
		wait_frames_from(0, 2, 20);
		rank_finalize();
	}
}

START_TEST(test_finalize_flush)
{
	run_ranks(2, rank_fin_flush, 30);
}
END_TEST

/* A rank blocked in michi_devices_block wakes when a peer connects and
 * when a frame arrives, long before its timeout. */
static void rank_block(int rank, int n)
{
	rank_init(rank, n, 7);
	barrier();
	if (rank == 0) {
		usleep(200000);
		CHILD_CHECK(send_frame(1, 10, 0) >= 0, "send: %s", michi_err_msg());
		wait_frames_from(1, 1, 10);
	} else {
		double t0 = michi_wtime();

		while (frames_in[0] == 0) {
			michi_devices_block(5000);
			michi_devices_progress();
			CHILD_CHECK(michi_wtime() - t0 < 2, "block slept through the traffic");
		}
		CHILD_CHECK(send_frame(0, 10, 0) >= 0, "send: %s", michi_err_msg());
	}
	barrier();
	rank_finalize();
}

START_TEST(test_block_wakes)
{
	run_ranks(2, rank_block, 30);
}
END_TEST

/*
 * The shm ring's stamps (shm.h): a record whose payload ends 1 byte into
 * a cell after its first leaves that cell's first word half payload and
 * half an older stamp. Laid out on a 64-cell ring so that, a lap later,
 * that word reads as a one-cell record at exactly the position the
 * receiver waits at (the payload byte is chosen with the ring's key):
 * the consumer must have cleared it, or it takes a stale header.
 */
#define RING_CELLS 64
static void rank_shm_stamp(int rank, int n)
{
	const uint64_t q = 20, part = q + RING_CELLS, next = part + RING_CELLS;
	uint64_t i;

	unsetenv("MICHI_DEVICE");
	setenv("MICHI_SHM_RING_SIZE", "4096", 1);
	rank_init(rank, n, 7);
	CHILD_CHECK(michi_dev_for_peer[1 - rank] == &michi_device_shm, "peer not on shm");
	if (rank == 0) {
		struct shm_tx *t = &shm.tx[1];
		/* the low byte that makes stamp(q, 1) read as stamp(next, 1) */
		uint8_t b = (uint8_t)((next ^ t->key) & 0xff);

		CHILD_CHECK(t->ncells == RING_CELLS, "ring has %llu cells",
			    (unsigned long long)t->ncells);
		/* one-cell frames up to the two-cell one whose second cell is q's */
		for (i = 0; i + 1 < part; i++)
			CHILD_CHECK(send_frame(1, 0, 0) >= 0, "send: %s", michi_err_msg());
		/* 56 bytes of stamp and header, 9 of payload: the last one is
		 * byte 0 of the cell at part */
		CHILD_CHECK(send_frame_x(1, SHM_CELL - SHM_FIRST_HDR + 1, 0,
					 (uint8_t)(b ^ pat(SHM_CELL - SHM_FIRST_HDR, send_seq[1], 0)))
			    >= 0, "send: %s", michi_err_msg());
		for (i = part + 1; i < next; i++)
			CHILD_CHECK(send_frame(1, 0, 0) >= 0, "send: %s", michi_err_msg());
		barrier();   /* progresses: the receiver takes all, then looks at next */
		barrier();
		CHILD_CHECK(send_frame(1, 5, 0) >= 0, "send: %s", michi_err_msg());
	} else {
		double end;

		wait_frames_from(0, (long)next - 1, 20);
		barrier();
		/* nothing may arrive while the sender is quiet */
		end = michi_wtime() + 0.2;
		while (michi_wtime() < end)
			CHILD_CHECK(michi_devices_progress() >= 0, "progress: %s", michi_err_msg());
		CHILD_CHECK(frames_in[0] == (long)next - 1, "%ld frames where %llu were sent",
			    frames_in[0], (unsigned long long)next - 1);
		barrier();
		wait_frames_from(0, (long)next, 10);
	}
	barrier();
	rank_finalize();
}

START_TEST(test_shm_stale_stamp)
{
	run_ranks(2, rank_shm_stamp, 30);
}
END_TEST

static Suite *tcp_suite(void)
{
	Suite *s = suite_create("tcp");
	TCase *tc = tcase_create("framing");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_sizes);
	tcase_add_test(tc, test_many_tiny);
	tcase_add_test(tc, test_truncate);
	tcase_add_test(tc, test_late_receiver);
	tcase_add_test(tc, test_simultaneous);
	tcase_add_test(tc, test_bad_key);
	tcase_add_test(tc, test_dead_port);
	tcase_add_test(tc, test_peer_exit);
	tcase_add_test(tc, test_unknown_device);
	tcase_add_test(tc, test_splits);
	tcase_add_test(tc, test_iface_parse);
	tcase_add_test(tc, test_iface);
	tcase_add_test(tc, test_remote_loopback);
	tcase_add_test(tc, test_retry_and_wire);
	tcase_add_test(tc, test_finalize_flush);
	tcase_add_test(tc, test_block_wakes);
	tcase_add_test(tc, test_shm_stale_stamp);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	/* these tests follow queued frames through send_done: keep frames
	 * for a connection still opening zero-copy (the MPI tests cover the
	 * default, which copies eager frames and completes them at once) */
	setenv("MICHI_TCP_CONNECT_COPY", "0", 1);
	/* every "rank" here says it shares one host: tcp all the same */
	setenv("MICHI_DEVICE", "tcp", 1);
	sr = srunner_create(tcp_suite());

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
