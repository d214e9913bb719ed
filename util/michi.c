/* SPDX-License-Identifier: MIT */
/*
 * util/michi.c: first-error record, logging, tunables and clocks shared by
 * every layer below mpi/. All of it is cold code: the hot paths only test
 * michi_log_level or read a tunable's variable.
 */
#include "config.h"
#include "michi.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* ---- first error ------------------------------------------------------ */

static __thread char err_msg[512];
static __thread michi_status_t err_status;

michi_status_t michi_err(michi_status_t st, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (err_status == 0) {
		err_status = st;
		memcpy(err_msg, buf, sizeof(err_msg));
		michi_debug("error recorded: %s", buf);
	} else {
		michi_debug("later error (first kept): %s", buf);
	}
	return st;
}

const char *michi_err_msg(void)
{
	return err_msg;
}

void michi_err_clear(void)
{
	err_status = 0;
	err_msg[0] = '\0';
}

void michi_hex_encode(const void *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *b = in;
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int michi_hex_decode(const char *in, void *out, size_t n)
{
	uint8_t *b = out;
	size_t i;

	for (i = 0; i < n; i++) {
		int hi = hex_digit(in[2 * i]), lo = hi < 0 ? -1 : hex_digit(in[2 * i + 1]);

		if (lo < 0)
			return -1;
		b[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

const char *michi_status_str(michi_status_t st)
{
	switch (st) {
	case MICHI_OK: return "success";
	case MICHI_INPROGRESS: return "in progress";
	case MICHI_ERR_NOMEM: return "out of memory";
	case MICHI_ERR_IO: return "system call failed";
	case MICHI_ERR_PEER: return "peer unreachable or gone";
	case MICHI_ERR_TRUNCATE: return "message truncated";
	case MICHI_ERR_INVAL: return "invalid argument";
	case MICHI_ERR_UNSUPPORTED: return "not supported";
	case MICHI_ERR_PMI: return "process manager failure";
	case MICHI_ERR_INTERN: return "internal error";
	case MICHI_ERR_CANCELLED: return "cancelled";
	}
	return "unknown status";
}

/* ---- logging ---------------------------------------------------------- */

int michi_log_level = MICHI_LOG_WARN;
static char log_prefix[128] = "michi";

static const char *const level_names[] = {
	"error", "warn", "info", "debug", "trace"
};

void michi_log_init(void)
{
	const char *s = getenv("MICHI_LOG");
	int i;

	if (!s || !*s)
		return;
	for (i = 0; i <= MICHI_LOG_TRACE; i++) {
		if (strcasecmp(s, level_names[i]) == 0) {
			michi_log_level = i;
			return;
		}
	}
	if (isdigit((unsigned char)s[0]))
		michi_log_level = atoi(s);
}

void michi_log_set_prefix(const char *prefix)
{
	snprintf(log_prefix, sizeof(log_prefix), "%s", prefix);
}

void michi_log_emit(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	if (level < 0)
		level = 0;
	if (level > MICHI_LOG_TRACE)
		level = MICHI_LOG_TRACE;
	n = snprintf(buf, sizeof(buf), "[%s] %s: ", log_prefix, level_names[level]);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(buf);
	buf[n++] = '\n';
	/* one write() so that lines of different ranks do not interleave */
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return;
}

void michi_assert_fail(const char *expr, const char *file, int line)
{
	michi_log_emit(MICHI_LOG_ERROR, "internal assertion failed: %s (%s:%d)",
		       expr, file, line);
	abort();
}

/* ---- tunables --------------------------------------------------------- */

/* The linker defines these around the section that MICHI_TUNABLE fills. */
extern const struct michi_tunable __start_michi_tunables[] __attribute__((weak));
extern const struct michi_tunable __stop_michi_tunables[] __attribute__((weak));

const struct michi_tunable *michi_tunables_begin(void)
{
	return __start_michi_tunables;
}

const struct michi_tunable *michi_tunables_end(void)
{
	return __stop_michi_tunables;
}

static int parse_bool(const char *s, int *out)
{
	static const char *const yes[] = { "1", "yes", "true", "on", "y" };
	static const char *const no[] = { "0", "no", "false", "off", "n" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = 1;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = 0;
			return 0;
		}
	}
	return -1;
}

michi_status_t michi_tunable_parse(const struct michi_tunable *t, const char *s)
{
	char *end;

	errno = 0;
	switch (t->type) {
	case MICHI_T_INT: {
		long v = strtol(s, &end, 0);
		if (end == s || *end || errno || v < -2147483647L - 1 || v > 2147483647L)
			return MICHI_ERR_INVAL;
		*(int *)t->var = (int)v;
		return MICHI_OK;
	}
	case MICHI_T_SIZE: {
		unsigned long long v = strtoull(s, &end, 0);
		if (end == s || errno || *s == '-')
			return MICHI_ERR_INVAL;
		switch (tolower((unsigned char)*end)) {
		case 'k': v <<= 10; end++; break;
		case 'm': v <<= 20; end++; break;
		case 'g': v <<= 30; end++; break;
		}
		if (*end == 'b' || *end == 'B')
			end++;
		if (*end)
			return MICHI_ERR_INVAL;
		*(size_t *)t->var = (size_t)v;
		return MICHI_OK;
	}
	case MICHI_T_BOOL: {
		int v;
		if (parse_bool(s, &v))
			return MICHI_ERR_INVAL;
		*(int *)t->var = v;
		return MICHI_OK;
	}
	case MICHI_T_DOUBLE: {
		double v = strtod(s, &end);
		if (end == s || *end || errno)
			return MICHI_ERR_INVAL;
		*(double *)t->var = v;
		return MICHI_OK;
	}
	case MICHI_T_STRING:
		*(const char **)t->var = s;
		return MICHI_OK;
	}
	return MICHI_ERR_INVAL;
}

static void env_name(const struct michi_tunable *t, char *buf, size_t len)
{
	size_t i, n = (size_t)snprintf(buf, len, "MICHI_");

	for (i = 0; t->name[i] && n + 1 < len; i++)
		buf[n++] = (char)toupper((unsigned char)t->name[i]);
	buf[n] = '\0';
}

void michi_tunables_load(void)
{
	static int loaded;
	const struct michi_tunable *t;
	char name[128];

	if (loaded)
		return;
	loaded = 1;
	michi_log_init();
	for (t = michi_tunables_begin(); t && t < michi_tunables_end(); t++) {
		const char *v;

		if (t->defval && michi_tunable_parse(t, t->defval) != MICHI_OK)
			michi_warn("tunable %s: bad default '%s'", t->name, t->defval);
		env_name(t, name, sizeof(name));
		v = getenv(name);
		if (v && michi_tunable_parse(t, v) != MICHI_OK)
			michi_warn("ignoring %s=%s: not a valid value (default %s kept)",
				   name, v, t->defval ? t->defval : "");
	}
}

static const char *type_name(int type)
{
	switch (type) {
	case MICHI_T_INT: return "int";
	case MICHI_T_SIZE: return "size";
	case MICHI_T_BOOL: return "bool";
	case MICHI_T_DOUBLE: return "double";
	case MICHI_T_STRING: return "string";
	}
	return "?";
}

static void format_value(const struct michi_tunable *t, char *buf, size_t len)
{
	switch (t->type) {
	case MICHI_T_INT:
		snprintf(buf, len, "%d", *(int *)t->var);
		break;
	case MICHI_T_SIZE:
		snprintf(buf, len, "%zu", *(size_t *)t->var);
		break;
	case MICHI_T_BOOL:
		snprintf(buf, len, "%s", *(int *)t->var ? "yes" : "no");
		break;
	case MICHI_T_DOUBLE:
		snprintf(buf, len, "%g", *(double *)t->var);
		break;
	case MICHI_T_STRING: {
		const char *s = *(const char **)t->var;
		snprintf(buf, len, "%s", s ? s : "");
		break;
	}
	}
}

void michi_tunables_print(void *stdio_file, int max_level)
{
	FILE *f = stdio_file;
	const struct michi_tunable *t;
	char name[128], val[256];

	michi_tunables_load();
	for (t = michi_tunables_begin(); t && t < michi_tunables_end(); t++) {
		if (t->level > max_level)
			continue;
		env_name(t, name, sizeof(name));
		format_value(t, val, sizeof(val));
		fprintf(f, "%-32s %-6s value=%s default=%s\n    %s\n", name,
			type_name(t->type), val, t->defval ? t->defval : "",
			t->help);
	}
}

/* ---- clocks and host -------------------------------------------------- */

double michi_wtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if !defined(__x86_64__) && !defined(__i386__)
uint64_t michi_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

double michi_ticks_per_us(void)
{
	static double rate;
	double t0, t1;
	uint64_t k0, k1;

	if (rate > 0)
		return rate;
	t0 = michi_wtime();
	k0 = michi_ticks();
	do
		t1 = michi_wtime();
	while (t1 - t0 < 50e-6);
	k1 = michi_ticks();
	rate = (double)(k1 - k0) / ((t1 - t0) * 1e6);
	if (!(rate > 0))
		rate = 1000.0;   /* a counter that does not move: treat as ns */
	return rate;
}

void michi_shm_prefix(const uint8_t key[16], char *buf, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a */
	int i;

	for (i = 0; i < 16; i++) {
		h ^= key[i];
		h *= 0x100000001b3ull;
	}
	snprintf(buf, len, "michi-%016llx-", (unsigned long long)h);
}

const char *michi_hostname(void)
{
	static char name[256];

	if (!name[0]) {
		const char *h = getenv("MICHI_HOSTNAME");

		if (h && *h)
			snprintf(name, sizeof(name), "%s", h);
		else if (gethostname(name, sizeof(name) - 1) != 0)
			snprintf(name, sizeof(name), "localhost");
	}
	return name;
}
