/* SPDX-License-Identifier: MIT */
/*
 * mpi/env/init.c: MPI_Init and MPI_Finalize, and the environment queries.
 *
 * Bootstrap order: tunables and logging, the object arena, the PMI client
 * (or a singleton), the job key and host map through the key-value space,
 * the devices (which put their business cards), one fence, the devices'
 * post-fence step, MTMI, and finally the predefined communicators.
 * Connections open lazily on first use, so init costs one fence.
 */
#include "mpiimpl.h"
#include "pmi.h"
#include "info.h"
#include "attr.h"
#include "mpit.h"
#include "pt2pt.h"
#include "coll.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

struct michi_state michi_state;
static pthread_t main_thread;
struct michi_comm michi_comm_world, michi_comm_self;

static struct pmi_info pmi;
static struct michi_job job;
static int self_peer;
static const char *my_site;   /* MICHI_SITE, "": none (mpi/coll/site.c) */
static char my_kernel[40];    /* this kernel's boot id, "": unknown */

static michi_status_t kvs_put(const char *key, const char *val)
{
	return pmi_put(key, val);
}

static michi_status_t kvs_fence(void)
{
	return pmi_fence();
}

static michi_status_t kvs_get(int from_rank, const char *key, char *val, size_t len)
{
	return pmi_get(from_rank, key, val, len);
}

/*
 * The job key: our mpirun presets michi-job-key before the ranks start;
 * under another process manager (Hydra, srun) rank 0 makes one and the
 * others read it after the fence.
 */
static michi_status_t job_key_put(int *have)
{
	char hex[40];

	*have = pmi_get(0, "michi-job-key", hex, sizeof(hex)) == MICHI_OK &&
		michi_hex_decode(hex, job.key, 16) == 0;
	michi_err_clear();
	if (*have || job.rank != 0)
		return MICHI_OK;
	if (getrandom(job.key, sizeof(job.key), 0) != (ssize_t)sizeof(job.key))
		return michi_err(MICHI_ERR_IO, "getrandom failed for the job key");
	michi_hex_encode(job.key, 16, hex);
	return pmi_put("michi-job-key-r0", hex);
}

static int universe_size;
MICHI_TUNABLE(universe_size, "universe_size", MICHI_T_INT, "0", MICHI_LEVEL_USER,
	      "MPI_UNIVERSE_SIZE, the processes MPI_Comm_spawn may usefully start in all "
	      "(0: the launcher's slots; a singleton: this host's processors)");

/* set by runtime_start: michi-job-key was there before the first fence */
static int launcher_michi;

struct michi_job *michi_job_get(void)
{
	return &job;
}

int michi_launcher_kind(void)
{
	return pmi.singleton ? 0 : launcher_michi ? 1 : 2;
}

static michi_status_t job_key_get(int have)
{
	char hex[40];
	michi_status_t st;

	if (have || job.rank == 0)
		return MICHI_OK;
	st = pmi_get(0, "michi-job-key-r0", hex, sizeof(hex));
	if (st)
		return st;
	if (michi_hex_decode(hex, job.key, 16))
		return michi_err(MICHI_ERR_PMI, "malformed job key from rank 0");
	return MICHI_OK;
}

/*
 * Host map: every rank publishes "HOST|KERNEL|SITE", its host name, the
 * boot id of the kernel it runs on and its site name (empty: none;
 * mpi/coll/site.c), under one key; equal host names share a host. Hosts
 * that are network namespaces or containers of one machine have names of
 * their own but one kernel, and so one set of processors: the ranks on
 * this kernel (job.kernel_size) are what the devices' wait policy counts
 * against the processors. The fields are split off at the last '|'s
 * (site names and boot ids have none).
 */
static void kernel_id_read(void)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

	if (f) {
		if (!fgets(my_kernel, sizeof(my_kernel), f))
			my_kernel[0] = '\0';
		my_kernel[strcspn(my_kernel, "|\n")] = '\0';
		fclose(f);
	}
}

static michi_status_t host_map_build(void)
{
	char key[32], val[360];
	char **names, **sites;
	int i, j, nhosts = 0, nkernel = 0;
	michi_status_t st = MICHI_OK;

	job.host_of = calloc((size_t)job.size, sizeof(int));
	names = calloc((size_t)job.size, sizeof(char *));
	sites = calloc((size_t)job.size, sizeof(char *));
	if (!job.host_of || !names || !sites) {
		free(names);
		free(sites);
		return michi_err(MICHI_ERR_NOMEM, "no memory for the host map");
	}
	for (i = 0; i < job.size; i++) {
		char *bar;

		if (i == job.rank) {
			snprintf(val, sizeof(val), "%s|%s|%s", job.hostname, my_kernel, my_site);
		} else {
			snprintf(key, sizeof(key), "michi-host-%d", i);
			st = pmi_get(i, key, val, sizeof(val));
			if (st)
				goto out;
		}
		bar = strrchr(val, '|');
		if (bar)
			*bar = '\0';
		if (!(sites[i] = strdup(bar ? bar + 1 : ""))) {
			st = michi_err(MICHI_ERR_NOMEM, "no memory for the site map");
			goto out;
		}
		bar = strrchr(val, '|');
		if (bar)
			*bar = '\0';
		/* an unknown kernel is this one where the host is this one */
		if (bar && my_kernel[0] ? strcmp(bar + 1, my_kernel) == 0 :
		    strcmp(val, job.hostname) == 0)
			nkernel++;
		for (j = 0; j < nhosts; j++)
			if (strcmp(names[j], val) == 0)
				break;
		if (j == nhosts)
			names[nhosts++] = strdup(val);
		job.host_of[i] = j;
	}
	if (job.local_rank < 0) {
		int lr = 0, ls = 0;

		for (i = 0; i < job.size; i++) {
			if (job.host_of[i] != job.host_of[job.rank])
				continue;
			if (i < job.rank)
				lr++;
			ls++;
		}
		job.local_rank = lr;
		job.local_size = ls;
	}
	job.kernel_size = nkernel > job.local_size ? nkernel : job.local_size;
	st = michi_sites_from_names(job.size, sites);
out:
	for (j = 0; j < nhosts; j++)
		free(names[j]);
	for (i = 0; i < job.size; i++)
		free(sites[i]);
	free(names);
	free(sites);
	return st;
}

static void comm_init_predefined(void)
{
	int i;

	memset(&michi_comm_world, 0, sizeof(michi_comm_world));
	michi_comm_world.rank = job.rank;
	michi_comm_world.size = job.size;
	michi_comm_world.ctx = 0;
	michi_comm_world.native_base = mtmi_native_base(0, job.rank);
	michi_comm_world.peers = malloc((size_t)job.size * sizeof(int));
	for (i = 0; i < job.size; i++)
		michi_comm_world.peers[i] = i;
	michi_comm_world.errhandler = MPI_ERRORS_ARE_FATAL;
	michi_comm_world.handle = MPI_COMM_WORLD;
	snprintf(michi_comm_world.name, sizeof(michi_comm_world.name), "MPI_COMM_WORLD");

	memset(&michi_comm_self, 0, sizeof(michi_comm_self));
	self_peer = job.rank;
	michi_comm_self.rank = 0;
	michi_comm_self.size = 1;
	michi_comm_self.ctx = 2;
	michi_comm_self.native_base = mtmi_native_base(2, 0);
	michi_comm_self.peers = &self_peer;
	michi_comm_self.errhandler = MPI_ERRORS_ARE_FATAL;
	michi_comm_self.handle = MPI_COMM_SELF;
	snprintf(michi_comm_self.name, sizeof(michi_comm_self.name), "MPI_COMM_SELF");
}

static int init_fail(const char *fname, michi_status_t st)
{
	char msg[MPI_MAX_ERROR_STRING];

	snprintf(msg, sizeof(msg), "%s: startup failed: %s (rank %d on host %s)",
		 fname, michi_err_msg()[0] ? michi_err_msg() : michi_status_str(st),
		 job.rank, michi_hostname());
	fprintf(stderr, "Fatal error in %s\n", msg);
	if (!pmi.singleton)
		pmi_abort(1, msg);
	_exit(1);
}

/*
 * The state flags of the hot paths follow MPI's thread level: at
 * MPI_THREAD_MULTIPLE michi_mt makes every call take util/mtlock.h's lock
 * (MPI_T_init_thread may have set it already) and michi_state.fast sends
 * the hot calls through their MICHI_GATE.
 */
static int mt_mpi, mt_tool, mt_async;

static void mt_update(void)
{
	michi_mt = mt_mpi || mt_tool || mt_async;
	michi_state.fast = michi_state.active && !michi_mt;
	/* over a matching device the fast paths are the native ones */
	michi_state.fast_tag_end = michi_state.fast && !mtmi_tag ?
		(uint32_t)michi_state.tag_ub + 1 : 0;
	michi_state.native_tag_end = michi_state.fast && mtmi_tag ?
		(uint32_t)michi_state.tag_ub + 1 : 0;
	michi_pt2pt_choose();
}

void michi_mt_mpi(int on)
{
	mt_mpi = on;
	mt_update();
}

void michi_mt_tool(int on)
{
	mt_tool = on;
	mt_update();
}

void michi_mt_async(int on)
{
	mt_async = on;
	mt_update();
}

int michi_gate(const char *fname)
{
	if (!michi_state.active)
		return michi_not_initialized(fname);
	return michi_mt_held() ? 0 : -1;
}

/*
 * The runtime (devices, MTMI, the predefined communicators) serves the
 * world model (MPI_Init to MPI_Finalize) and every session (MPI-4.0
 * sessions, mpi/comm/session.c): the first of them starts it, the last one to
 * end shuts it down. It cannot start again in the same process (the
 * launcher's PMI connection is gone by then).
 */
static int runtime_users, runtime_over;

static int runtime_start(const char *fname, int required);

/* One more user of the runtime at thread level `required` (the level is
 * the highest any user asked for); starts it for the first. Returns an
 * MPI error code (startup failures end the process). */
int michi_runtime_up(const char *fname, int required)
{
	int level = michi_thread_level(required);

	if (runtime_over)
		return michi_mpi_err_code(MPI_ERR_OTHER, fname, "(): the MPI runtime of this "
					  "process has ended (MPI_Finalize or the last "
					  "MPI_Session_finalize) and cannot start again");
	if (!runtime_users) {
		int err = runtime_start(fname, required);

		if (err)
			return err;
	} else if (level > michi_state.thread_level) {
		michi_state.thread_level = level;
		michi_mt_mpi(level == MPI_THREAD_MULTIPLE);
	}
	runtime_users++;
	return MPI_SUCCESS;
}

static int do_init(const char *fname, int required, int *provided)
{
	int err;

	if (michi_state.initialized || michi_state.finalized) {
		fprintf(stderr, "Fatal error in %s: MPI was already %s (rank %d)\n", fname,
			michi_state.finalized ? "finalized" : "initialized", michi_state.rank);
		_exit(1);
	}
	if ((err = michi_runtime_up(fname, required))) {
		fprintf(stderr, "Fatal error in %s: the MPI runtime of this process ended with "
			"its last session and cannot start again (rank %d)\n", fname,
			michi_state.rank);
		_exit(1);
	}
	if (provided)
		*provided = michi_thread_level(required);
	michi_state.initialized = 1;
	/* a process that MPI_Comm_spawn started meets its parents here */
	return michi_dyn_init();
}

static int runtime_start(const char *fname, int required)
{
	char key[32], prefix[300], hostval[370];
	michi_status_t st;
	int have_key, i;

	michi_tunables_load();
	michi_errors_init();
	st = michi_arena_init();
	if (st)
		return init_fail(fname, st);
	michi_dt_init();

	st = pmi_init(&pmi);
	if (st)
		return init_fail(fname, st);
	job.rank = pmi.rank;
	job.size = pmi.size;
	job.local_rank = pmi.local_rank;
	job.local_size = pmi.local_size;
	job.appnum = pmi.appnum;
	job.hostname = michi_hostname();
	job.kvs_put = kvs_put;
	job.kvs_get = kvs_get;
	job.kvs_fence = kvs_fence;
	job.up = &mtmi_upcalls;
	michi_state.rank = job.rank;
	michi_state.size = job.size;
	michi_state.npeers = job.size;
	michi_state.host = job.hostname;
	snprintf(prefix, sizeof(prefix), "rank %d on %s", job.rank, job.hostname);
	michi_log_set_prefix(prefix);

	st = job_key_put(&have_key);
	if (st)
		return init_fail(fname, st);
	launcher_michi = have_key;
	/* a singleton's universe is what a local mpirun would offer: this
	 * host's processors */
	michi_state.universe_size = universe_size > 0 ? universe_size :
		pmi.singleton ? (int)sysconf(_SC_NPROCESSORS_ONLN) :
		pmi.universe_size > 0 ? pmi.universe_size : job.size;
	if (michi_state.universe_size < job.size)
		michi_state.universe_size = job.size;
	michi_state.appnum = pmi.appnum;
	st = michi_site_mine(&my_site);
	if (st)
		return init_fail(fname, st);
	snprintf(key, sizeof(key), "michi-host-%d", job.rank);
	kernel_id_read();
	snprintf(hostval, sizeof(hostval), "%s|%s|%s", job.hostname, my_kernel, my_site);
	st = pmi_put(key, hostval);
	if (st)
		return init_fail(fname, st);
	st = mtmi_devices_start(&job);
	if (st)
		return init_fail(fname, st);
	st = pmi_fence();
	if (st)
		return init_fail(fname, st);
	st = job_key_get(have_key);
	if (!st)
		st = host_map_build();
	if (st)
		return init_fail(fname, st);
	michi_state.host_of = job.host_of;
	michi_state.single_host = 1;
	for (i = 0; i < job.size; i++)
		if (job.host_of[i] != job.host_of[0])
			michi_state.single_host = 0;
	st = mtmi_devices_post_fence(&job);
	if (st)
		return init_fail(fname, st);
	/* from what every rank of the host reads alike: the devices' count
	 * comes from this process's allowed cpuset, which ranks in cgroups
	 * of their own may see differently, and the ranks of a
	 * communicator must all choose one algorithm */
	coll_oversubscribed = job.local_size > sysconf(_SC_NPROCESSORS_ONLN);
	st = mtmi_init(&job);
	if (st)
		return init_fail(fname, st);

	comm_init_predefined();
	/* the sites where none was given: measured over MTMI */
	st = michi_sites_init();
	if (st)
		return init_fail(fname, st);
	michi_state.tag_ub = 0x7fffffff;
	michi_state.thread_level = michi_thread_level(required);
	michi_info_env_init(michi_state.thread_level);
	main_thread = pthread_self();
	michi_state.active = 1;
	michi_mt_mpi(michi_state.thread_level == MPI_THREAD_MULTIPLE);
	return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
	return do_init("MPI_Init", MPI_THREAD_SINGLE, NULL);
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	if (ERRCHK && !provided) {
		fprintf(stderr, "Fatal error in MPI_Init_thread(provided=NULL): output pointer is NULL\n");
		_exit(1);
	}
	return do_init("MPI_Init_thread", required, provided);
}

/* One user of the runtime less; the last one shuts it down. */
int michi_runtime_down(const char *fname)
{
	michi_status_t st, fst;

	if (--runtime_users > 0)
		return MPI_SUCCESS;
	runtime_over = 1;
	michi_async_end();
	michi_dyn_finalize();
	/* Deliver what is in flight, then a fence so that no rank closes its
	 * connections while a peer still reads from them; MTMI keeps taking
	 * frames until the devices are closed. */
	st = mtmi_finalize();
	if (st > 0)
		st = MICHI_OK;   /* sends left behind after the tunable limit: warned */
	/* A rank whose own sends are out may still be needed by a peer: a
	 * receive freed while active (MPI_Request_free) that a rendezvous
	 * send, maybe a blocking one, waits on. So the fence keeps making
	 * MPI progress until every rank is in it, and then every rank has
	 * drained its sends above. */
	fst = pmi_fence_progress(mtmi_poll);
	/* what a peer sent before its fence may be here but not yet taken
	 * (a frame in a shm ring, for a receive freed while active): take
	 * it while there is some, in bounded rounds */
	for (int i = 0; i < 1000 && mtmi_poll() > 0; i++)
		;
	if (!st)
		st = fst;
	/* MPI_T counters read after MPI_Finalize include the last frames */
	michi_pvar_snapshot();
	mtmi_devices_stop();
	mtmi_release();
	pmi_finalize();
	michi_state.active = 0;
	michi_mt_mpi(0);
	/* the point-to-point fast paths test no state flag: an empty world
	 * (and self) sends them to the general path, which reports. Any
	 * communicator still alive here must be emptied the same way. */
	michi_comm_world.size = 0;
	michi_comm_self.size = 0;
	michi_comms_finalize();
	michi_sites_finalize();
	if (st)
		return michi_mpi_err_status(&michi_comm_world, st, fname);
	return MPI_SUCCESS;
}

int PMPI_Finalize(void)
{
	MICHI_CHECK_INIT("MPI_Finalize");
	if (!michi_state.initialized)
		return michi_mpi_err(NULL, MPI_ERR_OTHER, "MPI_Finalize",
				     "(): MPI_Init was not called (sessions end with "
				     "MPI_Session_finalize)");
	/* MPI-3.1 8.7.1: attributes on MPI_COMM_SELF go first, as if it were
	 * freed, so their delete callbacks can still use MPI */
	michi_attrs_delete_all(MPI_COMM_SELF, &michi_comm_self.attrs);
	michi_state.finalized = 1;
	return michi_runtime_down("MPI_Finalize");
}

int PMPI_Initialized(int *flag)
{
	if (ERRCHK && !flag)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Initialized", "(flag=NULL): output pointer is NULL");
	*flag = michi_state.initialized;
	return MPI_SUCCESS;
}
MICHI_ALIAS_UNLOCKED(Initialized)

int PMPI_Finalized(int *flag)
{
	if (ERRCHK && !flag)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Finalized", "(flag=NULL): output pointer is NULL");
	*flag = michi_state.finalized;
	return MPI_SUCCESS;
}
MICHI_ALIAS_UNLOCKED(Finalized)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "application called MPI_Abort(comm=0x%x, %d) - process %d",
		 (unsigned)comm, errorcode, michi_state.rank);
	/* what the program printed is not lost in stdio buffers by _exit */
	fflush(NULL);
	fprintf(stderr, "%s\n", msg);
	fflush(stderr);
	if (michi_state.initialized && !pmi.singleton)
		pmi_abort(errorcode, msg);
	_exit(errorcode & 0xff ? errorcode & 0xff : (errorcode ? 1 : 0));
}
MICHI_ALIAS_UNLOCKED(Abort)

int PMPI_Query_thread(int *provided)
{
	MICHI_CHECK_INIT("MPI_Query_thread");
	if (ERRCHK && !provided)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Query_thread", "(provided=NULL): output pointer is NULL");
	*provided = michi_state.thread_level;
	return MPI_SUCCESS;
}
MICHI_ALIAS_UNLOCKED(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
	MICHI_CHECK_INIT("MPI_Is_thread_main");
	if (ERRCHK && !flag)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Is_thread_main", "(flag=NULL): output pointer is NULL");
	*flag = pthread_equal(pthread_self(), main_thread);
	return MPI_SUCCESS;
}
MICHI_ALIAS_UNLOCKED(Is_thread_main)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
	if (ERRCHK && (!name || !resultlen))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Get_processor_name",
				     "(name=%p, resultlen=%p): output pointer is NULL",
				     (void *)name, (void *)resultlen);
	snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", michi_hostname());
	*resultlen = (int)strlen(name);
	return MPI_SUCCESS;
}
MICHI_ALIAS_UNLOCKED(Get_processor_name)

int PMPI_Get_version(int *version, int *subversion)
{
	if (ERRCHK && (!version || !subversion))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Get_version", "(): output pointer is NULL");
	*version = MPI_VERSION;
	*subversion = MPI_SUBVERSION;
	return MPI_SUCCESS;
}
MICHI_ALIAS_UNLOCKED(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
	if (ERRCHK && (!version || !resultlen))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Get_library_version", "(): output pointer is NULL");
	snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
		 "Michi MPI %s (MPI %d.%d, MPICH ABI), error checking %s",
		 PACKAGE_VERSION, MPI_VERSION, MPI_SUBVERSION, ERRCHK ? "runtime" : "off");
	*resultlen = (int)strlen(version);
	return MPI_SUCCESS;
}
MICHI_ALIAS_UNLOCKED(Get_library_version)

double PMPI_Wtime(void)
{
	return michi_wtime();
}
MICHI_ALIAS_UNLOCKED(Wtime)

double PMPI_Wtick(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC, &ts) != 0)
		return 1e-9;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
MICHI_ALIAS_UNLOCKED(Wtick)
