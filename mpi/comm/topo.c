/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/topo.c: virtual topologies: Cartesian grids, graphs and distributed
 * graphs (MPI-3.1 chapter 7), and MPI_Dims_create.
 *
 * A topology is one malloc block hung on its communicator (freed and
 * copied with it): a kind and an array of ints whose layout the kind
 * decides. Constructors make the communicator with michi_comm_split
 * (ranks past the topology's size get MPI_COMM_NULL; `reorder` keeps the
 * identity mapping, which MPI allows) and attach the block. A
 * distributed graph built with MPI_Dist_graph_create learns each rank's
 * neighbours with one alltoall of counts and one alltoallv of edges.
 */
#include "mpiimpl.h"
#include "coll.h"

#include <stdlib.h>
#include <string.h>

struct michi_topo {
	int kind;             /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
	size_t bytes;         /* of the whole block */
	int n[4];             /* cart: ndims; graph: nnodes, nedges;
			       * dist: indegree, outdegree, weighted */
	int v[];              /* cart: dims, periods, my coords;
			       * graph: index, edges;
			       * dist: sources, sweights, dests, dweights */
};

static struct michi_topo *topo_new(int kind, size_t nints)
{
	size_t bytes = sizeof(struct michi_topo) + nints * sizeof(int);
	struct michi_topo *t = calloc(1, bytes);

	if (t) {
		t->kind = kind;
		t->bytes = bytes;
	}
	return t;
}

struct michi_topo *michi_topo_dup(const struct michi_topo *t)
{
	struct michi_topo *d = malloc(t->bytes);

	if (d)
		memcpy(d, t, t->bytes);
	return d;
}

/* The communicator and its topology of the given kind (0: any). */
static int topo_arg(const char *fname, MPI_Comm comm, int kind, struct michi_comm **c)
{
	MICHI_CHECK_INIT(fname);
	*c = michi_comm_get(comm);
	if (ERRCHK && unlikely(!*c))
		return michi_check_comm_slow(comm, fname);
	if (kind && (!(*c)->topo || (*c)->topo->kind != kind))
		return michi_mpi_err(*c, MPI_ERR_TOPOLOGY, fname,
				     "(comm): has no %s topology",
				     kind == MPI_CART ? "Cartesian" : kind == MPI_GRAPH ? "graph"
								       : "distributed graph");
	return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
	struct michi_comm *c;
	int err;

	if ((err = topo_arg("MPI_Topo_test", comm, 0, &c)))
		return err;
	if (ERRCHK && !status)
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Topo_test", "(status=NULL): NULL pointer");
	*status = c->topo ? c->topo->kind : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

/* ---- Cartesian ---------------------------------------------------------- */

#define CART_DIMS(t) ((t)->v)
#define CART_PERIODS(t) ((t)->v + (t)->n[0])
#define CART_COORDS(t) ((t)->v + 2 * (t)->n[0])

static void cart_coords(const struct michi_topo *t, int rank, int *coords)
{
	int d;

	for (d = t->n[0] - 1; d >= 0; d--) {
		coords[d] = rank % CART_DIMS(t)[d];
		rank /= CART_DIMS(t)[d];
	}
}

/* Product of dims, or -1 when one is not positive or it overflows. */
static long dims_product(int ndims, const int dims[])
{
	long p = 1;
	int d;

	for (d = 0; d < ndims; d++) {
		if (dims[d] <= 0 || p > (1L << 40) / dims[d])
			return -1;
		p *= dims[d];
	}
	return p;
}

/* Attach a Cartesian topology to the communicator that split made. */
static int cart_attach(MPI_Comm h, int ndims, const int dims[], const int periods[])
{
	struct michi_comm *n = michi_comm_get(h);
	struct michi_topo *t = topo_new(MPI_CART, (size_t)(3 * ndims) + 1);
	int d;

	if (!t)
		return -1;
	t->n[0] = ndims;
	for (d = 0; d < ndims; d++) {
		CART_DIMS(t)[d] = dims[d];
		CART_PERIODS(t)[d] = periods && periods[d] ? 1 : 0;
	}
	cart_coords(t, n->rank, CART_COORDS(t));
	n->topo = t;
	return 0;
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
		     int reorder, MPI_Comm *comm_cart)
{
	struct michi_comm *c;
	long nnodes;
	int err;

	(void)reorder;
	if ((err = topo_arg("MPI_Cart_create", comm_old, 0, &c)))
		return err;
	if (ERRCHK && (!comm_cart || ndims < 0 || (ndims > 0 && (!dims || !periods))))
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Cart_create",
				     "(ndims=%d): negative, or NULL dims, periods or comm_cart", ndims);
	nnodes = dims_product(ndims, dims);
	if (nnodes < 0 || nnodes > c->size)
		return michi_mpi_err(c, MPI_ERR_DIMS, "MPI_Cart_create",
				     "(dims): %s (communicator of %d)", nnodes < 0 ?
				     "a dimension is not positive" : "the grid has more ranks than",
				     c->size);
	err = michi_comm_split("MPI_Cart_create", c, c->rank < nnodes ? 0 : MPI_UNDEFINED,
			       c->rank, comm_cart);
	if (err || *comm_cart == MPI_COMM_NULL)
		return err;
	if (cart_attach(*comm_cart, ndims, dims, periods) < 0) {
		PMPI_Comm_free(comm_cart);
		return michi_mpi_err(c, MPI_ERR_NO_MEM, "MPI_Cart_create", "(): no memory");
	}
	return MPI_SUCCESS;
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
	struct michi_comm *c;
	int err;

	if ((err = topo_arg("MPI_Cartdim_get", comm, MPI_CART, &c)))
		return err;
	if (ERRCHK && !ndims)
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Cartdim_get", "(ndims=NULL): NULL pointer");
	*ndims = c->topo->n[0];
	return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
	struct michi_comm *c;
	int err, d;

	if ((err = topo_arg("MPI_Cart_get", comm, MPI_CART, &c)))
		return err;
	for (d = 0; d < maxdims && d < c->topo->n[0]; d++) {
		dims[d] = CART_DIMS(c->topo)[d];
		periods[d] = CART_PERIODS(c->topo)[d];
		coords[d] = CART_COORDS(c->topo)[d];
	}
	return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
	struct michi_comm *c;
	struct michi_topo *t;
	int err, d, r = 0;

	if ((err = topo_arg("MPI_Cart_rank", comm, MPI_CART, &c)))
		return err;
	if (ERRCHK && (!rank || (c->topo->n[0] > 0 && !coords)))
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Cart_rank", "(): NULL coords or rank");
	t = c->topo;
	for (d = 0; d < t->n[0]; d++) {
		int x = coords[d], dim = CART_DIMS(t)[d];

		if (CART_PERIODS(t)[d])
			x = ((x % dim) + dim) % dim;
		else if (x < 0 || x >= dim)
			return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Cart_rank",
					     "(coords[%d]=%d): outside the non-periodic dimension "
					     "of %d", d, coords[d], dim);
		r = r * dim + x;
	}
	*rank = r;
	return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
	struct michi_comm *c;
	int err, all[64], *out = all;

	if ((err = topo_arg("MPI_Cart_coords", comm, MPI_CART, &c)))
		return err;
	if ((unsigned)rank >= (unsigned)c->size)
		return michi_mpi_err(c, MPI_ERR_RANK, "MPI_Cart_coords",
				     "(rank=%d): communicator has %d ranks", rank, c->size);
	if (ERRCHK && (maxdims < c->topo->n[0] || (maxdims > 0 && !coords)))
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Cart_coords",
				     "(maxdims=%d): the grid has %d dimensions", maxdims,
				     c->topo->n[0]);
	if (c->topo->n[0] > 64 && !(out = malloc((size_t)c->topo->n[0] * sizeof(int))))
		return michi_mpi_err(c, MPI_ERR_NO_MEM, "MPI_Cart_coords", "(): no memory");
	cart_coords(c->topo, rank, out);
	memcpy(coords, out, (size_t)c->topo->n[0] * sizeof(int));
	if (out != all)
		free(out);
	return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
	struct michi_comm *c;
	struct michi_topo *t;
	int err, d, dim, mine, x, r[2], k;

	if ((err = topo_arg("MPI_Cart_shift", comm, MPI_CART, &c)))
		return err;
	t = c->topo;
	if ((unsigned)direction >= (unsigned)t->n[0])
		return michi_mpi_err(c, MPI_ERR_DIMS, "MPI_Cart_shift",
				     "(direction=%d): the grid has %d dimensions", direction,
				     t->n[0]);
	if (ERRCHK && (!rank_source || !rank_dest))
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Cart_shift", "(): NULL output pointer");
	dim = CART_DIMS(t)[direction];
	mine = CART_COORDS(t)[direction];
	for (k = 0; k < 2; k++) {
		x = mine + (k ? disp : -disp);
		if (CART_PERIODS(t)[direction])
			x = ((x % dim) + dim) % dim;
		if (x < 0 || x >= dim) {
			r[k] = MPI_PROC_NULL;
			continue;
		}
		r[k] = 0;
		for (d = 0; d < t->n[0]; d++)
			r[k] = r[k] * CART_DIMS(t)[d] + (d == direction ? x : CART_COORDS(t)[d]);
	}
	*rank_source = r[0];
	*rank_dest = r[1];
	return MPI_SUCCESS;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
	struct michi_comm *c;
	struct michi_topo *t;
	int err, d, color = 0, key = 0, nd = 0, dims[64], periods[64];

	if ((err = topo_arg("MPI_Cart_sub", comm, MPI_CART, &c)))
		return err;
	t = c->topo;
	if (ERRCHK && (!newcomm || (t->n[0] > 0 && !remain_dims)))
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Cart_sub", "(): NULL argument");
	if (t->n[0] > 64)
		return michi_mpi_err(c, MPI_ERR_DIMS, "MPI_Cart_sub",
				     "(): grids of more than 64 dimensions are not supported");
	/* same coordinates in the dropped dimensions: same subgrid */
	for (d = 0; d < t->n[0]; d++) {
		if (remain_dims[d]) {
			key = key * CART_DIMS(t)[d] + CART_COORDS(t)[d];
			dims[nd] = CART_DIMS(t)[d];
			periods[nd++] = CART_PERIODS(t)[d];
		} else {
			color = color * CART_DIMS(t)[d] + CART_COORDS(t)[d];
		}
	}
	/* all dimensions dropped: a 0-dimensional grid has one process, the
	 * one at the origin; the others get MPI_COMM_NULL (as in MPICH) */
	if (nd == 0 && color != 0)
		color = MPI_UNDEFINED;
	err = michi_comm_split("MPI_Cart_sub", c, color, key, newcomm);
	if (err || *newcomm == MPI_COMM_NULL)
		return err;
	if (nd == 0) {
		/* all dimensions dropped: a 0-dimensional grid of one rank */
		dims[0] = 1;
		periods[0] = 0;
	}
	if (cart_attach(*newcomm, nd, dims, periods) < 0) {
		PMPI_Comm_free(newcomm);
		return michi_mpi_err(c, MPI_ERR_NO_MEM, "MPI_Cart_sub", "(): no memory");
	}
	return MPI_SUCCESS;
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
	struct michi_comm *c;
	long nnodes;
	int err;

	(void)periods;
	if ((err = topo_arg("MPI_Cart_map", comm, 0, &c)))
		return err;
	nnodes = dims_product(ndims, dims);
	if (nnodes < 0 || nnodes > c->size)
		return michi_mpi_err(c, MPI_ERR_DIMS, "MPI_Cart_map", "(dims): not a grid of at most %d",
				     c->size);
	*newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

/*
 * Balanced dimensions (MPI-3.1 7.5.2): the free dimensions (0 on entry)
 * share nnodes / (product of the fixed ones) as evenly as possible, in
 * non-increasing order. Prime factors, largest first, each go to the
 * currently smallest free dimension.
 */
/* n as k factors of at most cap, in non-increasing order into out: the
 * list whose largest factor is smallest, then whose next is, and so on.
 * The first factor is the smallest divisor whose k-th power reaches n
 * and for which the rest splits under it. Returns 0 when none does. */
static int dims_best(int n, int k, int cap, int *out)
{
	int d;

	if (k == 1) {
		out[0] = n;
		return n <= cap;
	}
	for (d = 1; d <= cap && d <= n; d++) {
		long pw = 1;
		int i;

		if (n % d)
			continue;
		for (i = 0; i < k && pw < n; i++)
			pw *= d;
		if (pw < n)
			continue;   /* d is below the k-th root: the rest cannot fit */
		if (dims_best(n / d, k - 1, d, out + 1)) {
			out[0] = d;
			return 1;
		}
	}
	return 0;
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
	int d, nfree = 0, rest, *free_at, k;
	long fixed = 1;

	if (nnodes < 0 || ndims < 0 || (ndims > 0 && !dims))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Dims_create",
				     "(nnodes=%d, ndims=%d): negative, or NULL dims", nnodes, ndims);
	for (d = 0; d < ndims; d++) {
		if (dims[d] < 0)
			return michi_mpi_err(NULL, MPI_ERR_DIMS, "MPI_Dims_create",
					     "(dims[%d]=%d): negative", d, dims[d]);
		if (dims[d] > 0)
			fixed *= dims[d];
		else
			nfree++;
	}
	if ((nnodes == 0 && fixed != 0) || (fixed > 0 && nnodes % fixed))
		return michi_mpi_err(NULL, MPI_ERR_DIMS, "MPI_Dims_create",
				     "(nnodes=%d): not a multiple of the fixed dimensions' product %ld",
				     nnodes, fixed);
	if (nfree == 0) {
		if (fixed != nnodes)
			return michi_mpi_err(NULL, MPI_ERR_DIMS, "MPI_Dims_create",
					     "(nnodes=%d): the dimensions make %ld", nnodes, fixed);
		return MPI_SUCCESS;
	}
	rest = (int)(nnodes / fixed);
	free_at = malloc((size_t)nfree * sizeof(int));
	if (!free_at)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Dims_create", "(): no memory");
	/* as balanced as can be: the smallest largest factor, then the
	 * smallest next one, and so on (72 in 2 dimensions is 9 x 8) */
	dims_best(rest, nfree, rest, free_at);
	/* non-increasing order into the free places */
	for (d = 0; d < nfree; d++)
		for (k = d + 1; k < nfree; k++)
			if (free_at[k] > free_at[d]) {
				int x = free_at[d];

				free_at[d] = free_at[k];
				free_at[k] = x;
			}
	for (d = 0, k = 0; d < ndims; d++)
		if (dims[d] == 0)
			dims[d] = free_at[k++];
	free(free_at);
	return MPI_SUCCESS;
}

/* ---- graphs ------------------------------------------------------------- */

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[], const int edges[],
		      int reorder, MPI_Comm *comm_graph)
{
	struct michi_comm *c, *n;
	struct michi_topo *t;
	int err, i, nedges;

	(void)reorder;
	if ((err = topo_arg("MPI_Graph_create", comm_old, 0, &c)))
		return err;
	if (nnodes < 0 || nnodes > c->size || (nnodes > 0 && (!indx || !edges)) || !comm_graph)
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Graph_create",
				     "(nnodes=%d): outside 0..%d, or NULL arrays", nnodes, c->size);
	nedges = nnodes ? indx[nnodes - 1] : 0;
	for (i = 0; i < nnodes; i++)
		if (indx[i] < (i ? indx[i - 1] : 0))
			return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Graph_create",
					     "(indx[%d]=%d): decreasing", i, indx[i]);
	for (i = 0; i < nedges; i++)
		if ((unsigned)edges[i] >= (unsigned)nnodes)
			return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Graph_create",
					     "(edges[%d]=%d): not a node of %d", i, edges[i], nnodes);
	err = michi_comm_split("MPI_Graph_create", c, c->rank < nnodes ? 0 : MPI_UNDEFINED,
			       c->rank, comm_graph);
	if (err || *comm_graph == MPI_COMM_NULL)
		return err;
	n = michi_comm_get(*comm_graph);
	t = topo_new(MPI_GRAPH, (size_t)(nnodes + nedges));
	if (!t) {
		PMPI_Comm_free(comm_graph);
		return michi_mpi_err(c, MPI_ERR_NO_MEM, "MPI_Graph_create", "(): no memory");
	}
	t->n[0] = nnodes;
	t->n[1] = nedges;
	memcpy(t->v, indx, (size_t)nnodes * sizeof(int));
	memcpy(t->v + nnodes, edges, (size_t)nedges * sizeof(int));
	n->topo = t;
	return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
	struct michi_comm *c;
	int err;

	if ((err = topo_arg("MPI_Graphdims_get", comm, MPI_GRAPH, &c)))
		return err;
	*nnodes = c->topo->n[0];
	*nedges = c->topo->n[1];
	return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int indx[], int edges[])
{
	struct michi_comm *c;
	int err, i;

	if ((err = topo_arg("MPI_Graph_get", comm, MPI_GRAPH, &c)))
		return err;
	for (i = 0; i < maxindex && i < c->topo->n[0]; i++)
		indx[i] = c->topo->v[i];
	for (i = 0; i < maxedges && i < c->topo->n[1]; i++)
		edges[i] = c->topo->v[c->topo->n[0] + i];
	return MPI_SUCCESS;
}

static int graph_range(const struct michi_topo *t, int rank, int *first)
{
	*first = rank ? t->v[rank - 1] : 0;
	return t->v[rank] - *first;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
	struct michi_comm *c;
	int err, first;

	if ((err = topo_arg("MPI_Graph_neighbors_count", comm, MPI_GRAPH, &c)))
		return err;
	if ((unsigned)rank >= (unsigned)c->topo->n[0])
		return michi_mpi_err(c, MPI_ERR_RANK, "MPI_Graph_neighbors_count",
				     "(rank=%d): the graph has %d nodes", rank, c->topo->n[0]);
	*nneighbors = graph_range(c->topo, rank, &first);
	return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
	struct michi_comm *c;
	int err, first, k, i;

	if ((err = topo_arg("MPI_Graph_neighbors", comm, MPI_GRAPH, &c)))
		return err;
	if ((unsigned)rank >= (unsigned)c->topo->n[0])
		return michi_mpi_err(c, MPI_ERR_RANK, "MPI_Graph_neighbors",
				     "(rank=%d): the graph has %d nodes", rank, c->topo->n[0]);
	k = graph_range(c->topo, rank, &first);
	for (i = 0; i < k && i < maxneighbors; i++)
		neighbors[i] = c->topo->v[c->topo->n[0] + first + i];
	return MPI_SUCCESS;
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int indx[], const int edges[], int *newrank)
{
	struct michi_comm *c;
	int err;

	(void)indx;
	(void)edges;
	if ((err = topo_arg("MPI_Graph_map", comm, 0, &c)))
		return err;
	if (nnodes < 0 || nnodes > c->size)
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Graph_map", "(nnodes=%d): outside 0..%d",
				     nnodes, c->size);
	*newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
	return MPI_SUCCESS;
}

/* ---- distributed graphs ------------------------------------------------- */

static int is_unweighted(const int *w)
{
	return w == MPI_UNWEIGHTED;
}

/* Attach in/out neighbour lists to a duplicate of c. */
static int dist_make(const char *fname, struct michi_comm *c, int indeg, const int *src,
		     const int *sw, int outdeg, const int *dst, const int *dw, int weighted,
		     MPI_Comm *out)
{
	struct michi_comm *n;
	struct michi_topo *t;
	int err;

	err = michi_comm_split(fname, c, 0, c->rank, out);
	if (err)
		return err;
	n = michi_comm_get(*out);
	t = topo_new(MPI_DIST_GRAPH, (size_t)(2 * (indeg + outdeg)));
	if (!t) {
		PMPI_Comm_free(out);
		return michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
	}
	t->n[0] = indeg;
	t->n[1] = outdeg;
	t->n[2] = weighted;
	memcpy(t->v, src, (size_t)indeg * sizeof(int));
	if (weighted && sw)
		memcpy(t->v + indeg, sw, (size_t)indeg * sizeof(int));
	memcpy(t->v + 2 * indeg, dst, (size_t)outdeg * sizeof(int));
	if (weighted && dw)
		memcpy(t->v + 2 * indeg + outdeg, dw, (size_t)outdeg * sizeof(int));
	n->topo = t;
	return MPI_SUCCESS;
}

static int check_ranks(const char *fname, struct michi_comm *c, int n, const int *r,
		       const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		if ((unsigned)r[i] >= (unsigned)c->size)
			return michi_mpi_err(c, MPI_ERR_RANK, fname, "(%s[%d]=%d): communicator has "
					     "%d ranks", what, i, r[i], c->size);
	return MPI_SUCCESS;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
				    const int sourceweights[], int outdegree,
				    const int destinations[], const int destweights[],
				    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
	static const char fname[] = "MPI_Dist_graph_create_adjacent";
	struct michi_comm *c;
	int err;

	(void)info;
	(void)reorder;
	if ((err = topo_arg(fname, comm_old, 0, &c)))
		return err;
	if (indegree < 0 || outdegree < 0 || !comm_dist_graph)
		return michi_mpi_err(c, MPI_ERR_ARG, fname, "(indegree=%d, outdegree=%d): negative",
				     indegree, outdegree);
	if ((err = check_ranks(fname, c, indegree, sources, "sources")) ||
	    (err = check_ranks(fname, c, outdegree, destinations, "destinations")))
		return err;
	return dist_make(fname, c, indegree, sources, sourceweights, outdegree, destinations,
			 destweights, !is_unweighted(sourceweights) && !is_unweighted(destweights),
			 comm_dist_graph);
}

/*
 * Every rank names edges (sources[i] -> destinations) of its choice. Each
 * edge is sent to both ends as (other end, weight): counts first with an
 * alltoall, the pairs with an alltoallv, then each rank sorts its lists
 * into in and out edges (an edge to itself counts both ways).
 */
int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
			   const int destinations[], const int weights[], MPI_Info info,
			   int reorder, MPI_Comm *comm_dist_graph)
{
	static const char fname[] = "MPI_Dist_graph_create";
	struct michi_comm *c;
	struct coll_comm cc;
	int err, i, j, k, e, P, weighted = !is_unweighted(weights), flag;
	int *scount = NULL, *rcount = NULL, *sdisp = NULL, *rdisp = NULL, *sbuf = NULL, *rbuf = NULL;
	int *in = NULL, *inw = NULL, *outl = NULL, *outw = NULL, nin = 0, nout = 0, total = 0;
	michi_status_t st;

	(void)info;
	(void)reorder;
	if ((err = topo_arg(fname, comm_old, 0, &c)))
		return err;
	if (n < 0 || !comm_dist_graph || (n > 0 && (!sources || !degrees)))
		return michi_mpi_err(c, MPI_ERR_ARG, fname, "(n=%d): negative, or NULL arrays", n);
	P = c->size;
	if ((err = check_ranks(fname, c, n, sources, "sources")))
		return err;
	for (i = 0, e = 0; i < n; i++) {
		if (degrees[i] < 0)
			return michi_mpi_err(c, MPI_ERR_ARG, fname, "(degrees[%d]=%d): negative", i,
					     degrees[i]);
		e += degrees[i];
	}
	if ((err = check_ranks(fname, c, e, destinations, "destinations")))
		return err;
	scount = calloc((size_t)P, sizeof(int));
	rcount = calloc((size_t)P, sizeof(int));
	sdisp = calloc((size_t)P, sizeof(int));
	rdisp = calloc((size_t)P, sizeof(int));
	sbuf = malloc((size_t)(6 * e + 1) * sizeof(int));
	if (!scount || !rcount || !sdisp || !rdisp || !sbuf)
		goto nomem;
	/* 3 ints per message: kind (0: in-edge for the receiver, 1: out),
	 * the other end, the weight; one message to each end of every edge */
	for (i = 0, k = 0; i < n; i++)
		for (j = 0; j < degrees[i]; j++, k++) {
			scount[destinations[k]] += 3;
			scount[sources[i]] += 3;
		}
	for (i = 1; i < P; i++)
		sdisp[i] = sdisp[i - 1] + scount[i - 1];
	{
		int *fill = calloc((size_t)P, sizeof(int));

		if (!fill)
			goto nomem;
		for (i = 0, k = 0; i < n; i++)
			for (j = 0; j < degrees[i]; j++, k++) {
				int s = sources[i], d = destinations[k], w = weighted ? weights[k] : 1;
				int *p = sbuf + sdisp[d] + fill[d];

				p[0] = 0, p[1] = s, p[2] = w;
				fill[d] += 3;
				p = sbuf + sdisp[s] + fill[s];
				p[0] = 1, p[1] = d, p[2] = w;
				fill[s] += 3;
			}
		free(fill);
	}
	michi_coll_comm(c, &cc);
	st = coll_alltoallv_pairwise(&cc, scount, NULL, 1, sizeof(int), rcount, NULL, 1,
				     sizeof(int));
	if (st < 0)
		goto fail;
	for (i = 0; i < P; i++) {
		rdisp[i] = total;
		total += rcount[i];
	}
	rbuf = malloc((size_t)(total + 1) * sizeof(int));
	if (!rbuf)
		goto nomem;
	{
		struct coll_v sv = { scount, sdisp, 0, 0 }, rv = { rcount, rdisp, 0, 0 };

		st = coll_alltoallv_pairwise(&cc, sbuf, &sv, 0, sizeof(int), rbuf, &rv, 0,
					     sizeof(int));
	}
	if (st < 0)
		goto fail;
	in = malloc((size_t)(total / 3 + 1) * sizeof(int));
	inw = malloc((size_t)(total / 3 + 1) * sizeof(int));
	outl = malloc((size_t)(total / 3 + 1) * sizeof(int));
	outw = malloc((size_t)(total / 3 + 1) * sizeof(int));
	if (!in || !inw || !outl || !outw)
		goto nomem;
	for (i = 0; i < total; i += 3) {
		if (rbuf[i] == 0) {
			in[nin] = rbuf[i + 1];
			inw[nin++] = rbuf[i + 2];
		} else {
			outl[nout] = rbuf[i + 1];
			outw[nout++] = rbuf[i + 2];
		}
	}
	/* weighted if any rank said so: every rank must agree (MPI-3.1 7.5.4) */
	flag = weighted;
	err = dist_make(fname, c, nin, in, inw, nout, outl, outw, flag, comm_dist_graph);
	goto out;
nomem:
	err = michi_mpi_err(c, MPI_ERR_NO_MEM, fname, "(): no memory");
	goto out;
fail:
	err = michi_mpi_err_status(c, st, fname);
out:
	free(scount);
	free(rcount);
	free(sdisp);
	free(rdisp);
	free(sbuf);
	free(rbuf);
	free(in);
	free(inw);
	free(outl);
	free(outw);
	return err;
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
	struct michi_comm *c;
	int err;

	if ((err = topo_arg("MPI_Dist_graph_neighbors_count", comm, MPI_DIST_GRAPH, &c)))
		return err;
	*indegree = c->topo->n[0];
	*outdegree = c->topo->n[1];
	*weighted = c->topo->n[2];
	return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
			      int maxoutdegree, int destinations[], int destweights[])
{
	struct michi_comm *c;
	struct michi_topo *t;
	int err, i;

	if ((err = topo_arg("MPI_Dist_graph_neighbors", comm, MPI_DIST_GRAPH, &c)))
		return err;
	t = c->topo;
	for (i = 0; i < maxindegree && i < t->n[0]; i++) {
		sources[i] = t->v[i];
		if (t->n[2] && sourceweights && !is_unweighted(sourceweights))
			sourceweights[i] = t->v[t->n[0] + i];
	}
	for (i = 0; i < maxoutdegree && i < t->n[1]; i++) {
		destinations[i] = t->v[2 * t->n[0] + i];
		if (t->n[2] && destweights && !is_unweighted(destweights))
			destweights[i] = t->v[2 * t->n[0] + t->n[1] + i];
	}
	return MPI_SUCCESS;
}

int michi_topo_neighbors(const struct michi_comm *c, int *nin, int *nout, int *in, int *out)
{
	const struct michi_topo *t = c->topo;
	int i, first, n;

	if (!t)
		return -1;
	switch (t->kind) {
	case MPI_CART:
		*nin = *nout = 2 * t->n[0];
		for (i = 0; in && i < t->n[0]; i++) {
			/* the -1 neighbour, then the +1 one */
			PMPI_Cart_shift(c->handle, i, 1, &in[2 * i], &in[2 * i + 1]);
			out[2 * i] = in[2 * i];
			out[2 * i + 1] = in[2 * i + 1];
		}
		return 1;
	case MPI_GRAPH:
		n = graph_range(t, c->rank, &first);
		*nin = *nout = n;
		for (i = 0; in && i < n; i++)
			in[i] = out[i] = t->v[t->n[0] + first + i];
		return 0;
	default:
		*nin = t->n[0];
		*nout = t->n[1];
		for (i = 0; in && i < t->n[0]; i++)
			in[i] = t->v[i];
		for (i = 0; out && i < t->n[1]; i++)
			out[i] = t->v[2 * t->n[0] + i];
		return 0;
	}
}
