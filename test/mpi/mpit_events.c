/* SPDX-License-Identifier: MIT */
/*
 * MPI_T events and sources (MPI-4.0 15.3.8-9), and the MPI-4.0 status
 * conversions (MPI_Status_c2f08 and friends).
 *
 * Every rank checks the descriptions (an info object from them before
 * MPI_Init too): the event type
 * "mtmi_unexpected_message" (index, name, its six elements' types and
 * displacements, a short array, the "mtmi_protocol" enumeration, bad
 * indices and names), the category that lists it, the one source
 * ("mtmi": ordered, nanosecond ticks, a clock that does not go back).
 *
 * Then rank 1 watches rank 0's messages arrive before their receives are
 * posted, on a duplicate of MPI_COMM_WORLD: an eager send of 40 bytes,
 * a synchronous send of 8 bytes and a 1 MiB send (rendezvous on every
 * byte device, whose eager limits are far below), with three
 * registrations:
 *  - A: a callback for MPI_T_CB_REQUIRE_MPI_RESTRICTED, called at once
 *    inside progress: it must see the three events in order, each with
 *    the right sender, tag, size and protocol, one context, source 0,
 *    cb_safety MPI_RESTRICTED, timestamps that do not go back and are not
 *    later than the source's clock afterwards; MPI_T_event_copy must
 *    agree with MPI_T_event_read element by element;
 *  - N: a callback for MPI_T_CB_REQUIRE_NONE only, which gets the same
 *    three instances (same timestamps) later, in an idle round of a
 *    waiting call, with cb_safety NONE, and calls MPI from inside;
 *  - D: no callback and a dropped handler, which must be told of exactly
 *    three dropped events.
 * Then the messages are received and checked; the registrations are
 * freed (the free callback runs with its user data) and a fourth
 * unexpected message must reach nobody; a callback that frees its own
 * registration gets its free callback once it returns. Info hints given
 * to a registration and a callback come back from the get_info calls.
 *
 * With MTEST_EVENTS_MT set the program runs at MPI_THREAD_MULTIPLE,
 * where an event inside progress requires MPI_T_CB_REQUIRE_THREAD_SAFE:
 * A's restricted callback then gets the events later, in an idle round
 * with cb_safety NONE, like N's, and the self-freeing callback (thread
 * safe) runs at once with cb_safety THREAD_SAFE.
 *
 * A matching device (MICHI_DEVICE=ofi or ucx) keeps its unexpected queue
 * to itself: there the descriptions are checked, and the events must
 * not come.
 */
#include "mtest.h"

#include <stdint.h>

#define TAG0 1005           /* tags 1005-1008 travel on the duplicate only */
#define BIG (1 << 20)
#define LOGMAX 64

struct rec {
	int peer, source, tag;
	uint32_t ctx;
	uint64_t bytes;
	int proto;
	MPI_Count ts;
	int src_index;
	int safety;
	int copy_ok;
	int bad_index_ok;
	int mpi_rank;           /* MPI_Comm_rank from inside the callback (N) */
};

struct log {
	int n;
	struct rec r[LOGMAX];
};

static struct log log_a, log_n, log_self;
static MPI_Count dropped_total;
static int dropped_calls, dropped_source = -1, dropped_safety = -1;
static int freed_a, freed_self, freed_self_safety = -1;
static MPI_T_event_registration reg_self;

struct ev_data {            /* the layout the event type describes */
	int32_t peer, source, tag;
	uint32_t ctx;
	uint64_t bytes;
	int32_t proto;
};

static void record(struct log *lg, MPI_T_event_instance ev, MPI_T_cb_safety safety)
{
	struct rec *r;
	unsigned char copy[64];
	struct ev_data d;

	if (lg->n == LOGMAX)
		return;
	r = &lg->r[lg->n++];
	memset(r, 0, sizeof(*r));
	MPI_T_event_read(ev, 0, &r->peer);
	MPI_T_event_read(ev, 1, &r->source);
	MPI_T_event_read(ev, 2, &r->tag);
	MPI_T_event_read(ev, 3, &r->ctx);
	MPI_T_event_read(ev, 4, &r->bytes);
	MPI_T_event_read(ev, 5, &r->proto);
	MPI_T_event_get_timestamp(ev, &r->ts);
	MPI_T_event_get_source(ev, &r->src_index);
	r->safety = safety;
	memset(copy, 0, sizeof(copy));
	MPI_T_event_copy(ev, copy);
	memcpy(&d, copy, sizeof(d));
	r->copy_ok = d.peer == r->peer && d.source == r->source && d.tag == r->tag &&
		     d.ctx == r->ctx && d.bytes == r->bytes && d.proto == r->proto;
	r->bad_index_ok = MPI_T_event_read(ev, 6, copy) == MPI_T_ERR_INVALID_INDEX;
	r->mpi_rank = -1;
}

static void cb_restricted(MPI_T_event_instance ev, MPI_T_event_registration reg,
			  MPI_T_cb_safety safety, void *user)
{
	(void)reg;
	record(user, ev, safety);
}

static void cb_none(MPI_T_event_instance ev, MPI_T_event_registration reg,
		    MPI_T_cb_safety safety, void *user)
{
	struct log *lg = user;

	(void)reg;
	record(lg, ev, safety);
	/* REQUIRE_NONE: any MPI call is allowed here */
	if (lg->n)
		MPI_Comm_rank(MPI_COMM_WORLD, &lg->r[lg->n - 1].mpi_rank);
}

static void on_dropped(MPI_Count count, MPI_T_event_registration reg, int source_index,
		       MPI_T_cb_safety safety, void *user)
{
	(void)reg;
	(void)user;
	dropped_total += count;
	dropped_calls++;
	dropped_source = source_index;
	dropped_safety = safety;
}

static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *user)
{
	(void)reg;
	(void)safety;
	*(int *)user += 1;
}

static void on_free_self(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *user)
{
	(void)reg;
	freed_self += user == &freed_self;
	freed_self_safety = safety;
}

/* frees its own registration from inside its callback, at our message */
static void cb_self_free(MPI_T_event_instance ev, MPI_T_event_registration reg,
			 MPI_T_cb_safety safety, void *user)
{
	int tag = -1;

	MPI_T_event_read(ev, 2, &tag);
	if (tag != TAG0 + 3)
		return;         /* world traffic of the test's barrier */
	record(user, ev, safety);
	MPI_T_event_handle_free(reg, &freed_self, on_free_self);
}

static int event_index(void)
{
	int idx = -1, rc = MPI_T_event_get_index("mtmi_unexpected_message", &idx);

	mtest_check(rc == MPI_SUCCESS && idx >= 0, "MPI_T_event_get_index: rc %d index %d", rc,
		    idx);
	return idx;
}

static void check_descriptions(int idx)
{
	MPI_Datatype types[8], want[6] = { MPI_INT, MPI_INT, MPI_INT, MPI_UINT32_T,
					   MPI_UINT64_T, MPI_INT };
	MPI_Aint displs[8], wantd[6] = { 0, 4, 8, 12, 16, 24 };
	char name[64], desc[1024], ename[64];
	int name_len = sizeof(name), desc_len = sizeof(desc), verb, nel = 8, bind, n, i, rc;
	int ncat, cat = -1, nev, found, num, val, elen;
	MPI_T_enum en;
	MPI_Info info;
	MPI_T_source_order order;
	MPI_Count tps, maxt, t1, t2;

	rc = MPI_T_event_get_num(&n);
	mtest_check(rc == MPI_SUCCESS && n >= 1 && idx < n, "MPI_T_event_get_num: %d", n);
	rc = MPI_T_event_get_info(idx, name, &name_len, &verb, types, displs, &nel, &en, &info,
				  desc, &desc_len, &bind);
	mtest_check(rc == MPI_SUCCESS, "MPI_T_event_get_info: rc %d", rc);
	mtest_check(!strcmp(name, "mtmi_unexpected_message") &&
		    name_len == (int)strlen(name) + 1, "event name '%s' len %d", name, name_len);
	mtest_check(desc_len > 1 && strstr(desc, "unexpected"), "event description '%s'", desc);
	mtest_check(nel == 6 && bind == MPI_T_BIND_NO_OBJECT, "event: %d elements, bind %d",
		    nel, bind);
	for (i = 0; i < 6 && i < nel; i++)
		mtest_check(types[i] == want[i] && displs[i] == wantd[i],
			    "event element %d: type %#x displacement %ld", i,
			    (unsigned)types[i], (long)displs[i]);
	mtest_check(info != MPI_INFO_NULL, "MPI_T_event_get_info: no info object");
	if (info != MPI_INFO_NULL)
		MPI_Info_free(&info);
	elen = sizeof(ename);
	rc = MPI_T_enum_get_info(en, &num, ename, &elen);
	mtest_check(rc == MPI_SUCCESS && num == 3 && !strcmp(ename, "mtmi_protocol"),
		    "protocol enumeration: rc %d, %d items, '%s'", rc, num, ename);
	elen = sizeof(ename);
	rc = MPI_T_enum_get_item(en, 2, &val, ename, &elen);
	mtest_check(rc == MPI_SUCCESS && val == 2 && !strcmp(ename, "rendezvous"),
		    "protocol item 2: %d '%s'", val, ename);

	/* arrays shorter than the element count: two written, six returned */
	nel = 2;
	types[2] = MPI_DATATYPE_NULL;
	rc = MPI_T_event_get_info(idx, NULL, NULL, NULL, types, displs, &nel, NULL, NULL, NULL,
				  NULL, NULL);
	mtest_check(rc == MPI_SUCCESS && nel == 6 && types[1] == MPI_INT &&
		    types[2] == MPI_DATATYPE_NULL, "event_get_info with 2 slots: rc %d n %d",
		    rc, nel);
	rc = MPI_T_event_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
				  NULL);
	mtest_check(rc == MPI_T_ERR_INVALID_INDEX, "event_get_info(%d): rc %d", n, rc);
	rc = MPI_T_event_get_index("no_such_event", &i);
	mtest_check(rc == MPI_T_ERR_INVALID_NAME, "event_get_index(no_such_event): rc %d", rc);

	/* the category "mtmi" lists it */
	MPI_T_category_get_num(&ncat);
	rc = MPI_T_category_get_index("mtmi", &cat);
	mtest_check(rc == MPI_SUCCESS, "category mtmi: rc %d", rc);
	if (rc == MPI_SUCCESS) {
		int evs[16];

		MPI_T_category_get_num_events(cat, &nev);
		mtest_check(nev >= 1 && nev <= 16, "category mtmi: %d events", nev);
		MPI_T_category_get_events(cat, 16, evs);
		for (i = 0, found = 0; i < nev && i < 16; i++)
			found |= evs[i] == idx;
		mtest_check(found, "category mtmi does not list event %d", idx);
	}
	rc = MPI_T_category_get_num_events(ncat, &nev);
	mtest_check(rc == MPI_T_ERR_INVALID_INDEX, "category_get_num_events(%d): rc %d", ncat,
		    rc);

	/* the source */
	rc = MPI_T_source_get_num(&n);
	mtest_check(rc == MPI_SUCCESS && n == 1, "MPI_T_source_get_num: %d", n);
	name_len = sizeof(name);
	desc_len = sizeof(desc);
	rc = MPI_T_source_get_info(0, name, &name_len, desc, &desc_len, &order, &tps, &maxt,
				   &info);
	mtest_check(rc == MPI_SUCCESS && !strcmp(name, "mtmi") && order == MPI_T_SOURCE_ORDERED &&
		    tps == 1000000000 && maxt > 0, "source 0: rc %d '%s' order %d ticks %lld max %lld",
		    rc, name, (int)order, (long long)tps, (long long)maxt);
	if (rc == MPI_SUCCESS && info != MPI_INFO_NULL)
		MPI_Info_free(&info);
	MPI_T_source_get_timestamp(0, &t1);
	mtest_sleep(0.002);
	MPI_T_source_get_timestamp(0, &t2);
	mtest_check(t2 - t1 >= 2000000 && t2 - t1 < 10 * tps,
		    "source clock: %lld ticks over a 2 ms sleep", (long long)(t2 - t1));
	rc = MPI_T_source_get_timestamp(1, &t1);
	mtest_check(rc == MPI_T_ERR_INVALID_INDEX, "source_get_timestamp(1): rc %d", rc);
}

static void check_info_roundtrip(MPI_T_event_registration reg)
{
	MPI_Info in, used;
	char v[32];
	int flag = 0;

	MPI_Info_create(&in);
	MPI_Info_set(in, "michi_test_hint", "yes");
	MPI_T_event_handle_set_info(reg, in);
	MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, in);
	MPI_Info_free(&in);
	MPI_T_event_handle_get_info(reg, &used);
	MPI_Info_get(used, "michi_test_hint", sizeof(v) - 1, v, &flag);
	mtest_check(flag && !strcmp(v, "yes"), "event_handle_get_info: hint %s",
		    flag ? v : "missing");
	MPI_Info_free(&used);
	flag = 0;
	MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, &used);
	MPI_Info_get(used, "michi_test_hint", sizeof(v) - 1, v, &flag);
	mtest_check(flag && !strcmp(v, "yes"), "event_callback_get_info: hint %s",
		    flag ? v : "missing");
	MPI_Info_free(&used);
	MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_NONE, &used);
	MPI_Info_get_nkeys(used, &flag);
	mtest_check(flag == 0, "callback_get_info(NONE): %d keys, none set", flag);
	MPI_Info_free(&used);
}

/* The records of our messages (tags TAG0..TAG0+3) in lg, in order. */
static int ours(const struct log *lg, const struct rec **out, int max)
{
	int i, n = 0;

	for (i = 0; i < lg->n && n < max; i++)
		if (lg->r[i].tag >= TAG0 && lg->r[i].tag <= TAG0 + 3)
			out[n++] = &lg->r[i];
	return n;
}

static void check_log(const char *what, const struct log *lg, int want_safety, MPI_Count now)
{
	static const int tags[3] = { TAG0, TAG0 + 1, TAG0 + 2 };
	static const uint64_t bytes[3] = { 40, 8, BIG };
	static const int protos[3] = { 0, 1, 2 };
	const struct rec *r[8];
	int n = ours(lg, r, 8), i;

	mtest_check(n == 3, "%s: %d events of our messages, want 3", what, n);
	for (i = 0; i < n && i < 3; i++) {
		mtest_check(r[i]->peer == 0 && r[i]->source == 0 && r[i]->tag == tags[i] &&
			    r[i]->bytes == bytes[i] && r[i]->proto == protos[i],
			    "%s event %d: peer %d source %d tag %d bytes %llu protocol %d, want "
			    "0 0 %d %llu %d", what, i, r[i]->peer, r[i]->source, r[i]->tag,
			    (unsigned long long)r[i]->bytes, r[i]->proto, tags[i],
			    (unsigned long long)bytes[i], protos[i]);
		mtest_check(r[i]->ctx == r[0]->ctx, "%s event %d: context %u, first %u", what, i,
			    r[i]->ctx, r[0]->ctx);
		mtest_check(r[i]->safety == want_safety && r[i]->src_index == 0,
			    "%s event %d: cb_safety %d source %d", what, i, r[i]->safety,
			    r[i]->src_index);
		mtest_check(r[i]->copy_ok && r[i]->bad_index_ok,
			    "%s event %d: event_copy disagrees with event_read, or element 6 read",
			    what, i);
		mtest_check(r[i]->ts > 0 && r[i]->ts <= now && (i == 0 || r[i]->ts >= r[i - 1]->ts),
			    "%s event %d: timestamp %lld (previous %lld, now %lld)", what, i,
			    (long long)r[i]->ts, (long long)(i ? r[i - 1]->ts : 0),
			    (long long)now);
	}
}

static void check_status_conversions(void)
{
#ifdef MICHI   /* MPICH 4.0.2's mpi.h declares these, its library lacks them */
	MPI_Status c, c2;
	MPI_F08_status f08, f08b;
	MPI_Fint f[MPI_F_STATUS_SIZE];

	memset(&c, 0, sizeof(c));
	c.MPI_SOURCE = 3;
	c.MPI_TAG = 44;
	c.MPI_ERROR = MPI_ERR_TRUNCATE;
	MPI_Status_set_elements_x(&c, MPI_BYTE, ((MPI_Count)5 << 32) + 9);
	MPI_Status_set_cancelled(&c, 1);
	mtest_check(MPI_Status_c2f08(&c, &f08) == MPI_SUCCESS && f08.MPI_SOURCE == 3 &&
		    f08.MPI_TAG == 44 && f08.MPI_ERROR == MPI_ERR_TRUNCATE,
		    "MPI_Status_c2f08: source %d tag %d error %d", f08.MPI_SOURCE, f08.MPI_TAG,
		    f08.MPI_ERROR);
	mtest_check(MPI_Status_f082f(&f08, f) == MPI_SUCCESS && f[MPI_F_SOURCE] == 3 &&
		    f[MPI_F_TAG] == 44 && f[MPI_F_ERROR] == MPI_ERR_TRUNCATE,
		    "MPI_Status_f082f: source %d tag %d error %d", f[MPI_F_SOURCE], f[MPI_F_TAG],
		    f[MPI_F_ERROR]);
	memset(&f08b, 0, sizeof(f08b));
	mtest_check(MPI_Status_f2f08(f, &f08b) == MPI_SUCCESS &&
		    !memcmp(&f08b, &f08, sizeof(f08)), "MPI_Status_f2f08 changed the status");
	memset(&c2, 0, sizeof(c2));
	mtest_check(MPI_Status_f082c(&f08b, &c2) == MPI_SUCCESS, "MPI_Status_f082c failed");
	{
		MPI_Count n = -1;
		int flag = 0;

		MPI_Get_elements_x(&c2, MPI_BYTE, &n);
		MPI_Test_cancelled(&c2, &flag);
		mtest_check(c2.MPI_SOURCE == 3 && c2.MPI_TAG == 44 && n == ((MPI_Count)5 << 32) + 9 &&
			    flag, "status back in C: source %d tag %d count %lld cancelled %d",
			    c2.MPI_SOURCE, c2.MPI_TAG, (long long)n, flag);
	}
	if (mtest_is_michi()) {
		/* an IGNORE sentinel is not a status: an error, not a crash
		 * (errors of no object go to MPI_COMM_SELF's handler) */
		MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		mtest_check(MPI_Status_c2f08(MPI_STATUS_IGNORE, &f08) != MPI_SUCCESS,
			    "MPI_Status_c2f08(MPI_STATUS_IGNORE) succeeded");
		mtest_check(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &c) != MPI_SUCCESS,
			    "MPI_Status_f082c(MPI_F08_STATUS_IGNORE) succeeded");
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
		MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	}
#endif
}

int main(int argc, char **argv)
{
	MPI_T_event_registration ra, rn, rd;
	MPI_Request sreq[2];
	MPI_Comm c;
	MPI_Count now;
	MPI_Info pre_info;
	int mt = getenv("MTEST_EVENTS_MT") != NULL, now_safety, a_safety;
	char *big;
	int provided, idx, i, rc, fire, dummy = 0;

	rc = MPI_T_event_get_num(&i);
	mtest_check(rc == MPI_T_ERR_NOT_INITIALIZED, "event_get_num before MPI_T_init: rc %d",
		    rc);
	/* MPI_T before MPI_Init: descriptions, with their info objects */
	MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
	idx = event_index();
	pre_info = MPI_INFO_NULL;
	rc = MPI_T_event_get_info(idx, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &pre_info, NULL,
				  NULL, NULL);
	if (mt) {
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
		mtest_init_done();
		mtest_check(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE: provided %d",
			    provided);
	} else {
		mtest_init(&argc, &argv);
	}
	/* the requirement inside progress, and when A's callback runs */
	now_safety = mt ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_MPI_RESTRICTED;
	a_safety = mt ? MPI_T_CB_REQUIRE_NONE : MPI_T_CB_REQUIRE_MPI_RESTRICTED;
	mtest_check(rc == MPI_SUCCESS && pre_info != MPI_INFO_NULL,
		    "event_get_info before MPI_Init: rc %d, info %s", rc,
		    pre_info == MPI_INFO_NULL ? "null" : "given");
	if (pre_info != MPI_INFO_NULL)
		MPI_Info_free(&pre_info);
	check_status_conversions();
	if (idx < 0)
		return mtest_finalize();
	check_descriptions(idx);
	MPI_Comm_dup(MPI_COMM_WORLD, &c);
	fire = !mtest_matching_device();
	big = mtest_malloc(BIG);
	if (mtest_size < 2)
		goto done;

	if (mtest_rank == 1) {
		MPI_Info in;

		MPI_Info_create(&in);
		MPI_Info_set(in, "michi_test_alloc_hint", "1");
		rc = MPI_T_event_handle_alloc(idx, NULL, in, &ra);
		MPI_Info_free(&in);
		mtest_check(rc == MPI_SUCCESS, "event_handle_alloc: rc %d", rc);
		MPI_T_event_register_callback(ra, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL,
					      &log_a, cb_restricted);
		check_info_roundtrip(ra);
		MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &rn);
		MPI_T_event_register_callback(rn, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &log_n,
					      cb_none);
		MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &rd);
		MPI_T_event_set_dropped_handler(rd, on_dropped);
		rc = MPI_T_event_register_callback(ra, (MPI_T_cb_safety)7, MPI_INFO_NULL, NULL,
						   cb_restricted);
		mtest_check(rc != MPI_SUCCESS, "register_callback at safety 7 succeeded");
	}
	mtest_barrier(MPI_COMM_WORLD);
	if (mtest_rank == 0) {
		char small[40];

		memset(small, 'e', sizeof(small));
		memset(big, 'r', BIG);
		MPI_Send(small, 40, MPI_BYTE, 1, TAG0, c);
		MPI_Issend(small, 8, MPI_BYTE, 1, TAG0 + 1, c, &sreq[0]);
		MPI_Isend(big, BIG, MPI_BYTE, 1, TAG0 + 2, c, &sreq[1]);
		/* after our three (one path, in order): they are all there */
		MPI_Send(NULL, 0, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
		/* a wait long enough for idle rounds over there */
		mtest_sleep(0.2);
		MPI_Send(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
		MPI_Wait(&sreq[0], MPI_STATUS_IGNORE);
		MPI_Wait(&sreq[1], MPI_STATUS_IGNORE);
	} else if (mtest_rank == 1) {
		char small[40];

		MPI_Recv(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_T_source_get_timestamp(0, &now);
		if (fire && !mt)
			check_log("restricted callback", &log_a, a_safety, now);
		else if (!fire)
			mtest_check(log_a.n == 0, "matching device: %d events came", log_a.n);
		MPI_Recv(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_T_source_get_timestamp(0, &now);
		if (fire) {
			const struct rec *ra_[8], *rn_[8];
			int na = ours(&log_a, ra_, 8), nn = ours(&log_n, rn_, 8);

			if (mt)
				check_log("restricted callback (threaded)", &log_a, a_safety, now);
			check_log("REQUIRE_NONE callback", &log_n, MPI_T_CB_REQUIRE_NONE, now);
			for (i = 0; i < na && i < nn; i++)
				mtest_check(rn_[i]->ts == ra_[i]->ts && rn_[i]->mpi_rank == 1,
					    "NONE event %d: timestamp %lld, restricted one %lld; "
					    "MPI_Comm_rank inside gave %d", i, (long long)rn_[i]->ts,
					    (long long)ra_[i]->ts, rn_[i]->mpi_rank);
			/* the dropped handler may have been told of world traffic too */
			mtest_check(dropped_total >= 3 && dropped_total == log_a.n &&
				    dropped_source == 0 && dropped_safety == MPI_T_CB_REQUIRE_NONE,
				    "dropped: %lld in %d calls (want %d), source %d safety %d",
				    (long long)dropped_total, dropped_calls, log_a.n, dropped_source,
				    dropped_safety);
		} else {
			mtest_check(log_n.n == 0 && dropped_total == 0,
				    "matching device: %d events, %lld dropped", log_n.n,
				    (long long)dropped_total);
		}
		MPI_Recv(small, 40, MPI_BYTE, 0, TAG0, c, MPI_STATUS_IGNORE);
		mtest_check(small[0] == 'e' && small[39] == 'e', "eager message wrong");
		MPI_Recv(small, 8, MPI_BYTE, 0, TAG0 + 1, c, MPI_STATUS_IGNORE);
		MPI_Recv(big, BIG, MPI_BYTE, 0, TAG0 + 2, c, MPI_STATUS_IGNORE);
		mtest_check(big[0] == 'r' && big[BIG - 1] == 'r', "rendezvous message wrong");

		rc = MPI_T_event_handle_free(ra, &freed_a, on_free);
		mtest_check(rc == MPI_SUCCESS && freed_a == 1, "handle_free: rc %d, free "
			    "callback ran %d times", rc, freed_a);
		rc = MPI_T_event_handle_free(ra, NULL, NULL);
		mtest_check(rc == MPI_T_ERR_INVALID_HANDLE, "second handle_free: rc %d", rc);
		MPI_T_event_handle_free(rn, NULL, NULL);
		MPI_T_event_handle_free(rd, NULL, NULL);
		MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &reg_self);
		MPI_T_event_register_callback(reg_self, MPI_T_CB_REQUIRE_THREAD_SAFE,
					      MPI_INFO_NULL, &log_self, cb_self_free);
	}
	mtest_barrier(MPI_COMM_WORLD);
	/* two more unexpected messages: the first reaches reg_self only,
	 * which frees itself; the second reaches nobody */
	if (mtest_rank == 0) {
		MPI_Send(&dummy, 1, MPI_INT, 1, TAG0 + 3, c);
		MPI_Send(&dummy, 1, MPI_INT, 1, TAG0 + 3, c);
		MPI_Send(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
	} else if (mtest_rank == 1) {
		int na = log_a.n, nn = log_n.n;
		const struct rec *r[8];

		MPI_Recv(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mtest_check(log_a.n == na && log_n.n == nn, "events after handle_free: %d and %d",
			    log_a.n - na, log_n.n - nn);
		if (fire) {
			mtest_check(ours(&log_self, r, 8) == 1 && r[0]->tag == TAG0 + 3 &&
				    r[0]->safety == now_safety,
				    "self-freeing callback: %d events", log_self.n);
			mtest_check(freed_self == 1 &&
				    freed_self_safety == now_safety,
				    "self-freeing callback: free callback ran %d times at safety %d",
				    freed_self, freed_self_safety);
		} else {
			MPI_T_event_handle_free(reg_self, NULL, NULL);
		}
		MPI_Recv(&dummy, 1, MPI_INT, 0, TAG0 + 3, c, MPI_STATUS_IGNORE);
		MPI_Recv(&dummy, 1, MPI_INT, 0, TAG0 + 3, c, MPI_STATUS_IGNORE);
	}
done:
	free(big);
	MPI_Comm_free(&c);
	MPI_T_finalize();
	return mtest_finalize();
}
