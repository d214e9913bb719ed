/* SPDX-License-Identifier: MIT */
/*
 * launch/proxy_pmi.c: michi-proxy's PMI-1 server: the job's key-value space
 * (kept whole on every host), the commands of the ranks' PMI sockets, and
 * the name service requests it forwards to mpirun.
 */
#include "config.h"
#include "proxy.h"

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
void proxy_note_key(const char *hex)
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

michi_status_t proxy_kvs_put(const char *key, const char *val, int remember)
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


/* ---- PMI server ------------------------------------------------------- */

void proxy_pmi_reply(struct proxy_rank *r, struct pmi_wire_out *o)
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
 * which keeps the job's table of service names (launch/mpirun_job.c,
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

void proxy_ns_reply(const struct pmi_wire_msg *m)
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

void proxy_pmi_read(struct proxy_rank *r)
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
