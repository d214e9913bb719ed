/* SPDX-License-Identifier: MIT */
/*
 * util/michi.h: what every layer below mpi/ shares.
 *
 * The one status type (michi_status_t), the first-error record that mpi/
 * turns into an MPI error message, levelled logging, and the tunables
 * table. Nothing here knows MPI handles or sockets.
 */
#ifndef MICHI_UTIL_H
#define MICHI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#define MICHI_EXPORT __attribute__((visibility("default")))
#define MICHI_HIDDEN __attribute__((visibility("hidden")))

/*
 * Status of every function below mpi/: 0 ok, >0 still in progress, <0 an
 * error. The first place that finds an error records a sentence with
 * michi_err(); mpi/ maps the status to an MPI error class.
 */
typedef int michi_status_t;

enum {
	MICHI_OK = 0,
	MICHI_INPROGRESS = 1,
	MICHI_ERR_NOMEM = -1,       /* out of memory */
	MICHI_ERR_IO = -2,          /* a system call failed */
	MICHI_ERR_PEER = -3,        /* a peer cannot be reached or went away */
	MICHI_ERR_TRUNCATE = -4,    /* message longer than the receive buffer */
	MICHI_ERR_INVAL = -5,       /* bad argument reaching a lower layer */
	MICHI_ERR_UNSUPPORTED = -6, /* not supported by this device/layer */
	MICHI_ERR_PMI = -7,         /* process manager interface failure */
	MICHI_ERR_INTERN = -8,      /* internal invariant broken */
	MICHI_ERR_CANCELLED = -9,   /* (internal) operation was cancelled */
};

/*
 * Record the first error since the last michi_err_clear() (later ones are
 * logged at debug level only) and return st, so callers can write
 * `return michi_err(MICHI_ERR_PEER, "rank %d ...", ...);`.
 */
michi_status_t michi_err(michi_status_t st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), cold));
const char *michi_err_msg(void);   /* "" when none recorded */
void michi_err_clear(void);
const char *michi_status_str(michi_status_t st);

/* Business cards and keys travel as text: lowercase hex of n bytes into
 * out (2n + 1 characters with the NUL), and back from 2n digits (-1 on a
 * character that is not one, out then partly written). */
void michi_hex_encode(const void *in, size_t n, char *out);
int michi_hex_decode(const char *in, void *out, size_t n);

/* ---- logging ---------------------------------------------------------- */

enum michi_log_level {
	MICHI_LOG_ERROR = 0,
	MICHI_LOG_WARN,
	MICHI_LOG_INFO,
	MICHI_LOG_DEBUG,
	MICHI_LOG_TRACE,
};

extern int michi_log_level MICHI_HIDDEN;   /* from MICHI_LOG: error|warn|info|debug|trace */
void michi_log_init(void);
void michi_log_set_prefix(const char *prefix); /* e.g. "rank 3 on node1" */
void michi_log_emit(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), cold));

#define michi_log(lvl, ...) do { \
	if (unlikely((lvl) <= michi_log_level)) michi_log_emit((lvl), __VA_ARGS__); \
} while (0)
#define michi_error(...) michi_log(MICHI_LOG_ERROR, __VA_ARGS__)
#define michi_warn(...)  michi_log(MICHI_LOG_WARN, __VA_ARGS__)
#define michi_info(...)  michi_log(MICHI_LOG_INFO, __VA_ARGS__)
#define michi_debug(...) michi_log(MICHI_LOG_DEBUG, __VA_ARGS__)
#ifdef MICHI_ENABLE_TRACE
#define michi_trace(...) michi_log(MICHI_LOG_TRACE, __VA_ARGS__)
#else
#define michi_trace(...) do { } while (0)
#endif

/* Debug-only assert for internal invariants; always-on one for states that
 * would corrupt data. Never for user input. */
void michi_assert_fail(const char *expr, const char *file, int line)
	__attribute__((noreturn, cold));
#define MICHI_ASSERT_ALWAYS(e) \
	do { if (unlikely(!(e))) michi_assert_fail(#e, __FILE__, __LINE__); } while (0)
#ifdef NDEBUG
#define MICHI_ASSERT(e) do { } while (0)
#else
#define MICHI_ASSERT(e) MICHI_ASSERT_ALWAYS(e)
#endif

/* ---- tunables --------------------------------------------------------- */

/*
 * Declared once, beside the code that reads them:
 *
 *   static size_t tcp_eager_limit = 65536;
 *   MICHI_TUNABLE(tcp_eager_limit, "tcp_eager_limit", MICHI_T_SIZE, "65536",
 *                 MICHI_LEVEL_TUNER, "largest message tcp sends eagerly (bytes)");
 *
 * The linker gathers every entry into one table (section michi_tunables);
 * michi_tunables_load() sets each from its default and then from the
 * environment variable MICHI_<NAME in upper case>. The same table feeds
 * MPI_T control variables and `michi_info --params`.
 */
enum michi_tunable_type {
	MICHI_T_INT,     /* int */
	MICHI_T_SIZE,    /* size_t, accepts k/m/g suffixes */
	MICHI_T_BOOL,    /* int 0/1, accepts yes/no/true/false/on/off */
	MICHI_T_DOUBLE,  /* double */
	MICHI_T_STRING,  /* const char * (points into the environment or the default) */
};

enum michi_tunable_level {
	MICHI_LEVEL_USER = 1,
	MICHI_LEVEL_TUNER = 2,
	MICHI_LEVEL_DEVELOPER = 3,
};

struct michi_tunable {
	const char *name;
	int type;
	void *var;
	const char *defval;
	const char *help;
	int level;
};

#define MICHI_TUNABLE(var_, name_, type_, def_, level_, help_) \
	static const struct michi_tunable michi_tunable_ent_##var_ \
	__attribute__((used, section("michi_tunables"), aligned(sizeof(void *)))) = \
	{ name_, type_, (void *)&(var_), def_, help_, level_ }

void michi_tunables_load(void);   /* idempotent */
const struct michi_tunable *michi_tunables_begin(void);
const struct michi_tunable *michi_tunables_end(void);
/* Parse s as a value of type into var; returns MICHI_OK or MICHI_ERR_INVAL. */
michi_status_t michi_tunable_parse(const struct michi_tunable *t, const char *s);
/* Print name, type, current value, default and help of every tunable. */
MICHI_EXPORT void michi_tunables_print(void *stdio_file, int max_level);

/* ---- small helpers ---------------------------------------------------- */

double michi_wtime(void);          /* seconds, CLOCK_MONOTONIC */

/* One pause of a polling loop: lets the sibling hyperthread run and
 * saves power while a flag is watched. */
static inline void michi_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/* A cheap clock for rate limits: the time-stamp counter where there is
 * one (a few ns to read), else CLOCK_MONOTONIC in ns. Its rate is what
 * michi_ticks_per_us() measured; only differences mean anything. */
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
static inline uint64_t michi_ticks(void)
{
	return __rdtsc();
}
#else
uint64_t michi_ticks(void);
#endif
/* Ticks of michi_ticks() per microsecond, measured once over about 50 us
 * of CLOCK_MONOTONIC on first use. */
double michi_ticks_per_us(void);
/* "michi-<16 hex digits>-": the start of the name of every shared-memory
 * segment of the job with this key (devices/shm), which the launcher's
 * proxy removes when a job dies before its ranks could. The digits are a
 * hash: the key itself stays secret. */
void michi_shm_prefix(const uint8_t key[16], char *buf, size_t len);
const char *michi_hostname(void);  /* cached gethostname() */

#endif
