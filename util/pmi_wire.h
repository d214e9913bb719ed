/* SPDX-License-Identifier: MIT */
/*
 * util/pmi_wire.h: PMI-1 wire-protocol lines, shared by the client in
 * mpi/env/pmi.c, the server in launch/michi-proxy and the launcher<->proxy
 * control channel (which reuses the same line format).
 *
 * A line is `cmd=NAME key=value key=value...\n`: space-separated pairs, the
 * first one naming the command, values possibly empty, no escaping on the
 * wire (values simply never contain a space or a newline). Where Michi's
 * own programs must carry free text (abort messages, program arguments)
 * they percent-encode it with pmi_wire_escape(). MPICH's multi-line
 * `mcmd=spawn` form is recognised and rejected.
 */
#ifndef MICHI_PMI_WIRE_H
#define MICHI_PMI_WIRE_H

#include <stddef.h>
#include "michi.h"

#define PMI_WIRE_LINE_MAX  4096   /* longest PMI line, '\n' included */
#define PMI_WIRE_PAIRS_MAX 32     /* pairs per line, cmd included */
#define PMI_WIRE_KVSNAME_MAX 256  /* what our server advertises */
#define PMI_WIRE_KEY_MAX   64
#define PMI_WIRE_VAL_MAX   1024
/* key under which Michi's mpirun presets the job key (mpi/env/pmi.h: PMI_JOB_KEY) */
#define PMI_WIRE_JOB_KEY   "michi-job-key"

struct pmi_wire_pair {
	const char *key;
	const char *val;
};

/* A parsed line; the strings point into the buffer that was parsed. */
struct pmi_wire_msg {
	int npairs;
	struct pmi_wire_pair pairs[PMI_WIRE_PAIRS_MAX];
};

/*
 * Parse one line (without its '\n'; a trailing '\n' or "\r\n" is also
 * accepted) of len bytes, in place: spaces and '=' in line are overwritten
 * with NULs. Fails with MICHI_ERR_INVAL and a sentence naming the problem
 * on: a NUL byte, a line longer than maxlen, a token without '=', an empty
 * key, a duplicate key, too many pairs, a first key other than cmd
 * (mcmd=spawn gets MICHI_ERR_UNSUPPORTED). m is written only on success.
 */
michi_status_t pmi_wire_parse(struct pmi_wire_msg *m, char *line, size_t len,
			      size_t maxlen);

/* The value of cmd (never NULL after a successful parse). */
static inline const char *pmi_wire_cmd(const struct pmi_wire_msg *m)
{
	return m->pairs[0].val;
}
/* The value of key, or NULL if absent. */
const char *pmi_wire_get(const struct pmi_wire_msg *m, const char *key);
/* key as a decimal int; MICHI_ERR_PMI if absent or not a number. */
michi_status_t pmi_wire_get_int(const struct pmi_wire_msg *m, const char *key,
				int *out);

/* ---- formatting ------------------------------------------------------- */

/*
 * Builds one line in a caller-provided buffer. Errors (a value with a
 * space, newline or NUL, a key with '=', the line not fitting) are kept
 * in the builder and returned once by pmi_wire_end(), so that a sequence
 * of adds needs a single check.
 */
struct pmi_wire_out {
	char *buf;
	size_t cap, len;
	michi_status_t st;
};

void pmi_wire_begin(struct pmi_wire_out *o, char *buf, size_t cap,
		    const char *cmd);
void pmi_wire_add(struct pmi_wire_out *o, const char *key, const char *val);
void pmi_wire_add_int(struct pmi_wire_out *o, const char *key, long val);
/* Appends '\n' and NUL; o->len is then the line length with '\n'. */
michi_status_t pmi_wire_end(struct pmi_wire_out *o);

/* Percent-encode every byte that is not printable ASCII or is one of
 * " %=\n": returns the encoded length, or -1 if dst (cap bytes, NUL
 * included) is too small. */
long pmi_wire_escape(char *dst, size_t cap, const char *src, size_t len);
/* Decode in place; malformed escapes are kept literally. Returns length. */
size_t pmi_wire_unescape(char *s);

/* ---- reading and writing fds ------------------------------------------ */

/*
 * Incremental line reader for a (blocking or nonblocking) fd: buffers
 * partial lines across reads. A line longer than the buffer is dropped up
 * to its newline and reported once as an error.
 */
struct pmi_wire_reader {
	char *buf;
	size_t cap, start, len;   /* unconsumed bytes are buf[start, len) */
	int discarding;           /* inside an overlong line */
	int eof;
};

michi_status_t pmi_wire_reader_init(struct pmi_wire_reader *r, size_t maxline);
void pmi_wire_reader_destroy(struct pmi_wire_reader *r);
/*
 * One read(): MICHI_OK if bytes arrived, MICHI_INPROGRESS on EAGAIN (or
 * when the buffer is full of complete lines still to take), MICHI_ERR_PEER
 * at end of file, MICHI_ERR_IO on error. EINTR is retried.
 */
michi_status_t pmi_wire_reader_fill(struct pmi_wire_reader *r, int fd);
/*
 * Take the next complete line and parse it into m (valid until the next
 * fill). MICHI_OK: m holds a line; MICHI_INPROGRESS: no complete line yet;
 * <0: a malformed or overlong line was consumed (error recorded), call
 * again for the next.
 */
michi_status_t pmi_wire_reader_next(struct pmi_wire_reader *r,
				    struct pmi_wire_msg *m);

/* write() all of buf, retrying EINTR and partial writes; for blocking fds. */
michi_status_t pmi_wire_write_all(int fd, const char *buf, size_t len);

#endif
