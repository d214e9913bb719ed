/* SPDX-License-Identifier: MIT */
/*
 * The correctness sweep of issue 5: every intracommunicator collective
 * (Barrier, Bcast, Reduce, Allreduce, Gather(v), Scatter(v), Allgather(v),
 * Alltoall(v,w), Reduce_scatter(_block), Scan, Exscan), blocking and
 * nonblocking, against a serial computation that every rank does itself.
 * It runs on MPI_COMM_WORLD, on a communicator of all ranks in reverse
 * order (so root and rank mapping bugs show), and at small counts on the
 * even and odd halves, each reversed; over counts from 0 to 1 Mi elements
 * (0, 1, odd sizes, sizes around powers of two and coll/select.c's switch
 * points; the all-to-all family up to 1 Mi elements per rank in all;
 * 1 Mi itself on world only),
 * every root at small counts and two at large ones, in place wherever MPI
 * allows it (the variants rotate over roots and counts: see var_blocking).
 * The reductions run MPI_SUM on ints, two ops that do not commute (2x2
 * matrix product mod a prime on a contiguous type, affine map
 * composition on an indexed type with holes) and a commutative user op
 * on a vector type with holes; the holes of the receive buffers must stay
 * untouched. Then a derived type with holes (a resized vector) on either
 * side of Bcast, Gather, Scatter, Allgather and Alltoall (Alltoallw has
 * it per peer in the sweep), and every predefined op on every predefined
 * type it is defined on (and MINLOC/MAXLOC on the pair types) through
 * Allreduce, Iallreduce, Reduce and Ireduce at a small and a medium
 * count; not the optional quad precision types (MPI_REAL16,
 * MPI_COMPLEX32), which Michi leaves out, nor MPI_CHAR, which MPI does
 * not count among the integers.
 *
 * The program is run with each collective algorithm forced in turn
 * (MICHI_COLL_<NAME>_ALGORITHM, see testlist); failures name the call,
 * communicator, count, root, in-place, op, completion and the forcing
 * variables. COLL_SWEEP_QUICK=1 runs a shorter count list and the op/type
 * matrix at the medium count only; COLL_SWEEP_ONLY=name,name runs only
 * the named collectives of the sweep (allreduce, ibcast: both forms), to
 * cut a failure down; COLL_SWEEP_TRACE=1 prints each call before it
 * starts; COLL_SWEEP_VERBOSE=1 (or 2) times the parts (and each count).
 * Runs on Open MPI as well; MPICH 4.0 gets user ops on the types with
 * holes wrong in Reduce and Reduce_scatter_block. The op/type matrix is
 * in coll_ops.h, which coll_basic.c shares.
 */
#include "mtest.h"
#ifdef __GLIBC__	/* set by the libc headers mtest.h includes */
#include <malloc.h>
#endif
/* a test loop gives up after this (coll_common.h); the sweep's 1 Mi calls
 * at 9 ranks on two cores take longer than the other tests' calls */
#define COLL_TEST_LIMIT_S 60.0
#include "coll_common.h"
#include "coll_kinds.h"
#include "coll_ops.h"

#define MI (1 << 20)
#define SMALL 1025		/* every root, and all four variants, up to this count */
#define MEDIUM 70000		/* above it only bcast and the reductions */
#define BIG_USEROP 300000	/* above it the reductions run MPI_SUM only */

/* counts of the sweep: around the powers of two and the switch points of
 * coll/select.c (bytes: 256, 16 Ki, 32 Ki, 64 Ki, 128 Ki, 256 Ki; a
 * reduce-scatter of 1024 ints per rank at 8 ranks is 32 Ki in all) */
static const int counts_full[] = { 0, 1, 2, 3, 7, 8, 9, 16, 17, 63, 64, 65, 127, 129, 1000,
				   1024, 1025, 4095, 4097, 16383, 16385, 32769, 65537,
				   262143, 1048576 };
static const int counts_quick[] = { 0, 1, 3, 8, 17, 64, 65, 1000, 1024, 1025, 16385, 65537,
				    262143, 1048576 };

static int quick, trace;
static char only[512];		/* ",name,name," of COLL_SWEEP_ONLY, or empty */
static char algo_env[1024];	/* the MICHI_COLL_* variables, for the messages */

/* The filler of receive buffers (-1) and of the holes of send buffers
 * (-2); coll_hval() never gives either (the sums may, which only changes the
 * hint in a message). */
#define FILL_R (-1)
#define FILL_S (-2)

/* ---- layouts of moved data ---------------------------------------------- */

/* How the ints of a block lie in memory: elements of ext ints each, of
 * which the ints at dpos[0..nd) carry data, the rest are holes. */
struct lay {
	const char *name;
	int ext, nd, dpos[3];
	MPI_Datatype dt;
};

enum { L_INT, L_HOLEY, NLAYS };
static struct lay lays[NLAYS] = {
	[L_INT] = { "MPI_INT", 1, 1, { 0 }, MPI_INT },
	/* vector of 2 ints, stride 3, resized to 5 ints: holes at 1, 2 and 4 */
	[L_HOLEY] = { "resized vector", 5, 2, { 0, 3 }, MPI_DATATYPE_NULL },
};

/* ints spanned by a block of cnt data ints (cnt a multiple of nd) */
static inline long lay_span(const struct lay *L, long cnt)
{
	return cnt / L->nd * L->ext;
}

static inline long lay_pos(const struct lay *L, long i)
{
	return L->nd == 1 ? i * L->ext : i / L->nd * L->ext + L->dpos[i % L->nd];
}

static void fillblk(int *p, const struct lay *L, long cnt, int from, int to, int seed)
{
	if (L->nd == 1)
		for (long i = 0; i < cnt; i++)
			p[i] = coll_hval(from, to, i, seed);
	else
		for (long i = 0; i < cnt; i++)
			p[lay_pos(L, i)] = coll_hval(from, to, i, seed);
}

/* ---- reduction ops ------------------------------------------------------- */

/* An element of a reduction: w ints, data at dpos[0..nd), holes between */
enum { O_SUM, O_MAT, O_AFF, O_VSUM, NOPS };
static struct opd {
	const char *name;
	int w, nd, dpos[4];
	int commute;
	MPI_Datatype dt;
	MPI_Op op;
} opd[NOPS] = {
	[O_SUM] = { "MPI_SUM on MPI_INT", 1, 1, { 0 }, 1, MPI_DATATYPE_NULL, MPI_OP_NULL },
	[O_MAT] = { "2x2 matrix product mod 65521 (not commutative)", 4, 4, { 0, 1, 2, 3 }, 0,
		    MPI_DATATYPE_NULL, MPI_OP_NULL },
	[O_AFF] = { "affine map composition on an indexed type with holes (not commutative)",
		    4, 2, { 0, 2 }, 0, MPI_DATATYPE_NULL, MPI_OP_NULL },
	[O_VSUM] = { "user sum on a vector type with holes", 5, 3, { 0, 2, 4 }, 1,
		     MPI_DATATYPE_NULL, MPI_OP_NULL },
};

#define PRIME 65521u

/* acc = acc op x on the data ints of one element; acc is the left operand
 * (the lower ranks) */
static inline void red_combine(int op, int *acc, const int *x)
{
	unsigned a0, a1, a2, a3;

	switch (op) {
	case O_SUM:
		acc[0] = (int)((unsigned)acc[0] + (unsigned)x[0]);
		break;
	case O_MAT:
		a0 = (unsigned)(((uint64_t)acc[0] * x[0] + (uint64_t)acc[1] * x[2]) % PRIME);
		a1 = (unsigned)(((uint64_t)acc[0] * x[1] + (uint64_t)acc[1] * x[3]) % PRIME);
		a2 = (unsigned)(((uint64_t)acc[2] * x[0] + (uint64_t)acc[3] * x[2]) % PRIME);
		a3 = (unsigned)(((uint64_t)acc[2] * x[1] + (uint64_t)acc[3] * x[3]) % PRIME);
		acc[0] = (int)a0, acc[1] = (int)a1, acc[2] = (int)a2, acc[3] = (int)a3;
		break;
	case O_AFF:
		/* acc then x: v -> x.a * (acc.a * v + acc.b) + x.b, mod 2^32 */
		a0 = (unsigned)x[0] * (unsigned)acc[0];
		a1 = (unsigned)x[0] * (unsigned)acc[2] + (unsigned)x[2];
		acc[0] = (int)a0, acc[2] = (int)a1;
		break;
	default:
		for (int q = 0; q < 5; q += 2)
			acc[q] = (int)((unsigned)acc[q] + (unsigned)x[q]);
	}
}

/* MPI: inoutvec = invec op inoutvec, element by element */
static void user_fn(int op, void *in, void *inout, int *len)
{
	int *a = in, *b = inout, t[5];
	int w = opd[op].w;

	for (int i = 0; i < *len; i++, a += w, b += w) {
		memcpy(t, a, (size_t)w * sizeof(int));
		red_combine(op, t, b);
		for (int q = 0; q < opd[op].nd; q++)
			b[opd[op].dpos[q]] = t[opd[op].dpos[q]];
	}
}

static void fn_mat(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	user_fn(O_MAT, in, inout, len);
}

static void fn_aff(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	user_fn(O_AFF, in, inout, len);
}

static void fn_vsum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	user_fn(O_VSUM, in, inout, len);
}

/*
 * The sums (MPI_SUM and the user sum) take h + r * g from rank r, h and g
 * hashes of the element (g odd): the sum over ranks lo..hi then has a
 * closed form, so the serial check costs no more at 9 ranks than at 1,
 * and a missing, doubled or misplaced contribution still changes it.
 * The ops that do not commute fold rank by rank.
 */
static inline void sum_hg(long u, int seed, uint32_t *h, uint32_t *g)
{
	uint64_t x = (uint64_t)u * 0x9e3779b97f4a7c15ull ^ (uint64_t)(seed + 7) * 0xd6e8feb86659fd93ull;

	x ^= x >> 32;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	*h = (uint32_t)x;
	*g = (uint32_t)(x >> 32) | 1;
}

/* data ints of element u of rank r's input, at their places in out */
static inline void red_in(int op, int r, long u, int seed, int *out)
{
	const struct opd *o = &opd[op];
	uint32_t h, g;

	for (int q = 0; q < o->nd; q++) {
		int v;

		if (o->commute) {
			sum_hg(u * o->nd + q, seed, &h, &g);
			v = (int)(h + (uint32_t)r * g);
		} else {
			v = coll_hval(r, 0, u * o->nd + q, seed);
			if (op == O_MAT)
				v %= (int)PRIME;
			else if (q == 0)	/* O_AFF: an odd factor */
				v |= 1;
		}
		out[o->dpos[q]] = v;
	}
}

/* element u of the reduction over ranks lo..hi, in rank order, written
 * to the data ints of out (its holes stay) */
static void red_fold(int op, int lo, int hi, long u, int seed, int *out)
{
	int acc[5], x[5];
	const struct opd *o = &opd[op];

	if (o->commute) {
		uint32_t m = (uint32_t)(hi - lo + 1), sr = (uint32_t)((lo + hi) * (hi - lo + 1) / 2);
		uint32_t h, g;

		for (int q = 0; q < o->nd; q++) {
			sum_hg(u * o->nd + q, seed, &h, &g);
			out[o->dpos[q]] = (int)(m * h + sr * g);
		}
		return;
	}
	red_in(op, lo, u, seed, acc);
	for (int k = lo + 1; k <= hi; k++) {
		red_in(op, k, u, seed, x);
		red_combine(op, acc, x);
	}
	for (int q = 0; q < o->nd; q++)
		out[o->dpos[q]] = acc[o->dpos[q]];
}

/* ---- one collective call: buffers, start, serial check ----------------- */

struct job {
	/* set by the caller (mkjob gives defaults) */
	int k, blocking, cnt, root, ip, op, sl, rl;
	MPI_Comm comm;
	const char *cname;
	/* set by job_setup */
	int me, n, seed, ipr, w;
	enum coll_how mode;
	const struct lay *sL, *rL;
	int *s, *r, *s0, *r0;		/* buffers, and their contents before the call */
	long ss, rs;			/* their sizes in ints */
	long total;			/* reduce-scatter: elements in all */
	int *sc, *sd, *rc, *rd;		/* per peer, in ints (elements for reductions) */
	int *wsc, *wsd, *wrc, *wrd;	/* Alltoallw: counts and byte displacements */
	const struct lay **wsl, **wrl;	/* Alltoallw: the layout of each block */
	MPI_Datatype *st, *rt;
	MPI_Request req;
};

static int next_seed = 1, next_mode;

static struct job mkjob(int k, int cnt, int root, int ip, MPI_Comm comm, const char *cname)
{
	struct job j;

	memset(&j, 0, sizeof(j));
	j.k = k;
	j.cnt = cnt;
	j.root = root;
	j.ip = ip && kinds[k].inplace;
	j.op = O_SUM;
	j.sl = j.rl = L_INT;
	j.comm = comm;
	j.cname = cname;
	j.seed = next_seed++;	/* the same on every rank of comm: same loops */
	return j;
}

static const char *desc(const struct job *j)
{
	static char buf[1600];
	int at;

	at = snprintf(buf, sizeof(buf), "%s on %s (%d ranks), count %d",
		      j->blocking ? kinds[j->k].bname : kinds[j->k].nbname, j->cname, j->n, j->cnt);
	if (j->k == K_RS || j->k == K_RSB)
		at += snprintf(buf + at, sizeof(buf) - at, " per rank (%ld in all)", j->total);
	if (kinds[j->k].rooted)
		at += snprintf(buf + at, sizeof(buf) - at, ", root %d", j->root);
	if (kinds[j->k].inplace)
		at += snprintf(buf + at, sizeof(buf) - at, ", %s",
			       j->ip ? "MPI_IN_PLACE" : "not in place");
	if (kinds[j->k].red)
		at += snprintf(buf + at, sizeof(buf) - at, ", %s", opd[j->op].name);
	if (j->sl != L_INT || j->rl != L_INT)
		at += snprintf(buf + at, sizeof(buf) - at, ", %s to %s", lays[j->sl].name,
			       lays[j->rl].name);
	if (!j->blocking)
		at += snprintf(buf + at, sizeof(buf) - at, ", %s", coll_how_names[j->mode]);
	snprintf(buf + at, sizeof(buf) - at, " [%s]", algo_env);
	return buf;
}

static void job_alloc(struct job *j, long ss, long rs)
{
	j->ss = ss;
	j->rs = rs;
	j->s = coll_iarr(ss);
	for (long i = 0; i < ss; i++)
		j->s[i] = FILL_S;
	j->r = coll_ibuf(rs);	/* FILL_R */
}

/* Alltoallw: to a peer with an even rank the holey type where the count
 * is even, else MPI_INT; from peer k the holey type where me + k is odd
 * and the count even. Blocks in reverse peer order, 2-int gaps. In place
 * the receive side describes both. */
static void alltoallw_setup(struct job *j)
{
	int n = j->n, me = j->me, cnt = j->cnt;
	long at = 0, sspan;

	j->sc = coll_iarr(n), j->sd = coll_iarr(n), j->rc = coll_iarr(n), j->rd = coll_iarr(n);
	j->wsc = coll_iarr(n), j->wsd = coll_iarr(n), j->wrc = coll_iarr(n), j->wrd = coll_iarr(n);
	j->wsl = mtest_malloc(n * sizeof(*j->wsl));
	j->wrl = mtest_malloc(n * sizeof(*j->wrl));
	j->st = mtest_malloc(n * sizeof(MPI_Datatype));
	j->rt = mtest_malloc(n * sizeof(MPI_Datatype));
	for (int k = n - 1; k >= 0; k--) {
		int c = j->sc[k] = coll_a2av_count(cnt, me, k);
		const struct lay *L = &lays[k % 2 == 0 && c % 2 == 0 ? L_HOLEY : L_INT];

		j->wsl[k] = L;
		j->st[k] = L->dt;
		j->wsc[k] = c / L->nd;
		j->sd[k] = (int)at;
		j->wsd[k] = (int)(at * sizeof(int));
		at += lay_span(L, c) + 2;
	}
	sspan = at;
	at = 0;
	for (int k = n - 1; k >= 0; k--) {
		int c = j->rc[k] = j->ipr ? coll_a2av_count(cnt, me + k, me + k) :
					     coll_a2av_count(cnt, k, me);
		const struct lay *L = &lays[(k + me) % 2 == 1 && c % 2 == 0 ? L_HOLEY : L_INT];

		j->wrl[k] = L;
		j->rt[k] = L->dt;
		j->wrc[k] = c / L->nd;
		j->rd[k] = (int)at;
		j->wrd[k] = (int)(at * sizeof(int));
		at += lay_span(L, c) + 2;
	}
	job_alloc(j, j->ipr ? 0 : sspan, at);
	for (int k = 0; k < n; k++) {
		if (j->ipr)
			fillblk(j->r + j->rd[k], j->wrl[k], j->rc[k], me, k, j->seed);
		else
			fillblk(j->s + j->sd[k], j->wsl[k], j->sc[k], me, k, j->seed);
	}
}

static void fill_red(int *p, int op, int r, long units, int seed)
{
	int w = opd[op].w;

	for (long u = 0; u < units; u++)
		red_in(op, r, u, seed, p + u * w);
}

static void job_setup(struct job *j)
{
	int n, me, cnt = j->cnt, root = j->root, seed = j->seed, isroot, w;
	const struct lay *sL, *rL;
	long span, T;

	MPI_Comm_rank(j->comm, &j->me);
	MPI_Comm_size(j->comm, &j->n);
	n = j->n;
	me = j->me;
	isroot = me == root;
	j->w = w = kinds[j->k].red ? opd[j->op].w : 1;
	j->ipr = j->ip && (kinds[j->k].inplace == 1 || isroot);
	j->req = MPI_REQUEST_NULL;
	j->mode = (enum coll_how)(next_mode++ % COLL_NHOW);
	j->sL = sL = &lays[j->sl];
	j->rL = rL = &lays[j->rl];

	switch (j->k) {
	case K_BARRIER:
		job_alloc(j, 0, 0);
		break;
	case K_BCAST: {
		const struct lay *L = isroot ? sL : rL;

		job_alloc(j, 0, lay_span(L, cnt));
		if (isroot)
			fillblk(j->r, L, cnt, root, 0, seed);
		break;
	}
	case K_GATHER:
	case K_ALLGATHER:
		job_alloc(j, j->ipr ? 0 : lay_span(sL, cnt),
			  j->k == K_ALLGATHER || isroot ? n * lay_span(rL, cnt) : 0);
		if (j->ipr)
			fillblk(j->r + me * lay_span(rL, cnt), rL, cnt, me, 0, seed);
		else
			fillblk(j->s, sL, cnt, me, 0, seed);
		break;
	case K_SCATTER:
		job_alloc(j, isroot ? n * lay_span(sL, cnt) : 0, j->ipr ? 0 : lay_span(rL, cnt));
		if (isroot)
			for (int k = 0; k < n; k++)
				fillblk(j->s + k * lay_span(sL, cnt), sL, cnt, root, k, seed);
		break;
	case K_ALLTOALL:
		job_alloc(j, j->ipr ? 0 : n * lay_span(sL, cnt), n * lay_span(rL, cnt));
		for (int k = 0; k < n; k++) {
			if (j->ipr)
				fillblk(j->r + k * lay_span(rL, cnt), rL, cnt, me, k, seed);
			else
				fillblk(j->s + k * lay_span(sL, cnt), sL, cnt, me, k, seed);
		}
		break;
	case K_GATHERV:
	case K_ALLGATHERV:
		j->rc = coll_iarr(n), j->rd = coll_iarr(n);
		span = coll_vlayout(n, cnt, j->rc, j->rd);
		job_alloc(j, j->ipr ? 0 : j->rc[me], j->k == K_ALLGATHERV || isroot ? span : 0);
		if (j->ipr)
			fillblk(j->r + j->rd[me], rL, j->rc[me], me, 0, seed);
		else
			fillblk(j->s, sL, j->rc[me], me, 0, seed);
		break;
	case K_SCATTERV:
		j->sc = coll_iarr(n), j->sd = coll_iarr(n);
		span = coll_vlayout(n, cnt, j->sc, j->sd);
		job_alloc(j, isroot ? span : 0, j->ipr ? 0 : j->sc[me]);
		if (isroot)
			for (int k = 0; k < n; k++)
				fillblk(j->s + j->sd[k], sL, j->sc[k], root, k, seed);
		break;
	case K_ALLTOALLV:
		j->sc = coll_iarr(n), j->sd = coll_iarr(n), j->rc = coll_iarr(n), j->rd = coll_iarr(n);
		span = coll_a2av_layout(n, cnt, me, 1, j->sc, j->sd);
		job_alloc(j, j->ipr ? 0 : span,
			  coll_a2av_layout(n, cnt, me, j->ipr ? 2 : 0, j->rc, j->rd));
		for (int k = 0; k < n; k++) {
			if (j->ipr)
				fillblk(j->r + j->rd[k], rL, j->rc[k], me, k, seed);
			else
				fillblk(j->s + j->sd[k], sL, j->sc[k], me, k, seed);
		}
		break;
	case K_ALLTOALLW:
		alltoallw_setup(j);
		break;
	case K_REDUCE:
	case K_ALLREDUCE:
	case K_SCAN:
	case K_EXSCAN:
		job_alloc(j, j->ipr ? 0 : (long)cnt * w,
			  j->k != K_REDUCE || isroot ? (long)cnt * w : 0);
		fill_red(j->ipr ? j->r : j->s, j->op, me, cnt, seed);
		if (j->ipr)	/* the holes of the input, as they would be in sendbuf */
			for (long i = 0; i < (long)cnt * w; i++)
				if (j->r[i] == FILL_R)
					j->r[i] = FILL_S;
		break;
	case K_RS:
	case K_RSB:
		j->rc = coll_iarr(n), j->rd = coll_iarr(n);
		T = 0;
		/* odd ranks get cnt, even ones cnt/2, so that in place a rank's
		 * block overlaps the front of recvbuf where its result goes; but
		 * MPICH 4.0 memcpys that overlap in its long-message algorithm
		 * (an assertion fails), so above SMALL in place the parities swap */
		for (int k = 0; k < n; k++) {
			j->rc[k] = j->k == K_RSB || k % 2 != (j->ipr && cnt > SMALL) ? cnt : cnt / 2;
			j->rd[k] = (int)T;
			T += j->rc[k];
		}
		j->total = T;
		job_alloc(j, j->ipr ? 0 : T * w, j->ipr ? T * w : (long)j->rc[me] * w);
		fill_red(j->ipr ? j->r : j->s, j->op, me, T, seed);
		if (j->ipr)
			for (long i = 0; i < T * w; i++)
				if (j->r[i] == FILL_R)
					j->r[i] = FILL_S;
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
	const struct lay *sL = j->sL, *rL = j->rL, *L = me == root ? sL : rL;
	MPI_Datatype rdt = opd[j->op].dt;
	MPI_Op op = opd[j->op].op;

	switch (j->k) {
	case K_BARRIER:
		rc = COLL(Barrier, barrier, c);
		break;
	case K_BCAST:
		rc = COLL(Bcast, bcast, r, cnt / L->nd, L->dt, root, c);
		break;
	case K_REDUCE:
		rc = COLL(Reduce, reduce, sb, r, cnt, rdt, op, root, c);
		break;
	case K_ALLREDUCE:
		rc = COLL(Allreduce, allreduce, sb, r, cnt, rdt, op, c);
		break;
	case K_GATHER:
		rc = COLL(Gather, gather, sb, cnt / sL->nd, sL->dt, r, cnt / rL->nd, rL->dt, root, c);
		break;
	case K_GATHERV:
		rc = COLL(Gatherv, gatherv, sb, j->rc[me], MPI_INT, r, j->rc, j->rd, MPI_INT, root, c);
		break;
	case K_SCATTER:
		rc = COLL(Scatter, scatter, s, cnt / sL->nd, sL->dt, rb, cnt / rL->nd, rL->dt, root, c);
		break;
	case K_SCATTERV:
		rc = COLL(Scatterv, scatterv, s, j->sc, j->sd, MPI_INT, rb, j->sc[me], MPI_INT, root,
			  c);
		break;
	case K_ALLGATHER:
		rc = COLL(Allgather, allgather, sb, cnt / sL->nd, sL->dt, r, cnt / rL->nd, rL->dt, c);
		break;
	case K_ALLGATHERV:
		rc = COLL(Allgatherv, allgatherv, sb, j->rc[me], MPI_INT, r, j->rc, j->rd, MPI_INT, c);
		break;
	case K_ALLTOALL:
		if (j->ipr)
			rc = COLL(Alltoall, alltoall, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r,
				  cnt / rL->nd, rL->dt, c);
		else
			rc = COLL(Alltoall, alltoall, s, cnt / sL->nd, sL->dt, r, cnt / rL->nd, rL->dt,
				  c);
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
		rc = COLL(Reduce_scatter, reduce_scatter, sb, r, j->rc, rdt, op, c);
		break;
	case K_RSB:
		rc = COLL(Reduce_scatter_block, reduce_scatter_block, sb, r, cnt, rdt, op, c);
		break;
	case K_SCAN:
		rc = COLL(Scan, scan, sb, r, cnt, rdt, op, c);
		break;
	case K_EXSCAN:
		rc = COLL(Exscan, exscan, sb, r, cnt, rdt, op, c);
		break;
	}
	mtest_check(rc == MPI_SUCCESS, "%s: returned %d", desc(j), rc);
	if (!j->blocking)
		mtest_check(j->req != MPI_REQUEST_NULL, "%s: no request returned", desc(j));
}

/* the receive buffer must equal the serial result (don't-care positions
 * aside, holes as they were) and the send buffer must be as it was */
static void job_check(struct job *j)
{
	int n = j->n, me = j->me, cnt = j->cnt, root = j->root, seed = j->seed, w = j->w;
	int *e = coll_dup_ints(j->r0, j->rs);
	long dc_from = j->rs;	/* ints from here on are undefined by MPI */
	const struct lay *rL = j->rL;

	switch (j->k) {
	case K_BARRIER:
		break;
	case K_BCAST:
		fillblk(e, me == root ? j->sL : rL, cnt, root, 0, seed);
		break;
	case K_GATHER:
	case K_ALLGATHER:
		if (j->rs)
			for (int k = 0; k < n; k++)
				fillblk(e + k * lay_span(rL, cnt), rL, cnt, k, 0, seed);
		break;
	case K_SCATTER:
		if (j->rs)
			fillblk(e, rL, cnt, root, me, seed);
		break;
	case K_ALLTOALL:
		for (int k = 0; k < n; k++)
			fillblk(e + k * lay_span(rL, cnt), rL, cnt, k, me, seed);
		break;
	case K_GATHERV:
	case K_ALLGATHERV:
		if (j->rs)
			for (int k = 0; k < n; k++)
				fillblk(e + j->rd[k], rL, j->rc[k], k, 0, seed);
		break;
	case K_SCATTERV:
		if (j->rs)
			fillblk(e, rL, j->sc[me], root, me, seed);
		break;
	case K_ALLTOALLV:
		for (int k = 0; k < n; k++)
			fillblk(e + j->rd[k], rL, j->rc[k], k, me, seed);
		break;
	case K_ALLTOALLW:
		for (int k = 0; k < n; k++)
			fillblk(e + j->rd[k], j->wrl[k], j->rc[k], k, me, seed);
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
			dc_from = 0;
		else
			for (long u = 0; u < cnt; u++)
				red_fold(j->op, 0, me - 1, u, seed, e + u * w);
		break;
	case K_RS:
	case K_RSB:
		for (long u = 0; u < j->rc[me]; u++)
			red_fold(j->op, 0, n - 1, j->rd[me] + u, seed, e + u * w);
		/* in place, MPI says nothing of the rest of recvbuf */
		dc_from = (long)j->rc[me] * w;
		break;
	}
	for (long i = 0; i < dc_from; i++) {
		if (j->r[i] != e[i]) {
			mtest_error("%s: receive buffer int %ld is %d, expected %d%s", desc(j), i,
				    j->r[i], e[i], e[i] == FILL_R || e[i] == FILL_S ?
				    " (a hole or gap, untouched)" : "");
			break;
		}
	}
	coll_check_sendbuf(j->s, j->s0, j->ss, desc(j));
	free(e);
}

static void job_free(struct job *j)
{
	free(j->s), free(j->r), free(j->s0), free(j->r0);
	free(j->sc), free(j->sd), free(j->rc), free(j->rd);
	free(j->wsc), free(j->wsd), free(j->wrc), free(j->wrd);
	free(j->wsl), free(j->wrl), free(j->st), free(j->rt);
}

static long ncalls;

static void run(struct job j)
{
	job_setup(&j);
	if (trace)
		printf("rank %d: %s\n", j.me, desc(&j)), fflush(stdout);
	job_start(&j);
	if (!j.blocking)
		coll_complete(&j.req, j.mode, desc(&j));
	job_check(&j);
	job_free(&j);
	ncalls++;
}

/* ---- the sweep ------------------------------------------------------------ */

static double t_last[3];

/* COLL_SWEEP_VERBOSE=1: the time of each part on rank 0; 2: of each count
 * and kind too */
static void lap(const char *what, int level)
{
	const char *v = getenv("COLL_SWEEP_VERBOSE");
	double t = MPI_Wtime();

	if (v && atoi(v) >= level && mtest_rank == 0) {
		printf("%-40s %7.2f s\n", what, t - t_last[level]);
		fflush(stdout);
	}
	for (int l = level; l < 3; l++)
		t_last[l] = t;
}

static int selected(int k)
{
	char key[64];

	if (!only[0])
		return 1;
	snprintf(key, sizeof(key), ",%s,", kinds[k].key);
	return strstr(only, key) != NULL;
}

/* the roots at a count: all of them up to SMALL, else the last rank and
 * the middle one */
static int roots_of(int n, int cnt, int *roots)
{
	int nr = 0;

	if (cnt <= SMALL) {
		for (int r = 0; r < n; r++)
			roots[nr++] = r;
		return nr;
	}
	roots[nr++] = n - 1;
	if (n / 2 != n - 1)
		roots[nr++] = n / 2;
	return nr;
}

/*
 * A call's variant x: blocking or not, in place or not (for the kinds
 * that have it), and for reductions an op that commutes (MPI_SUM, the
 * user sum) or not (matrix product, affine maps). A full cross product
 * at every count and root would be slow at 9 ranks on two cores, so the
 * variants rotate: every count runs all four at small counts and two at
 * larger ones (one blocking, one not), every root one, shifted by the
 * count, so that over neighbouring counts each root meets each variant;
 * the op's class (commutes or not) turns over with the count and every
 * second root, so each count has both.
 */
static int var_blocking(int x)
{
	return x % 2 == 0;
}

static int var_inplace(int k, int x)
{
	return kinds[k].inplace && x / 2 == 1;
}

static int nvars(int k)
{
	return kinds[k].inplace ? 4 : 2;
}

/* the op of a reduction: cls 0 one that commutes, 1 one that does not;
 * sel picks one of the two of the class */
static int var_op(int cls, int sel, int cnt)
{
	if (cnt > BIG_USEROP)	/* the big buffers: only the 1-int element */
		return O_SUM;
	if (cls % 2 == 0)
		return sel % 2 ? O_VSUM : O_SUM;
	return sel % 2 ? O_AFF : O_MAT;
}

static void sweep_comm(MPI_Comm comm, const char *cname, int maxcnt)
{
	const int *counts = quick ? counts_quick : counts_full;
	int ncounts = quick ? (int)(sizeof(counts_quick) / sizeof(counts_quick[0]))
			    : (int)(sizeof(counts_full) / sizeof(counts_full[0]));
	int n, roots[64];

	MPI_Comm_size(comm, &n);
	for (int c = 0; c < ncounts; c++) {
		int cnt = counts[c];

		if (cnt > maxcnt)
			break;
		for (int k = 0; k < NKINDS; k++) {
			int nv = nvars(k), vars[4], nx = 0, rcnt = cnt;

			if (!selected(k))
				continue;
			if (k == K_BARRIER && cnt != 0)
				continue;
			/* the all-to-all family: at most MI ints per rank */
			if (kinds[k].a2a && (long)cnt * n > MI)
				continue;
			if (cnt > MEDIUM && !kinds[k].red && k != K_BCAST)
				continue;
			/* reduce-scatter: above SMALL about cnt elements in all */
			if ((k == K_RS || k == K_RSB) && cnt > SMALL)
				rcnt = cnt / n;
			if (kinds[k].rooted) {
				int nr = roots_of(n, cnt, roots);

				for (int ri = 0; ri < nr; ri++) {
					int x = (ri + c) % nv;
					struct job j = mkjob(k, rcnt, roots[ri], var_inplace(k, x),
							     comm, cname);

					j.blocking = var_blocking(x);
					if (kinds[k].red)
						j.op = var_op(c + ri / 2, c / 2 + ri, cnt);
					run(j);
				}
			} else {
				if (cnt <= SMALL)
					for (int x = 0; x < nv; x++)
						vars[nx++] = x;
				else	/* one blocking, one not, in place alternating */
					vars[nx++] = nv == 4 && c % 2 ? 2 : 0,
					vars[nx++] = nv == 4 && c % 2 ? 1 : nv - 1;
				for (int v = 0; v < nx; v++) {
					struct job j = mkjob(k, rcnt, 0, var_inplace(k, vars[v]), comm,
							     cname);

					j.blocking = var_blocking(vars[v]);
					if (kinds[k].red)
						j.op = var_op(c + vars[v], c / 2 + vars[v] / 2, cnt);
					run(j);
				}
			}
			if (mtest_rank == 0 && getenv("COLL_SWEEP_VERBOSE")) {
				char what[80];

				snprintf(what, sizeof(what), "  %s count %d", kinds[k].key, cnt);
				lap(what, 2);
			}
		}
	}
}

/* a derived type with holes on either side of the collectives that take
 * a type per side */
static void sweep_dtypes(MPI_Comm comm, const char *cname)
{
	static const int pairs[][2] = { { L_HOLEY, L_INT }, { L_INT, L_HOLEY },
					{ L_HOLEY, L_HOLEY } };
	static const int dk[] = { K_BCAST, K_GATHER, K_SCATTER, K_ALLGATHER, K_ALLTOALL };
	static const int dc[] = { 0, 2, 14, 2050, 65536 };	/* data ints: even */
	int n, roots[2];

	MPI_Comm_size(comm, &n);
	roots[0] = n - 1;
	roots[1] = n / 2;
	for (size_t c = 0; c < sizeof(dc) / sizeof(dc[0]); c++)
		for (size_t x = 0; x < sizeof(dk) / sizeof(dk[0]); x++) {
			int k = dk[x];

			if (!selected(k) || (kinds[k].a2a && (long)dc[c] * n > MI) ||
			    (quick && dc[c] == 65536))
				continue;
			for (int p = 0; p < (int)(sizeof(pairs) / sizeof(pairs[0])); p++) {
				int nv = nvars(k), x0 = (p + (int)c) % nv;

				/* two calls: at two roots, or two variants (as
				 * sweep_comm: one blocking, one not) */
				for (int t = 0; t < 2; t++) {
					int x = kinds[k].rooted ? (x0 + t) % nv : nv == 2 ? t :
						x0 % 2 ? (t ? 1 : 2) : (t ? 3 : 0);
					struct job j = mkjob(k, dc[c], roots[t], var_inplace(k, x), comm,
							     cname);

					if (t && kinds[k].rooted && roots[1] == roots[0])
						break;
					j.blocking = var_blocking(x);
					j.sl = pairs[p][0];
					j.rl = pairs[p][1];
					run(j);
				}
			}
		}
}

/* every predefined op on every type it is defined on (coll_ops.h): the
 * small count on world, the medium one (past the long-message switch
 * points for 8-byte and larger types) on the reversed communicator */
static void test_op_matrix(MPI_Comm rev)
{
	static const int mc[] = { 5, 2500 };
	char tag[sizeof(algo_env) + 8];

	snprintf(tag, sizeof(tag), " [%s]", algo_env);
	for (int c = 0; c < 2; c++) {
		if (quick && !c)	/* count 5 < n: the long-vector algorithms give way */
			continue;
		ncalls += coll_op_matrix(mc[c], c ? rev : MPI_COMM_WORLD,
					 c ? "reversed world" : "MPI_COMM_WORLD", COLL_ALL_FORMS, 1, tag);
	}
}

/* ---- setup ------------------------------------------------------------------ */

static void make_types(void)
{
	static const int disp[2] = { 0, 2 };
	MPI_Datatype t;

	MPI_Type_vector(2, 1, 3, MPI_INT, &t);
	MPI_Type_create_resized(t, 0, 5 * sizeof(int), &lays[L_HOLEY].dt);
	MPI_Type_free(&t);
	MPI_Type_commit(&lays[L_HOLEY].dt);

	opd[O_SUM].dt = MPI_INT;
	opd[O_SUM].op = MPI_SUM;
	MPI_Type_contiguous(4, MPI_INT, &opd[O_MAT].dt);
	MPI_Type_create_indexed_block(2, 1, disp, MPI_INT, &t);
	MPI_Type_create_resized(t, 0, 4 * sizeof(int), &opd[O_AFF].dt);
	MPI_Type_free(&t);
	MPI_Type_vector(3, 1, 2, MPI_INT, &opd[O_VSUM].dt);
	MPI_Op_create(fn_mat, 0, &opd[O_MAT].op);
	MPI_Op_create(fn_aff, 0, &opd[O_AFF].op);
	MPI_Op_create(fn_vsum, 1, &opd[O_VSUM].op);
	for (int o = O_MAT; o < NOPS; o++) {
		MPI_Aint lb, ext;

		MPI_Type_commit(&opd[o].dt);
		MPI_Type_get_extent(opd[o].dt, &lb, &ext);
		mtest_check(lb == 0 && ext == opd[o].w * (MPI_Aint)sizeof(int),
			    "type of %s: lb %ld extent %ld, expected 0 and %ld", opd[o].name,
			    (long)lb, (long)ext, opd[o].w * (long)sizeof(int));
	}
}

static void free_types(void)
{
	MPI_Type_free(&lays[L_HOLEY].dt);
	for (int o = O_MAT; o < NOPS; o++) {
		MPI_Type_free(&opd[o].dt);
		MPI_Op_free(&opd[o].op);
	}
}

extern char **environ;

static void read_env(void)
{
	const char *q = getenv("COLL_SWEEP_QUICK"), *o = getenv("COLL_SWEEP_ONLY");
	size_t at = 0;

	quick = q && *q && strcmp(q, "0") != 0;
	trace = getenv("COLL_SWEEP_TRACE") != NULL;
	if (o && *o) {
		char buf[512], *save, *tok;
		size_t n = 1;

		/* ",name,name,"; a nonblocking name (iallreduce) selects the same */
		snprintf(buf, sizeof(buf), "%s", o);
		only[0] = ',';
		for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
			n += snprintf(only + n, sizeof(only) - n, "%s,", tok[0] == 'i' ? tok + 1 : tok);
	}
	for (char **e = environ; *e; e++) {
		if (strncmp(*e, "MICHI_COLL_", 11) != 0)
			continue;
		at += snprintf(algo_env + at, sizeof(algo_env) - at, "%s%s", at ? " " : "", *e);
		if (at >= sizeof(algo_env))
			break;
	}
	if (!at)
		snprintf(algo_env, sizeof(algo_env), "automatic selection");
}

int main(int argc, char **argv)
{
	MPI_Comm rev, half;
	int n, me;

#ifdef __GLIBC__
	/* keep freed buffers (up to 32 MiB each) for the next call: the
	 * page faults of fresh ones cost more than the calls at 1 Mi */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
	mtest_init(&argc, &argv);
	n = mtest_size;
	me = mtest_rank;
	read_env();
	make_types();
	t_last[0] = t_last[1] = t_last[2] = MPI_Wtime();
	/* every rank of world in reverse order; and even/odd halves, each
	 * in reverse order (sizes that differ from world's) */
	MPI_Comm_split(MPI_COMM_WORLD, 0, n - 1 - me, &rev);
	MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &half);

	next_seed = 1;
	sweep_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD", MI);
	lap("sweep on MPI_COMM_WORLD", 1);
	next_seed = 1000000;
	/* 1 Mi once is enough: the big buffers dominate the time on tcp */
	sweep_comm(rev, "reversed world", BIG_USEROP);
	lap("sweep on reversed world", 1);
	next_seed = 2000000;
	sweep_comm(half, me % 2 ? "odd ranks, reversed" : "even ranks, reversed", SMALL);
	lap("sweep on even/odd halves", 1);
	next_seed = 3000000;
	sweep_dtypes(MPI_COMM_WORLD, "MPI_COMM_WORLD");
	sweep_dtypes(rev, "reversed world");
	lap("derived datatypes", 1);
	if (!only[0])
		test_op_matrix(rev);
	lap("every op on every type", 1);
	if (getenv("COLL_SWEEP_VERBOSE") && me == 0)
		printf("%ld calls in the sweeps\n", ncalls);

	MPI_Comm_free(&half);
	MPI_Comm_free(&rev);
	free_types();
	return mtest_finalize();
}
