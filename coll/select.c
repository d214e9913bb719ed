/* SPDX-License-Identifier: MIT */
/*
 * coll/select.c: algorithm selection (docs/design.md §5). Each collective has
 * one table listing its algorithms in order of preference. A row says
 * what the algorithm needs to be correct (an op that commutes, a power of
 * two ranks, blocks of one size, hosts to be aware of) and when the
 * automatic choice takes it (a range of sizes, of rank counts, one
 * host). The first row that fits is taken; the last row of every table
 * fits every call. A tunable per collective,
 * MICHI_COLL_<NAME>_ALGORITHM, forces a row by name; a forced row whose
 * needs the call does not meet gives way to the automatic choice, as an
 * unknown name does (with one warning).
 *
 * Every input of the choice is the same on every rank (sizes that the
 * type signatures fix, the op, the host map), so all ranks choose alike.
 * The size a table's ranges measure is given with its table.
 */
#include <stdio.h>
#include <string.h>

#include "schedule.h"

/* What a row needs of the call, checked forced or not. */
enum {
	NEED_COMMUTE = 1,      /* the op commutes */
	NEED_POW2 = 2,         /* a power-of-two number of ranks */
	NEED_UNIFORM = 4,      /* blocks of one size (not the v forms) */
	NEED_HOSTS = 8,        /* ranks on several hosts, some sharing one */
	NEED_COUNT_N = 16,     /* at least one element per rank */
	NEED_SITES = 32,       /* ranks on several sites */
};

/* When the automatic choice takes it, besides the ranges. */
enum {
	AUTO_NEVER = 1,        /* only when forced */
	AUTO_ONE_HOST = 2,     /* all ranks on one host */
	AUTO_HOSTS = 4,        /* ranks on several hosts */
	AUTO_OVERSUB = 8,      /* one host whose ranks outnumber its processors */
	AUTO_SITES = 16,       /* ranks on several sites */
};

int coll_oversubscribed;

/* A call as selection sees it. */
struct coll_query {
	int n;
	size_t bytes;          /* the table's size measure */
	size_t count;          /* elements, for reductions */
	int commute, uniform;
	const struct coll_hosts *hosts;
	const struct coll_sites *sites;
};

struct coll_algo {
	const char *name;
	unsigned need, when;
	int min_n;             /* the automatic choice: at least this many ranks */
	const int *max_n;      /* and at most (NULL: no bound) */
	const size_t *lo, *hi; /* sizes from lo to hi (NULL: unbounded) */
	union {
		int (*barrier)(struct coll_sched *s);
		int (*bcast)(struct coll_sched *s, void *buf, size_t len, int root);
		int (*reduce)(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count,
			      int root);
		int (*allreduce)(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count);
		int (*gather)(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			      const struct coll_v *v, size_t ucount, size_t extent, int root);
		int (*scatter)(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
			       size_t ucount, size_t extent, void *rbuf, size_t rlen, int root);
		int (*allgather)(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
				 const struct coll_v *v, size_t ucount, size_t extent);
		int (*alltoall)(struct coll_sched *s, const void *sbuf, const struct coll_v *sv,
				size_t sucount, size_t sext, void *rbuf, const struct coll_v *rv,
				size_t rucount, size_t rext);
		int (*reduce_scatter)(struct coll_sched *s, const void *sbuf, void *rbuf,
				      const struct coll_v *v, size_t ucount);
	} build;
};

struct coll_table {
	const char *coll;      /* for the warning */
	const char *const *force;   /* the tunable's value */
	const char *seen;      /* the value `forced` was found for */
	int forced;            /* its row, or -1 (auto or unknown) */
	int nrows;
	const struct coll_algo *rows;
};

static int meets(const struct coll_algo *a, const struct coll_query *q)
{
	if ((a->need & NEED_COMMUTE) && !q->commute)
		return 0;
	if ((a->need & NEED_POW2) && (q->n & (q->n - 1)))
		return 0;
	if ((a->need & NEED_UNIFORM) && !q->uniform)
		return 0;
	if ((a->need & NEED_HOSTS) &&
	    !(q->hosts && q->hosts->nhosts > 1 && q->hosts->nhosts < q->n))
		return 0;
	if ((a->need & NEED_COUNT_N) && q->count < (size_t)q->n)
		return 0;
	if ((a->need & NEED_SITES) && !(q->sites && q->sites->nsites > 1))
		return 0;
	return 1;
}

static int wanted(const struct coll_algo *a, const struct coll_query *q)
{
	if (a->when & AUTO_NEVER)
		return 0;
	if ((a->when & AUTO_ONE_HOST) && q->hosts)
		return 0;
	if ((a->when & AUTO_HOSTS) && !q->hosts)
		return 0;
	if ((a->when & AUTO_OVERSUB) && (q->hosts || !coll_oversubscribed))
		return 0;
	if ((a->when & AUTO_SITES) && !(q->sites && q->sites->nsites > 1))
		return 0;
	if (q->n < a->min_n || (a->max_n && q->n > *a->max_n))
		return 0;
	if ((a->lo && q->bytes < *a->lo) || (a->hi && q->bytes > *a->hi))
		return 0;
	return 1;
}

/* The row the tunable forces, or -1: looked up when its value changes
 * (an MPI_T write may change it), with one warning for a name no row
 * has. */
static int forced_row(struct coll_table *t)
{
	const char *f = *t->force;
	int i;

	if (likely(f == t->seen))
		return t->forced;
	t->seen = f;
	t->forced = -1;
	if (!f || !*f || !strcmp(f, "auto"))
		return -1;
	for (i = 0; i < t->nrows; i++)
		if (!strcmp(f, t->rows[i].name))
			return t->forced = i;
	michi_warn("MICHI_COLL_%s_ALGORITHM=%s: no such algorithm; choosing automatically "
		   "(michi_info --params lists the names)", t->coll, f);
	return -1;
}

static const struct coll_algo *choose(struct coll_table *t, const struct coll_query *q)
{
	int i = forced_row(t);

	if (i >= 0 && meets(&t->rows[i], q))
		goto out;
	for (i = 0; i < t->nrows - 1; i++)
		if (meets(&t->rows[i], q) && wanted(&t->rows[i], q))
			break;
out:
	michi_debug("coll %s: %s (%d ranks, %zu bytes)", t->coll, t->rows[i].name, q->n,
		    q->bytes);
	return &t->rows[i];
}

static void query_of(const struct coll_sched *s, struct coll_query *q, size_t bytes, size_t count,
		     int uniform)
{
	q->n = s->c.size;
	q->bytes = bytes;
	q->count = count;
	q->commute = s->op.commute;
	q->uniform = uniform;
	q->hosts = s->c.hosts;
	q->sites = s->c.sites;
}

#define TABLE(var, name, rows_) \
	static struct coll_table var = { name, &var##_force, NULL, -1, \
					 (int)(sizeof(rows_) / sizeof((rows_)[0])), rows_ }

#define FORCE_TUNABLE(var, tname, list) \
	static const char *var##_force = "auto"; \
	MICHI_TUNABLE(var##_force, tname, MICHI_T_STRING, "auto", MICHI_LEVEL_TUNER, \
		      "algorithm to use (auto, or one of: " list "); one whose needs a call " \
		      "does not meet gives way to the automatic choice")

/* ---- barrier --------------------------------------------------------------- */

/* The flat algorithms through one rank, for a few ranks of one host:
 * each rank runs once per call, which is what counts when ranks
 * outnumber the cores (see coll/allreduce_flat.c). The flat barrier took
 * 5.5 against 7.0 us at 4 ranks on 2 cores, 12.5 against 24.8 at 8. */
static int flat_ranks = 8;
MICHI_TUNABLE(flat_ranks, "coll_flat_ranks", MICHI_T_INT, "8", MICHI_LEVEL_TUNER,
	      "most ranks (from 3) for which a barrier on one host goes flat through "
	      "rank 0, and a broadcast of coll_bcast_flat_bytes or more straight from "
	      "the root (auto; 0: never)");
static size_t flat_bytes = 256;
MICHI_TUNABLE(flat_bytes, "coll_allreduce_flat_bytes", MICHI_T_SIZE, "256", MICHI_LEVEL_TUNER,
	      "largest reduce or allreduce (bytes) that may go flat through one rank (auto)");

FORCE_TUNABLE(barrier, "coll_barrier_algorithm", "wan, hierarchical, flat, dissemination");
static const struct coll_algo barrier_rows[] = {
	/* across sites: one wide-area round trip (coll/barrier_wan.c) */
	{ "wan", NEED_SITES, 0, 0, NULL, NULL, NULL, { .barrier = coll_build_barrier_wan } },
	{ "hierarchical", NEED_HOSTS, 0, 0, NULL, NULL, NULL,
	  { .barrier = coll_build_barrier_hier } },
	{ "flat", 0, AUTO_ONE_HOST, 3, &flat_ranks, NULL, NULL,
	  { .barrier = coll_build_barrier_flat } },
	{ "dissemination", 0, 0, 0, NULL, NULL, NULL, { .barrier = coll_build_barrier_dissem } },
};
TABLE(barrier, "BARRIER", barrier_rows);

int coll_build_barrier(struct coll_sched *s)
{
	struct coll_query q;

	if (s->c.size == 1)
		return 0;
	query_of(s, &q, 0, 0, 1);
	return choose(&barrier, &q)->build.barrier(s);
}

/* ---- broadcast: bytes of the message ---------------------------------------- */

static size_t bcast_long = 128 * 1024;
MICHI_TUNABLE(bcast_long, "coll_bcast_long_bytes", MICHI_T_SIZE, "131072", MICHI_LEVEL_TUNER,
	      "smallest broadcast (bytes) across hosts that goes as a scatter and a ring "
	      "allgather (auto)");
static size_t bcast_flat_bytes = 16 * 1024;
MICHI_TUNABLE(bcast_flat_bytes, "coll_bcast_flat_bytes", MICHI_T_SIZE, "16384", MICHI_LEVEL_TUNER,
	      "smallest broadcast (bytes) on one host of at most coll_flat_ranks ranks that "
	      "goes from the root straight to every rank (auto)");
FORCE_TUNABLE(bcast, "coll_bcast_algorithm",
	      "wan, hierarchical, scatter_allgather, flat, chain, binomial");
static const struct coll_algo bcast_rows[] = {
	/* across sites: P lanes cross the wide-area network at once */
	{ "wan", NEED_SITES, 0, 0, NULL, NULL, NULL, { .bcast = coll_build_bcast_wan } },
	{ "hierarchical", NEED_HOSTS, 0, 0, NULL, NULL, NULL, { .bcast = coll_build_bcast_hier } },
	/* across hosts only: on one host (4 and 8 ranks on 2 cores) the
	 * binomial tree was faster from 64 KiB to 16 MiB (1373 against 1897 us
	 * at 1 MiB on 4 ranks, 3396 against 4029 on 8) */
	{ "scatter_allgather", 0, AUTO_HOSTS, 3, NULL, &bcast_long, NULL,
	  { .bcast = coll_build_bcast_scatter_ag } },
	/* forced only: on one host it never beat the binomial tree */
	/* on one host from the size shared memory pulls in one copy from
	 * the root's buffer: 4 ranks on 2 cores, medians of 5 runs, 70.6
	 * against 80.7 us (binomial) at 64 KiB, 888 against 948 at 1 MiB;
	 * 8 ranks 149 against 163 and 2311 against 2354; 16 KiB 18.1
	 * against 20.3, but 4 KiB 7.6 against 7.2 */
	{ "flat", 0, AUTO_ONE_HOST, 3, &flat_ranks, &bcast_flat_bytes, NULL,
	  { .bcast = coll_build_bcast_flat } },
	{ "chain", 0, AUTO_NEVER, 0, NULL, NULL, NULL, { .bcast = coll_build_bcast_chain } },
	{ "binomial", 0, 0, 0, NULL, NULL, NULL, { .bcast = coll_build_bcast_binomial } },
};
TABLE(bcast, "BCAST", bcast_rows);

int coll_build_bcast(struct coll_sched *s, void *buf, size_t len, int root)
{
	struct coll_query q;

	if (s->c.size == 1 || !len)
		return 0;
	query_of(s, &q, len, len, 1);
	return choose(&bcast, &q)->build.bcast(s, buf, len, root);
}

/* ---- reduce: bytes of the vector --------------------------------------------- */

/* Rabenseifner's reduce takes more rounds and messages than the binomial
 * tree and wins by spreading the reductions over the ranks: on 2 to 8
 * ranks sharing 2 cores it won from 4 MiB (by 1.1 to 2.5 times), was even
 * at 1 to 2 MiB and lost below. MPICH takes it from 2 KiB. */
static size_t reduce_long = 4 << 20;
MICHI_TUNABLE(reduce_long, "coll_reduce_long_bytes", MICHI_T_SIZE, "4194304",
	      MICHI_LEVEL_TUNER, "smallest reduce (bytes) of a commutative op that goes as a "
	      "reduce-scatter and a gather (Rabenseifner, auto)");
FORCE_TUNABLE(reduce, "coll_reduce_algorithm",
	      "wan, hierarchical, flat, rabenseifner, binomial");
static const struct coll_algo reduce_rows[] = {
	/* across sites: each site's reduction crosses once, over P lanes;
	 * an op that does not commute takes the rows below (rank order) */
	{ "wan", NEED_SITES | NEED_COMMUTE, 0, 0, NULL, NULL, NULL,
	  { .reduce = coll_build_reduce_wan } },
	{ "hierarchical", NEED_HOSTS | NEED_COMMUTE, 0, 0, NULL, NULL, NULL,
	  { .reduce = coll_build_reduce_hier } },
	/* forced only: at 4 and 8 ranks of one host the binomial tree was
	 * faster (2.8 against 4.2 us at 8 B on 4 ranks); flat pays off in
	 * allreduce, which it serves */
	{ "flat", 0, AUTO_NEVER, 3, &flat_ranks, NULL, &flat_bytes,
	  { .reduce = coll_build_reduce_flat } },
	{ "rabenseifner", NEED_COMMUTE | NEED_COUNT_N, 0, 0, NULL, &reduce_long, NULL,
	  { .reduce = coll_build_reduce_rabenseifner } },
	{ "binomial", 0, 0, 0, NULL, NULL, NULL, { .reduce = coll_build_reduce_binomial } },
};
TABLE(reduce, "REDUCE", reduce_rows);

/* The table's choice for a call on c, without a schedule (coll/direct.c). */
static void query_of_comm(const struct coll_comm *c, struct coll_query *q, size_t bytes,
			  size_t count, int commute)
{
	q->n = c->size;
	q->bytes = bytes;
	q->count = count;
	q->commute = commute;
	q->uniform = 1;
	q->hosts = c->hosts;
	q->sites = c->sites;
}

int coll_direct_bcast_ok(const struct coll_comm *c, size_t len)
{
	struct coll_query q;

	if (c->size == 1 || !coll_direct_fits(len))
		return 0;
	query_of_comm(c, &q, len, len, 1);
	return choose(&bcast, &q)->build.bcast == coll_build_bcast_binomial;
}

int coll_direct_reduce_ok(const struct coll_comm *c, const struct coll_op *op, size_t count)
{
	struct coll_query q;
	size_t len = count * op->extent;

	if (c->size == 1 || !coll_direct_fits(len))
		return 0;
	query_of_comm(c, &q, len, count, op->commute);
	return choose(&reduce, &q)->build.reduce == coll_build_reduce_binomial;
}

int coll_direct_barrier_ok(const struct coll_comm *c, int *flat)
{
	struct coll_query q;
	int (*b)(struct coll_sched *s);

	if (!coll_direct_fits_ranks(c->size))
		return 0;
	query_of_comm(c, &q, 0, 0, 1);
	b = choose(&barrier, &q)->build.barrier;
	*flat = b == coll_build_barrier_flat;
	return *flat || b == coll_build_barrier_dissem;
}

int coll_build_reduce(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count, int root)
{
	struct coll_query q;

	query_of(s, &q, count * s->op.extent, count, 1);
	return choose(&reduce, &q)->build.reduce(s, sbuf, rbuf, count, root);
}

/* ---- allreduce: bytes of the vector ------------------------------------------ */

static int allreduce_flat_ranks = 8;
MICHI_TUNABLE(allreduce_flat_ranks, "coll_allreduce_flat_ranks", MICHI_T_INT, "8",
	      MICHI_LEVEL_TUNER, "most ranks (from 5, or 3 where ranks outnumber processors) "
	      "for which a small allreduce on one host "
	      "goes flat through rank 0 (auto; 0: never)");
static size_t allreduce_long = 64 * 1024;
MICHI_TUNABLE(allreduce_long, "coll_allreduce_long_bytes", MICHI_T_SIZE, "65536",
	      MICHI_LEVEL_TUNER, "smallest allreduce (bytes) of a commutative op that goes as "
	      "a reduce-scatter and an allgather (Rabenseifner, auto)");
FORCE_TUNABLE(allreduce, "coll_allreduce_algorithm",
	      "wan, hierarchical, flat, rabenseifner, ring, recursive_doubling");
static const struct coll_algo allreduce_rows[] = {
	{ "wan", NEED_SITES | NEED_COMMUTE, 0, 0, NULL, NULL, NULL,
	  { .allreduce = coll_build_allreduce_wan } },
	{ "hierarchical", NEED_HOSTS | NEED_COMMUTE, 0, 0, NULL, NULL, NULL,
	  { .allreduce = coll_build_allreduce_hier } },
	/* where ranks outnumber the processors, from 3 ranks: each rank's
	 * one turn a call beat recursive doubling's two (4 ranks on 2 cores,
	 * 8 bytes, both without a schedule: 3.51 against 3.96 us) */
	{ "flat", 0, AUTO_OVERSUB, 3, &allreduce_flat_ranks, NULL, &flat_bytes,
	  { .allreduce = coll_build_allreduce_flat } },
	{ "flat", 0, AUTO_ONE_HOST, 5, &allreduce_flat_ranks, NULL, &flat_bytes,
	  { .allreduce = coll_build_allreduce_flat } },
	{ "rabenseifner", NEED_COMMUTE | NEED_COUNT_N, 0, 0, NULL, &allreduce_long, NULL,
	  { .allreduce = coll_build_allreduce_rabenseifner } },
	/* forced only: on one host it beat Rabenseifner's at some sizes and
	 * lost at others */
	{ "ring", NEED_COMMUTE | NEED_COUNT_N, AUTO_NEVER, 0, NULL, NULL, NULL,
	  { .allreduce = coll_build_allreduce_ring } },
	{ "recursive_doubling", 0, 0, 0, NULL, NULL, NULL,
	  { .allreduce = coll_build_allreduce_recdbl } },
};
TABLE(allreduce, "ALLREDUCE", allreduce_rows);

int coll_build_allreduce(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count)
{
	struct coll_query q;

	query_of(s, &q, count * s->op.extent, count, 1);
	return choose(&allreduce, &q)->build.allreduce(s, sbuf, rbuf, count);
}

int coll_direct_allreduce_ok(const struct coll_comm *c, const struct coll_op *op, size_t count,
			     int *flat)
{
	struct coll_query q;
	size_t len = count * op->extent;
	int (*a)(struct coll_sched *s, const void *sbuf, void *rbuf, size_t count);

	if (!coll_direct_fits(len) || !coll_direct_fits_ranks(c->size))
		return 0;
	query_of_comm(c, &q, len, count, op->commute);
	a = choose(&allreduce, &q)->build.allreduce;
	*flat = a == coll_build_allreduce_flat;
	if (*flat)
		return coll_direct_fits_blocks(len, c->size);
	return a == coll_build_allreduce_recdbl;
}

/* ---- gather and scatter: bytes in all (n blocks) -------------------------------- */

static size_t rooted_short = 16 * 1024;
MICHI_TUNABLE(rooted_short, "coll_gather_short_bytes", MICHI_T_SIZE, "16384",
	      MICHI_LEVEL_TUNER, "largest gather or scatter (bytes in all) that goes down a "
	      "binomial tree (auto) instead of straight between the root and every rank");

/* The binomial trees take the blocks' length; every rank knows it for
 * the uniform forms (the type signatures match). */
static int gather_binomial(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			   const struct coll_v *v, size_t ucount, size_t extent, int root)
{
	(void)v;
	return coll_build_gather_binomial(s, sbuf, rbuf, sbuf ? slen : ucount * extent, root);
}

static int scatter_binomial(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
			    size_t ucount, size_t extent, void *rbuf, size_t rlen, int root)
{
	(void)v;
	return coll_build_scatter_binomial(s, sbuf, rbuf, rbuf ? rlen : ucount * extent, root);
}

/* Across sites, the multilane algorithms (coll/lanes.c) take every size:
 * their cost model picks the lanes, one lane being the single crossing
 * that small blocks want; lanes_v (the v forms, or forced) carries the
 * blocks' sizes with them. */
FORCE_TUNABLE(gather, "coll_gather_algorithm", "lanes, lanes_v, binomial, linear");
static const struct coll_algo gather_rows[] = {
	{ "lanes", NEED_SITES | NEED_UNIFORM, 0, 0, NULL, NULL, NULL,
	  { .gather = coll_build_gather_lanes } },
	{ "lanes_v", NEED_SITES, 0, 0, NULL, NULL, NULL,
	  { .gather = coll_build_gatherv_lanes } },
	{ "binomial", NEED_UNIFORM, 0, 3, NULL, NULL, &rooted_short,
	  { .gather = gather_binomial } },
	{ "linear", 0, 0, 0, NULL, NULL, NULL, { .gather = coll_build_gatherv_linear } },
};
TABLE(gather, "GATHER", gather_rows);

FORCE_TUNABLE(scatter, "coll_scatter_algorithm", "lanes, lanes_v, binomial, linear");
static const struct coll_algo scatter_rows[] = {
	{ "lanes", NEED_SITES | NEED_UNIFORM, 0, 0, NULL, NULL, NULL,
	  { .scatter = coll_build_scatter_lanes } },
	/* the v forms: the lanes carry the blocks' sizes */
	{ "lanes_v", NEED_SITES, 0, 0, NULL, NULL, NULL,
	  { .scatter = coll_build_scatterv_lanes } },
	{ "binomial", NEED_UNIFORM, 0, 3, NULL, NULL, &rooted_short,
	  { .scatter = scatter_binomial } },
	{ "linear", 0, 0, 0, NULL, NULL, NULL, { .scatter = coll_build_scatterv_linear } },
};
TABLE(scatter, "SCATTER", scatter_rows);

int coll_direct_gather_ok(const struct coll_comm *c, size_t blen)
{
	struct coll_query q;

	if (c->size == 1 || !coll_direct_fits_blocks(blen, c->size))
		return 0;
	query_of_comm(c, &q, (size_t)c->size * blen, 0, 1);
	return choose(&gather, &q)->build.gather == gather_binomial;
}

int coll_direct_scatter_ok(const struct coll_comm *c, size_t blen)
{
	struct coll_query q;

	if (c->size == 1 || !coll_direct_fits_blocks(blen, c->size))
		return 0;
	query_of_comm(c, &q, (size_t)c->size * blen, 0, 1);
	return choose(&scatter, &q)->build.scatter == scatter_binomial;
}

int coll_build_gather(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
		      const struct coll_v *v, size_t ucount, size_t extent, int root, int vform)
{
	struct coll_query q;
	size_t blen = sbuf ? slen : ucount * extent;

	query_of(s, &q, (size_t)s->c.size * blen, 0, !vform);
	return choose(&gather, &q)->build.gather(s, sbuf, slen, rbuf, v, ucount,
						 extent, root);
}

int coll_build_scatter(struct coll_sched *s, const void *sbuf, const struct coll_v *v,
		       size_t ucount, size_t extent, void *rbuf, size_t rlen, int root, int vform)
{
	struct coll_query q;
	size_t blen = rbuf ? rlen : ucount * extent;

	query_of(s, &q, (size_t)s->c.size * blen, 0, !vform);
	return choose(&scatter, &q)->build.scatter(s, sbuf, v, ucount, extent, rbuf,
						   rlen, root);
}

/* ---- allgather: bytes in all (n blocks) --------------------------------------- */

static size_t allgather_short = 32 * 1024;
MICHI_TUNABLE(allgather_short, "coll_allgather_short_bytes", MICHI_T_SIZE, "32768",
	      MICHI_LEVEL_TUNER, "largest allgather (bytes in all) that goes in log2(n) rounds "
	      "(recursive doubling or Bruck, auto) instead of the ring");

static int allgather_bruck(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			   const struct coll_v *v, size_t ucount, size_t extent)
{
	(void)slen;
	(void)v;
	return coll_build_allgather_bruck(s, sbuf, rbuf, ucount * extent);
}

static int allgather_recdbl(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			    const struct coll_v *v, size_t ucount, size_t extent)
{
	(void)slen;
	(void)v;
	return coll_build_allgather_recdbl(s, sbuf, rbuf, ucount * extent);
}

FORCE_TUNABLE(allgather, "coll_allgather_algorithm",
	      "wan, hierarchical, recursive_doubling, bruck, ring");
static const struct coll_algo allgather_rows[] = {
	/* across sites, v forms too: every byte crosses once, over P lanes */
	{ "wan", NEED_SITES, 0, 0, NULL, NULL, NULL, { .allgather = coll_build_allgather_wan } },
	{ "hierarchical", NEED_HOSTS | NEED_UNIFORM, 0, 0, NULL, NULL, NULL,
	  { .allgather = coll_build_allgather_hier } },
	{ "recursive_doubling", NEED_UNIFORM | NEED_POW2, 0, 0, NULL, NULL, &allgather_short,
	  { .allgather = allgather_recdbl } },
	/* on one host at any size: log2(n) rounds against n - 1 for the
	 * same bytes, each round a rank waiting for a core when ranks
	 * outnumber them (medians of 5 runs on 2 cores: 4 ranks, 64 KiB
	 * blocks, 281 against 362 us (ring), 1 MiB 4794 against 4896; 8
	 * ranks 1186 against 1497 and 21.2 against 22.6 ms) */
	{ "recursive_doubling", NEED_UNIFORM | NEED_POW2, AUTO_ONE_HOST, 0, NULL, NULL, NULL,
	  { .allgather = allgather_recdbl } },
	{ "bruck", NEED_UNIFORM, 0, 0, NULL, NULL, &allgather_short,
	  { .allgather = allgather_bruck } },
	{ "ring", 0, 0, 0, NULL, NULL, NULL, { .allgather = coll_build_allgatherv_ring } },
};
TABLE(allgather, "ALLGATHER", allgather_rows);

int coll_build_allgather(struct coll_sched *s, const void *sbuf, size_t slen, void *rbuf,
			 const struct coll_v *v, size_t ucount, size_t extent)
{
	struct coll_query q;

	if (!v && sbuf && slen != ucount * extent) {
		s->error = michi_err(MICHI_ERR_TRUNCATE, "rank %d sends %zu bytes but its block "
				     "holds %zu", s->c.rank, slen, ucount * extent);
		return -1;
	}
	if (s->c.size == 1)
		return coll_build_allgatherv_ring(s, sbuf, slen, rbuf, v, ucount,
						  extent);
	query_of(s, &q, (size_t)s->c.size * ucount * extent, 0, !v);
	return choose(&allgather, &q)->build.allgather(s, sbuf, slen, rbuf, v,
						       ucount, extent);
}

/* ---- alltoall: bytes of one block (0 for the v forms) ------------------------- */

/* Bruck from 8 ranks up to 64-byte blocks (MPICH: 256): with a core per
 * rank (bench/results/2026-11-26-coll-onehost-16cores, medians of 5) it
 * beat scattered at 8 bytes by 1.10x on 8 ranks and 1.15x on 16, at 64
 * bytes by 1.05x and 1.00x, and lost at 256 bytes, 0.89x and 0.72x.
 * Scattered beat pairwise by 1.1 to 2 times from 8 bytes to 128 KiB at
 * 4 and 8 ranks (MPICH stops at 32 KiB); from 256 KiB the two were even,
 * and pairwise, which MPICH and Open MPI find kinder to a network, stays,
 * but not where one host's ranks outnumber its cores (the first row). */

static size_t alltoall_short = 64;
MICHI_TUNABLE(alltoall_short, "coll_alltoall_short_bytes", MICHI_T_SIZE, "64",
	      MICHI_LEVEL_TUNER, "largest alltoall block (bytes) that goes in log2(n) rounds "
	      "(Bruck, auto, from 8 ranks)");
static size_t alltoall_long = 128 * 1024;
MICHI_TUNABLE(alltoall_long, "coll_alltoall_long_bytes", MICHI_T_SIZE, "131072",
	      MICHI_LEVEL_TUNER, "largest alltoall block (bytes) whose messages are posted a "
	      "batch of peers at a time (scattered, auto; the v forms always); larger blocks "
	      "go to one peer per step (pairwise), except on one host whose ranks outnumber "
	      "its processors");

static size_t alltoall_wan_bytes = 1024;
MICHI_TUNABLE(alltoall_wan_bytes, "coll_alltoall_wan_bytes", MICHI_T_SIZE, "1024",
	      MICHI_LEVEL_TUNER, "largest alltoall block (bytes) that crosses sites combined "
	      "over lanes (wan, auto)");

/* Bruck takes the blocks' length; the type signatures fix it alike on
 * every rank. */
static int alltoall_bruck(struct coll_sched *s, const void *sbuf, const struct coll_v *sv,
			  size_t sucount, size_t sext, void *rbuf, const struct coll_v *rv,
			  size_t rucount, size_t rext)
{
	(void)sv;
	(void)rv;
	if (sbuf && sucount * sext != rucount * rext) {
		s->error = michi_err(MICHI_ERR_TRUNCATE, "alltoall block to self has %zu bytes, "
				     "expected %zu", sucount * sext, rucount * rext);
		return -1;
	}
	return coll_build_alltoall_bruck(s, sbuf, rbuf, rucount * rext);
}

FORCE_TUNABLE(alltoall, "coll_alltoall_algorithm", "wan, scattered, bruck, pairwise");
static const struct coll_algo alltoall_rows[] = {
	/* across sites, small blocks: one message per lane and pair of sites
	 * instead of one per pair of ranks. Larger blocks go straight: a
	 * direct alltoall also crosses every byte once, over n0 x n1 pairs
	 * (no fewer than the lanes), without the lanes' two hops inside the
	 * sites. On the emulated two-sites testbed (4 + 4 hosts, 5 ms, a
	 * loaded 2-core machine, medians of 9 in two runs) 64-byte blocks
	 * took 112, 138, 87 and 73 ms in four runs against 172, 184, 139 and
	 * 129 (scattered); 8 KiB 152, 53, 146 and 119 against 104, 100, 97
	 * and 104; 128 KiB 1419 and 1107 against 634 and 629. Sizes between
	 * were not measured: the automatic choice stops at 1 KiB. The v forms
	 * (counts known at their two ends only) take the rows below. */
	{ "wan", NEED_SITES | NEED_UNIFORM, 0, 0, NULL, NULL, &alltoall_wan_bytes,
	  { .alltoall = coll_build_alltoall_wan } },
	/* across sites, larger blocks and the v forms: every message at once
	 * (a batch of coll_alltoall_batch peers), so that all n0 x n1 pairs
	 * cross together. Pairwise's one peer per step leaves steps with few
	 * pairs across, each a window-limited flow (one flow 7 Mb/s of the
	 * 100 Mb/s path at 20 ms). On two-sites-16 at 20 ms (AMD EPYC, 2
	 * cores, medians of 3): 64 KiB blocks 0.70 s against pairwise's 0.87
	 * (scattered already took them), 1 MiB 9.0 s against 11.3. */
	{ "scattered", 0, AUTO_SITES, 0, NULL, NULL, NULL,
	  { .alltoall = coll_build_alltoallv_scattered } },
	/* ranks outnumbering the cores of their one host: every block at
	 * once beat Bruck's log2(n) rounds from 8 to 256 bytes at 8, 12 and
	 * 16 ranks on 2 cores (8 ranks, 8 bytes, medians of 5: 10.0 against
	 * 14.8 us; 16 ranks 49 against 65), and pairwise's one peer per
	 * step at any size, a step waiting for its peer to get a core (4
	 * ranks, 256 KiB blocks: 1020 against 1141 us, 1 MiB 4541 against
	 * 4627; 8 ranks 4813 against 5079 and 19.1 against 19.4 ms) */
	{ "scattered", 0, AUTO_OVERSUB, 0, NULL, NULL, NULL,
	  { .alltoall = coll_build_alltoallv_scattered } },
	{ "bruck", NEED_UNIFORM, 0, 8, NULL, NULL, &alltoall_short,
	  { .alltoall = alltoall_bruck } },
	{ "scattered", 0, 0, 0, NULL, NULL, &alltoall_long,
	  { .alltoall = coll_build_alltoallv_scattered } },
	{ "pairwise", 0, 0, 0, NULL, NULL, NULL, { .alltoall = coll_build_alltoallv_pairwise } },
};
TABLE(alltoall, "ALLTOALL", alltoall_rows);

int coll_build_alltoall(struct coll_sched *s, const void *sbuf, const struct coll_v *sv,
			size_t sucount, size_t sext, void *rbuf, const struct coll_v *rv,
			size_t rucount, size_t rext)
{
	struct coll_query q;

	query_of(s, &q, rucount * rext, 0, !rv);
	return choose(&alltoall, &q)->build.alltoall(s, sbuf, sv, sucount, sext,
						     rbuf, rv, rucount, rext);
}

/* ---- reduce-scatter: bytes of the whole vector --------------------------------- */

/* Recursive halving won up to 32 KiB at 4, 6 and 8 ranks (by 1.1 to 1.9
 * times); at 64 KiB, where its first messages leave the shm eager range,
 * it lost by up to 1.9 times, and above neither won throughout (MPICH
 * switches at 512 KiB). */

static size_t reduce_scatter_short = 32 * 1024;
MICHI_TUNABLE(reduce_scatter_short, "coll_reduce_scatter_short_bytes", MICHI_T_SIZE, "32768",
	      MICHI_LEVEL_TUNER, "largest reduce-scatter (bytes of the whole vector) of a "
	      "commutative op that goes by recursive halving (auto) instead of pairwise");
FORCE_TUNABLE(reduce_scatter, "coll_reduce_scatter_algorithm",
	      "recursive_halving, pairwise");
static const struct coll_algo reduce_scatter_rows[] = {
	{ "recursive_halving", NEED_COMMUTE, 0, 0, NULL, NULL, &reduce_scatter_short,
	  { .reduce_scatter = coll_build_reduce_scatter_rechalving } },
	{ "pairwise", 0, 0, 0, NULL, NULL, NULL,
	  { .reduce_scatter = coll_build_reduce_scatter_pairwise } },
};
TABLE(reduce_scatter, "REDUCE_SCATTER", reduce_scatter_rows);

int coll_build_reduce_scatter(struct coll_sched *s, const void *sbuf, void *rbuf,
			      const struct coll_v *v, size_t ucount)
{
	struct coll_query q;
	size_t total = 0;
	int i;

	for (i = 0; i < s->c.size; i++)
		total += coll_v_count(v, i, ucount);
	query_of(s, &q, total * s->op.extent, total, !v);
	return choose(&reduce_scatter, &q)->build.reduce_scatter(s, sbuf, rbuf, v, ucount);
}
