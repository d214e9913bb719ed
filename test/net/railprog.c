/* SPDX-License-Identifier: MIT */
/*
 * test/net/railprog.c: streams of checked messages between ranks, for the
 * multirail tests and benchmark (test/net/grid_rails.sh, bench/rails.sh).
 * MPI-1 only, so every MPI builds it.
 *
 *   stream SECONDS        every rank but 0 sends rank 0 messages for about
 *                         SECONDS, eight at once (then it waits for rank
 *                         0's word): sizes cycle through 8 B .. 4 MiB
 *                         (eager, rendezvous, striped), each filled from
 *                         (sender, sequence number); rank 0 receives with
 *                         MPI_ANY_SOURCE and MPI_ANY_TAG and checks that
 *                         each sender's messages come in order (the tag is
 *                         the sequence number mod 32000), whole and
 *                         unchanged. Prints "railprog stream ok MSGS BYTES
 *                         MAXGAP" (MAXGAP: the longest time in seconds rank
 *                         0 waited for any message)
 *   bw BYTES ITERS        ranks 0 and 1: 1 sends ITERS messages of BYTES to
 *                         0, which checks the last and answers; prints
 *                         "railprog bw BYTES ITERS SECONDS MBITS" (best of
 *                         three rounds)
 *   burst BYTES ITERS     every rank but 0 sends ITERS messages of BYTES to
 *                         0 at once (paper B's client bursts to the
 *                         server); rank 0 checks each sender's last and
 *                         prints "railprog burst BYTES ITERS SECONDS MBITS"
 *                         (all senders' bytes over the time until the last
 *                         arrived, best of three rounds) and per sender
 *                         "railprog sender R SECONDS MBITS"
 *   pingpong SECONDS      ranks 0 and 1 for about SECONDS: 0 sends 1 a
 *                         message, 1 answers with one of its own, sizes
 *                         cycling through 8 B .. 4 MiB, each checked as in
 *                         stream; prints "railprog pingpong ok ROUNDS
 *                         MAXGAP" (the longest round trip, in seconds)
 *                         (RAILPROG_PINGERS=R,R: those senders send 8 bytes
 *                         a second instead, ITERS times, as paper B's Table
 *                         8; the burst's time and rate leave them out)
 *   flow BYTES SECONDS    every rank but 0 sends 0 messages of BYTES for
 *                         SECONDS, one after the other (paper B's
 *                         continuous client bursts; RAILPROG_PINGERS as in
 *                         burst); rank 0 checks every message and measures
 *                         what its network interfaces received (all but
 *                         lo, from /proc/net/dev) from a quarter of SECONDS
 *                         to nine tenths, as paper B measured at the
 *                         server: prints "railprog flow BYTES SECONDS
 *                         WINDOW MBITS" and per sender "railprog sender R
 *                         MSGS MBITS" (its messages completed in the
 *                         window)
 *   quiet SECONDS         ranks 0 and 1: a 4 MiB message each way (which
 *                         opens the rails), then SECONDS in MPI with nothing
 *                         to send (0 waits in a receive, 1 probes every 10
 *                         ms), then a 4 MiB message each way again, each
 *                         checked; prints "railprog quiet open" when the
 *                         quiet begins and "railprog quiet ok SECONDS LAST"
 *                         (LAST: the last exchange's time in seconds)
 *   lat ITERS             ranks 0 and 1: 8-byte ping-pong (after a 4 MiB
 *                         message each way, which opens the rails), prints
 *                         "railprog lat ITERS MIN_US MEDIAN_US"
 * With RAILPROG_PVARS=PREFIX in the environment, every rank prints at the
 * end "railprog pvar RANK NAME VALUE" for each MPI_T performance variable
 * bound to no object whose name begins with PREFIX (e.g. tcp_rail).
 * With RAILPROG_SAMPLE=SECONDS as well, the senders of stream print
 * "railprog sample RANK T NAME VALUE" for each of those variables about
 * every SECONDS (after a batch; T from the stream's start).
 * With RAILPROG_RSS set, every rank prints at the end "railprog rss RANK
 * KB", its peak resident memory (VmHWM).
 * Errors print "railprog: rank R: ..." and abort.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void die(const char *what)
{
	fprintf(stderr, "railprog: rank %d: %s\n", rank, what);
	fflush(stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static const int sizes[] = { 8, 1000, 65536, 200000, 1 << 20, 1300000, 4 << 20, 3 << 20 };
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
#define MAXMSG (4 << 20)

/* the word at index i of message seq from sender s */
static uint32_t word(int s, int seq, size_t i)
{
	uint32_t x = (uint32_t)s * 2654435761u ^ (uint32_t)seq * 40503u ^ (uint32_t)i * 2246822519u;

	return x ^ (x >> 15);
}

static void fill(uint32_t *b, size_t bytes, int s, int seq)
{
	size_t i;

	for (i = 0; i < bytes / 4; i++)
		b[i] = word(s, seq, i);
}

static int check(const uint32_t *b, size_t bytes, int s, int seq)
{
	size_t i;

	for (i = 0; i < bytes / 4; i++)
		if (b[i] != word(s, seq, i))
			return 0;
	return 1;
}

/* RAILPROG_PVARS: the variables are started after MPI_Init and read
 * before MPI_Finalize (a counter counts from its start) */
#define NPV 64
static MPI_T_pvar_session pv_ses;
static MPI_T_pvar_handle pv_h[NPV];
static MPI_Datatype pv_dt[NPV];
static char pv_name[NPV][256];
static int pv_n;

static void pvars_start(const char *prefix)
{
	int prov, n, i;

	if (MPI_T_init_thread(MPI_THREAD_SINGLE, &prov) != MPI_SUCCESS ||
	    MPI_T_pvar_get_num(&n) != MPI_SUCCESS ||
	    MPI_T_pvar_session_create(&pv_ses) != MPI_SUCCESS)
		die("MPI_T performance variables cannot be read");
	for (i = 0; i < n && pv_n < NPV; i++) {
		char name[256], desc[1024];
		int nl = sizeof(name), dl = sizeof(desc), verb, cls, bind, ro, cont, atom, cnt;
		MPI_T_enum et;

		if (MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &pv_dt[pv_n], &et, desc, &dl,
					&bind, &ro, &cont, &atom) != MPI_SUCCESS ||
		    strncmp(name, prefix, strlen(prefix)) || bind != MPI_T_BIND_NO_OBJECT ||
		    MPI_T_pvar_handle_alloc(pv_ses, i, NULL, &pv_h[pv_n], &cnt) != MPI_SUCCESS)
			continue;
		if (cnt != 1 || (!cont && MPI_T_pvar_start(pv_ses, pv_h[pv_n]) != MPI_SUCCESS)) {
			MPI_T_pvar_handle_free(pv_ses, &pv_h[pv_n]);
			continue;
		}
		snprintf(pv_name[pv_n], sizeof(pv_name[0]), "%s", name);
		pv_n++;
	}
}

static void pvars_sample(double t)
{
	int i;

	for (i = 0; i < pv_n; i++) {
		union { unsigned u; unsigned long ul; unsigned long long ull; double d; } x;
		MPI_Datatype dt = pv_dt[i];

		if (MPI_T_pvar_read(pv_ses, pv_h[i], &x) == MPI_SUCCESS)
			printf("railprog sample %d %.3f %s %llu\n", rank, t, pv_name[i],
			       dt == MPI_UNSIGNED ? x.u : dt == MPI_UNSIGNED_LONG ? x.ul :
			       dt == MPI_DOUBLE ? (unsigned long long)x.d : x.ull);
	}
	fflush(stdout);
}

static void pvars_print(void)
{
	int i;

	for (i = 0; i < pv_n; i++) {
		union { unsigned u; unsigned long ul; unsigned long long ull; double d; } x;
		MPI_Datatype dt = pv_dt[i];

		if (MPI_T_pvar_read(pv_ses, pv_h[i], &x) != MPI_SUCCESS)
			continue;
		printf("railprog pvar %d %s %llu\n", rank, pv_name[i],
		       dt == MPI_UNSIGNED ? x.u : dt == MPI_UNSIGNED_LONG ? x.ul :
		       dt == MPI_DOUBLE ? (unsigned long long)x.d : x.ull);
		MPI_T_pvar_handle_free(pv_ses, &pv_h[i]);
	}
	fflush(stdout);
	MPI_T_pvar_session_free(&pv_ses);
	MPI_T_finalize();
}

#define BATCH 8
#define TAG_DONE 32001

/* tags stay under 32767 (the least MPI_TAG_UB): sequence numbers mod 32000 */
static void stream(double seconds)
{
	char msg[200];

	if (rank == 0) {
		uint32_t *buf = malloc(MAXMSG);
		int *next = calloc((size_t)size, sizeof(int)), *got = calloc((size_t)size, sizeof(int));
		int done = 0, ack = 1;
		long msgs = 0;
		double bytes = 0, maxgap = 0, last = MPI_Wtime(), now;

		if (!buf || !next || !got)
			die("no memory");
		while (done < size - 1) {
			MPI_Status st;
			int n, s, seq;

			MPI_Recv(buf, MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			now = MPI_Wtime();
			if (now - last > maxgap)
				maxgap = now - last;
			last = now;
			s = st.MPI_SOURCE;
			if (st.MPI_TAG == TAG_DONE) {
				done++;
				continue;
			}
			MPI_Get_count(&st, MPI_BYTE, &n);
			seq = next[s];
			if (st.MPI_TAG != seq % 32000) {
				snprintf(msg, sizeof msg, "from rank %d: tag %d where message %d (tag %d) "
					 "was due: lost, duplicated or reordered", s, st.MPI_TAG, seq,
					 seq % 32000);
				die(msg);
			}
			if (n != sizes[seq % NSIZES] || !check(buf, (size_t)n, s, seq)) {
				snprintf(msg, sizeof msg, "from rank %d: message %d (%d bytes, %d due) is "
					 "not what was sent", s, seq, n, sizes[seq % NSIZES]);
				die(msg);
			}
			next[s]++;
			msgs++;
			bytes += n;
			if (++got[s] == BATCH) {
				got[s] = 0;
				MPI_Send(&ack, 1, MPI_INT, s, 0, MPI_COMM_WORLD);
			}
		}
		printf("railprog stream ok %ld %.0f %.3f\n", msgs, bytes, maxgap);
		free(buf);
		free(next);
		free(got);
	} else {
		/* batches of BATCH messages in flight at once, mixed sizes, so
		 * that small ones follow striped ones on the wire */
		char *buf = malloc((size_t)BATCH * MAXMSG);
		MPI_Request req[BATCH];
		MPI_Status sts[BATCH];
		double t0 = MPI_Wtime(), every = getenv("RAILPROG_SAMPLE") && pv_n ?
					       atof(getenv("RAILPROG_SAMPLE")) : 0, next = 0;
		int seq = 0, ack, k;

		if (!buf)
			die("no memory");
		do {
			for (k = 0; k < BATCH; k++, seq++) {
				int n = sizes[seq % NSIZES];
				char *b = buf + (size_t)k * MAXMSG;

				fill((uint32_t *)b, (size_t)n, rank, seq);
				MPI_Isend(b, n, MPI_BYTE, 0, seq % 32000, MPI_COMM_WORLD, &req[k]);
			}
			MPI_Waitall(BATCH, req, sts);
			MPI_Recv(&ack, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (every > 0 && MPI_Wtime() - t0 >= next) {
				pvars_sample(MPI_Wtime() - t0);
				next = MPI_Wtime() - t0 + every;
			}
		} while (MPI_Wtime() - t0 < seconds);
		MPI_Send(&seq, 1, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD);
		free(buf);
	}
}

/* one message of round seq, sent by s: checked by its receiver */
static void pp_check(const uint32_t *b, int n, int s, int seq)
{
	char msg[160];

	if (n != sizes[seq % NSIZES] || !check(b, (size_t)n, s, seq)) {
		snprintf(msg, sizeof msg, "pingpong round %d from rank %d: %d bytes (%d due), "
			 "not what was sent", seq, s, n, sizes[seq % NSIZES]);
		die(msg);
	}
}

static void pingpong(double seconds)
{
	uint32_t *out = malloc(MAXMSG), *in = malloc(MAXMSG);
	double t0 = MPI_Wtime(), maxgap = 0;
	int seq = 0, go = 1, n;

	if (!out || !in)
		die("no memory");
	while (go && rank < 2) {
		int sz = sizes[seq % NSIZES];
		double t = MPI_Wtime();
		MPI_Status st;

		fill(out, (size_t)sz, rank, seq);
		if (rank == 0) {
			MPI_Send(out, sz, MPI_BYTE, 1, seq % 32000, MPI_COMM_WORLD);
			MPI_Recv(in, MAXMSG, MPI_BYTE, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			if (MPI_Wtime() - t > maxgap)
				maxgap = MPI_Wtime() - t;
			go = MPI_Wtime() - t0 < seconds;
		} else {
			MPI_Recv(in, MAXMSG, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			MPI_Send(out, sz, MPI_BYTE, 0, st.MPI_TAG == TAG_DONE ? TAG_DONE : seq % 32000,
				 MPI_COMM_WORLD);
			if (st.MPI_TAG == TAG_DONE)
				break;
		}
		MPI_Get_count(&st, MPI_BYTE, &n);
		if (st.MPI_TAG != seq % 32000)
			die("pingpong: a message out of turn");
		pp_check(in, n, 1 - rank, seq);
		seq++;
	}
	if (rank == 0) {
		/* the last word: 1 answers it and leaves */
		fill(out, 8, 0, 0);
		MPI_Send(out, 8, MPI_BYTE, 1, TAG_DONE, MPI_COMM_WORLD);
		MPI_Recv(in, MAXMSG, MPI_BYTE, 1, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		printf("railprog pingpong ok %d %.3f\n", seq, maxgap);
	}
	free(out);
	free(in);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void bw(long bytes, long iters)
{
	char *buf = malloc((size_t)bytes);
	double best = 0;
	int r, ack = 0;
	long i;

	if (!buf)
		die("no memory");
	for (r = 0; r < 4; r++) {   /* round 0 warms up */
		double t;

		MPI_Barrier(MPI_COMM_WORLD);
		t = MPI_Wtime();
		if (rank == 1) {
			for (i = 0; i < iters; i++) {
				fill((uint32_t *)buf, (size_t)bytes, 1, (int)i);
				MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			}
			MPI_Recv(&ack, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 0) {
			for (i = 0; i < iters; i++)
				MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (!check((uint32_t *)buf, (size_t)bytes, 1, (int)iters - 1))
				die("bw: the last message is not what was sent");
			MPI_Send(&ack, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
		}
		t = MPI_Wtime() - t;
		if (r && (best == 0 || t < best))
			best = t;
	}
	if (rank == 0)
		printf("railprog bw %ld %ld %.6f %.2f\n", bytes, iters, best,
		       (double)bytes * (double)iters * 8 / best / 1e6);
	free(buf);
}

/* RAILPROG_PINGERS: the senders that only ping, 8 bytes a second (paper
 * B's Table 8); a flag per rank */
static int *pingers(void)
{
	int *pinger = calloc((size_t)size, sizeof(int));
	const char *pl = getenv("RAILPROG_PINGERS");

	if (!pinger)
		die("no memory");
	while (pl && *pl) {
		char *end;
		long v = strtol(pl, &end, 10);

		if (end == pl)
			break;
		if (v > 0 && v < size)
			pinger[v] = 1;
		pl = *end ? end + 1 : end;
	}
	return pinger;
}

/* Rank 0 starts each sender with word go: no collective, so that clients
 * with no network in common (paper B's g) need not meet. */
static void start_senders(int go)
{
	int s;

	if (rank == 0)
		for (s = 1; s < size; s++)
			MPI_Send(&go, 1, MPI_INT, s, 1, MPI_COMM_WORLD);
	else
		MPI_Recv(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void burst(long bytes, long iters)
{
	char *buf = malloc((size_t)bytes * (rank == 0 ? (size_t)size : 1));
	double best = 0, *done = calloc((size_t)size, sizeof(double)),
	       *keep = calloc((size_t)size, sizeof(double));
	MPI_Request *req = calloc((size_t)size, sizeof(MPI_Request));
	long *left = calloc((size_t)size, sizeof(long));
	int *pinger = pingers(), r, s, n = 0;
	long i;

	if (!buf || !done || !keep || !req || !left)
		die("no memory");
	for (s = 1; s < size; s++)
		n += !pinger[s];
	if (rank)
		fill((uint32_t *)buf, (size_t)bytes, rank, 0);
	for (r = 0; r < 4; r++) {   /* round 0 warms up */
		double t0, t;
		int active = size - 1, go = r;

		start_senders(go);
		t0 = MPI_Wtime();
		if (rank) {
			for (i = 0; i < iters; i++) {
				MPI_Send(buf, pinger[rank] ? 8 : (int)bytes, MPI_BYTE, 0, 0,
					 MPI_COMM_WORLD);
				if (pinger[rank] && i + 1 < iters)
					usleep(1000000);
			}
			continue;
		}
		for (s = 1; s < size; s++) {
			left[s] = iters;
			MPI_Irecv(buf + (size_t)s * (size_t)bytes, (int)bytes, MPI_BYTE, s, 0,
				  MPI_COMM_WORLD, &req[s]);
		}
		while (active) {
			int idx;

			MPI_Waitany(size - 1, req + 1, &idx, MPI_STATUS_IGNORE);
			s = idx + 1;
			if (--left[s]) {
				MPI_Irecv(buf + (size_t)s * (size_t)bytes, (int)bytes, MPI_BYTE, s, 0,
					  MPI_COMM_WORLD, &req[s]);
				continue;
			}
			done[s] = MPI_Wtime() - t0;
			if (!pinger[s] &&
			    !check((uint32_t *)(buf + (size_t)s * (size_t)bytes), (size_t)bytes, s, 0))
				die("burst: a message is not what was sent");
			active--;
		}
		/* the burst's time: until the last sender that is not a pinger */
		for (t = 0, s = 1; s < size; s++)
			if (!pinger[s] && done[s] > t)
				t = done[s];
		if (r && (best == 0 || t < best)) {
			best = t;
			memcpy(keep, done, sizeof(double) * (size_t)size);
		}
	}
	if (rank == 0) {
		printf("railprog burst %ld %ld %.6f %.2f\n", bytes, iters, best,
		       (double)bytes * (double)iters * n * 8 / best / 1e6);
		for (s = 1; s < size; s++)
			printf("railprog sender %d %.6f %.2f\n", s, keep[s],
			       (double)(pinger[s] ? 8 : bytes) * (double)iters * 8 / keep[s] / 1e6);
	}
	free(buf);
	free(done);
	free(keep);
	free(req);
	free(left);
	free(pinger);
}

/* Bytes received so far by this network namespace's interfaces, lo
 * left out (the server's NICs, as paper B measured) */
static double nic_rx_bytes(void)
{
	FILE *f = fopen("/proc/net/dev", "r");
	char line[512];
	double sum = 0;

	if (!f)
		die("flow: cannot read /proc/net/dev");
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *name = line;
		unsigned long long rx;

		if (!colon)
			continue;	/* the two heading lines */
		*colon = '\0';
		while (*name == ' ')
			name++;
		if (strcmp(name, "lo") && sscanf(colon + 1, "%llu", &rx) == 1)
			sum += (double)rx;
	}
	fclose(f);
	return sum;
}

static void flow(long bytes, double seconds)
{
	char *buf = malloc((size_t)bytes * (rank == 0 ? (size_t)size : 1));
	MPI_Request *req = calloc((size_t)size, sizeof(MPI_Request));
	long *msgs = calloc((size_t)size, sizeof(long));
	int *pinger = pingers(), go = 1, s, active = size - 1, stage = 0;
	double t0, marks[2] = { 0.25 * seconds, 0.9 * seconds }, at[2] = { 0, 0 }, rx[2] = { 0, 0 };

	if (!buf || !req || !msgs)
		die("no memory");
	if (rank)
		fill((uint32_t *)buf, (size_t)bytes, rank, 0);
	start_senders(go);
	t0 = MPI_Wtime();
	if (rank) {
		while (MPI_Wtime() - t0 < seconds) {
			MPI_Send(buf, pinger[rank] ? 8 : (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
			if (pinger[rank])
				usleep(1000000);
		}
		MPI_Send(buf, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);   /* the end */
		goto out;
	}
	for (s = 1; s < size; s++)
		MPI_Irecv(buf + (size_t)s * (size_t)bytes, (int)bytes, MPI_BYTE, s, MPI_ANY_TAG,
			  MPI_COMM_WORLD, &req[s]);
	/* the interfaces are read at the first completion past each mark:
	 * messages end a few times a second, and the times taken are exact */
	while (active) {
		MPI_Status st;
		double now;
		int idx;

		MPI_Waitany(size - 1, req + 1, &idx, &st);
		s = idx + 1;
		now = MPI_Wtime() - t0;
		if (stage < 2 && now >= marks[stage]) {
			rx[stage] = nic_rx_bytes();
			at[stage++] = now;
		}
		if (st.MPI_TAG == 2) {
			active--;
			continue;
		}
		if (!pinger[s] && !check((uint32_t *)(buf + (size_t)s * (size_t)bytes),
					 (size_t)bytes, s, 0))
			die("flow: a message is not what was sent");
		if (stage == 1)
			msgs[s]++;
		MPI_Irecv(buf + (size_t)s * (size_t)bytes, (int)bytes, MPI_BYTE, s, MPI_ANY_TAG,
			  MPI_COMM_WORLD, &req[s]);
	}
	if (stage < 2)
		die("flow: no message ended after nine tenths of the time");
	printf("railprog flow %ld %.0f %.3f %.2f\n", bytes, seconds, at[1] - at[0],
	       (rx[1] - rx[0]) * 8 / (at[1] - at[0]) / 1e6);
	for (s = 1; s < size; s++)
		printf("railprog sender %d %ld %.2f\n", s, msgs[s],
		       (double)msgs[s] * (double)(pinger[s] ? 8 : bytes) * 8 / (at[1] - at[0]) / 1e6);
out:
	free(buf);
	free(req);
	free(msgs);
	free(pinger);
}

static void lat(long iters)
{
	double *t = malloc(sizeof(double) * (size_t)iters), v = 0;
	char *big = malloc(4 << 20);
	long i;

	if (!t || !big)
		die("no memory");
	/* one 4 MiB message each way first: striped, so that the pair's rail
	 * connections are open while the small ones are timed */
	memset(big, 1, 4 << 20);
	if (rank == 0) {
		MPI_Send(big, 4 << 20, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
		MPI_Recv(big, 4 << 20, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else if (rank == 1) {
		MPI_Recv(big, 4 << 20, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(big, 4 << 20, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
	}
	free(big);
	for (i = -10; i < iters; i++) {
		double t0 = MPI_Wtime();

		if (rank == 0) {
			MPI_Send(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(&v, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			MPI_Recv(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(&v, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
		}
		if (i >= 0)
			t[i] = (MPI_Wtime() - t0) / 2;
	}
	qsort(t, (size_t)iters, sizeof(double), cmp);
	if (rank == 0)
		printf("railprog lat %ld %.2f %.2f\n", iters, t[0] * 1e6, t[iters / 2] * 1e6);
	free(t);
}

static void quiet(double seconds)
{
	uint32_t *out = malloc(MAXMSG), *in = malloc(MAXMSG);
	double t, t0;
	int round, n, flag;
	MPI_Status st;

	if (!out || !in)
		die("no memory");
	for (round = 0; round < 2 && rank < 2; round++) {
		fill(out, MAXMSG, rank, round);
		t = MPI_Wtime();
		MPI_Sendrecv(out, MAXMSG, MPI_BYTE, 1 - rank, round, in, MAXMSG, MPI_BYTE, 1 - rank,
			     round, MPI_COMM_WORLD, &st);
		t = MPI_Wtime() - t;
		MPI_Get_count(&st, MPI_BYTE, &n);
		if (n != MAXMSG || !check(in, MAXMSG, 1 - rank, round))
			die("quiet: a 4 MiB message, not what was sent");
		if (round)
			break;
		if (rank == 0) {
			printf("railprog quiet open\n");
			fflush(stdout);
		}
		t0 = MPI_Wtime();
		if (rank == 0) {
			MPI_Recv(in, 8, MPI_BYTE, 1, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			while (MPI_Wtime() - t0 < seconds) {
				MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
				if (flag)
					die("quiet: a message nobody sent");
				usleep(10000);
			}
			MPI_Send(out, 8, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD);
		}
	}
	if (rank == 0)
		printf("railprog quiet ok %.0f %.3f\n", seconds, t);
	free(out);
	free(in);
}

/* The peak resident memory of this process, in KiB (0 if unknown). */
static long peak_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmHWM:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

static long arg(const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end || v < lo || v > hi)
		die("bad argument");
	return v;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (getenv("RAILPROG_PVARS"))
		pvars_start(getenv("RAILPROG_PVARS"));
	if (size < 2 || argc < 3)
		die("usage: railprog stream SECONDS | pingpong SECONDS | bw BYTES ITERS | "
		    "burst BYTES ITERS | flow BYTES SECONDS | lat ITERS | quiet SECONDS (2 ranks or more)");
	if (!strcmp(argv[1], "stream"))
		stream((double)arg(argv[2], 1, 3600));
	else if (!strcmp(argv[1], "bw") && argc > 3)
		bw(arg(argv[2], 4, 1L << 30), arg(argv[3], 1, 100000));
	else if (!strcmp(argv[1], "burst") && argc > 3)
		burst(arg(argv[2], 4, 1L << 28), arg(argv[3], 1, 100000));
	else if (!strcmp(argv[1], "flow") && argc > 3)
		flow(arg(argv[2], 4, 1L << 28), (double)arg(argv[3], 2, 3600));
	else if (!strcmp(argv[1], "pingpong"))
		pingpong((double)arg(argv[2], 1, 3600));
	else if (!strcmp(argv[1], "lat"))
		lat(arg(argv[2], 1, 1000000));
	else if (!strcmp(argv[1], "quiet"))
		quiet((double)arg(argv[2], 1, 3600));
	else
		die("unknown mode");
	if (getenv("RAILPROG_PVARS"))
		pvars_print();
	if (getenv("RAILPROG_RSS"))
		printf("railprog rss %d %ld\n", rank, peak_rss_kb());
	MPI_Finalize();
	return 0;
}
