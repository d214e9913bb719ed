/* SPDX-License-Identifier: MIT */
/*
 * devices/self/self_mpit.c: the self device's MPI_T category (util/tvars.h);
 * its only performance variables are the frame counters MTMI keeps for
 * every device.
 */
#include "config.h"
#include "tvars.h"

MICHI_TVARS(self, "self", "the self device: a rank sending to itself", NULL, 0, NULL, NULL);
