/* SPDX-License-Identifier: MIT */
/*
 * The nonblocking collectives against a serial computation: MPI_Ibarrier,
 * Ibcast, Ireduce, Iallreduce, Igather(v), Iscatter(v), Iallgather(v),
 * Ialltoall(v,w), Ireduce_scatter(_block), Iscan and Iexscan, and the
 * blocking Reduce_scatter(_block), Scan, Exscan and Alltoallw that
 * coll_basic.c leaves out, with 0, 1, 7, 1000 and 70000 ints, every root
 * (0 and size-1 at 70000), in place and not, each completed by MPI_Wait,
 * a bounded MPI_Test loop or MPI_Waitall. Every receive buffer is compared
 * element by element with what a serial computation says, gaps included,
 * and every send buffer must come back unchanged. Then:
 *  - many collectives outstanding at once on one communicator, completed
 *    by one MPI_Waitall, by MPI_Waitany, by MPI_Testsome or in reverse
 *    order, among them the same kind twice;
 *  - Isend/Irecv with tag 0 and MPI_ANY_SOURCE between the start and the
 *    completion of an Iallreduce on the same communicator;
 *  - blocking collectives issued while nonblocking ones are outstanding;
 *  - a non-commutative user op (2x2 matrix product mod 2^32 on a
 *    contiguous 4-int type) in every reduction: the result must be the
 *    product in rank order; MPI_MAX on doubles in the (ex)scans;
 *  - vector and contiguous datatypes on either side of Ibcast, Igather,
 *    Iscatter, Iallgather and Ialltoall, and per-peer types in Alltoallw;
 *  - collectives on an even/odd MPI_Comm_split communicator (reversed rank
 *    order) outstanding together with ones on MPI_COMM_WORLD, started in
 *    a different order on even and odd ranks;
 *  - no early completion: Ibarrier, Ibcast, Ireduce, Iallreduce and
 *    Iallgather stay incomplete while the last rank has not started them;
 *  - argument errors under MPI_ERRORS_RETURN: Ibcast with count -1 and
 *    with root = size, and on Michi also Iallreduce with count -1
 *    (MPI_ERR_COUNT) and Ibarrier with request NULL; the library must
 *    work after them.
 * MPI_Exscan leaves recvbuf on rank 0 undefined: it is not checked.
 * Runs at any number of ranks, on MPICH and Open MPI as well.
 */
#include "mtest.h"
#include "coll_common.h"
#include "coll_kinds.h"

#define BIG 70000
#define MAXJ 64			/* collectives outstanding at once, at most */

static const int counts[] = { 0, 1, 7, 1000, BIG };
#define NCOUNTS (int)(sizeof(counts) / sizeof(counts[0]))

/* the blocking collectives coll_basic.c does not cover */
static int blocking_here(int k)
{
	return k == K_RS || k == K_RSB || k == K_SCAN || k == K_EXSCAN || k == K_ALLTOALLW;
}

/* reduction ops; an element is op_w[op] ints */
enum { O_SUM, O_MAX, O_MAT, O_DMAX, NOP };
static const char *const op_names[NOP] = { "MPI_SUM on MPI_INT", "MPI_MAX on MPI_INT",
					   "2x2 matrix product", "MPI_MAX on MPI_DOUBLE" };
static const int op_w[NOP] = { 1, 1, 4, 2 };
static MPI_Op mat_op;
static MPI_Datatype mat_type;

/* how a block of cnt ints lies in memory, on one side of a collective */
enum { L_INT, L_VEC, L_CONTIG };
static const char *const lay_names[] = { "MPI_INT", "vector", "contiguous" };

struct lay {
	MPI_Datatype dt;
	int count, stride;
	long ext;	/* extent of count x dt, in ints */
};

/* completion of one request (enum coll_how), and of several outstanding
 * together */
enum { H_WAITALL, H_WAITANY, H_TESTSOME, H_REVERSE, NHOWS };
static const char *const how_names[NHOWS] = { "outstanding together, one MPI_Waitall",
					      "outstanding together, MPI_Waitany",
					      "outstanding together, MPI_Testsome loop",
					      "outstanding together, MPI_Wait in reverse order" };

/* ---- reductions, serially ----------------------------------------------- */

/* element u of rank r's input: op_w[op] ints at out */
static void red_in(int op, int r, long u, int seed, int *out)
{
	if (op == O_DMAX) {
		double d = ((double)coll_hval(r, 0, u, seed) - 0x800000) / 8.0;

		memcpy(out, &d, sizeof(d));
		return;
	}
	for (int q = 0; q < op_w[op]; q++)
		out[q] = coll_hval(r, 0, u * op_w[op] + q, seed);
}

/* c = a x b, 2x2 row-major, mod 2^32 */
static void mat_mul(const unsigned *a, const unsigned *b, unsigned *c)
{
	c[0] = a[0] * b[0] + a[1] * b[2];
	c[1] = a[0] * b[1] + a[1] * b[3];
	c[2] = a[2] * b[0] + a[3] * b[2];
	c[3] = a[2] * b[1] + a[3] * b[3];
}

/* MPI: inoutvec = invec op inoutvec, len counted in mat_type elements */
static void op_mat(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	unsigned *a = in, *b = inout, c[4];

	(void)dt;
	for (int i = 0; i < *len; i++, a += 4, b += 4) {
		mat_mul(a, b, c);
		memcpy(b, c, sizeof(c));
	}
}

/* acc = acc op x, acc the left operand */
static void red_combine(int op, int *acc, const int *x)
{
	unsigned a[4], b[4], c[4];
	double da, db;

	switch (op) {
	case O_SUM:
		acc[0] = (int)((unsigned)acc[0] + (unsigned)x[0]);
		break;
	case O_MAX:
		if (x[0] > acc[0])
			acc[0] = x[0];
		break;
	case O_MAT:
		memcpy(a, acc, sizeof(a));
		memcpy(b, x, sizeof(b));
		mat_mul(a, b, c);
		memcpy(acc, c, sizeof(c));
		break;
	default:
		memcpy(&da, acc, sizeof(da));
		memcpy(&db, x, sizeof(db));
		if (db > da)
			memcpy(acc, x, sizeof(db));
	}
}

/* element u of the reduction over ranks lo..hi, in rank order */
static void red_fold(int op, int lo, int hi, long u, int seed, int *out)
{
	int x[4];

	red_in(op, lo, u, seed, out);
	for (int k = lo + 1; k <= hi; k++) {
		red_in(op, k, u, seed, x);
		red_combine(op, out, x);
	}
}

/* ---- one collective call: buffers, start, serial check ----------------- */

struct job {
	/* set by the caller (mkjob gives defaults) */
	int k, blocking, cnt, root, ip, op, sl, rl;
	enum coll_how mode;
	MPI_Comm comm;
	const char *cname, *done;
	/* set by job_setup */
	int me, n, seed, w, ipr;
	struct lay sL, rL;
	MPI_Datatype rdt;
	MPI_Op mop;
	int *s, *r, *s0, *r0;		/* buffers, and their contents before the call */
	long ss, rs;			/* their sizes in ints */
	int *sc, *sd, *rc, *rd;		/* per peer, in ints (elements for reductions) */
	int *wsc, *wsd, *wrc, *wrd, *rstr; /* Alltoallw: counts, byte displs, strides */
	MPI_Datatype *st, *rt;
	MPI_Request req;
};

static int next_seed = 1, next_mode;

static struct job mkjob(int k, int cnt, int root, int ip)
{
	struct job j;

	memset(&j, 0, sizeof(j));
	j.k = k;
	j.cnt = cnt;
	j.root = root;
	j.ip = ip && kinds[k].inplace;
	j.op = O_SUM;
	j.sl = j.rl = L_INT;
	j.seed = next_seed++;	/* same on every rank: mkjob runs in the same order */
	j.mode = (enum coll_how)(next_mode++ % COLL_NHOW);
	j.comm = MPI_COMM_WORLD;
	j.cname = "MPI_COMM_WORLD";
	return j;
}

static const char *desc(const struct job *j)
{
	static char buf[400];
	int at;

	at = snprintf(buf, sizeof(buf), "%s on %s, count %d",
		      j->blocking ? kinds[j->k].bname : kinds[j->k].nbname, j->cname, j->cnt);
	if (kinds[j->k].rooted)
		at += snprintf(buf + at, sizeof(buf) - at, ", root %d", j->root);
	if (kinds[j->k].inplace)
		at += snprintf(buf + at, sizeof(buf) - at, ", %s",
			       j->ip ? "MPI_IN_PLACE" : "not in place");
	if (kinds[j->k].red)
		at += snprintf(buf + at, sizeof(buf) - at, ", %s", op_names[j->op]);
	if (j->sl != L_INT || j->rl != L_INT)
		at += snprintf(buf + at, sizeof(buf) - at, ", %s to %s", lay_names[j->sl],
			       lay_names[j->rl]);
	if (!j->blocking)
		snprintf(buf + at, sizeof(buf) - at, ", %s", j->done ? j->done : coll_how_names[j->mode]);
	return buf;
}

static void lay_make(struct lay *L, int which, int cnt)
{
	MPI_Aint lb, extent;

	L->dt = MPI_INT;
	L->count = cnt;
	L->stride = 1;
	L->ext = cnt;
	if (which == L_INT)
		return;
	L->count = 1;
	if (which == L_VEC) {
		MPI_Type_vector(cnt, 1, 2, MPI_INT, &L->dt);
		L->stride = 2;
		L->ext = cnt ? 2L * cnt - 1 : 0;
	} else {
		MPI_Type_contiguous(cnt, MPI_INT, &L->dt);
	}
	MPI_Type_commit(&L->dt);
	MPI_Type_get_extent(L->dt, &lb, &extent);
	mtest_check(lb == 0 && extent == L->ext * (MPI_Aint)sizeof(int),
		    "%s type of %d ints: lb %ld extent %ld, expected 0 and %ld", lay_names[which], cnt,
		    (long)lb, (long)extent, L->ext * (long)sizeof(int));
}

static void lay_free(struct lay *L)
{
	if (L->dt != MPI_INT)
		MPI_Type_free(&L->dt);
}

static void fillblk(int *p, int stride, int cnt, int from, int to, int seed)
{
	for (long i = 0; i < cnt; i++)
		p[i * stride] = coll_hval(from, to, i, seed);
}

static void fill_red(int *p, int op, int r, long units, int seed)
{
	for (long u = 0; u < units; u++)
		red_in(op, r, u, seed, p + u * op_w[op]);
}

static void job_alloc(struct job *j, long ss, long rs)
{
	j->ss = ss;
	j->rs = rs;
	j->s = coll_ibuf(ss);
	j->r = coll_ibuf(rs);
}

/* Alltoallw: to each peer with an even rank a contiguous type (count 1),
 * else MPI_INT; from peer k a vector type with stride 2 where me + k is
 * odd, else MPI_INT. Blocks in reverse peer order, 2-int gaps. */
static void alltoallw_setup(struct job *j)
{
	int n = j->n, me = j->me, cnt = j->cnt;
	long at = 0, sspan, rspan;

	j->sc = coll_iarr(n), j->sd = coll_iarr(n), j->rc = coll_iarr(n), j->rd = coll_iarr(n);
	j->wsc = coll_iarr(n), j->wsd = coll_iarr(n), j->wrc = coll_iarr(n), j->wrd = coll_iarr(n);
	j->rstr = coll_iarr(n);
	j->st = mtest_malloc(n * sizeof(MPI_Datatype));
	j->rt = mtest_malloc(n * sizeof(MPI_Datatype));
	for (int k = n - 1; k >= 0; k--) {
		int c = j->sc[k] = coll_a2av_count(cnt, me, k);

		j->st[k] = MPI_INT;
		j->wsc[k] = c;
		if (k % 2 == 0 && c > 0) {
			MPI_Type_contiguous(c, MPI_INT, &j->st[k]);
			MPI_Type_commit(&j->st[k]);
			j->wsc[k] = 1;
		}
		j->sd[k] = (int)at;
		j->wsd[k] = (int)(at * sizeof(int));
		at += c + 2;
	}
	sspan = at;
	at = 0;
	for (int k = n - 1; k >= 0; k--) {
		int c = j->rc[k] = j->ipr ? coll_a2av_count(cnt, me + k, me + k) : coll_a2av_count(cnt, k, me);
		long ext = c;

		j->rt[k] = MPI_INT;
		j->wrc[k] = c;
		j->rstr[k] = 1;
		if ((k + me) % 2 == 1 && c > 0) {
			MPI_Type_vector(c, 1, 2, MPI_INT, &j->rt[k]);
			MPI_Type_commit(&j->rt[k]);
			j->wrc[k] = 1;
			j->rstr[k] = 2;
			ext = 2L * c - 1;
		}
		j->rd[k] = (int)at;
		j->wrd[k] = (int)(at * sizeof(int));
		at += ext + 2;
	}
	rspan = at;
	job_alloc(j, j->ipr ? 0 : sspan, rspan);
	for (int k = 0; k < n; k++) {
		if (j->ipr)
			fillblk(j->r + j->rd[k], j->rstr[k], j->rc[k], me, k, j->seed);
		else
			fillblk(j->s + j->sd[k], 1, j->sc[k], me, k, j->seed);
	}
}

static void job_setup(struct job *j)
{
	int n, me, cnt = j->cnt, root = j->root, seed, isroot, w;
	long span, T;

	MPI_Comm_rank(j->comm, &j->me);
	MPI_Comm_size(j->comm, &j->n);
	n = j->n;
	me = j->me;
	isroot = me == root;
	seed = j->seed;
	j->w = w = kinds[j->k].red ? op_w[j->op] : 1;
	j->ipr = j->ip && (kinds[j->k].inplace == 1 || isroot);
	j->req = MPI_REQUEST_NULL;
	j->rdt = j->op == O_MAT ? mat_type : j->op == O_DMAX ? MPI_DOUBLE : MPI_INT;
	j->mop = j->op == O_SUM ? MPI_SUM : j->op == O_MAT ? mat_op : MPI_MAX;
	lay_make(&j->sL, j->sl, cnt);
	lay_make(&j->rL, j->rl, cnt);

	switch (j->k) {
	case K_BARRIER:
		job_alloc(j, 0, 0);
		break;
	case K_BCAST: {
		struct lay *L = isroot ? &j->sL : &j->rL;

		job_alloc(j, 0, L->ext);
		if (isroot)
			fillblk(j->r, L->stride, cnt, root, 0, seed);
		break;
	}
	case K_GATHER:
	case K_ALLGATHER:
		job_alloc(j, j->sL.ext, j->k == K_ALLGATHER || isroot ? n * j->rL.ext : 0);
		fillblk(j->s, j->sL.stride, cnt, me, 0, seed);
		if (j->ipr)
			fillblk(j->r + me * j->rL.ext, j->rL.stride, cnt, me, 0, seed);
		break;
	case K_SCATTER:
		job_alloc(j, isroot ? n * j->sL.ext : 0, j->ipr ? 0 : j->rL.ext);
		if (isroot)
			for (int k = 0; k < n; k++)
				fillblk(j->s + k * j->sL.ext, j->sL.stride, cnt, root, k, seed);
		break;
	case K_ALLTOALL:
		job_alloc(j, j->ipr ? 0 : n * j->sL.ext, n * j->rL.ext);
		for (int k = 0; k < n; k++) {
			if (j->ipr)
				fillblk(j->r + k * j->rL.ext, j->rL.stride, cnt, me, k, seed);
			else
				fillblk(j->s + k * j->sL.ext, j->sL.stride, cnt, me, k, seed);
		}
		break;
	case K_GATHERV:
	case K_ALLGATHERV:
		j->rc = coll_iarr(n), j->rd = coll_iarr(n);
		span = coll_vlayout(n, cnt, j->rc, j->rd);
		job_alloc(j, j->rc[me], j->k == K_ALLGATHERV || isroot ? span : 0);
		fillblk(j->s, 1, j->rc[me], me, 0, seed);
		if (j->ipr)
			fillblk(j->r + j->rd[me], 1, j->rc[me], me, 0, seed);
		break;
	case K_SCATTERV:
		j->sc = coll_iarr(n), j->sd = coll_iarr(n);
		span = coll_vlayout(n, cnt, j->sc, j->sd);
		job_alloc(j, isroot ? span : 0, j->ipr ? 0 : j->sc[me]);
		if (isroot)
			for (int k = 0; k < n; k++)
				fillblk(j->s + j->sd[k], 1, j->sc[k], root, k, seed);
		break;
	case K_ALLTOALLV:
		j->sc = coll_iarr(n), j->sd = coll_iarr(n), j->rc = coll_iarr(n), j->rd = coll_iarr(n);
		span = coll_a2av_layout(n, cnt, me, 1, j->sc, j->sd);
		job_alloc(j, j->ipr ? 0 : span, coll_a2av_layout(n, cnt, me, j->ipr ? 2 : 0, j->rc, j->rd));
		for (int k = 0; k < n; k++) {
			if (j->ipr)
				fillblk(j->r + j->rd[k], 1, j->rc[k], me, k, seed);
			else
				fillblk(j->s + j->sd[k], 1, j->sc[k], me, k, seed);
		}
		break;
	case K_ALLTOALLW:
		alltoallw_setup(j);
		break;
	case K_REDUCE:
	case K_ALLREDUCE:
	case K_SCAN:
	case K_EXSCAN:
		job_alloc(j, (long)cnt * w, j->k != K_REDUCE || isroot ? (long)cnt * w : 0);
		fill_red(j->s, j->op, me, cnt, seed);
		if (j->ipr)
			memcpy(j->r, j->s, (size_t)cnt * w * sizeof(int));
		break;
	case K_RS:
	case K_RSB:
		j->rc = coll_iarr(n), j->rd = coll_iarr(n);
		T = 0;
		/* odd ranks get cnt, even ones cnt/2, so that in place a rank's
		 * block overlaps the front of recvbuf where its result goes; but
		 * MPICH 4.0 memcpys that overlap in its long-message algorithm
		 * (an assertion fails), so at BIG in place the parities swap */
		for (int k = 0; k < n; k++) {
			j->rc[k] = j->k == K_RSB || k % 2 != (j->ipr && cnt == BIG) ? cnt : cnt / 2;
			j->rd[k] = (int)T;
			T += j->rc[k];
		}
		job_alloc(j, T * w, j->ipr ? T * w : (long)j->rc[me] * w);
		fill_red(j->s, j->op, me, T, seed);
		if (j->ipr)
			memcpy(j->r, j->s, (size_t)T * w * sizeof(int));
		break;
	}
	j->s0 = coll_dup_ints(j->s, j->ss);
	j->r0 = coll_dup_ints(j->r, j->rs);
}

/* the blocking or the nonblocking form, with the same arguments */
#define COLL(B, NB, ...) (j->blocking ? MPI_##B(__VA_ARGS__) : MPI_I##NB(__VA_ARGS__, &j->req))

static void job_start(struct job *j)
{
	int rc = MPI_SUCCESS, me = j->me, root = j->root, cnt = j->cnt;
	MPI_Comm c = j->comm;
	const void *sb = j->ipr ? MPI_IN_PLACE : j->s;
	void *rb = j->ipr ? MPI_IN_PLACE : j->r;	/* for the scatters */
	int *s = j->s, *r = j->r;
	const struct lay *sL = &j->sL, *rL = &j->rL, *L = me == root ? sL : rL;

	switch (j->k) {
	case K_BARRIER:
		rc = COLL(Barrier, barrier, c);
		break;
	case K_BCAST:
		rc = COLL(Bcast, bcast, r, L->count, L->dt, root, c);
		break;
	case K_REDUCE:
		rc = COLL(Reduce, reduce, sb, r, cnt, j->rdt, j->mop, root, c);
		break;
	case K_ALLREDUCE:
		rc = COLL(Allreduce, allreduce, sb, r, cnt, j->rdt, j->mop, c);
		break;
	case K_GATHER:
		rc = COLL(Gather, gather, sb, sL->count, sL->dt, r, rL->count, rL->dt, root, c);
		break;
	case K_GATHERV:
		rc = COLL(Gatherv, gatherv, sb, j->rc[me], MPI_INT, r, j->rc, j->rd, MPI_INT, root, c);
		break;
	case K_SCATTER:
		rc = COLL(Scatter, scatter, s, sL->count, sL->dt, rb, rL->count, rL->dt, root, c);
		break;
	case K_SCATTERV:
		rc = COLL(Scatterv, scatterv, s, j->sc, j->sd, MPI_INT, rb, j->sc[me], MPI_INT, root,
			  c);
		break;
	case K_ALLGATHER:
		rc = COLL(Allgather, allgather, sb, sL->count, sL->dt, r, rL->count, rL->dt, c);
		break;
	case K_ALLGATHERV:
		rc = COLL(Allgatherv, allgatherv, sb, j->rc[me], MPI_INT, r, j->rc, j->rd, MPI_INT, c);
		break;
	case K_ALLTOALL:
		if (j->ipr)
			rc = COLL(Alltoall, alltoall, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, rL->count,
				  rL->dt, c);
		else
			rc = COLL(Alltoall, alltoall, s, sL->count, sL->dt, r, rL->count, rL->dt, c);
		break;
	case K_ALLTOALLV:
		if (j->ipr)
			rc = COLL(Alltoallv, alltoallv, MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r,
				  j->rc, j->rd, MPI_INT, c);
		else
			rc = COLL(Alltoallv, alltoallv, s, j->sc, j->sd, MPI_INT, r, j->rc, j->rd,
				  MPI_INT, c);
		break;
	case K_ALLTOALLW:
		if (j->ipr)
			rc = COLL(Alltoallw, alltoallw, MPI_IN_PLACE, NULL, NULL, NULL, r, j->wrc,
				  j->wrd, j->rt, c);
		else
			rc = COLL(Alltoallw, alltoallw, s, j->wsc, j->wsd, j->st, r, j->wrc, j->wrd,
				  j->rt, c);
		break;
	case K_RS:
		rc = COLL(Reduce_scatter, reduce_scatter, sb, r, j->rc, j->rdt, j->mop, c);
		break;
	case K_RSB:
		rc = COLL(Reduce_scatter_block, reduce_scatter_block, sb, r, cnt, j->rdt, j->mop, c);
		break;
	case K_SCAN:
		rc = COLL(Scan, scan, sb, r, cnt, j->rdt, j->mop, c);
		break;
	case K_EXSCAN:
		rc = COLL(Exscan, exscan, sb, r, cnt, j->rdt, j->mop, c);
		break;
	}
	mtest_check(rc == MPI_SUCCESS, "%s: returned %d", desc(j), rc);
	if (j->blocking)
		mtest_check(j->req == MPI_REQUEST_NULL, "%s: request set by a blocking call", desc(j));
	else
		mtest_check(j->req != MPI_REQUEST_NULL, "%s: no request returned", desc(j));
}

/* the receive buffer must equal the serial result (don't-care positions
 * aside) and the send buffer must be as it was */
static void job_check(struct job *j)
{
	int n = j->n, me = j->me, cnt = j->cnt, root = j->root, seed = j->seed, w = j->w;
	int *e = coll_dup_ints(j->r0, j->rs);
	unsigned char *dc = mtest_malloc((size_t)j->rs);
	const struct lay *rL = &j->rL;

	memset(dc, 0, (size_t)j->rs);
	switch (j->k) {
	case K_BARRIER:
		break;
	case K_BCAST:
		fillblk(e, me == root ? j->sL.stride : rL->stride, cnt, root, 0, seed);
		break;
	case K_GATHER:
	case K_ALLGATHER:
		if (j->rs)
			for (int k = 0; k < n; k++)
				fillblk(e + k * rL->ext, rL->stride, cnt, k, 0, seed);
		break;
	case K_SCATTER:
		if (j->rs)
			fillblk(e, rL->stride, cnt, root, me, seed);
		break;
	case K_ALLTOALL:
		for (int k = 0; k < n; k++)
			fillblk(e + k * rL->ext, rL->stride, cnt, k, me, seed);
		break;
	case K_GATHERV:
	case K_ALLGATHERV:
		if (j->rs)
			for (int k = 0; k < n; k++)
				fillblk(e + j->rd[k], 1, j->rc[k], k, 0, seed);
		break;
	case K_SCATTERV:
		if (j->rs)
			fillblk(e, 1, j->sc[me], root, me, seed);
		break;
	case K_ALLTOALLV:
	case K_ALLTOALLW:
		for (int k = 0; k < n; k++)
			fillblk(e + j->rd[k], j->rstr ? j->rstr[k] : 1, j->rc[k], k, me, seed);
		break;
	case K_REDUCE:
	case K_ALLREDUCE:
		if (j->rs)
			for (long u = 0; u < cnt; u++)
				red_fold(j->op, 0, n - 1, u, seed, e + u * w);
		break;
	case K_SCAN:
		for (long u = 0; u < cnt; u++)
			red_fold(j->op, 0, me, u, seed, e + u * w);
		break;
	case K_EXSCAN:
		if (me == 0)	/* undefined on rank 0 */
			memset(dc, 1, (size_t)j->rs);
		else
			for (long u = 0; u < cnt; u++)
				red_fold(j->op, 0, me - 1, u, seed, e + u * w);
		break;
	case K_RS:
	case K_RSB:
		for (long u = 0; u < j->rc[me]; u++)
			red_fold(j->op, 0, n - 1, j->rd[me] + u, seed, e + u * w);
		/* in place, MPI says nothing of the rest of recvbuf */
		memset(dc + (long)j->rc[me] * w, 1, (size_t)(j->rs - (long)j->rc[me] * w));
		break;
	}
	for (long i = 0; i < j->rs; i++) {
		if (!dc[i] && j->r[i] != e[i]) {
			mtest_error("%s: receive buffer int %ld is %d, expected %d%s", desc(j), i, j->r[i], e[i], e[i] == -1 ? " (untouched)" : "");
			break;
		}
	}
	coll_check_sendbuf(j->s, j->s0, j->ss, desc(j));
	free(e);
	free(dc);
}

static void job_free(struct job *j)
{
	for (int k = 0; j->st && k < j->n; k++) {
		if (j->st[k] != MPI_INT)
			MPI_Type_free(&j->st[k]);
		if (j->rt[k] != MPI_INT)
			MPI_Type_free(&j->rt[k]);
	}
	lay_free(&j->sL);
	lay_free(&j->rL);
	free(j->s), free(j->r), free(j->s0), free(j->r0);
	free(j->sc), free(j->sd), free(j->rc), free(j->rd);
	free(j->wsc), free(j->wsd), free(j->wrc), free(j->wrd), free(j->rstr);
	free(j->st), free(j->rt);
}

static void complete(struct job *j)
{
	coll_complete(&j->req, j->mode, desc(j));
}

static void run(struct job j)
{
	job_setup(&j);
	job_start(&j);
	if (!j.blocking)
		complete(&j);
	job_check(&j);
	job_free(&j);
}

/* start all in order (blocking ones complete right there), complete the
 * nonblocking ones together as `how` says, check all */
static void run_many(struct job *js, int nj, int how)
{
	MPI_Request reqs[MAXJ];
	MPI_Status sts[MAXJ];
	int idx[MAXJ], nb = 0, got = 0, outc, i;
	double t0;

	for (i = 0; i < nj; i++) {
		js[i].done = how_names[how];
		job_setup(&js[i]);
	}
	for (i = 0; i < nj; i++) {
		job_start(&js[i]);
		reqs[i] = js[i].req;
		nb += !js[i].blocking;
	}
	switch (how) {
	case H_WAITALL:
		MPI_Waitall(nj, reqs, sts);
		got = nb;
		break;
	case H_WAITANY:
		for (;;) {
			MPI_Waitany(nj, reqs, &idx[0], MPI_STATUS_IGNORE);
			if (idx[0] == MPI_UNDEFINED)
				break;
			mtest_check(!js[idx[0]].blocking, "MPI_Waitany returned index %d, a blocking call",
				    idx[0]);
			got++;
		}
		break;
	case H_TESTSOME:
		t0 = MPI_Wtime();
		for (;;) {
			MPI_Testsome(nj, reqs, &outc, idx, sts);
			if (outc == MPI_UNDEFINED)
				break;
			got += outc;
			if (MPI_Wtime() - t0 > COLL_TEST_LIMIT_S)
				coll_too_long("MPI_Testsome on outstanding collectives");
		}
		break;
	default:
		for (i = nj - 1; i >= 0; i--)
			if (!js[i].blocking) {
				MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
				got++;
			}
		break;
	}
	mtest_check(got == nb, "%s: %d of %d requests completed", how_names[how], got, nb);
	for (i = 0; i < nj; i++) {
		js[i].req = reqs[i];
		mtest_check(reqs[i] == MPI_REQUEST_NULL, "%s: request not MPI_REQUEST_NULL when complete",
			    desc(&js[i]));
		job_check(&js[i]);
		job_free(&js[i]);
	}
}

/* ---- the tests ----------------------------------------------------------- */

/* 1: every kind, every count, every root, in place and not */
static void test_sweep(void)
{
	int n = mtest_size;

	for (int c = 0; c < NCOUNTS; c++) {
		int cnt = counts[c];

		for (int k = 0; k < NKINDS; k++)
			for (int b = 0; b < 1 + blocking_here(k); b++)
				for (int root = 0; root < (kinds[k].rooted ? n : 1); root++) {
					if (cnt == BIG && root != 0 && root != n - 1)
						continue;
					for (int ip = 0; ip <= (kinds[k].inplace != 0); ip++) {
						struct job j = mkjob(k, cnt, root, ip);

						j.blocking = b;
						if (k == K_ALLREDUCE && ip)
							j.op = O_MAX;
						run(j);
					}
				}
	}
}

/* 5 and 8: the matrix product (order matters) in every reduction, MPI_MAX
 * on doubles in the (ex)scans and Iallreduce; blocking where coll_basic.c
 * does not do it */
static void test_ops(void)
{
	static const int rk[] = { K_REDUCE, K_ALLREDUCE, K_RS, K_RSB, K_SCAN, K_EXSCAN };
	int n = mtest_size;

	for (int op = O_MAT; op <= O_DMAX; op++)
		for (int c = 0; c < NCOUNTS - 1; c++)
			for (size_t x = 0; x < sizeof(rk) / sizeof(rk[0]); x++) {
				int k = rk[x];

				if (op == O_DMAX && k != K_ALLREDUCE && k != K_SCAN && k != K_EXSCAN)
					continue;
				for (int b = 0; b < 1 + blocking_here(k); b++)
					for (int root = 0; root < (kinds[k].rooted ? n : 1); root++)
						for (int ip = 0; ip < 2; ip++) {
							struct job j = mkjob(k, counts[c], root, ip);

							j.blocking = b;
							j.op = op;
							run(j);
						}
			}
}

/* 6: vector and contiguous types on either side */
static void test_datatypes(void)
{
	static const int pairs[][2] = { { L_VEC, L_INT }, { L_INT, L_VEC }, { L_VEC, L_VEC },
					{ L_CONTIG, L_VEC }, { L_VEC, L_CONTIG }, { L_CONTIG, L_INT } };
	static const int dk[] = { K_BCAST, K_GATHER, K_SCATTER, K_ALLGATHER, K_ALLTOALL };
	static const int dc[] = { 1, 7, 1000 };
	int n = mtest_size, roots[2] = { 0, n - 1 };

	for (size_t c = 0; c < sizeof(dc) / sizeof(dc[0]); c++)
		for (size_t x = 0; x < sizeof(dk) / sizeof(dk[0]); x++)
			for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++)
				for (int ri = 0; ri < (kinds[dk[x]].rooted && n > 1 ? 2 : 1); ri++)
					/* in place only the receive side counts */
					for (int ip = 0; ip <= (kinds[dk[x]].inplace &&
								pairs[p][0] == L_VEC); ip++) {
						struct job j = mkjob(dk[x], dc[c], roots[ri], ip);

						j.sl = pairs[p][0];
						j.rl = pairs[p][1];
						run(j);
					}
}

/* every nonblocking kind once, on comm; a mix of ops, types and roots */
static int add_all_kinds(struct job *js, int nj, int cnt, MPI_Comm comm, const char *cname,
			 int flip)
{
	int n;

	MPI_Comm_size(comm, &n);
	for (int k = 0; k < NKINDS; k++) {
		struct job j = mkjob(k, cnt, (k + flip) % n, (k + flip) % 2);

		j.comm = comm;
		j.cname = cname;
		if ((k == K_RSB || k == K_SCAN || k == K_REDUCE) && !flip)
			j.op = O_MAT;
		if (k == K_EXSCAN && flip)
			j.op = O_DMAX;
		if ((k == K_GATHER || k == K_ALLTOALL || k == K_BCAST) && flip)
			j.sl = L_VEC;
		if (k == K_SCATTER || k == K_ALLGATHER)
			j.rl = L_VEC;
		js[nj++] = j;
	}
	return nj;
}

/* 2: several outstanding at once on MPI_COMM_WORLD */
static void test_outstanding(void)
{
	struct job js[MAXJ];
	int n = mtest_size, nj;

	for (int c = 1; c < NCOUNTS; c++) {
		/* Iallreduce, Ibcast, Iallgather back to back, then one Waitall */
		js[0] = mkjob(K_ALLREDUCE, counts[c], 0, 0);
		js[1] = mkjob(K_BCAST, counts[c], n - 1, 0);
		js[2] = mkjob(K_ALLGATHER, counts[c], 0, 0);
		run_many(js, 3, H_WAITALL);
	}
	for (int how = 0; how < NHOWS; how++)
		for (int flip = 0; flip < 2; flip++) {
			nj = add_all_kinds(js, 0, how % 2 ? 1000 : 7, MPI_COMM_WORLD, "MPI_COMM_WORLD",
					   flip);
			run_many(js, nj, how);
		}
}

/* 2: the same kind twice outstanding, the second waited for first */
static void test_twice(void)
{
	struct job js[2];
	int n = mtest_size;

	for (int c = 1; c < NCOUNTS; c++) {
		int cnt = counts[c];

		js[0] = mkjob(K_ALLREDUCE, cnt, 0, 0);
		js[1] = mkjob(K_ALLREDUCE, cnt, 0, 1);
		run_many(js, 2, H_REVERSE);
		js[0] = mkjob(K_REDUCE, cnt, 0, 0);
		js[1] = mkjob(K_REDUCE, cnt, n - 1, 1);
		run_many(js, 2, H_REVERSE);
		js[0] = mkjob(K_BCAST, cnt, n - 1, 0);
		js[1] = mkjob(K_BCAST, cnt, 0, 0);
		run_many(js, 2, H_REVERSE);
		js[0] = mkjob(K_ALLTOALLV, cnt, 0, 0);
		js[1] = mkjob(K_ALLTOALLV, cnt, 0, 0);
		run_many(js, 2, H_REVERSE);
		if (cnt == BIG)
			continue;
		js[0] = mkjob(K_SCAN, cnt, 0, 0);
		js[1] = mkjob(K_SCAN, cnt, 0, 1);
		js[0].op = js[1].op = O_MAT;
		run_many(js, 2, H_REVERSE);
	}
}

/* 3: point-to-point with tag 0 on the same communicator while an
 * Iallreduce is outstanding; receives from MPI_ANY_SOURCE, one message
 * from every rank (self included), the same size as the reduction */
static void test_p2p_overlap(void)
{
	int n = mtest_size, me = mtest_rank, cnt = 1000;

	for (int round = 0; round < 4; round++) {
		struct job j = mkjob(K_ALLREDUCE, cnt, 0, round % 2);
		int pseed = 100000 + round, *in = coll_ibuf((long)n * cnt), *out = coll_ibuf((long)n * cnt);
		int *seen = coll_iarr(n), i, src, got;
		MPI_Request *pr = mtest_malloc(2 * n * sizeof(MPI_Request));
		MPI_Status *st = mtest_malloc(2 * n * sizeof(MPI_Status));

		j.mode = round % 3 == 2 ? COLL_TEST : COLL_WAIT;
		memset(seen, 0, n * sizeof(int));
		for (int k = 0; k < n; k++)
			fillblk(out + (long)k * cnt, 1, cnt, me, k, pseed);
		job_setup(&j);
		if (round < 2)	/* receives posted before the collective starts */
			for (i = 0; i < n; i++)
				MPI_Irecv(in + (long)i * cnt, cnt, MPI_INT, MPI_ANY_SOURCE, 0,
					  MPI_COMM_WORLD, &pr[i]);
		job_start(&j);
		if (round >= 2)
			for (i = 0; i < n; i++)
				MPI_Irecv(in + (long)i * cnt, cnt, MPI_INT, MPI_ANY_SOURCE, 0,
					  MPI_COMM_WORLD, &pr[i]);
		for (int k = 0; k < n; k++)
			MPI_Isend(out + (long)((k + me) % n) * cnt, cnt, MPI_INT, (k + me) % n, 0,
				  MPI_COMM_WORLD, &pr[n + k]);
		if (round % 2) {
			complete(&j);
			MPI_Waitall(2 * n, pr, st);
		} else {
			MPI_Waitall(2 * n, pr, st);
			complete(&j);
		}
		for (i = 0; i < n; i++) {
			src = st[i].MPI_SOURCE;
			MPI_Get_count(&st[i], MPI_INT, &got);
			if (!mtest_check(src >= 0 && src < n && !seen[src] && st[i].MPI_TAG == 0 &&
					 got == cnt, "p2p during %s: message %d from %d tag %d count %d",
					 desc(&j), i, src, st[i].MPI_TAG, got))
				continue;
			seen[src] = 1;
			for (long x = 0; x < cnt; x++)
				if (!mtest_check(in[i * (long)cnt + x] == coll_hval(src, me, x, pseed),
						 "p2p during %s: message from %d: int %ld is %d, expected %d",
						 desc(&j), src, x, in[i * (long)cnt + x],
						 coll_hval(src, me, x, pseed)))
					break;
		}
		job_check(&j);
		job_free(&j);
		free(in), free(out), free(seen), free(pr), free(st);
		/* a rank done early must not send its next round's messages to a
		 * receive of this round still posted elsewhere */
		MPI_Barrier(MPI_COMM_WORLD);
	}
}

/* 4: blocking collectives while nonblocking ones are outstanding */
static void test_blocking_inside(void)
{
	struct job js[4];
	int n = mtest_size;

	for (int c = 1; c < NCOUNTS; c++) {
		int cnt = counts[c];

		js[0] = mkjob(K_BCAST, cnt, n - 1, 0);		/* Ibcast */
		js[1] = mkjob(K_ALLREDUCE, cnt, 0, 0);		/* MPI_Allreduce */
		js[1].blocking = 1;
		run_many(js, 2, H_WAITALL);
		js[0] = mkjob(K_ALLTOALL, cnt, 0, 0);		/* Ialltoall */
		js[1] = mkjob(K_RSB, cnt, 0, 1);		/* MPI_Reduce_scatter_block */
		js[1].blocking = 1;
		js[1].op = O_MAT;
		js[2] = mkjob(K_REDUCE, cnt, n / 2, 0);		/* Ireduce */
		js[3] = mkjob(K_SCAN, cnt, 0, 0);		/* MPI_Scan */
		js[3].blocking = 1;
		run_many(js, 4, c % 2 ? H_REVERSE : H_WAITANY);
	}
}

/* 7: on an even/odd split (rank order reversed) together with world;
 * odd ranks start the sub-communicator's collectives first */
static void test_subcomm(void)
{
	struct job js[MAXJ], wj[MAXJ], sj[MAXJ];
	int me = mtest_rank, n = mtest_size, sn, nw, ns, nj;
	MPI_Comm sub;

	MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &sub);
	MPI_Comm_size(sub, &sn);
	for (int round = 0; round < 2 * NHOWS; round++) {
		int cnt = round % 3 == 2 ? 1000 : 7;

		if (round < NHOWS) {
			wj[0] = mkjob(K_BCAST, cnt, n - 1, 0);
			wj[1] = mkjob(K_ALLGATHER, cnt, 0, 1);
			wj[2] = mkjob(K_EXSCAN, cnt, 0, 0);
			wj[3] = mkjob(K_ALLTOALLW, cnt, 0, 0);
			wj[4] = mkjob(K_REDUCE, cnt, n - 1, 1);
			wj[4].op = O_MAT;
			nw = 5;
			sj[0] = mkjob(K_ALLREDUCE, cnt, 0, 0);
			sj[1] = mkjob(K_ALLTOALL, cnt, 0, 0);
			sj[2] = mkjob(K_RSB, cnt, 0, 0);
			sj[2].op = O_MAT;
			sj[3] = mkjob(K_GATHERV, cnt, sn - 1, 1);
			sj[4] = mkjob(K_SCAN, cnt, 0, 0);
			ns = 5;
			for (int i = 0; i < ns; i++)
				sj[i].comm = sub, sj[i].cname = "even/odd split";
		} else {
			nw = add_all_kinds(wj, 0, cnt, MPI_COMM_WORLD, "MPI_COMM_WORLD", round % 2);
			ns = add_all_kinds(sj, 0, cnt, sub, "even/odd split", 1 - round % 2);
		}
		nj = 0;
		for (int i = 0; i < (me % 2 ? ns : nw); i++)
			js[nj++] = me % 2 ? sj[i] : wj[i];
		for (int i = 0; i < (me % 2 ? nw : ns); i++)
			js[nj++] = me % 2 ? wj[i] : sj[i];
		run_many(js, nj, round % NHOWS);
	}
	MPI_Comm_free(&sub);
}

/* no collective that needs the last rank may complete before it starts */
static void test_no_early(void)
{
	static const int ek[] = { K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_ALLGATHER };
	int n = mtest_size, me = mtest_rank, last = n - 1, flag;
	double t0;

	if (n < 2)
		return;
	for (size_t x = 0; x < sizeof(ek) / sizeof(ek[0]); x++) {
		struct job j = mkjob(ek[x], 7, ek[x] == K_BCAST ? last : 0, 0);

		j.mode = COLL_WAIT;
		job_setup(&j);
		if (me == last) {
			MPI_Recv(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			job_start(&j);
		} else {
			job_start(&j);
			if (me == 0) {
				t0 = MPI_Wtime();
				for (int i = 0; i < 20 || MPI_Wtime() - t0 < 0.05; i++) {
					MPI_Test(&j.req, &flag, MPI_STATUS_IGNORE);
					if (!mtest_check(!flag, "%s completed before rank %d started it",
							 desc(&j), last))
						break;
				}
				MPI_Send(NULL, 0, MPI_BYTE, last, 1, MPI_COMM_WORLD);
			}
		}
		complete(&j);
		job_check(&j);
		job_free(&j);
	}
}

/* 9: argument errors are reported, and nothing is left half started.
 * MPI leaves detecting them to the implementation; MPICH 4.0 does not check
 * the count of MPI_Iallreduce (it goes on with -1) and Open MPI 4 writes
 * through a NULL request, so those two run on Michi only. */
static void test_errors(void)
{
	int a[4] = { 0 }, b[4], rc, n = mtest_size;
	MPI_Request req = MPI_REQUEST_NULL;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (mtest_is_michi()) {
		rc = MPI_Iallreduce(a, b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
		mtest_check(mtest_errclass(rc) == MPI_ERR_COUNT, "MPI_Iallreduce count -1: class "
			    "%d, expected MPI_ERR_COUNT", mtest_errclass(rc));
		rc = MPI_Ibarrier(MPI_COMM_WORLD, NULL);
		mtest_check(rc != MPI_SUCCESS, "MPI_Ibarrier with request NULL succeeded");
	}
	rc = MPI_Ibcast(a, -1, MPI_INT, 0, MPI_COMM_WORLD, &req);
	mtest_check(mtest_errclass(rc) == MPI_ERR_COUNT, "MPI_Ibcast count -1: class %d, "
		    "expected MPI_ERR_COUNT", mtest_errclass(rc));
	rc = MPI_Ibcast(a, 1, MPI_INT, n, MPI_COMM_WORLD, &req);
	mtest_check(mtest_errclass(rc) == MPI_ERR_ROOT, "MPI_Ibcast root=size: class %d, "
		    "expected MPI_ERR_ROOT", mtest_errclass(rc));
	/* still usable, and the calls above did not start anything */
	run(mkjob(K_ALLREDUCE, 7, 0, 0));
	run(mkjob(K_BARRIER, 0, 0, 0));
	run(mkjob(K_BCAST, 7, n - 1, 0));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv);
	MPI_Type_contiguous(4, MPI_INT, &mat_type);
	MPI_Type_commit(&mat_type);
	MPI_Op_create(op_mat, 0, &mat_op);

	test_sweep();
	test_ops();
	test_datatypes();
	test_outstanding();
	test_twice();
	test_p2p_overlap();
	test_blocking_inside();
	test_subcomm();
	test_no_early();
	test_errors();

	MPI_Op_free(&mat_op);
	MPI_Type_free(&mat_type);
	return mtest_finalize();
}
