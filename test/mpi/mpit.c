/* SPDX-License-Identifier: MIT */
/*
 * The tool information interface (MPI_T). On any MPI library: MPI_T works
 * before MPI_Init and after MPI_Finalize and counts its initialisations;
 * every control variable, performance variable and category describes
 * itself consistently (names map back to their indices, handles read,
 * enumerations list their items, category lists hold valid indices, the
 * string length rules hold) and bad indices, names and handles give the
 * MPI_T error classes.
 *
 * On Michi (MPI_Get_library_version says so) the variables are known:
 * control variables read the tunables' defaults or the MICHI_* variables
 * of the environment, a write before MPI_Init is what MPI_Init uses,
 * tunables read at init refuse writes afterwards, and the scopes and
 * categories are as documented in mpi/tools/mpit.c. Performance variables
 * count what the test does: after N messages to the next rank the frames
 * (and bytes) of the device that serves it grew by at least N (the peer's
 * received frames too), a stopped handle does not move, reset gives 0,
 * sessions count independently from their start, the unexpected and
 * posted queue lengths follow messages left unreceived and receives left
 * unmatched, and large messages count as rendezvous sends.
 * MTEST_MPIT_DEVICE=tcp makes every rank write the "device" control
 * variable before MPI_Init; traffic must then go through tcp.
 */
#include "mtest.h"

#include <ctype.h>
#include <strings.h>

#define NMSG 200
#define MSGSZ 100
#define NUNEXP 16
#define BIGMSG (256 * 1024)
#define TAG_DATA 40
#define TAG_ACK 41
#define TAG_UNEXP 42
#define TAG_LAST 43
#define TAG_NEVER 44
#define TAG_BIG 45

static int michi;

#define RC_IS(rc, want, ...) \
	mtest_check((rc) == (want), __VA_ARGS__)

/* ---- helpers -------------------------------------------------------------- */

static unsigned long env_size(const char *name, unsigned long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	v = strtoul(s, &end, 0);
	switch (tolower((unsigned char)*end)) {
	case 'k': v <<= 10; break;
	case 'm': v <<= 20; break;
	case 'g': v <<= 30; break;
	}
	return v;
}

static const char *env_str(const char *name, const char *def)
{
	const char *s = getenv(name);

	return s ? s : def;
}

static int cvar_index(const char *name)
{
	int i = -1, rc = MPI_T_cvar_get_index(name, &i);

	mtest_check(rc == MPI_SUCCESS, "cvar_get_index(%s): error %d", name, rc);
	return rc == MPI_SUCCESS ? i : -1;
}

/* Reads cvar `name` into buf (at least 1024 bytes); returns its count. */
static int cvar_read(const char *name, void *buf)
{
	MPI_T_cvar_handle h;
	int i = cvar_index(name), count = 0, rc;

	if (i < 0)
		return 0;
	rc = MPI_T_cvar_handle_alloc(i, NULL, &h, &count);
	if (!mtest_check(rc == MPI_SUCCESS, "cvar_handle_alloc(%s): error %d", name, rc))
		return 0;
	rc = MPI_T_cvar_read(h, buf);
	mtest_check(rc == MPI_SUCCESS, "cvar_read(%s): error %d", name, rc);
	MPI_T_cvar_handle_free(&h);
	return count;
}

static int cvar_write(const char *name, const void *buf)
{
	MPI_T_cvar_handle h;
	int i = cvar_index(name), count = 0, rc;

	if (i < 0)
		return -1;
	rc = MPI_T_cvar_handle_alloc(i, NULL, &h, &count);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = MPI_T_cvar_write(h, buf);
	MPI_T_cvar_handle_free(&h);
	return rc;
}

static int cvar_scope(const char *name)
{
	int i = cvar_index(name), scope = -1;

	if (i >= 0)
		MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &scope);
	return scope;
}

static int type_ok_for_cvar(MPI_Datatype dt)
{
	return dt == MPI_INT || dt == MPI_UNSIGNED || dt == MPI_UNSIGNED_LONG ||
	       dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_COUNT || dt == MPI_CHAR ||
	       dt == MPI_DOUBLE;
}

static void check_enum(MPI_T_enum e, const char *var)
{
	char name[256];
	int num = -1, len = sizeof(name), i, rc, value;

	rc = MPI_T_enum_get_info(e, &num, name, &len);
	if (!mtest_check(rc == MPI_SUCCESS && num >= 1, "enum of %s: error %d, %d items", var,
			 rc, num))
		return;
	for (i = 0; i < num; i++) {
		len = sizeof(name);
		rc = MPI_T_enum_get_item(e, i, &value, name, &len);
		mtest_check(rc == MPI_SUCCESS && len == (int)strlen(name) + 1,
			    "enum of %s, item %d: error %d, length %d for '%s'", var, i, rc, len,
			    name);
	}
	len = sizeof(name);
	rc = MPI_T_enum_get_item(e, num, &value, name, &len);
	RC_IS(rc, MPI_T_ERR_INVALID_ITEM, "enum of %s, item %d of %d: error %d, expected "
	      "MPI_T_ERR_INVALID_ITEM", var, num, num, rc);
}

/* ---- before MPI_Init --------------------------------------------------------- */

static MPI_T_pvar_session early;
static MPI_T_pvar_handle early_h;
static unsigned long long early_last;

static void before_init(void)
{
	int len, rc, n, provided = -1, one = 1, five = 5;
	double t = 7.5;

	michi = mtest_is_michi();

	rc = MPI_T_cvar_get_num(&n);
	RC_IS(rc, MPI_T_ERR_NOT_INITIALIZED, "cvar_get_num before MPI_T_init_thread: error %d",
	      rc);
	rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	RC_IS(rc, MPI_SUCCESS, "MPI_T_init_thread before MPI_Init: error %d", rc);
	mtest_check(provided == MPI_THREAD_SINGLE, "MPI_T_init_thread(SINGLE) provided %d",
		    provided);
	if (!michi)
		return;

	mtest_check(cvar_scope("shm_ring_size") == MPI_T_SCOPE_LOCAL,
		    "shm_ring_size before MPI_Init: scope %d, expected LOCAL",
		    cvar_scope("shm_ring_size"));
	mtest_check(cvar_scope("device") == MPI_T_SCOPE_ALL_EQ,
		    "device: scope %d, expected ALL_EQ", cvar_scope("device"));
	rc = cvar_write("tcp_connect_timeout", &t);
	RC_IS(rc, MPI_SUCCESS, "write tcp_connect_timeout before MPI_Init: error %d", rc);
	rc = cvar_write("tcp_connect_copy", &five);
	RC_IS(rc, MPI_T_ERR_INVALID, "write 5 to the bool tcp_connect_copy: error %d, expected "
	      "MPI_T_ERR_INVALID", rc);
	rc = cvar_write("tcp_connect_copy", &one);
	RC_IS(rc, MPI_SUCCESS, "write 1 to tcp_connect_copy before MPI_Init: error %d", rc);
	if (getenv("MTEST_MPIT_DEVICE")) {
		rc = cvar_write("device", getenv("MTEST_MPIT_DEVICE"));
		RC_IS(rc, MPI_SUCCESS, "write device before MPI_Init: error %d", rc);
	}

	/* a counter started before MPI_Init: 0 until then */
	MPI_T_pvar_session_create(&early);
	rc = MPI_T_pvar_get_index("self_frames_sent", MPI_T_PVAR_CLASS_COUNTER, &n);
	RC_IS(rc, MPI_SUCCESS, "pvar self_frames_sent: error %d", rc);
	if (rc == MPI_SUCCESS) {
		MPI_T_pvar_handle_alloc(early, n, NULL, &early_h, &len);
		MPI_T_pvar_start(early, early_h);
		MPI_T_pvar_read(early, early_h, &early_last);
		mtest_check(early_last == 0, "self_frames_sent before MPI_Init: %llu", early_last);
	}
}

/* ---- control variables ---------------------------------------------------- */

static void cvars_generic(void)
{
	char name[256], small[4], *buf;
	int n = -1, i, rc, len, dlen, verb, bind, scope, count, idx;
	MPI_Datatype dt;
	MPI_T_enum e;
	MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;

	rc = MPI_T_cvar_get_num(&n);
	if (!mtest_check(rc == MPI_SUCCESS && n >= 0, "cvar_get_num: error %d, n %d", rc, n))
		return;
	if (michi)
		mtest_check(n >= 20, "Michi has %d control variables, expected its tunables", n);
	buf = mtest_malloc(1 << 16);
	for (i = 0; i < n; i++) {
		len = sizeof(name);
		dlen = 0;
		rc = MPI_T_cvar_get_info(i, name, &len, &verb, &dt, &e, NULL, &dlen, &bind,
					 &scope);
		if (!mtest_check(rc == MPI_SUCCESS, "cvar_get_info(%d): error %d", i, rc))
			continue;
		mtest_check(len == (int)strlen(name) + 1 && len > 1,
			    "cvar %d '%s': name_len %d", i, name, len);
		mtest_check(dlen >= 1, "cvar %s: desc_len %d with no buffer", name, dlen);
		mtest_check(verb >= MPI_T_VERBOSITY_USER_BASIC &&
			    verb <= MPI_T_VERBOSITY_MPIDEV_ALL, "cvar %s: verbosity %d", name, verb);
		mtest_check(type_ok_for_cvar(dt), "cvar %s: datatype 0x%x not allowed", name,
			    (unsigned)dt);
		mtest_check(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ,
			    "cvar %s: scope %d", name, scope);
		rc = MPI_T_cvar_get_index(name, &idx);
		mtest_check(rc == MPI_SUCCESS && idx == i, "cvar_get_index(%s): error %d, "
			    "index %d, expected %d", name, rc, idx, i);
		if (e != MPI_T_ENUM_NULL)
			check_enum(e, name);
		if (bind != MPI_T_BIND_NO_OBJECT)
			continue;
		rc = MPI_T_cvar_handle_alloc(i, NULL, &h, &count);
		if (!mtest_check(rc == MPI_SUCCESS && count >= 1 && count <= 4096,
				 "cvar_handle_alloc(%s): error %d, count %d", name, rc, count))
			continue;
		rc = MPI_T_cvar_read(h, buf);
		mtest_check(rc == MPI_SUCCESS, "cvar_read(%s): error %d", name, rc);
		if (dt == MPI_CHAR)
			mtest_check(memchr(buf, 0, (size_t)count) != NULL,
				    "cvar %s: string not terminated within %d", name, count);
		rc = MPI_T_cvar_handle_free(&h);
		mtest_check(rc == MPI_SUCCESS && h == MPI_T_CVAR_HANDLE_NULL,
			    "cvar_handle_free(%s): error %d", name, rc);
	}
	free(buf);

	/* truncation: n - 1 characters and a null; the length of what came
	 * back, plus one; no buffer: the whole length plus one */
	if (n > 0) {
		len = sizeof(small);
		MPI_T_cvar_get_info(0, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		dlen = sizeof(name);
		MPI_T_cvar_get_info(0, name, &dlen, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		mtest_check(len == (int)strlen(small) + 1 &&
			    strlen(small) == (dlen > 4 ? 3 : strlen(name)) &&
			    strncmp(small, name, strlen(small)) == 0,
			    "truncated name '%s' (len %d) of '%s' (len %d)", small, len, name, dlen);
		len = 0;
		MPI_T_cvar_get_info(0, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
		mtest_check(len == dlen, "name_len %d with no buffer, %d with one", len, dlen);
	}
	rc = MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	RC_IS(rc, MPI_T_ERR_INVALID_INDEX, "cvar_get_info(-1): error %d", rc);
	rc = MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	RC_IS(rc, MPI_T_ERR_INVALID_INDEX, "cvar_get_info(num): error %d", rc);
	rc = MPI_T_cvar_handle_alloc(n, NULL, &h, &count);
	RC_IS(rc, MPI_T_ERR_INVALID_INDEX, "cvar_handle_alloc(num): error %d", rc);
	rc = MPI_T_cvar_get_index("mtest_no_such_variable", &idx);
	RC_IS(rc, MPI_T_ERR_INVALID_NAME, "cvar_get_index(no such name): error %d", rc);
	rc = MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &idx);   /* not written: no handle */
	RC_IS(rc, MPI_T_ERR_INVALID_HANDLE, "cvar_read(HANDLE_NULL): error %d", rc);
}

static void cvars_michi(void)
{
	char s[1024], desc[1024];
	unsigned long ul = 0, ring = 0, ring2 = 0;
	int i, iv = -1, rc, len, verb, count;
	MPI_Datatype dt = MPI_DATATYPE_NULL;
	MPI_T_enum e = MPI_T_ENUM_NULL;
	const char *want;
	double d = 0;

	/* the defaults michi_info --params prints, or the environment's */
	i = cvar_index("shm_eager_limit");
	len = sizeof(desc);
	MPI_T_cvar_get_info(i, NULL, NULL, &verb, &dt, &e, desc, &len, NULL, NULL);
	mtest_check(dt == MPI_UNSIGNED_LONG && e == MPI_T_ENUM_NULL &&
		    verb == MPI_T_VERBOSITY_TUNER_BASIC,
		    "shm_eager_limit: datatype 0x%x, verbosity %d", (unsigned)dt, verb);
	mtest_check(strstr(desc, "MICHI_SHM_EAGER_LIMIT") && strstr(desc, "16k"),
		    "shm_eager_limit: description '%s' names no variable or default", desc);
	count = cvar_read("shm_eager_limit", &ul);
	mtest_check(count == 1 && ul == env_size("MICHI_SHM_EAGER_LIMIT", 16384),
		    "shm_eager_limit reads %lu (count %d), expected %lu", ul, count,
		    env_size("MICHI_SHM_EAGER_LIMIT", 16384));
	cvar_read("tcp_eager_limit", &ul);
	mtest_check(ul == env_size("MICHI_TCP_EAGER_LIMIT", 65536),
		    "tcp_eager_limit reads %lu, expected %lu", ul,
		    env_size("MICHI_TCP_EAGER_LIMIT", 65536));
	memset(s, 'x', sizeof(s));
	count = cvar_read("wait_policy", s);
	want = env_str("MICHI_WAIT_POLICY", "auto");
	mtest_check(count >= 16 && strcmp(s, want) == 0,
		    "wait_policy reads '%.40s' (count %d), expected '%s'", s, count, want);
	cvar_read("device", s);
	want = env_str("MTEST_MPIT_DEVICE", env_str("MICHI_DEVICE", ""));
	mtest_check(strcmp(s, want) == 0, "device reads '%.40s', expected '%s'", s, want);
	i = cvar_index("device");
	MPI_T_cvar_get_info(i, NULL, NULL, &verb, &dt, NULL, NULL, NULL, NULL, NULL);
	mtest_check(dt == MPI_CHAR && verb == MPI_T_VERBOSITY_USER_BASIC,
		    "device: datatype 0x%x, verbosity %d", (unsigned)dt, verb);
	i = cvar_index("shm_poll_budget");
	MPI_T_cvar_get_info(i, NULL, NULL, &verb, &dt, NULL, NULL, NULL, NULL, NULL);
	mtest_check(dt == MPI_INT && verb == MPI_T_VERBOSITY_MPIDEV_BASIC,
		    "shm_poll_budget: datatype 0x%x, verbosity %d", (unsigned)dt, verb);

	/* a bool: MPI_INT with the no/yes enumeration */
	i = cvar_index("tcp_connect_copy");
	MPI_T_cvar_get_info(i, NULL, NULL, NULL, &dt, &e, NULL, NULL, NULL, NULL);
	if (mtest_check(dt == MPI_INT && e != MPI_T_ENUM_NULL,
			"tcp_connect_copy: datatype 0x%x, enum %p", (unsigned)dt, (void *)e)) {
		int num = 0, v0 = -1, v1 = -1;
		char n0[16], n1[16];
		int l0 = sizeof(n0), l1 = sizeof(n1);

		MPI_T_enum_get_info(e, &num, NULL, NULL);
		MPI_T_enum_get_item(e, 0, &v0, n0, &l0);
		MPI_T_enum_get_item(e, 1, &v1, n1, &l1);
		mtest_check(num == 2 && v0 == 0 && v1 == 1 && !strcmp(n0, "no") &&
			    !strcmp(n1, "yes"), "bool enumeration: %d items, %d '%s', %d '%s'",
			    num, v0, n0, v1, n1);
	}
	cvar_read("tcp_connect_copy", &iv);
	mtest_check(iv == 1, "tcp_connect_copy reads %d after writing 1", iv);

	/* written before MPI_Init: MPI_Init kept it; still writable */
	cvar_read("tcp_connect_timeout", &d);
	mtest_check(d == 7.5, "tcp_connect_timeout reads %g, 7.5 written before MPI_Init", d);
	mtest_check(cvar_scope("tcp_connect_timeout") == MPI_T_SCOPE_LOCAL,
		    "tcp_connect_timeout: scope %d", cvar_scope("tcp_connect_timeout"));
	d = 12.25;
	rc = cvar_write("tcp_connect_timeout", &d);
	RC_IS(rc, MPI_SUCCESS, "write tcp_connect_timeout after MPI_Init: error %d", rc);
	d = 0;
	cvar_read("tcp_connect_timeout", &d);
	mtest_check(d == 12.25, "tcp_connect_timeout reads %g after writing 12.25", d);
	mtest_check(cvar_scope("coll_allreduce_flat_ranks") == MPI_T_SCOPE_ALL_EQ,
		    "coll_allreduce_flat_ranks: scope %d", cvar_scope("coll_allreduce_flat_ranks"));

	/* read at MPI_Init: read-only from then on */
	mtest_check(cvar_scope("shm_ring_size") == MPI_T_SCOPE_READONLY,
		    "shm_ring_size after MPI_Init: scope %d, expected READONLY",
		    cvar_scope("shm_ring_size"));
	cvar_read("shm_ring_size", &ring);
	ul = ring * 2;
	rc = cvar_write("shm_ring_size", &ul);
	RC_IS(rc, MPI_T_ERR_CVAR_SET_NEVER, "write shm_ring_size after MPI_Init: error %d, "
	      "expected MPI_T_ERR_CVAR_SET_NEVER", rc);
	cvar_read("shm_ring_size", &ring2);
	mtest_check(ring2 == ring, "shm_ring_size changed from %lu to %lu", ring, ring2);
}

/* ---- categories ------------------------------------------------------------ */

static int cat_has(int cat, const char *what, const char *name)
{
	int n = 0, i, *idx, found = 0, len;
	char nm[256];

	if (!strcmp(what, "cvar"))
		MPI_T_category_get_info(cat, NULL, NULL, NULL, NULL, &n, NULL, NULL);
	else if (!strcmp(what, "pvar"))
		MPI_T_category_get_info(cat, NULL, NULL, NULL, NULL, NULL, &n, NULL);
	else
		MPI_T_category_get_info(cat, NULL, NULL, NULL, NULL, NULL, NULL, &n);
	idx = mtest_malloc(sizeof(int) * (size_t)(n + 1));
	if (!strcmp(what, "cvar"))
		MPI_T_category_get_cvars(cat, n, idx);
	else if (!strcmp(what, "pvar"))
		MPI_T_category_get_pvars(cat, n, idx);
	else
		MPI_T_category_get_categories(cat, n, idx);
	for (i = 0; i < n && !found; i++) {
		len = sizeof(nm);
		if (!strcmp(what, "cvar"))
			MPI_T_cvar_get_info(idx[i], nm, &len, NULL, NULL, NULL, NULL, NULL, NULL,
					    NULL);
		else if (!strcmp(what, "pvar"))
			MPI_T_pvar_get_info(idx[i], nm, &len, NULL, NULL, NULL, NULL, NULL, NULL,
					    NULL, NULL, NULL, NULL);
		else
			MPI_T_category_get_info(idx[i], nm, &len, NULL, NULL, NULL, NULL, NULL);
		found = !strcmp(nm, name);
	}
	free(idx);
	return found;
}

static int cat_index(const char *name)
{
	int i = -1, rc = MPI_T_category_get_index(name, &i);

	mtest_check(rc == MPI_SUCCESS, "category_get_index(%s): error %d", name, rc);
	return i;
}

static void categories(void)
{
	int ncat = -1, ncv = 0, npv = 0, i, j, rc, len, idx, c1, c2;
	int nc, np, ns, *list, *cv_seen, *pv_seen;
	char name[256];

	MPI_T_cvar_get_num(&ncv);
	MPI_T_pvar_get_num(&npv);
	rc = MPI_T_category_get_num(&ncat);
	if (!mtest_check(rc == MPI_SUCCESS && ncat >= 0, "category_get_num: error %d", rc))
		return;
	cv_seen = calloc((size_t)ncv + 1, sizeof(int));
	pv_seen = calloc((size_t)npv + 1, sizeof(int));
	for (i = 0; i < ncat; i++) {
		len = sizeof(name);
		rc = MPI_T_category_get_info(i, name, &len, NULL, NULL, &nc, &np, &ns);
		if (!mtest_check(rc == MPI_SUCCESS, "category_get_info(%d): error %d", i, rc))
			continue;
		rc = MPI_T_category_get_index(name, &idx);
		mtest_check(rc == MPI_SUCCESS && idx == i, "category_get_index(%s): error %d, "
			    "index %d, expected %d", name, rc, idx, i);
		list = mtest_malloc(sizeof(int) * (size_t)(nc + np + ns + 1));
		MPI_T_category_get_cvars(i, nc, list);
		for (j = 0; j < nc; j++)
			if (mtest_check(list[j] >= 0 && list[j] < ncv,
					"category %s: cvar index %d", name, list[j]))
				cv_seen[list[j]]++;
		MPI_T_category_get_pvars(i, np, list);
		for (j = 0; j < np; j++)
			if (mtest_check(list[j] >= 0 && list[j] < npv,
					"category %s: pvar index %d", name, list[j]))
				pv_seen[list[j]]++;
		MPI_T_category_get_categories(i, ns, list);
		for (j = 0; j < ns; j++)
			mtest_check(list[j] >= 0 && list[j] < ncat && list[j] != i,
				    "category %s: subcategory index %d", name, list[j]);
		free(list);
	}
	if (michi) {
		/* each variable in exactly one category */
		for (i = 0; i < ncv; i++)
			mtest_check(cv_seen[i] == 1, "cvar %d is in %d categories", i, cv_seen[i]);
		for (i = 0; i < npv; i++)
			mtest_check(pv_seen[i] == 1, "pvar %d is in %d categories", i, pv_seen[i]);
		mtest_check(cat_has(cat_index("shm"), "cvar", "shm_eager_limit") &&
			    cat_has(cat_index("shm"), "pvar", "shm_frames_sent") &&
			    cat_has(cat_index("tcp"), "pvar", "tcp_bytes_sent") &&
			    cat_has(cat_index("mtmi"), "cvar", "rndv_split_min") &&
			    cat_has(cat_index("mtmi"), "pvar", "mtmi_unexpected_queue_length") &&
			    cat_has(cat_index("devices"), "category", "shm") &&
			    cat_has(cat_index("devices"), "category", "tcp") &&
			    cat_has(cat_index("wait"), "cvar", "wait_policy"),
			    "categories do not group variables by layer and device");
	}
	free(cv_seen);
	free(pv_seen);
	rc = MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	RC_IS(rc, MPI_T_ERR_INVALID_INDEX, "category_get_info(num): error %d", rc);
	rc = MPI_T_category_get_cvars(-1, 0, NULL);
	RC_IS(rc, MPI_T_ERR_INVALID_INDEX, "category_get_cvars(-1): error %d", rc);
	rc = MPI_T_category_get_index("mtest_no_such_category", &idx);
	RC_IS(rc, MPI_T_ERR_INVALID_NAME, "category_get_index(no such name): error %d", rc);
	c1 = c2 = -1;
	MPI_T_category_changed(&c1);
	MPI_T_category_changed(&c2);
	mtest_check(c1 == c2, "category_changed moved from %d to %d with nothing changed", c1,
		    c2);
}

/* ---- performance variables -------------------------------------------------- */

static void pvars_generic(void)
{
	int n = -1, i, rc, len, verb, cls, bind, ro, cont, atomic, idx, count, dlen;
	char name[256];
	MPI_Datatype dt;
	MPI_T_enum e;
	MPI_T_pvar_session s;
	MPI_T_pvar_handle h;
	unsigned long long buf[64];

	rc = MPI_T_pvar_get_num(&n);
	if (!mtest_check(rc == MPI_SUCCESS && n >= 0, "pvar_get_num: error %d", rc))
		return;
	rc = MPI_T_pvar_session_create(&s);
	if (!mtest_check(rc == MPI_SUCCESS, "pvar_session_create: error %d", rc))
		return;
	for (i = 0; i < n; i++) {
		len = sizeof(name);
		dlen = 0;
		rc = MPI_T_pvar_get_info(i, name, &len, &verb, &cls, &dt, &e, NULL, &dlen, &bind,
					 &ro, &cont, &atomic);
		if (!mtest_check(rc == MPI_SUCCESS, "pvar_get_info(%d): error %d", i, rc))
			continue;
		mtest_check(len == (int)strlen(name) + 1, "pvar %s: name_len %d", name, len);
		mtest_check(cls >= MPI_T_PVAR_CLASS_STATE && cls <= MPI_T_PVAR_CLASS_GENERIC,
			    "pvar %s: class %d", name, cls);
		rc = MPI_T_pvar_get_index(name, cls, &idx);
		mtest_check(rc == MPI_SUCCESS && idx == i, "pvar_get_index(%s): error %d, index "
			    "%d, expected %d", name, rc, idx, i);
		if (bind != MPI_T_BIND_NO_OBJECT)
			continue;
		rc = MPI_T_pvar_handle_alloc(s, i, NULL, &h, &count);
		if (!mtest_check(rc == MPI_SUCCESS && count >= 1, "pvar_handle_alloc(%s): "
				 "error %d, count %d", name, rc, count))
			continue;
		if (count > 64 / 2) {   /* no room in buf for 16-byte elements */
			MPI_T_pvar_handle_free(s, &h);
			continue;
		}
		if (!cont) {
			rc = MPI_T_pvar_start(s, h);
			mtest_check(rc == MPI_SUCCESS, "pvar_start(%s): error %d", name, rc);
		}
		rc = MPI_T_pvar_read(s, h, buf);
		mtest_check(rc == MPI_SUCCESS, "pvar_read(%s): error %d", name, rc);
		if (!cont) {
			rc = MPI_T_pvar_stop(s, h);
			mtest_check(rc == MPI_SUCCESS, "pvar_stop(%s): error %d", name, rc);
		}
		if (ro) {
			rc = MPI_T_pvar_write(s, h, buf);
			RC_IS(rc, MPI_T_ERR_PVAR_NO_WRITE, "pvar_write(read-only %s): error %d",
			      name, rc);
		}
		rc = MPI_T_pvar_handle_free(s, &h);
		mtest_check(rc == MPI_SUCCESS && h == MPI_T_PVAR_HANDLE_NULL,
			    "pvar_handle_free(%s): error %d", name, rc);
	}
	rc = MPI_T_pvar_session_free(&s);
	mtest_check(rc == MPI_SUCCESS && s == MPI_T_PVAR_SESSION_NULL,
		    "pvar_session_free: error %d", rc);
	rc = MPI_T_pvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
				 NULL, NULL);
	RC_IS(rc, MPI_T_ERR_INVALID_INDEX, "pvar_get_info(-1): error %d", rc);
	rc = MPI_T_pvar_get_index("mtest_no_such_variable", MPI_T_PVAR_CLASS_COUNTER, &idx);
	RC_IS(rc, MPI_T_ERR_INVALID_NAME, "pvar_get_index(no such name): error %d", rc);
}

/* Michi's counters, in one session. */
static const char *const counters[] = {
	"self_frames_sent", "self_frames_received", "shm_frames_sent", "shm_frames_received",
	"shm_ring_bytes_sent", "tcp_frames_sent", "tcp_frames_received", "tcp_bytes_sent",
	"mtmi_rendezvous_sends",
};
#define NCOUNTERS ((int)(sizeof(counters) / sizeof(counters[0])))
enum { SELF_TX, SELF_RX, SHM_TX, SHM_RX, SHM_BYTES, TCP_TX, TCP_RX, TCP_BYTES, RNDV };

struct cset {
	MPI_T_pvar_session s;
	MPI_T_pvar_handle h[NCOUNTERS];
	unsigned long long v[NCOUNTERS];
};

static void cset_open(struct cset *c)
{
	int i, idx, count, rc;

	MPI_T_pvar_session_create(&c->s);
	for (i = 0; i < NCOUNTERS; i++) {
		c->h[i] = MPI_T_PVAR_HANDLE_NULL;
		rc = MPI_T_pvar_get_index(counters[i], MPI_T_PVAR_CLASS_COUNTER, &idx);
		/* the rendezvous counter needs MTMI's statistics */
		if (i == RNDV && rc == MPI_T_ERR_INVALID_NAME)
			continue;
		if (!mtest_check(rc == MPI_SUCCESS, "pvar %s: error %d", counters[i], rc))
			continue;
		rc = MPI_T_pvar_handle_alloc(c->s, idx, NULL, &c->h[i], &count);
		mtest_check(rc == MPI_SUCCESS && count == 1, "pvar_handle_alloc(%s): error %d",
			    counters[i], rc);
	}
}

static void cset_read(struct cset *c)
{
	int i;

	for (i = 0; i < NCOUNTERS; i++) {
		c->v[i] = 0;
		if (c->h[i] != MPI_T_PVAR_HANDLE_NULL)
			MPI_T_pvar_read(c->s, c->h[i], &c->v[i]);
	}
}

static void exchange(int to, int from, int n)
{
	char buf[MSGSZ];
	int i;

	memset(buf, 1, sizeof(buf));
	if (to >= 0) {
		for (i = 0; i < n; i++)
			MPI_Send(buf, MSGSZ, MPI_BYTE, to, TAG_DATA, MPI_COMM_WORLD);
		MPI_Recv(NULL, 0, MPI_BYTE, to, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	if (from >= 0) {
		for (i = 0; i < n; i++)
			MPI_Recv(buf, MSGSZ, MPI_BYTE, from, TAG_DATA, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		MPI_Send(NULL, 0, MPI_BYTE, from, TAG_ACK, MPI_COMM_WORLD);
	}
}

static int expect_tcp(void)
{
	const char *d = getenv("MTEST_MPIT_DEVICE");

	if (!d)
		d = getenv("MICHI_DEVICE");
	return d && !strcmp(d, "tcp");
}

/* Rank 0 sends to rank 1: the counters of the device serving it move. */
static void counters_p2p(void)
{
	struct cset a, b;
	int tx = expect_tcp() ? TCP_TX : SHM_TX, rx = tx + 1, bytes = expect_tcp() ? TCP_BYTES
										   : SHM_BYTES;
	int other = expect_tcp() ? SHM_TX : TCP_TX;
	unsigned long long v0[NCOUNTERS], vs[NCOUNTERS], w = 1000;
	int i, rc, me = mtest_rank;

	cset_open(&a);
	rc = MPI_T_pvar_start(a.s, MPI_T_PVAR_ALL_HANDLES);
	RC_IS(rc, MPI_SUCCESS, "pvar_start(ALL_HANDLES): error %d", rc);
	cset_read(&a);
	memcpy(v0, a.v, sizeof(v0));
	exchange(me == 0 ? 1 : -1, me == 1 ? 0 : -1, NMSG);
	cset_read(&a);
	if (me == 0) {
		mtest_check(a.v[tx] - v0[tx] >= NMSG, "%s grew by %llu after %d messages",
			    counters[tx], a.v[tx] - v0[tx], NMSG);
		mtest_check(a.v[bytes] - v0[bytes] >= (unsigned long long)NMSG * MSGSZ,
			    "%s grew by %llu after %d messages of %d bytes", counters[bytes],
			    a.v[bytes] - v0[bytes], NMSG, MSGSZ);
		mtest_check(a.v[other] == v0[other], "%s grew by %llu, the other device "
			    "carries the traffic", counters[other], a.v[other] - v0[other]);
		mtest_check(a.v[rx] > v0[rx], "%s did not count the acknowledgement",
			    counters[rx]);
	} else if (me == 1) {
		mtest_check(a.v[rx] - v0[rx] >= NMSG, "%s grew by %llu after %d messages",
			    counters[rx], a.v[rx] - v0[rx], NMSG);
	}

	/* stopped: nothing moves; reset: 0; started again: counts again */
	rc = MPI_T_pvar_stop(a.s, MPI_T_PVAR_ALL_HANDLES);
	RC_IS(rc, MPI_SUCCESS, "pvar_stop(ALL_HANDLES): error %d", rc);
	cset_read(&a);
	memcpy(vs, a.v, sizeof(vs));
	exchange(me == 0 ? 1 : -1, me == 1 ? 0 : -1, NMSG);
	cset_read(&a);
	for (i = 0; i < NCOUNTERS; i++)
		mtest_check(a.v[i] == vs[i], "stopped %s moved from %llu to %llu", counters[i],
			    vs[i], a.v[i]);
	rc = MPI_T_pvar_reset(a.s, MPI_T_PVAR_ALL_HANDLES);
	RC_IS(rc, MPI_SUCCESS, "pvar_reset(ALL_HANDLES): error %d", rc);
	cset_read(&a);
	for (i = 0; i < NCOUNTERS; i++)
		mtest_check(a.v[i] == 0, "reset %s reads %llu", counters[i], a.v[i]);
	MPI_T_pvar_write(a.s, a.h[tx], &w);
	cset_read(&a);
	mtest_check(a.v[tx] == w, "stopped %s reads %llu after writing %llu", counters[tx],
		    a.v[tx], w);
	MPI_T_pvar_reset(a.s, a.h[tx]);
	MPI_T_pvar_start(a.s, MPI_T_PVAR_ALL_HANDLES);

	/* a second session, started later, counts from its own start */
	cset_open(&b);
	MPI_T_pvar_start(b.s, MPI_T_PVAR_ALL_HANDLES);
	exchange(me == 0 ? 1 : -1, me == 1 ? 0 : -1, NMSG);
	cset_read(&a);
	cset_read(&b);
	if (me == 0)
		mtest_check(b.v[tx] >= NMSG && a.v[tx] >= b.v[tx],
			    "%s: session started first %llu, second %llu, after %d messages",
			    counters[tx], a.v[tx], b.v[tx], NMSG);
	/* readreset: the value, then 0 (no frame leaves between two reads) */
	rc = MPI_T_pvar_readreset(b.s, b.h[tx], &w);
	RC_IS(rc, MPI_SUCCESS, "pvar_readreset: error %d", rc);
	cset_read(&b);
	mtest_check(w >= (me == 0 ? NMSG : 0) && b.v[tx] == 0,
		    "readreset %s gave %llu, then %llu", counters[tx], w, b.v[tx]);
	/* a handle of one session is no handle of another */
	rc = MPI_T_pvar_read(b.s, a.h[tx], &w);
	RC_IS(rc, MPI_T_ERR_INVALID_HANDLE, "pvar_read(handle of another session): error %d",
	      rc);
	rc = MPI_T_pvar_read(b.s, MPI_T_PVAR_ALL_HANDLES, &w);
	RC_IS(rc, MPI_T_ERR_INVALID_HANDLE, "pvar_read(ALL_HANDLES): error %d", rc);
	MPI_T_pvar_session_free(&a.s);
	MPI_T_pvar_session_free(&b.s);
	rc = MPI_T_pvar_read(a.s, MPI_T_PVAR_HANDLE_NULL, &w);
	RC_IS(rc, MPI_T_ERR_INVALID_SESSION, "pvar_read(SESSION_NULL): error %d", rc);
}

/* Every rank to itself: the self device. */
static void counters_self(void)
{
	struct cset a;
	unsigned long long v0[NCOUNTERS];
	MPI_Request r;
	int i, x = 0;

	cset_open(&a);
	MPI_T_pvar_start(a.s, MPI_T_PVAR_ALL_HANDLES);
	cset_read(&a);
	memcpy(v0, a.v, sizeof(v0));
	for (i = 0; i < 10; i++) {
		MPI_Isend(&i, 1, MPI_INT, mtest_rank, TAG_DATA, MPI_COMM_WORLD, &r);
		MPI_Recv(&x, 1, MPI_INT, mtest_rank, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&r, MPI_STATUS_IGNORE);
	}
	cset_read(&a);
	mtest_check(a.v[SELF_TX] - v0[SELF_TX] >= 10 && a.v[SELF_RX] - v0[SELF_RX] >= 10,
		    "self frames sent/received grew by %llu/%llu after 10 messages to self",
		    a.v[SELF_TX] - v0[SELF_TX], a.v[SELF_RX] - v0[SELF_RX]);
	MPI_T_pvar_session_free(&a.s);
}

static int level_handle(MPI_T_pvar_session s, const char *name, int cls,
			MPI_T_pvar_handle *h)
{
	int idx, count, rc = MPI_T_pvar_get_index(name, cls, &idx);

	if (rc == MPI_T_ERR_INVALID_NAME && cls == MPI_T_PVAR_CLASS_HIGHWATERMARK)
		return 0;   /* needs MTMI's statistics */
	if (!mtest_check(rc == MPI_SUCCESS, "pvar %s: error %d", name, rc))
		return 0;
	rc = MPI_T_pvar_handle_alloc(s, idx, NULL, h, &count);
	return mtest_check(rc == MPI_SUCCESS, "pvar_handle_alloc(%s): error %d", name, rc);
}

/* Messages left unreceived on rank 1, receives left unmatched. */
static void queues(void)
{
	MPI_T_pvar_session s;
	MPI_T_pvar_handle hu, hp, hm = MPI_T_PVAR_HANDLE_NULL;
	unsigned long long u0, u1, u2, p0, p1, p2, m1 = 0;
	char buf[8] = { 0 };
	MPI_Request r;
	int i, rc, have_max;

	if (mtest_rank == 0) {
		/* rank 1 reads its queues first */
		MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 0; i < NUNEXP; i++)
			MPI_Send(buf, 8, MPI_BYTE, 1, TAG_UNEXP, MPI_COMM_WORLD);
		MPI_Send(buf, 8, MPI_BYTE, 1, TAG_LAST, MPI_COMM_WORLD);
		return;
	}
	if (mtest_rank != 1)
		return;
	MPI_T_pvar_session_create(&s);
	if (!level_handle(s, "mtmi_unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL, &hu) ||
	    !level_handle(s, "mtmi_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL, &hp)) {
		/* rank 0 waits for the go, then sends: take it all */
		MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
		for (i = 0; i <= NUNEXP; i++)
			MPI_Recv(buf, 8, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		MPI_T_pvar_session_free(&s);
		return;
	}
	have_max = level_handle(s, "mtmi_unexpected_queue_max", MPI_T_PVAR_CLASS_HIGHWATERMARK,
				&hm);
	rc = MPI_T_pvar_start(s, hu);
	RC_IS(rc, MPI_T_ERR_PVAR_NO_STARTSTOP, "pvar_start(level): error %d", rc);
	rc = MPI_T_pvar_reset(s, hu);
	RC_IS(rc, MPI_T_ERR_PVAR_NO_WRITE, "pvar_reset(level): error %d", rc);
	rc = MPI_T_pvar_readreset(s, hu, &u0);
	RC_IS(rc, MPI_T_ERR_PVAR_NO_WRITE, "pvar_readreset(level): error %d", rc);
	rc = MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES);
	RC_IS(rc, MPI_SUCCESS, "pvar_start(ALL_HANDLES) of continuous ones: error %d", rc);
	MPI_T_pvar_read(s, hu, &u0);
	MPI_T_pvar_read(s, hp, &p0);
	MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);

	/* in order: once the last message is here, all of them are */
	MPI_Probe(0, TAG_LAST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_T_pvar_read(s, hu, &u1);
	mtest_check(u1 >= u0 + NUNEXP + 1, "unexpected queue %llu, then %llu with %d more "
		    "messages unreceived", u0, u1, NUNEXP + 1);
	if (have_max) {
		MPI_T_pvar_read(s, hm, &m1);
		mtest_check(m1 >= u1, "unexpected queue high watermark %llu below its length "
			    "%llu", m1, u1);
	}
	for (i = 0; i < NUNEXP; i++)
		MPI_Recv(buf, 8, MPI_BYTE, 0, TAG_UNEXP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Recv(buf, 8, MPI_BYTE, 0, TAG_LAST, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_T_pvar_read(s, hu, &u2);
	mtest_check(u2 + NUNEXP + 1 <= u1, "unexpected queue %llu after receiving %d of its "
		    "%llu messages", u2, NUNEXP + 1, u1);
	if (have_max) {
		unsigned long long m2 = 0;

		MPI_T_pvar_read(s, hm, &m2);
		mtest_check(m2 >= m1, "high watermark went down from %llu to %llu", m1, m2);
	}

	MPI_Irecv(buf, 8, MPI_BYTE, 0, TAG_NEVER, MPI_COMM_WORLD, &r);
	MPI_T_pvar_read(s, hp, &p1);
	MPI_Cancel(&r);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
	MPI_T_pvar_read(s, hp, &p2);
	mtest_check(p1 == p0 + 1 && p2 == p0, "posted queue %llu, %llu with a receive "
		    "posted, %llu once cancelled", p0, p1, p2);
	MPI_T_pvar_session_free(&s);
}

/* Messages above every eager limit take the rendezvous. */
static void rendezvous(void)
{
	struct cset a;
	unsigned long long v0;
	char *big;
	int i;

	if (mtest_rank > 1)
		return;
	big = mtest_malloc(BIGMSG);
	memset(big, 3, BIGMSG);
	cset_open(&a);
	MPI_T_pvar_start(a.s, MPI_T_PVAR_ALL_HANDLES);
	cset_read(&a);
	v0 = a.v[RNDV];
	for (i = 0; i < 2; i++) {
		if (mtest_rank == 0)
			MPI_Send(big, BIGMSG, MPI_BYTE, 1, TAG_BIG, MPI_COMM_WORLD);
		else
			MPI_Recv(big, BIGMSG, MPI_BYTE, 0, TAG_BIG, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
	}
	cset_read(&a);
	if (mtest_rank == 0 && a.h[RNDV] != MPI_T_PVAR_HANDLE_NULL)
		mtest_check(a.v[RNDV] - v0 >= 2, "rendezvous sends grew by %llu after 2 sends "
			    "of %d bytes", a.v[RNDV] - v0, BIGMSG);
	MPI_T_pvar_session_free(&a.s);
	free(big);
}

int main(int argc, char **argv)
{
	int provided, rc, n, errs = 0, me;
	unsigned long long after = 0;
	unsigned long ul = 0;

	before_init();
	MPI_Init(&argc, &argv);
	mtest_init_done();

	/* initialisations are counted */
	rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	RC_IS(rc, MPI_SUCCESS, "second MPI_T_init_thread: error %d", rc);
	MPI_T_finalize();
	rc = MPI_T_cvar_get_num(&n);
	RC_IS(rc, MPI_SUCCESS, "MPI_T after one of two MPI_T_finalize: error %d", rc);

	cvars_generic();
	categories();
	pvars_generic();
	if (michi)
		cvars_michi();
	/* the byte devices' and MTMI's own-queue counters: still over a
	 * matching device, which moves and matches the messages itself */
	if (michi && !mtest_matching_device()) {
		counters_self();
		if (mtest_size >= 2) {
			counters_p2p();
			queues();
			rendezvous();
		}
		MPI_T_pvar_read(early, early_h, &early_last);
		mtest_check(early_last >= 10, "self_frames_sent since before MPI_Init: %llu",
			    early_last);
	}
	me = mtest_rank;
	rc = mtest_finalize();

	/* after MPI_Finalize: MPI_T still answers; counters keep their value */
	if (michi) {
		if (MPI_T_pvar_read(early, early_h, &after) != MPI_SUCCESS || after < early_last) {
			printf("rank %d: error: self_frames_sent after MPI_Finalize: %llu, before "
			       "%llu\n", me, after, early_last);
			errs++;
		}
		if (!cvar_read("shm_eager_limit", &ul) || ul == 0) {
			printf("rank %d: error: shm_eager_limit after MPI_Finalize: %lu\n", me, ul);
			errs++;
		}
		MPI_T_pvar_session_free(&early);
	}
	MPI_T_finalize();
	if (MPI_T_cvar_get_num(&n) != MPI_T_ERR_NOT_INITIALIZED) {
		printf("rank %d: error: MPI_T still initialized after its last finalize\n", me);
		errs++;
	}
	fflush(stdout);
	return rc || errs ? 1 : 0;
}
