/* SPDX-License-Identifier: MIT */
/*
 * coll/neighbor.c: neighbourhood collectives: one receive from every
 * in-neighbour and one send to every out-neighbour, all in one round.
 * A neighbour listed twice gets its messages in list order, and MTMI keeps
 * one sender's messages in order, so the k-th receive from a rank takes
 * its k-th send (MPI-3.1 7.6). In a Cartesian topology each dimension
 * lists the -1 neighbour, then the +1 one, on both sides, and a block sent
 * in the + direction is the one the neighbour receives from its -1 side:
 * so per dimension the + block is sent first, which keeps the two apart
 * when both neighbours are the same rank (a periodic dimension of 1 or 2).
 * MPI_PROC_NULL neighbours are skipped.
 */
#include "schedule.h"

#define NBR_PROC_NULL (-1)   /* MPI_PROC_NULL's value, which coll/ does not see */

int coll_build_neighbor(struct coll_sched *s, int nin, const int *in, char *const *rbufs,
			const size_t *rlens, int nout, const int *out,
			const char *const *sbufs, const size_t *slens, int cart)
{
	int i;

	for (i = 0; i < nin; i++)
		if (in[i] != NBR_PROC_NULL && coll_sched_recv(s, rbufs[i], rlens[i], in[i]))
			return -1;
	for (i = 0; i < nout; i++) {
		int j = cart ? i ^ 1 : i;   /* cart: (+1, -1) per dimension */

		if (out[j] != NBR_PROC_NULL && coll_sched_send(s, sbufs[j], slens[j], out[j]))
			return -1;
	}
	return 0;
}
