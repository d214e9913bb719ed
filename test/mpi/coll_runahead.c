/* SPDX-License-Identifier: MIT */
/*
 * Collectives where some ranks run far ahead of others, as in back-to-back
 * rooted collectives on an oversubscribed host: while one branch of a
 * reduce or gather tree is away, the root takes in call after call from
 * the others; the root of a bcast sends call after call before the others
 * arrive. Every result is checked.
 *
 * On Michi the test also checks how the queued messages are found: a
 * rank that comes back to a pile of unexpected messages from later calls
 * must find each call's message at the head of where it looks, not walk
 * past the later ones (MTMI hashes the collective tags without the call
 * number, coll/coll.h). The MPI_T counter mtmi_unexpected_match_attempts
 * may grow by a few per receive, not by the length of the pile; run with
 * a small MICHI_MTMI_HASH_BUCKETS this fails when later calls' messages
 * share buckets with the one looked for.
 *
 * Then more nonblocking collectives outstanding at once than the call
 * numbers in a collective tag (2048), so calls whose numbers wrap share
 * their tags and only the order of posting keeps them apart.
 */
#include "mtest.h"

#define NCALLS 2000
#define NOUT 2600          /* outstanding MPI_Ibcast: more than 2048 */
#define AWAY_S 0.3

static int michi;
static MPI_T_pvar_session sess;
static MPI_T_pvar_handle attempts_h;
static int have_attempts;

static void pvar_open(void)
{
	int idx, n, rc;

	if (!michi)
		return;
	MPI_T_pvar_session_create(&sess);
	rc = MPI_T_pvar_get_index("mtmi_unexpected_match_attempts", MPI_T_PVAR_CLASS_COUNTER,
				  &idx);
	if (!mtest_check(rc == MPI_SUCCESS, "pvar mtmi_unexpected_match_attempts: error %d",
			 rc))
		return;
	MPI_T_pvar_handle_alloc(sess, idx, NULL, &attempts_h, &n);
	MPI_T_pvar_start(sess, attempts_h);
	have_attempts = 1;
}

static unsigned long long attempts(void)
{
	unsigned long long v = 0;

	if (have_attempts)
		MPI_T_pvar_read(sess, attempts_h, &v);
	return v;
}

static void check_attempts(const char *what, unsigned long long before, int calls)
{
	unsigned long long used = attempts() - before;
	/* a rank receives at most n - 1 messages per call of these rooted
	 * collectives, whatever the algorithm; each search should find its
	 * message first or second */
	unsigned long long bound = 2ull * (unsigned long long)calls *
				   (unsigned long long)(mtest_size - 1);

	if (!have_attempts)
		return;
	mtest_check(used <= bound, "%s: %llu unexpected messages compared for %d calls "
		    "(at most %llu expected): receives walk past later calls' messages",
		    what, used, calls, bound);
}

/*
 * The rank furthest from the root in the tree (the last one counted from
 * the root) away: the root waits for its branch and meanwhile takes in
 * call after call of its other children, which run ahead.
 */
static int away_rank(int root)
{
	return (root + mtest_size - 1) % mtest_size;
}

static void reduce_runahead(int root)
{
	unsigned long long before;
	int i, in, out, bad = 0;

	MPI_Barrier(MPI_COMM_WORLD);
	if (mtest_rank == away_rank(root))
		mtest_sleep(AWAY_S);
	before = attempts();
	for (i = 0; i < NCALLS; i++) {
		in = i * 7 + mtest_rank;
		out = -1;
		MPI_Reduce(&in, &out, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
		if (mtest_rank == root &&
		    out != i * 7 * mtest_size + mtest_size * (mtest_size - 1) / 2 && bad++ < 5)
			mtest_error("reduce call %d at root %d: got %d", i, root, out);
	}
	check_attempts("reduce with the last rank away", before, NCALLS);
}

/* everyone but the root away while it broadcasts call after call */
static void bcast_runahead(int root)
{
	unsigned long long before;
	int i, v, bad = 0;

	MPI_Barrier(MPI_COMM_WORLD);
	if (mtest_rank != root)
		mtest_sleep(AWAY_S);
	before = attempts();
	for (i = 0; i < NCALLS; i++) {
		v = mtest_rank == root ? i * 3 + 1 : -1;
		MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD);
		if (v != i * 3 + 1 && bad++ < 5)
			mtest_error("bcast call %d from root %d: got %d", i, root, v);
	}
	check_attempts("bcast with the receivers away", before, NCALLS);
}

/* a gather with blocks of 8 bytes, the last rank away */
static void gather_runahead(int root)
{
	unsigned long long before;
	int i, j, bad = 0, mine[2], *all = NULL;

	if (mtest_rank == root)
		all = mtest_malloc(sizeof(int) * 2 * (size_t)mtest_size);
	MPI_Barrier(MPI_COMM_WORLD);
	if (mtest_rank == away_rank(root))
		mtest_sleep(AWAY_S);
	before = attempts();
	for (i = 0; i < NCALLS; i++) {
		mine[0] = i;
		mine[1] = mtest_rank;
		MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, root, MPI_COMM_WORLD);
		if (mtest_rank != root)
			continue;
		for (j = 0; j < mtest_size; j++)
			if ((all[2 * j] != i || all[2 * j + 1] != j) && bad++ < 5)
				mtest_error("gather call %d, block %d: got %d,%d", i, j,
					    all[2 * j], all[2 * j + 1]);
	}
	check_attempts("gather with the last rank away", before, NCALLS);
	free(all);
}

/* more outstanding than the 2048 call numbers of a collective tag */
static void ibcast_wrap(void)
{
	MPI_Request *req = mtest_malloc(sizeof(*req) * NOUT);
	int *v = mtest_malloc(sizeof(int) * NOUT);
	int i, root, bad = 0;

	for (i = 0; i < NOUT; i++) {
		root = i % mtest_size;
		v[i] = mtest_rank == root ? i * 5 + root : -1;
		MPI_Ibcast(&v[i], 1, MPI_INT, root, MPI_COMM_WORLD, &req[i]);
	}
	for (i = 0; i < NOUT; i++)
		MPI_Wait(&req[i], MPI_STATUS_IGNORE);
	for (i = 0; i < NOUT; i++)
		if (v[i] != i * 5 + i % mtest_size && bad++ < 5)
			mtest_error("ibcast %d of %d outstanding: got %d", i, NOUT, v[i]);
	free(v);
	free(req);
}

int main(int argc, char **argv)
{
	int provided;

	MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	mtest_init(&argc, &argv);
	michi = mtest_is_michi();
	pvar_open();
	reduce_runahead(0);
	reduce_runahead(mtest_size - 1);
	bcast_runahead(0);
	gather_runahead(mtest_size / 2);
	ibcast_wrap();
	if (have_attempts) {
		MPI_T_pvar_handle_free(sess, &attempts_h);
		MPI_T_pvar_session_free(&sess);
	}
	MPI_T_finalize();
	return mtest_finalize();
}
