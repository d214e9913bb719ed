/* SPDX-License-Identifier: MIT */
/*
 * launch/proxy.c: michi-proxy, the per-host half of mpirun.
 *
 * mpirun starts one proxy per host (a local one by fork+exec with
 * --control-fd, another host's with --connect back to the first of
 * mpirun's addresses that answers, see launch/mpirun.c) and sends it the
 * job over the control stream: job, kv presets, then per app context
 * `app`, its `arg`s and `env`s, and `start`.
 * The proxy forks its ranks, each in its own process group with a PMI_FD
 * socketpair and stdout/stderr pipes, serves PMI-1 on those sockets from
 * one poll loop, relays output line by line (labelled with -l) through
 * bounded buffers, feeds its stdin to the rank mpirun names, and reports
 * starts, fences, aborts and exits to mpirun. mpirun decides when the job
 * dies; `kill` makes the proxy send SIGTERM, then SIGKILL after a grace.
 * If mpirun goes away (control stream closed) the proxy kills its ranks.
 */
#include "config.h"
#include "launch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

#define PROXY_PARTIAL_MAX 4096          /* longest line kept whole */
#define PROXY_SINK_MAX    (1 << 20)     /* bytes queued per output stream */
#define PROXY_STDIN_MAX   65536
#define PROXY_KVS_BUCKETS 4096

/* seconds between SIGTERM and SIGKILL; mpirun sends its kill_grace */
static double proxy_kill_grace = 0.5;

struct proxy_stream {
	int fd;                       /* read end of the rank's pipe, -1 at EOF */
	size_t len;
	char part[PROXY_PARTIAL_MAX];
};

struct proxy_rank {
	int rank, local_rank, appnum;
	pid_t pid;
	int pmi_fd;
	struct pmi_wire_reader rd;
	struct proxy_stream io[2];    /* stdout, stderr */
	int in_fence, initialized, finalized, reaped;
	int bind_obj;                 /* logical index of its object; -1: not bound */
};

struct proxy_sink {
	int fd;
	char *buf;
	size_t head, len, cap;
};

struct proxy_kv {
	struct proxy_kv *next;
	char *key, *val;
};

struct proxy_app {
	int appnum, first, n, stride;   /* ranks first + j * stride, j < n */
	int argc, argmax, nenv;
	char **argv;
	char **env;                   /* name, value, name, value ... */
};

static struct {
	int ctl;
	int sigfd;
	char kvsname[PMI_WIRE_KVSNAME_MAX];
	char *host;                   /* the ranks' host identity, from mpirun */
	char *site;                   /* their site (hostfile site=, --host H@SITE), or NULL */
	char shm_prefix[48];          /* the job's /dev/shm names, from its key */
	int size, universe, label, stdin_rank;
	struct proxy_app *apps;
	int napps;
	struct proxy_rank *ranks;
	int nranks;
	int nfence;
	struct proxy_kv *kvs[PROXY_KVS_BUCKETS];
	struct proxy_kv *pending;     /* puts since the last fence, for mpirun */
	struct proxy_sink sink[2];
	/* stdin relay to one rank */
	int in_fd, in_pipe;
	char in_buf[PROXY_STDIN_MAX];
	size_t in_len;
	int killing;
	double kill_at;
	int done_sent;
	/* --bind-to: a launch_bind_names entry, and the objects of that level */
	const char *bind;
	int report_bindings;
#ifdef HAVE_HWLOC
	hwloc_topology_t topo;
	hwloc_obj_type_t bind_type;
	int nobjs;
#endif
} px = { .ctl = -1, .in_fd = -1, .in_pipe = -1, .stdin_rank = -1 };

/* ---- key-value space -------------------------------------------------- */

static unsigned proxy_kvs_hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h % PROXY_KVS_BUCKETS;
}

static struct proxy_kv *proxy_kvs_find(const char *key)
{
	struct proxy_kv *kv;

	for (kv = px.kvs[proxy_kvs_hash(key)]; kv; kv = kv->next)
		if (strcmp(kv->key, key) == 0)
			return kv;
	return NULL;
}

/* The job key (hex) names the job's shared-memory segments. */
static void proxy_note_key(const char *hex)
{
	uint8_t key[16];
	unsigned v;
	int i;

	if (strlen(hex) != 32)
		return;
	for (i = 0; i < 16; i++) {
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return;
		key[i] = (uint8_t)v;
	}
	michi_shm_prefix(key, px.shm_prefix, sizeof(px.shm_prefix));
}

static michi_status_t proxy_kvs_put(const char *key, const char *val, int remember)
{
	struct proxy_kv *kv = proxy_kvs_find(key), *p;
	char *v = strdup(val);

	if (!v)
		return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for a value");
	if (kv) {
		free(kv->val);
		kv->val = v;
	} else {
		unsigned h = proxy_kvs_hash(key);

		kv = calloc(1, sizeof(*kv));
		if (!kv || !(kv->key = strdup(key))) {
			free(kv);
			free(v);
			return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for a key");
		}
		kv->val = v;
		kv->next = px.kvs[h];
		px.kvs[h] = kv;
	}
	if (!remember)
		return MICHI_OK;
	p = calloc(1, sizeof(*p));
	if (!p || !(p->key = strdup(key)) || !(p->val = strdup(val)))
		return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for a pending put");
	p->next = px.pending;
	px.pending = p;
	return MICHI_OK;
}

/* ---- output relay ----------------------------------------------------- */

static void proxy_sink_append(struct proxy_sink *s, const char *p, size_t n)
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
static void proxy_stream_lines(struct proxy_rank *r, int which, int at_eof)
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
static size_t proxy_stream_read(struct proxy_rank *r, int which)
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

static void proxy_sink_write(struct proxy_sink *s)
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
static void proxy_flush_rank(struct proxy_rank *r)
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

/* ---- talking to mpirun ------------------------------------------------ */

static void proxy_begin_kill(void);

static void proxy_ctl_fail(void)
{
	/* without mpirun nobody can decide for the job: end it */
	proxy_begin_kill();
}

static void proxy_ctl_send(struct pmi_wire_out *o)
{
	if (px.ctl < 0)
		return;
	if (launch_ctl_send(px.ctl, o) < 0) {
		michi_error("proxy: lost mpirun: %s", michi_err_msg());
		close(px.ctl);
		px.ctl = -1;
		proxy_ctl_fail();
	}
}

/*
 * A failure of this proxy's own (a bad job, a -wdir it cannot enter):
 * mpirun prints it and ends the job. Over ssh the proxy's stderr may be
 * cut off by that end, so the control stream carries it; stderr too when
 * mpirun is gone.
 */
static void proxy_report_error(const char *msg)
{
	size_t cap = 3 * strlen(msg) + 64;
	char *line = malloc(cap);
	struct pmi_wire_out o;

	if (px.ctl < 0 || !line) {
		michi_error("%s", msg);
		free(line);
		return;
	}
	pmi_wire_begin(&o, line, cap, "error");
	launch_add_text(&o, "message", msg);
	proxy_ctl_send(&o);
	free(line);
}

/*
 * A proxy that fails before its ranks start (a -wdir it cannot enter)
 * has just reported why, but mpirun may still be writing the rest of the
 * job. Closing now, with those lines unread, would reset the connection:
 * mpirun's write would fail first and the report could be lost with the
 * reset. So the proxy ends its side of the stream and reads what is left
 * until mpirun closes, at most two seconds.
 */
static void proxy_drain_ctl(void)
{
	char buf[4096];
	struct pollfd pfd = { .fd = px.ctl, .events = POLLIN };
	int i;

	if (px.ctl < 0)
		return;
	shutdown(px.ctl, SHUT_WR);   /* not a socket (a local pipe): nothing */
	for (i = 0; i < 20; i++) {
		int n = poll(&pfd, 1, 100);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			continue;
		if (read(px.ctl, buf, sizeof(buf)) <= 0)
			break;
	}
}

static void proxy_report_exit(struct proxy_rank *r, int status)
{
	char line[512];
	struct pmi_wire_out o;

	pmi_wire_begin(&o, line, sizeof(line), "exit");
	pmi_wire_add_int(&o, "rank", r->rank);
	pmi_wire_add_int(&o, "pid", r->pid);
	if (WIFSIGNALED(status))
		pmi_wire_add_int(&o, "signal", WTERMSIG(status));
	else
		pmi_wire_add_int(&o, "code", WEXITSTATUS(status));
	pmi_wire_add_int(&o, "initialized", r->initialized);
	pmi_wire_add_int(&o, "finalized", r->finalized);
	proxy_ctl_send(&o);
}

static void proxy_fence_check(void)
{
	char line[PMI_WIRE_LINE_MAX + 64];
	struct pmi_wire_out o;
	struct proxy_kv *p;

	if (px.nfence < px.nranks)
		return;
	while ((p = px.pending)) {
		px.pending = p->next;
		pmi_wire_begin(&o, line, sizeof(line), "kv");
		pmi_wire_add(&o, "key", p->key);
		pmi_wire_add(&o, "value", p->val);
		proxy_ctl_send(&o);
		free(p->key);
		free(p->val);
		free(p);
	}
	pmi_wire_begin(&o, line, sizeof(line), "fence_in");
	proxy_ctl_send(&o);
	px.nfence = INT_MIN / 2;   /* no barrier_in counts until fence_out */
}

/* ---- PMI server ------------------------------------------------------- */

static void proxy_pmi_reply(struct proxy_rank *r, struct pmi_wire_out *o)
{
	if (r->pmi_fd < 0)
		return;
	if (pmi_wire_end(o) < 0 || pmi_wire_write_all(r->pmi_fd, o->buf, o->len) < 0)
		michi_debug("proxy: reply to rank %d failed: %s", r->rank, michi_err_msg());
}

static void proxy_pmi_error(struct proxy_rank *r, const char *why)
{
	char line[PMI_WIRE_LINE_MAX], esc[512];
	struct pmi_wire_out o;

	pmi_wire_escape(esc, sizeof(esc), why, strlen(why) > 160 ? 160 : strlen(why));
	pmi_wire_begin(&o, line, sizeof(line), "error");
	pmi_wire_add(&o, "rc", "-1");
	pmi_wire_add(&o, "msg", esc);
	proxy_pmi_reply(r, &o);
}

static void proxy_pmi_put(struct proxy_rank *r, const struct pmi_wire_msg *m,
			  struct pmi_wire_out *o)
{
	const char *kvs = pmi_wire_get(m, "kvsname");
	const char *key = pmi_wire_get(m, "key");
	const char *val = pmi_wire_get(m, "value");
	const char *why = NULL;

	if (!key || !val)
		why = "put_needs_key_and_value";
	else if (kvs && strcmp(kvs, px.kvsname) != 0)
		why = "unknown_kvsname";
	else if (!*key || strlen(key) >= PMI_WIRE_KEY_MAX)
		why = "key_empty_or_too_long";
	else if (strlen(val) >= PMI_WIRE_VAL_MAX)
		why = "value_too_long";
	else if (proxy_kvs_put(key, val, 1) < 0)
		why = "out_of_memory";
	pmi_wire_add(o, "rc", why ? "-1" : "0");
	pmi_wire_add(o, "msg", why ? why : "success");
}

static void proxy_pmi_get(struct proxy_rank *r, const struct pmi_wire_msg *m,
			  struct pmi_wire_out *o)
{
	const char *key = pmi_wire_get(m, "key");
	struct proxy_kv *kv = key ? proxy_kvs_find(key) : NULL;

	if (!kv) {
		pmi_wire_add(o, "rc", "-1");
		pmi_wire_add(o, "msg", "key_not_found");
		return;
	}
	pmi_wire_add(o, "rc", "0");
	pmi_wire_add(o, "msg", "success");
	pmi_wire_add(o, "value", kv->val);
}

static void proxy_pmi_abort(struct proxy_rank *r, const struct pmi_wire_msg *m)
{
	char line[8192];   /* the message below is capped at 4096 */
	const char *msg = pmi_wire_get(m, "message");
	struct pmi_wire_out o;
	int code = 1;

	if (pmi_wire_get_int(m, "exitcode", &code) < 0)
		code = 1;
	pmi_wire_begin(&o, line, sizeof(line), "abort");
	pmi_wire_add_int(&o, "rank", r->rank);
	pmi_wire_add_int(&o, "pid", r->pid);
	pmi_wire_add_int(&o, "exitcode", code);
	/* already percent-encoded by the client; pass through */
	if (msg && strlen(msg) < 4096)
		pmi_wire_add(&o, "message", msg);
	proxy_ctl_send(&o);
}

/* ---- name service (MPI_Publish_name and friends) ------------------------ */

/*
 * publish_name, unpublish_name and lookup_name of PMI-1 go to mpirun,
 * which keeps the job's table of service names (launch/mpirun.c,
 * mr_ns_line), as `ns op=... rank=... service=... [port=...]`; its answer
 * `ns_reply rank=... answer=... rc=... msg=... [port=...]` goes back to
 * that rank as the PMI answer line. Returns -1 for other commands.
 */
static int proxy_ns_forward(struct proxy_rank *r, const struct pmi_wire_msg *m)
{
	static const char *const ops[] = { "publish_name", "unpublish_name", "lookup_name", NULL };
	char line[PMI_WIRE_LINE_MAX];
	const char *cmd = pmi_wire_cmd(m), *svc = pmi_wire_get(m, "service"),
		   *port = pmi_wire_get(m, "port");
	struct pmi_wire_out o;
	int i;

	for (i = 0; ops[i] && strcmp(ops[i], cmd) != 0; i++)
		;
	if (!ops[i])
		return -1;
	if (!svc) {
		proxy_pmi_error(r, "name service request without service=");
		return 0;
	}
	pmi_wire_begin(&o, line, sizeof(line), "ns");
	pmi_wire_add(&o, "op", cmd);
	pmi_wire_add_int(&o, "rank", r->rank);
	pmi_wire_add(&o, "service", svc);
	if (port)
		pmi_wire_add(&o, "port", port);
	proxy_ctl_send(&o);
	return 0;
}

static void proxy_ns_reply(const struct pmi_wire_msg *m)
{
	char line[PMI_WIRE_LINE_MAX];
	const char *answer = pmi_wire_get(m, "answer"), *rc = pmi_wire_get(m, "rc"),
		   *msg = pmi_wire_get(m, "msg"), *port = pmi_wire_get(m, "port");
	struct pmi_wire_out o;
	int rank, i;

	if (!answer || !rc || pmi_wire_get_int(m, "rank", &rank) < 0)
		return;
	for (i = 0; i < px.nranks && px.ranks[i].rank != rank; i++)
		;
	if (i == px.nranks)
		return;
	pmi_wire_begin(&o, line, sizeof(line), answer);
	pmi_wire_add(&o, "rc", rc);
	if (msg)
		pmi_wire_add(&o, "msg", msg);
	if (port)
		pmi_wire_add(&o, "port", port);
	proxy_pmi_reply(&px.ranks[i], &o);
}

static void proxy_pmi_line(struct proxy_rank *r, const struct pmi_wire_msg *m)
{
	char line[PMI_WIRE_LINE_MAX];
	const char *cmd = pmi_wire_cmd(m);
	struct pmi_wire_out o;

	if (strcmp(cmd, "init") == 0) {
		const char *v = pmi_wire_get(m, "pmi_version");

		r->initialized = 1;
		pmi_wire_begin(&o, line, sizeof(line), "response_to_init");
		pmi_wire_add(&o, "pmi_version", "1");
		pmi_wire_add(&o, "pmi_subversion", "1");
		pmi_wire_add(&o, "rc", v && strcmp(v, "1") == 0 ? "0" : "-1");
	} else if (strcmp(cmd, "get_maxes") == 0) {
		pmi_wire_begin(&o, line, sizeof(line), "maxes");
		pmi_wire_add(&o, "rc", "0");
		pmi_wire_add_int(&o, "kvsname_max", PMI_WIRE_KVSNAME_MAX);
		pmi_wire_add_int(&o, "keylen_max", PMI_WIRE_KEY_MAX);
		pmi_wire_add_int(&o, "vallen_max", PMI_WIRE_VAL_MAX);
	} else if (strcmp(cmd, "get_appnum") == 0) {
		pmi_wire_begin(&o, line, sizeof(line), "appnum");
		pmi_wire_add(&o, "rc", "0");
		pmi_wire_add_int(&o, "appnum", r->appnum);
	} else if (strcmp(cmd, "get_my_kvsname") == 0) {
		pmi_wire_begin(&o, line, sizeof(line), "my_kvsname");
		pmi_wire_add(&o, "rc", "0");
		pmi_wire_add(&o, "kvsname", px.kvsname);
	} else if (strcmp(cmd, "get_universe_size") == 0) {
		pmi_wire_begin(&o, line, sizeof(line), "universe_size");
		pmi_wire_add(&o, "rc", "0");
		pmi_wire_add_int(&o, "size", px.universe);
	} else if (strcmp(cmd, "put") == 0) {
		pmi_wire_begin(&o, line, sizeof(line), "put_result");
		proxy_pmi_put(r, m, &o);
	} else if (strcmp(cmd, "get") == 0) {
		pmi_wire_begin(&o, line, sizeof(line), "get_result");
		proxy_pmi_get(r, m, &o);
	} else if (strcmp(cmd, "barrier_in") == 0) {
		if (r->in_fence) {
			proxy_pmi_error(r, "barrier_in twice");
			return;
		}
		r->in_fence = 1;
		px.nfence++;
		proxy_fence_check();
		return;
	} else if (strcmp(cmd, "finalize") == 0) {
		r->finalized = 1;
		pmi_wire_begin(&o, line, sizeof(line), "finalize_ack");
		pmi_wire_add(&o, "rc", "0");
	} else if (strcmp(cmd, "abort") == 0) {
		proxy_pmi_abort(r, m);
		return;
	} else if (proxy_ns_forward(r, m) == 0) {
		return;   /* mpirun answers (proxy_ns_reply) */
	} else {
		char why[128];

		snprintf(why, sizeof(why), "unsupported command %.60s", cmd);
		proxy_pmi_error(r, why);
		return;
	}
	proxy_pmi_reply(r, &o);
}

static void proxy_pmi_read(struct proxy_rank *r)
{
	struct pmi_wire_msg m;
	michi_status_t st = pmi_wire_reader_fill(&r->rd, r->pmi_fd);

	for (;;) {
		michi_status_t nx = pmi_wire_reader_next(&r->rd, &m);

		if (nx == MICHI_INPROGRESS)
			break;
		if (nx < 0) {
			michi_warn("proxy: bad PMI line from rank %d: %s", r->rank,
				   michi_err_msg());
			proxy_pmi_error(r, michi_err_msg());
			michi_err_clear();
			continue;
		}
		proxy_pmi_line(r, &m);
	}
	if (st == MICHI_ERR_PEER || st == MICHI_ERR_IO) {
		michi_err_clear();
		close(r->pmi_fd);
		r->pmi_fd = -1;
	}
}

/* ---- binding ---------------------------------------------------------- */

/*
 * --bind-to: rank k of this host (local rank order) is bound to object
 * k mod n of the level, n the objects of that level hwloc sees in what
 * the proxy may use, by logical index; with more ranks than objects,
 * several share one, and the proxy says so once. The child binds itself
 * between fork and exec, so the rank's first instruction runs there.
 */
static michi_status_t proxy_bind_setup(void)
{
#ifdef HAVE_HWLOC
	static const struct {
		const char *name;
		hwloc_obj_type_t type;
	} lv[] = {
		{ "hwthread", HWLOC_OBJ_PU }, { "core", HWLOC_OBJ_CORE },
		{ "l3cache", HWLOC_OBJ_L3CACHE }, { "socket", HWLOC_OBJ_PACKAGE },
		{ "numa", HWLOC_OBJ_NUMANODE },
	};
	size_t i;
#endif
	const char *host = px.host && *px.host ? px.host : michi_hostname();

	if (!px.bind || !strcmp(px.bind, "none"))
		return MICHI_OK;
#ifdef HAVE_HWLOC
	for (i = 0; i < sizeof(lv) / sizeof(lv[0]) && strcmp(lv[i].name, px.bind); i++)
		;
	if (i == sizeof(lv) / sizeof(lv[0]))
		return michi_err(MICHI_ERR_INVAL, "proxy: unknown --bind-to level '%s'", px.bind);
	px.bind_type = lv[i].type;
	if (hwloc_topology_init(&px.topo) != 0 || hwloc_topology_load(px.topo) != 0)
		return michi_err(MICHI_ERR_IO, "proxy: hwloc cannot read the topology of host "
				 "%s for --bind-to %s: %m", host, px.bind);
	px.nobjs = hwloc_get_nbobjs_by_type(px.topo, px.bind_type);
	if (px.nobjs <= 0)
		return michi_err(MICHI_ERR_INVAL, "proxy: host %s has no %s that hwloc can see; "
				 "choose another --bind-to level", host, px.bind);
	/* sharing a socket or a cache is what those levels are for */
	if (px.nranks > px.nobjs && (px.bind_type == HWLOC_OBJ_PU || px.bind_type == HWLOC_OBJ_CORE))
		michi_warn("%d ranks on host %s and %d %s%s: ranks are bound round robin, "
			   "several to each", px.nranks, host, px.nobjs, px.bind,
			   px.nobjs == 1 ? "" : "s");
	return MICHI_OK;
#else
	return michi_err(MICHI_ERR_INVAL, "proxy: --bind-to %s needs hwloc, and this "
			 "michi-proxy (on host %s) was built without it", px.bind, host);
#endif
}

/* In the child, before exec: bind as proxy_bind_setup decided. */
static void proxy_bind_child(const struct proxy_rank *r)
{
#ifdef HAVE_HWLOC
	hwloc_obj_t obj;

	if (r->bind_obj < 0)
		return;
	obj = hwloc_get_obj_by_type(px.topo, px.bind_type, (unsigned)r->bind_obj);
	if (!obj || hwloc_set_cpubind(px.topo, obj->cpuset, HWLOC_CPUBIND_PROCESS) != 0) {
		fprintf(stderr, "mpirun: cannot bind rank %d to %s %d on %s: %m\n",
			r->rank, px.bind, r->bind_obj,
			px.host && *px.host ? px.host : michi_hostname());
		_exit(127);
	}
#else
	(void)r;
#endif
}

/* "0-3,8": the cpus a rank may run on */
static void proxy_cpu_list(const struct proxy_rank *r, char *buf, size_t len)
{
	cpu_set_t set;
	size_t n = 0;
	int c, first = -1;

	buf[0] = '\0';
#ifdef HAVE_HWLOC
	if (r->bind_obj >= 0) {
		hwloc_obj_t obj = hwloc_get_obj_by_type(px.topo, px.bind_type,
							 (unsigned)r->bind_obj);

		if (obj)
			hwloc_bitmap_list_snprintf(buf, len, obj->cpuset);
		return;
	}
#endif
	(void)r;
	/* not bound: it inherited ours */
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return;
	for (c = 0; c <= CPU_SETSIZE && n < len; c++) {
		int in = c < CPU_SETSIZE && CPU_ISSET(c, &set);

		if (in && first < 0)
			first = c;
		if (!in && first >= 0) {
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", first);
			if (c - 1 > first && n < len)
				n += (size_t)snprintf(buf + n, len - n, "-%d", c - 1);
			first = -1;
		}
	}
}

/* --report-bindings: one line per rank on the job's stderr */
static void proxy_report_binding(const struct proxy_rank *r)
{
	char cpus[256], line[512];
	const char *host = px.host && *px.host ? px.host : michi_hostname();
	int n;

	if (!px.report_bindings)
		return;
	proxy_cpu_list(r, cpus, sizeof(cpus));
	if (r->bind_obj >= 0)
		n = snprintf(line, sizeof(line), "[%s] rank %d bound to %s %d (cpus %s)\n",
			     host, r->rank, px.bind, r->bind_obj, cpus);
	else
		n = snprintf(line, sizeof(line), "[%s] rank %d not bound (cpus %s)\n",
			     host, r->rank, cpus);
	if (n > 0)
		proxy_sink_append(&px.sink[1], line, (size_t)n < sizeof(line) ? (size_t)n :
				  sizeof(line) - 1);
}

/* ---- starting ranks --------------------------------------------------- */

static void proxy_child(struct proxy_rank *r, const struct proxy_app *a,
			int pmi_fd, int out[2], int err[2], int in_fd, pid_t parent)
{
	sigset_t none;
	char num[24];
	int i, fd;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(in_fd, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
		_exit(127);
	/* the PMI socket is the one fd a rank inherits on purpose */
	fd = fcntl(pmi_fd, F_DUPFD, 3);
	if (fd < 0)
		_exit(127);
	/* the job's variables first: the launcher's own below win */
	for (i = 0; i < a->nenv; i++)
		setenv(a->env[2 * i], a->env[2 * i + 1], 1);
	snprintf(num, sizeof(num), "%d", fd);
	setenv("PMI_FD", num, 1);
	snprintf(num, sizeof(num), "%d", r->rank);
	setenv("PMI_RANK", num, 1);
	snprintf(num, sizeof(num), "%d", px.size);
	setenv("PMI_SIZE", num, 1);
	snprintf(num, sizeof(num), "%d", r->local_rank);
	setenv("MPI_LOCALRANKID", num, 1);
	snprintf(num, sizeof(num), "%d", px.nranks);
	setenv("MPI_LOCALNRANKS", num, 1);
	/* the name mpirun started us by: network namespaces share the
	 * kernel's hostname, and their ranks must not take shm to each other */
	if (px.host && *px.host)
		setenv("MICHI_HOSTNAME", px.host, 1);
	/* the host's site from the hostfile or --host H@SITE: over what
	 * the environment or -env says (mpi/site.c) */
	if (px.site && *px.site)
		setenv("MICHI_SITE", px.site, 1);
	unsetenv("PMI_PORT");
	unsetenv("PMI_ID");
	/* the processors the job may use here, before the rank binds itself:
	 * a taskset or cpuset around mpirun narrows them below what hwloc
	 * says the machine allows, and the library counts this host's ranks
	 * against them (devices/device.c). With the proxy's pid: only a
	 * direct child takes it, not a program that inherits it later. */
	{
		cpu_set_t cs;
		char v[48];

		if (sched_getaffinity(0, sizeof(cs), &cs) == 0 && CPU_COUNT(&cs) > 0) {
			snprintf(v, sizeof(v), "%d,%d", CPU_COUNT(&cs), (int)parent);
			setenv("MICHI_HOST_CPUS", v, 1);
		}
	}
	proxy_bind_child(r);
	execvp(a->argv[0], a->argv);
	fprintf(stderr, "mpirun: cannot run '%s' (rank %d on %s): %m\n",
		a->argv[0], r->rank, px.host && *px.host ? px.host : michi_hostname());
	_exit(127);
}

static michi_status_t proxy_spawn(struct proxy_rank *r, const struct proxy_app *a)
{
	int sv[2], out[2], err[2], in_pipe[2] = { -1, -1 }, in_fd;
	pid_t pid, parent = getpid();

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return michi_err(MICHI_ERR_IO, "proxy: socketpair failed: %m");
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return michi_err(MICHI_ERR_IO, "proxy: pipe failed: %m");
	if (r->rank == px.stdin_rank && px.in_fd >= 0) {
		if (pipe2(in_pipe, O_CLOEXEC) < 0)
			return michi_err(MICHI_ERR_IO, "proxy: pipe failed: %m");
		in_fd = in_pipe[0];
	} else {
		in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (in_fd < 0)
			return michi_err(MICHI_ERR_IO, "proxy: cannot open /dev/null: %m");
	}
	pid = fork();
	if (pid < 0)
		return michi_err(MICHI_ERR_IO, "proxy: fork for rank %d failed: %m", r->rank);
	if (pid == 0)
		proxy_child(r, a, sv[1], out, err, in_fd, parent);
	/* both sides set the group so that a kill right after fork hits it */
	setpgid(pid, pid);
	r->pid = pid;
	close(sv[1]);
	close(out[1]);
	close(err[1]);
	close(in_fd);
	r->pmi_fd = sv[0];
	/* a dead rank's socket may still be open in its children: never
	 * block on it */
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	r->io[0].fd = out[0];
	r->io[1].fd = err[0];
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	if (in_pipe[1] >= 0) {
		fcntl(in_pipe[1], F_SETFL, O_NONBLOCK);
		px.in_pipe = in_pipe[1];
	}
	return pmi_wire_reader_init(&r->rd, PMI_WIRE_LINE_MAX);
}

static michi_status_t proxy_start(void)
{
	char line[128];
	struct pmi_wire_out o;
	michi_status_t st0;
	int i, j, k = 0;

	for (i = 0; i < px.napps; i++)
		px.nranks += px.apps[i].n;
	px.ranks = calloc((size_t)px.nranks + 1, sizeof(*px.ranks));
	if (!px.ranks)
		return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for %d ranks", px.nranks);
	if ((st0 = proxy_bind_setup()) < 0)
		return st0;
	for (i = 0; i < px.napps; i++) {
		for (j = 0; j < px.apps[i].n; j++, k++) {
			struct proxy_rank *r = &px.ranks[k];
			michi_status_t st;

			r->rank = px.apps[i].first + j * px.apps[i].stride;
			r->local_rank = k;
			r->appnum = px.apps[i].appnum;
			r->pmi_fd = r->io[0].fd = r->io[1].fd = -1;
			r->bind_obj = -1;
#ifdef HAVE_HWLOC
			if (px.nobjs > 0)
				r->bind_obj = k % px.nobjs;
#endif
			st = proxy_spawn(r, &px.apps[i]);
			if (st < 0)
				return st;
			proxy_report_binding(r);
			pmi_wire_begin(&o, line, sizeof(line), "started");
			pmi_wire_add_int(&o, "rank", r->rank);
			pmi_wire_add_int(&o, "pid", r->pid);
			proxy_ctl_send(&o);
		}
	}
	return MICHI_OK;
}

/* ---- control messages from mpirun ------------------------------------- */

static char *proxy_text(const struct pmi_wire_msg *m, const char *key)
{
	const char *v = pmi_wire_get(m, key);
	char *s = strdup(v ? v : "");

	if (s)
		pmi_wire_unescape(s);
	return s;
}

static void proxy_fence_out(void)
{
	char line[64];
	struct pmi_wire_out o;
	int i;

	px.nfence = 0;
	for (i = 0; i < px.nranks; i++) {
		px.ranks[i].in_fence = 0;
		pmi_wire_begin(&o, line, sizeof(line), "barrier_out");
		pmi_wire_add(&o, "rc", "0");
		proxy_pmi_reply(&px.ranks[i], &o);
	}
}

static void proxy_kill_all(int sig)
{
	int i;

	for (i = 0; i < px.nranks; i++)
		if (px.ranks[i].pid > 0 && !px.ranks[i].reaped)
			kill(-px.ranks[i].pid, sig);
}

static void proxy_begin_kill(void)
{
	if (px.killing)
		return;
	px.killing = 1;
	px.kill_at = michi_wtime() + proxy_kill_grace;
	proxy_kill_all(SIGTERM);
}

/*
 * mpirun's working directory (or -wdir) for the ranks: the proxy moves
 * there itself. Missing here: with -wdir the job fails, else its ranks on
 * this host start in the home directory, and the user is told.
 */
static michi_status_t proxy_chdir(const struct pmi_wire_msg *m)
{
	char *path = proxy_text(m, "path");
	const char *host = px.host && *px.host ? px.host : michi_hostname();
	const char *home = getenv("HOME");
	michi_status_t st = MICHI_OK;
	int required = 0;

	if (!path)
		return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for the working directory");
	if (pmi_wire_get(m, "required"))
		pmi_wire_get_int(m, "required", &required);
	if (chdir(path) < 0) {
		int e = errno;

		if (required) {
			st = michi_err(MICHI_ERR_INVAL, "cannot enter the working directory %s "
				       "(-wdir): %s", path, strerror(e));
		} else {
			if (!home || chdir(home) < 0)
				home = chdir("/") == 0 ? "/" : "the proxy's directory";
			michi_warn("host %s has no directory %s (%s); its ranks start in %s",
				   host, path, strerror(e), home);
		}
	}
	free(path);
	return st;
}

static michi_status_t proxy_ctl_line(const struct pmi_wire_msg *m, int *started)
{
	const char *cmd = pmi_wire_cmd(m);
	struct proxy_app *a = px.napps ? &px.apps[px.napps - 1] : NULL;

	if (strcmp(cmd, "job") == 0) {
		const char *k = pmi_wire_get(m, "kvsname");

		if (!k || strlen(k) >= sizeof(px.kvsname) ||
		    pmi_wire_get_int(m, "size", &px.size) < 0 ||
		    pmi_wire_get_int(m, "universe", &px.universe) < 0 ||
		    pmi_wire_get_int(m, "label", &px.label) < 0 ||
		    pmi_wire_get_int(m, "stdin_rank", &px.stdin_rank) < 0)
			return michi_err(MICHI_ERR_INVAL, "proxy: bad job line from mpirun");
		strcpy(px.kvsname, k);
		/* an older mpirun sends no bind: none */
		px.bind = launch_bind_names[0];
		k = pmi_wire_get(m, "bind");
		if (k) {
			int b;

			for (b = 0; launch_bind_names[b] && strcmp(k, launch_bind_names[b]); b++)
				;
			if (!launch_bind_names[b])
				return michi_err(MICHI_ERR_INVAL, "proxy: mpirun asks for --bind-to %s, "
						 "which this michi-proxy does not know", k);
			px.bind = launch_bind_names[b];
		}
		k = pmi_wire_get(m, "report_bindings");
		px.report_bindings = k && atoi(k) > 0;
		free(px.host);
		px.host = pmi_wire_get(m, "host") ? proxy_text(m, "host") : NULL;
		free(px.site);
		px.site = pmi_wire_get(m, "site") ? proxy_text(m, "site") : NULL;
		k = pmi_wire_get(m, "grace_ms");
		if (k && atoi(k) >= 0)
			proxy_kill_grace = atoi(k) / 1000.0;
		/* mpirun's value wins: over ssh our environment is not its */
		k = pmi_wire_get(m, "keepalive_ms");
		if (k && atoi(k) >= 0) {
			launch_keepalive = atoi(k) / 1000.0;
			launch_ctl_keepalive(px.ctl, launch_keepalive);
		}
	} else if (strcmp(cmd, "wdir") == 0) {
		return proxy_chdir(m);
	} else if (strcmp(cmd, "kv") == 0) {
		const char *k = pmi_wire_get(m, "key"), *v = pmi_wire_get(m, "value");

		if (!k || !v)
			return michi_err(MICHI_ERR_INVAL, "proxy: bad kv line from mpirun");
		if (strcmp(k, "michi-job-key") == 0)
			proxy_note_key(v);
		return proxy_kvs_put(k, v, 0);
	} else if (strcmp(cmd, "app") == 0) {
		struct proxy_app *na = realloc(px.apps, (size_t)(px.napps + 1) * sizeof(*na));

		if (!na)
			return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for an app");
		px.apps = na;
		a = &px.apps[px.napps++];
		memset(a, 0, sizeof(*a));
		if (pmi_wire_get_int(m, "appnum", &a->appnum) < 0 ||
		    pmi_wire_get_int(m, "first", &a->first) < 0 ||
		    pmi_wire_get_int(m, "n", &a->n) < 0 || a->n < 0 ||
		    pmi_wire_get_int(m, "argc", &a->argc) < 0 || a->argc < 1)
			return michi_err(MICHI_ERR_INVAL, "proxy: bad app line from mpirun");
		a->stride = 1;
		if (pmi_wire_get(m, "stride") &&
		    (pmi_wire_get_int(m, "stride", &a->stride) < 0 || a->stride < 1))
			return michi_err(MICHI_ERR_INVAL, "proxy: bad stride in app line");
		a->argv = calloc((size_t)a->argc + 1, sizeof(char *));
		if (!a->argv)
			return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for argv");
		a->argmax = a->argc;
		a->argc = 0;
	} else if (strcmp(cmd, "arg") == 0 && a) {
		if (a->argc >= a->argmax)
			return michi_err(MICHI_ERR_INVAL, "proxy: more arg lines than app argc");
		a->argv[a->argc] = proxy_text(m, "value");
		if (!a->argv[a->argc])
			return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for an argument");
		a->argc++;
	} else if (strcmp(cmd, "env") == 0 && a) {
		char **ne = realloc(a->env, (size_t)(a->nenv + 1) * 2 * sizeof(char *));

		if (!ne)
			return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for env");
		a->env = ne;
		ne[2 * a->nenv] = proxy_text(m, "name");
		ne[2 * a->nenv + 1] = proxy_text(m, "value");
		a->nenv++;
	} else if (strcmp(cmd, "start") == 0) {
		for (int i = 0; i < px.napps; i++)
			if (px.apps[i].argc != px.apps[i].argmax || px.apps[i].argc == 0)
				return michi_err(MICHI_ERR_INVAL, "proxy: app %d lacks arguments", i);
		*started = 1;
		return proxy_start();
	} else if (strcmp(cmd, "fence_out") == 0) {
		proxy_fence_out();
	} else if (strcmp(cmd, "kill") == 0) {
		proxy_begin_kill();
	} else if (strcmp(cmd, "ns_reply") == 0) {
		proxy_ns_reply(m);
	} else {
		michi_warn("proxy: ignoring unknown control command '%s'", cmd);
	}
	return MICHI_OK;
}

/* ---- the loop --------------------------------------------------------- */

static void proxy_reap(void)
{
	int status, i;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (i = 0; i < px.nranks; i++) {
			struct proxy_rank *r = &px.ranks[i];

			if (r->pid != pid)
				continue;
			r->reaped = 1;
			/* an abort or finalize the rank sent before dying
			 * must reach mpirun before its exit */
			if (r->pmi_fd >= 0)
				proxy_pmi_read(r);
			if (!px.killing)
				proxy_flush_rank(r);
			proxy_report_exit(r, status);
		}
	}
}

static void proxy_signal(void)
{
	struct signalfd_siginfo si;

	while (read(px.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			proxy_reap();
		else
			proxy_begin_kill();
	}
}

static void proxy_stdin_read(void)
{
	ssize_t n = read(px.in_fd, px.in_buf + px.in_len, sizeof(px.in_buf) - px.in_len);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		px.in_fd = -1;   /* fd 0 itself stays open; we just stop */
		return;
	}
	px.in_len += (size_t)n;
}

static void proxy_stdin_write(void)
{
	ssize_t n = write(px.in_pipe, px.in_buf, px.in_len);

	if (n < 0) {
		if (errno == EINTR || errno == EAGAIN)
			return;
		/* rank closed its stdin */
		close(px.in_pipe);
		px.in_pipe = -1;
		px.in_fd = -1;
		return;
	}
	memmove(px.in_buf, px.in_buf + n, px.in_len - (size_t)n);
	px.in_len -= (size_t)n;
}

static int proxy_all_done(void)
{
	int i;

	for (i = 0; i < px.nranks; i++) {
		struct proxy_rank *r = &px.ranks[i];

		if (!r->reaped || r->io[0].fd >= 0 || r->io[1].fd >= 0)
			return 0;
	}
	return 1;
}

enum { PFD_CTL, PFD_SIG, PFD_OUT, PFD_ERR, PFD_IN, PFD_INPIPE, PFD_FIXED };

static int proxy_timeout_ms(void)
{
	double left;

	if (!px.killing)
		return 1000;
	left = px.kill_at - michi_wtime();
	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

static michi_status_t proxy_loop(struct pmi_wire_reader *ctl_rd)
{
	struct pollfd *pfd;
	int started = 0, i, nfd;
	double end_at = 0;

	pfd = calloc(PFD_FIXED, sizeof(*pfd));
	if (!pfd)
		return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for poll set");
	for (;;) {
		struct pmi_wire_msg m;
		michi_status_t st;

		if (started && proxy_all_done()) {
			if (!px.done_sent) {
				char line[32];
				struct pmi_wire_out o;

				pmi_wire_begin(&o, line, sizeof(line), "done");
				proxy_ctl_send(&o);
				px.done_sent = 1;
				end_at = michi_wtime() + 5.0;
			}
			/* a finished job waits for its reader (a dead reader
			 * fails the write and drops the rest); a killed one
			 * gives output a few seconds */
			if ((px.sink[0].len == 0 && px.sink[1].len == 0) ||
			    (px.killing && michi_wtime() > end_at))
				break;
		}
		if (px.killing && michi_wtime() >= px.kill_at) {
			proxy_kill_all(SIGKILL);
			/* grandchildren may hold the pipes: stop waiting for them */
			for (i = 0; i < px.nranks; i++)
				if (px.ranks[i].reaped)
					for (int w = 0; w < 2; w++)
						if (px.ranks[i].io[w].fd >= 0) {
							proxy_stream_lines(&px.ranks[i], w, 1);
							close(px.ranks[i].io[w].fd);
							px.ranks[i].io[w].fd = -1;
						}
			px.kill_at = michi_wtime() + 0.2;
		}
		memset(pfd, 0, sizeof(*pfd) * PFD_FIXED);
		for (i = 0; i < PFD_FIXED; i++)
			pfd[i].fd = -1;
		pfd[PFD_CTL].fd = px.ctl;
		pfd[PFD_CTL].events = POLLIN;
		pfd[PFD_SIG].fd = px.sigfd;
		pfd[PFD_SIG].events = POLLIN;
		for (i = 0; i < 2; i++) {
			pfd[PFD_OUT + i].fd = px.sink[i].len ? px.sink[i].fd : -1;
			pfd[PFD_OUT + i].events = POLLOUT;
		}
		if (px.in_fd >= 0 && px.in_pipe >= 0 && px.in_len < sizeof(px.in_buf)) {
			pfd[PFD_IN].fd = px.in_fd;
			pfd[PFD_IN].events = POLLIN;
		}
		if (px.in_pipe >= 0 && px.in_len > 0) {
			pfd[PFD_INPIPE].fd = px.in_pipe;
			pfd[PFD_INPIPE].events = POLLOUT;
		}
		nfd = PFD_FIXED;
		for (i = 0; i < px.nranks; i++) {
			struct proxy_rank *r = &px.ranks[i];

			pfd[nfd].fd = r->pmi_fd;
			pfd[nfd++].events = POLLIN;
			for (int w = 0; w < 2; w++) {
				int full = px.sink[w].len >= PROXY_SINK_MAX;

				pfd[nfd].fd = full ? -1 : r->io[w].fd;
				pfd[nfd++].events = POLLIN;
			}
		}
		if (poll(pfd, (nfds_t)nfd, proxy_timeout_ms()) < 0) {
			if (errno == EINTR)
				continue;
			return michi_err(MICHI_ERR_IO, "proxy: poll failed: %m");
		}
		if (pfd[PFD_SIG].revents)
			proxy_signal();
		if (pfd[PFD_CTL].revents) {
			int was_started = started;

			st = pmi_wire_reader_fill(ctl_rd, px.ctl);
			for (;;) {
				michi_status_t nx = pmi_wire_reader_next(ctl_rd, &m);

				if (nx == MICHI_INPROGRESS)
					break;
				if (nx == MICHI_OK)
					nx = proxy_ctl_line(&m, &started);
				if (nx < 0) {
					proxy_report_error(michi_err_msg());
					michi_err_clear();
					proxy_begin_kill();
					if (!started) {
						proxy_drain_ctl();
						return MICHI_ERR_INVAL;
					}
				}
			}
			if (started && !was_started) {
				struct pollfd *np = realloc(pfd, sizeof(*pfd) *
					(PFD_FIXED + 3 * (size_t)px.nranks));

				if (!np)
					return michi_err(MICHI_ERR_NOMEM, "proxy: no memory for poll set");
				pfd = np;
				continue;   /* revents below belong to the old set */
			}
			if (st == MICHI_ERR_PEER || st == MICHI_ERR_IO) {
				int err = st == MICHI_ERR_IO ? errno : 0;

				close(px.ctl);
				px.ctl = -1;
				michi_err_clear();
				if (!px.killing && !px.done_sent)
					michi_error("proxy on host %s: lost mpirun (%s); killing its %d ranks",
						    px.host ? px.host : michi_hostname(),
						    err == ETIMEDOUT ? "no answer within the keepalive time" :
						    err ? strerror(err) : "connection closed", px.nranks);
				if (!started)
					return MICHI_ERR_PEER;
				proxy_begin_kill();
			}
		}
		for (i = 0; i < 2; i++)
			if (pfd[PFD_OUT + i].revents)
				proxy_sink_write(&px.sink[i]);
		if (pfd[PFD_IN].revents)
			proxy_stdin_read();
		if (pfd[PFD_INPIPE].revents)
			proxy_stdin_write();
		if (px.in_fd < 0 && px.in_len == 0 && px.in_pipe >= 0) {
			close(px.in_pipe);   /* EOF reaches the rank */
			px.in_pipe = -1;
		}
		nfd = PFD_FIXED;
		for (i = 0; i < px.nranks; i++) {
			struct proxy_rank *r = &px.ranks[i];

			if (pfd[nfd++].revents && r->pmi_fd >= 0)
				proxy_pmi_read(r);
			for (int w = 0; w < 2; w++)
				if (pfd[nfd++].revents && r->io[w].fd >= 0)
					proxy_stream_read(r, w);
		}
	}
	free(pfd);
	return MICHI_OK;
}

static void proxy_usage(void)
{
	fprintf(stderr,
		"usage: michi-proxy --control-fd N | --connect ADDR:PORT[,ADDR:PORT...]\n"
		"  started by mpirun, one per host; not meant to be run by hand.\n"
		"  --connect reads a one-line cookie from stdin, then connects back to\n"
		"  the first of mpirun's addresses that answers.\n");
}

/* The cookie comes on stdin so that it never shows in ps. */
static int proxy_read_cookie(char *buf, size_t len)
{
	double until = michi_wtime() + 30.0;
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd pfd = { .fd = 0, .events = POLLIN };
		double left = until - michi_wtime();
		ssize_t r;

		if (left <= 0 || poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			return -1;
		r = read(0, buf + n, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		if (buf[n] == '\n') {
			buf[n] = '\0';
			return 0;
		}
		n++;
	}
	return -1;
}

/*
 * Connecting back to mpirun. mpirun gives every address it has (it
 * cannot know which of its networks this host reaches: a launch node on
 * a management network, a login node with a public and a cluster side,
 * a namespace host that only sees a bridge), and the proxy tries them as
 * a browser tries a name's addresses (RFC 8305): in order of preference,
 * the next one started when the one before failed or has not answered
 * within PROXY_TRY_DELAY, the first to connect taken. An address that
 * cannot work then costs at most that delay, even one that swallows
 * SYNs and would take the kernel minutes to give up on.
 */
#define PROXY_TRY_MAX   64
#define PROXY_TRY_DELAY 0.25   /* RFC 8305's connection attempt delay */

struct proxy_try {
	struct sockaddr_storage sa;
	socklen_t salen;
	char name[300];    /* ADDR:PORT as mpirun gave it */
	int tier;          /* PROXY_TIER_*: order of the tries */
	int fd;            /* connecting; -1 otherwise */
	int err;           /* errno of its failure; 0: not failed (yet) */
	const char *why;   /* a failure without errno (name not resolved) */
};

enum {
	PROXY_TIER_NEAR,   /* loopback (mpirun sends it only to its own host), or
			    * on a subnet of one of our interfaces */
	PROXY_TIER_ROUTED, /* reached through a router, if at all */
	PROXY_TIER_OWN,    /* an address of this host: mpirun's only if we share
			    * its host (then loopback comes first), else a
			    * bridge both hosts have (docker0), tried last */
};

static int proxy_try_tier(const struct sockaddr *sa, const struct ifaddrs *ifs)
{
	const struct ifaddrs *i;
	struct in_addr a;
	int tier = PROXY_TIER_ROUTED;

	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr) ?
		       PROXY_TIER_NEAR : PROXY_TIER_ROUTED;
	a = ((const struct sockaddr_in *)sa)->sin_addr;
	if ((ntohl(a.s_addr) >> 24) == 127)
		return PROXY_TIER_NEAR;
	for (i = ifs; i; i = i->ifa_next) {
		uint32_t own, mask;

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
			continue;
		own = ((const struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
		if (own == a.s_addr)
			return PROXY_TIER_OWN;
		mask = i->ifa_netmask ? ((const struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr : 0;
		if (!(i->ifa_flags & IFF_LOOPBACK) && mask && ((own ^ a.s_addr) & mask) == 0)
			tier = PROXY_TIER_NEAR;
	}
	return tier;
}

/* "A:P,B:P,..." (names too) into *tries, resolved, in tier order. */
static int proxy_try_list(const char *list, struct proxy_try **out)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct proxy_try *t = calloc(PROXY_TRY_MAX, sizeof(*t)), *sorted;
	struct ifaddrs *ifs = NULL;
	const char *item = list;
	int n = 0, k, tier;

	sorted = calloc(PROXY_TRY_MAX, sizeof(*sorted));
	if (!t || !sorted) {
		free(t);
		free(sorted);
		michi_error("no memory for mpirun's addresses");
		return -1;
	}
	if (getifaddrs(&ifs) != 0)
		ifs = NULL;   /* no preference then: mpirun's order */
	while (*item && n < PROXY_TRY_MAX) {
		size_t len = strcspn(item, ",");
		char host[256], port[16];
		const char *last = item + len;
		struct addrinfo *res = NULL, *ai;
		int rc;

		while (last > item && last[-1] != ':')
			last--;
		last = last > item ? last - 1 : NULL;   /* the port's colon */
		if (!last || last == item || (size_t)(last - item) >= sizeof(host) ||
		    (size_t)(item + len - last) >= 16) {
			michi_error("--connect needs ADDR:PORT[,ADDR:PORT...], not '%s'", list);
			goto err;
		}
		/* [v6]:port as well as v4:port and name:port */
		if (*item == '[' && last[-1] == ']')
			snprintf(host, sizeof(host), "%.*s", (int)(last - item - 2), item + 1);
		else
			snprintf(host, sizeof(host), "%.*s", (int)(last - item), item);
		snprintf(port, sizeof(port), "%.*s", (int)(item + len - last - 1), last + 1);
		rc = getaddrinfo(host, port, &hints, &res);
		if (rc != 0) {
			snprintf(t[n].name, sizeof(t[n].name), "%.*s", (int)len, item);
			t[n].why = gai_strerror(rc);
			t[n].fd = -1;
			t[n].tier = PROXY_TIER_NEAR;   /* listed first among the failures */
			n++;
		}
		for (ai = res; ai && n < PROXY_TRY_MAX; ai = ai->ai_next) {
			if (ai->ai_addrlen > sizeof(t[n].sa))
				continue;
			memcpy(&t[n].sa, ai->ai_addr, ai->ai_addrlen);
			t[n].salen = ai->ai_addrlen;
			snprintf(t[n].name, sizeof(t[n].name), "%.*s", (int)len, item);
			t[n].tier = ifs ? proxy_try_tier(ai->ai_addr, ifs) : PROXY_TIER_ROUTED;
			t[n].fd = -1;
			n++;
		}
		if (res)
			freeaddrinfo(res);
		item += len + (item[len] == ',');
	}
	if (ifs)
		freeifaddrs(ifs);
	/* a stable sort by tier: mpirun's order stays within one */
	for (tier = PROXY_TIER_NEAR, k = 0; tier <= PROXY_TIER_OWN; tier++)
		for (int j = 0; j < n; j++)
			if (t[j].tier == tier)
				sorted[k++] = t[j];
	free(t);
	*out = sorted;
	return n;
err:
	if (ifs)
		freeifaddrs(ifs);
	free(t);
	free(sorted);
	return -1;
}

/* Start try t: 1 connected at once, 0 in progress, -1 failed (t->err). */
static int proxy_try_start(struct proxy_try *t)
{
	if (t->why)
		return -1;
	t->fd = socket(t->sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (t->fd < 0) {
		t->err = errno;
		return -1;
	}
	if (connect(t->fd, (struct sockaddr *)&t->sa, t->salen) == 0)
		return 1;
	if (errno == EINPROGRESS)
		return 0;
	t->err = errno;
	close(t->fd);
	t->fd = -1;
	return -1;
}

/*
 * Connect to one of mpirun's addresses within secs: the fd (blocking),
 * or -1 after an error that names every address and why it failed.
 */
static int proxy_connect_any(struct proxy_try *t, int n, double secs)
{
	struct pollfd pfd[PROXY_TRY_MAX];
	int map[PROXY_TRY_MAX];
	double now = michi_wtime(), deadline = now + secs, next = now;
	int started = 0, active = 0, fd = -1, won = -1, i;
	char msg[2048];
	size_t ml;

	for (;;) {
		double until;
		int np = 0;

		now = michi_wtime();
		/* the next address when its time has come or nothing is pending */
		while (won < 0 && started < n && (now >= next || active == 0)) {
			int rc = proxy_try_start(&t[started]);

			if (rc > 0)
				won = started;
			else if (rc == 0)
				active++;
			/* one that failed at once (no route) lets the next start now */
			next = rc == 0 ? now + PROXY_TRY_DELAY : now;
			started++;
		}
		if (won >= 0 || (active == 0 && started == n) || now >= deadline)
			break;
		for (i = 0; i < started; i++)
			if (t[i].fd >= 0) {
				pfd[np].fd = t[i].fd;
				pfd[np].events = POLLOUT;
				map[np++] = i;
			}
		until = started < n && next < deadline ? next : deadline;
		if (poll(pfd, (nfds_t)np, (int)((until - now) * 1000) + 1) < 0 && errno != EINTR) {
			michi_error("poll while connecting to mpirun: %m");
			break;
		}
		for (i = 0; i < np && won < 0; i++) {
			struct proxy_try *c = &t[map[i]];
			int err = 0;
			socklen_t el = sizeof(err);

			if (!pfd[i].revents)
				continue;
			if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
				err = errno;
			active--;
			if (err == 0) {
				won = map[i];
				break;
			}
			c->err = err;
			close(c->fd);
			c->fd = -1;
			next = michi_wtime();
		}
	}
	if (won >= 0) {
		fd = t[won].fd;
		t[won].fd = -1;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		michi_debug("connected to mpirun at %s", t[won].name);
	}
	/* the others; mpirun takes a connection closed before a byte came
	 * for a loser of this race, not for a stranger */
	for (i = 0; i < started; i++)
		if (t[i].fd >= 0) {
			close(t[i].fd);
			t[i].fd = -1;
			t[i].err = ETIMEDOUT;
		}
	if (fd >= 0)
		return fd;
	ml = (size_t)snprintf(msg, sizeof(msg), "cannot connect to mpirun at any of its addresses, "
			      "tried in this order:");
	for (i = 0; i < n && ml < sizeof(msg); i++) {
		char why[64];

		if (t[i].why)
			snprintf(why, sizeof(why), "%s", t[i].why);
		else if (t[i].err == ETIMEDOUT)
			snprintf(why, sizeof(why), "no answer within %g s", secs);
		else if (t[i].err)
			snprintf(why, sizeof(why), "%s", strerror(t[i].err));
		else
			snprintf(why, sizeof(why), "not tried, time was up");
		ml += (size_t)snprintf(msg + ml, sizeof(msg) - ml, "%s %s (%s%s)", i ? "," : "",
				       t[i].name, why,
				       t[i].tier == PROXY_TIER_OWN ? "; an address of this host" : "");
	}
	michi_error("%s (tunable MICHI_LAUNCH_ADDRESS on mpirun's side names the one to use)", msg);
	return -1;
}

static int proxy_connect(const char *list)
{
	struct proxy_try *tries;
	char cookie[128], line[512];
	struct pmi_wire_out o;
	int fd, n;

	if (proxy_read_cookie(cookie, sizeof(cookie)) < 0) {
		michi_error("no cookie line on stdin within 30 s");
		return -1;
	}
	n = proxy_try_list(list, &tries);
	if (n < 0)
		return -1;
	if (n == 0) {
		free(tries);
		michi_error("--connect names no address of mpirun: '%s'", list);
		return -1;
	}
	fd = proxy_connect_any(tries, n, launch_connect_timeout > 0 ? launch_connect_timeout / 2 : 15);
	free(tries);
	if (fd < 0)
		return -1;
	launch_ctl_keepalive(fd, launch_keepalive);
	pmi_wire_begin(&o, line, sizeof(line), "hello");
	pmi_wire_add(&o, "cookie", cookie);
	pmi_wire_add(&o, "host", michi_hostname());
	if (launch_ctl_send(fd, &o) < 0) {
		michi_error("cannot greet mpirun: %s", michi_err_msg());
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The ranks unlink their host's segment once all of them have attached;
 * a job that died before that (a rank killed during MPI_Init, mpirun
 * killed) leaves the name behind. Once our ranks are gone, nobody of the
 * job can still need it.
 */
static void proxy_shm_cleanup(void)
{
	size_t n = strlen(px.shm_prefix);
	struct dirent *e;
	DIR *d;

	if (!n || !(d = opendir("/dev/shm")))
		return;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, px.shm_prefix, n) != 0)
			continue;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			michi_debug("proxy: removed /dev/shm/%s left by the job", e->d_name);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	struct pmi_wire_reader ctl_rd;
	sigset_t mask;
	michi_status_t st;
	char *end;

	michi_log_init();
	michi_tunables_load();
	michi_log_set_prefix("michi-proxy");
	if (argc != 3) {
		proxy_usage();
		return 2;
	}
	px.in_fd = fcntl(0, F_GETFD) >= 0 ? 0 : -1;
	if (strcmp(argv[1], "--connect") == 0) {
		px.ctl = proxy_connect(argv[2]);
		if (px.ctl < 0)
			return 1;
		px.in_fd = -1;   /* stdin carried the cookie; ranks get /dev/null */
	} else if (strcmp(argv[1], "--control-fd") == 0) {
		px.ctl = (int)strtol(argv[2], &end, 10);
		if (*end || px.ctl < 0 || fcntl(px.ctl, F_SETFD, FD_CLOEXEC) < 0) {
			proxy_usage();
			return 2;
		}
	} else {
		proxy_usage();
		return 2;
	}
	/* if mpirun dies, we get SIGTERM and end the ranks */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		return 1;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	px.sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (px.sigfd < 0) {
		michi_error("signalfd failed: %m");
		return 1;
	}
	px.sink[0].fd = 1;
	px.sink[1].fd = 2;
	if (pmi_wire_reader_init(&ctl_rd, LAUNCH_CTL_LINE_MAX) < 0)
		return 1;
	st = proxy_loop(&ctl_rd);
	if (st < 0)
		proxy_kill_all(SIGKILL);
	proxy_shm_cleanup();
	return st < 0 ? 1 : 0;
}
