/* SPDX-License-Identifier: MIT */
/*
 * mpi/env/pmi_pmix.h: the PMIx back end of the PMI client (mpi/env/pmi.c).
 *
 * mpi/env/pmi_pmix.c, built only when configure finds libpmix, defines
 * pmi_pmix_ops; mpi/env/pmi.c refers to it weakly, so that programs linking
 * mpi/env/pmi.c alone (test/launch/pmi_client_test, the fuzz harness) and
 * builds without PMIx see it as absent. pmi.c has checked keys, values and
 * the initialised state before it calls any of these.
 */
#ifndef MICHI_PMI_PMIX_H
#define MICHI_PMI_PMIX_H

#include <stddef.h>
#include "pmi.h"

struct pmi_pmix_ops {
	/* 1 when the environment shows a PMIx server started this process */
	int (*detect)(void);
	/* connect; fills rank, size, local_rank/size, appnum, universe_size
	 * and kvsname (the namespace) */
	michi_status_t (*init)(struct pmi_info *info);
	michi_status_t (*put)(const char *key, const char *val);
	/* commit this rank's puts, then a fence that collects everybody's */
	michi_status_t (*fence)(double timeout);
	/* rank's value of key, from the data the last fence brought: never
	 * waits; MICHI_ERR_PMI if absent, MICHI_ERR_TRUNCATE if len is short */
	michi_status_t (*get)(int rank, const char *key, char *val, size_t len);
	michi_status_t (*abort)(int code, const char *msg);
	michi_status_t (*finalize)(void);
};

extern const struct pmi_pmix_ops pmi_pmix_ops __attribute__((weak));

#endif
