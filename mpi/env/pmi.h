/* SPDX-License-Identifier: MIT */
/*
 * mpi/env/pmi.h: the process-manager client used by MPI_Init.
 *
 * Speaks PMI-1 wire protocol through PMI_FD (our mpirun, MPICH Hydra,
 * Slurm srun --mpi=pmi2, whose plugin answers PMI-1 too) or PMI_PORT +
 * PMI_ID; without those, PMIX_RANK (srun --mpi=pmix) selects libpmix when
 * the library was built with it (mpi/env/pmi_pmix.c); with none of them the
 * process is a singleton and the key-value space is local. All calls are
 * collective-free except pmi_fence().
 */
#ifndef MICHI_PMI_H
#define MICHI_PMI_H

#include <stddef.h>
#include "michi.h"

struct pmi_info {
	int rank, size;
	int local_rank, local_size;   /* from MPI_LOCALRANKID/MPI_LOCALNRANKS, -1 if absent */
	int appnum;
	int universe_size;            /* -1 if unknown */
	int singleton;                /* 1 when no process manager */
	char kvsname[256];
};

michi_status_t pmi_init(struct pmi_info *info);
michi_status_t pmi_put(const char *key, const char *val);
michi_status_t pmi_fence(void);          /* commit puts, barrier across the job */
/* The same, calling progress() while it waits (PMI-1 wire only; PMIx's
 * fence blocks): MPI_Finalize's, since a peer may still need this rank's
 * MPI progress to finish a send it waits on. */
michi_status_t pmi_fence_progress(int (*progress)(void));
/* Get a key: rank is a hint (PMI-1 ignores it); MICHI_ERR_PMI if absent. */
michi_status_t pmi_get(int rank, const char *key, char *val, size_t len);
michi_status_t pmi_abort(int code, const char *msg);  /* asks the manager to end the job */
michi_status_t pmi_finalize(void);
/* The process manager's name service (MPI_Publish_name, _Lookup_name,
 * _Unpublish_name): MICHI_ERR_UNSUPPORTED when it has none, MICHI_ERR_PMI
 * when it refused (a name already published, or unknown). */
michi_status_t pmi_publish(const char *service, const char *port);
michi_status_t pmi_unpublish(const char *service);
michi_status_t pmi_lookup(const char *service, char *port, size_t len);
size_t pmi_max_val_len(void);            /* largest value a put may carry */

/*
 * Key under which Michi's mpirun presets the job key (32 hex digits from
 * 16 random bytes) before the first fence. Absent under other managers.
 */
#define PMI_JOB_KEY "michi-job-key"

#endif
