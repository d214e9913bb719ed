/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/group.h: process groups (mpi/comm/group.c), shared with the communicator
 * constructors of mpi/comm/comm_create.c.
 */
#ifndef MICHI_GROUP_H
#define MICHI_GROUP_H

#include "mpiimpl.h"

struct michi_group {
	struct michi_obj h;
	int size;
	int rank;          /* the calling process's rank in it, or MPI_UNDEFINED */
	int *ranks;        /* world rank of each member, in group order */
};

extern struct michi_group michi_group_empty;

/* MPI_Comm_create_from_group (mpi/comm/session.c): a communicator over g,
 * which holds this process, made by g's members alone (mpi/comm/comm_create.c). */
int michi_comm_from_group(struct michi_group *g, uint32_t tag, const char *fname,
			  struct michi_comm **out);

/* The key of a string tag (MPI_Comm_create_from_group,
 * MPI_Intercomm_create_from_groups) for michi_comm_from_group. */
uint32_t michi_stringtag_key(const char *stringtag);

struct michi_group *michi_group_get(MPI_Group g);
struct michi_group *michi_group_new(const int *world, int n);
void michi_group_release(struct michi_group *g);
/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL for two lists of world ranks. */
int michi_group_cmp(const int *a, int na, const int *b, int nb);

#endif
