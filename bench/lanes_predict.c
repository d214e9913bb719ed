/* SPDX-License-Identifier: MIT */
/*
 * bench/lanes_predict.c: the cost model's prediction of multilane Scatter
 * and Gather (coll/lanes_model.c, the copy the library itself chooses P
 * with), for bench/grid-coll.sh. Built with any C compiler from this file
 * and coll/lanes_model.c; no MPI.
 *
 *   lanes_predict PARAMS N0 N1 BYTES...
 *
 * PARAMS as MICHI_COLL_LANES_PARAMS ("" for the library's defaults); N0
 * the ranks of the root's site, N1 the far site's. Per BYTES (the block
 * per rank) it prints "BYTES,P,T" for P = 1..min(N0, N1) and
 * "BYTES,auto-scatter,P,T" and "BYTES,auto-gather,P,T": the P the library
 * chooses when MICHI_COLL_LANES_P is 0, and T(P) in seconds.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lanes_model.h"

int main(int argc, char **argv)
{
	struct lanes_params p;
	size_t at = 0;
	int n0, n1;

	if (argc < 5) {
		fprintf(stderr, "usage: lanes_predict PARAMS N0 N1 BYTES...\n");
		return 2;
	}
	lanes_params_default(&p);
	if (argv[1][0] && lanes_params_parse(argv[1], &p, &at) < 0) {
		fprintf(stderr, "lanes_predict: cannot read PARAMS at \"%s\"\n", argv[1] + at);
		return 2;
	}
	n0 = atoi(argv[2]);
	n1 = atoi(argv[3]);
	if (n0 < 1 || n1 < 1 || n0 > 4096 || n1 > 4096) {
		fprintf(stderr, "lanes_predict: N0 and N1 must be 1..4096\n");
		return 2;
	}
	for (int a = 4; a < argc; a++) {
		double m = atof(argv[a]);
		int pmax = n0 < n1 ? n0 : n1, ps, pg;

		if (!(m > 0)) {
			fprintf(stderr, "lanes_predict: BYTES must be positive, not %s\n", argv[a]);
			return 2;
		}
		if (pmax > LANES_PMAX)
			pmax = LANES_PMAX;
		for (int P = 1; P <= pmax; P++)
			printf("%s,%d,%.9f\n", argv[a], P, lanes_T(&p, P, n0, n1, m));
		ps = lanes_choose(&p, n0, n1, m);
		pg = lanes_choose_gather(&p, n0, n1, m);
		printf("%s,auto-scatter,%d,%.9f\n", argv[a], ps, lanes_T(&p, ps, n0, n1, m));
		printf("%s,auto-gather,%d,%.9f\n", argv[a], pg, lanes_T(&p, pg, n0, n1, m));
	}
	return 0;
}
