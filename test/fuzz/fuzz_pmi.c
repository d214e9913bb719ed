/* SPDX-License-Identifier: MIT */
/*
 * test/fuzz/fuzz_pmi.c: libFuzzer harness over the PMI-1 wire protocol
 * where it reads bytes another process wrote. The first byte picks:
 *  - 0 mod 3: michi-proxy's PMI server (launch/proxy*.c, compiled in
 *    with its main renamed): the input is what a rank wrote on its PMI_FD
 *    socket; proxy_pmi_read() reads, parses (util/pmi_wire.c) and answers
 *    it, line by line, with a reader of 4 KiB;
 *  - 1 mod 3: the client of mpi/env/pmi.c (compiled in): the input is what
 *    the process manager answers; pmi_init, put, fence, get and finalize
 *    run against it;
 *  - 2 mod 3: the control stream mpirun and a proxy share: pmi_wire's
 *    reader with a small line limit (16 to 271 bytes), each line parsed,
 *    its values read as integers and percent-decoded.
 * Built and run by test/fuzz/run.
 */
#define main michi_proxy_main
#include "../../launch/proxy.c"
#undef main
/* the rest of the proxy, in the same translation unit as proxy.c */
#include "../../launch/proxy_pmi.c"
#include "../../launch/proxy_io.c"
#include "../../launch/proxy_ctl.c"
#include "../../launch/proxy_ranks.c"
#include "pmi.h"

static void fz_server(const uint8_t *data, size_t size)
{
	struct proxy_rank r;
	int sv[2], i;
	unsigned b;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return;
	memset(&r, 0, sizeof(r));
	r.rank = 0;
	r.pmi_fd = sv[0];
	r.io[0].fd = r.io[1].fd = -1;
	if (pmi_wire_reader_init(&r.rd, PMI_WIRE_LINE_MAX) < 0)
		goto out;
	px.ranks = &r;
	px.nranks = 1;
	px.nfence = 0;
	px.size = px.universe = 1;
	strcpy(px.kvsname, "kvs_fuzz");
	/* answers go nowhere: a full socket must not block the server */
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	shutdown(sv[1], SHUT_RD);
	if (write(sv[1], data, size) != (ssize_t)size)
		goto out_reader;
	close(sv[1]);
	sv[1] = -1;
	for (i = 0; i < 100000 && r.pmi_fd >= 0; i++)
		proxy_pmi_read(&r);
out_reader:
	pmi_wire_reader_destroy(&r.rd);
out:
	if (r.pmi_fd >= 0)
		close(r.pmi_fd);
	if (sv[1] >= 0)
		close(sv[1]);
	/* forget the puts, so that memory stays bounded over millions of runs */
	for (b = 0; b < PROXY_KVS_BUCKETS; b++) {
		while (px.kvs[b]) {
			struct proxy_kv *kv = px.kvs[b];

			px.kvs[b] = kv->next;
			free(kv->key);
			free(kv->val);
			free(kv);
		}
	}
	while (px.pending) {
		struct proxy_kv *kv = px.pending;

		px.pending = kv->next;
		free(kv->key);
		free(kv->val);
		free(kv);
	}
	px.ranks = NULL;
	px.nranks = 0;
}

static void fz_client(const uint8_t *data, size_t size)
{
	struct pmi_info info;
	char num[16], val[256];
	int sv[2];

	if (size > 100000 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return;
	/* the requests stay unread in sv[1]: they are short, few and fit */
	if (write(sv[1], data, size) != (ssize_t)size) {
		close(sv[0]);
		close(sv[1]);
		return;
	}
	shutdown(sv[1], SHUT_WR);
	snprintf(num, sizeof(num), "%d", sv[0]);
	setenv("PMI_FD", num, 1);
	setenv("PMI_RANK", "0", 1);
	setenv("PMI_SIZE", "2", 1);
	if (pmi_init(&info) == MICHI_OK) {
		if (info.rank < 0 || info.rank >= info.size)
			abort();
		pmi_put("k", "v");
		pmi_fence();
		pmi_get(1, "michi-job-key", val, sizeof(val));
		pmi_get(1, "k", val, 4);
		pmi_finalize();
	} else if (fcntl(sv[0], F_GETFD) >= 0) {
		close(sv[0]);   /* pmi_init closes it on most errors */
	}
	michi_err_clear();
	close(sv[1]);
}

static void fz_ctl(const uint8_t *data, size_t size)
{
	struct pmi_wire_reader rd;
	struct pmi_wire_msg m;
	int p[2], i, v;

	if (size > 60000 || pipe(p) < 0)
		return;
	if (pmi_wire_reader_init(&rd, 16 + (size ? data[0] : 0)) < 0)
		goto out;
	if (write(p[1], data, size) != (ssize_t)size)
		goto out_reader;
	close(p[1]);
	p[1] = -1;
	for (;;) {
		michi_status_t st = pmi_wire_reader_fill(&rd, p[0]), nx;

		while ((nx = pmi_wire_reader_next(&rd, &m)) != MICHI_INPROGRESS) {
			if (nx < 0)
				continue;
			if (!pmi_wire_cmd(&m) || !*pmi_wire_cmd(&m))
				abort();
			for (i = 0; i < m.npairs; i++) {
				char *t = strdup(m.pairs[i].val);

				pmi_wire_get_int(&m, m.pairs[i].key, &v);
				if (t && pmi_wire_unescape(t) > strlen(m.pairs[i].val))
					abort();
				free(t);
			}
		}
		if (st == MICHI_ERR_PEER || st == MICHI_ERR_IO)
			break;
	}
	michi_err_clear();
out_reader:
	pmi_wire_reader_destroy(&rd);
out:
	close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int once;

	if (!once) {
		once = 1;
		/* errors are the point here; keep the log quiet */
		setenv("MICHI_LOG", "error", 1);
		michi_log_init();
		michi_tunables_load();
		signal(SIGPIPE, SIG_IGN);
	}
	if (size == 0)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fz_server(data + 1, size - 1);
		break;
	case 1:
		fz_client(data + 1, size - 1);
		break;
	default:
		fz_ctl(data + 1, size - 1);
	}
	return 0;
}
