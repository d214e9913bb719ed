/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/info.c: info objects (MPI-3.1 chapter 9) and MPI_INFO_ENV.
 *
 * An info object is an ordered list of (key, value) strings in a slab
 * object; MPI_Info_get_nthkey follows insertion order, and setting a key
 * that is there replaces its value in place. MPI_INFO_ENV is a static
 * object filled at MPI_Init with what the process was started with
 * (command, argv, maxprocs, host, wdir, thread_level); it cannot be
 * changed or freed. Communicators keep a copy of the hints set on them
 * (MPI_Comm_set_info, MPI_Comm_dup_with_info) and MPI_Comm_get_info
 * returns it: Michi acts on none, and says back what it was given.
 */
#include "mpiimpl.h"
#include "info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct michi_info michi_info_env;

struct michi_info *michi_info_get(MPI_Info h)
{
	if (h == MPI_INFO_ENV)
		return &michi_info_env;
	return michi_obj_check((uint32_t)h, MICHI_KIND_INFO);
}

static int info_bad(const char *fname, MPI_Info h)
{
	return michi_mpi_err(NULL, MPI_ERR_INFO, fname, "(info=0x%x): %s", (unsigned)h,
			     h == MPI_INFO_NULL ? "MPI_INFO_NULL" : "not a valid info object");
}

static int info_find(const struct michi_info *in, const char *key)
{
	int i;

	for (i = 0; i < in->n; i++)
		if (strcmp(in->kv[i].key, key) == 0)
			return i;
	return -1;
}

static michi_status_t info_put(struct michi_info *in, const char *key, const char *val)
{
	int i = info_find(in, key);
	char *v = strdup(val);

	if (!v)
		return MICHI_ERR_NOMEM;
	if (i >= 0) {
		free(in->kv[i].val);
		in->kv[i].val = v;
		return MICHI_OK;
	}
	if (in->n == in->cap) {
		int cap = in->cap ? 2 * in->cap : 8;
		void *p = realloc(in->kv, (size_t)cap * sizeof(*in->kv));

		if (!p) {
			free(v);
			return MICHI_ERR_NOMEM;
		}
		in->kv = p;
		in->cap = cap;
	}
	in->kv[in->n].key = strdup(key);
	if (!in->kv[in->n].key) {
		free(v);
		return MICHI_ERR_NOMEM;
	}
	in->kv[in->n].val = v;
	in->n++;
	return MICHI_OK;
}

static void info_clear(struct michi_info *in)
{
	int i;

	for (i = 0; i < in->n; i++) {
		free(in->kv[i].key);
		free(in->kv[i].val);
	}
	free(in->kv);
	in->kv = NULL;
	in->n = in->cap = 0;
}

/* A new info object holding a copy of src's pairs (src NULL: empty). */
struct michi_info *michi_info_copy(const struct michi_info *src)
{
	struct michi_info *in = michi_obj_alloc(MICHI_KIND_INFO);
	int i;

	if (!in)
		return NULL;
	in->n = in->cap = 0;
	in->kv = NULL;
	for (i = 0; src && i < src->n; i++) {
		if (info_put(in, src->kv[i].key, src->kv[i].val) < 0) {
			michi_info_release(in);
			return NULL;
		}
	}
	return in;
}

michi_status_t michi_info_merge(struct michi_info *dst, const struct michi_info *src)
{
	int i;

	for (i = 0; src && i < src->n; i++)
		if (info_put(dst, src->kv[i].key, src->kv[i].val) < 0)
			return MICHI_ERR_NOMEM;
	return MICHI_OK;
}

void michi_info_release(struct michi_info *in)
{
	if (!in || in == &michi_info_env)
		return;
	info_clear(in);
	michi_obj_free(MICHI_KIND_INFO, in);
}

/* MPI_INFO_ENV, at MPI_Init. */
void michi_info_env_init(int thread_level)
{
	static const char *levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
					"MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
	char buf[4096], cmd[4096] = "", args[4096] = "";
	FILE *f = fopen("/proc/self/cmdline", "r");
	size_t n = 0, i, first = 0;

	info_clear(&michi_info_env);
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	/* argv[0], then the arguments separated by spaces */
	snprintf(cmd, sizeof(cmd), "%s", buf);
	first = strlen(buf) + 1;
	for (i = first; i < n; i++)
		if (buf[i] == '\0' && i + 1 < n)
			buf[i] = ' ';
	if (first < n)
		snprintf(args, sizeof(args), "%s", buf + first);
	if (cmd[0])
		info_put(&michi_info_env, "command", cmd);
	if (args[0])
		info_put(&michi_info_env, "argv", args);
	snprintf(buf, sizeof(buf), "%d", michi_state.size);
	info_put(&michi_info_env, "maxprocs", buf);
	info_put(&michi_info_env, "host", michi_state.host);
	if (getcwd(buf, sizeof(buf)))
		info_put(&michi_info_env, "wdir", buf);
	if (thread_level >= 0 && thread_level <= 3)
		info_put(&michi_info_env, "thread_level", levels[thread_level]);
}

/* MPI-4.0 11.4.1: the info calls also work before MPI_Init (or a
 * session) and after MPI_Finalize; the object arena is reserved at the
 * first of them. */
static int info_ready(const char *fname)
{
	if (likely(michi_state.active) || michi_arena_init() == MICHI_OK)
		return MPI_SUCCESS;
	return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): %s", michi_err_msg());
}

#define INFO_READY(fname) do { \
	int ready_ = info_ready(fname); \
	if (unlikely(ready_)) \
		return ready_; \
} while (0)

#define INFO_ARG(fname, h, in) do { \
	INFO_READY(fname); \
	(in) = michi_info_get(h); \
	if (ERRCHK && unlikely(!(in))) \
		return info_bad(fname, h); \
} while (0)

static int key_check(const char *fname, const char *key)
{
	size_t n;

	if (!key)
		return michi_mpi_err(NULL, MPI_ERR_INFO_KEY, fname, "(key=NULL): NULL key");
	n = strlen(key);
	if (n == 0 || n > MPI_MAX_INFO_KEY)
		return michi_mpi_err(NULL, MPI_ERR_INFO_KEY, fname,
				     "(key of %zu characters): must have 1 to %d", n,
				     MPI_MAX_INFO_KEY);
	return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
	struct michi_info *in;

	INFO_READY("MPI_Info_create");
	if (ERRCHK && !info)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Info_create", "(info=NULL): NULL pointer");
	in = michi_info_copy(NULL);
	if (!in)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Info_create", "(): no memory");
	*info = (MPI_Info)michi_p2h(in);
	return MPI_SUCCESS;
}

/*
 * MPI_Info_create_env (MPI-4.0 11.2.3): what the process was started
 * with, the same before MPI_Init, after it and after MPI_Finalize:
 * command and argv from the arguments given, maxprocs from the launcher
 * (PMI_SIZE; 1 for a singleton), host and wdir. The keys MPI leaves to
 * the launcher's options (soft, arch, file, thread_level) are absent.
 */
int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
	static const char fname[] = "MPI_Info_create_env";
	struct michi_info *in;
	char buf[4096], *size = getenv("PMI_SIZE");
	size_t n = 0;
	int i;

	INFO_READY(fname);
	if (ERRCHK && (!info || (argc > 0 && !argv)))
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(%s=NULL): NULL pointer",
				     info ? "argv" : "info");
	if (!(in = michi_info_copy(NULL)))
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory");
	buf[0] = '\0';
	for (i = 1; i < argc && argv[i] && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i > 1 ? " " : "", argv[i]);
	if ((argc > 0 && argv[0] && info_put(in, "command", argv[0]) < 0) ||
	    (buf[0] && info_put(in, "argv", buf) < 0) ||
	    info_put(in, "maxprocs", size && atoi(size) > 0 ? size : "1") < 0 ||
	    info_put(in, "host", michi_hostname()) < 0 ||
	    (getcwd(buf, sizeof(buf)) && info_put(in, "wdir", buf) < 0)) {
		michi_info_release(in);
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory");
	}
	*info = (MPI_Info)michi_p2h(in);
	return MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
	struct michi_info *in;
	int err;

	INFO_ARG("MPI_Info_set", info, in);
	if ((err = key_check("MPI_Info_set", key)))
		return err;
	if (!value || strlen(value) > MPI_MAX_INFO_VAL)
		return michi_mpi_err(NULL, MPI_ERR_INFO_VALUE, "MPI_Info_set",
				     "(key=\"%s\"): value NULL or over %d characters", key,
				     MPI_MAX_INFO_VAL);
	if (in == &michi_info_env)
		return michi_mpi_err(NULL, MPI_ERR_INFO, "MPI_Info_set",
				     "(info=MPI_INFO_ENV): the predefined info object is read-only");
	if (info_put(in, key, value) < 0)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Info_set", "(): no memory");
	return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
	struct michi_info *in;
	int err, i;

	INFO_ARG("MPI_Info_delete", info, in);
	if ((err = key_check("MPI_Info_delete", key)))
		return err;
	if (in == &michi_info_env)
		return michi_mpi_err(NULL, MPI_ERR_INFO, "MPI_Info_delete",
				     "(info=MPI_INFO_ENV): the predefined info object is read-only");
	i = info_find(in, key);
	if (i < 0)
		return michi_mpi_err(NULL, MPI_ERR_INFO_NOKEY, "MPI_Info_delete",
				     "(key=\"%s\"): no such key", key);
	free(in->kv[i].key);
	free(in->kv[i].val);
	memmove(&in->kv[i], &in->kv[i + 1], (size_t)(in->n - i - 1) * sizeof(*in->kv));
	in->n--;
	return MPI_SUCCESS;
}

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
	struct michi_info *in;
	int err, i;

	INFO_ARG("MPI_Info_get", info, in);
	if ((err = key_check("MPI_Info_get", key)))
		return err;
	if (ERRCHK && (valuelen < 0 || !value || !flag))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Info_get",
				     "(valuelen=%d): negative, or NULL value or flag", valuelen);
	i = info_find(in, key);
	*flag = i >= 0;
	if (i >= 0) {
		/* at most valuelen characters, then the terminator */
		size_t n = strlen(in->kv[i].val);

		if (n > (size_t)valuelen)
			n = (size_t)valuelen;
		memcpy(value, in->kv[i].val, n);
		value[n] = '\0';
	}
	return MPI_SUCCESS;
}

/* MPI-4: as much of the value as fits in *buflen characters with the
 * terminator; *buflen becomes the length the whole value needs. */
int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
	struct michi_info *in;
	int err, i;

	INFO_ARG("MPI_Info_get_string", info, in);
	if ((err = key_check("MPI_Info_get_string", key)))
		return err;
	if (ERRCHK && (!buflen || *buflen < 0 || (*buflen > 0 && !value) || !flag))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Info_get_string",
				     "(buflen=%d): NULL or negative buflen, NULL flag, or NULL "
				     "value with a positive buflen", buflen ? *buflen : -1);
	i = info_find(in, key);
	*flag = i >= 0;
	if (i >= 0) {
		size_t n = strlen(in->kv[i].val);

		if (*buflen > 0) {
			size_t m = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;

			memcpy(value, in->kv[i].val, m);
			value[m] = '\0';
		}
		*buflen = (int)n + 1;
	}
	return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
	struct michi_info *in;
	int err, i;

	INFO_ARG("MPI_Info_get_valuelen", info, in);
	if ((err = key_check("MPI_Info_get_valuelen", key)))
		return err;
	if (ERRCHK && (!valuelen || !flag))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Info_get_valuelen",
				     "(): NULL valuelen or flag");
	i = info_find(in, key);
	*flag = i >= 0;
	if (i >= 0)
		*valuelen = (int)strlen(in->kv[i].val);
	return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
	struct michi_info *in;

	INFO_ARG("MPI_Info_get_nkeys", info, in);
	if (ERRCHK && !nkeys)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Info_get_nkeys", "(nkeys=NULL): NULL pointer");
	*nkeys = in->n;
	return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
	struct michi_info *in;

	INFO_ARG("MPI_Info_get_nthkey", info, in);
	if (ERRCHK && !key)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Info_get_nthkey", "(key=NULL): NULL pointer");
	if ((unsigned)n >= (unsigned)in->n)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Info_get_nthkey",
				     "(n=%d): the object has %d keys", n, in->n);
	snprintf(key, MPI_MAX_INFO_KEY + 1, "%s", in->kv[n].key);
	return MPI_SUCCESS;
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
	struct michi_info *in, *out;

	INFO_ARG("MPI_Info_dup", info, in);
	if (ERRCHK && !newinfo)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Info_dup", "(newinfo=NULL): NULL pointer");
	out = michi_info_copy(in);
	if (!out)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Info_dup", "(): no memory");
	*newinfo = (MPI_Info)michi_p2h(out);
	return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info *info)
{
	struct michi_info *in;

	INFO_READY("MPI_Info_free");
	if (ERRCHK && !info)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Info_free", "(info=NULL): NULL pointer");
	in = michi_info_get(*info);
	if (ERRCHK && !in)
		return info_bad("MPI_Info_free", *info);
	if (in == &michi_info_env)
		return michi_mpi_err(NULL, MPI_ERR_INFO, "MPI_Info_free",
				     "(info=MPI_INFO_ENV): the predefined info object cannot be freed");
	michi_info_release(in);
	*info = MPI_INFO_NULL;
	return MPI_SUCCESS;
}
