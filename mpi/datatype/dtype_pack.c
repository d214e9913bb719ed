/* SPDX-License-Identifier: MIT */
/*
 * mpi/datatype/dtype_pack.c: packing and unpacking by the flattened runs, the
 * element count of a partly filled datatype, and MPI_Pack, MPI_Unpack and
 * MPI_Pack_size.
 *
 * The packed form of a datatype is its data in typemap order with no
 * gaps; point-to-point sends exactly these bytes, so MPI_PACKED data and
 * typed data match on the wire as MPI requires. A run is copied block by
 * block with the copy inlined for the common element-sized blocks (4, 8
 * and 16 bytes), and with memcpy above; a contiguous type is one memcpy.
 * Large MPI_Pack and MPI_Unpack calls stream (below).
 */
#include "dtype.h"
#include "pt2pt.h"

/* One block of n bytes, n < 64: two overlapping moves of the largest
 * width that fits, no call. */
static inline void copy_small(char *d, const char *s, size_t n)
{
	if (n >= 16) {
		size_t i;

		for (i = 0; i + 16 < n; i += 16)
			__builtin_memcpy(d + i, s + i, 16);
		__builtin_memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		__builtin_memcpy(d, s, 8);
		__builtin_memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		__builtin_memcpy(d, s, 4);
		__builtin_memcpy(d + n - 4, s + n - 4, 4);
	} else if (n) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

/* One block of n bytes, a multiple of 16 up to 1 KiB: 16-byte moves in a
 * loop the compiler unrolls, cheaper than a call per block. */
static inline void copy_mid(char *d, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 16)
		__builtin_memcpy(d + i, s + i, 16);
}

/* Copy the count blocks of len bytes of one run, between the typed side
 * (stride apart) and the packed side (back to back). */
static inline void run_copy(char *typed, MPI_Aint stride, size_t len, MPI_Count count,
			    char *packed, int pack)
{
	MPI_Count j;

#define RUN_LOOP(copy) \
	do { \
		if (pack) \
			for (j = 0; j < count; j++, typed += stride, packed += len) \
				copy(packed, typed, len); \
		else \
			for (j = 0; j < count; j++, typed += stride, packed += len) \
				copy(typed, packed, len); \
	} while (0)
	switch (len) {
	case 4:
		RUN_LOOP(__builtin_memcpy);
		return;
	case 8:
		RUN_LOOP(__builtin_memcpy);
		return;
	case 16:
		RUN_LOOP(__builtin_memcpy);
		return;
	}
	if (len < 64)
		RUN_LOOP(copy_small);
	else if (len <= 1024 && len % 16 == 0)
		RUN_LOOP(copy_mid);
	else
		RUN_LOOP(memcpy);
#undef RUN_LOOP
}

/*
 * Streaming: an MPI_Pack or MPI_Unpack of at least dt_stream_bytes writes
 * its output with non-temporal stores and, when packing, prefetches the
 * typed blocks a few KiB ahead. Output that large would not stay in the
 * core's caches anyway; the plain copy would first read every destination
 * line (write-allocate), and the hardware prefetcher loses the stream at
 * each gap between blocks: together they held a pack of 256-byte blocks
 * to under half the bandwidth of one memcpy of the same bytes. The
 * staging of point-to-point never streams: its reader, the device's copy
 * or a peer process, wants the bytes in the shared cache, and streaming
 * there doubled the time of an 8 MiB vector transfer.
 */
static size_t dt_stream_bytes = 1 << 20;
MICHI_TUNABLE(dt_stream_bytes, "dt_stream_bytes", MICHI_T_SIZE, "1m", MICHI_LEVEL_TUNER,
	      "packs and unpacks of at least this many bytes bypass the cache for their output "
	      "(0: never)");

/*
 * How far ahead packing prefetches, in bytes of typed blocks, and into
 * which cache. Blocks of at least 512 bytes, a multiple of 16, packed to
 * a 16-byte aligned buffer prefetch twice as far and only into L2
 * (prefetcht2): on the 2-core AMD EPYC VM of BENCH.md a pack of 8 MiB in
 * 512-byte blocks went from 0.66 to 0.78-0.83 of memcpy's bandwidth,
 * 1 KiB blocks from 0.72 to 0.86-0.87, 2 KiB from 0.84 to 0.87-0.88
 * (bench/results/2026-11-27-packratio-2ranks-l2*); for 256-byte blocks
 * prefetcht2 or prefetcht1 at 2 to 32 KiB cost a third or more (0.48-0.62
 * against 0.78 in a scratch kernel), so they and all other blocks keep
 * prefetcht0 at half the distance.
 */
#define STREAM_AHEAD 4096	/* prefetcht0 */
#define STREAM_AHEAD_L2 8192	/* prefetcht2, blocks of at least STREAM_L2_BLOCK */
#define STREAM_L2_BLOCK 512
#define STREAM_HEAD 4096	/* bytes prefetched of each block ahead */

#if defined(__SSE2__)
#include <emmintrin.h>

/* n bytes to d with non-temporal stores where d's alignment allows. */
static inline void copy_stream(char *d, const char *s, size_t n)
{
	while (n && ((uintptr_t)d & 7)) {
		*d++ = *s++;
		n--;
	}
	if (n >= 8 && ((uintptr_t)d & 15)) {
		long long v;

		__builtin_memcpy(&v, s, 8);
		_mm_stream_si64((long long *)(void *)d, v);
		d += 8, s += 8, n -= 8;
	}
	for (; n >= 16; d += 16, s += 16, n -= 16)
		_mm_stream_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
	if (n >= 8) {
		long long v;

		__builtin_memcpy(&v, s, 8);
		_mm_stream_si64((long long *)(void *)d, v);
		d += 8, s += 8, n -= 8;
	}
	if (n)
		copy_small(d, s, n);
}

/* copy_stream for a 16-byte aligned d, with a prefetch of the next
 * block's line at the same offset every 64 bytes (pf: that block, pn:
 * its bytes to prefetch), spread over the copy rather than all first;
 * into L2 alone if l2. Inlined with l2 constant. */
static inline __attribute__((always_inline)) void
copy_stream_pf(char *d, const char *s, size_t n, const char *pf, size_t pn, const int l2)
{
	size_t i;

	for (i = 0; i + 64 <= n; i += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 48));

		if (i < pn && l2)
			__builtin_prefetch(pf + i, 0, 1);
		else if (i < pn)
			__builtin_prefetch(pf + i);
		_mm_stream_si128((__m128i *)(void *)(d + i), a);
		_mm_stream_si128((__m128i *)(void *)(d + i + 16), b);
		_mm_stream_si128((__m128i *)(void *)(d + i + 32), c);
		_mm_stream_si128((__m128i *)(void *)(d + i + 48), e);
	}
	if (i < n)
		copy_stream(d + i, s + i, n - i);
	for (; i < pn; i += 64)
		if (l2)
			__builtin_prefetch(pf + i, 0, 1);
		else
			__builtin_prefetch(pf + i);
}

static inline void stream_fence(void)
{
	_mm_sfence();
}
#else
#define copy_stream(d, s, n) memcpy(d, s, n)
#define copy_stream_pf(d, s, n, pf, pn, l2) ((void)(pf), (void)(pn), (void)(l2), memcpy(d, s, n))
static inline void stream_fence(void)
{
}
#endif

static inline void prefetch_block(const char *p, size_t len)
{
	size_t o;

	for (o = 0; o < len; o += 64)
		__builtin_prefetch(p + o);
	__builtin_prefetch(p + len - 1);
}

/* run_stream's packing of blocks of STREAM_L2_BLOCK bytes and more, a
 * multiple of 16, to a 16-byte aligned packed side: prefetched into L2,
 * further ahead. Out of line, so that the loop of shorter blocks stays
 * as it was. */
static __attribute__((noinline)) void run_stream_l2(const char *typed, MPI_Aint stride, size_t len,
						    MPI_Count count, char *packed)
{
	MPI_Count ahead = (MPI_Count)((STREAM_AHEAD_L2 + len - 1) / len), j;
	size_t pn = len < STREAM_HEAD ? len : STREAM_HEAD;

	for (j = 0; j + ahead < count; j++, typed += stride, packed += len)
		copy_stream_pf(packed, typed, len, typed + ahead * stride, pn, 1);
	for (; j < count; j++, typed += stride, packed += len)
		copy_stream(packed, typed, len);
}

/* run_copy for streaming walks. Runs of short blocks copy as usual when
 * unpacking, since non-temporal stores that leave gaps in a line cost
 * more than cached ones, and when packing a run of one block, which has
 * no next block to prefetch: an indexed type of blocks of 1 to 8 doubles
 * packed in 1.8 ms cached and 2.5 ms streamed, and unpacked in 1.7 and
 * 6.5. Packing prefetches each typed line once; blocks that qualify
 * (STREAM_L2_BLOCK) go to run_stream_l2. */
static inline __attribute__((always_inline)) void
run_stream(char *typed, MPI_Aint stride, size_t len, MPI_Count count, char *packed, int pack)
{
	MPI_Count ahead = (MPI_Count)((STREAM_AHEAD + len - 1) / len), j;
	uintptr_t line = 0, l;
	const char *p;

	if (len < 256 && (!pack || count == 1)) {
		run_copy(typed, stride, len, count, packed, pack);
		return;
	}
	if (!pack) {
		for (j = 0; j < count; j++, typed += stride, packed += len)
			copy_stream(typed, packed, len);
		return;
	}
	if (len >= STREAM_L2_BLOCK && !(len % 16) && !((uintptr_t)packed & 15)) {
		run_stream_l2(typed, stride, len, count, packed);
		return;
	}
	for (j = 0; j < count; j++, typed += stride, packed += len) {
		if (j + ahead < count) {
			p = typed + ahead * stride;
			if (len >= 64 && !((uintptr_t)packed & 15)) {
				/* the hardware follows a block once started */
				copy_stream_pf(packed, typed, len, p,
					       len < STREAM_HEAD ? len : STREAM_HEAD, 0);
				continue;
			}
			if (len >= 64) {
				prefetch_block(p, len < STREAM_HEAD ? len : STREAM_HEAD);
			} else if ((l = (uintptr_t)(p + len - 1) >> 6) != line) {
				__builtin_prefetch(p);
				__builtin_prefetch(p + len - 1);
				line = l;
			}
		}
		copy_stream(packed, typed, len);
	}
}

/* One block of n bytes between the typed and the packed side. */
static inline void copy_dir(char *typed, char *packed, size_t n, int pack)
{
	if (n < 64) {
		if (pack)
			copy_small(packed, typed, n);
		else
			copy_small(typed, packed, n);
	} else if (pack) {
		memcpy(packed, typed, n);
	} else {
		memcpy(typed, packed, n);
	}
}

/* All count instances, no partial run: the loop of a whole pack or
 * unpack, with one-block runs (irregular indexed and struct types)
 * copied without run_copy's loop. Inlined with pack constant. */
static inline __attribute__((always_inline)) void
walk_whole(char *typed, MPI_Count count, const struct michi_dt_info *in, MPI_Aint ext,
	   char *packed, const int pack, int stream)
{
	const struct michi_dt_run *r, *e = in->runs + in->nruns;
	MPI_Count k;

	if (in->blocks && !stream) {
		const int32_t *b, *be = in->blocks + 2 * in->nruns;

		for (k = 0; k < count; k++, typed += ext) {
			char *t = typed;

			for (b = in->blocks; b < be; b += 2) {
				size_t len = (size_t)b[1];

				t += b[0];
				copy_dir(t, packed, len, pack);
				t += len;
				packed += len;
			}
		}
		return;
	}
	for (k = 0; k < count; k++, typed += ext) {
		for (r = in->runs; r < e; r++) {
			size_t len = (size_t)r->len;
			char *t = typed + r->off;

			if (r->count == 1 && (len < 256 || !stream)) {
				copy_dir(t, packed, len, pack);
				packed += len;
				continue;
			}
			if (stream)
				run_stream(t, r->stride, len, r->count, packed, pack);
			else
				run_copy(t, r->stride, len, r->count, packed, pack);
			packed += len * (size_t)r->count;
		}
	}
}

static size_t cursor_walk(char *typed, MPI_Count count, const struct michi_dt_info *info,
			  struct michi_dt_cursor *c, void *packed, size_t upto, int pack);

/* The first max packed bytes of count instances at typed: all of them in
 * one loop, a prefix (a short message) by the cursor. */
static size_t walk(char *typed, MPI_Count count, const struct michi_dt_info *in, char *packed,
		   size_t max, int pack, int may_stream)
{
	size_t total = (size_t)count * (size_t)in->size;
	struct michi_dt_cursor c = { 0 };
	int stream;

	if (!max || !total)
		return 0;
	if (in->contig) {
		char *t = typed + in->true_lb;
		size_t n = max < total ? max : total;

		if (pack)
			memcpy(packed, t, n);
		else
			memcpy(t, packed, n);
		return n;
	}
	if (max < total)
		return cursor_walk(typed, count, in, &c, packed, max, pack);
	stream = may_stream && dt_stream_bytes && total >= dt_stream_bytes;
	if (pack)
		walk_whole(typed, count, in, in->ub - in->lb, packed, 1, stream);
	else
		walk_whole(typed, count, in, in->ub - in->lb, packed, 0, stream);
	if (stream)
		stream_fence();
	return total;
}

size_t michi_dt_pack(const void *buf, MPI_Count count, MPI_Datatype dt, void *out, size_t max)
{
	struct michi_dt_info in;

	if (michi_dt_info(dt, &in))
		return 0;
	return walk((char *)buf, count, &in, out, max, 1, 0);
}

size_t michi_dt_unpack(const void *in_bytes, size_t n, void *buf, MPI_Count count,
		       MPI_Datatype dt)
{
	struct michi_dt_info in;

	if (michi_dt_info(dt, &in))
		return 0;
	return walk(buf, count, &in, (char *)in_bytes, n, 0, 0);
}

/* ---- cursor ------------------------------------------------------------ */

/* The compact form (in->blocks) block by block, c->t at the current one.
 * The cursor lives in locals meanwhile: the copies through char pointers
 * would make the compiler reload it from memory after each block. */
static void cursor_blocks(char *typed, const struct michi_dt_info *in, MPI_Aint ext,
			  struct michi_dt_cursor *c, char *p, size_t upto, int pack)
{
	const int32_t *b = in->blocks;
	size_t pos = c->pos, i = c->i, a = c->a, nb = in->nruns;
	MPI_Count k = c->k;
	char *t = c->t;

	while (pos < upto) {
		size_t len, m;

		if (i == nb) {
			k++;
			i = 0;
			t = NULL;
		}
		if (!t)
			t = typed + k * ext + b[0];
		len = (size_t)b[2 * i + 1];
		m = len - a;
		if (m > upto - pos)
			m = upto - pos;
		copy_dir(t + a, p, m, pack);
		p += m;
		pos += m;
		a += m;
		if (a < len)
			break;
		a = 0;
		t += len;
		if (++i < nb)
			t += b[2 * i];
	}
	c->pos = pos;
	c->i = i;
	c->a = a;
	c->k = k;
	c->t = t;
}

static size_t cursor_walk(char *typed, MPI_Count count, const struct michi_dt_info *in,
			  struct michi_dt_cursor *c, void *packed, size_t upto, int pack)
{
	size_t total, start = c->pos;
	char *p;
	MPI_Aint ext;

	total = (size_t)count * (size_t)in->size;
	if (upto > total)
		upto = total;
	if (upto <= c->pos)
		return 0;
	p = (char *)packed + c->pos;
	if (in->contig) {
		copy_dir(typed + in->true_lb + c->pos, p, upto - c->pos, pack);
		c->pos = upto;
		return upto - start;
	}
	ext = in->ub - in->lb;
	if (in->blocks) {
		cursor_blocks(typed, in, ext, c, p, upto, pack);
		return c->pos - start;
	}
	while (c->pos < upto) {
		const struct michi_dt_run *r;
		size_t len, left = upto - c->pos, m;
		char *blk;

		if (c->i == in->nruns) {
			c->k++;
			c->i = 0;
			continue;
		}
		r = &in->runs[c->i];
		if (c->j == r->count) {
			c->i++;
			c->j = 0;
			continue;
		}
		len = (size_t)r->len;
		if (!len) {
			c->j = r->count;
			continue;
		}
		blk = typed + c->k * ext + r->off + c->j * r->stride;
		if (c->a == 0 && len <= left) {
			/* the whole blocks that fit, at once */
			MPI_Count nb = r->count - c->j;

			if ((size_t)nb > left / len)
				nb = (MPI_Count)(left / len);
			m = (size_t)nb * len;
			run_copy(blk, r->stride, len, nb, p, pack);
			p += m;
			c->pos += m;
			c->j += nb;
			continue;
		}
		m = len - c->a;
		if (m > left)
			m = left;
		copy_dir(blk + c->a, p, m, pack);
		p += m;
		c->pos += m;
		c->a += m;
		if (c->a == len) {
			c->a = 0;
			c->j++;
		}
	}
	return c->pos - start;
}

size_t michi_dt_cursor_move(void *buf, MPI_Count count, MPI_Datatype dt,
			    struct michi_dt_cursor *c, void *packed, size_t upto, int pack)
{
	struct michi_dt_info in;

	if (michi_dt_info(dt, &in))
		return 0;
	return cursor_walk(buf, count, &in, c, packed, upto, pack);
}

/* MPI_Pack and MPI_Unpack: the whole user buffer at once, streamed when
 * large. */
static size_t user_walk(const void *typed, MPI_Count count, MPI_Datatype dt, void *packed,
			size_t n, int pack)
{
	struct michi_dt_info in;

	if (michi_dt_info(dt, &in))
		return 0;
	return walk((char *)typed, count, &in, packed, n, pack, 1);
}

/* ---- elements ------------------------------------------------------------ */

MPI_Count michi_dt_elements(MPI_Datatype dt, MPI_Count bytes)
{
	struct michi_dt_info in;
	struct michi_dtype *t;
	MPI_Count n, rem, esz;
	int i;

	if (michi_dt_info(dt, &in))
		return MPI_UNDEFINED;
	if (in.size == 0)
		return bytes == 0 ? 0 : MPI_UNDEFINED;
	n = bytes / in.size * in.nelem;
	rem = bytes % in.size;
	if (rem == 0)
		return n;
	t = michi_dt_get(dt);
	if (!t) {
		/* a predefined type of two elements: the first may be whole */
		if (michi_dt_is_pair(dt)) {
			esz = in.runs[0].count == 1 && in.nruns == 2 ? in.runs[0].len
								    : in.size - (MPI_Count)sizeof(int);
		} else {
			esz = in.size / in.nelem;
		}
		return rem == esz ? n + 1 : MPI_UNDEFINED;
	}
	if (t->elem != MPI_DATATYPE_NULL) {
		struct michi_dt_info e;

		michi_dt_info(t->elem, &e);
		esz = e.size / (e.nelem ? e.nelem : 1);
		return esz && rem % esz == 0 ? n + rem / esz : MPI_UNDEFINED;
	}
	if (t->combiner != MPI_COMBINER_STRUCT) {
		/* copies of the one child type, in order */
		MPI_Count m = michi_dt_elements(t->types[0], rem);

		return m == MPI_UNDEFINED ? m : n + m;
	}
	for (i = 0; i < michi_dt_struct_n(t) && rem > 0; i++) {
		MPI_Count blk = michi_dt_struct_bl(t, i) * michi_dt_size(t->types[i]);
		MPI_Count m;

		if (rem >= blk) {
			struct michi_dt_info c;

			michi_dt_info(t->types[i], &c);
			n += michi_dt_struct_bl(t, i) * c.nelem;
			rem -= blk;
			continue;
		}
		m = michi_dt_elements(t->types[i], rem);
		return m == MPI_UNDEFINED ? m : n + m;
	}
	return rem ? MPI_UNDEFINED : n;
}

MPI_Count michi_dt_element_bytes(MPI_Datatype dt, MPI_Count n)
{
	struct michi_dt_info in;
	struct michi_dtype *t;
	MPI_Count bytes, rem;
	int i;

	if (michi_dt_info(dt, &in) || in.nelem == 0)
		return 0;
	bytes = n / in.nelem * in.size;
	rem = n % in.nelem;
	if (rem == 0)
		return bytes;
	t = michi_dt_get(dt);
	if (!t)   /* two elements: the first one */
		return bytes + (michi_dt_is_pair(dt) ? in.size - (MPI_Count)sizeof(int)
						      : in.size / 2);
	if (t->elem != MPI_DATATYPE_NULL)
		return bytes + rem * (in.size / in.nelem);
	if (t->combiner != MPI_COMBINER_STRUCT)
		return bytes + michi_dt_element_bytes(t->types[0], rem);
	for (i = 0; i < michi_dt_struct_n(t); i++) {
		struct michi_dt_info c;
		MPI_Count blk;

		michi_dt_info(t->types[i], &c);
		blk = michi_dt_struct_bl(t, i) * c.nelem;
		if (rem < blk)
			return bytes + michi_dt_element_bytes(t->types[i], rem);
		bytes += michi_dt_struct_bl(t, i) * c.size;
		rem -= blk;
	}
	return bytes;
}

/* ---- MPI_Pack and MPI_Unpack ---------------------------------------------- */

static int pack_check(const char *fname, MPI_Count count, MPI_Datatype dt, MPI_Comm comm)
{
	MICHI_CHECK_INIT(fname);
	if (count < 0)
		return michi_mpi_err(NULL, MPI_ERR_COUNT, fname, "(count=%lld): count is negative",
				     (long long)count);
	if (michi_dt_usable(dt))
		return michi_err_type(NULL, fname, dt);
	if (!michi_comm_get(comm))
		return michi_check_comm_slow(comm, fname);
	return MPI_SUCCESS;
}

static int pack_size(const char *fname, MPI_Count count, MPI_Datatype dt, MPI_Comm comm,
		     MPI_Count *size)
{
	int err = pack_check(fname, count, dt, comm);

	if (err)
		return err;
	if (!size)
		return michi_err_null(NULL, fname, "size");
	*size = (MPI_Count)michi_dt_packed(dt, count);
	return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
	MPI_Count n;
	int err = pack_size("MPI_Pack_size", incount, datatype, comm, &n);

	if (err)
		return err;
	if (n > 0x7fffffff)
		return michi_mpi_err(NULL, MPI_ERR_COUNT, "MPI_Pack_size",
				     "(incount=%d): %lld bytes do not fit an int", incount,
				     (long long)n);
	*size = (int)n;
	return MPI_SUCCESS;
}

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
	return pack_size("MPI_Pack_size_c", incount, datatype, comm, size);
}

static int pack(const char *fname, const void *inbuf, MPI_Count incount, MPI_Datatype dt,
		void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
	size_t n;
	int err = pack_check(fname, incount, dt, comm);

	if (err)
		return err;
	if (!position || *position < 0 || *position > outsize)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(position=%lld, outsize=%lld): position outside the buffer",
				     position ? (long long)*position : -1LL, (long long)outsize);
	n = michi_dt_packed(dt, incount);
	if (n > (size_t)(outsize - *position))
		return michi_mpi_err(NULL, MPI_ERR_TRUNCATE, fname,
				     "(outsize=%lld, position=%lld): %zu packed bytes do not fit",
				     (long long)outsize, (long long)*position, n);
	if (n && (!inbuf || !outbuf))
		return michi_mpi_err(NULL, MPI_ERR_BUFFER, fname, "(): NULL buffer");
	*position += (MPI_Count)user_walk(inbuf, incount, dt, (char *)outbuf + *position, n, 1);
	return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
	      int *position, MPI_Comm comm)
{
	MPI_Count pos = position ? *position : -1;
	int err = pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, &pos, comm);

	if (!err)
		*position = (int)pos;
	return err;
}

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
		MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
	return pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}

static int unpack(const char *fname, const void *inbuf, MPI_Count insize, MPI_Count *position,
		  void *outbuf, MPI_Count outcount, MPI_Datatype dt, MPI_Comm comm)
{
	size_t n;
	int err = pack_check(fname, outcount, dt, comm);

	if (err)
		return err;
	if (!position || *position < 0 || *position > insize)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(position=%lld, insize=%lld): position outside the buffer",
				     position ? (long long)*position : -1LL, (long long)insize);
	n = michi_dt_packed(dt, outcount);
	if (n > (size_t)(insize - *position))
		return michi_mpi_err(NULL, MPI_ERR_TRUNCATE, fname,
				     "(insize=%lld, position=%lld): %zu packed bytes are not there",
				     (long long)insize, (long long)*position, n);
	if (n && (!inbuf || !outbuf))
		return michi_mpi_err(NULL, MPI_ERR_BUFFER, fname, "(): NULL buffer");
	*position += (MPI_Count)user_walk(outbuf, outcount, dt, (char *)inbuf + *position, n, 0);
	return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
		MPI_Datatype datatype, MPI_Comm comm)
{
	MPI_Count pos = position ? *position : -1;
	int err = unpack("MPI_Unpack", inbuf, insize, &pos, outbuf, outcount, datatype, comm);

	if (!err)
		*position = (int)pos;
	return err;
}

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
		  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
	return unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}
