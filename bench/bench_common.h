/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_common.h: what the benchmark programs share (pingpong.c,
 * oversub.c, dtype.c): parsing option values and the iteration policy. Each program is one file compiled by
 * every implementation's mpicc (bench/compare.sh), so these are static
 * functions in a header rather than a library. The parsers return 0 on
 * success and -1 when the text is not a number in range; *out is written
 * only on success.
 */
#ifndef MICHI_BENCH_COMMON_H
#define MICHI_BENCH_COMMON_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A decimal integer in lo..hi. */
static inline int bench_parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* A number of seconds, more than 0 and at most an hour. */
static inline int bench_parse_secs(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0 && v <= 3600))
		return -1;
	*out = v;
	return 0;
}

/* "MIN:MAX" with lo <= MIN <= MAX <= hi (s is modified). */
static inline int bench_parse_range(char *s, long lo, long hi, long *min, long *max)
{
	char *colon = strchr(s, ':');
	long a, b;

	if (!colon)
		return -1;
	*colon = '\0';
	if (bench_parse_long(s, lo, hi, &a) || bench_parse_long(colon + 1, lo, hi, &b) || a > b)
		return -1;
	*min = a;
	*max = b;
	return 0;
}

/* Timed iterations at a message of bytes: iters up to scale_above bytes,
 * fewer in proportion above, but at least min_iters (unless iters itself
 * is smaller) and at least 1. */
static inline long bench_scaled_iters(long iters, long bytes, long scale_above, long min_iters)
{
	long n = iters;

	if (bytes > scale_above)
		n = (long)((double)n * scale_above / bytes);
	if (n < min_iters && iters >= min_iters)
		n = min_iters;
	return n < 1 ? 1 : n;
}

/* Warm-up iterations: the one asked for (>= 0), else a tenth of n, at
 * least 2. */
static inline long bench_warmup(long warmup, long n)
{
	if (warmup >= 0)
		return warmup;
	return n / 10 < 2 ? 2 : n / 10;
}

#endif
