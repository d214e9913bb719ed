/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/attr.h: attribute lists (mpi/comm/attr.c) for the objects that carry
 * them.
 */
#ifndef MICHI_ATTR_H
#define MICHI_ATTR_H

#include "mpiimpl.h"

struct michi_attr;

/* Run every delete callback (newest first) and empty the list; the first
 * callback's error code, or MPI_SUCCESS. obj is the object's handle. */
int michi_attrs_delete_all(int obj, struct michi_attr **list);
/* The attributes the copy callbacks give to a duplicate of oldobj;
 * MPI_SUCCESS or a callback's error code (*dst holds what was copied). */
int michi_attrs_copy(int oldobj, struct michi_attr *src, struct michi_attr **dst);
/* MPI_Comm_get_attr for user keys: 0 when keyval is not one. */
int michi_comm_user_attr(struct michi_comm *c, int keyval, void *out, int *flag);

#endif
