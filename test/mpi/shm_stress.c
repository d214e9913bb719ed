/* SPDX-License-Identifier: MIT */
/*
 * Stress test for the point-to-point devices (written for the shared-memory
 * device, issue 3): every rank sends its share of TOTAL messages (default
 * 100,000 across the job) to random other ranks, with random tags and
 * sizes from 0 B to 1 MiB, log-uniformly spread so that eager, medium and
 * rendezvous sizes all occur. Receivers learn their counts through
 * MPI_Alltoall and take messages mostly with MPI_ANY_SOURCE/MPI_ANY_TAG
 * Irecvs, in bounded windows of outstanding Isends and Irecvs; in some
 * phases they stop posting and drain the unexpected queue through
 * Improbe+Imrecv and Iprobe followed by a receive with a specific source,
 * tag or both. Every payload carries a header (sender, destination,
 * sequence, tag, size) and a pattern derived from (seed, sender, sequence);
 * status source, tag and count must agree with it. All plans derive from
 * the seed, so each receiver recomputes what every sender sent it and
 * checks, per (sender, tag), that messages matched receives in sending
 * order (non-overtaking), none lost or duplicated, zero-byte ones included.
 *
 * usage: shm_stress [TOTAL [SEED [SECONDS]]]; SECONDS bounds the run (an
 * alarm ends a stuck rank with a summary of where it was). A testlist line
 * cannot pass arguments, so SHM_STRESS_TOTAL=N in the environment also
 * sets TOTAL.
 */
#include "mtest.h"
#include <signal.h>
#include <sched.h>
#include <unistd.h>

#define DEFAULT_TOTAL 100000
#define DEFAULT_SEED 20261122u
#define DEFAULT_LIMIT_S 50
#define NTAGS 32
#define MAXSIZE (1u << 20)
#define SEND_SLOTS 8
#define RECV_SLOTS 8
#define NSLOTS (SEND_SLOTS + RECV_SLOTS)
#define MAGIC 0x5354524du
/* a probe phase that finds nothing for this long gives way to posting */
#define PROBE_IDLE_S 0.002

/* Starts every payload; smaller messages carry a prefix of it. */
struct hdr {
	uint32_t magic;
	uint32_t sender;
	uint32_t dest;
	uint32_t seq;
	uint32_t tag;
	uint32_t size;
	uint64_t key;
};
#define HDR_SIZE ((uint32_t)sizeof(struct hdr))

struct plan {
	int dest;
	int tag;
	uint32_t size;
};

/* One message as matched: post orders the matches of one receiver. */
struct rec {
	int src;
	int tag;
	uint32_t size;
	uint32_t seq;
	uint64_t post;
	unsigned char head[HDR_SIZE];
};

enum recv_kind { RK_ANY, RK_MPROBE, RK_PROBE_EXACT, RK_PROBE_TAG, RK_PROBE_SRC };

struct rslot {
	MPI_Request *req;
	unsigned char *buf;
	enum recv_kind kind;
	uint64_t post;
	MPI_Status probed;
};

static uint32_t seed = DEFAULT_SEED;
static int total = DEFAULT_TOTAL;
static struct plan **plans;
static int *nplan;
static uint64_t bytes_sent;
/* receives completed per enum recv_kind, reported so a run shows that
 * the probe paths were taken at all */
static int nkind[5];

/* progress counters, read by the alarm handler */
static volatile int sent_done, nsend, recv_done, nexpect, in_probe, in_barrier;

/* splitmix64: cheap, and any rank can replay any other rank's stream */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t msg_key(int sender, uint32_t seq)
{
	uint64_t s = ((uint64_t)seed << 32) ^ ((uint64_t)sender << 24) ^ seq;

	rng_next(&s);
	return rng_next(&s);
}

/* 1% exactly 0 B, 1% exactly 1 MiB, else uniform within a random octave
 * [2^e, 2^(e+1)), e in 0..19: log-uniform without libm. */
static uint32_t pick_size(uint64_t *r)
{
	unsigned pick = rng_next(r) % 100;
	unsigned e = rng_next(r) % 20;

	if (pick == 0)
		return 0;
	if (pick == 1)
		return MAXSIZE;
	return (1u << e) + (uint32_t)(rng_next(r) % (1u << e));
}

static void make_plan(int s)
{
	uint64_t r = ((uint64_t)seed << 20) ^ (uint64_t)s ^ 0x5eedull;
	int i, n = total / mtest_size + (s < total % mtest_size);
	struct plan *p = mtest_malloc(sizeof(*p) * (size_t)(n ? n : 1));

	for (i = 0; i < n; i++) {
		if (mtest_size == 1) {
			p[i].dest = 0;
		} else {
			p[i].dest = (int)(rng_next(&r) % (uint64_t)(mtest_size - 1));
			if (p[i].dest >= s)
				p[i].dest++;
		}
		p[i].tag = (int)(rng_next(&r) % NTAGS);
		p[i].size = pick_size(&r);
	}
	plans[s] = p;
	nplan[s] = n;
}

static inline uint64_t pattern_word(uint64_t key, size_t off)
{
	return key ^ ((uint64_t)off * 0x9e3779b97f4a7c15ull) ^ (off >> 3);
}

static void make_hdr(struct hdr *h, int sender, uint32_t seq)
{
	const struct plan *p = &plans[sender][seq];

	memset(h, 0, sizeof(*h));
	h->magic = MAGIC;
	h->sender = (uint32_t)sender;
	h->dest = (uint32_t)p->dest;
	h->seq = seq;
	h->tag = (uint32_t)p->tag;
	h->size = p->size;
	h->key = msg_key(sender, seq);
}

static void fill(unsigned char *buf, const struct hdr *h)
{
	size_t off, n = h->size;
	uint64_t w;

	memcpy(buf, h, n < HDR_SIZE ? n : HDR_SIZE);
	for (off = HDR_SIZE; off + 8 <= n; off += 8) {
		w = pattern_word(h->key, off);
		memcpy(buf + off, &w, 8);
	}
	if (off < n) {
		w = pattern_word(h->key, off);
		memcpy(buf + off, &w, n - off);
	}
}

/* Returns the first wrong byte offset after the header, or -1. */
static long verify_body(const unsigned char *buf, const struct hdr *h)
{
	size_t off, n = h->size;
	uint64_t w, got;

	for (off = HDR_SIZE; off + 8 <= n; off += 8) {
		w = pattern_word(h->key, off);
		memcpy(&got, buf + off, 8);
		if (got != w)
			return (long)off;
	}
	if (off < n) {
		w = pattern_word(h->key, off);
		if (memcmp(buf + off, &w, n - off))
			return (long)off;
	}
	return -1;
}

static void put_str(const char *s)
{
	ssize_t r = write(STDOUT_FILENO, s, strlen(s));

	(void)r;
}

static void put_int(long v)
{
	char b[24];
	int i = (int)sizeof(b) - 1;

	b[i] = '\0';
	if (v < 0)
		v = 0;
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	put_str(b + i);
}

/* Only async-signal-safe calls: the rank may be inside MPI. */
static void on_alarm(int sig)
{
	(void)sig;
	put_str("rank ");
	put_int(mtest_rank);
	put_str(": error: time limit reached: sends completed ");
	put_int(sent_done);
	put_str("/");
	put_int(nsend);
	put_str(", receives completed ");
	put_int(recv_done);
	put_str("/");
	put_int(nexpect);
	put_str(in_barrier ? " (in the final barrier)\n" :
		in_probe ? " (probe phase)\n" : " (posting phase)\n");
	_exit(3);
}

/* The counts the plans promise must be what MPI_Alltoall delivers. */
static int exchange_counts(void)
{
	int *out = calloc((size_t)mtest_size, sizeof(int));
	int *in = calloc((size_t)mtest_size, sizeof(int));
	int i, s, n = 0, want;

	if (!out || !in)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < nplan[mtest_rank]; i++)
		out[plans[mtest_rank][i].dest]++;
	MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
	for (s = 0; s < mtest_size; s++) {
		want = 0;
		for (i = 0; i < nplan[s]; i++)
			want += plans[s][i].dest == mtest_rank;
		mtest_check(in[s] == want, "alltoall: %d announces %d messages, plan says %d",
			    s, in[s], want);
		n += in[s];
	}
	free(out);
	free(in);
	return n;
}

static void start_send(MPI_Request *req, unsigned char *buf, uint32_t seq)
{
	const struct plan *p = &plans[mtest_rank][seq];
	struct hdr h;

	make_hdr(&h, mtest_rank, seq);
	fill(buf, &h);
	bytes_sent += p->size;
	MPI_Isend(buf, (int)p->size, MPI_BYTE, p->dest, p->tag, MPI_COMM_WORLD, req);
}

/*
 * Checks a completed receive against its status and, when the payload is
 * large enough for a header, against the sender's plan; small payloads are
 * kept and checked in check_order(), where their position names them.
 */
static void finish_recv(struct rslot *sl, MPI_Status *st, struct rec *r)
{
	struct hdr want;
	const struct hdr *got = (const struct hdr *)sl->buf;
	int count = -1, src = st->MPI_SOURCE, tag = st->MPI_TAG;
	long bad;

	MPI_Get_count(st, MPI_BYTE, &count);
	r->src = src;
	r->tag = tag;
	r->size = (uint32_t)count;
	r->seq = UINT32_MAX;
	r->post = sl->post;
	if (!mtest_check(src >= 0 && src < mtest_size &&
			 (src != mtest_rank || mtest_size == 1) &&
			 tag >= 0 && tag < NTAGS && count >= 0 &&
			 (uint32_t)count <= MAXSIZE,
			 "status source %d tag %d count %d out of range", src, tag, count)) {
		r->src = -1;
		return;
	}
	if (sl->kind == RK_MPROBE || sl->kind == RK_PROBE_EXACT) {
		int pc = -1;

		MPI_Get_count(&sl->probed, MPI_BYTE, &pc);
		mtest_check(sl->probed.MPI_SOURCE == src && sl->probed.MPI_TAG == tag &&
			    pc == count,
			    "kind %d: probe saw %d/%d/%d B, receive got %d/%d/%d B",
			    sl->kind, sl->probed.MPI_SOURCE, sl->probed.MPI_TAG, pc,
			    src, tag, count);
	}
	memcpy(r->head, sl->buf, (uint32_t)count < HDR_SIZE ? (size_t)count : HDR_SIZE);
	if ((uint32_t)count < HDR_SIZE)
		return;
	if (!mtest_check(got->magic == MAGIC && got->sender == (uint32_t)src &&
			 got->seq < (uint32_t)nplan[src],
			 "from %d tag %d (%d B): bad header magic %#x sender %u seq %u",
			 src, tag, count, got->magic, got->sender, got->seq))
		return;
	make_hdr(&want, src, got->seq);
	if (!mtest_check(!memcmp(got, &want, HDR_SIZE) && want.size == (uint32_t)count &&
			 want.tag == (uint32_t)tag && want.dest == (uint32_t)mtest_rank,
			 "from %d seq %u: status tag %d count %d, header tag %u size %u dest %u,"
			 " plan tag %u size %u dest %u", src, got->seq, tag, count,
			 got->tag, got->size, got->dest, want.tag, want.size, want.dest))
		return;
	r->seq = got->seq;
	bad = verify_body(sl->buf, &want);
	mtest_check(bad < 0, "from %d seq %u (%u B): payload differs at byte %ld",
		    src, got->seq, want.size, bad);
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return x->post < y->post ? -1 : x->post > y->post;
}

/*
 * Sorted by (sender, tag, order), the messages received must be exactly
 * the ones the senders planned for this rank, in the same order: this
 * catches overtaking, loss, duplication and misrouted zero-byte messages.
 */
static void check_order(struct rec *got, int n)
{
	struct rec *want;
	int s, i, k = 0, bad = 0;
	struct hdr h;

	for (s = 0; s < mtest_size; s++)
		for (i = 0; i < nplan[s]; i++)
			k += plans[s][i].dest == mtest_rank;
	want = mtest_malloc(sizeof(*want) * (size_t)(k ? k : 1));
	k = 0;
	for (s = 0; s < mtest_size; s++)
		for (i = 0; i < nplan[s]; i++) {
			if (plans[s][i].dest != mtest_rank)
				continue;
			want[k].src = s;
			want[k].tag = plans[s][i].tag;
			want[k].size = plans[s][i].size;
			want[k].seq = (uint32_t)i;
			want[k].post = (uint64_t)i;
			k++;
		}
	qsort(got, (size_t)n, sizeof(*got), rec_cmp);
	qsort(want, (size_t)k, sizeof(*want), rec_cmp);
	mtest_check(k == n, "planned %d messages for this rank, received %d", k, n);
	for (i = 0; i < n && i < k && bad < 5; i++) {
		const struct rec *g = &got[i], *w = &want[i];

		if (g->src < 0)
			continue;
		make_hdr(&h, w->src, w->seq);
		if (g->src != w->src || g->tag != w->tag || g->size != w->size ||
		    (g->size >= HDR_SIZE && g->seq != w->seq) ||
		    (g->size < HDR_SIZE && memcmp(g->head, &h, g->size))) {
			mtest_error("order: from %d tag %d, match %d should be seq %u"
				    " (%u B), got %s%u (%u B) from %d tag %d",
				    w->src, w->tag, i, w->seq, w->size,
				    g->seq == UINT32_MAX ? "unidentified " : "seq ",
				    g->seq == UINT32_MAX ? 0 : g->seq, g->size, g->src, g->tag);
			bad++;
		}
	}
	free(want);
}

/*
 * Probe phase: takes one unexpected message, if there is one, by one of
 * four paths. Returns 1 when a receive was started in the slot.
 */
static int probe_one(struct rslot *sl, uint64_t *rng, uint64_t post)
{
	MPI_Message msg;
	MPI_Status st;
	int flag = 0, count = 0;

	sl->kind = (enum recv_kind)(1 + rng_next(rng) % 4);
	sl->post = post;
	if (sl->kind == RK_MPROBE) {
		MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
		if (!flag)
			return 0;
		sl->probed = st;
		MPI_Get_count(&st, MPI_BYTE, &count);
		MPI_Imrecv(sl->buf, count, MPI_BYTE, &msg, sl->req);
		return 1;
	}
	MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
	if (!flag)
		return 0;
	sl->probed = st;
	MPI_Get_count(&st, MPI_BYTE, &count);
	/* The probed message stays queued and no receive of ours is posted
	 * in between, so each of these matches something that is there. */
	if (sl->kind == RK_PROBE_EXACT)
		MPI_Irecv(sl->buf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG,
			  MPI_COMM_WORLD, sl->req);
	else if (sl->kind == RK_PROBE_TAG)
		MPI_Irecv(sl->buf, MAXSIZE, MPI_BYTE, MPI_ANY_SOURCE, st.MPI_TAG,
			  MPI_COMM_WORLD, sl->req);
	else
		MPI_Irecv(sl->buf, MAXSIZE, MPI_BYTE, st.MPI_SOURCE, MPI_ANY_TAG,
			  MPI_COMM_WORLD, sl->req);
	return 1;
}

struct state {
	MPI_Request reqs[NSLOTS];
	unsigned char *sbuf[SEND_SLOTS];
	struct rslot rs[RECV_SLOTS];
	struct rec *recs;
	uint64_t rng;
	uint64_t posted;
	int next_seq;
	int budget;
	double idle_since;
};

/* Starts sends and receives into free slots; returns how many. */
static int fill_slots(struct state *S)
{
	int i, started = 0;

	for (i = 0; i < SEND_SLOTS && S->next_seq < nsend; i++)
		if (S->reqs[i] == MPI_REQUEST_NULL) {
			start_send(&S->reqs[i], S->sbuf[i], (uint32_t)S->next_seq++);
			started++;
		}
	for (i = 0; i < RECV_SLOTS && S->posted < (uint64_t)nexpect; i++) {
		struct rslot *sl = &S->rs[i];

		if (*sl->req != MPI_REQUEST_NULL)
			continue;
		if (in_probe) {
			if (!probe_one(sl, &S->rng, S->posted))
				break;
		} else {
			sl->kind = RK_ANY;
			sl->post = S->posted;
			MPI_Irecv(sl->buf, MAXSIZE, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
				  MPI_COMM_WORLD, sl->req);
		}
		S->posted++;
		started++;
	}
	return started;
}

static void switch_phase(struct state *S)
{
	in_probe = !in_probe;
	S->budget = in_probe ? 4 + (int)(rng_next(&S->rng) % 40)
			     : 20 + (int)(rng_next(&S->rng) % 300);
	S->idle_since = MPI_Wtime();
}

static void complete(struct state *S, int n, const int *idx, MPI_Status *sts)
{
	int i, k;

	for (i = 0; i < n; i++) {
		k = idx[i];
		if (k < SEND_SLOTS) {
			sent_done++;
			continue;
		}
		finish_recv(&S->rs[k - SEND_SLOTS], &sts[i], &S->recs[recv_done]);
		nkind[S->rs[k - SEND_SLOTS].kind]++;
		recv_done++;
		if (--S->budget <= 0)
			switch_phase(S);
	}
}

/*
 * Posting phases block in Waitsome: every rank there has a wildcard
 * receive posted (or all its receives), so whatever is in flight can
 * match. Probe phases must poll, and end when they find nothing.
 */
static void run(struct state *S)
{
	int idx[NSLOTS], n, started;
	MPI_Status sts[NSLOTS];

	while (sent_done < nsend || recv_done < nexpect) {
		started = fill_slots(S);
		MPI_Testsome(NSLOTS, S->reqs, &n, idx, sts);
		if (n == MPI_UNDEFINED)
			n = 0;
		if (n == 0 && started == 0) {
			if (!in_probe) {
				MPI_Waitsome(NSLOTS, S->reqs, &n, idx, sts);
				if (n == MPI_UNDEFINED)
					n = 0;
			} else if (MPI_Wtime() - S->idle_since > PROBE_IDLE_S) {
				switch_phase(S);
			} else {
				sched_yield();
			}
		} else if (in_probe) {
			S->idle_since = MPI_Wtime();
		}
		complete(S, n, idx, sts);
	}
}

static void stress(int limit)
{
	struct state S;
	double t0, t;
	double mb, sum_mb = 0;
	int i, kinds[5] = { 0 };

	memset(&S, 0, sizeof(S));
	for (i = 0; i < NSLOTS; i++)
		S.reqs[i] = MPI_REQUEST_NULL;
	for (i = 0; i < SEND_SLOTS; i++)
		S.sbuf[i] = mtest_malloc(MAXSIZE);
	for (i = 0; i < RECV_SLOTS; i++) {
		S.rs[i].req = &S.reqs[SEND_SLOTS + i];
		S.rs[i].buf = mtest_malloc(MAXSIZE);
	}
	S.rng = ((uint64_t)seed << 8) ^ (uint64_t)mtest_rank ^ 0xacedull;
	S.budget = 50;
	nsend = nplan[mtest_rank];
	nexpect = exchange_counts();
	S.recs = mtest_malloc(sizeof(*S.recs) * (size_t)(nexpect ? nexpect : 1));

	signal(SIGALRM, on_alarm);
	alarm((unsigned)limit);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	run(&S);
	in_barrier = 1;
	/* no wildcard receive may be pending once mtest's messages flow */
	MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime() - t0;
	alarm(0);

	check_order(S.recs, recv_done);
	mb = (double)bytes_sent / 1e6;
	MPI_Reduce(&mb, &sum_mb, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	MPI_Reduce(nkind, kinds, 5, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (mtest_rank == 0)
		printf("shm_stress: %d messages, %.0f MB in %.2f s (%.0f MB/s);"
		       " received by any/any %d, improbe %d, iprobe+exact %d,"
		       " iprobe+any-source %d, iprobe+any-tag %d\n",
		       total, sum_mb, t, sum_mb / t, kinds[RK_ANY], kinds[RK_MPROBE],
		       kinds[RK_PROBE_EXACT], kinds[RK_PROBE_TAG], kinds[RK_PROBE_SRC]);
	free(S.recs);
	for (i = 0; i < SEND_SLOTS; i++)
		free(S.sbuf[i]);
	for (i = 0; i < RECV_SLOTS; i++)
		free(S.rs[i].buf);
}

int main(int argc, char **argv)
{
	int s, limit = DEFAULT_LIMIT_S;

	mtest_init(&argc, &argv);
	if (getenv("SHM_STRESS_TOTAL"))
		total = atoi(getenv("SHM_STRESS_TOTAL"));
	if (argc > 1)
		total = atoi(argv[1]);
	if (argc > 2)
		seed = (uint32_t)strtoul(argv[2], NULL, 0);
	if (argc > 3)
		limit = atoi(argv[3]);
	if (total < 0 || limit <= 0) {
		mtest_check(0, "usage: shm_stress [TOTAL [SEED [SECONDS]]]");
		return mtest_finalize();
	}
	if (mtest_rank == 0) {
		printf("shm_stress: %d ranks, %d messages of 0..%u B, %d tags, seed %u"
		       " (rerun: shm_stress %d %u)\n", mtest_size, total, MAXSIZE,
		       NTAGS, seed, total, seed);
		fflush(stdout);
	}
	plans = mtest_malloc(sizeof(*plans) * (size_t)mtest_size);
	nplan = mtest_malloc(sizeof(*nplan) * (size_t)mtest_size);
	for (s = 0; s < mtest_size; s++)
		make_plan(s);
	stress(limit);
	for (s = 0; s < mtest_size; s++)
		free(plans[s]);
	free(plans);
	free(nplan);
	return mtest_finalize();
}
