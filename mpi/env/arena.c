/* SPDX-License-Identifier: MIT */
/*
 * mpi/env/arena.c: the object arena and its per-kind slabs.
 *
 * One 4 GiB-aligned window of address space is reserved (PROT_NONE) at
 * init; its upper 2 GiB are split into 16 regions of 128 MiB, one per
 * object kind (mpiimpl.h explains why handles then need no lookup table).
 * Pages are committed on demand as a slab's bump pointer crosses them;
 * freed objects go on the kind's free stack and are reused first, so both
 * allocation and release are O(1).
 */
#include "mpiimpl.h"

#include <errno.h>
#include <sys/mman.h>

uintptr_t michi_arena_hi;
struct michi_slab michi_slabs[MICHI_KIND_MAX];

static void *arena_map;
static size_t arena_map_len;

#define ARENA_WINDOW   (1ull << 32)
#define ARENA_COMMIT   (64u * 1024)   /* commit granularity */

/* Object size per kind, a power of two: keeps the alignment check a mask. */
static const uint32_t kind_objsize[MICHI_KIND_MAX] = {
	[MICHI_KIND_REQUEST] = 256,
	[MICHI_KIND_COMM] = 512,
	[MICHI_KIND_GROUP] = 128,
	[MICHI_KIND_DATATYPE] = 256,
	[MICHI_KIND_OP] = 64,
	[MICHI_KIND_INFO] = 64,
	[MICHI_KIND_ERRHANDLER] = 64,
	[MICHI_KIND_KEYVAL] = 64,
	[MICHI_KIND_WIN] = 512,
	[MICHI_KIND_MESSAGE] = 64,
	[MICHI_KIND_FILE] = 512,
};

michi_status_t michi_arena_init(void)
{
	uintptr_t base, win;
	int k;

	if (arena_map)
		return MICHI_OK;
	/* Reserve twice the window so that an aligned window fits inside; the
	 * reservation costs address space only. */
	arena_map_len = 2 * ARENA_WINDOW;
	arena_map = mmap(NULL, arena_map_len, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (arena_map == MAP_FAILED) {
		arena_map = NULL;
		return michi_err(MICHI_ERR_NOMEM,
				 "cannot reserve the 8 GiB object arena: %s", strerror(errno));
	}
	base = (uintptr_t)arena_map;
	win = (base + ARENA_WINDOW - 1) & ~(uintptr_t)(ARENA_WINDOW - 1);
	michi_arena_hi = win;
	for (k = 0; k < MICHI_KIND_MAX; k++) {
		struct michi_slab *s = &michi_slabs[k];
		char *region = (char *)(win | MICHI_HANDLE_USER |
					((uintptr_t)k << MICHI_REGION_SHIFT));

		s->base = s->bump = s->commit_end = region;
		s->end = region + (MICHI_REGION_MASK + 1);
		s->objsize = kind_objsize[k];
		s->objmask = s->objsize ? s->objsize - 1 : 0;
		s->free = NULL;
		s->live = 0;
		/* The first object of each region is never handed out, so no
		 * handle equals the region's base (0x80000000 looks like a
		 * plausible "zero" handle to confused callers). */
		if (s->objsize)
			s->bump += s->objsize;
	}
	return MICHI_OK;
}

void *michi_slab_grow(struct michi_slab *s, int kind)
{
	char *o = s->bump;

	if (unlikely(s->objsize == 0 || kind == MICHI_KIND_RESERVED)) {
		michi_err(MICHI_ERR_INTERN, "no slab for object kind %d", kind);
		return NULL;
	}
	if (o + s->objsize > s->end) {
		michi_err(MICHI_ERR_NOMEM, "too many live objects of kind %d (%zu)",
			  kind, s->live);
		return NULL;
	}
	if (o + s->objsize > s->commit_end) {
		size_t len = ARENA_COMMIT;

		if (mprotect(s->commit_end, len, PROT_READ | PROT_WRITE) != 0) {
			michi_err(MICHI_ERR_NOMEM, "cannot commit arena pages: %s",
				  strerror(errno));
			return NULL;
		}
		s->commit_end += len;
	}
	s->bump = o + s->objsize;
	return o;
}
