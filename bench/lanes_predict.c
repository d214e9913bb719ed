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
 * per rank) and OP (scatter, gather) it prints "BYTES,OP,P,h,T,AUTO,TS,1"
 * for P = 1..min(N0, N1): T(P) in seconds (lanes_T_h, what the library
 * chooses with) and TS (Scatter: lanes_T_sched, the schedule model;
 * Gather: T again) with the lanes a host h that the library gives a
 * forced P (MICHI_COLL_LANES_P): lanes_h_min, one lane a host where the
 * site has P hosts that drive lanes (Gather's P > 1 leaves the root
 * out); AUTO is 1 on the P and h that the library chooses when
 * MICHI_COLL_LANES_P is 0 (lanes_choose_ph), which gets a row
 * "BYTES,OP,P,h,T,1,TS,0" of its own when its h is not the forced one.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lanes_model.h"

static double sched(const struct lanes_params *p, int dir, int P, int h, int n0, int n1, double m)
{
	return dir == LANES_GATHER ? lanes_T_h(p, dir, P, h, n0, n1, m)
				   : lanes_T_sched(p, P, h, n0, n1, m);
}

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
		int pmax = n0 < n1 ? n0 : n1;

		if (!(m > 0)) {
			fprintf(stderr, "lanes_predict: BYTES must be positive, not %s\n", argv[a]);
			return 2;
		}
		if (pmax > LANES_PMAX)
			pmax = LANES_PMAX;
		for (int dir = LANES_SCATTER; dir <= LANES_GATHER; dir++) {
			const char *op = dir == LANES_GATHER ? "gather" : "scatter";
			int h, P = lanes_choose_ph(&p, dir, n0, n1, m, &h);

			for (int k = 1; k <= pmax; k++) {
				int hf = lanes_h_min(dir, k, n0);

				printf("%s,%s,%d,%d,%.9f,%d,%.9f,1\n", argv[a], op, k, hf,
				       lanes_T_h(&p, dir, k, hf, n0, n1, m), k == P && h == hf,
				       sched(&p, dir, k, hf, n0, n1, m));
			}
			if (h != lanes_h_min(dir, P, n0))
				printf("%s,%s,%d,%d,%.9f,1,%.9f,0\n", argv[a], op, P, h,
				       lanes_T_h(&p, dir, P, h, n0, n1, m),
				       sched(&p, dir, P, h, n0, n1, m));
		}
	}
	return 0;
}
