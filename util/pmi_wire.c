/* SPDX-License-Identifier: MIT */
/*
 * util/pmi_wire.c: parser, formatter and incremental reader of PMI-1 wire
 * lines (see pmi_wire.h). Input comes from other processes, so every
 * function here treats it as hostile: lengths are checked before every
 * copy and a bad line is an error with a sentence, never a crash.
 */
#include "config.h"
#include "pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- parsing ---------------------------------------------------------- */

static michi_status_t wire_add_pair(struct pmi_wire_msg *m, char *tok)
{
	char *eq = strchr(tok, '=');
	int i;

	if (!eq)
		return michi_err(MICHI_ERR_INVAL,
				 "pmi wire: token '%.40s' has no '='", tok);
	if (eq == tok)
		return michi_err(MICHI_ERR_INVAL,
				 "pmi wire: token '%.40s' has an empty key", tok);
	*eq = '\0';
	for (i = 0; i < m->npairs; i++)
		if (strcmp(m->pairs[i].key, tok) == 0)
			return michi_err(MICHI_ERR_INVAL,
					 "pmi wire: duplicate key '%.40s'", tok);
	if (m->npairs == PMI_WIRE_PAIRS_MAX)
		return michi_err(MICHI_ERR_INVAL,
				 "pmi wire: more than %d pairs in one line",
				 PMI_WIRE_PAIRS_MAX);
	m->pairs[m->npairs].key = tok;
	m->pairs[m->npairs].val = eq + 1;
	m->npairs++;
	return MICHI_OK;
}

michi_status_t pmi_wire_parse(struct pmi_wire_msg *out, char *line, size_t len,
			      size_t maxlen)
{
	struct pmi_wire_msg m;
	michi_status_t st;
	char *p, *end;

	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len + 1 > maxlen)
		return michi_err(MICHI_ERR_INVAL,
				 "pmi wire: line of %zu bytes exceeds the limit of %zu",
				 len + 1, maxlen);
	if (memchr(line, '\0', len))
		return michi_err(MICHI_ERR_INVAL,
				 "pmi wire: line contains a NUL byte");
	line[len] = '\0';
	m.npairs = 0;
	p = line;
	end = line + len;
	while (p < end) {
		char *tok;

		while (p < end && *p == ' ')
			p++;
		if (p == end)
			break;
		tok = p;
		while (p < end && *p != ' ')
			p++;
		*p++ = '\0';   /* p == end writes the terminator again */
		st = wire_add_pair(&m, tok);
		if (st < 0)
			return st;
	}
	if (m.npairs == 0)
		return michi_err(MICHI_ERR_INVAL, "pmi wire: empty line");
	if (strcmp(m.pairs[0].key, "mcmd") == 0)
		return michi_err(MICHI_ERR_UNSUPPORTED,
				 "pmi wire: multi-line command mcmd=%.40s (e.g. spawn) is not supported",
				 m.pairs[0].val);
	if (strcmp(m.pairs[0].key, "cmd") != 0)
		return michi_err(MICHI_ERR_INVAL,
				 "pmi wire: line starts with '%.40s=' instead of 'cmd='",
				 m.pairs[0].key);
	if (m.pairs[0].val[0] == '\0')
		return michi_err(MICHI_ERR_INVAL, "pmi wire: empty cmd");
	*out = m;
	return MICHI_OK;
}

const char *pmi_wire_get(const struct pmi_wire_msg *m, const char *key)
{
	int i;

	for (i = 0; i < m->npairs; i++)
		if (strcmp(m->pairs[i].key, key) == 0)
			return m->pairs[i].val;
	return NULL;
}

michi_status_t pmi_wire_get_int(const struct pmi_wire_msg *m, const char *key,
				int *out)
{
	const char *v = pmi_wire_get(m, key);
	char *end;
	long x;

	if (!v)
		return michi_err(MICHI_ERR_PMI, "pmi wire: cmd=%s lacks key '%s'",
				 pmi_wire_cmd(m), key);
	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end || x < INT_MIN || x > INT_MAX)
		return michi_err(MICHI_ERR_PMI,
				 "pmi wire: cmd=%s has %s='%.40s', not an integer",
				 pmi_wire_cmd(m), key, v);
	*out = (int)x;
	return MICHI_OK;
}

/* ---- formatting ------------------------------------------------------- */

static void wire_append(struct pmi_wire_out *o, const char *s, size_t n)
{
	if (o->st < 0)
		return;
	/* keep room for "\n\0" */
	if (o->len + n + 2 > o->cap) {
		o->st = michi_err(MICHI_ERR_INVAL,
				  "pmi wire: line would exceed %zu bytes", o->cap);
		return;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

void pmi_wire_begin(struct pmi_wire_out *o, char *buf, size_t cap,
		    const char *cmd)
{
	o->buf = buf;
	o->cap = cap;
	o->len = 0;
	o->st = MICHI_OK;
	wire_append(o, "cmd=", 4);
	wire_append(o, cmd, strlen(cmd));
}

void pmi_wire_add(struct pmi_wire_out *o, const char *key, const char *val)
{
	size_t kl = strlen(key), vl = strlen(val);

	if (o->st < 0)
		return;
	if (kl == 0 || strpbrk(key, " =\n\r")) {
		o->st = michi_err(MICHI_ERR_INVAL,
				  "pmi wire: key '%.40s' is empty or has a space, '=' or newline",
				  key);
		return;
	}
	if (strpbrk(val, " \n\r")) {
		o->st = michi_err(MICHI_ERR_INVAL,
				  "pmi wire: value of key '%.40s' contains a space or newline",
				  key);
		return;
	}
	wire_append(o, " ", 1);
	wire_append(o, key, kl);
	wire_append(o, "=", 1);
	wire_append(o, val, vl);
}

void pmi_wire_add_int(struct pmi_wire_out *o, const char *key, long val)
{
	char num[24];

	snprintf(num, sizeof(num), "%ld", val);
	pmi_wire_add(o, key, num);
}

michi_status_t pmi_wire_end(struct pmi_wire_out *o)
{
	if (o->st < 0)
		return o->st;
	o->buf[o->len++] = '\n';
	o->buf[o->len] = '\0';
	return MICHI_OK;
}

static int wire_needs_escape(unsigned char c)
{
	return c <= ' ' || c >= 0x7f || c == '%' || c == '=';
}

long pmi_wire_escape(char *dst, size_t cap, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];

		if (wire_needs_escape(c)) {
			if (n + 4 > cap)
				return -1;
			dst[n++] = '%';
			dst[n++] = hex[c >> 4];
			dst[n++] = hex[c & 15];
		} else {
			if (n + 2 > cap)
				return -1;
			dst[n++] = (char)c;
		}
	}
	if (n + 1 > cap)
		return -1;
	dst[n] = '\0';
	return (long)n;
}

static int wire_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t pmi_wire_unescape(char *s)
{
	size_t i = 0, n = 0;

	while (s[i]) {
		int hi, lo;

		if (s[i] == '%' && (hi = wire_hexval(s[i + 1])) >= 0 &&
		    (lo = wire_hexval(s[i + 2])) >= 0) {
			s[n++] = (char)(hi << 4 | lo);
			i += 3;
		} else {
			s[n++] = s[i++];
		}
	}
	s[n] = '\0';
	return n;
}

/* ---- reader ----------------------------------------------------------- */

michi_status_t pmi_wire_reader_init(struct pmi_wire_reader *r, size_t maxline)
{
	r->buf = malloc(maxline + 1);
	if (!r->buf)
		return michi_err(MICHI_ERR_NOMEM, "pmi wire: no memory for a %zu-byte line buffer",
				 maxline);
	r->cap = maxline;
	r->start = r->len = 0;
	r->discarding = 0;
	r->eof = 0;
	return MICHI_OK;
}

void pmi_wire_reader_destroy(struct pmi_wire_reader *r)
{
	free(r->buf);
	r->buf = NULL;
}

michi_status_t pmi_wire_reader_fill(struct pmi_wire_reader *r, int fd)
{
	ssize_t n;

	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->len - r->start);
		r->len -= r->start;
		r->start = 0;
	}
	if (r->len == r->cap)
		return MICHI_INPROGRESS;   /* next() must drain or discard first */
	do {
		n = read(fd, r->buf + r->len, r->cap - r->len);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return MICHI_INPROGRESS;
		return michi_err(MICHI_ERR_IO, "pmi wire: read from fd %d failed: %m", fd);
	}
	if (n == 0) {
		r->eof = 1;
		return MICHI_ERR_PEER;
	}
	r->len += (size_t)n;
	return MICHI_OK;
}

michi_status_t pmi_wire_reader_next(struct pmi_wire_reader *r,
				    struct pmi_wire_msg *m)
{
	char *line = r->buf + r->start;
	size_t avail = r->len - r->start;
	char *nl = memchr(line, '\n', avail);

	if (!nl) {
		if (avail < r->cap)
			return MICHI_INPROGRESS;
		/* a full buffer without a newline: drop it, and the rest of
		 * the line when it comes */
		r->start = r->len = 0;
		if (r->discarding)
			return MICHI_INPROGRESS;
		r->discarding = 1;
		return michi_err(MICHI_ERR_INVAL,
				 "pmi wire: line longer than %zu bytes dropped", r->cap);
	}
	r->start += (size_t)(nl - line) + 1;
	if (r->discarding) {
		r->discarding = 0;
		return pmi_wire_reader_next(r, m);
	}
	return pmi_wire_parse(m, line, (size_t)(nl - line), r->cap);
}

michi_status_t pmi_wire_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE || errno == ECONNRESET)
				return michi_err(MICHI_ERR_PEER,
						 "pmi wire: peer on fd %d closed the connection", fd);
			return michi_err(MICHI_ERR_IO, "pmi wire: write to fd %d failed: %m", fd);
		}
		buf += n;
		len -= (size_t)n;
	}
	return MICHI_OK;
}
