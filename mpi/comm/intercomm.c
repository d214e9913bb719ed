/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/intercomm.c: intercommunicators: MPI_Intercomm_create and _merge,
 * the remote group, and dup, split, create and barrier on them.
 *
 * An intercommunicator is a struct michi_comm whose rank, size and peers
 * are what point-to-point needs (the caller's rank in its own group, the
 * remote group's size and world ranks), so sends and receives take the
 * intracommunicator paths unchanged; `local` is a private
 * intracommunicator of the caller's group for the local half of every
 * collective step. The two groups talk through their leaders (local rank
 * 0): MPI_Intercomm_create over the peer communicator with the user's
 * tag, later operations over the intercommunicator's own collective
 * context. A context id serves both groups: each group ANDs its free-id
 * bitmaps, the leaders swap and AND the two, and each group broadcasts
 * the result, so every process of both groups takes the same id.
 * MPI_Intercomm_create_from_groups (MPI-4.0) has no communicators to start
 * from: it makes them from the groups (as MPI_Comm_create_from_group
 * does), the local group's and one of the two leaders, and runs
 * MPI_Intercomm_create over them.
 */
#include "mpiimpl.h"
#include "coll.h"
#include "group.h"
#include "info.h"
#include "pt2pt.h"

#include <stdlib.h>
#include <string.h>

/* leader-to-leader frames on the collective context: a tag that neither
 * the collectives (positive, coll/coll.h) nor MPI_Comm_create_group
 * (-20 and below) use */
#define INTER_TAG (-1)

static int inter_err(struct michi_comm *c, const char *fname, int cls, const char *what)
{
	return michi_mpi_err(c, cls, fname, "(): %s", what);
}

/*
 * The two leaders swap data over c's collective context, n bytes out and
 * m in (each side knows both); then every member of the local group gets
 * the remote bytes. Collective over both groups.
 */
static int leaders_swap2(struct michi_comm *c, const void *mine, size_t n, void *theirs,
			 size_t m)
{
	if (c->rank == 0) {
		/* peers index the remote group; our own rank there is 0 */
		struct coll_comm cc = { .rank = 0, .size = c->size, .ctx = c->ctx + 1,
					.peers = c->peers, .tag_ofs = 0, .hosts = NULL };
		michi_status_t st = coll_sendrecv(&cc, mine, n, 0, theirs, m, 0, INTER_TAG);

		if (st < 0)
			return michi_mpi_err_status(c, st, "intercommunicator");
	}
	return m ? PMPI_Bcast(theirs, (int)m, MPI_BYTE, 0, c->local->handle) : MPI_SUCCESS;
}

static int leaders_swap(struct michi_comm *c, const void *mine, void *theirs, size_t n)
{
	return leaders_swap2(c, mine, n, theirs, n);
}

/* The same for arrays of ints: n out, m in. */
static int leaders_swap_v(struct michi_comm *c, const int *mine, int n, int *theirs, int m)
{
	return leaders_swap2(c, mine, sizeof(int) * (size_t)n, theirs, sizeof(int) * (size_t)m);
}

static int swap_inter(void *arg, const uint32_t *mine, uint32_t *theirs, size_t n)
{
	return leaders_swap(arg, mine, theirs, n);
}

/* A context id free on every process of both groups of c. */
static int inter_ctx(struct michi_comm *c, uint32_t *ctx)
{
	return michi_ctx_agree(c->local, (uint64_t)c->ctx << 32, swap_inter, c, ctx);
}

/* A new intercommunicator to the remote world ranks, with its local half. */
static int inter_new(struct michi_comm *parent, const int *remote, int nremote, int rank,
		     uint32_t ctx, MPI_Comm local, MPI_Comm *newcomm, const char *fname)
{
	struct michi_comm *n = michi_comm_new(parent, remote, nremote, rank, ctx);

	if (!n) {
		michi_ctx_release(ctx);
		PMPI_Comm_free(&local);
		return michi_mpi_err(parent, MPI_ERR_NO_MEM, fname, "(): no memory");
	}
	n->local = michi_comm_get(local);
	/* dup, split, create of an intercommunicator to another job keep
	 * its order for merge */
	n->dyn_order = parent->local ? parent->dyn_order : 0;
	*newcomm = n->handle;
	return MPI_SUCCESS;
}

int michi_inter_make(struct michi_comm *parent, const int *remote, int nremote, int rank,
		     uint32_t ctx, MPI_Comm local, MPI_Comm *newcomm, const char *fname)
{
	return inter_new(parent, remote, nremote, rank, ctx, local, newcomm, fname);
}

/* Intercomm_create's swap of the ANDed maps: the leaders over peer_comm,
 * then the other group's map to every local member. */
struct create_swap {
	struct michi_comm *lc;
	int lead, local_leader, remote_leader, tag;
	MPI_Comm peer_comm;
};

static int swap_create(void *arg, const uint32_t *mine, uint32_t *theirs, size_t n)
{
	struct create_swap *x = arg;
	int err = MPI_SUCCESS;

	if (x->lead)
		err = PMPI_Sendrecv(mine, (int)n, MPI_BYTE, x->remote_leader, x->tag, theirs, (int)n,
				    MPI_BYTE, x->remote_leader, x->tag, x->peer_comm,
				    MPI_STATUS_IGNORE);
	/* the others wait for the leader's result whatever happened to it */
	if (err)
		memset(theirs, 0, n);
	return PMPI_Bcast(theirs, (int)n, MPI_BYTE, x->local_leader, x->lc->handle) || err
		? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* Intercomm_create's exchange: the remote group's world ranks and an id
 * free on every process of both groups, taken here. */
static int inter_create_ids(struct michi_comm *lc, int lead, int local_leader,
			    MPI_Comm peer_comm, int remote_leader, int tag, int **premote,
			    int *pnremote, uint32_t *ctx)
{
	static const char fname[] = "MPI_Intercomm_create";
	struct create_swap x = { lc, lead, local_leader, remote_leader, tag, peer_comm };
	/* size, context id, and whether a process of another job takes part
	 * (mpi/comm/dynproc.c): then peer indices mean nothing on the other side,
	 * and the groups trade their members' addresses instead */
	int mine[3] = { lc->size, (int)lc->ctx, 0 }, theirs[3] = { 0, 0, 0 };
	int nremote = 0, *remote = NULL, err, i;
	uint32_t key;

	/* the leaders swap group sizes, context ids (the lower is the
	 * agreement's key in both groups) and members over peer_comm */
	if (lead) {
		struct michi_comm *pc = michi_comm_get(peer_comm);

		for (i = 0; i < lc->size; i++)
			mine[2] |= lc->peers[i] >= michi_state.size;
		mine[2] |= pc->peers[remote_leader] >= michi_state.size;
		err = PMPI_Sendrecv(mine, 3, MPI_INT, remote_leader, tag, theirs, 3, MPI_INT,
				    remote_leader, tag, peer_comm, MPI_STATUS_IGNORE);
		nremote = theirs[0];
		theirs[2] |= mine[2];
		if (!err && nremote < 1)
			err = inter_err(lc, fname, MPI_ERR_OTHER, "the remote group is empty");
		if (!err && !(remote = malloc(sizeof(int) * (size_t)nremote)))
			err = michi_err_nomem(lc, fname);
		if (!err && !theirs[2])
			err = PMPI_Sendrecv(lc->peers, lc->size, MPI_INT, remote_leader, tag, remote,
					    nremote, MPI_INT, remote_leader, tag, peer_comm,
					    MPI_STATUS_IGNORE);
		if (err) {
			/* tell the others there is nothing to wait for */
			theirs[0] = -1;
		}
	}
	err = PMPI_Bcast(theirs, 3, MPI_INT, local_leader, lc->handle);
	nremote = theirs[0];
	if (err || nremote < 1) {
		free(remote);
		return err ? err : inter_err(lc, fname, MPI_ERR_OTHER,
					     "the leaders could not exchange their groups");
	}
	if (!lead && !(remote = malloc(sizeof(int) * (size_t)nremote)))
		return michi_err_nomem(lc, fname);   /* erroneous from here, as MPICH */
	if (theirs[2])
		err = michi_dyn_members(lc, local_leader, peer_comm, remote_leader, tag, remote,
					nremote, fname);
	else
		err = PMPI_Bcast(remote, nremote, MPI_INT, local_leader, lc->handle);
	key = (uint32_t)theirs[1] < lc->ctx ? (uint32_t)theirs[1] : lc->ctx;
	if (!err)
		err = michi_ctx_agree(lc, (uint64_t)key << 32 | 0xffffffffu, swap_create, &x, ctx);
	if (err) {
		free(remote);
		return err;
	}
	*premote = remote;
	*pnremote = nremote;
	return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
			  int remote_leader, int tag, MPI_Comm *newintercomm)
{
	static const char fname[] = "MPI_Intercomm_create";
	struct michi_comm *lc, *pc = NULL;
	int lead, nremote = 0, *remote = NULL, err;
	uint32_t ctx;
	MPI_Comm local;

	MICHI_CHECK_INIT(fname);
	lc = michi_comm_get(local_comm);
	if (!lc)
		return michi_check_comm_slow(local_comm, fname);
	if (lc->local)
		return inter_err(lc, fname, MPI_ERR_COMM, "local_comm is an intercommunicator");
	if (!newintercomm)
		return michi_err_null(lc, fname, "newintercomm");
	if ((unsigned)local_leader >= (unsigned)lc->size)
		return michi_err_rank(lc, fname, "local_leader", local_leader);
	lead = lc->rank == local_leader;
	if (lead) {
		pc = michi_comm_get(peer_comm);
		if (!pc)
			return michi_check_comm_slow(peer_comm, fname);
		if ((unsigned)remote_leader >= (unsigned)pc->size)
			return michi_err_rank(pc, fname, "remote_leader", remote_leader);
		if ((unsigned)tag > (unsigned)michi_state.tag_ub)
			return michi_err_tag(pc, fname, tag, 0);
	}
	/* the local half first: its own id must not come from the map
	 * offered below */
	err = PMPI_Comm_dup(local_comm, &local);
	if (err)
		return err;
	err = inter_create_ids(lc, lead, local_leader, peer_comm, remote_leader, tag, &remote,
			       &nremote, &ctx);
	if (err) {
		PMPI_Comm_free(&local);
		return err;
	}
	err = inter_new(lc, remote, nremote, lc->rank, ctx, local, newintercomm, fname);
	free(remote);
	return err;
}

/*
 * MPI_Intercomm_create_from_groups: collective over the members of both
 * groups alone (no parent communicator). The local group gets an
 * intracommunicator of its own, keyed by the string tag; the two leaders
 * get one of the pair (lower world rank first, so both sides build the
 * same), under a key the local groups' creations do not use; then
 * MPI_Intercomm_create joins the groups over that pair, and both helpers
 * are freed. Errors belong to no object (MPI_COMM_SELF's handler); the new
 * intercommunicator gets errhandler and info.
 */
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
				      MPI_Group remote_group, int remote_leader,
				      const char *stringtag, MPI_Info info,
				      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
	static const char fname[] = "MPI_Intercomm_create_from_groups";
	struct michi_group *lg, *rg, *pg;
	struct michi_comm *lc = NULL, *pc = NULL;
	MPI_Comm lh, ph = MPI_COMM_NULL;
	uint32_t key;
	int err, me = -1, them = -1, pair[2];

	MICHI_CHECK_INIT(fname);
	if (!newintercomm)
		return michi_err_null(NULL, fname, "newintercomm");
	if (!stringtag)
		return michi_err_null(NULL, fname, "stringtag");
	*newintercomm = MPI_COMM_NULL;
	if (!(lg = michi_group_get(local_group)))
		return michi_mpi_err(NULL, MPI_ERR_GROUP, fname,
				     "(local_group=0x%x): not a valid group", (unsigned)local_group);
	if (!(rg = michi_group_get(remote_group)))
		return michi_mpi_err(NULL, MPI_ERR_GROUP, fname,
				     "(remote_group=0x%x): not a valid group", (unsigned)remote_group);
	if (lg->rank == MPI_UNDEFINED)
		return michi_mpi_err(NULL, MPI_ERR_GROUP, fname,
				     "(local_group): the calling process is not a member");
	if (rg->rank != MPI_UNDEFINED)
		return michi_mpi_err(NULL, MPI_ERR_GROUP, fname,
				     "(remote_group): the calling process is a member; the two "
				     "groups must be disjoint");
	if ((unsigned)local_leader >= (unsigned)lg->size)
		return michi_mpi_err(NULL, MPI_ERR_RANK, fname,
				     "(local_leader=%d): out of range, local_group has %d members",
				     local_leader, lg->size);
	if ((unsigned)remote_leader >= (unsigned)rg->size)
		return michi_mpi_err(NULL, MPI_ERR_RANK, fname,
				     "(remote_leader=%d): out of range, remote_group has %d members",
				     remote_leader, rg->size);
	if (info != MPI_INFO_NULL && !michi_info_get(info))
		return michi_mpi_err(NULL, MPI_ERR_INFO, fname, "(info=0x%x): not a valid info",
				     (unsigned)info);
	key = michi_stringtag_key(stringtag);
	if ((err = michi_comm_from_group(lg, key, fname, &lc)))
		return err;
	lh = lc->handle;
	if (lg->rank == local_leader) {
		me = lg->ranks[local_leader];
		them = rg->ranks[remote_leader];
		pair[0] = me < them ? me : them;
		pair[1] = me < them ? them : me;
		pg = michi_group_new(pair, 2);
		if (!pg) {
			PMPI_Comm_free(&lh);
			return michi_err_nomem(NULL, fname);
		}
		/* a key of its own, with other low 16 bits: those pick the
		 * tags of the creation, which runs on MPI_COMM_WORLD's context
		 * like the local group's; with the same tags a leader's receive
		 * from rank 1 of its local group could take the other leader's
		 * message (rank 1 of the pair) */
		err = michi_comm_from_group(pg, key ^ 1u, fname, &pc);
		michi_group_release(pg);
		if (err) {
			PMPI_Comm_free(&lh);
			return err;
		}
		ph = pc->handle;
	}
	err = PMPI_Intercomm_create(lh, local_leader, ph, me < them ? 1 : 0, 0, newintercomm);
	if (ph != MPI_COMM_NULL)
		PMPI_Comm_free(&ph);
	PMPI_Comm_free(&lh);
	if (err)
		return err;
	if (errhandler != MPI_ERRHANDLER_NULL)
		PMPI_Comm_set_errhandler(*newintercomm, errhandler);
	if (info != MPI_INFO_NULL)
		return PMPI_Comm_set_info(*newintercomm, info);
	return MPI_SUCCESS;
}

static int inter_arg(const char *fname, MPI_Comm comm, struct michi_comm **c)
{
	MICHI_CHECK_INIT(fname);
	*c = michi_comm_get(comm);
	if (!*c)
		return michi_check_comm_slow(comm, fname);
	if (!(*c)->local)
		return inter_err(*c, fname, MPI_ERR_COMM, "not an intercommunicator");
	return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
	struct michi_comm *c;
	int err = inter_arg("MPI_Comm_remote_size", comm, &c);

	if (err)
		return err;
	if (!size)
		return michi_err_null(c, "MPI_Comm_remote_size", "size");
	*size = c->size;
	return MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
	struct michi_comm *c;
	struct michi_group *g;
	int err = inter_arg("MPI_Comm_remote_group", comm, &c);

	if (err)
		return err;
	if (!group)
		return michi_err_null(c, "MPI_Comm_remote_group", "group");
	g = michi_group_new(c->peers, c->size);
	if (!g)
		return michi_err_nomem(c, "MPI_Comm_remote_group");
	*group = (MPI_Group)michi_p2h(g);
	return MPI_SUCCESS;
}

/*
 * The union of both groups, the low group first: the one whose processes
 * passed high = false; on a tie, the one whose leader has the lower world
 * rank (both sides see the same two leaders).
 */
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
	static const char fname[] = "MPI_Intercomm_merge";
	struct michi_comm *c, *n;
	int err, mine = !!high, theirs, first, nl, *world;
	uint32_t ctx;

	if ((err = inter_arg(fname, intercomm, &c)))
		return err;
	if (!newintracomm)
		return michi_err_null(c, fname, "newintracomm");
	err = leaders_swap(c, &mine, &theirs, sizeof(int));
	if (!err)
		err = inter_ctx(c, &ctx);
	if (err)
		return err;
	nl = c->local->size;
	first = mine != theirs ? !mine :
		c->dyn_order ? c->dyn_order == 1 : c->local->peers[0] < c->peers[0];
	world = malloc(sizeof(int) * (size_t)(nl + c->size));
	if (!world) {
		michi_ctx_release(ctx);
		return michi_err_nomem(c, fname);
	}
	memcpy(world + (first ? 0 : c->size), c->local->peers, sizeof(int) * (size_t)nl);
	memcpy(world + (first ? nl : 0), c->peers, sizeof(int) * (size_t)c->size);
	n = michi_comm_new(c, world, nl + c->size, (first ? 0 : c->size) + c->rank, ctx);
	free(world);
	if (!n) {
		michi_ctx_release(ctx);
		return michi_err_nomem(c, fname);
	}
	*newintracomm = n->handle;
	return MPI_SUCCESS;
}

int michi_inter_dup(const char *fname, struct michi_comm *c, MPI_Comm *newcomm)
{
	MPI_Comm local;
	uint32_t ctx;
	int err = inter_ctx(c, &ctx);

	if (err)
		return err;
	err = PMPI_Comm_dup(c->local->handle, &local);
	if (err) {
		michi_ctx_release(ctx);
		return err;
	}
	return inter_new(c, c->peers, c->size, c->rank, ctx, local, newcomm, fname);
}

struct member {
	int color, key, rank;
};

static int member_order(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->rank - y->rank;
}

/*
 * MPI_Comm_split on an intercommunicator: the local processes of one
 * color, ordered by key, face the remote processes of the same color.
 * Each group learns the other's colors and keys through the leaders; one
 * context id serves every child (their members differ).
 */
int michi_inter_split(const char *fname, struct michi_comm *c, int color, int key,
		      MPI_Comm *newcomm)
{
	int nl = c->local->size, nr = c->size, me[2] = { color, key }, *lpairs, *rpairs;
	int err, i, k = 0, *remote;
	struct member *m;
	MPI_Comm local;
	uint32_t ctx;

	lpairs = malloc(sizeof(int) * 2 * (size_t)(nl + nr));
	m = malloc(sizeof(*m) * (size_t)nr);
	remote = malloc(sizeof(int) * (size_t)nr);
	if (!lpairs || !m || !remote) {
		free(lpairs);
		free(m);
		free(remote);
		return michi_err_nomem(c, fname);
	}
	rpairs = lpairs + 2 * nl;
	err = PMPI_Allgather(me, 2, MPI_INT, lpairs, 2, MPI_INT, c->local->handle);
	if (!err)
		err = leaders_swap_v(c, lpairs, 2 * nl, rpairs, 2 * nr);
	if (!err)
		err = inter_ctx(c, &ctx);
	if (!err)
		err = michi_comm_split(fname, c->local, color, key, &local);
	if (err)
		goto out;
	for (i = 0; i < nr && color != MPI_UNDEFINED; i++)
		if (rpairs[2 * i] == color)
			m[k++] = (struct member){ color, rpairs[2 * i + 1], i };
	qsort(m, (size_t)k, sizeof(*m), member_order);
	for (i = 0; i < k; i++)
		remote[i] = c->peers[m[i].rank];
	*newcomm = MPI_COMM_NULL;
	if (local == MPI_COMM_NULL || k == 0) {
		michi_ctx_release(ctx);
		if (local != MPI_COMM_NULL)
			PMPI_Comm_free(&local);
	} else {
		err = inter_new(c, remote, k, michi_comm_get(local)->rank, ctx, local, newcomm,
				fname);
	}
out:
	free(lpairs);
	free(m);
	free(remote);
	return err;
}

/* MPI_Comm_create on an intercommunicator: each group passes a subgroup
 * of its own; the members of the two face each other. */
int michi_inter_create(const char *fname, struct michi_comm *c, MPI_Group group,
		       MPI_Comm *newcomm)
{
	struct michi_group *g = michi_group_get(group);
	int nr, nmine, err, *remote = NULL, *pos = NULL, i, j;
	MPI_Comm local;
	uint32_t ctx;

	if (!g)
		return michi_mpi_err(c, MPI_ERR_GROUP, fname, "(group=0x%x): not a valid group",
				     (unsigned)group);
	nmine = g->size;
	err = leaders_swap(c, &nmine, &nr, sizeof(int));
	if (!err && !(remote = malloc(sizeof(int) * (size_t)(nr ? nr : 1))))
		err = michi_err_nomem(c, fname);
	/* the members as ranks of their group, which the other side maps
	 * to its own peers (peer indices of another job mean nothing there) */
	if (!err && !(pos = malloc(sizeof(int) * (size_t)(nmine ? nmine : 1))))
		err = michi_err_nomem(c, fname);
	for (i = 0; !err && i < nmine; i++) {
		for (j = 0; j < c->local->size && c->local->peers[j] != g->ranks[i]; j++)
			;
		pos[i] = j;
	}
	if (!err)
		err = leaders_swap_v(c, pos, nmine, remote, nr);
	free(pos);
	for (i = 0; !err && i < nr; i++) {
		if (remote[i] < 0 || remote[i] >= c->size) {
			err = inter_err(c, fname, MPI_ERR_GROUP, "the remote group names a process "
					"outside its group");
			break;
		}
		remote[i] = c->peers[remote[i]];
	}
	if (!err)
		err = inter_ctx(c, &ctx);
	if (!err)
		err = PMPI_Comm_create(c->local->handle, group, &local);
	if (err) {
		free(remote);
		return err;
	}
	*newcomm = MPI_COMM_NULL;
	if (local == MPI_COMM_NULL || nr == 0) {
		michi_ctx_release(ctx);
		if (local != MPI_COMM_NULL)
			PMPI_Comm_free(&local);
	} else {
		err = inter_new(c, remote, nr, g->rank, ctx, local, newcomm, fname);
	}
	free(remote);
	return err;
}
