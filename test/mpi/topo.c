/* SPDX-License-Identifier: MIT */
/*
 * Virtual topologies: MPI_Dims_create (balanced, fixed dimensions,
 * errors), a periodic/non-periodic Cartesian grid (create, get, rank,
 * coords, shift with MPI_PROC_NULL at the edges, sub, map, the ranks left
 * out), a graph (create, dims, get, neighbours), distributed graphs made
 * adjacent and made from edges named by other ranks, with weights, and
 * MPI_Comm_dup keeping the topology.
 */
#include "mtest.h"

static int rank, size;

static void test_dims(void)
{
	int d2[2] = { 0, 0 }, d3[3] = { 0, 3, 0 }, d1[1] = { 0 }, err;

	MPI_Dims_create(12, 2, d2);
	mtest_check(d2[0] == 4 && d2[1] == 3, "dims(12, 2) = %dx%d", d2[0], d2[1]);
	MPI_Dims_create(24, 3, d3);
	mtest_check(d3[1] == 3 && d3[0] * d3[2] == 8 && d3[0] >= d3[2] && d3[0] == 4,
		    "dims(24, {0,3,0}) = %dx%dx%d", d3[0], d3[1], d3[2]);
	MPI_Dims_create(7, 1, d1);
	mtest_check(d1[0] == 7, "dims(7, 1) = %d", d1[0]);
	/* as even as can be, not the first split a greedy pass finds */
	{
		static const int n2[][3] = { { 72, 9, 8 }, { 180, 15, 12 }, { 240, 16, 15 },
					     { 1000, 40, 25 }, { 2310, 55, 42 } };
		int i, e3[3] = { 0, 0, 0 };

		for (i = 0; i < 5; i++) {
			d2[0] = d2[1] = 0;
			MPI_Dims_create(n2[i][0], 2, d2);
			mtest_check(d2[0] == n2[i][1] && d2[1] == n2[i][2],
				    "dims(%d, 2) = %dx%d, want %dx%d", n2[i][0], d2[0], d2[1],
				    n2[i][1], n2[i][2]);
		}
		MPI_Dims_create(1000, 3, e3);
		mtest_check(e3[0] == 10 && e3[1] == 10 && e3[2] == 10, "dims(1000, 3) = %dx%dx%d",
			    e3[0], e3[1], e3[2]);
	}
	d2[0] = d2[1] = 0;
	MPI_Dims_create(1, 2, d2);
	mtest_check(d2[0] == 1 && d2[1] == 1, "dims(1, 2) = %dx%d", d2[0], d2[1]);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	d2[0] = 5;
	d2[1] = 0;
	err = MPI_Dims_create(12, 2, d2);
	mtest_check(err != MPI_SUCCESS, "dims(12, {5,0}) accepted");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_cart(void)
{
	int dims[2] = { 0, 0 }, periods[2] = { 1, 0 }, coords[2], r, src, dst, s, nd, status;
	int g[2], p[2], c[2], remain[2] = { 0, 1 }, n;
	MPI_Comm cart, row, dup;

	n = size >= 4 ? size - (size % 2) : size;   /* leave one rank out when odd */
	MPI_Dims_create(n, 2, dims);
	MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
	if (rank >= n) {
		mtest_check(cart == MPI_COMM_NULL, "rank past the grid got a communicator");
		return;
	}
	MPI_Topo_test(cart, &status);
	mtest_check(status == MPI_CART, "topo_test = %d", status);
	MPI_Cartdim_get(cart, &nd);
	mtest_check(nd == 2, "cartdim %d", nd);
	MPI_Comm_rank(cart, &r);
	MPI_Cart_get(cart, 2, g, p, c);
	mtest_check(g[0] == dims[0] && g[1] == dims[1] && p[0] == 1 && p[1] == 0,
		    "cart_get dims %dx%d periods %d,%d", g[0], g[1], p[0], p[1]);
	mtest_check(c[0] == r / dims[1] && c[1] == r % dims[1], "my coords %d,%d (rank %d)",
		    c[0], c[1], r);
	MPI_Cart_coords(cart, r, 2, coords);
	MPI_Cart_rank(cart, coords, &s);
	mtest_check(s == r, "rank(coords(%d)) = %d", r, s);
	/* periodic in 0: wraps; not periodic in 1: PROC_NULL at the edges */
	MPI_Cart_shift(cart, 0, 1, &src, &dst);
	mtest_check(src == ((c[0] + dims[0] - 1) % dims[0]) * dims[1] + c[1] &&
		    dst == ((c[0] + 1) % dims[0]) * dims[1] + c[1], "shift 0: %d %d", src, dst);
	MPI_Cart_shift(cart, 1, 1, &src, &dst);
	mtest_check(src == (c[1] == 0 ? MPI_PROC_NULL : r - 1) &&
		    dst == (c[1] == dims[1] - 1 ? MPI_PROC_NULL : r + 1), "shift 1: %d %d", src, dst);
	coords[0] = c[0] + dims[0];
	coords[1] = c[1];
	MPI_Cart_rank(cart, coords, &s);
	mtest_check(s == r, "periodic wrap gave rank %d, want %d", s, r);
	/* rows: keep dimension 1 */
	MPI_Cart_sub(cart, remain, &row);
	MPI_Comm_size(row, &s);
	mtest_check(s == dims[1], "row size %d, want %d", s, dims[1]);
	MPI_Comm_rank(row, &s);
	mtest_check(s == c[1], "row rank %d, want %d", s, c[1]);
	MPI_Cartdim_get(row, &nd);
	mtest_check(nd == 1, "row cartdim %d", nd);
	{
		int sum, want = 0, i;

		MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, row);
		for (i = 0; i < dims[1]; i++)
			want += c[0] * dims[1] + i;
		mtest_check(sum == want, "allreduce over the row: %d, want %d", sum, want);
	}
	MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &s);
	mtest_check(s == (rank < n ? rank : MPI_UNDEFINED), "cart_map gave %d", s);
	MPI_Comm_dup(cart, &dup);
	MPI_Topo_test(dup, &status);
	mtest_check(status == MPI_CART, "dup lost the topology (%d)", status);
	MPI_Comm_free(&dup);
	MPI_Comm_free(&row);
	MPI_Comm_free(&cart);
}

static void test_graph(void)
{
	/* a ring: node i knows i-1 and i+1 */
	int *index = malloc(sizeof(int) * (size_t)size), *edges = malloc(sizeof(int) * (size_t)(2 * size));
	int i, nn, ne, cnt, nb[2], status;
	MPI_Comm g;

	for (i = 0; i < size; i++) {
		index[i] = 2 * (i + 1);
		edges[2 * i] = (i + size - 1) % size;
		edges[2 * i + 1] = (i + 1) % size;
	}
	MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g);
	MPI_Topo_test(g, &status);
	mtest_check(status == MPI_GRAPH, "graph topo_test = %d", status);
	MPI_Graphdims_get(g, &nn, &ne);
	mtest_check(nn == size && ne == 2 * size, "graphdims %d %d", nn, ne);
	MPI_Graph_neighbors_count(g, rank, &cnt);
	mtest_check(cnt == 2, "neighbours count %d", cnt);
	MPI_Graph_neighbors(g, rank, 2, nb);
	mtest_check(nb[0] == (rank + size - 1) % size && nb[1] == (rank + 1) % size,
		    "neighbours %d %d", nb[0], nb[1]);
	MPI_Comm_free(&g);
	free(index);
	free(edges);
}

static void test_dist_graph(void)
{
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	int w_out = 10 + rank, w_in = 10 + left, in, out, weighted, src[4], sw[4], dst[4], dw[4];
	int degree = 1;
	MPI_Comm d;

	/* adjacent: I receive from left, send to right */
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &w_in, 1, &right, &w_out,
				       MPI_INFO_NULL, 0, &d);
	MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted);
	mtest_check(in == 1 && out == 1 && weighted, "adjacent counts %d %d %d", in, out, weighted);
	MPI_Dist_graph_neighbors(d, 1, src, sw, 1, dst, dw);
	mtest_check(src[0] == left && sw[0] == w_in && dst[0] == right && dw[0] == w_out,
		    "adjacent neighbours %d(%d) %d(%d)", src[0], sw[0], dst[0], dw[0]);
	MPI_Comm_free(&d);
	/* general: each rank names the edge left -> rank, so every edge is
	 * named by its destination's rank, not by its source */
	MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &left, &degree, &rank, &w_in, MPI_INFO_NULL, 0, &d);
	MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted);
	mtest_check(in == 1 && out == 1, "general counts %d %d", in, out);
	MPI_Dist_graph_neighbors(d, 1, src, sw, 1, dst, dw);
	mtest_check(src[0] == left && dst[0] == right && sw[0] == 10 + left && dw[0] == 10 + rank,
		    "general neighbours %d(%d) %d(%d)", src[0], sw[0], dst[0], dw[0]);
	MPI_Comm_free(&d);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	rank = mtest_rank;
	size = mtest_size;
	test_dims();
	test_cart();
	test_graph();
	test_dist_graph();
	return mtest_finalize();
}
