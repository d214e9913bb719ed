/* SPDX-License-Identifier: MIT */
/*
 * devices/shm/shm_seg.c: the per-host segment: who creates it, its
 * layout, mapping the rings, and removing its name.
 *
 * After the job's fence every rank knows the job key and which ranks
 * share its host (the host map from the business cards). The local ranks
 * race to create /michi-<hash of key>-<host index> with O_EXCL and mode
 * 0600; the winner sizes it (shrinking the rings to what /dev/shm can
 * hold), reserves its memory so that a full /dev/shm fails here with a
 * message instead of SIGBUS later, lays it out and marks it ready; the
 * others wait for that. Each rank counts itself in as attached and the
 * last one unlinks the name, so after startup nothing is left in
 * /dev/shm whatever becomes of the job (the launcher's proxy also removes
 * it if the job dies during startup). Layout: header, one struct
 * shm_proc per local rank, one struct shm_ring_ctl per ordered pair, then
 * the rings' cells, page aligned, ring (r <- s) at index
 * r * (n-1) + (s < r ? s : s-1).
 */
#include "config.h"
#include "shm.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define SHM_MAGIC 0x4d49434849534d31ull   /* "MICHISM1" */
#define SHM_VERSION 1

static size_t shm_ring_size = 65536;
MICHI_TUNABLE(shm_ring_size, "shm_ring_size", MICHI_T_SIZE, "64k", MICHI_LEVEL_TUNER,
	      "bytes of each ring between two ranks of a host (a power of two, at least "
	      "a page; shrunk when /dev/shm is too small)");
static size_t shm_rings_max = (size_t)512 << 20;
MICHI_TUNABLE(shm_rings_max, "shm_rings_max", MICHI_T_SIZE, "512m", MICHI_LEVEL_TUNER,
	      "most bytes the rings of one host's segment take: with many local ranks "
	      "(n * (n - 1) rings) each ring shrinks to fit, not below a page");
static double shm_attach_timeout = 60.0;
MICHI_TUNABLE(shm_attach_timeout, "shm_attach_timeout", MICHI_T_DOUBLE, "60",
	      MICHI_LEVEL_TUNER,
	      "seconds a rank waits for the host's shared segment to be created");

static char seg_name[64];
static size_t seg_page;

/* Uniquely this job's and host's; the key itself stays secret. */
static void seg_make_name(const struct michi_job *job)
{
	char prefix[48];

	michi_shm_prefix(job->key, prefix, sizeof(prefix));
	snprintf(seg_name, sizeof(seg_name), "/%s%d", prefix, job->host_of[job->rank]);
}

static inline size_t page_align(size_t n)
{
	return (n + seg_page - 1) & ~(seg_page - 1);
}

static size_t seg_ctl_bytes(int n)
{
	return page_align(SHM_CELL) +
	       page_align((size_t)n * sizeof(struct shm_proc) +
			  (size_t)n * (n - 1) * sizeof(struct shm_ring_ctl));
}

static struct shm_proc *seg_procs(void *ctl)
{
	return (struct shm_proc *)((char *)ctl + page_align(SHM_CELL));
}

static struct shm_ring_ctl *seg_ring_ctl(void *ctl, int n, int idx)
{
	return (struct shm_ring_ctl *)((char *)seg_procs(ctl) +
				       (size_t)n * sizeof(struct shm_proc)) + idx;
}

static int ring_index(int n, int r, int s)
{
	return r * (n - 1) + (s < r ? s : s - 1);
}

static int is_pow2(size_t v)
{
	return v && !(v & (v - 1));
}

/* Ring size the creator picks: the tunable, halved until the rings fit
 * in shm_rings_max (the rings grow with the square of the local ranks:
 * 256 ranks of 64 KiB rings would take 4 GiB of memory) and in half of
 * what /dev/shm has free (other jobs live there too). */
static michi_status_t seg_pick_ring(int n, size_t *ring)
{
	size_t rb = shm_ring_size, nrings = (size_t)n * (n - 1), ctl = seg_ctl_bytes(n);
	struct statvfs sv;

	if (!is_pow2(rb) || rb < seg_page || rb > (size_t)SHM_MAX_REC_CELLS * SHM_CELL + 1)
		return michi_err(MICHI_ERR_INVAL, "MICHI_SHM_RING_SIZE=%zu: must be a power "
				 "of two from %zu to 4 MiB", rb, seg_page);
	while (rb > seg_page && nrings * rb > shm_rings_max)
		rb /= 2;
	if (rb < shm_ring_size)
		michi_info("shm: rings shrunk to %zu bytes for %d local ranks "
			   "(MICHI_SHM_RINGS_MAX=%zu)", rb, n, shm_rings_max);
	if (statvfs("/dev/shm", &sv) == 0) {
		size_t avail = (size_t)sv.f_bavail * sv.f_frsize / 2, rb0 = rb;

		while (rb > seg_page && ctl + nrings * rb > avail)
			rb /= 2;
		if (ctl + nrings * rb > avail)
			return michi_err(MICHI_ERR_NOMEM, "shm: /dev/shm has %zu KiB free, the "
					 "segment for %d ranks needs %zu KiB even with the "
					 "smallest rings; free /dev/shm or use MICHI_DEVICE=tcp",
					 avail * 2 / 1024, n, (ctl + nrings * rb) / 1024);
		if (rb < rb0)
			michi_info("shm: rings shrunk to %zu bytes to fit /dev/shm", rb);
	}
	*ring = rb;
	return MICHI_OK;
}

static michi_status_t seg_create(int fd, int n, void **ctl_out)
{
	struct shm_seg_hdr *h;
	size_t rb = 0, ctl_bytes = seg_ctl_bytes(n), size;
	michi_status_t st;
	void *ctl;
	int i, e;

	st = seg_pick_ring(n, &rb);
	if (st)
		return st;
	size = ctl_bytes + (size_t)n * (n - 1) * rb;
	if (ftruncate(fd, (off_t)size) != 0)
		return michi_err(MICHI_ERR_IO, "shm: cannot size %s to %zu bytes: %s",
				 seg_name, size, strerror(errno));
	e = posix_fallocate(fd, 0, (off_t)size);
	if (e != 0)
		return michi_err(e == ENOSPC ? MICHI_ERR_NOMEM : MICHI_ERR_IO,
				 "shm: cannot reserve %zu KiB in /dev/shm for %s: %s "
				 "(free /dev/shm, lower MICHI_SHM_RING_SIZE or use MICHI_DEVICE=tcp)",
				 size / 1024, seg_name, strerror(e));
	ctl = mmap(NULL, ctl_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ctl == MAP_FAILED)
		return michi_err(MICHI_ERR_IO, "shm: cannot map %s: %s", seg_name, strerror(errno));
	h = ctl;
	h->magic = SHM_MAGIC;
	h->version = SHM_VERSION;
	h->nlocal = (uint32_t)n;
	h->ring_bytes = rb;
	h->size = size;
	h->ctl_bytes = ctl_bytes;
	for (i = 0; i < n * (n - 1); i++) {
		uint64_t key;

		if (getrandom(&key, sizeof(key), 0) != (ssize_t)sizeof(key))
			key = (uint64_t)i * 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
		seg_ring_ctl(ctl, n, i)->key = key;
	}
	atomic_store_explicit(&h->ready, 1, memory_order_release);
	*ctl_out = ctl;
	return MICHI_OK;
}

/* Another local rank creates it: wait until it is laid out. */
static michi_status_t seg_open_wait(int n, int *fd_out, void **ctl_out)
{
	double deadline = michi_wtime() + shm_attach_timeout;
	struct shm_seg_hdr *h = NULL;
	/* from 0.1 ms up to 10 ms: with a few hundred ranks on a few cores,
	 * fast polling would starve the creator that they wait for */
	struct timespec nap = { 0, 100000 };
	struct stat sb;
	int fd = -1;

	for (;;) {
		if (fd < 0)
			fd = shm_open(seg_name, O_RDWR, 0600);
		if (fd >= 0 && !h && fstat(fd, &sb) == 0 && (size_t)sb.st_size >= seg_page) {
			h = mmap(NULL, seg_page, PROT_READ, MAP_SHARED, fd, 0);
			if (h == MAP_FAILED)
				h = NULL;
		}
		if (h && atomic_load_explicit(&h->ready, memory_order_acquire))
			break;
		if (michi_wtime() > deadline) {
			if (h)
				munmap(h, seg_page);
			if (fd >= 0)
				close(fd);
			return michi_err(MICHI_ERR_IO, "shm: the segment %s of this host was not "
					 "ready within %g s (a local rank died during startup?)",
					 seg_name, shm_attach_timeout);
		}
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 10000000)
			nap.tv_nsec += nap.tv_nsec / 4 + 1;
	}
	if (h->magic != SHM_MAGIC || h->version != SHM_VERSION || h->nlocal != (uint32_t)n) {
		michi_status_t st = michi_err(MICHI_ERR_INTERN, "shm: segment %s has another "
					      "layout (%u ranks, version %u; expected %d, %d)",
					      seg_name, h->nlocal, h->version, n, SHM_VERSION);
		munmap(h, seg_page);
		close(fd);
		return st;
	}
	*ctl_out = mmap(NULL, h->ctl_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	munmap(h, seg_page);
	if (*ctl_out == MAP_FAILED) {
		close(fd);
		return michi_err(MICHI_ERR_IO, "shm: cannot map %s: %s", seg_name, strerror(errno));
	}
	*fd_out = fd;
	return MICHI_OK;
}

/* Map ring idx twice back to back: records may run past the end. */
static char *ring_map(int fd, size_t off, size_t rb, int prot)
{
	char *base = mmap(NULL, 2 * rb, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (base == MAP_FAILED)
		return NULL;
	if (mmap(base, rb, prot, MAP_SHARED | MAP_FIXED, fd, (off_t)off) == MAP_FAILED ||
	    mmap(base + rb, rb, prot, MAP_SHARED | MAP_FIXED, fd, (off_t)off) == MAP_FAILED) {
		munmap(base, 2 * rb);
		return NULL;
	}
	return base;
}

static michi_status_t seg_map_rings(int fd, const struct michi_job *job, int *locals)
{
	int n = shm.nlocal, me = shm.my_local, p;
	size_t rb = shm.ring_bytes;
	uint64_t ncells = rb >> SHM_CELL_SHIFT;

	shm.nrx = 0;
	for (p = 0; p < n; p++) {
		struct shm_tx *t;
		struct shm_rx *r;
		int out, in;

		if (p == me)
			continue;
		out = ring_index(n, p, me);
		in = ring_index(n, me, p);
		t = &shm.tx[locals[p]];
		t->cells = ring_map(fd, shm.ctl_bytes + (size_t)out * rb, rb, PROT_READ | PROT_WRITE);
		r = &shm.rx[shm.nrx];
		/* writable: the consumer clears half-stale stamp words (shm.h) */
		r->cells = ring_map(fd, shm.ctl_bytes + (size_t)in * rb, rb,
				    PROT_READ | PROT_WRITE);
		if (!t->cells || !r->cells)
			return michi_err(MICHI_ERR_IO, "shm: cannot map the rings with rank %d: %s",
					 locals[p], strerror(errno));
		t->ctl = seg_ring_ctl(shm.ctl, n, out);
		t->key = t->ctl->key;
		t->ncells = ncells;
		t->mask = ncells - 1;
		t->tail = t->head_cache = 0;
		t->limit = ncells;
		/* in-place frames stay within the eager limit (device.h) */
		t->first_max = shm_chunk_bytes(rb) - SHM_FIRST_HDR;
		if (t->first_max > michi_device_shm.eager_limit)
			t->first_max = michi_device_shm.eager_limit;
		t->fast_lim = t->first_max + 1;
		t->peer = &shm.procs[p];
		r->ctl = seg_ring_ctl(shm.ctl, n, in);
		r->key = r->ctl->key;
		r->mask = ncells - 1;
		r->head = 0;
		r->peer = locals[p];
		shm.nrx++;
	}
	(void)job;
	return MICHI_OK;
}

static uint64_t shm_probe_word;

michi_status_t shm_seg_attach(struct michi_job *job)
{
	int *locals, i, n = 0, fd, created = 0;
	michi_status_t st;
	void *ctl = NULL;

	seg_page = (size_t)sysconf(_SC_PAGESIZE);
	locals = malloc((size_t)job->size * sizeof(int));
	shm.local_of = malloc((size_t)job->size * sizeof(int));
	if (!locals || !shm.local_of) {
		free(locals);
		return michi_err(MICHI_ERR_NOMEM, "shm: no memory for the host's rank list");
	}
	for (i = 0; i < job->size; i++) {
		shm.local_of[i] = -1;
		if (job->host_of[i] != job->host_of[job->rank])
			continue;
		if (i == job->rank)
			shm.my_local = n;
		shm.local_of[i] = n;
		locals[n++] = i;
	}
	shm.nlocal = n;
	shm.nworld = job->size;
	if (n < 2) {
		free(locals);
		return MICHI_OK;
	}
	shm.rx = calloc((size_t)n - 1, sizeof(*shm.rx));
	if (!shm.tx || !shm.rx) {
		free(locals);
		return michi_err(MICHI_ERR_NOMEM, "shm: no memory for %d rings", 2 * (n - 1));
	}
	seg_make_name(job);
	fd = shm_open(seg_name, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd >= 0) {
		created = 1;
		st = seg_create(fd, n, &ctl);
	} else if (errno == EEXIST) {
		st = seg_open_wait(n, &fd, &ctl);
	} else {
		st = michi_err(MICHI_ERR_IO, "shm: cannot create %s: %s", seg_name,
			       strerror(errno));
	}
	if (st)
		goto err;
	shm.ctl = ctl;
	shm.ctl_bytes = ((struct shm_seg_hdr *)ctl)->ctl_bytes;
	shm.ring_bytes = ((struct shm_seg_hdr *)ctl)->ring_bytes;
	shm.procs = seg_procs(ctl);
	shm.me = &shm.procs[shm.my_local];
	shm_probe_word = 0x50524f4245ull ^ (uint64_t)getpid();
	shm.me->probe_addr = (uintptr_t)&shm_probe_word;
	shm.me->probe_val = shm_probe_word;
	shm.me->world_rank = job->rank;
	/* senders check for sleepers only where a receiver may sleep; peers
	 * read this to know whether we do */
	shm.wake = michi_wait.may_block;
	shm.me->wakes = shm.wake;
	atomic_store_explicit((_Atomic int32_t *)&shm.me->pid, getpid(), memory_order_release);
	st = seg_map_rings(fd, job, locals);
	if (st)
		goto err;
	if (atomic_fetch_add(&((struct shm_seg_hdr *)ctl)->attached, 1) + 1 == (uint32_t)n)
		shm_unlink(seg_name);
	close(fd);
	free(locals);
	michi_debug("shm: %s %s, %d local ranks, rings of %zu bytes", created ? "created" :
		    "attached to", seg_name, n, shm.ring_bytes);
	return MICHI_OK;

err:
	/* the others will time out on a segment that never becomes ready;
	 * the name goes now so that nothing is left behind */
	if (fd >= 0) {
		if (created)
			shm_unlink(seg_name);
		close(fd);
	}
	free(locals);
	return st;
}

void shm_seg_detach(void)
{
	int i;

	if (!shm.ctl)
		return;
	for (i = 0; i < shm.nrx; i++)
		if (shm.rx[i].cells)
			munmap((void *)shm.rx[i].cells, 2 * shm.ring_bytes);
	for (i = 0; shm.local_of && i < shm.nworld; i++)
		if (shm.tx[i].cells)
			munmap(shm.tx[i].cells, 2 * shm.ring_bytes);
	munmap(shm.ctl, shm.ctl_bytes);
	shm.ctl = NULL;
}
