/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/group.c: process groups.
 *
 * A group is an ordered list of world ranks in a slab object; the calling
 * process's rank in it is computed once at creation. MPI_GROUP_EMPTY is a
 * static object. Set operations keep MPI's orders: union is group1 then
 * the members of group2 not in group1, intersection and difference follow
 * group1. Membership tests use a per-call map over world ranks, so every
 * operation is linear in the sizes involved.
 */
#include "mpiimpl.h"
#include "group.h"

#include <stdlib.h>
#include <string.h>

struct michi_group michi_group_empty = { .size = 0, .rank = MPI_UNDEFINED };

struct michi_group *michi_group_get(MPI_Group g)
{
	if (g == MPI_GROUP_EMPTY)
		return &michi_group_empty;
	return michi_obj_check((uint32_t)g, MICHI_KIND_GROUP);
}

static int group_bad(const char *fname, const char *arg, MPI_Group g)
{
	return michi_mpi_err(NULL, MPI_ERR_GROUP, fname, "(%s=0x%x): %s", arg, (unsigned)g,
			     g == MPI_GROUP_NULL ? "null group" : "not a valid group");
}

/* A new group of n world ranks (copied); NULL when out of memory. */
struct michi_group *michi_group_new(const int *world, int n)
{
	struct michi_group *g;
	int i;

	g = michi_obj_alloc(MICHI_KIND_GROUP);
	if (!g)
		return NULL;
	g->ranks = malloc((size_t)(n ? n : 1) * sizeof(int));
	if (!g->ranks) {
		michi_obj_free(MICHI_KIND_GROUP, g);
		return NULL;
	}
	memcpy(g->ranks, world, (size_t)n * sizeof(int));
	g->size = n;
	g->rank = MPI_UNDEFINED;
	for (i = 0; i < n; i++)
		if (world[i] == michi_state.rank)
			g->rank = i;
	return g;
}

void michi_group_release(struct michi_group *g)
{
	if (g == &michi_group_empty)
		return;
	free(g->ranks);
	michi_obj_free(MICHI_KIND_GROUP, g);
}

/* Hand a new group to the user (n == 0 gives MPI_GROUP_EMPTY). */
static int group_out(const char *fname, const int *world, int n, MPI_Group *out)
{
	struct michi_group *g;

	if (n == 0) {
		*out = MPI_GROUP_EMPTY;
		return MPI_SUCCESS;
	}
	g = michi_group_new(world, n);
	if (!g)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory for a group of %d",
				     n);
	*out = (MPI_Group)michi_p2h(g);
	return MPI_SUCCESS;
}

/* mark[w] = 1 + position of world rank w in g, or 0. */
static int *group_map(const struct michi_group *g)
{
	int *mark = calloc((size_t)michi_state.npeers, sizeof(int));
	int i;

	if (mark)
		for (i = 0; i < g->size; i++)
			mark[g->ranks[i]] = i + 1;
	return mark;
}

#define GROUP_ARG(fname, h, g) do { \
	MICHI_CHECK_INIT(fname); \
	(g) = michi_group_get(h); \
	if (ERRCHK && unlikely(!(g))) \
		return group_bad(fname, #h, h); \
} while (0)

int PMPI_Group_size(MPI_Group group, int *size)
{
	struct michi_group *g;

	GROUP_ARG("MPI_Group_size", group, g);
	if (ERRCHK && !size)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_size", "(size=NULL): NULL pointer");
	*size = g->size;
	return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
	struct michi_group *g;

	GROUP_ARG("MPI_Group_rank", group, g);
	if (ERRCHK && !rank)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_rank", "(rank=NULL): NULL pointer");
	*rank = g->rank;
	return MPI_SUCCESS;
}

int PMPI_Group_free(MPI_Group *group)
{
	struct michi_group *g;

	MICHI_CHECK_INIT("MPI_Group_free");
	if (ERRCHK && !group)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_free", "(group=NULL): NULL pointer");
	g = michi_group_get(*group);
	if (ERRCHK && unlikely(!g))
		return group_bad("MPI_Group_free", "*group", *group);
	/* freeing MPI_GROUP_EMPTY is allowed and leaves it usable */
	michi_group_release(g);
	*group = MPI_GROUP_NULL;
	return MPI_SUCCESS;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
	struct michi_comm *c;

	MICHI_CHECK_INIT("MPI_Comm_group");
	c = michi_comm_get(comm);
	if (ERRCHK && unlikely(!c))
		return michi_check_comm_slow(comm, "MPI_Comm_group");
	if (ERRCHK && !group)
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Comm_group", "(group=NULL): NULL pointer");
	if (c->local)   /* an intercommunicator: its local group */
		c = c->local;
	return group_out("MPI_Comm_group", c->peers, c->size, group);
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
			       int ranks2[])
{
	struct michi_group *a, *b;
	int *mark, i;

	GROUP_ARG("MPI_Group_translate_ranks", group1, a);
	b = michi_group_get(group2);
	if (ERRCHK && !b)
		return group_bad("MPI_Group_translate_ranks", "group2", group2);
	if (ERRCHK && (n < 0 || (n > 0 && (!ranks1 || !ranks2))))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_translate_ranks",
				     "(n=%d): negative count or NULL array", n);
	for (i = 0; ERRCHK && i < n; i++)
		if (ranks1[i] != MPI_PROC_NULL && (unsigned)ranks1[i] >= (unsigned)a->size)
			return michi_mpi_err(NULL, MPI_ERR_RANK, "MPI_Group_translate_ranks",
					     "(ranks1[%d]=%d): not a rank of group1 (size %d)",
					     i, ranks1[i], a->size);
	mark = group_map(b);
	if (!mark)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Group_translate_ranks", "(): no memory");
	for (i = 0; i < n; i++)
		ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL
			  : mark[a->ranks[ranks1[i]]] ? mark[a->ranks[ranks1[i]]] - 1 : MPI_UNDEFINED;
	free(mark);
	return MPI_SUCCESS;
}

/* IDENT (same members, same order), SIMILAR (same members) or UNEQUAL. */
int michi_group_cmp(const int *a, int na, const int *b, int nb)
{
	int *mark, i, same = 1, res = MPI_UNEQUAL;

	if (na != nb)
		return MPI_UNEQUAL;
	for (i = 0; i < na; i++)
		if (a[i] != b[i])
			same = 0;
	if (same)
		return MPI_IDENT;
	mark = calloc((size_t)michi_state.npeers, sizeof(int));
	if (!mark)
		return MPI_UNEQUAL;
	for (i = 0; i < na; i++)
		mark[a[i]] = 1;
	for (i = 0; i < nb && mark[b[i]]; i++)
		;
	if (i == nb)
		res = MPI_SIMILAR;
	free(mark);
	return res;
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
	struct michi_group *a, *b;

	GROUP_ARG("MPI_Group_compare", group1, a);
	b = michi_group_get(group2);
	if (ERRCHK && !b)
		return group_bad("MPI_Group_compare", "group2", group2);
	if (ERRCHK && !result)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_compare", "(result=NULL): NULL pointer");
	*result = michi_group_cmp(a->ranks, a->size, b->ranks, b->size);
	return MPI_SUCCESS;
}

/* ranks[] must be distinct ranks of g (incl/excl). */
static int check_rank_list(const char *fname, const struct michi_group *g, int n,
			   const int ranks[])
{
	char *seen;
	int i;

	if (n < 0 || n > g->size || (n > 0 && !ranks))
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname,
				     "(n=%d): count out of range for a group of %d, or NULL ranks",
				     n, g->size);
	seen = calloc((size_t)(g->size ? g->size : 1), 1);
	if (!seen)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory");
	for (i = 0; i < n; i++) {
		if ((unsigned)ranks[i] >= (unsigned)g->size || seen[ranks[i]]) {
			int r = ranks[i];

			free(seen);
			return michi_mpi_err(NULL, MPI_ERR_RANK, fname,
					     "(ranks[%d]=%d): %s (group of %d)", i, r,
					     (unsigned)r >= (unsigned)g->size ? "out of range"
									 : "listed twice", g->size);
		}
		seen[ranks[i]] = 1;
	}
	free(seen);
	return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
	struct michi_group *g;
	int *w, i, err;

	GROUP_ARG("MPI_Group_incl", group, g);
	if (ERRCHK && ((err = check_rank_list("MPI_Group_incl", g, n, ranks)) || !newgroup))
		return err ? err : michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_incl",
						 "(newgroup=NULL): NULL pointer");
	w = malloc((size_t)(n ? n : 1) * sizeof(int));
	if (!w)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Group_incl", "(): no memory");
	for (i = 0; i < n; i++)
		w[i] = g->ranks[ranks[i]];
	err = group_out("MPI_Group_incl", w, n, newgroup);
	free(w);
	return err;
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
	struct michi_group *g;
	char *drop;
	int *w, i, k = 0, err;

	GROUP_ARG("MPI_Group_excl", group, g);
	if (ERRCHK && ((err = check_rank_list("MPI_Group_excl", g, n, ranks)) || !newgroup))
		return err ? err : michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Group_excl",
						 "(newgroup=NULL): NULL pointer");
	drop = calloc((size_t)(g->size ? g->size : 1), 1);
	w = malloc((size_t)(g->size ? g->size : 1) * sizeof(int));
	if (!drop || !w) {
		free(drop);
		free(w);
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Group_excl", "(): no memory");
	}
	for (i = 0; i < n; i++)
		drop[ranks[i]] = 1;
	for (i = 0; i < g->size; i++)
		if (!drop[i])
			w[k++] = g->ranks[i];
	err = group_out("MPI_Group_excl", w, k, newgroup);
	free(drop);
	free(w);
	return err;
}

/* Expand (first, last, stride) triplets into a rank list (MPI-3.1 6.3.2). */
static int expand_ranges(const char *fname, const struct michi_group *g, int n,
			 int ranges[][3], int **out, int *nout)
{
	long total = 0;
	int i, k = 0, *list;

	if (n < 0 || (n > 0 && !ranges))
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(n=%d): negative or NULL ranges", n);
	for (i = 0; i < n; i++) {
		int f = ranges[i][0], l = ranges[i][1], s = ranges[i][2];

		if (s == 0 || (unsigned)f >= (unsigned)g->size || (unsigned)l >= (unsigned)g->size ||
		    (s > 0 && f > l) || (s < 0 && f < l))
			return michi_mpi_err(NULL, MPI_ERR_RANK, fname,
					     "(ranges[%d]={%d,%d,%d}): not a range of a group of %d",
					     i, f, l, s, g->size);
		total += (l - f) / s + 1;
	}
	if (total > g->size)
		return michi_mpi_err(NULL, MPI_ERR_RANK, fname,
				     "(): the ranges name %ld ranks of a group of %d", total, g->size);
	list = malloc((size_t)(total ? total : 1) * sizeof(int));
	if (!list)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory");
	for (i = 0; i < n; i++) {
		int r, f = ranges[i][0], l = ranges[i][1], s = ranges[i][2];

		for (r = f; s > 0 ? r <= l : r >= l; r += s)
			list[k++] = r;
	}
	*out = list;
	*nout = k;
	return check_rank_list(fname, g, k, list) ? (free(list), MPI_ERR_RANK) : MPI_SUCCESS;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
	struct michi_group *g;
	int *list, k, err;

	GROUP_ARG("MPI_Group_range_incl", group, g);
	err = expand_ranges("MPI_Group_range_incl", g, n, ranges, &list, &k);
	if (err)
		return err;
	err = PMPI_Group_incl(group, k, list, newgroup);
	free(list);
	return err;
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
	struct michi_group *g;
	int *list, k, err;

	GROUP_ARG("MPI_Group_range_excl", group, g);
	err = expand_ranges("MPI_Group_range_excl", g, n, ranges, &list, &k);
	if (err)
		return err;
	err = PMPI_Group_excl(group, k, list, newgroup);
	free(list);
	return err;
}

enum { SET_UNION, SET_INTERSECTION, SET_DIFFERENCE };

static int group_set(const char *fname, MPI_Group group1, MPI_Group group2, int op,
		     MPI_Group *newgroup)
{
	struct michi_group *a, *b;
	int *mark, *w, i, k = 0, err;

	GROUP_ARG(fname, group1, a);
	b = michi_group_get(group2);
	if (ERRCHK && !b)
		return group_bad(fname, "group2", group2);
	if (ERRCHK && !newgroup)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(newgroup=NULL): NULL pointer");
	mark = group_map(b);
	w = malloc((size_t)(a->size + b->size + 1) * sizeof(int));
	if (!mark || !w) {
		free(mark);
		free(w);
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, fname, "(): no memory");
	}
	for (i = 0; i < a->size; i++) {
		int in_b = mark[a->ranks[i]] != 0;

		if (op == SET_UNION || (op == SET_INTERSECTION) == in_b)
			w[k++] = a->ranks[i];
	}
	if (op == SET_UNION) {
		/* b's members not in a, in b's order */
		for (i = 0; i < a->size; i++)
			if (mark[a->ranks[i]])
				mark[a->ranks[i]] = -mark[a->ranks[i]];
		for (i = 0; i < b->size; i++)
			if (mark[b->ranks[i]] > 0)
				w[k++] = b->ranks[i];
	}
	err = group_out(fname, w, k, newgroup);
	free(mark);
	free(w);
	return err;
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
	return group_set("MPI_Group_union", group1, group2, SET_UNION, newgroup);
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
	return group_set("MPI_Group_intersection", group1, group2, SET_INTERSECTION, newgroup);
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
	return group_set("MPI_Group_difference", group1, group2, SET_DIFFERENCE, newgroup);
}
