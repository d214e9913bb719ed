/* SPDX-License-Identifier: MIT */
/*
 * mpi/env/pmi.c: the PMI-1 wire-protocol client behind MPI_Init.
 *
 * Finds the process manager through the documented protocol variables:
 * PMI_FD (an inherited socket, with PMI_RANK/PMI_SIZE; Michi's mpirun,
 * MPICH's Hydra, Slurm's `srun --mpi=pmi2`, whose plugin also answers
 * PMI-1), or PMI_PORT=host:port plus PMI_ID (Hydra -pmi-port: an
 * `initack` handshake after which the server tells size and rank). With
 * neither, PMIX_RANK/PMIX_NAMESPACE (`srun --mpi=pmix`) hand every call
 * to the PMIx back end (pmi_pmix.c) when the library has one; else the
 * process is a singleton with a local key-value store. Every request is
 * one line answered by one line; waits are bounded by the pmi_timeout
 * tunable.
 */
#include "config.h"
#include "pmi.h"
#include "pmi_wire.h"
#include "pmi_pmix.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static double pmi_timeout = 600.0;
MICHI_TUNABLE(pmi_timeout, "pmi_timeout", MICHI_T_DOUBLE, "600",
	      MICHI_LEVEL_USER,
	      "seconds a PMI request (a fence included) may wait for the process manager");

struct pmi_local_kv {
	struct pmi_local_kv *next;
	char *key, *val;
};

static struct {
	int initialized;
	int singleton;
	int fd;
	int rank;
	struct pmi_wire_reader rd;
	char kvsname[PMI_WIRE_KVSNAME_MAX];
	size_t keylen_max, vallen_max;
	struct pmi_local_kv *local;   /* singleton key-value store */
	const struct pmi_pmix_ops *pmix;   /* set: PMIx serves every call */
} pmi = { .fd = -1 };

/* ---- one request, one answer ------------------------------------------ */

static michi_status_t pmi_send(struct pmi_wire_out *o)
{
	michi_status_t st = pmi_wire_end(o);

	if (st < 0)
		return st;
	st = pmi_wire_write_all(pmi.fd, o->buf, o->len);
	if (st == MICHI_ERR_PEER)
		return michi_err(MICHI_ERR_PMI,
				 "pmi: the process manager closed the connection (job ending?)");
	return st < 0 ? MICHI_ERR_PMI : MICHI_OK;
}

/* Wait for a line whose cmd is `want`; other lines are logged and skipped. */
/* While set (pmi_fence_progress), waits for an answer call it between
 * polls of at most a millisecond. */
static int (*pmi_progress)(void);

static michi_status_t pmi_expect(const char *want, struct pmi_wire_msg *m)
{
	double deadline = michi_wtime() + pmi_timeout;

	for (;;) {
		michi_status_t st = pmi_wire_reader_next(&pmi.rd, m);
		struct pollfd pfd = { .fd = pmi.fd, .events = POLLIN };
		double left;
		int ms, n;

		if (st == MICHI_OK) {
			const char *cmd = pmi_wire_cmd(m);

			if (strcmp(cmd, want) == 0)
				return MICHI_OK;
			if (strcmp(cmd, "error") == 0) {
				const char *msg = pmi_wire_get(m, "msg");

				return michi_err(MICHI_ERR_PMI,
						 "pmi: process manager answered an error while waiting for cmd=%s: %s",
						 want, msg ? msg : "(no message)");
			}
			michi_warn("pmi: ignoring unexpected cmd=%s while waiting for cmd=%s",
				   cmd, want);
			continue;
		}
		if (st < 0) {
			michi_warn("pmi: bad line from the process manager: %s",
				   michi_err_msg());
			continue;
		}
		left = deadline - michi_wtime();
		if (left <= 0)
			return michi_err(MICHI_ERR_PMI,
					 "pmi: no cmd=%s from the process manager within %.0f s (tunable MICHI_PMI_TIMEOUT)",
					 want, pmi_timeout);
		ms = left > 1000.0 ? 1000000 : (int)(left * 1000.0) + 1;
		if (pmi_progress)
			ms = pmi_progress() > 0 ? 0 : 1;   /* its errors are its to report */
		n = poll(&pfd, 1, ms);
		if (n < 0 && errno != EINTR)
			return michi_err(MICHI_ERR_IO, "pmi: poll failed: %m");
		if (n <= 0)
			continue;
		st = pmi_wire_reader_fill(&pmi.rd, pmi.fd);
		if (st == MICHI_ERR_PEER)
			return michi_err(MICHI_ERR_PMI,
					 "pmi: the process manager closed the connection while rank %d waited for cmd=%s",
					 pmi.rank, want);
		if (st < 0)
			return MICHI_ERR_PMI;
	}
}

static michi_status_t pmi_check_rc(const struct pmi_wire_msg *m)
{
	const char *rc = pmi_wire_get(m, "rc");
	const char *msg;

	if (!rc || strcmp(rc, "0") == 0)
		return MICHI_OK;
	msg = pmi_wire_get(m, "msg");
	return michi_err(MICHI_ERR_PMI, "pmi: cmd=%s failed with rc=%s: %s",
			 pmi_wire_cmd(m), rc, msg ? msg : "(no message)");
}

/* Send a request made of cmd alone and wait for its answer. */
static michi_status_t pmi_call0(const char *cmd, const char *answer,
				struct pmi_wire_msg *m)
{
	char line[PMI_WIRE_LINE_MAX];
	struct pmi_wire_out o;
	michi_status_t st;

	pmi_wire_begin(&o, line, sizeof(line), cmd);
	st = pmi_send(&o);
	if (st < 0)
		return st;
	st = pmi_expect(answer, m);
	if (st < 0)
		return st;
	return pmi_check_rc(m);
}

/* ---- connecting ------------------------------------------------------- */

static michi_status_t pmi_env_int(const char *name, int *out)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s)
		return MICHI_INPROGRESS;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > 0x7fffffff)
		return michi_err(MICHI_ERR_PMI, "pmi: %s='%s' is not a valid number",
				 name, s);
	*out = (int)v;
	return MICHI_OK;
}

static michi_status_t pmi_connect_port(const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	char host[256];
	const char *colon = strrchr(port, ':');
	size_t hl;
	int rc, fd = -1;

	if (!colon || colon == port || !colon[1] ||
	    (hl = (size_t)(colon - port)) >= sizeof(host))
		return michi_err(MICHI_ERR_PMI, "pmi: PMI_PORT='%s' is not host:port", port);
	memcpy(host, port, hl);
	host[hl] = '\0';
	rc = getaddrinfo(host, colon + 1, &hints, &res);
	if (rc)
		return michi_err(MICHI_ERR_PMI, "pmi: cannot resolve PMI_PORT host '%s': %s",
				 host, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return michi_err(MICHI_ERR_PMI, "pmi: cannot connect to PMI_PORT=%s: %m", port);
	pmi.fd = fd;
	return MICHI_OK;
}

/* Hydra's -pmi-port handshake: initack, then size, rank and debug. */
static michi_status_t pmi_initack(int id, struct pmi_info *info)
{
	char line[PMI_WIRE_LINE_MAX];
	struct pmi_wire_out o;
	struct pmi_wire_msg m;
	michi_status_t st;
	int i;

	pmi_wire_begin(&o, line, sizeof(line), "initack");
	pmi_wire_add_int(&o, "pmiid", id);
	st = pmi_send(&o);
	if (st == MICHI_OK)
		st = pmi_expect("initack", &m);
	for (i = 0; i < 3 && st == MICHI_OK; i++) {
		st = pmi_expect("set", &m);
		if (st < 0)
			break;
		if (pmi_wire_get(&m, "size"))
			st = pmi_wire_get_int(&m, "size", &info->size);
		else if (pmi_wire_get(&m, "rank"))
			st = pmi_wire_get_int(&m, "rank", &info->rank);
	}
	return st;
}

static michi_status_t pmi_connect(struct pmi_info *info)
{
	const char *port = getenv("PMI_PORT");
	michi_status_t st;
	int fd, id;

	st = pmi_env_int("PMI_FD", &fd);
	if (st < 0)
		return st;
	if (st == MICHI_OK) {
		if (pmi_env_int("PMI_RANK", &info->rank) != MICHI_OK ||
		    pmi_env_int("PMI_SIZE", &info->size) != MICHI_OK)
			return michi_err(MICHI_ERR_PMI,
					 "pmi: PMI_FD is set but PMI_RANK or PMI_SIZE is missing or invalid");
		if (fcntl(fd, F_GETFD) < 0)
			return michi_err(MICHI_ERR_PMI, "pmi: PMI_FD=%d is not an open fd", fd);
		/* programs this rank starts must not talk on our connection */
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		pmi.fd = fd;
		return MICHI_OK;
	}
	if (!port)
		return MICHI_INPROGRESS;   /* singleton */
	st = pmi_env_int("PMI_ID", &id);
	if (st != MICHI_OK)
		return michi_err(MICHI_ERR_PMI, "pmi: PMI_PORT is set but PMI_ID is missing or invalid");
	st = pmi_connect_port(port);
	if (st < 0)
		return st;
	st = pmi_wire_reader_init(&pmi.rd, PMI_WIRE_LINE_MAX);
	if (st < 0)
		return st;
	info->rank = id;
	return pmi_initack(id, info);
}

static michi_status_t pmi_handshake(struct pmi_info *info)
{
	char line[PMI_WIRE_LINE_MAX];
	struct pmi_wire_out o;
	struct pmi_wire_msg m;
	michi_status_t st;
	const char *s;
	int v;

	pmi_wire_begin(&o, line, sizeof(line), "init");
	pmi_wire_add(&o, "pmi_version", "1");
	pmi_wire_add(&o, "pmi_subversion", "1");
	st = pmi_send(&o);
	if (st == MICHI_OK)
		st = pmi_expect("response_to_init", &m);
	if (st == MICHI_OK)
		st = pmi_check_rc(&m);
	if (st < 0)
		return st;

	st = pmi_call0("get_maxes", "maxes", &m);
	if (st < 0)
		return st;
	if (pmi_wire_get_int(&m, "keylen_max", &v) < 0 || v <= 1)
		return michi_err(MICHI_ERR_PMI, "pmi: bad keylen_max from the process manager");
	pmi.keylen_max = (size_t)v;
	if (pmi_wire_get_int(&m, "vallen_max", &v) < 0 || v <= 1)
		return michi_err(MICHI_ERR_PMI, "pmi: bad vallen_max from the process manager");
	pmi.vallen_max = (size_t)v;

	st = pmi_call0("get_appnum", "appnum", &m);
	if (st == MICHI_OK)
		st = pmi_wire_get_int(&m, "appnum", &info->appnum);
	if (st < 0)
		return st;
	/* Slurm's pmi2 plugin answers -1 for a job of one command: that is
	 * application 0, as the PMIx path reads it (MPI_APPNUM) */
	if (info->appnum < 0)
		info->appnum = 0;

	st = pmi_call0("get_my_kvsname", "my_kvsname", &m);
	if (st < 0)
		return st;
	s = pmi_wire_get(&m, "kvsname");
	if (!s || !*s || strlen(s) >= sizeof(pmi.kvsname))
		return michi_err(MICHI_ERR_PMI, "pmi: missing or overlong kvsname from the process manager");
	strcpy(pmi.kvsname, s);

	st = pmi_call0("get_universe_size", "universe_size", &m);
	if (st == MICHI_OK)
		st = pmi_wire_get_int(&m, "size", &info->universe_size);
	return st;
}

static void pmi_env_local(struct pmi_info *info)
{
	int v;

	info->local_rank = info->local_size = -1;
	if (pmi_env_int("MPI_LOCALRANKID", &v) == MICHI_OK)
		info->local_rank = v;
	if (pmi_env_int("MPI_LOCALNRANKS", &v) == MICHI_OK)
		info->local_size = v;
}

/*
 * No PMI-1 socket: is a PMIx server there? Without the PMIx back end that
 * is worth a warning, since each rank of `srun --mpi=pmix -n 4` would
 * otherwise run alone as a singleton.
 */
static int pmi_pmix_wanted(void)
{
	if (&pmi_pmix_ops)
		return pmi_pmix_ops.detect();
	if (getenv("PMIX_RANK") || getenv("PMIX_NAMESPACE"))
		michi_warn("pmi: PMIX_RANK is set (a PMIx server such as srun --mpi=pmix "
			   "started this process) but this Michi was built without PMIx: "
			   "running as a singleton; use srun --mpi=pmi2, or rebuild with "
			   "libpmix-dev installed");
	return 0;
}

michi_status_t pmi_init(struct pmi_info *info)
{
	struct pmi_info in = { .universe_size = -1 };
	michi_status_t st;

	if (pmi.initialized)
		return michi_err(MICHI_ERR_PMI, "pmi: pmi_init called twice");
	michi_tunables_load();
	st = pmi_connect(&in);
	if (st < 0)
		goto err_close;
	if (st == MICHI_INPROGRESS && pmi_pmix_wanted()) {
		st = pmi_pmix_ops.init(&in);
		if (st < 0)
			return st;
		pmi.pmix = &pmi_pmix_ops;
		strcpy(pmi.kvsname, in.kvsname);
		pmi.rank = in.rank;
		pmi.keylen_max = PMI_WIRE_KEY_MAX;
		pmi.vallen_max = PMI_WIRE_VAL_MAX;
		pmi.initialized = 1;
		*info = in;
		return MICHI_OK;
	}
	if (st == MICHI_INPROGRESS) {
		pmi.singleton = 1;
		in.singleton = 1;
		in.rank = 0;
		in.size = 1;
		in.universe_size = 1;
		in.local_rank = 0;
		in.local_size = 1;
		snprintf(in.kvsname, sizeof(in.kvsname), "singleton_kvs_%d", (int)getpid());
		strcpy(pmi.kvsname, in.kvsname);
		pmi.keylen_max = PMI_WIRE_KEY_MAX;
		pmi.vallen_max = PMI_WIRE_VAL_MAX;
		pmi.initialized = 1;
		*info = in;
		return MICHI_OK;
	}
	if (!pmi.rd.buf) {
		st = pmi_wire_reader_init(&pmi.rd, PMI_WIRE_LINE_MAX);
		if (st < 0)
			goto err_close;
	}
	pmi.rank = in.rank;
	st = pmi_handshake(&in);
	if (st < 0)
		goto err_close;
	if (in.rank < 0 || in.size <= 0 || in.rank >= in.size) {
		st = michi_err(MICHI_ERR_PMI, "pmi: rank %d out of range for size %d",
			       in.rank, in.size);
		goto err_close;
	}
	pmi_env_local(&in);
	strcpy(in.kvsname, pmi.kvsname);
	pmi.initialized = 1;
	*info = in;
	return MICHI_OK;

err_close:
	if (pmi.fd >= 0)
		close(pmi.fd);
	pmi.fd = -1;
	pmi_wire_reader_destroy(&pmi.rd);
	return st;
}

/* ---- key-value space -------------------------------------------------- */

static michi_status_t pmi_check_kv(const char *key, const char *val)
{
	size_t vl = val ? strlen(val) : 0;

	if (!pmi.initialized)
		return michi_err(MICHI_ERR_PMI, "pmi: used before pmi_init");
	if (!*key || strlen(key) >= pmi.keylen_max)
		return michi_err(MICHI_ERR_INVAL,
				 "pmi: key '%.64s' is empty or longer than the process manager's limit of %zu bytes",
				 key, pmi.keylen_max - 1);
	if (strpbrk(key, " =\n"))
		return michi_err(MICHI_ERR_INVAL, "pmi: key '%.64s' contains a space, '=' or newline", key);
	if (!val)
		return MICHI_OK;
	if (vl > pmi_max_val_len())
		return michi_err(MICHI_ERR_INVAL,
				 "pmi: value of key '%.64s' has %zu bytes, more than the process manager's limit of %zu; split it",
				 key, vl, pmi_max_val_len());
	if (strpbrk(val, " \n"))
		return michi_err(MICHI_ERR_INVAL,
				 "pmi: value of key '%.64s' contains a space or newline; encode it", key);
	return MICHI_OK;
}

static michi_status_t pmi_local_put(const char *key, const char *val)
{
	struct pmi_local_kv *kv;
	char *v = strdup(val);

	if (!v)
		return michi_err(MICHI_ERR_NOMEM, "pmi: no memory for a local value");
	for (kv = pmi.local; kv; kv = kv->next) {
		if (strcmp(kv->key, key) == 0) {
			free(kv->val);
			kv->val = v;
			return MICHI_OK;
		}
	}
	kv = malloc(sizeof(*kv));
	if (!kv || !(kv->key = strdup(key))) {
		free(kv);
		free(v);
		return michi_err(MICHI_ERR_NOMEM, "pmi: no memory for a local key");
	}
	kv->val = v;
	kv->next = pmi.local;
	pmi.local = kv;
	return MICHI_OK;
}

michi_status_t pmi_put(const char *key, const char *val)
{
	char line[PMI_WIRE_LINE_MAX];
	struct pmi_wire_out o;
	struct pmi_wire_msg m;
	michi_status_t st = pmi_check_kv(key, val);

	if (st < 0)
		return st;
	if (pmi.singleton)
		return pmi_local_put(key, val);
	if (pmi.pmix)
		return pmi.pmix->put(key, val);
	pmi_wire_begin(&o, line, sizeof(line), "put");
	pmi_wire_add(&o, "kvsname", pmi.kvsname);
	pmi_wire_add(&o, "key", key);
	pmi_wire_add(&o, "value", val);
	st = pmi_send(&o);
	if (st == MICHI_OK)
		st = pmi_expect("put_result", &m);
	if (st == MICHI_OK)
		st = pmi_check_rc(&m);
	return st;
}

michi_status_t pmi_fence(void)
{
	struct pmi_wire_msg m;

	if (!pmi.initialized)
		return michi_err(MICHI_ERR_PMI, "pmi: used before pmi_init");
	if (pmi.singleton)
		return MICHI_OK;
	if (pmi.pmix)
		return pmi.pmix->fence(pmi_timeout);
	return pmi_call0("barrier_in", "barrier_out", &m);
}

michi_status_t pmi_fence_progress(int (*progress)(void))
{
	michi_status_t st;

	pmi_progress = progress;
	st = pmi_fence();
	pmi_progress = NULL;
	return st;
}

static michi_status_t pmi_copy_val(const char *key, const char *v, char *val,
				   size_t len)
{
	size_t vl = strlen(v);

	if (vl >= len)
		return michi_err(MICHI_ERR_TRUNCATE,
				 "pmi: value of key '%.64s' has %zu bytes, buffer holds %zu",
				 key, vl, len ? len - 1 : 0);
	memcpy(val, v, vl + 1);
	return MICHI_OK;
}

michi_status_t pmi_get(int rank, const char *key, char *val, size_t len)
{
	char line[PMI_WIRE_LINE_MAX];
	struct pmi_wire_out o;
	struct pmi_wire_msg m;
	struct pmi_local_kv *kv;
	const char *v, *rc;
	michi_status_t st = pmi_check_kv(key, NULL);

	if (st < 0)
		return st;
	if (pmi.singleton) {
		for (kv = pmi.local; kv; kv = kv->next)
			if (strcmp(kv->key, key) == 0)
				return pmi_copy_val(key, kv->val, val, len);
		return michi_err(MICHI_ERR_PMI, "pmi: key '%.64s' not found", key);
	}
	if (pmi.pmix)
		return pmi.pmix->get(rank, key, val, len);
	pmi_wire_begin(&o, line, sizeof(line), "get");
	pmi_wire_add(&o, "kvsname", pmi.kvsname);
	pmi_wire_add(&o, "key", key);
	st = pmi_send(&o);
	if (st == MICHI_OK)
		st = pmi_expect("get_result", &m);
	if (st < 0)
		return st;
	rc = pmi_wire_get(&m, "rc");
	v = pmi_wire_get(&m, "value");
	if (!rc || strcmp(rc, "0") != 0 || !v)
		return michi_err(MICHI_ERR_PMI,
				 "pmi: key '%.64s' (from rank %d) not found in the process manager's key-value space",
				 key, rank);
	return pmi_copy_val(key, v, val, len);
}

/* ---- name service (MPI_Publish_name and friends) ----------------------- */

/*
 * PMI-1's publish_name, unpublish_name and lookup_name, answered by
 * publish_result, unpublish_result and lookup_result with rc (0: done)
 * and, for a lookup, port. Michi's mpirun keeps the table; Hydra answers
 * when it was given a name server. The service name goes percent-encoded
 * (it may hold spaces). A manager that does not know the commands
 * answers cmd=error, or nothing: those waits are capped at
 * pmi_ns_timeout.
 */
static double pmi_ns_timeout = 30.0;
MICHI_TUNABLE(pmi_ns_timeout, "pmi_ns_timeout", MICHI_T_DOUBLE, "30", MICHI_LEVEL_USER,
	      "seconds MPI_Publish_name and friends wait for the process manager's name service");

static michi_status_t pmi_ns_call(const char *cmd, const char *answer, const char *service,
				  const char *port, char *out, size_t len)
{
	char line[PMI_WIRE_LINE_MAX], svc[3 * 256 + 1];
	struct pmi_wire_out o;
	struct pmi_wire_msg m;
	michi_status_t st;
	double saved = pmi_timeout;
	const char *rc, *v;

	if (!pmi.initialized)
		return michi_err(MICHI_ERR_PMI, "pmi: used before pmi_init");
	if (pmi.singleton)
		return michi_err(MICHI_ERR_UNSUPPORTED, "no name service: this process runs "
				 "without a process manager (a singleton); start it with Michi's "
				 "mpirun");
	if (pmi.pmix)
		return michi_err(MICHI_ERR_UNSUPPORTED, "no name service under PMIx in Michi yet");
	if (strlen(service) > 255 || pmi_wire_escape(svc, sizeof(svc), service,
						     strlen(service)) < 0)
		return michi_err(MICHI_ERR_INVAL, "service name longer than 255 bytes");
	pmi_wire_begin(&o, line, sizeof(line), cmd);
	pmi_wire_add(&o, "service", svc);
	if (port)
		pmi_wire_add(&o, "port", port);
	st = pmi_send(&o);
	if (st < 0)
		return st;
	if (pmi_timeout > pmi_ns_timeout)
		pmi_timeout = pmi_ns_timeout;
	st = pmi_expect(answer, &m);
	pmi_timeout = saved;
	if (st < 0)
		return michi_err(MICHI_ERR_UNSUPPORTED, "the process manager has no name "
				 "service (%s)", michi_err_msg());
	rc = pmi_wire_get(&m, "rc");
	if (!rc || strcmp(rc, "0") != 0) {
		char text[256];

		/* Michi's mpirun percent-encodes it */
		v = pmi_wire_get(&m, "msg");
		snprintf(text, sizeof(text), "%s", v ? v : "the name service refused");
		pmi_wire_unescape(text);
		return michi_err(MICHI_ERR_PMI, "%s", text);
	}
	if (out) {
		v = pmi_wire_get(&m, "port");
		if (!v)
			return michi_err(MICHI_ERR_PMI, "the name service answered no port");
		return pmi_copy_val(service, v, out, len);
	}
	return MICHI_OK;
}

michi_status_t pmi_publish(const char *service, const char *port)
{
	return pmi_ns_call("publish_name", "publish_result", service, port, NULL, 0);
}

michi_status_t pmi_unpublish(const char *service)
{
	return pmi_ns_call("unpublish_name", "unpublish_result", service, NULL, NULL, 0);
}

michi_status_t pmi_lookup(const char *service, char *port, size_t len)
{
	return pmi_ns_call("lookup_name", "lookup_result", service, NULL, port, len);
}

size_t pmi_max_val_len(void)
{
	/* the put line must also fit the wire's line limit */
	size_t room = PMI_WIRE_LINE_MAX - PMI_WIRE_KVSNAME_MAX - PMI_WIRE_KEY_MAX - 40;

	if (!pmi.vallen_max)
		return PMI_WIRE_VAL_MAX - 1;
	/* vallen_max counts the terminating NUL, as in MPICH */
	return pmi.vallen_max - 1 < room ? pmi.vallen_max - 1 : room;
}

/* ---- leaving ---------------------------------------------------------- */

/*
 * After the abort request, stay until the process manager ends the job
 * (it kills us, or closes our connection), for at most abort_linger
 * seconds. Leaving at once let a peer see this rank gone and report its
 * own failure, which could reach the manager first and set the job's
 * exit code instead of the one MPI_Abort asked for.
 */
static double abort_linger = 5.0;
MICHI_TUNABLE(abort_linger, "abort_linger", MICHI_T_DOUBLE, "5", MICHI_LEVEL_TUNER,
	      "seconds an aborting rank waits for the process manager to end the job before it "
	      "exits by itself");

static void pmi_abort_linger(void)
{
	double end = michi_wtime() + abort_linger;
	struct pollfd pfd;
	char buf[256];

	for (;;) {
		double left = end - michi_wtime();
		int n;

		if (left <= 0 || pmi.fd < 0)
			return;
		pfd.fd = pmi.fd;
		pfd.events = POLLIN;
		n = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)))
			return;
		/* anything the manager still says is of no use now */
		if (read(pmi.fd, buf, sizeof(buf)) <= 0)
			return;
	}
}

michi_status_t pmi_abort(int code, const char *msg)
{
	char line[PMI_WIRE_LINE_MAX], esc[1024];
	struct pmi_wire_out o;

	if (!msg)
		msg = "";
	if (!pmi.initialized || pmi.singleton) {
		michi_error("abort with exit code %d: %s", code, msg);
		return MICHI_OK;
	}
	if (pmi.pmix)
		return pmi.pmix->abort(code, msg);
	/* the message travels percent-encoded; a manager that does not know
	 * the key (Hydra prints its own line) ignores it */
	if (pmi_wire_escape(esc, sizeof(esc), msg, strlen(msg)) < 0)
		pmi_wire_escape(esc, sizeof(esc), msg, 256);
	pmi_wire_begin(&o, line, sizeof(line), "abort");
	pmi_wire_add_int(&o, "exitcode", code);
	pmi_wire_add(&o, "message", esc);
	if (pmi_send(&o) != MICHI_OK)
		return MICHI_ERR_INTERN;
	pmi_abort_linger();
	return MICHI_OK;
}

michi_status_t pmi_finalize(void)
{
	struct pmi_wire_msg m;
	struct pmi_local_kv *kv;
	michi_status_t st = MICHI_OK;

	if (!pmi.initialized)
		return MICHI_OK;
	if (pmi.pmix) {
		st = pmi.pmix->finalize();
		pmi.pmix = NULL;
	} else if (!pmi.singleton) {
		st = pmi_call0("finalize", "finalize_ack", &m);
		close(pmi.fd);
		pmi.fd = -1;
		pmi_wire_reader_destroy(&pmi.rd);
	}
	while ((kv = pmi.local)) {
		pmi.local = kv->next;
		free(kv->key);
		free(kv->val);
		free(kv);
	}
	pmi.initialized = 0;
	pmi.singleton = 0;
	return st;
}
