/* SPDX-License-Identifier: MIT */
/*
 * mpi/env/pmi_pmix.c: the PMIx back end of the PMI client, for ranks that a
 * PMIx server started (`srun --mpi=pmix`, Open MPI's prte) without a
 * PMI-1 socket. mpi/env/pmi.c picks it in pmi_init when PMIX_RANK or
 * PMIX_NAMESPACE is in the environment and PMI_FD/PMI_PORT are not, and
 * forwards every call here, so that MPI_Init and the devices use one
 * interface for both. Keys are per process in PMIx: a put is published
 * with PMIX_GLOBAL scope and read back as "rank r's key", which is how
 * Michi's keys are already named (each rank puts its own). The fence
 * commits and collects everybody's data, so gets afterwards are local
 * look-ups (PMIX_OPTIONAL) that never wait.
 */
#include "config.h"
#include "pmi_pmix.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static pmix_proc_t pmix_me;

static michi_status_t pmi_pmix_fail(pmix_status_t rc, const char *what)
{
	return michi_err(MICHI_ERR_PMI, "pmi: %s failed: %s (PMIx status %d)",
			 what, PMIx_Error_string(rc), (int)rc);
}

static int pmi_pmix_detect(void)
{
	return getenv("PMIX_RANK") || getenv("PMIX_NAMESPACE");
}

/*
 * A job attribute as an int: PMIx types them uint32 or uint16 by the
 * standard, but servers differ, so every integer type is taken. rank is
 * PMIX_RANK_WILDCARD for job-level keys. -1 when absent.
 */
static long pmi_pmix_get_num(pmix_rank_t rank, const char *key)
{
	pmix_proc_t proc;
	pmix_value_t *v = NULL;
	long n = -1;

	PMIX_PROC_LOAD(&proc, pmix_me.nspace, rank);
	if (PMIx_Get(&proc, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
		return -1;
	switch (v->type) {
	case PMIX_UINT32: n = (long)v->data.uint32; break;
	case PMIX_UINT16: n = (long)v->data.uint16; break;
	case PMIX_UINT8:  n = (long)v->data.uint8;  break;
	case PMIX_INT:    n = (long)v->data.integer; break;
	case PMIX_INT32:  n = (long)v->data.int32;  break;
	case PMIX_UINT:   n = (long)v->data.uint;   break;
	case PMIX_SIZE:   n = (long)v->data.size;   break;
	case PMIX_UINT64: n = (long)v->data.uint64; break;
	default: break;
	}
	PMIX_VALUE_RELEASE(v);
	return n < 0 || n > 0x7fffffff ? -1 : n;
}

static michi_status_t pmi_pmix_init(struct pmi_info *info)
{
	pmix_status_t rc = PMIx_Init(&pmix_me, NULL, 0);
	long size;

	if (rc != PMIX_SUCCESS)
		return michi_err(MICHI_ERR_PMI,
				 "pmi: PMIx_Init failed: %s (PMIX_RANK is set: was this "
				 "process started by a PMIx server such as srun --mpi=pmix?)",
				 PMIx_Error_string(rc));
	size = pmi_pmix_get_num(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
	if (size <= 0 || pmix_me.rank >= (pmix_rank_t)size) {
		PMIx_Finalize(NULL, 0);
		return michi_err(MICHI_ERR_PMI,
				 "pmi: the PMIx server gave no job size, or rank %u outside it",
				 (unsigned)pmix_me.rank);
	}
	info->rank = (int)pmix_me.rank;
	info->size = (int)size;
	info->local_rank = (int)pmi_pmix_get_num(pmix_me.rank, PMIX_LOCAL_RANK);
	info->local_size = (int)pmi_pmix_get_num(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE);
	info->appnum = (int)pmi_pmix_get_num(pmix_me.rank, PMIX_APPNUM);
	if (info->appnum < 0)
		info->appnum = 0;
	info->universe_size = (int)pmi_pmix_get_num(PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE);
	snprintf(info->kvsname, sizeof(info->kvsname), "%s", pmix_me.nspace);
	return MICHI_OK;
}

static michi_status_t pmi_pmix_put(const char *key, const char *val)
{
	pmix_value_t v;
	pmix_status_t rc;

	v.type = PMIX_STRING;
	v.data.string = (char *)val;   /* PMIx_Put copies it */
	rc = PMIx_Put(PMIX_GLOBAL, key, &v);
	if (rc != PMIX_SUCCESS)
		return pmi_pmix_fail(rc, "PMIx_Put");
	return MICHI_OK;
}

static michi_status_t pmi_pmix_fence(double timeout)
{
	pmix_info_t info[2];
	bool collect = true;
	int secs = timeout > 0 && timeout < 0x7fffffff ? (int)timeout + 1 : 0;
	pmix_status_t rc = PMIx_Commit();

	if (rc != PMIX_SUCCESS)
		return pmi_pmix_fail(rc, "PMIx_Commit");
	PMIX_INFO_CONSTRUCT(&info[0]);
	PMIX_INFO_CONSTRUCT(&info[1]);
	PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &secs, PMIX_INT);
	/* NULL procs: every process of our namespace */
	rc = PMIx_Fence(NULL, 0, info, 2);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
	if (rc == PMIX_ERR_TIMEOUT)
		return michi_err(MICHI_ERR_PMI,
				 "pmi: PMIx_Fence did not complete within %.0f s (tunable MICHI_PMI_TIMEOUT)",
				 timeout);
	if (rc != PMIX_SUCCESS)
		return pmi_pmix_fail(rc, "PMIx_Fence");
	return MICHI_OK;
}

static michi_status_t pmi_pmix_get(int rank, const char *key, char *val, size_t len)
{
	pmix_info_t info;
	pmix_proc_t proc;
	pmix_value_t *v = NULL;
	bool optional = true;
	pmix_status_t rc;
	michi_status_t st = MICHI_OK;
	size_t vl;

	/* local data only: before the first fence a key (michi-job-key,
	 * which only Michi's mpirun presets) is simply absent, instead of a
	 * request to the other rank's server that waits for it */
	PMIX_INFO_CONSTRUCT(&info);
	PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
	PMIX_PROC_LOAD(&proc, pmix_me.nspace, (pmix_rank_t)rank);
	rc = PMIx_Get(&proc, key, &info, 1, &v);
	PMIX_INFO_DESTRUCT(&info);
	if (rc != PMIX_SUCCESS || !v)
		return michi_err(MICHI_ERR_PMI,
				 "pmi: key '%.64s' of rank %d not found in the PMIx data (%s)",
				 key, rank, PMIx_Error_string(rc));
	if (v->type != PMIX_STRING || !v->data.string) {
		st = michi_err(MICHI_ERR_PMI, "pmi: key '%.64s' of rank %d is not a string",
			       key, rank);
	} else if ((vl = strlen(v->data.string)) >= len) {
		st = michi_err(MICHI_ERR_TRUNCATE,
			       "pmi: value of key '%.64s' has %zu bytes, buffer holds %zu",
			       key, vl, len ? len - 1 : 0);
	} else {
		memcpy(val, v->data.string, vl + 1);
	}
	PMIX_VALUE_RELEASE(v);
	return st;
}

static michi_status_t pmi_pmix_abort(int code, const char *msg)
{
	/* NULL procs: the whole namespace; the server kills the job */
	pmix_status_t rc = PMIx_Abort(code, msg, NULL, 0);

	if (rc != PMIX_SUCCESS)
		return pmi_pmix_fail(rc, "PMIx_Abort");
	return MICHI_OK;
}

static michi_status_t pmi_pmix_finalize(void)
{
	pmix_status_t rc = PMIx_Finalize(NULL, 0);

	if (rc != PMIX_SUCCESS)
		return pmi_pmix_fail(rc, "PMIx_Finalize");
	return MICHI_OK;
}

const struct pmi_pmix_ops pmi_pmix_ops = {
	.detect = pmi_pmix_detect,
	.init = pmi_pmix_init,
	.put = pmi_pmix_put,
	.fence = pmi_pmix_fence,
	.get = pmi_pmix_get,
	.abort = pmi_pmix_abort,
	.finalize = pmi_pmix_finalize,
};
