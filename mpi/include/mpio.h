/* SPDX-License-Identifier: MIT */
/*
 * mpio.h: MPI-IO declarations. With Michi (as with MPICH) they all live in
 * mpi.h; this header exists for programs that include <mpio.h> directly.
 */
#ifndef MICHI_MPIO_H
#define MICHI_MPIO_H

#include "mpi.h"

#endif /* MICHI_MPIO_H */
