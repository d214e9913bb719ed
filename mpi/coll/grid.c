/* SPDX-License-Identifier: MIT */
/*
 * mpi/coll/grid.c: the MPI layer's part of the lanes' parameters
 * (coll/lanes_params.h): the sites' names, the grid profile that
 * MICHI_GRID_PROFILE names (read here, by comm rank 0 only, and handed to
 * coll/ as text, which agrees it with every rank), and the calibration
 * that writes such a profile, `michi_info --calibrate-grid` under mpirun
 * (michi_grid_calibrate).
 *
 * The calibration, for every pair of sites of MPI_COMM_WORLD (lane k of a
 * site is its rank members[first[s] + k], coll/coll.h, so lanes spread
 * over hosts first):
 *   L        half the fastest of 20 8-byte round trips between lane 0 of
 *            the two sites;
 *   alpha    the same between lanes 0 and 1 of the first site (of the
 *            second if the first has one rank);
 *   b_lan    lane 0 to lane 1 of that site, `bytes` in 256 KiB messages;
 *   b_WAN(P) for every P from 1 to min(n0, n1): lanes 0..P-1 of the first
 *            site each stream `bytes` to the same lane of the second at
 *            once; each receiver times its messages from the end of the
 *            first quarter (TCP's slow start and the handshakes behind
 *            it) to the end of the last, and b_WAN(P) is the mean of the
 *            P lanes' rates (a path so fast that the messages complete in
 *            bursts, as on one host, is timed from the receives' post);
 *   b_out(h) for every h from 1 to min(n0, n1): lane 0 of the first site
 *            streams `bytes` to each of lanes 0..h-1 of the second at
 *            once, the sum of their rates (what one host's h flows
 *            across carry: h windows where the limit is per connection,
 *            one host's rate where it is per host);
 *   b_in(h)  the same the other way, lanes 0..h-1 of the second site
 *            into lane 0 of the first, timed by it over all h streams.
 * The streams run CAL_ROUNDS times, each round over every P and h in
 * turn, and every rate is the best of its rounds: on a shared machine or
 * path a transient load only lowers a rate, so one slowed round would
 * otherwise tell the cost model that one lane alone is slower than
 * several beside each other.
 * michi_info turns the tcp device's striping off (its stripe_min tunable 0)
 * and sets wait_policy to block unless the environment says otherwise
 * (tools/michi_info.c): the tcp device's second socket per peer would
 * double what one lane gets, and ranks
 * spinning on shared cores would time each other's scheduling.
 */
#include "mpiimpl.h"
#include "lanes_params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *grid_profile = "";
MICHI_TUNABLE(grid_profile, "grid_profile", MICHI_T_STRING, "", MICHI_LEVEL_USER,
	      "the grid profile that `michi_info --calibrate-grid` wrote: the lanes' cost model "
	      "parameters per pair of sites (empty: measured at a communicator's first grid "
	      "collective, then refined)");

/* The profile's text, read once per process (NULL: none, or unreadable,
 * said once). */
static const char *profile_text(void)
{
	static int done;
	static char *text;
	FILE *f;
	long n;

	if (done)
		return text;
	done = 1;
	if (!grid_profile || !*grid_profile)
		return NULL;
	f = fopen(grid_profile, "r");
	if (!f) {
		michi_warn("MICHI_GRID_PROFILE %s: %s; the lanes' parameters are measured instead",
			   grid_profile, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n < (1 << 20) &&
	    fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1))) {
		if (fread(text, 1, (size_t)n, f) != (size_t)n) {
			free(text);
			text = NULL;
		} else {
			text[n] = '\0';
		}
	}
	if (!text)
		michi_warn("MICHI_GRID_PROFILE %s: cannot read it (at most 1 MiB of text); the "
			   "lanes' parameters are measured instead", grid_profile);
	fclose(f);
	return text;
}

struct lanes_grid *michi_grid_new(const struct michi_comm *c, const struct coll_sites *ss,
				  const int *job_site, int faked)
{
	char(*names)[LANES_SITE_NAME] = malloc((size_t)ss->nsites * sizeof(*names));
	const char **np = malloc((size_t)ss->nsites * sizeof(*np));
	struct lanes_grid *g = NULL;
	int s;

	if (names && np) {
		for (s = 0; s < ss->nsites; s++) {
			michi_site_name(job_site[s], faked, names[s], sizeof(names[s]));
			np[s] = names[s];
		}
		g = lanes_grid_new(ss->nsites, np, c->rank == 0 ? profile_text() : NULL);
	}
	free(names);
	free(np);
	return g;
}

/* ---- the calibration ------------------------------------------------- */

#define CAL_PINGS 20
#define CAL_CHUNK 262144
#define CAL_ROUNDS 2
/* a pair's figures: L, alpha, b_lan, b_wan(1..), b_out(1..), b_in(1..) */
#define CAL_NV (4 + 3 * LANES_PMAX)
#define CAL_BOUT (4 + LANES_PMAX - 1)     /* b_out(h) is v[CAL_BOUT + h] */
#define CAL_BIN (4 + 2 * LANES_PMAX - 1)

/* entry i's best over the rounds */
static double cal_best(double s[CAL_ROUNDS][CAL_NV], int i)
{
	double b = s[0][i];
	int rd;

	for (rd = 1; rd < CAL_ROUNDS; rd++)
		if (s[rd][i] > b)
			b = s[rd][i];
	return b;
}

static double cal_pingpong(MPI_Comm w, int peer, int first)
{
	char b[8] = {0};
	double best = 1e30;
	int i;

	for (i = 0; i < CAL_PINGS + 1; i++) {   /* the first one connects */
		double t = PMPI_Wtime();

		if (first) {
			PMPI_Send(b, 8, MPI_BYTE, peer, 1, w);
			PMPI_Recv(b, 8, MPI_BYTE, peer, 1, w, MPI_STATUS_IGNORE);
		} else {
			PMPI_Recv(b, 8, MPI_BYTE, peer, 1, w, MPI_STATUS_IGNORE);
			PMPI_Send(b, 8, MPI_BYTE, peer, 1, w);
		}
		t = (PMPI_Wtime() - t) / 2;
		if (i > 0 && t < best)
			best = t;
	}
	return best;
}

/* A stream of bytes between pairs of ranks, called by every rank of w
 * (role CAL_NONE on those not in it): the receivers post their receives,
 * all meet in a barrier, then the senders send; each receiver's rate runs
 * from the end of the first quarter of its messages to the end of the
 * last. A path faster than this loop sees the messages complete in
 * bursts (one host, shared memory, where the transfer may end while the
 * receiver still waits in the barrier): then the rate is over the whole
 * transfer, the longer of the receiver's time from its posting and the
 * sender's. */
enum { CAL_NONE, CAL_SEND, CAL_RECV };

/* A receiver's n chunks: *t0 when the first quarter (n / 4) has arrived,
 * *t when the last has. */
static void cal_wait(int n, MPI_Request *r, double *t0, double *t)
{
	int i, idx;

	*t0 = 0;
	for (i = 0; i < n; i++) {
		PMPI_Waitany(n, r, &idx, MPI_STATUS_IGNORE);
		if (i == n / 4 - 1)
			*t0 = PMPI_Wtime();
	}
	*t = PMPI_Wtime();
}

/* The rate of n chunks timed by cal_wait: from the first quarter's end
 * to the last's, or over the whole transfer (`whole` seconds) when they
 * completed in bursts (a path faster than the waiting loop). */
static double cal_rate(int n, double t0, double t, double whole)
{
	if (t - t0 < 0.25 * whole)
		return (double)n * CAL_CHUNK / whole;
	return (double)(n - n / 4) * CAL_CHUNK / (t - t0);
}

static void cal_stream(MPI_Comm w, int peer, int role, char *buf, size_t bytes, double *rate)
{
	int n = (int)(bytes / CAL_CHUNK), i;
	MPI_Request *r = role != CAL_NONE ? malloc((size_t)n * sizeof(*r)) : NULL;
	double t0 = 0, t, t_start, t_post = PMPI_Wtime();

	if (role != CAL_NONE && !r) {
		fprintf(stderr, "michi_info --calibrate-grid: no memory\n");
		PMPI_Abort(w, 1);
	}
	for (i = 0; i < n && role == CAL_RECV; i++)
		PMPI_Irecv(buf + (size_t)i * CAL_CHUNK, CAL_CHUNK, MPI_BYTE, peer, 2, w, &r[i]);
	PMPI_Barrier(w);
	t_start = PMPI_Wtime();
	for (i = 0; i < n && role == CAL_SEND; i++)
		PMPI_Isend(buf + (size_t)i * CAL_CHUNK, CAL_CHUNK, MPI_BYTE, peer, 2, w, &r[i]);
	for (i = 0; i < n && role == CAL_SEND; i++)
		PMPI_Wait(&r[i], MPI_STATUS_IGNORE);
	if (role == CAL_SEND) {
		t = PMPI_Wtime() - t_start;
		PMPI_Send(&t, 1, MPI_DOUBLE, peer, 3, w);
	}
	if (role == CAL_RECV) {
		double t_send;

		/* messages of one sender complete in order */
		cal_wait(n, r, &t0, &t);
		PMPI_Recv(&t_send, 1, MPI_DOUBLE, peer, 3, w, MPI_STATUS_IGNORE);
		*rate = cal_rate(n, t0, t, t - t_post > t_send ? t - t_post : t_send);
	}
	free(r);
}

/* h streams at once between one rank, the hub, and h others, the spokes
 * sp[0..h): the hub sends to every spoke (out) or every spoke to the hub.
 * Called by every rank of w. The receiving side times its messages from
 * the end of the first quarter to the end of the last, as cal_stream:
 * each spoke its own stream (out; the caller sums them), the hub all of
 * them together (in, each stream into its own part of h x bytes). */
static void cal_fan(MPI_Comm w, int me, int hub, const int *sp, int h, int out, char *buf,
		    size_t bytes, double *rate)
{
	char *big = NULL;
	int n = (int)(bytes / CAL_CHUNK), i, k, spoke = -1, nreq, recv;
	MPI_Request *r;
	double t0 = 0, t, t_post = PMPI_Wtime();

	for (k = 0; k < h; k++)
		if (sp[k] == me)
			spoke = k;
	nreq = me == hub ? n * h : spoke >= 0 ? n : 0;
	recv = (me == hub && !out) || (spoke >= 0 && out);
	r = nreq ? malloc((size_t)nreq * sizeof(*r)) : NULL;
	if (me == hub && !out)
		big = malloc((size_t)h * bytes);
	if ((nreq && !r) || (me == hub && !out && !big)) {
		fprintf(stderr, "michi_info --calibrate-grid: no memory\n");
		PMPI_Abort(w, 1);
	}
	/* the hub's messages interleaved over the spokes, chunk by chunk */
	for (i = 0; i < n && recv; i++)
		for (k = 0; k < (me == hub ? h : 1); k++)
			PMPI_Irecv(me == hub ? big + ((size_t)k * n + i) * CAL_CHUNK :
				   buf + (size_t)i * CAL_CHUNK, CAL_CHUNK, MPI_BYTE,
				   me == hub ? sp[k] : hub, 4, w, &r[i * (me == hub ? h : 1) + k]);
	PMPI_Barrier(w);
	for (i = 0; i < n && nreq && !recv; i++)
		for (k = 0; k < (me == hub ? h : 1); k++)
			PMPI_Isend(buf + (size_t)i * CAL_CHUNK, CAL_CHUNK, MPI_BYTE,
				   me == hub ? sp[k] : hub, 4, w, &r[i * (me == hub ? h : 1) + k]);
	if (!recv) {
		for (i = 0; i < nreq; i++)
			PMPI_Wait(&r[i], MPI_STATUS_IGNORE);
		free(r);
		return;
	}
	cal_wait(nreq, r, &t0, &t);
	*rate = cal_rate(nreq, t0, t, t - t_post);
	free(r);
	free(big);
}

static void cal_name(const struct coll_sites *ss, int s, char *buf, size_t len)
{
	const char *n = ss->grid ? lanes_grid_site_name(ss->grid, s) : NULL;

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "site%d", s);
}

int michi_grid_calibrate(const char *out, size_t bytes, int verbose)
{
	struct michi_comm *wc = &michi_comm_world;
	struct coll_comm cc;
	const struct coll_sites *ss;
	struct lanes_profile_entry *e;
	MPI_Comm w = MPI_COMM_WORLD;
	int me, nsites, npairs, sa, sb, ne = 0, rc = 0;
	char *buf;
	double t_all = PMPI_Wtime();
	/* the report beside the profile, or apart from it on standard output */
	FILE *rep = out && strcmp(out, "-") ? stdout : stderr;

	PMPI_Comm_rank(w, &me);
	michi_coll_comm(wc, &cc);
	ss = cc.sites;
	if (!ss) {
		if (me == 0)
			fprintf(stderr, "michi_info --calibrate-grid: MPI_COMM_WORLD spans one site: run "
				"it under mpirun over the hosts of two sites or more (a hostfile's "
				"site=, or MICHI_COLL_SITE_RANKS)\n");
		return 2;
	}
	for (sa = 0; sa < ss->nsites; sa++)
		for (sb = sa + 1; sb < ss->nsites; sb++)
			if (ss->first[sa + 1] - ss->first[sa] < 2 && ss->first[sb + 1] - ss->first[sb] < 2) {
				if (me == 0)
					fprintf(stderr, "michi_info --calibrate-grid: sites %d and %d have one "
						"rank each: alpha and b_LAN need two ranks of one of them "
						"(one a host)\n", sa, sb);
				return 2;
			}
	if (bytes < 4 * CAL_CHUNK)
		bytes = 4 * CAL_CHUNK;
	bytes = (bytes + CAL_CHUNK - 1) / CAL_CHUNK * CAL_CHUNK;
	nsites = ss->nsites;
	npairs = nsites * (nsites - 1) / 2;
	e = calloc((size_t)npairs, sizeof(*e));
	buf = calloc(1, bytes);
	if (!e || !buf) {
		fprintf(stderr, "michi_info --calibrate-grid: rank %d: no memory for %zu bytes\n", me,
			bytes);
		PMPI_Abort(w, 1);
	}
	for (sa = 0; sa < nsites; sa++)
		for (sb = sa + 1; sb < nsites; sb++) {
			int na = ss->first[sa + 1] - ss->first[sa], nb = ss->first[sb + 1] - ss->first[sb];
			int psup = na < nb ? na : nb, a0 = ss->members[ss->first[sa]];
			int b0 = ss->members[ss->first[sb]], ls = na > 1 ? sa : sb;
			int l0 = ss->members[ss->first[ls]], l1 = -1, P, k, rd;
			double v[CAL_ROUNDS][CAL_NV] = {{0}}, sum[CAL_ROUNDS][CAL_NV];
			double t_pair = PMPI_Wtime();
			int sp[LANES_PMAX];
			struct lanes_profile_entry *x = &e[ne++];

			if (ss->first[ls + 1] - ss->first[ls] > 1)
				l1 = ss->members[ss->first[ls] + 1];
			if (psup > LANES_PMAX)
				psup = LANES_PMAX;
			cal_name(ss, sa, x->a, sizeof(x->a));
			cal_name(ss, sb, x->b, sizeof(x->b));
			if (me == a0)
				v[0][0] = cal_pingpong(w, b0, 1);
			else if (me == b0)
				cal_pingpong(w, a0, 0);
			if (l1 >= 0 && (me == l0 || me == l1)) {
				if (me == l0)
					v[0][1] = cal_pingpong(w, l1, 1);
				else
					cal_pingpong(w, l0, 0);
			}
			/* b_out(h), b_in(h): lane 0 of the first site to and from
			 * lanes 0..h-1 of the second at once */
			for (k = 0; k < psup; k++)
				sp[k] = ss->members[ss->first[sb] + k];
			for (rd = 0; rd < CAL_ROUNDS; rd++) {
				if (l1 >= 0) {
					double r = 0;

					cal_stream(w, me == l0 ? l1 : l0, me == l0 ? CAL_SEND :
						   me == l1 ? CAL_RECV : CAL_NONE, buf, bytes, &r);
					v[rd][2] = me == l1 ? r : 0;
				}
				for (P = 1; P <= psup; P++) {
					int role = CAL_NONE, peer = -1;
					double r = 0;

					k = ss->lane_of[me];
					if (k < P && (ss->site[me] == sa || ss->site[me] == sb)) {
						peer = ss->members[ss->first[ss->site[me] == sa ? sb : sa] + k];
						role = ss->site[me] == sa ? CAL_SEND : CAL_RECV;
					}
					cal_stream(w, peer, role, buf, bytes, &r);
					if (role == CAL_RECV)
						v[rd][3 + P] = r / P;
					if (verbose && me == 0)
						fprintf(stderr, "calibrate: sites %d-%d: round %d: %d lane(s) "
							"done\n", sa, sb, rd + 1, P);
				}
				for (P = 1; P <= psup; P++) {
					double r = 0;

					cal_fan(w, me, a0, sp, P, 1, buf, bytes, &r);
					v[rd][CAL_BOUT + P] = r;
					r = 0;
					cal_fan(w, me, a0, sp, P, 0, buf, bytes, &r);
					if (me == a0)
						v[rd][CAL_BIN + P] = r;
					if (verbose && me == 0)
						fprintf(stderr, "calibrate: sites %d-%d: round %d: %d flow(s) a "
							"host done\n", sa, sb, rd + 1, P);
				}
			}
			PMPI_Allreduce(v, sum, CAL_ROUNDS * CAL_NV, MPI_DOUBLE, MPI_SUM, w);
			x->p.L = sum[0][0];
			x->p.alpha = sum[0][1];
			x->p.b_lan = cal_best(sum, 2);
			x->p.pmax = psup;
			for (P = 1; P <= psup; P++) {
				x->p.b_wan[P - 1] = cal_best(sum, 3 + P);
				x->p.b_out[P - 1] = cal_best(sum, CAL_BOUT + P);
				x->p.b_in[P - 1] = cal_best(sum, CAL_BIN + P);
			}
			x->p.bout_max = x->p.bin_max = psup;
			if (me == 0) {
				fprintf(rep, "calibrate: %s - %s: %d+%d ranks, %.2f s: L %.3f ms, "
					"alpha %.3f ms, b_lan %.2f Mb/s\n", x->a, x->b, na, nb, PMPI_Wtime() - t_pair,
				       x->p.L * 1e3, x->p.alpha * 1e3, x->p.b_lan * 8e-6);
				for (P = 1; P <= psup; P++)
					fprintf(rep, "calibrate:   P=%d: b_wan %.2f Mb/s a lane, %.2f Mb/s "
						"in all; one host: b_out %.2f, b_in %.2f Mb/s\n",
					       P, x->p.b_wan[P - 1] * 8e-6, P * x->p.b_wan[P - 1] * 8e-6,
					       x->p.b_out[P - 1] * 8e-6, x->p.b_in[P - 1] * 8e-6);
			}
		}
	if (me == 0) {
		size_t len = lanes_profile_format(NULL, 0, e, ne);
		char *text = malloc(len + 1);
		FILE *f = out && strcmp(out, "-") ? fopen(out, "w") : stdout;

		if (!text || !f) {
			fprintf(stderr, "michi_info --calibrate-grid: cannot write %s: %s\n",
				out ? out : "-", text ? strerror(errno) : "no memory");
			rc = 1;
		} else {
			lanes_profile_format(text, len + 1, e, ne);
			if (fputs(text, f) == EOF || (f != stdout && fclose(f))) {
				fprintf(stderr, "michi_info --calibrate-grid: cannot write %s: %s\n", out,
					strerror(errno));
				rc = 1;
			}
			fprintf(rep, "calibrate: %d pair(s) of sites in %.1f s%s%s\n", ne,
			       PMPI_Wtime() - t_all, f != stdout ? ", profile " : "",
			       f != stdout ? out : "");
		}
		free(text);
	}
	free(e);
	free(buf);
	PMPI_Bcast(&rc, 1, MPI_INT, 0, w);
	return rc;
}

/* ---- for tests and benchmarks ---------------------------------------- */

/*
 * The parameters comm uses between its sites sa and sb (sites numbered
 * in the order of their lowest rank, as coll/coll.h's): collective over
 * comm, as a grid collective's lanes_params_for (the first call agrees or
 * measures them, every lanes_refine_every-th refines). b_wan gets
 * LANES_PMAX entries at most; returns how many hold b_WAN(P), or -1
 * when comm spans one site, is an intercommunicator, or sa/sb are not
 * two of its sites. Declared by the callers (test/mpi/grid_params.c,
 * bench/), like michi_tunables_print.
 */
static const struct lanes_params *grid_params_of(MPI_Comm comm, int sa, int sb)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_comm cc;

	if (!c || c->local || comm == MPI_COMM_NULL)
		return NULL;
	michi_coll_comm(c, &cc);
	return cc.sites ? lanes_params_for(&cc, sa, sb, 1) : NULL;
}

MICHI_EXPORT int michi_grid_params(MPI_Comm comm, int sa, int sb, double *L, double *alpha,
				   double *b_lan, double *b_wan, int nb_wan)
{
	const struct lanes_params *p = grid_params_of(comm, sa, sb);
	int P;

	if (!p)
		return -1;
	*L = p->L;
	*alpha = p->alpha;
	*b_lan = p->b_lan;
	for (P = 0; P < p->pmax && P < nb_wan; P++)
		b_wan[P] = p->b_wan[P];
	return P;
}

/*
 * The b_out(h) and b_in(h) tables (coll/lanes_model.h) comm uses between
 * sa and sb, as michi_grid_params (collective the same way): up to max
 * entries each into b_out and b_in, their counts in *nout and *nin (0:
 * none, hosts taken as node-limited). Returns 0, or -1 as michi_grid_params.
 */
MICHI_EXPORT int michi_grid_host_params(MPI_Comm comm, int sa, int sb, double *b_out, int *nout,
					double *b_in, int *nin, int max)
{
	const struct lanes_params *p = grid_params_of(comm, sa, sb);
	int h;

	if (!p)
		return -1;
	for (h = 0; h < p->bout_max && h < max; h++)
		b_out[h] = p->b_out[h];
	*nout = h;
	for (h = 0; h < p->bin_max && h < max; h++)
		b_in[h] = p->b_in[h];
	*nin = h;
	return 0;
}

/* What lanes_observe records, from outside: local, any time. */
MICHI_EXPORT void michi_grid_observe(MPI_Comm comm, int sa, int sb, int P, size_t bytes,
				     double seconds)
{
	struct michi_comm *c = michi_comm_get(comm);
	struct coll_comm cc;

	if (!c || c->local || comm == MPI_COMM_NULL || !c->sites)
		return;
	memset(&cc, 0, sizeof(cc));
	cc.rank = c->rank;
	cc.size = c->size;
	cc.sites = c->sites;
	lanes_observe(&cc, sa, sb, P, bytes, seconds);
}
