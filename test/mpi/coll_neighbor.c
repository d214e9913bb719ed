/* SPDX-License-Identifier: MIT */
/*
 * The neighbourhood collectives MPI_Neighbor_allgather(v) and
 * MPI_Neighbor_alltoall(v,w), and their nonblocking forms
 * MPI_Ineighbor_*, on four topologies:
 *  - a periodic 1-D Cartesian ring over all ranks: at 1 and 2 ranks the -1
 *    and +1 neighbours are the same rank, and MPI (3.1, 7.6) still says
 *    which block goes where: receive block 2d comes from send block 2d+1 of
 *    the -1 neighbour, receive block 2d+1 from send block 2d of the +1
 *    neighbour;
 *  - a non-periodic 2-D Cartesian grid from MPI_Dims_create, whose edge
 *    ranks have MPI_PROC_NULL neighbours: the receive blocks for those
 *    must stay untouched;
 *  - an irregular symmetric graph from MPI_Graph_create: a path, a hub,
 *    a self loop, and from 5 ranks on a rank with no neighbours;
 *  - a distributed graph from MPI_Dist_graph_create_adjacent with in and
 *    out degrees that differ, sources listed in reverse order and one edge
 *    given twice: the k-th receive slot naming a rank takes that rank's
 *    k-th send block addressed to us, in list order.
 * Every rank knows the whole topology, so it computes the expected
 * receive buffer locally: element e of the block rank s sends as its out
 * block b is a hash of (s, b, e, call), the same for every block in the
 * allgathers. Counts 0, 1, 5 and 3000 ints; the v forms with counts that
 * differ per sender and per block (zero among them) and blocks in reverse
 * order with gaps that must stay untouched; a vector type on the receive
 * side of Neighbor_allgather and on the send side of Neighbor_alltoall;
 * Neighbor_alltoallw with MPI_Aint byte displacements and per-block types
 * (MPI_INT, contiguous, vector, resized). Each call runs blocking and
 * nonblocking (completed by MPI_Wait, a bounded MPI_Test loop or
 * MPI_Waitall), send buffers must come back unchanged; then all five
 * kinds outstanding at once on one topology, and on all four topologies
 * at once. On Michi a neighbourhood collective on a communicator without
 * a topology must fail with MPI_ERR_TOPOLOGY (others vary).
 * Runs at any number of ranks, on MPICH and Open MPI as well, but three
 * bugs of MPICH 4.0.2 (all known upstream) and one of Open MPI 4.1 meet
 * cases MPI defines: MPICH posts the receives of Neighbor_alltoall in
 * reverse (its fix for the Cartesian case, which breaks the edge given
 * twice: pmodels/mpich#7945), not yet those of Neighbor_alltoallv/w (so
 * the 1- and 2-rank ring gets its blocks swapped: #5777), and its
 * Neighbor_alltoallw mixes up in- and out-degree where they differ
 * (#6233); Open MPI 4.1's Ineighbor_alltoall swaps the blocks on the 1-
 * and 2-rank ring. So on a library other than Michi, unless
 * COLL_NEIGHBOR_STRICT is set in the environment, the distributed graph
 * gives no edge twice and runs no alltoallw, and the 1- and 2-rank ring
 * runs the allgathers only.
 */
#include "mtest.h"
#include "coll_common.h"

#define BIG 3000
#define GAP 3			/* ints left between the blocks of v layouts */
#define MAXJ 32			/* calls outstanding at once, at most */

static const int counts[] = { 0, 1, 5, BIG };
#define NCOUNTS (int)(sizeof(counts) / sizeof(counts[0]))

enum kind { K_AG, K_AGV, K_A2A, K_A2AV, K_A2AW, NKINDS };
static const char *const bnames[NKINDS] = { "MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv",
					    "MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv",
					    "MPI_Neighbor_alltoallw" };
static const char *const nbnames[NKINDS] = { "MPI_Ineighbor_allgather",
					     "MPI_Ineighbor_allgatherv",
					     "MPI_Ineighbor_alltoall", "MPI_Ineighbor_alltoallv",
					     "MPI_Ineighbor_alltoallw" };

enum { M_BLOCKING, M_WAIT, M_TEST, M_WAITALL, NMODES };
static const char *const mode_names[NMODES] = { "blocking", "MPI_Wait", "MPI_Test loop",
						"MPI_Waitall" };

/* how the uniform blocks of Neighbor_allgather/alltoall lie in memory */
enum { L_INT, L_VEC };

/* ---- topologies, as every rank sees all of them ------------------------- */

struct topo {
	char name[80];
	MPI_Comm comm;
	int cart;		/* blocks match by the Cartesian rule */
	int n, me;
	int *indeg, *outdeg;	/* per rank */
	int **in, **out;	/* per rank: sources, destinations, in order */
	int *ssrc, *sblk;	/* my receive slot i: the sender, its send block */
};

static struct topo topos[4];
#define NTOPOS 4

/* MPICH 4.0 and Open MPI 4.1 get two cases wrong that MPI defines (see
 * the top comment); unless strict they are left out */
static int strict;

static void topo_init(struct topo *t, const char *name)
{
	t->n = mtest_size;
	t->me = mtest_rank;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->indeg = coll_iarr(t->n);
	t->outdeg = coll_iarr(t->n);
	t->in = mtest_malloc(t->n * sizeof(int *));
	t->out = mtest_malloc(t->n * sizeof(int *));
	for (int r = 0; r < t->n; r++) {
		t->indeg[r] = t->outdeg[r] = 0;
		t->in[r] = t->out[r] = NULL;
	}
}

static void topo_set(struct topo *t, int r, int nin, const int *in, int nout, const int *out)
{
	t->indeg[r] = nin;
	t->outdeg[r] = nout;
	t->in[r] = coll_iarr(nin);
	t->out[r] = coll_iarr(nout);
	if (nin)
		memcpy(t->in[r], in, nin * sizeof(int));
	if (nout)
		memcpy(t->out[r], out, nout * sizeof(int));
}

/* which send block of which rank each of my receive slots takes */
static void topo_match(struct topo *t)
{
	int me = t->me, nin = t->indeg[me];

	t->ssrc = coll_iarr(nin);
	t->sblk = coll_iarr(nin);
	for (int i = 0; i < nin; i++) {
		int s = t->in[me][i], k = 0, seen = 0;

		t->ssrc[i] = s;
		t->sblk[i] = -1;
		if (s == MPI_PROC_NULL)
			continue;
		if (t->cart) {
			t->sblk[i] = i ^ 1;
			continue;
		}
		for (int x = 0; x < i; x++)
			k += t->in[me][x] == s;
		for (int b = 0; b < t->outdeg[s]; b++)
			if (t->out[s][b] == me && seen++ == k) {
				t->sblk[i] = b;
				break;
			}
		mtest_check(t->sblk[i] >= 0, "%s: test bug: slot %d from %d has no send", t->name,
			    i, s);
	}
}

static void topo_free(struct topo *t)
{
	for (int r = 0; r < t->n; r++)
		free(t->in[r]), free(t->out[r]);
	free(t->in), free(t->out), free(t->indeg), free(t->outdeg);
	free(t->ssrc), free(t->sblk);
	MPI_Comm_free(&t->comm);
}

/* the library's view of the neighbours must agree with ours */
static void check_list(const struct topo *t, const char *what, const int *got, const int *want,
		       int n)
{
	for (int i = 0; i < n; i++)
		if (!mtest_check(got[i] == want[i], "%s: %s %d is %d, expected %d", t->name, what, i,
				 got[i], want[i]))
			return;
}

static void make_cart1(struct topo *t)
{
	int n = mtest_size, dims[1] = { n }, periods[1] = { 1 }, src, dst;

	topo_init(t, "periodic 1-D Cartesian");
	t->cart = 1;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &t->comm);
	for (int r = 0; r < n; r++) {
		int nb[2] = { (r - 1 + n) % n, (r + 1) % n };

		topo_set(t, r, 2, nb, 2, nb);
	}
	MPI_Cart_shift(t->comm, 0, 1, &src, &dst);
	mtest_check(src == t->in[t->me][0] && dst == t->in[t->me][1],
		    "%s: shift gives %d and %d, expected %d and %d", t->name, src, dst,
		    t->in[t->me][0], t->in[t->me][1]);
	topo_match(t);
}

static void make_cart2(struct topo *t)
{
	int n = mtest_size, dims[2] = { 0, 0 }, periods[2] = { 0, 0 }, src, dst;
	char name[80];

	MPI_Dims_create(n, 2, dims);
	snprintf(name, sizeof(name), "non-periodic %dx%d Cartesian", dims[0], dims[1]);
	topo_init(t, name);
	t->cart = 1;
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &t->comm);
	for (int r = 0; r < n; r++) {
		int c0 = r / dims[1], c1 = r % dims[1];
		int nb[4] = { c0 > 0 ? r - dims[1] : MPI_PROC_NULL,
			      c0 < dims[0] - 1 ? r + dims[1] : MPI_PROC_NULL,
			      c1 > 0 ? r - 1 : MPI_PROC_NULL,
			      c1 < dims[1] - 1 ? r + 1 : MPI_PROC_NULL };

		topo_set(t, r, 4, nb, 4, nb);
	}
	for (int d = 0; d < 2; d++) {
		MPI_Cart_shift(t->comm, d, 1, &src, &dst);
		mtest_check(src == t->in[t->me][2 * d] && dst == t->in[t->me][2 * d + 1],
			    "%s: shift in %d gives %d and %d, expected %d and %d", t->name, d, src,
			    dst, t->in[t->me][2 * d], t->in[t->me][2 * d + 1]);
	}
	topo_match(t);
}

/* a path over ranks 0..m-1, edges from 0 to every odd rank from 3 on, a
 * self loop at m/2; m = n, but from 5 ranks on the last rank has no
 * edges. Odd ranks list their neighbours in reverse. */
static void make_graph(struct topo *t)
{
	int n = mtest_size, m = n >= 5 ? n - 1 : n, ne = 0, nn, *index, *edges, *got;
	int *ea = coll_iarr(2L * n + 2), *eb = coll_iarr(2L * n + 2), *deg = coll_iarr(n), **adj;

	topo_init(t, "irregular graph");
	for (int i = 0; i + 1 < m; i++)
		ea[ne] = i, eb[ne++] = i + 1;
	for (int k = 3; k < m; k += 2)
		ea[ne] = 0, eb[ne++] = k;
	ea[ne] = m / 2, eb[ne++] = m / 2;
	adj = mtest_malloc(n * sizeof(int *));
	for (int r = 0; r < n; r++) {
		adj[r] = coll_iarr(2L * ne);
		deg[r] = 0;
	}
	for (int e = 0; e < ne; e++) {
		adj[ea[e]][deg[ea[e]]++] = eb[e];
		if (ea[e] != eb[e])
			adj[eb[e]][deg[eb[e]]++] = ea[e];
	}
	index = coll_iarr(n);
	edges = coll_iarr(2L * ne);
	nn = 0;
	for (int r = 0; r < n; r++) {
		if (r % 2)
			for (int a = 0, b = deg[r] - 1; a < b; a++, b--) {
				int x = adj[r][a];

				adj[r][a] = adj[r][b];
				adj[r][b] = x;
			}
		topo_set(t, r, deg[r], adj[r], deg[r], adj[r]);
		for (int i = 0; i < deg[r]; i++)
			edges[nn++] = adj[r][i];
		index[r] = nn;
	}
	MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &t->comm);
	MPI_Graph_neighbors_count(t->comm, t->me, &nn);
	if (mtest_check(nn == deg[t->me], "%s: %d neighbours, expected %d", t->name, nn,
			deg[t->me])) {
		got = coll_iarr(nn);
		MPI_Graph_neighbors(t->comm, t->me, nn, got);
		check_list(t, "neighbour", got, adj[t->me], nn);
		free(got);
	}
	topo_match(t);
	for (int r = 0; r < n; r++)
		free(adj[r]);
	free(adj), free(ea), free(eb), free(deg), free(index), free(edges);
}

/* unless strict, an edge already there is not added again */
static void add_edge(int *ea, int *eb, int *ne, int a, int b)
{
	for (int e = 0; !strict && e < *ne; e++)
		if (ea[e] == a && eb[e] == b)
			return;
	ea[*ne] = a;
	eb[(*ne)++] = b;
}

/* directed edges: a path r -> r+1, every even rank -> r+2 (mod n), and
 * n-1 -> 0 twice (at 1 rank 0 -> 0 three times); destinations in edge
 * order, sources in reverse; edge e has weight e + 1 */
static void make_dist(struct topo *t)
{
	int n = mtest_size, ne = 0, me = mtest_rank, nin, nout, w, *got[4], *wt[2];
	int *ea = coll_iarr(2L * n + 2), *eb = coll_iarr(2L * n + 2), *in = coll_iarr(2L * n + 2),
	    *out = coll_iarr(2L * n + 2);

	topo_init(t, "distributed graph");
	for (int r = 0; r + 1 < n; r++)
		add_edge(ea, eb, &ne, r, r + 1);
	for (int r = 0; r < n; r += 2)
		add_edge(ea, eb, &ne, r, (r + 2) % n);
	for (int x = 0; x < 2; x++)
		add_edge(ea, eb, &ne, n - 1, 0);
	wt[0] = coll_iarr(ne), wt[1] = coll_iarr(ne);
	for (int r = 0; r < n; r++) {
		nin = nout = 0;
		for (int e = 0; e < ne; e++)
			if (ea[e] == r) {
				if (r == me)
					wt[1][nout] = e + 1;
				out[nout++] = eb[e];
			}
		for (int e = ne - 1; e >= 0; e--)
			if (eb[e] == r) {
				if (r == me)
					wt[0][nin] = e + 1;
				in[nin++] = ea[e];
			}
		topo_set(t, r, nin, in, nout, out);
	}
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t->indeg[me], t->in[me], wt[0],
				       t->outdeg[me], t->out[me], wt[1], MPI_INFO_NULL, 0, &t->comm);
	MPI_Dist_graph_neighbors_count(t->comm, &nin, &nout, &w);
	if (mtest_check(nin == t->indeg[me] && nout == t->outdeg[me] && w,
			"%s: degrees %d in, %d out, weighted %d, expected %d, %d and 1", t->name,
			nin, nout, w, t->indeg[me], t->outdeg[me])) {
		for (int x = 0; x < 4; x++)
			got[x] = coll_iarr(x % 2 ? nout : nin);
		MPI_Dist_graph_neighbors(t->comm, nin, got[0], got[2], nout, got[1], got[3]);
		check_list(t, "source", got[0], t->in[me], nin);
		check_list(t, "destination", got[1], t->out[me], nout);
		check_list(t, "source weight", got[2], wt[0], nin);
		check_list(t, "destination weight", got[3], wt[1], nout);
		for (int x = 0; x < 4; x++)
			free(got[x]);
	}
	topo_match(t);
	free(ea), free(eb), free(in), free(out), free(wt[0]), free(wt[1]);
}

/* ---- one call: buffers, start, local check ------------------------------ */

/* element i of send block blk (-1: the allgathers' one block) of rank
 * `from`, different per call */
static int val(int from, int blk, long i, int seed)
{
	return coll_hval(from, blk + 1, i, seed);
}

/* ints rank s sends in Neighbor_allgatherv */
static int agv_count(int cnt, int s)
{
	return ((s + 1) % 3) * cnt / 2;
}

/* ints rank s sends as its send block b in Neighbor_alltoallv/w */
static int a2av_count(int cnt, int s, int b)
{
	return ((s + 2 * b + 1) % 3) * cnt / 2;
}

struct job {
	/* set by mkjob and the caller */
	int k, cnt, sl, rl, mode, seed;
	struct topo *t;
	const char *done;
	/* set by job_setup */
	int me, nin, nout;
	MPI_Datatype sdt, rdt;		/* uniform kinds */
	int scount, rcount, sstr, rstr;
	long sext, rext;
	int *sc, *sd, *rc, *rd;		/* per block, in ints (v and w kinds) */
	int *sstrs, *rstrs;		/* per block strides (w) */
	int *wsc, *wrc;
	MPI_Aint *wsd, *wrd;
	MPI_Datatype *st, *rt;
	int *s, *r, *s0, *r0;
	long ss, rs;
	MPI_Request req;
};

static int next_seed = 1, next_mode;

static struct job mkjob(struct topo *t, int k, int cnt, int blocking)
{
	struct job j;

	memset(&j, 0, sizeof(j));
	j.t = t;
	j.k = k;
	j.cnt = cnt;
	j.sl = j.rl = L_INT;
	j.seed = next_seed++;	/* same on every rank: mkjob runs in the same order */
	j.mode = blocking ? M_BLOCKING : M_WAIT + next_mode++ % (NMODES - 1);
	return j;
}

static const char *desc(const struct job *j)
{
	static char buf[400];
	int at;

	at = snprintf(buf, sizeof(buf), "%s on the %s, count %d",
		      j->mode == M_BLOCKING ? bnames[j->k] : nbnames[j->k], j->t->name, j->cnt);
	if (j->sl != L_INT || j->rl != L_INT)
		at += snprintf(buf + at, sizeof(buf) - at, ", %s to %s",
			       j->sl == L_VEC ? "vector" : "MPI_INT",
			       j->rl == L_VEC ? "vector" : "MPI_INT");
	if (j->mode != M_BLOCKING)
		snprintf(buf + at, sizeof(buf) - at, ", %s", j->done ? j->done : mode_names[j->mode]);
	return buf;
}

/* a uniform block of cnt ints: MPI_INT x cnt or one vector with stride 2 */
static void lay_make(int which, int cnt, MPI_Datatype *dt, int *count, int *stride, long *ext)
{
	*dt = MPI_INT;
	*count = cnt;
	*stride = 1;
	*ext = cnt;
	if (which == L_INT)
		return;
	MPI_Type_vector(cnt, 1, 2, MPI_INT, dt);
	MPI_Type_commit(dt);
	*count = 1;
	*stride = 2;
	*ext = cnt ? 2L * cnt - 1 : 0;
}

static void fillblk(int *p, int stride, int cnt, int from, int blk, int seed)
{
	for (long i = 0; i < cnt; i++)
		p[i * stride] = val(from, blk, i, seed);
}

/* ints a block of c elements with this stride covers */
static long span(int c, int stride)
{
	return c ? (long)stride * (c - 1) + 1 : 0;
}

/* blocks in reverse order with GAP ints before each; returns the total */
static long rev_layout(int nb, const int *c, const int *stride, int *d)
{
	long at = 0;

	for (int b = nb - 1; b >= 0; b--) {
		at += GAP;
		d[b] = (int)at;
		at += span(c[b], stride ? stride[b] : 1);
	}
	return at + GAP;
}

/* what my receive slot i holds when the call is done: count and block */
static int slot_count(const struct job *j, int i)
{
	int s = j->t->ssrc[i];

	if (s == MPI_PROC_NULL)
		return j->cnt;	/* anything: nothing arrives */
	switch (j->k) {
	case K_AGV:
		return agv_count(j->cnt, s);
	case K_A2AV:
	case K_A2AW:
		return a2av_count(j->cnt, s, j->t->sblk[i]);
	default:
		return j->cnt;
	}
}

static void w_types(struct job *j)
{
	int nin = j->nin, nout = j->nout, me = j->me;

	j->st = mtest_malloc((nout + 1) * sizeof(MPI_Datatype));
	j->rt = mtest_malloc((nin + 1) * sizeof(MPI_Datatype));
	j->wsc = coll_iarr(nout), j->wrc = coll_iarr(nin);
	j->sstrs = coll_iarr(nout), j->rstrs = coll_iarr(nin);
	j->wsd = mtest_malloc((nout + 1) * sizeof(MPI_Aint));
	j->wrd = mtest_malloc((nin + 1) * sizeof(MPI_Aint));
	/* send block b: contiguous, MPI_INT or vector with stride 2 */
	for (int b = 0; b < nout; b++) {
		int c = j->sc[b];

		j->st[b] = MPI_INT;
		j->wsc[b] = c;
		j->sstrs[b] = 1;
		if (c && b % 3 == 0) {
			MPI_Type_contiguous(c, MPI_INT, &j->st[b]);
			j->wsc[b] = 1;
		} else if (c && b % 3 == 2) {
			MPI_Type_vector(c, 1, 2, MPI_INT, &j->st[b]);
			j->wsc[b] = 1;
			j->sstrs[b] = 2;
		}
		if (j->st[b] != MPI_INT)
			MPI_Type_commit(&j->st[b]);
	}
	/* receive slot i: MPI_INT, vector with stride 3, or c ints resized
	 * to an extent of two */
	for (int i = 0; i < nin; i++) {
		int c = j->rc[i];
		MPI_Datatype tmp;

		j->rt[i] = MPI_INT;
		j->wrc[i] = c;
		j->rstrs[i] = 1;
		if (c && (i + me) % 3 == 1) {
			MPI_Type_vector(c, 1, 3, MPI_INT, &j->rt[i]);
			j->wrc[i] = 1;
			j->rstrs[i] = 3;
		} else if (c && (i + me) % 3 == 2) {
			MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &tmp);
			j->rt[i] = tmp;
			j->rstrs[i] = 2;
		}
		if (j->rt[i] != MPI_INT)
			MPI_Type_commit(&j->rt[i]);
	}
}

static void job_setup(struct job *j)
{
	struct topo *t = j->t;
	int me = t->me, nin, nout, cnt = j->cnt, seed = j->seed;

	j->me = me;
	j->nin = nin = t->indeg[me];
	j->nout = nout = t->outdeg[me];
	j->req = MPI_REQUEST_NULL;
	j->sdt = j->rdt = MPI_INT;
	switch (j->k) {
	case K_AG:
	case K_A2A:
		lay_make(j->sl, cnt, &j->sdt, &j->scount, &j->sstr, &j->sext);
		lay_make(j->rl, cnt, &j->rdt, &j->rcount, &j->rstr, &j->rext);
		j->ss = j->k == K_AG ? j->sext : nout * j->sext;
		j->rs = nin * j->rext;
		j->s = coll_ibuf(j->ss);
		j->r = coll_ibuf(j->rs);
		if (j->k == K_AG)
			fillblk(j->s, j->sstr, cnt, me, -1, seed);
		else
			for (int b = 0; b < nout; b++)
				fillblk(j->s + b * j->sext, j->sstr, cnt, me, b, seed);
		break;
	case K_AGV:
	case K_A2AV:
	case K_A2AW:
		j->sc = coll_iarr(nout), j->sd = coll_iarr(nout), j->rc = coll_iarr(nin), j->rd = coll_iarr(nin);
		for (int b = 0; b < nout; b++)
			j->sc[b] = j->k == K_AGV ? agv_count(cnt, me) : a2av_count(cnt, me, b);
		for (int i = 0; i < nin; i++)
			j->rc[i] = slot_count(j, i);
		if (j->k == K_A2AW)
			w_types(j);
		if (j->k == K_AGV) {
			j->ss = agv_count(cnt, me);
			j->sd[0] = 0;
		} else {
			j->ss = rev_layout(nout, j->sc, j->sstrs, j->sd);
		}
		j->rs = rev_layout(nin, j->rc, j->rstrs, j->rd);
		j->s = coll_ibuf(j->ss);
		j->r = coll_ibuf(j->rs);
		if (j->k == K_AGV)
			fillblk(j->s, 1, (int)j->ss, me, -1, seed);
		else
			for (int b = 0; b < nout; b++)
				fillblk(j->s + j->sd[b], j->sstrs ? j->sstrs[b] : 1, j->sc[b], me, b,
					seed);
		if (j->k == K_A2AW) {
			for (int b = 0; b < nout; b++)
				j->wsd[b] = (MPI_Aint)j->sd[b] * (MPI_Aint)sizeof(int);
			for (int i = 0; i < nin; i++)
				j->wrd[i] = (MPI_Aint)j->rd[i] * (MPI_Aint)sizeof(int);
		}
		break;
	}
	j->s0 = coll_dup_ints(j->s, j->ss);
	j->r0 = coll_dup_ints(j->r, j->rs);
}

/* the blocking or the nonblocking form, with the same arguments */
#define NCOLL(F, ...)                                                         \
	(j->mode == M_BLOCKING ? MPI_Neighbor_##F(__VA_ARGS__)               \
			       : MPI_Ineighbor_##F(__VA_ARGS__, &j->req))

static void job_start(struct job *j)
{
	int rc = MPI_SUCCESS;
	MPI_Comm c = j->t->comm;
	int *s = j->s, *r = j->r;

	switch (j->k) {
	case K_AG:
		rc = NCOLL(allgather, s, j->scount, j->sdt, r, j->rcount, j->rdt, c);
		break;
	case K_AGV:
		rc = NCOLL(allgatherv, s, (int)j->ss, MPI_INT, r, j->rc, j->rd, MPI_INT, c);
		break;
	case K_A2A:
		rc = NCOLL(alltoall, s, j->scount, j->sdt, r, j->rcount, j->rdt, c);
		break;
	case K_A2AV:
		rc = NCOLL(alltoallv, s, j->sc, j->sd, MPI_INT, r, j->rc, j->rd, MPI_INT, c);
		break;
	case K_A2AW:
		rc = NCOLL(alltoallw, s, j->wsc, j->wsd, j->st, r, j->wrc, j->wrd, j->rt, c);
		break;
	}
	mtest_check(rc == MPI_SUCCESS, "%s: returned %d", desc(j), rc);
	if (j->mode == M_BLOCKING)
		mtest_check(j->req == MPI_REQUEST_NULL, "%s: request set by a blocking call", desc(j));
	else
		mtest_check(j->req != MPI_REQUEST_NULL, "%s: no request returned", desc(j));
}

/* the receive buffer must hold what the topology says, everything else
 * (gaps, slots of MPI_PROC_NULL) as it was; the send buffer as it was */
static void job_check(struct job *j)
{
	const struct topo *t = j->t;
	int *e = coll_dup_ints(j->r0, j->rs), *slot = coll_ibuf(j->rs);

	for (int i = 0; i < j->nin; i++) {
		int s = t->ssrc[i], blk, off, stride, c = slot_count(j, i);

		if (j->k == K_AG || j->k == K_A2A) {
			off = (int)(i * j->rext);
			stride = j->rstr;
		} else {
			off = j->rd[i];
			stride = j->rstrs ? j->rstrs[i] : 1;
		}
		for (long x = 0; x < c; x++)
			slot[off + x * stride] = i;
		if (s == MPI_PROC_NULL)
			continue;
		blk = j->k == K_AG || j->k == K_AGV ? -1 : t->sblk[i];
		fillblk(e + off, stride, c, s, blk, j->seed);
	}
	for (long x = 0; x < j->rs; x++) {
		if (j->r[x] != e[x]) {
			int i = slot[x];

			if (i < 0)
				mtest_error("%s: receive buffer int %ld (in no block) is %d, expected "
					    "it untouched", desc(j), x, j->r[x]);
			else if (t->ssrc[i] == MPI_PROC_NULL)
				mtest_error("%s: receive block %d (from MPI_PROC_NULL) int %ld is %d, "
					    "expected it untouched", desc(j), i, x, j->r[x]);
			else
				mtest_error("%s: receive block %d (from rank %d, its block %d) int "
					    "%ld is %d, expected %d", desc(j), i, t->ssrc[i],
					    t->sblk[i], x, j->r[x], e[x]);
			break;
		}
	}
	coll_check_sendbuf(j->s, j->s0, j->ss, desc(j));
	free(e);
	free(slot);
}

static void job_free(struct job *j)
{
	if (j->sdt != MPI_INT)
		MPI_Type_free(&j->sdt);
	if (j->rdt != MPI_INT)
		MPI_Type_free(&j->rdt);
	for (int b = 0; j->st && b < j->nout; b++)
		if (j->st[b] != MPI_INT)
			MPI_Type_free(&j->st[b]);
	for (int i = 0; j->rt && i < j->nin; i++)
		if (j->rt[i] != MPI_INT)
			MPI_Type_free(&j->rt[i]);
	free(j->s), free(j->r), free(j->s0), free(j->r0);
	free(j->sc), free(j->sd), free(j->rc), free(j->rd);
	free(j->sstrs), free(j->rstrs), free(j->wsc), free(j->wrc), free(j->wsd), free(j->wrd);
	free(j->st), free(j->rt);
}

static void complete(struct job *j)
{
	if (j->mode == M_BLOCKING)
		return;
	coll_complete(&j->req, j->mode == M_WAIT ? COLL_WAIT : j->mode == M_TEST ? COLL_TEST :
			       COLL_WAITALL, desc(j));
}

/* not strict (see the top comment): the alltoalls on the 1-D periodic
 * ring of 1 or 2 ranks, and alltoallw on the distributed graph */
static int skipped(const struct job *j)
{
	if (strict)
		return 0;
	if (j->t == &topos[0] && j->t->n <= 2)
		return j->k != K_AG && j->k != K_AGV;
	return j->t == &topos[3] && j->k == K_A2AW;
}

static void run(struct job j)
{
	if (skipped(&j))
		return;
	job_setup(&j);
	job_start(&j);
	complete(&j);
	job_check(&j);
	job_free(&j);
}

/* all nonblocking, outstanding together: one MPI_Waitall, or (test) a
 * bounded MPI_Testall loop */
static void run_many(struct job *js, int nj, int test)
{
	MPI_Request reqs[MAXJ];
	MPI_Status sts[MAXJ];
	int flag = 0;
	double t0;
	int kept = 0;

	for (int i = 0; i < nj; i++)
		if (!skipped(&js[i]))
			js[kept++] = js[i];
	nj = kept;
	for (int i = 0; i < nj; i++) {
		js[i].done = test ? "outstanding together, MPI_Testall loop"
				  : "outstanding together, one MPI_Waitall";
		job_setup(&js[i]);
	}
	for (int i = 0; i < nj; i++) {
		job_start(&js[i]);
		reqs[i] = js[i].req;
	}
	if (test) {
		t0 = MPI_Wtime();
		while (MPI_Testall(nj, reqs, &flag, sts), !flag)
			if (MPI_Wtime() - t0 > COLL_TEST_LIMIT_S)
				coll_too_long(desc(&js[0]));
	} else {
		MPI_Waitall(nj, reqs, sts);
	}
	for (int i = 0; i < nj; i++) {
		mtest_check(reqs[i] == MPI_REQUEST_NULL, "%s: request not MPI_REQUEST_NULL when "
			    "complete", desc(&js[i]));
		job_check(&js[i]);
		job_free(&js[i]);
	}
}

/* ---- the tests ----------------------------------------------------------- */

/* every kind, every count, every topology, blocking and not */
static void test_sweep(void)
{
	for (int t = 0; t < NTOPOS; t++)
		for (int c = 0; c < NCOUNTS; c++)
			for (int k = 0; k < NKINDS; k++)
				for (int b = 1; b >= 0; b--)
					run(mkjob(&topos[t], k, counts[c], b));
}

/* a vector type on the receive side of allgather, on the send side of
 * alltoall */
static void test_vector(void)
{
	for (int t = 0; t < NTOPOS; t++)
		for (int c = 2; c < NCOUNTS; c++)
			for (int b = 1; b >= 0; b--) {
				struct job j = mkjob(&topos[t], K_AG, counts[c], b);

				j.rl = L_VEC;
				run(j);
				j = mkjob(&topos[t], K_A2A, counts[c], b);
				j.sl = L_VEC;
				run(j);
			}
}

/* the five kinds outstanding together on each topology, then two kinds
 * on all four topologies at once */
static void test_outstanding(void)
{
	struct job js[MAXJ];
	int nj;

	for (int t = 0; t < NTOPOS; t++) {
		for (int k = 0; k < NKINDS; k++)
			js[k] = mkjob(&topos[t], k, t % 2 ? 5 : BIG, 0);
		js[NKINDS] = mkjob(&topos[t], K_A2A, 1, 0);	/* the same kind twice */
		run_many(js, NKINDS + 1, t % 2);
	}
	nj = 0;
	for (int t = 0; t < NTOPOS; t++) {
		js[nj++] = mkjob(&topos[t], K_A2AW, 5, 0);
		js[nj++] = mkjob(&topos[t], K_AGV, BIG, 0);
	}
	run_many(js, nj, 0);
}

/* MPI says a neighbourhood collective needs a topology, but not which
 * error class (MPICH 4.0 mostly says MPI_ERR_TOPOLOGY, Open MPI 4.1 other
 * classes), so this runs on Michi only */
static void test_errors(void)
{
	int a[4] = { 1, 2, 3, 4 }, b[4], one[1] = { 1 }, zero[1] = { 0 }, rc;
	MPI_Request req = MPI_REQUEST_NULL;
	MPI_Comm dup;

	if (!mtest_is_michi())
		return;
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	rc = MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
	mtest_check(mtest_errclass(rc) == MPI_ERR_TOPOLOGY, "MPI_Neighbor_allgather on "
		    "MPI_COMM_WORLD: class %d, expected MPI_ERR_TOPOLOGY", mtest_errclass(rc));
	rc = MPI_Ineighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, dup, &req);
	mtest_check(mtest_errclass(rc) == MPI_ERR_TOPOLOGY, "MPI_Ineighbor_alltoall on a dup of "
		    "MPI_COMM_WORLD: class %d, expected MPI_ERR_TOPOLOGY", mtest_errclass(rc));
	mtest_check(req == MPI_REQUEST_NULL, "MPI_Ineighbor_alltoall failed but set a request");
	rc = MPI_Neighbor_alltoallv(a, one, zero, MPI_INT, b, one, zero, MPI_INT, MPI_COMM_SELF);
	mtest_check(mtest_errclass(rc) == MPI_ERR_TOPOLOGY, "MPI_Neighbor_alltoallv on "
		    "MPI_COMM_SELF: class %d, expected MPI_ERR_TOPOLOGY", mtest_errclass(rc));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	MPI_Comm_free(&dup);
	/* still usable */
	run(mkjob(&topos[0], K_A2A, 5, 0));
	run(mkjob(&topos[3], K_AGV, 5, 1));
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	strict = mtest_is_michi() || getenv("COLL_NEIGHBOR_STRICT");
	make_cart1(&topos[0]);
	make_cart2(&topos[1]);
	make_graph(&topos[2]);
	make_dist(&topos[3]);

	test_sweep();
	test_vector();
	test_outstanding();
	test_errors();

	for (int t = 0; t < NTOPOS; t++)
		topo_free(&topos[t]);
	return mtest_finalize();
}
