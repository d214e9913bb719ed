/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/session.c: MPI-4.0 sessions (chapter 11). A session is a user of
 * the runtime like MPI_Init (mpi/env/init.c counts them): the first session
 * or MPI_Init starts it, the last MPI_Session_finalize or MPI_Finalize
 * shuts it down. A session knows two process sets, mpi://WORLD and
 * mpi://SELF (names compared without regard to case, as MPICH does);
 * MPI_Group_from_session_pset turns one into a group and
 * MPI_Comm_create_from_group makes a communicator of a group's members
 * alone, keyed by the string tag so that concurrent creations on
 * overlapping groups stay apart.
 *
 * Sessions are kept in a table that grows; a handle is
 * MPI_SESSION_NULL + 1 + the index, so a freed or foreign handle is
 * recognised. Errors follow MPI-4.0's rules for sessions (section 9.3):
 * an error in a call on a valid session goes to that session's handler
 * (the one MPI_Session_init was given, or MPI_Session_set_errhandler's);
 * an error of MPI_Session_init to the handler it was given; and an error
 * on an invalid session (MPI_SESSION_NULL, a finalized one) belongs to no
 * object: it goes where mpi/env/errors.c sends those, MPI_COMM_SELF's handler
 * once MPI_Init ran, else the initial handler (MPI_ERRORS_ARE_FATAL).
 */
#include "mpiimpl.h"
#include "group.h"
#include "info.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct session {
	int used;
	int thread_level;
	MPI_Errhandler eh;
};

static struct session *sessions;
static int nsessions;

static const char *const psets[] = { "mpi://WORLD", "mpi://SELF" };
#define NPSETS 2

static const char *const level_names[] = {
	"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
	"MPI_THREAD_MULTIPLE",
};

static struct session *session_get(MPI_Session h)
{
	unsigned i = (unsigned)h - (unsigned)MPI_SESSION_NULL - 1;

	return i < (unsigned)nsessions && sessions[i].used ? &sessions[i] : NULL;
}

static int session_err(MPI_Session h, int errclass, const char *fname, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int session_err(MPI_Session h, int errclass, const char *fname, const char *fmt, ...)
{
	struct session *s = session_get(h);
	char msg[MPI_MAX_ERROR_STRING];
	va_list ap;
	int code;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	code = michi_mpi_err_code(errclass, fname, "%s", msg);
	if (!s)
		return michi_mpi_err_raise(NULL, code);
	return michi_mpi_err_raise_eh(s->eh, (int)h, code);
}

#define SESSION_ARG(h, s, fname) do { \
	if (!((s) = session_get(h))) \
		return session_err(h, MPI_ERR_SESSION, fname, \
				   "(session=0x%x): not a valid session", (unsigned)(h)); \
} while (0)

/* The thread level an info's "thread_level" asks for; single without one. */
static int info_level(MPI_Info info)
{
	struct michi_info *in = info == MPI_INFO_NULL ? NULL : michi_info_get(info);
	int i, l;

	for (i = 0; in && i < in->n; i++) {
		if (strcmp(in->kv[i].key, "thread_level"))
			continue;
		for (l = 0; l < 4; l++)
			if (!strcasecmp(in->kv[i].val, level_names[l]))
				return MPI_THREAD_SINGLE + l;
	}
	return MPI_THREAD_SINGLE;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
	static const char fname[] = "MPI_Session_init";
	struct session *s;
	int i, err, level;

	if (!session)
		return michi_mpi_err_raise_eh(errhandler, 0,
					      michi_mpi_err_code(MPI_ERR_ARG, fname,
								 "(session=NULL): NULL pointer"));
	*session = MPI_SESSION_NULL;
	if (info != MPI_INFO_NULL && !michi_info_get(info))
		return michi_mpi_err_raise_eh(errhandler, 0,
					      michi_mpi_err_code(MPI_ERR_INFO, fname,
								 "(info=0x%x): not a valid info",
								 (unsigned)info));
	level = info_level(info);
	for (i = 0; i < nsessions && sessions[i].used; i++)
		;
	if (i == nsessions) {
		int n = nsessions ? 2 * nsessions : 4;
		struct session *t = realloc(sessions, (size_t)n * sizeof(*t));

		if (!t)
			return michi_mpi_err_raise_eh(errhandler, 0,
						      michi_mpi_err_code(MPI_ERR_NO_MEM, fname,
									 "(): no memory"));
		memset(t + nsessions, 0, (size_t)(n - nsessions) * sizeof(*t));
		sessions = t;
		nsessions = n;
	}
	if ((err = michi_runtime_up(fname, level)))
		return michi_mpi_err_raise_eh(errhandler, 0, err);
	s = &sessions[i];
	s->used = 1;
	s->thread_level = michi_state.thread_level;   /* the runtime's: at least level */
	s->eh = errhandler == MPI_ERRHANDLER_NULL ? MPI_ERRORS_ARE_FATAL : errhandler;
	michi_errhandler_ref(s->eh, 1);
	*session = (MPI_Session)((unsigned)MPI_SESSION_NULL + 1u + (unsigned)i);
	return MPI_SUCCESS;
}

int PMPI_Session_finalize(MPI_Session *session)
{
	static const char fname[] = "MPI_Session_finalize";
	struct session *s;

	if (!session)
		return session_err(MPI_SESSION_NULL, MPI_ERR_ARG, fname,
				   "(session=NULL): NULL pointer");
	SESSION_ARG(*session, s, fname);
	michi_errhandler_ref(s->eh, -1);
	s->used = 0;
	*session = MPI_SESSION_NULL;
	return michi_runtime_down(fname);
}

/* A new info object with one pair; MPI error code. */
static int info_one(MPI_Session h, const char *fname, const char *key, const char *val,
		    MPI_Info *out)
{
	int err = PMPI_Info_create(out);

	if (!err)
		err = PMPI_Info_set(*out, key, val);
	if (err)
		return session_err(h, MPI_ERR_NO_MEM, fname, "(): no memory for an info object");
	return MPI_SUCCESS;
}

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
	static const char fname[] = "MPI_Session_get_info";
	struct session *s;

	SESSION_ARG(session, s, fname);
	if (!info_used)
		return session_err(session, MPI_ERR_ARG, fname, "(info_used=NULL): NULL pointer");
	return info_one(session, fname, "thread_level",
			level_names[s->thread_level - MPI_THREAD_SINGLE], info_used);
}

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
	static const char fname[] = "MPI_Session_get_num_psets";
	struct session *s;

	(void)info;
	SESSION_ARG(session, s, fname);
	if (!npset_names)
		return session_err(session, MPI_ERR_ARG, fname, "(npset_names=NULL): NULL pointer");
	*npset_names = NPSETS;
	return MPI_SUCCESS;
}

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
			      char *pset_name)
{
	static const char fname[] = "MPI_Session_get_nth_pset";
	struct session *s;
	int len;

	(void)info;
	SESSION_ARG(session, s, fname);
	if (n < 0 || n >= NPSETS)
		return session_err(session, MPI_ERR_ARG, fname,
				   "(n=%d): out of range, the session has %d process sets", n,
				   NPSETS);
	if (!pset_len)
		return session_err(session, MPI_ERR_ARG, fname, "(pset_len=NULL): NULL pointer");
	len = (int)strlen(psets[n]) + 1;
	/* 0 asks for the length; else up to *pset_len bytes, terminated */
	if (*pset_len > 0) {
		if (!pset_name)
			return session_err(session, MPI_ERR_ARG, fname,
					   "(pset_name=NULL, *pset_len=%d): NULL pointer",
					   *pset_len);
		snprintf(pset_name, (size_t)*pset_len, "%s", psets[n]);
	}
	*pset_len = len;
	return MPI_SUCCESS;
}

/* The index of a process set's name, or -1. */
static int pset_index(const char *name)
{
	int i;

	for (i = 0; name && i < NPSETS; i++)
		if (!strcasecmp(name, psets[i]))
			return i;
	return -1;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
	static const char fname[] = "MPI_Session_get_pset_info";
	struct session *s;
	char size[16];
	int i;

	SESSION_ARG(session, s, fname);
	if ((i = pset_index(pset_name)) < 0)
		return session_err(session, MPI_ERR_ARG, fname,
				   "(pset_name=\"%s\"): no such process set (mpi://WORLD, "
				   "mpi://SELF)", pset_name ? pset_name : "(null)");
	if (!info)
		return session_err(session, MPI_ERR_ARG, fname, "(info=NULL): NULL pointer");
	snprintf(size, sizeof(size), "%d", i == 0 ? michi_state.size : 1);
	return info_one(session, fname, "mpi_size", size, info);
}

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
				 MPI_Group *newgroup)
{
	static const char fname[] = "MPI_Group_from_session_pset";
	struct session *s;
	int i;

	SESSION_ARG(session, s, fname);
	if ((i = pset_index(pset_name)) < 0)
		return session_err(session, MPI_ERR_ARG, fname,
				   "(pset_name=\"%s\"): no such process set (mpi://WORLD, "
				   "mpi://SELF)", pset_name ? pset_name : "(null)");
	if (!newgroup)
		return session_err(session, MPI_ERR_ARG, fname, "(newgroup=NULL): NULL pointer");
	return PMPI_Comm_group(i == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF, newgroup);
}

/* FNV-1a of the string tag, its top bit set: MPI_Comm_create_group's
 * tags are non-negative, so the two never share a key. */
uint32_t michi_stringtag_key(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h | 0x80000000u;
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
				MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
	static const char fname[] = "MPI_Comm_create_from_group";
	struct michi_group *g;
	struct michi_comm *n;
	int err;

	MICHI_CHECK_INIT(fname);
	if (!newcomm || !stringtag)
		return michi_mpi_err(NULL, MPI_ERR_ARG, fname, "(%s=NULL): NULL pointer",
				     newcomm ? "stringtag" : "newcomm");
	*newcomm = MPI_COMM_NULL;
	if (!(g = michi_group_get(group)))
		return michi_mpi_err(NULL, MPI_ERR_GROUP, fname, "(group=0x%x): not a valid group",
				     (unsigned)group);
	if (g->rank == MPI_UNDEFINED)
		return michi_mpi_err(NULL, MPI_ERR_GROUP, fname,
				     "(group): the calling process is not a member");
	if ((err = michi_comm_from_group(g, michi_stringtag_key(stringtag), fname, &n)))
		return err;
	if (errhandler != MPI_ERRHANDLER_NULL) {
		michi_errhandler_ref(n->errhandler, -1);
		n->errhandler = errhandler;
		michi_errhandler_ref(errhandler, 1);
	}
	*newcomm = n->handle;
	if (info != MPI_INFO_NULL)
		return PMPI_Comm_set_info(n->handle, info);
	return MPI_SUCCESS;
}

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *fn,
				   MPI_Errhandler *errhandler)
{
	/* the same object as a communicator's: the function gets the
	 * session's handle where a communicator's would go */
	return PMPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)(void *)fn,
					   errhandler);
}

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
	static const char fname[] = "MPI_Session_set_errhandler";
	struct session *s;

	SESSION_ARG(session, s, fname);
	if (errhandler == MPI_ERRHANDLER_NULL)
		return session_err(session, MPI_ERR_ARG, fname,
				   "(errhandler=MPI_ERRHANDLER_NULL): not a handler");
	michi_errhandler_ref(errhandler, 1);
	michi_errhandler_ref(s->eh, -1);
	s->eh = errhandler;
	return MPI_SUCCESS;
}

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
	static const char fname[] = "MPI_Session_get_errhandler";
	struct session *s;

	SESSION_ARG(session, s, fname);
	if (!errhandler)
		return session_err(session, MPI_ERR_ARG, fname, "(errhandler=NULL): NULL pointer");
	/* a new reference, which the caller frees (MPI 3.1 section 8.3) */
	michi_errhandler_ref(s->eh, 1);
	*errhandler = s->eh;
	return MPI_SUCCESS;
}

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
	static const char fname[] = "MPI_Session_call_errhandler";
	struct session *s;

	SESSION_ARG(session, s, fname);
	michi_mpi_err_raise_eh(s->eh, (int)session, errorcode);
	return MPI_SUCCESS;
}
