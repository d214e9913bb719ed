/* SPDX-License-Identifier: MIT */
/*
 * test/mpi/grid_params.c: the lanes' cost model parameters a communicator
 * that spans sites agrees on (coll/lanes_params.c, mpi/coll/grid.c), on one
 * host with MICHI_COLL_SITE_RANKS faking two sites.
 *   - without a profile, the first grid collective measures them: every
 *     rank holds the same bytes, all positive, b_WAN(P) for P up to the
 *     smaller site;
 *   - with GRID_PARAMS_PROFILE=1, rank 0 writes a profile before the first
 *     collective (the path each rank put in MICHI_GRID_PROFILE before
 *     MPI_Init, unique to this job) and every rank gets its numbers, the
 *     one-lane entry extended by ideal sharing to the second lane, and
 *     its b_out(h) and b_in(h) tables (a job that read them without these
 *     took its hosts as node-limited and chose other lanes);
 *   - refinement: observations of P = 2 lanes at a known rate move
 *     b_WAN(2), within any lanes_refine_every calls, by the moving average's
 *     weight, identically on every rank (observations made on some ranks
 *     only: the allreduce brings them to all);
 *   - more than two sites: every pair has its own, agreed alike;
 *   - a communicator inside one site has none.
 * Michi only (the functions are Michi's); skips elsewhere.
 */
#include "mtest.h"

#include <math.h>
#include <unistd.h>

/* Michi's own functions (mpi/coll/grid.c): a build against another MPI's
 * mpi.h (the MPICH-ABI pass) cannot link them and skips */
#ifdef MICHI
int michi_grid_params(MPI_Comm comm, int sa, int sb, double *L, double *alpha, double *b_lan,
		      double *b_wan, int nb_wan);
void michi_grid_observe(MPI_Comm comm, int sa, int sb, int P, size_t bytes, double seconds);
int michi_grid_host_params(MPI_Comm comm, int sa, int sb, double *b_out, int *nout, double *b_in,
			   int *nin, int max);

#define NB 64
struct params {
	double L, alpha, b_lan, b_wan[NB];
	int n;
};

static int get(MPI_Comm comm, struct params *p)
{
	memset(p, 0, sizeof(*p));
	p->n = michi_grid_params(comm, 0, 1, &p->L, &p->alpha, &p->b_lan, p->b_wan, NB);
	return p->n;
}

/* The same bytes on every rank of comm. */
static void same_everywhere(MPI_Comm comm, const struct params *p, const char *what)
{
	int n, r;
	struct params *all;

	MPI_Comm_size(comm, &n);
	all = mtest_malloc((size_t)n * sizeof(*p));
	MPI_Allgather(p, sizeof(*p), MPI_BYTE, all, sizeof(*p), MPI_BYTE, comm);
	for (r = 0; r < n; r++)
		if (memcmp(&all[r], &all[0], sizeof(*p)))
			mtest_error("%s: rank %d's parameters differ from rank 0's (L %g/%g, "
				    "b_wan(1) %g/%g)", what, r, all[r].L, all[0].L, all[r].b_wan[0],
				    all[0].b_wan[0]);
	free(all);
}

int main(int argc, char **argv)
{
	int profile = getenv("GRID_PARAMS_PROFILE") && atoi(getenv("GRID_PARAMS_PROFILE"));
	int rank, size, per, P, k, every;
	char path[128];
	struct params p, q;
	MPI_Comm half;

	snprintf(path, sizeof(path), "/tmp/michi-grid-params-%ld.profile", (long)getppid());
	if (profile)
		setenv("MICHI_GRID_PROFILE", path, 1);
	mtest_init(&argc, &argv);
	if (!mtest_is_michi())
		mtest_skip("michi_grid_params is Michi's");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	per = getenv("MICHI_COLL_SITE_RANKS") ? atoi(getenv("MICHI_COLL_SITE_RANKS")) : 0;
	if (per < 1 || size <= per)
		mtest_skip("needs MICHI_COLL_SITE_RANKS=k and more than k ranks (two sites or more)");
	if (profile && rank == 0) {
		FILE *f = fopen(path, "w");

		if (!f || fprintf(f, "michi-grid-profile 1\n# test/mpi/grid_params.c\n"
				  "pair site1 site0 L=4ms,alpha=200us,b_lan=100mbit,b_wan=24mbit,"
				  "b_out=24mbit,40mbit,b_in=24mbit,48mbit,64mbit\n"
				  "pair site0 site7 L=1,alpha=1,b_lan=1,b_wan=1\n") < 0 || fclose(f))
			mtest_error("cannot write %s", path);
	}
	/* a nonblocking grid collective, even the first on a communicator,
	 * returns without waiting for the other ranks (the parameters are
	 * agreed in a blocking one): rank 0 starts a gather, then sends to
	 * the last rank, which receives that before it joins the gather */
	{
		MPI_Comm d;
		MPI_Request rq;
		int *blk = calloc(1000, sizeof(int)), *all = calloc((size_t)size * 1000, sizeof(int));
		int token = 0, i;

		MPI_Comm_dup(MPI_COMM_WORLD, &d);
		for (i = 0; i < 1000; i++)
			blk[i] = rank * 1000 + i;
		if (rank == size - 1)
			MPI_Recv(&token, 1, MPI_INT, 0, 7, d, MPI_STATUS_IGNORE);
		MPI_Igather(blk, 1000, MPI_INT, all, 1000, MPI_INT, 0, d, &rq);
		if (rank == 0)
			MPI_Send(&token, 1, MPI_INT, size - 1, 7, d);
		MPI_Wait(&rq, MPI_STATUS_IGNORE);
		for (i = 0; rank == 0 && i < size * 1000; i++)
			if (all[i] != i) {
				mtest_error("nonblocking gather: element %d is %d", i, all[i]);
				break;
			}
		MPI_Comm_free(&d);
		free(blk);
		free(all);
	}
	if (get(MPI_COMM_WORLD, &p) != (size - per < per ? size - per : per))
		mtest_error("b_WAN(P) for %d P, not the smaller site's %d", p.n,
			    size - per < per ? size - per : per);
	same_everywhere(MPI_COMM_WORLD, &p, "first use");
	/* more than two sites: every pair agreed at the first call, both ways */
	{
		int ns = (size + per - 1) / per, sa, sb;

		for (sa = 0; sa < ns; sa++)
			for (sb = 0; sb < ns; sb++) {
				int na = sa < ns - 1 ? per : size - sa * per;
				int nb = sb < ns - 1 ? per : size - sb * per;
				struct params r;
				char what[64];

				if (sa == sb || (sa == 0 && sb == 1) || (sa == 1 && sb == 0 && ns == 2))
					continue;
				memset(&r, 0, sizeof(r));
				r.n = michi_grid_params(MPI_COMM_WORLD, sa, sb, &r.L, &r.alpha, &r.b_lan,
							r.b_wan, NB);
				if (r.n != (na < nb ? na : nb) || !(r.L > 0) || !(r.b_wan[0] > 0))
					mtest_error("sites %d-%d: %d b_wan entries (want %d), L %g", sa,
						    sb, r.n, na < nb ? na : nb, r.L);
				snprintf(what, sizeof(what), "sites %d-%d", sa, sb);
				same_everywhere(MPI_COMM_WORLD, &r, what);
			}
	}
	if (profile) {
		if (fabs(p.L - 0.004) > 1e-15 || fabs(p.alpha - 0.0002) > 1e-15 || p.b_lan != 12500000 ||
		    p.b_wan[0] != 3e6)
			mtest_error("not the profile's: L %g alpha %g b_lan %g b_wan(1) %g", p.L,
				    p.alpha, p.b_lan, p.b_wan[0]);
		for (P = 2; P <= p.n; P++)
			if (p.b_wan[P - 1] != 3e6 / P)
				mtest_error("b_wan(%d) %g, not one lane's rate shared, %g", P,
					    p.b_wan[P - 1], 3e6 / P);
	}
	{
		/* the host tables: the profile's on every rank, none measured */
		double t[2 * NB + 2];
		int no = -1, ni = -1;
		static const double bo[] = { 3e6, 5e6 }, bi[] = { 3e6, 6e6, 8e6 };

		memset(t, 0, sizeof(t));
		if (michi_grid_host_params(MPI_COMM_WORLD, 0, 1, t, &no, t + NB, &ni, NB))
			mtest_error("michi_grid_host_params failed");
		t[2 * NB] = no;
		t[2 * NB + 1] = ni;
		for (k = 0; profile && k < 3; k++)
			if ((k < 2 && t[k] != bo[k]) || t[NB + k] != bi[k])
				mtest_error("host tables: b_out(%d) %g, b_in(%d) %g, not the profile's",
					    k + 1, t[k], k + 1, t[NB + k]);
		if (profile ? no != 2 || ni != 3 : no != 0 || ni != 0)
			mtest_error("host tables of %d and %d entries (%s)", no, ni,
				    profile ? "the profile has 2 and 3" : "measured: none");
		{
			double *all = mtest_malloc((size_t)size * sizeof(t));
			int r;

			MPI_Allgather(t, (int)sizeof(t), MPI_BYTE, all, (int)sizeof(t), MPI_BYTE,
				      MPI_COMM_WORLD);
			for (r = 1; r < size; r++)
				if (memcmp(all + (size_t)r * (2 * NB + 2), t, sizeof(t)))
					mtest_error("rank %d's host tables differ from rank %d's", r,
						    rank);
			free(all);
		}
	}
	if (!profile) {
		if (!(p.L > 0 && p.L < 1 && p.b_wan[0] > 0 && (per < 2 || (p.alpha > 0 && p.b_lan > 0))))
			mtest_error("measured: L %g alpha %g b_lan %g b_wan(1) %g", p.L, p.alpha,
				    p.b_lan, p.b_wan[0]);
		for (P = 1; P <= p.n; P++)
			if (!(p.b_wan[P - 1] > 0))
				mtest_error("measured b_wan(%d) = %g", P, p.b_wan[P - 1]);
	}
	/* refinement: the lanes_refine_every-th call after the first folds in
	 * what was observed; a lane at 1e5 B/s seen on ranks of site 1 only */
	every = getenv("MICHI_LANES_REFINE_EVERY") ? atoi(getenv("MICHI_LANES_REFINE_EVERY")) : 4;
	if (p.n >= 2 && every > 0) {
		double want = p.b_wan[1] + 0.5 * (1e5 - p.b_wan[1]);

		if (rank >= per)
			michi_grid_observe(MPI_COMM_WORLD, 0, 1, 2, 1000000, p.L + 10.0);
		/* any `every` calls in a row hold exactly one refinement (other
		 * grid collectives count too, alike on every rank) */
		for (k = 0; k < every; k++)
			get(MPI_COMM_WORLD, &q);
		same_everywhere(MPI_COMM_WORLD, &q, "refined");
		if (q.b_wan[1] < want * (1 - 1e-9) || q.b_wan[1] > want * (1 + 1e-9))
			mtest_error("refined b_wan(2) %g, not %g (halfway from %g to 1e5)", q.b_wan[1],
				    want, p.b_wan[1]);
		/* the others bounded by it: no fewer lanes slower, no more faster */
		for (P = 1; P <= p.n; P++) {
			double b = P == 2 ? q.b_wan[1] : p.b_wan[P - 1];

			if (P < 2 && b < q.b_wan[1])
				b = q.b_wan[1];
			if (P > 2 && b > q.b_wan[1])
				b = q.b_wan[1];
			if (q.b_wan[P - 1] != b)
				mtest_error("refined b_wan(%d) %g, not %g", P, q.b_wan[P - 1], b);
		}
		memcpy(q.b_wan, p.b_wan, sizeof(q.b_wan));
		if (memcmp(&q, &p, sizeof(p)))
			mtest_error("the refinement changed more than b_wan(P)");
	}
	/* a communicator inside one site has no lanes */
	MPI_Comm_split(MPI_COMM_WORLD, rank / per, rank, &half);
	if (get(half, &q) != -1)
		mtest_error("a communicator of one site got parameters (%d)", q.n);
	MPI_Comm_free(&half);
	if (profile && rank == 0)
		unlink(path);
	return mtest_finalize();
}
#else
int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	mtest_skip("built with another MPI's mpi.h: michi_grid_params is Michi's own");
	return 0;
}
#endif
