/* SPDX-License-Identifier: MIT */
/*
 * MPI-4.0's error-handling rules for errors that belong to no object and
 * for sessions (section 9.3), in a program that also called MPI_Init:
 * - an error on an invalid session (MPI_SESSION_NULL, a finalized one)
 *   belongs to no object, so it goes to MPI_COMM_SELF's handler, which the
 *   program sets: a handler of its own sees MPI_COMM_SELF and the code,
 *   MPI_ERRORS_RETURN makes the call return MPI_ERR_SESSION (mpi4py's
 *   test_session does this; the job used to end with a fatal error);
 * - an object-less call's error (MPI_Error_string of a bad code) too;
 * - MPI_Session_init's errors go to the handler it is given;
 * - an error on a valid session goes to the session's own handler, the one
 *   MPI_Session_init was given or MPI_Session_set_errhandler's, and
 *   MPI_Session_call_errhandler calls it with the session's handle.
 */
#include <string.h>

#include "mtest.h"

static int self_calls, self_code;
static MPI_Comm self_comm;
static int sess_calls, sess_code;
static MPI_Session sess_seen;

static void self_handler(MPI_Comm *comm, int *code, ...)
{
	self_calls++;
	self_comm = *comm;
	self_code = *code;
}

static void sess_handler(MPI_Session *s, int *code, ...)
{
	sess_calls++;
	sess_seen = *s;
	sess_code = *code;
}

int main(int argc, char **argv)
{
	MPI_Errhandler self_eh, sess_eh, got;
	MPI_Session s, dead;
	MPI_Group g = MPI_GROUP_NULL;
	MPI_Info bad, tmp;
	char str[MPI_MAX_ERROR_STRING];
	int rc, len, n;

	mtest_init(&argc, &argv);

	/* 1. invalid session: MPI_COMM_SELF's handler, the program's own */
	MPI_Comm_create_errhandler(self_handler, &self_eh);
	MPI_Comm_set_errhandler(MPI_COMM_SELF, self_eh);
	rc = MPI_Group_from_session_pset(MPI_SESSION_NULL, "mpi://WORLD", &g);
	mtest_check(rc != MPI_SUCCESS, "Group_from_session_pset(MPI_SESSION_NULL) succeeded");
	mtest_check(mtest_errclass(rc) == MPI_ERR_SESSION,
		    "Group_from_session_pset(MPI_SESSION_NULL): class %d, want MPI_ERR_SESSION",
		    mtest_errclass(rc));
	mtest_check(self_calls == 1 && self_comm == MPI_COMM_SELF && self_code == rc,
		    "MPI_COMM_SELF's handler: %d calls, comm 0x%x, code %d (want 1, 0x%x, %d)",
		    self_calls, (unsigned)self_comm, self_code, (unsigned)MPI_COMM_SELF, rc);
	mtest_check(g == MPI_GROUP_NULL, "a group came back from MPI_SESSION_NULL");

	/* 2. MPI_ERRORS_RETURN on MPI_COMM_SELF: object-less errors return */
	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	rc = MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &n);
	mtest_check(mtest_errclass(rc) == MPI_ERR_SESSION,
		    "Session_get_num_psets(MPI_SESSION_NULL): class %d", mtest_errclass(rc));
	rc = MPI_Error_string(-5, str, &len);
	mtest_check(mtest_errclass(rc) == MPI_ERR_ARG,
		    "Error_string(-5) under MPI_ERRORS_RETURN: class %d", mtest_errclass(rc));
	mtest_check(self_calls == 1, "the program's handler was called after it was replaced");

	/* 3. MPI_Session_init's errors: the handler it is given */
	MPI_Comm_set_errhandler(MPI_COMM_SELF, self_eh);
	MPI_Info_create(&bad);
	tmp = bad;
	MPI_Info_free(&tmp);   /* a freed info is invalid */
	s = MPI_SESSION_NULL;
	rc = MPI_Session_init(bad, MPI_ERRORS_RETURN, &s);
	mtest_check(mtest_errclass(rc) == MPI_ERR_INFO && s == MPI_SESSION_NULL,
		    "Session_init(freed info): class %d", mtest_errclass(rc));
	mtest_check(self_calls == 1, "Session_init's error went to MPI_COMM_SELF's handler");

	/* 4. a valid session's errors: its own handler */
	MPI_Session_create_errhandler(sess_handler, &sess_eh);
	rc = MPI_Session_init(MPI_INFO_NULL, sess_eh, &s);
	mtest_check(rc == MPI_SUCCESS, "Session_init = %d", rc);
	rc = MPI_Group_from_session_pset(s, "mpi://no-such-set", &g);
	mtest_check(rc != MPI_SUCCESS && sess_calls == 1 && sess_seen == s && sess_code == rc,
		    "session handler from Session_init: %d calls, session 0x%x, code %d",
		    sess_calls, (unsigned)sess_seen, sess_code);
	MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
	rc = MPI_Group_from_session_pset(s, "mpi://no-such-set", &g);
	mtest_check(rc != MPI_SUCCESS && sess_calls == 1,
		    "after Session_set_errhandler(MPI_ERRORS_RETURN): rc %d, %d calls", rc,
		    sess_calls);
	MPI_Session_get_errhandler(s, &got);
	mtest_check(got == MPI_ERRORS_RETURN, "Session_get_errhandler gave 0x%x", (unsigned)got);
	MPI_Errhandler_free(&got);
	MPI_Session_set_errhandler(s, sess_eh);
	MPI_Errhandler_free(&sess_eh);   /* the session keeps it */
	rc = MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
	mtest_check(rc == MPI_SUCCESS && sess_calls == 2 && sess_seen == s &&
		    sess_code == MPI_ERR_OTHER,
		    "Session_call_errhandler: rc %d, %d calls, code %d", rc, sess_calls, sess_code);
	rc = MPI_Group_from_session_pset(s, "mpi://SELF", &g);
	mtest_check(rc == MPI_SUCCESS, "Group_from_session_pset(mpi://SELF) = %d", rc);
	if (rc == MPI_SUCCESS) {
		MPI_Group_size(g, &n);
		mtest_check(n == 1, "mpi://SELF has %d members", n);
		MPI_Group_free(&g);
	}
	mtest_check(self_calls == 1, "a session's error went to MPI_COMM_SELF's handler");

	/* 5. a finalized session is invalid: no object, MPI_COMM_SELF's */
	dead = s;
	MPI_Session_finalize(&s);
	rc = MPI_Group_from_session_pset(dead, "mpi://WORLD", &g);
	mtest_check(mtest_errclass(rc) == MPI_ERR_SESSION && self_calls == 2 &&
		    self_comm == MPI_COMM_SELF && sess_calls == 2,
		    "finalized session: class %d, %d calls on MPI_COMM_SELF, %d on the session",
		    mtest_errclass(rc), self_calls, sess_calls);

	MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
	MPI_Errhandler_free(&self_eh);
	return mtest_finalize();
}
