/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll/site.c: the job's sites, the groups of hosts that a wide-area
 * network joins (docs/design.md §8, GRID.md §6), as michi_state.site_of: the
 * site of every world rank, the same array on every rank, NULL while the
 * job knows of one site only. coll/ gets each communicator's share of it
 * (mpi/coll/coll.c: coll_sites_build).
 *
 * Where a rank's site comes from, first that applies:
 *   1. mpirun: a hostfile's `site=NAME` or `--host H@NAME`; its proxy puts
 *      NAME in the rank's MICHI_SITE, over what the environment had;
 *   2. MICHI_SITE in the environment (the `site` tunable), set per host:
 *      MPICH's mpiexec `-env MICHI_SITE A` for each host's section, a
 *      Slurm prolog or `srun --export`;
 *   3. none given anywhere and the job on three hosts or more: the host
 *      leaders measure their round-trip times to each other at MPI_Init
 *      and rank 0 splits the hosts where the times show a clear gap
 *      between near and far (util/rttgroup.c), broadcasting the result,
 *      so every rank holds the same map. A job on one host measures
 *      nothing and pays nothing.
 * A rank's site name travels with its host name in the key-value space
 * (mpi/env/init.c: "HOST|SITE"), so the sites cost no PMI access of their own.
 */
#include "mpiimpl.h"
#include "rttgroup.h"
#include "schedule.h"
#include "mtmi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *site_env;
MICHI_TUNABLE(site_env, "site", MICHI_T_STRING, "", MICHI_LEVEL_USER,
	      "this process's site, a name shared by the hosts of one cluster of a grid "
	      "(set per host; mpirun sets it from a hostfile's site=NAME or --host H@NAME); "
	      "empty everywhere: sites inferred from round-trip times");
static int site_infer = 1;
MICHI_TUNABLE(site_infer, "site_infer", MICHI_T_BOOL, "1", MICHI_LEVEL_TUNER,
	      "without sites given, split a job on 3 or more hosts into sites by the round-trip "
	      "times its host leaders measure at MPI_Init");
static double site_gap = 4.0;
MICHI_TUNABLE(site_gap, "site_gap", MICHI_T_DOUBLE, "4", MICHI_LEVEL_TUNER,
	      "the inference splits hosts where the sorted round-trip times jump by at least "
	      "this factor (the coarsest such jump); none: one site");
static double site_gap_min = 1e-3;
MICHI_TUNABLE(site_gap_min, "site_gap_min", MICHI_T_DOUBLE, "0.001", MICHI_LEVEL_TUNER,
	      "the inference's jump must also be at least this many seconds, so that hosts of "
	      "one LAN whose round trips scatter are not split (wide-area ones are milliseconds)");
static int site_samples = 4;
MICHI_TUNABLE(site_samples, "site_samples", MICHI_T_INT, "4", MICHI_LEVEL_TUNER,
	      "round trips a host-leader pair times for the inference (the minimum counts) "
	      "where the device does not know the network's own (tcp does: none needed)");

#define SITE_NAME_MAX 64

static int nsites;
static char **site_names;     /* nsites names */
static int *site_map;         /* what michi_state.site_of points at */
static int site_inferred;     /* the map came from round-trip times */
static double site_cut;       /* the inference's near/far time (rank 0) */

/* A site name: printable, without space, '|' or '=' (the key-value
 * space's separators), at most SITE_NAME_MAX - 1 bytes. */
static int site_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= SITE_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~' || *s == '|' || *s == '=')
			return 0;
	return 1;
}

michi_status_t michi_site_mine(const char **site)
{
	*site = site_env ? site_env : "";
	if (**site && !site_name_ok(*site))
		return michi_err(MICHI_ERR_INVAL, "MICHI_SITE '%.80s' is not a site name "
				 "(1 to %d printable characters without space, '|' or '=')",
				 *site, SITE_NAME_MAX - 1);
	return MICHI_OK;
}

static michi_status_t site_names_grow(const char *name)
{
	char **nn = realloc(site_names, (size_t)(nsites + 1) * sizeof(*nn));

	if (!nn)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the site map");
	site_names = nn;
	if (!(site_names[nsites] = strdup(name)))
		return michi_err(MICHI_ERR_NOMEM, "no memory for the site map");
	nsites++;
	return MICHI_OK;
}

/*
 * The sites given by name: names[i] is world rank i's ("" none). Sites
 * are numbered in the order of their lowest rank; ranks without a name,
 * when others have one, share a site of their own (named "-", with a
 * warning from rank 0). Nobody named: no map yet.
 */
michi_status_t michi_sites_from_names(int size, char *const *names)
{
	int i, s, none = 0;
	michi_status_t st;

	for (i = 0; i < size && !names[i][0]; i++)
		;
	if (i == size)
		return MICHI_OK;
	site_map = malloc((size_t)size * sizeof(int));
	if (!site_map)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the site map");
	for (i = 0; i < size; i++) {
		const char *n = names[i][0] ? names[i] : "-";

		none += !names[i][0];
		for (s = 0; s < nsites; s++)
			if (!strcmp(site_names[s], n))
				break;
		if (s == nsites && (st = site_names_grow(n)))
			return st;
		site_map[i] = s;
	}
	if (none && michi_state.rank == 0)
		michi_warn("%d of %d ranks have no site (MICHI_SITE, hostfile site=, --host H@SITE) "
			   "while others have: they count as one site named '-'", none, size);
	if (nsites > 1)
		michi_state.site_of = site_map;
	return MICHI_OK;
}

/* ---- the inference ------------------------------------------------------ */

/* One message of the measurement, blocking, over the host leaders' view. */
static michi_status_t site_msg(const struct coll_comm *c, void *buf, size_t len, int peer,
			       int send)
{
	struct coll_sched *s = coll_sched_new(c, COLL_TAG_HOSTS, NULL);

	if (!s)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the site measurement");
	(void)(send ? coll_sched_send(s, buf, len, peer) : coll_sched_recv(s, buf, len, peer));
	return coll_sched_run(s);
}

/* One byte to and from every other leader at once (out[me], in[me]
 * unused): the first such exchange opens every leaders' connection in
 * parallel. */
static michi_status_t site_all(const struct coll_comm *lc, const uint8_t *out, uint8_t *in)
{
	struct coll_sched *s = coll_sched_new(lc, COLL_TAG_HOSTS, NULL);
	int p;

	if (!s)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the site measurement");
	for (p = 0; p < lc->size; p++)
		if (p != lc->rank)
			(void)coll_sched_recv(s, in + p, 1, p);
	for (p = 0; p < lc->size; p++)
		if (p != lc->rank)
			(void)coll_sched_send(s, out + p, 1, p);
	return coll_sched_run(s);
}

/*
 * This leader's row of round-trip times (to the leaders above it; the
 * lower one of a pair measures). An exchange with every other leader at
 * once opens the connections; where the device then knows the network's
 * own round trip (tcp: the kernel's minimum over the connection's life,
 * its handshake included, which no process's scheduling delays), that is
 * the pair's time. A second exchange tells each upper leader whether
 * its pair still needs timing; those pairs meet in a round robin (the
 * circle method: nh - 1 rounds, or nh for an odd nh with a bye each
 * round; pairs of one round at once), the lower one sends and the other
 * answers, site_samples times spread over the measurement (a host busy
 * for a moment spoils one sample, not all), and the shortest counts.
 * With tcp between all hosts the whole costs two exchanges.
 */
static michi_status_t site_measure(const struct coll_comm *lc, double *row, uint8_t *out,
				   uint8_t *in)
{
	int nh = lc->size, me = lc->rank, m = nh + (nh & 1), r, k, p, timed = 0;
	int samples = site_samples > 0 ? site_samples : 1;
	michi_status_t st;

	memset(out, 1, (size_t)nh);
	if ((st = site_all(lc, out, in)))
		return st;
	for (p = 0; p < nh; p++) {
		double t = p > me ? mtmi_peer_rtt(lc->peers[p]) : 0;

		if (t > 0)
			row[p] = t;
		out[p] = p > me && t <= 0;    /* this pair needs timing */
	}
	if ((st = site_all(lc, out, in)))
		return st;
	for (p = 0; p < nh; p++) {
		out[p] = p > me ? out[p] : p < me ? in[p] : 0;
		timed |= out[p];
	}
	/* every leader runs the rounds: a pair without timing skips its turn */
	for (k = 0; k < samples; k++)
		for (r = 0; r < m - 1 && timed; r++) {
			int peer = me == m - 1 ? r : me == r ? m - 1 :
				   ((2 * r - me) % (m - 1) + (m - 1)) % (m - 1);
			uint64_t ball = 0;
			double t0;

			if (peer >= nh || !out[peer])
				continue;
			if (me > peer) {
				if ((st = site_msg(lc, &ball, sizeof(ball), peer, 0)) ||
				    (st = site_msg(lc, &ball, sizeof(ball), peer, 1)))
					return st;
				continue;
			}
			t0 = michi_wtime();
			if ((st = site_msg(lc, &ball, sizeof(ball), peer, 1)) ||
			    (st = site_msg(lc, &ball, sizeof(ball), peer, 0)))
				return st;
			t0 = michi_wtime() - t0;
			if (row[peer] == 0 || t0 < row[peer])
				row[peer] = t0;
		}
	return MICHI_OK;
}

/* Rank 0: the rows of the other leaders, the split, the log. */
static michi_status_t site_split(const struct coll_comm *lc, double *rtt, int *hsite)
{
	int nh = lc->size, i, j, ng;
	struct coll_sched *s = coll_sched_new(lc, COLL_TAG_HOSTS, NULL);
	michi_status_t st;

	if (!s)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the site measurement");
	for (i = 1; i < nh; i++)
		(void)coll_sched_recv(s, rtt + (size_t)i * (size_t)nh, (size_t)nh * sizeof(double), i);
	if ((st = coll_sched_run(s)))
		return st;
	ng = michi_rtt_groups(nh, rtt, site_gap, site_gap_min, hsite, &site_cut);
	if (ng < 0)
		return michi_err(MICHI_ERR_NOMEM, "no memory for the site inference");
	if (michi_log_level >= MICHI_LOG_DEBUG)
		for (i = 0; i < nh; i++) {
			char line[1024];
			size_t n = 0;

			for (j = 0; j < nh && n < sizeof(line) - 16; j++)
				n += (size_t)snprintf(line + n, sizeof(line) - n, " %.3f",
						      rtt[(size_t)i * (size_t)nh + (size_t)j] * 1e3);
			michi_debug("site inference: RTT (ms) from host %d:%s", i, line);
		}
	return MICHI_OK;
}

/*
 * Without sites given: on three hosts or more the leaders measure and
 * rank 0 splits; the host -> site table goes to every rank by a
 * broadcast. Runs after MTMI and the predefined communicators are up,
 * before MPI_Init returns, on the world's collective context with a
 * sequence number no collective of the first 2047 has.
 */
static michi_status_t site_infer_run(void)
{
	const int *host_of = michi_state.host_of;
	int size = michi_state.size, nh = 0, i, me = -1, *leaders = NULL, *hsite = NULL;
	double *rtt = NULL, t0 = michi_wtime();
	struct coll_comm wc = { .rank = michi_state.rank, .size = size, .ctx = 1,
				.peers = michi_comm_world.peers,
				.tag_ofs = (int)(COLL_SEQ_MASK << COLL_SEQ_SHIFT) };
	struct coll_comm lc = wc;
	struct coll_sched *s;
	michi_status_t st;
	char name[32];

	for (i = 0; i < size; i++)
		if (host_of[i] >= nh)
			nh = host_of[i] + 1;
	if (nh < 3)
		return MICHI_OK;
	leaders = malloc((size_t)nh * sizeof(int));
	hsite = calloc((size_t)nh, sizeof(int));
	rtt = calloc((size_t)nh * (size_t)nh, sizeof(double));
	if (!leaders || !hsite || !rtt) {
		st = michi_err(MICHI_ERR_NOMEM, "no memory for the site inference");
		goto out;
	}
	/* hosts are numbered in the order of their lowest rank: its leader */
	for (i = size - 1; i >= 0; i--)
		leaders[host_of[i]] = i;
	if (leaders[host_of[michi_state.rank]] == michi_state.rank)
		me = host_of[michi_state.rank];
	lc.rank = me;
	lc.size = nh;
	lc.peers = leaders;
	if (me >= 0) {
		uint8_t *flags = malloc(2 * (size_t)nh);

		st = flags ? site_measure(&lc, rtt + (size_t)me * (size_t)nh, flags, flags + nh) :
		     michi_err(MICHI_ERR_NOMEM, "no memory for the site inference");
		free(flags);
		if (!st && me > 0)
			st = site_msg(&lc, rtt + (size_t)me * (size_t)nh,
				      (size_t)nh * sizeof(double), 0, 1);
		else if (!st)
			st = site_split(&lc, rtt, hsite);
		if (st)
			goto out;
	}
	if (!(s = coll_sched_new(&wc, COLL_TAG_BCAST, NULL))) {
		st = michi_err(MICHI_ERR_NOMEM, "no memory for the site inference");
		goto out;
	}
	(void)coll_build_bcast_binomial(s, hsite, (size_t)nh * sizeof(int), 0);
	if ((st = coll_sched_run(s)))
		goto out;
	for (i = 0; i < nh; i++)
		if (hsite[i] >= nsites) {
			snprintf(name, sizeof(name), "auto%d", nsites);
			if ((st = site_names_grow(name)))
				goto out;
		}
	if (nsites > 1) {
		if (!(site_map = malloc((size_t)size * sizeof(int)))) {
			st = michi_err(MICHI_ERR_NOMEM, "no memory for the site map");
			goto out;
		}
		for (i = 0; i < size; i++)
			site_map[i] = hsite[host_of[i]];
		michi_state.site_of = site_map;
		site_inferred = 1;
	}
	if (michi_state.rank == 0)
		michi_info("site inference: %d hosts measured in %.1f ms: %s (gap factor %g)",
			   nh, (michi_wtime() - t0) * 1e3,
			   nsites > 1 ? "split into sites" : "no clear gap, one site", site_gap);
out:
	free(leaders);
	free(hsite);
	free(rtt);
	return st;
}

/* Rank 0 at MICHI_LOG=info: the map, each site with its ranks as ranges. */
static void site_log(void)
{
	int s, i, size = michi_state.size;

	if (michi_state.rank != 0 || michi_log_level < MICHI_LOG_INFO)
		return;
	if (!michi_state.site_of) {
		michi_info("sites: one site");
		return;
	}
	if (site_inferred)
		michi_info("sites: %d, inferred from round-trip times (near/far cut %.3f ms)",
			   nsites, site_cut * 1e3);
	else
		michi_info("sites: %d, given (MICHI_SITE, hostfile site=, --host H@SITE)", nsites);
	for (s = 0; s < nsites; s++) {
		char line[1024];
		size_t n = 0;
		int cnt = 0;

		for (i = 0; i < size && n < sizeof(line) - 32; i++) {
			int j = i;

			if (site_map[i] != s)
				continue;
			while (j + 1 < size && site_map[j + 1] == s)
				j++;
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%d", cnt ? "," : "", i);
			if (j > i)
				n += (size_t)snprintf(line + n, sizeof(line) - n, "-%d", j);
			cnt += j - i + 1;
			i = j;
		}
		michi_info("site %d '%s': ranks %s", s, site_names[s], line);
	}
}

/* The name of the job's site `site` (grid profiles are keyed by it): as
 * given or inferred; "site<N>" for one that only the coll_site_ranks
 * tunable makes (faked), or past the names known. */
void michi_site_name(int site, int faked, char *buf, size_t len)
{
	if (!faked && site >= 0 && site < nsites && site_names && site_names[site])
		snprintf(buf, len, "%s", site_names[site]);
	else
		snprintf(buf, len, "site%d", site);
}

michi_status_t michi_sites_init(void)
{
	michi_status_t st = MICHI_OK;

	if (!michi_state.site_of && !site_map && site_infer && !michi_state.single_host)
		st = site_infer_run();
	if (!st)
		site_log();
	return st;
}

void michi_sites_finalize(void)
{
	int s;

	for (s = 0; s < nsites; s++)
		free(site_names[s]);
	free(site_names);
	site_names = NULL;
	nsites = 0;
	free(site_map);
	site_map = NULL;
	michi_state.site_of = NULL;
}
