/* SPDX-License-Identifier: MIT */
/*
 * launch/proxy_io.c: the output relay of michi-proxy: the ranks' stdout and
 * stderr, line by line (labelled with -l), through bounded buffers.
 */
#include "config.h"
#include "proxy.h"

/* ---- output relay ----------------------------------------------------- */

void proxy_sink_append(struct proxy_sink *s, const char *p, size_t n)
{
	if (s->head > 0 && s->head + s->len + n > s->cap) {
		memmove(s->buf, s->buf + s->head, s->len);
		s->head = 0;
	}
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 65536;
		char *b;

		while (cap < s->len + n)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b)
			return;   /* output lost rather than the job */
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->head + s->len, p, n);
	s->len += n;
}

static void proxy_emit(struct proxy_rank *r, int which, const char *p, size_t n,
		       int add_nl)
{
	struct proxy_sink *s = &px.sink[which];
	char tag[24];

	if (px.label) {
		int tl = snprintf(tag, sizeof(tag), "[%d] ", r->rank);

		proxy_sink_append(s, tag, (size_t)tl);
	}
	proxy_sink_append(s, p, n);
	if (add_nl)
		proxy_sink_append(s, "\n", 1);
}

/* Move complete lines from a rank's partial buffer to the sink. */
void proxy_stream_lines(struct proxy_rank *r, int which, int at_eof)
{
	struct proxy_stream *io = &r->io[which];
	size_t start = 0;
	char *nl;

	while ((nl = memchr(io->part + start, '\n', io->len - start))) {
		size_t n = (size_t)(nl - (io->part + start)) + 1;

		proxy_emit(r, which, io->part + start, n, 0);
		start += n;
	}
	/* a line longer than the buffer, or a last line without newline */
	if ((io->len - start == sizeof(io->part) || at_eof) && io->len > start) {
		proxy_emit(r, which, io->part + start, io->len - start, px.label);
		start = io->len;
	}
	memmove(io->part, io->part + start, io->len - start);
	io->len -= start;
}

/* One read; returns the bytes read, 0 at EOF or when nothing is there. */
size_t proxy_stream_read(struct proxy_rank *r, int which)
{
	struct proxy_stream *io = &r->io[which];
	ssize_t n;

	do {
		n = read(io->fd, io->part + io->len, sizeof(io->part) - io->len);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n <= 0) {
		proxy_stream_lines(r, which, 1);
		close(io->fd);
		io->fd = -1;
		return 0;
	}
	io->len += (size_t)n;
	proxy_stream_lines(r, which, 0);
	return (size_t)n;
}

void proxy_sink_write(struct proxy_sink *s)
{
	/* the fd is shared with mpirun's terminal, so it stays blocking;
	 * after POLLOUT one pipe page can be written without blocking */
	size_t n = s->len < 4096 ? s->len : 4096;
	ssize_t w = write(s->fd, s->buf + s->head, n);

	if (w < 0) {
		if (errno == EINTR || errno == EAGAIN)
			return;
		s->len = 0;   /* stdout gone: drop, keep the job running */
		return;
	}
	s->head += (size_t)w;
	s->len -= (size_t)w;
	if (s->len == 0)
		s->head = 0;
}

/*
 * A rank that died: what it wrote last (often why it died) should appear
 * before mpirun's line about its death. Take what its pipes hold (bounded:
 * a surviving child of the rank may keep writing) and give stdout a short
 * while to accept it; never block for long on a slow reader.
 */
void proxy_flush_rank(struct proxy_rank *r)
{
	double until = michi_wtime() + 0.2;
	int w;

	for (w = 0; w < 2; w++) {
		size_t got = 0, n;

		while (r->io[w].fd >= 0 && got < PROXY_SINK_MAX / 4 &&
		       (n = proxy_stream_read(r, w)) > 0)
			got += n;
	}
	for (w = 0; w < 2; w++) {
		while (px.sink[w].len > 0) {
			struct pollfd pfd = { .fd = px.sink[w].fd, .events = POLLOUT };
			double left = until - michi_wtime();

			if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
				break;
			proxy_sink_write(&px.sink[w]);
		}
	}
}
