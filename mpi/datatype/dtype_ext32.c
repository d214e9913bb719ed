/* SPDX-License-Identifier: MIT */
/*
 * mpi/datatype/dtype_ext32.c: MPI_Pack_external, MPI_Unpack_external and
 * MPI_Pack_external_size for the "external32" representation (MPI-3.1
 * 13.5.2): big-endian, IEEE formats, and the fixed sizes of its table,
 * whatever this machine's C types are.
 *
 * The walk goes by the datatype's runs, which know their element type
 * (mpiimpl.h): each element is converted on its own. Where the native
 * and external sizes differ the value is narrowed or widened: C long and
 * unsigned long are 8 bytes here and 4 in external32, wchar_t 4 and 2;
 * the x87 80-bit long double becomes an IEEE binary128 (same sign and
 * 15-bit biased exponent; the explicit integer bit drops out of the
 * fraction).
 */
#include "dtype.h"
#include "pt2pt.h"

/* What one element becomes: its external size, the scalar unit whose
 * bytes are swapped (complex and two-int types have two scalars), and
 * how it converts. */
enum conv { C_SWAP, C_LONG, C_ULONG, C_WCHAR, C_LDOUBLE };

struct ext_elem {
	int ext;
	int unit;
	enum conv conv;
};

static struct ext_elem ext_of(MPI_Datatype e)
{
	int n = (int)michi_dt_size(e);

	if (e == MPI_LONG)
		return (struct ext_elem){ 4, 4, C_LONG };
	if (e == MPI_UNSIGNED_LONG)
		return (struct ext_elem){ 4, 4, C_ULONG };
	if (e == MPI_WCHAR)
		return (struct ext_elem){ 2, 2, C_WCHAR };
	if (e == MPI_LONG_DOUBLE || e == MPI_REAL16)
		return (struct ext_elem){ 16, 16, C_LDOUBLE };
	if (e == MPI_C_LONG_DOUBLE_COMPLEX || e == MPI_CXX_LONG_DOUBLE_COMPLEX ||
	    e == MPI_COMPLEX32)
		return (struct ext_elem){ 32, 16, C_LDOUBLE };
	if (e == MPI_COMPLEX || e == MPI_DOUBLE_COMPLEX || e == MPI_COMPLEX8 ||
	    e == MPI_COMPLEX16 || e == MPI_C_FLOAT_COMPLEX || e == MPI_C_DOUBLE_COMPLEX ||
	    e == MPI_CXX_FLOAT_COMPLEX || e == MPI_CXX_DOUBLE_COMPLEX || e == MPI_2INT ||
	    e == MPI_2INTEGER || e == MPI_2REAL || e == MPI_2DOUBLE_PRECISION)
		return (struct ext_elem){ n, n / 2, C_SWAP };
	return (struct ext_elem){ n, n ? n : 1, C_SWAP };
}

static void swap_copy(unsigned char *dst, const unsigned char *src, int n)
{
	int i;

	for (i = 0; i < n; i++)
		dst[i] = src[n - 1 - i];
}

/* x87 extended (little-endian, 10 significant bytes) to binary128, big-endian */
static void ld_to_quad(unsigned char *out, const unsigned char *in)
{
	uint64_t mant, hi, lo;
	uint16_t se;
	int i;

	memcpy(&mant, in, 8);
	memcpy(&se, in + 8, 2);
	/* fraction: the 63 bits after the explicit integer bit, at the top
	 * of the 112-bit field */
	hi = (uint64_t)se << 48 | (mant << 1) >> 16;
	lo = mant << 49;
	for (i = 0; i < 8; i++) {
		out[i] = (unsigned char)(hi >> (56 - 8 * i));
		out[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
	}
}

static void quad_to_ld(unsigned char *out, const unsigned char *in)
{
	uint64_t hi = 0, lo = 0, mant;
	uint16_t se;
	int i;

	for (i = 0; i < 8; i++) {
		hi = hi << 8 | in[i];
		lo = lo << 8 | in[8 + i];
	}
	se = (uint16_t)(hi >> 48);
	mant = (hi << 16) >> 1 | lo >> 49;
	/* the integer bit is implicit in binary128: set for normal numbers */
	if ((se & 0x7fff) != 0)
		mant |= 1ull << 63;
	memset(out, 0, 16);
	memcpy(out, &mant, 8);
	memcpy(out + 8, &se, 2);
}

/* One element between native (n bytes at nat) and external32 (at ext). */
static void conv_elem(unsigned char *nat, unsigned char *ext, const struct ext_elem *x,
		      int n, int pack)
{
	int k;

	switch (x->conv) {
	case C_SWAP:
		for (k = 0; k < x->ext; k += x->unit)
			swap_copy(pack ? ext + k : nat + k, pack ? nat + k : ext + k, x->unit);
		return;
	case C_LONG:
	case C_ULONG:
	case C_WCHAR: {
		int64_t v = 0;
		unsigned char b[8];

		if (pack) {
			memcpy(&v, nat, (size_t)n);
			memcpy(b, &v, 8);
			swap_copy(ext, b, x->ext);
			return;
		}
		swap_copy(b, ext, x->ext);
		if (x->conv == C_LONG) {
			int32_t s;

			memcpy(&s, b, 4);
			v = s;
		} else if (x->conv == C_ULONG) {
			uint32_t u;

			memcpy(&u, b, 4);
			v = (int64_t)u;
		} else {
			uint16_t w;

			memcpy(&w, b, 2);
			v = w;
		}
		memcpy(nat, &v, (size_t)n);
		return;
	}
	case C_LDOUBLE:
		for (k = 0; k < x->ext; k += 16) {
			if (pack)
				ld_to_quad(ext + k, nat + k);
			else
				quad_to_ld(nat + k, ext + k);
		}
		return;
	}
}

/* External bytes of one instance, or -1 for an element type external32
 * has no form for. */
static MPI_Count ext_size(const struct michi_dt_info *in)
{
	MPI_Count total = 0;
	size_t i;

	for (i = 0; i < in->nruns; i++) {
		const struct michi_dt_run *r = &in->runs[i];
		MPI_Count n = michi_dt_size(r->elem);
		struct ext_elem x = ext_of(r->elem);

		if (n == 0)
			continue;
		total += r->count * (r->len / n) * x.ext;
	}
	return total;
}

/* Convert count instances at buf to or from ext; returns external bytes. */
static MPI_Count ext_walk(unsigned char *buf, MPI_Count count, const struct michi_dt_info *in,
			  unsigned char *ext, int pack)
{
	MPI_Aint extent = in->ub - in->lb;
	unsigned char *p = ext;
	MPI_Count k, j, e;
	size_t i;

	for (k = 0; k < count; k++)
		for (i = 0; i < in->nruns; i++) {
			const struct michi_dt_run *r = &in->runs[i];
			int n = (int)michi_dt_size(r->elem);
			struct ext_elem x = ext_of(r->elem);

			if (n == 0)
				continue;
			for (j = 0; j < r->count; j++) {
				unsigned char *b = buf + k * extent + r->off + j * r->stride;

				for (e = 0; e < r->len / n; e++, p += x.ext)
					conv_elem(b + e * n, p, &x, n, pack);
			}
		}
	return p - ext;
}

static int ext_args(const char *fname, const char *datarep, MPI_Count count, MPI_Datatype dt,
		    struct michi_dt_info *in)
{
	MICHI_CHECK_INIT(fname);
	if (!datarep || strcmp(datarep, "external32") != 0)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(datarep=\"%s\"): only \"external32\" is defined",
				     datarep ? datarep : "(null)");
	if (count < 0)
		return michi_err_count(NULL, fname, count);
	if (michi_dt_usable(dt) || michi_dt_info(dt, in))
		return michi_err_type(NULL, fname, dt);
	return MPI_SUCCESS;
}

static int pack_ext_size(const char *fname, const char *datarep, MPI_Count count,
			 MPI_Datatype dt, MPI_Aint *size)
{
	struct michi_dt_info in;
	int err = ext_args(fname, datarep, count, dt, &in);

	if (err)
		return err;
	if (!size)
		return michi_err_null(NULL, fname, "size");
	*size = (MPI_Aint)(count * ext_size(&in));
	return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
			    MPI_Aint *size)
{
	return pack_ext_size("MPI_Pack_external_size", datarep, incount, datatype, size);
}

int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
			      MPI_Count *size)
{
	MPI_Aint s;
	int err = pack_ext_size("MPI_Pack_external_size_c", datarep, incount, datatype, &s);

	if (!err && size)
		*size = s;
	return err;
}

static int pack_ext(const char *fname, const char *datarep, void *typed, MPI_Count count,
		    MPI_Datatype dt, void *ext, MPI_Aint extsize, MPI_Aint *position, int pack)
{
	struct michi_dt_info in;
	MPI_Count n;
	int err = ext_args(fname, datarep, count, dt, &in);

	if (err)
		return err;
	if (!position || *position < 0 || *position > extsize)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(position=%ld, size=%ld): position outside the buffer",
				     position ? (long)*position : -1L, (long)extsize);
	n = count * ext_size(&in);
	if (n > extsize - *position)
		return michi_mpi_err(NULL, MPI_ERR_TRUNCATE, fname,
				     "(size=%ld, position=%ld): %lld external bytes %s",
				     (long)extsize, (long)*position, (long long)n,
				     pack ? "do not fit" : "are not there");
	if (n && (!typed || !ext))
		return michi_mpi_err(NULL, MPI_ERR_BUFFER, fname, "(): NULL buffer");
	*position += (MPI_Aint)ext_walk(typed, count, &in, (unsigned char *)ext + *position, pack);
	return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
		       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
	return pack_ext("MPI_Pack_external", datarep, (void *)inbuf, incount, datatype, outbuf,
			outsize, position, 1);
}

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
			 MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
	return pack_ext("MPI_Unpack_external", datarep, outbuf, outcount, datatype,
			(void *)inbuf, insize, position, 0);
}

int PMPI_Pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
			 MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
			 MPI_Count *position)
{
	MPI_Aint pos = position ? (MPI_Aint)*position : -1;
	int err = pack_ext("MPI_Pack_external_c", datarep, (void *)inbuf, incount, datatype,
			   outbuf, (MPI_Aint)outsize, &pos, 1);

	if (!err)
		*position = pos;
	return err;
}

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
			   MPI_Count *position, void *outbuf, MPI_Count outcount,
			   MPI_Datatype datatype)
{
	MPI_Aint pos = position ? (MPI_Aint)*position : -1;
	int err = pack_ext("MPI_Unpack_external_c", datarep, outbuf, outcount, datatype,
			   (void *)inbuf, (MPI_Aint)insize, &pos, 0);

	if (!err)
		*position = pos;
	return err;
}
