/* SPDX-License-Identifier: MIT */
/*
 * mpi/env/errors.c: error classes, codes, strings and error handlers.
 *
 * Every error reported by an MPI function goes through michi_mpi_err(),
 * which writes one sentence naming the function, the argument and its
 * value, the reason, and the rank and host, then calls the communicator's
 * error handler. The error code returned to the user carries that sentence:
 * code = class | seq << 10, where seq numbers the message and selects its
 * slot in a small ring of recent messages, so MPI_Error_string(code) gives
 * the precise sentence while MPI_Error_class(code) still gives the class.
 * A code whose slot was reused since reads as its class's sentence.
 * Classes the program adds (MPI_Add_error_class) take the numbers 128 up
 * in the same ten bits, with bit 30 (DYN_BIT) set: every added class and
 * code is then above MPI_ERR_LASTCODE (0x3fffffff), as MPICH's and Open
 * MPI's are and as programs (mpi4py among them) expect. Codes the program
 * adds (MPI_Add_error_code) use seq numbers from 2^19 up, which the ring
 * never reaches, and also carry DYN_BIT, so class and code decode the same
 * way for everybody: the class of a code is its low ten bits, with
 * DYN_BIT when those name an added class.
 *
 * Errors that belong to no object (an object-less call, an invalid
 * handle, an invalid session) go where MPI-4.0 section 9.3 sends them:
 * to MPI_COMM_SELF's handler once the World Model is initialized, else to
 * the initial error handler, MPI_ERRORS_ARE_FATAL. MPI-3.1 sent them to
 * MPI_COMM_WORLD's, and programs written for it set their handler there
 * alone; so until the program sets a handler on MPI_COMM_SELF, MPI_COMM_WORLD's
 * serves (both start as MPI_ERRORS_ARE_FATAL, so the two rules differ
 * only for a program that set one of them).
 */
#include "mpiimpl.h"
#include "pmi.h"
#include "mtlock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CLASS_BITS 10
#define CLASS_MASK ((1 << CLASS_BITS) - 1)
#define RING_SLOTS 256
#define SEQ_MAX    ((1u << 19) - 1)   /* code = class | seq << 10 stays <= MPI_ERR_LASTCODE */
#define USER_SEQ   (1u << 19)         /* user codes: class | (USER_SEQ + k) << 10 */
#define USER_CLASS_FIRST 128          /* above every predefined class */
#define DYN_BIT    0x40000000         /* added classes and codes: above MPI_ERR_LASTCODE */
#define USER_CODES_MAX 4096

struct err_slot {
	int code;
	char msg[MPI_MAX_ERROR_STRING];
};

static struct err_slot ring[RING_SLOTS];
static unsigned ring_next;

/* User error handlers (MPI_Comm_create_errhandler). */
struct michi_errhandler {
	struct michi_obj h;
	MPI_Comm_errhandler_function *fn;
};

static const char *const class_str[] = {
	[MPI_SUCCESS] = "no error",
	[MPI_ERR_BUFFER] = "invalid buffer pointer",
	[MPI_ERR_COUNT] = "invalid count argument",
	[MPI_ERR_TYPE] = "invalid datatype",
	[MPI_ERR_TAG] = "invalid tag",
	[MPI_ERR_COMM] = "invalid communicator",
	[MPI_ERR_RANK] = "invalid rank",
	[MPI_ERR_ROOT] = "invalid root",
	[MPI_ERR_GROUP] = "invalid group",
	[MPI_ERR_OP] = "invalid reduction operation",
	[MPI_ERR_TOPOLOGY] = "invalid topology",
	[MPI_ERR_DIMS] = "invalid dimension argument",
	[MPI_ERR_ARG] = "invalid argument",
	[MPI_ERR_UNKNOWN] = "unknown error",
	[MPI_ERR_TRUNCATE] = "message truncated",
	[MPI_ERR_OTHER] = "other error",
	[MPI_ERR_INTERN] = "internal error",
	[MPI_ERR_IN_STATUS] = "error code is in status",
	[MPI_ERR_PENDING] = "pending request",
	[MPI_ERR_REQUEST] = "invalid request",
	[MPI_ERR_ACCESS] = "permission denied",
	[MPI_ERR_AMODE] = "invalid file access mode",
	[MPI_ERR_BAD_FILE] = "invalid file name",
	[MPI_ERR_CONVERSION] = "data conversion failed",
	[MPI_ERR_DUP_DATAREP] = "data representation already defined",
	[MPI_ERR_FILE_EXISTS] = "file exists",
	[MPI_ERR_FILE_IN_USE] = "file in use",
	[MPI_ERR_FILE] = "invalid file handle",
	[MPI_ERR_INFO] = "invalid info object",
	[MPI_ERR_INFO_KEY] = "invalid info key",
	[MPI_ERR_INFO_VALUE] = "invalid info value",
	[MPI_ERR_INFO_NOKEY] = "info key not found",
	[MPI_ERR_IO] = "I/O error",
	[MPI_ERR_NAME] = "invalid service name",
	[MPI_ERR_NO_MEM] = "out of memory",
	[MPI_ERR_NOT_SAME] = "collective arguments differ between processes",
	[MPI_ERR_NO_SPACE] = "no space left",
	[MPI_ERR_NO_SUCH_FILE] = "no such file",
	[MPI_ERR_PORT] = "invalid port",
	[MPI_ERR_QUOTA] = "quota exceeded",
	[MPI_ERR_READ_ONLY] = "read-only file",
	[MPI_ERR_SERVICE] = "invalid service",
	[MPI_ERR_SPAWN] = "spawn failed",
	[MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
	[MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported",
	[MPI_ERR_WIN] = "invalid window",
	[MPI_ERR_BASE] = "invalid base address",
	[MPI_ERR_LOCKTYPE] = "invalid lock type",
	[MPI_ERR_KEYVAL] = "invalid attribute key",
	[MPI_ERR_RMA_CONFLICT] = "conflicting RMA accesses",
	[MPI_ERR_RMA_SYNC] = "wrong RMA synchronization",
	[MPI_ERR_SIZE] = "invalid size",
	[MPI_ERR_DISP] = "invalid displacement",
	[MPI_ERR_ASSERT] = "invalid assert",
	[MPI_ERR_RMA_RANGE] = "RMA target out of range",
	[MPI_ERR_RMA_ATTACH] = "RMA attach failed",
	[MPI_ERR_RMA_SHARED] = "RMA shared memory failure",
	[MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
	[MPI_ERR_SESSION] = "invalid session",
	[MPI_ERR_PROC_ABORTED] = "process aborted",
	[MPI_ERR_VALUE_TOO_LARGE] = "value too large",
};

#define NCLASSES ((int)(sizeof(class_str) / sizeof(class_str[0])))

/* The class of a code: its low ten bits, an added class's with DYN_BIT. */
static int code_class(int code)
{
	int low = code & CLASS_MASK;

	return low >= USER_CLASS_FIRST ? low | DYN_BIT : low;
}

int michi_errcode_new(int errclass, const char *msg)
{
	unsigned seq = ring_next++ % SEQ_MAX + 1;
	unsigned slot = seq % RING_SLOTS;
	int code = errclass | (int)(seq << CLASS_BITS);

	ring[slot].code = code;
	snprintf(ring[slot].msg, sizeof(ring[slot].msg), "%s", msg);
	return code;
}

/* Added by the program: classes (their strings) and codes. */
static char *user_class_str[1 << CLASS_BITS];
static unsigned char user_class_free[1 << CLASS_BITS];   /* deleted, to reuse */
static int user_class_next = USER_CLASS_FIRST;
static struct {
	int code;          /* 0: deleted (MPIX_Delete_error_code), to reuse */
	char *str;
} user_codes[USER_CODES_MAX];
static int user_ncodes;
static int user_codes_free[USER_CODES_MAX];   /* deleted slots, a stack */
static int user_nfree;
static int user_lastused;

/* The index in user_class_str of an added class, or -1. */
static int user_class_index(int cls)
{
	int low = cls & ~DYN_BIT;

	return (cls & DYN_BIT) && low >= USER_CLASS_FIRST && low < user_class_next &&
	       !user_class_free[low] ? low : -1;
}

static int class_valid(int cls)
{
	return (cls >= 0 && cls < NCLASSES && class_str[cls]) || user_class_index(cls) >= 0;
}

/* Index in user_codes of a code the program added, or -1. */
static int user_code_index(int code)
{
	unsigned seq = ((unsigned)code & ~(unsigned)DYN_BIT) >> CLASS_BITS;

	if (seq < USER_SEQ || seq - USER_SEQ >= (unsigned)user_ncodes || code == 0 ||
	    user_codes[seq - USER_SEQ].code != code)
		return -1;
	return (int)(seq - USER_SEQ);
}

static const char *class_msg(int cls)
{
	int k = user_class_index(cls);

	if (cls >= 0 && cls < NCLASSES && class_str[cls])
		return class_str[cls];
	if (k >= 0)
		return user_class_str[k] ? user_class_str[k] : "";
	return NULL;
}

static const char *code_msg(int code)
{
	unsigned seq = ((unsigned)code & ~(unsigned)DYN_BIT) >> CLASS_BITS;
	int k = user_code_index(code);

	if (k >= 0)   /* without a string of its own: empty, as an added class's */
		return user_codes[k].str ? user_codes[k].str : "";
	if (seq >= 1 && seq < USER_SEQ && ring[seq % RING_SLOTS].code == code)
		return ring[seq % RING_SLOTS].msg;
	if (seq == 0)
		return class_msg(code);
	/* a code whose message slot was reused: its class's sentence */
	return class_valid(code_class(code)) ? class_msg(code_class(code)) : NULL;
}

/* MPI_LASTUSEDCODE: "the current maximum error class including the
 * user-defined ones" (MPI-3.1 8.5), at least MPI_ERR_LASTCODE; added codes
 * do not raise it (MPICH's and Open MPI's do not either). */
int michi_err_lastused(void)
{
	return user_lastused > MPI_ERR_LASTCODE ? user_lastused : MPI_ERR_LASTCODE;
}

static void fatal(struct michi_comm *comm, int code, const char *msg)
{
	char line[MPI_MAX_ERROR_STRING + 64];
	int n;

	fflush(NULL);   /* the program's buffered output first, as MPI_Abort does */
	n = snprintf(line, sizeof(line), "Fatal error in %s\n", msg);
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		n = 0;
	if (michi_state.active && michi_state.size > 1) {
		pmi_abort(code & CLASS_MASK ? code & CLASS_MASK : 1, msg);
		/* the process manager kills us; if it does not, exit ourselves */
	}
	_exit(code & 0xff ? code & 0xff : 1);
}

/* Handler eh of the object whose handle is h (a communicator's, or a
 * session's: their functions take the same arguments). */
static int call_eh(MPI_Errhandler eh, int h, struct michi_comm *comm, int code, const char *msg)
{
	struct michi_errhandler *e;
	int c = code;

	if (eh == MPI_ERRORS_RETURN)
		return code;
	if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_ABORT ||
	    eh == MPI_ERRHANDLER_NULL)
		fatal(comm, code, msg);
	e = michi_obj_check((uint32_t)eh, MICHI_KIND_ERRHANDLER);
	if (!e || !e->fn)
		fatal(comm, code, msg);
	e->fn((MPI_Comm *)&h, &c);
	return code;
}

static int call_handler(struct michi_comm *comm, int code, const char *msg)
{
	return call_eh(comm ? comm->errhandler : MPI_ERRORS_ARE_FATAL,
		       comm ? (int)comm->handle : (int)MPI_COMM_WORLD, comm, code, msg);
}

int michi_mpi_err_raise_eh(MPI_Errhandler eh, int handle, int code)
{
	const char *m = code_msg(code);

	return call_eh(eh, handle, NULL, code, m ? m : "error");
}

static int errcode_vbuild(int errclass, const char *fname, const char *fmt, va_list ap)
{
	char msg[MPI_MAX_ERROR_STRING];
	int n;

	n = snprintf(msg, sizeof(msg), "%s", fname);
	n += vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	if (n < (int)sizeof(msg))
		snprintf(msg + n, sizeof(msg) - (size_t)n, " (rank %d on host %s)",
			 michi_state.rank, michi_state.host ? michi_state.host : michi_hostname());
	return michi_errcode_new(errclass, msg);
}

int michi_mpi_err_code(int errclass, const char *fname, const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = errcode_vbuild(errclass, fname, fmt, ap);
	va_end(ap);
	return code;
}

/* Whether the program set a handler on MPI_COMM_SELF (see the top). */
static int self_eh_set;

/* The communicator whose handler takes an error that belongs to no
 * object; NULL: the initial error handler (MPI_ERRORS_ARE_FATAL). */
static struct michi_comm *noobj_comm(void)
{
	if (!michi_state.initialized || michi_state.finalized)
		return NULL;
	return self_eh_set ? &michi_comm_self : &michi_comm_world;
}

int michi_mpi_err_raise(struct michi_comm *comm, int code)
{
	const char *m = code_msg(code);

	if (!comm)
		comm = noobj_comm();
	return call_handler(comm, code, m ? m : "error");
}

int michi_mpi_err(struct michi_comm *comm, int errclass, const char *fname,
		  const char *fmt, ...)
{
	va_list ap;
	int code;

	va_start(ap, fmt);
	code = errcode_vbuild(errclass, fname, fmt, ap);
	va_end(ap);
	return michi_mpi_err_raise(comm, code);
}

int michi_mpi_class(michi_status_t st)
{
	switch (st) {
	case MICHI_OK:
	case MICHI_INPROGRESS:
		return MPI_SUCCESS;
	case MICHI_ERR_NOMEM: return MPI_ERR_NO_MEM;
	case MICHI_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
	case MICHI_ERR_INVAL: return MPI_ERR_ARG;
	case MICHI_ERR_UNSUPPORTED: return MPI_ERR_UNSUPPORTED_OPERATION;
	case MICHI_ERR_PEER: return MPI_ERR_PROC_ABORTED;
	case MICHI_ERR_INTERN: return MPI_ERR_INTERN;
	default: return MPI_ERR_OTHER;
	}
}

int michi_mpi_status_code(michi_status_t st, const char *fname)
{
	const char *m = michi_err_msg();
	int code;

	if (st == MICHI_ERR_TRUNCATE)
		code = michi_mpi_err_code(MPI_ERR_TRUNCATE, fname, ": message truncated, %s",
					  m[0] ? m : "receive buffer too small");
	else
		code = michi_mpi_err_code(michi_mpi_class(st), fname, ": %s",
					  m[0] ? m : michi_status_str(st));
	michi_err_clear();
	return code;
}

int michi_mpi_err_status(struct michi_comm *comm, michi_status_t st, const char *fname)
{
	return michi_mpi_err_raise(comm, michi_mpi_status_code(st, fname));
}

int michi_mpi_unsupported(const char *fname)
{
	return michi_mpi_err(NULL, MPI_ERR_UNSUPPORTED_OPERATION, fname,
			     ": not implemented in Michi yet (see the status table in docs/status.md)");
}

/* The error path of the language bindings built as their own library
 * (libmpifort): an error of class errclass in fname, reported through
 * MPI_COMM_WORLD's handler like the core's own. */
MICHI_EXPORT int michi_binding_error(int errclass, const char *fname, const char *what)
{
	return michi_mpi_err(NULL, errclass, fname, ": %s", what);
}

int michi_not_initialized(const char *fname)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "%s: MPI is %s (process %d on host %s)", fname,
		 michi_state.finalized ? "already finalized" : "not initialized",
		 (int)getpid(), michi_hostname());
	/* No communicator is usable: behave as ERRORS_ARE_FATAL would. */
	fatal(NULL, MPI_ERR_OTHER, msg);
	return MPI_ERR_OTHER;
}

void michi_errors_init(void)
{
	ring_next = 0;
	self_eh_set = 0;
}

/* ---- MPI functions ------------------------------------------------------ */

int PMPI_Error_class(int errorcode, int *errorclass)
{
	if (ERRCHK && !errorclass)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Error_class",
				     "(errorclass=NULL): output pointer is NULL");
	if (ERRCHK && (errorcode < 0 || !code_msg(errorcode)))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Error_class",
				     "(errorcode=%d): not a valid error code", errorcode);
	*errorclass = code_class(errorcode);
	return MPI_SUCCESS;
}

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
	const char *m;

	if (ERRCHK && (!string || !resultlen))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Error_string",
				     "(string=%p, resultlen=%p): output pointer is NULL",
				     (void *)string, (void *)resultlen);
	m = errorcode >= 0 ? code_msg(errorcode) : NULL;
	if (!m)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Error_string",
				     "(errorcode=%d): not a valid error code", errorcode);
	snprintf(string, MPI_MAX_ERROR_STRING, "%s", m);
	*resultlen = (int)strlen(string);
	return MPI_SUCCESS;
}

static void lastused(int v)
{
	if (v > user_lastused)
		user_lastused = v;
}

int PMPI_Add_error_class(int *errorclass)
{
	int k;

	MICHI_CHECK_INIT("MPI_Add_error_class");
	if (ERRCHK && !errorclass)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_class",
				     "(errorclass=NULL): output pointer is NULL");
	for (k = USER_CLASS_FIRST; k < user_class_next && !user_class_free[k]; k++)
		;
	if (k >= 1 << CLASS_BITS)
		return michi_mpi_err(NULL, MPI_ERR_OTHER, "MPI_Add_error_class",
				     "(): all %d error classes a program may add are in use",
				     (1 << CLASS_BITS) - USER_CLASS_FIRST);
	if (k == user_class_next)
		user_class_next++;
	user_class_free[k] = 0;
	*errorclass = k | DYN_BIT;
	lastused(*errorclass);
	return MPI_SUCCESS;
}

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
	int k;

	MICHI_CHECK_INIT("MPI_Add_error_code");
	if (ERRCHK && !errorcode)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_code",
				     "(errorcode=NULL): output pointer is NULL");
	if (!class_valid(errorclass))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_code",
				     "(errorclass=%d): not an error class", errorclass);
	if (user_nfree)
		k = user_codes_free[--user_nfree];
	else if (user_ncodes < USER_CODES_MAX)
		k = user_ncodes++;
	else
		return michi_mpi_err(NULL, MPI_ERR_OTHER, "MPI_Add_error_code",
				     "(): all %d error codes a program may add are in use",
				     USER_CODES_MAX);
	user_codes[k].code = errorclass | DYN_BIT | (int)((USER_SEQ + (unsigned)k) << CLASS_BITS);
	user_codes[k].str = NULL;
	*errorcode = user_codes[k].code;
	return MPI_SUCCESS;
}

int PMPI_Add_error_string(int errorcode, const char *string)
{
	char **slot;
	int k;

	MICHI_CHECK_INIT("MPI_Add_error_string");
	if (ERRCHK && !string)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_string",
				     "(string=NULL): NULL pointer");
	if (strlen(string) >= MPI_MAX_ERROR_STRING)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_string",
				     "(string of %zu characters): at most %d", strlen(string),
				     MPI_MAX_ERROR_STRING - 1);
	k = errorcode >= 0 ? user_code_index(errorcode) : -1;
	if (k >= 0)
		slot = &user_codes[k].str;
	else if ((k = user_class_index(errorcode)) >= 0)
		slot = &user_class_str[k];
	else
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Add_error_string",
				     "(errorcode=%d): not a class or code the program added "
				     "(predefined strings cannot be changed)", errorcode);
	free(*slot);
	*slot = strdup(string);
	if (!*slot)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Add_error_string", "(): no memory");
	return MPI_SUCCESS;
}

/*
 * MPICH's MPIX_Delete_error_class/_code/_string (MPI-4.1 names them
 * MPI_Remove_error_*): what the program added goes, and its number may be
 * handed out again. A class goes only once no added code is in it; a
 * string goes back to the empty one. They take util/mtlock.h's lock
 * themselves, as no generated wrapper covers MPIX_ names.
 */
static int delete_string(int errorcode)
{
	int k = errorcode >= 0 ? user_code_index(errorcode) : -1;
	char **slot;

	if (k >= 0)
		slot = &user_codes[k].str;
	else if ((k = user_class_index(errorcode)) >= 0)
		slot = &user_class_str[k];
	else
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPIX_Delete_error_string",
				     "(errorcode=%d): not a class or code the program added",
				     errorcode);
	free(*slot);
	*slot = NULL;
	return MPI_SUCCESS;
}

static int delete_code(int errorcode)
{
	int k = errorcode >= 0 ? user_code_index(errorcode) : -1;

	if (k < 0)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPIX_Delete_error_code",
				     "(errorcode=%d): not a code the program added", errorcode);
	free(user_codes[k].str);
	user_codes[k].str = NULL;
	user_codes[k].code = 0;
	user_codes_free[user_nfree++] = k;
	return MPI_SUCCESS;
}

static int delete_class(int errorclass)
{
	int k = user_class_index(errorclass), i;

	if (k < 0)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPIX_Delete_error_class",
				     "(errorclass=%d): not a class the program added", errorclass);
	for (i = 0; i < user_ncodes; i++)
		if (user_codes[i].code && code_class(user_codes[i].code) == errorclass)
			return michi_mpi_err(NULL, MPI_ERR_ARG, "MPIX_Delete_error_class",
					     "(errorclass=%d): code %d of this class is still in "
					     "use; delete the codes first",
					     errorclass, user_codes[i].code);
	free(user_class_str[k]);
	user_class_str[k] = NULL;
	user_class_free[k] = 1;
	return MPI_SUCCESS;
}

static int delete_locked(int (*fn)(int), int arg, const char *fname)
{
	int rc;

	if (!michi_state.active)
		return michi_not_initialized(fname);
	if (michi_mt)
		michi_mt_lock();
	rc = fn(arg);
	if (michi_mt)
		michi_mt_unlock();
	return rc;
}

int PMPIX_Delete_error_class(int errorclass)
{
	return delete_locked(delete_class, errorclass, "MPIX_Delete_error_class");
}

int PMPIX_Delete_error_code(int errorcode)
{
	return delete_locked(delete_code, errorcode, "MPIX_Delete_error_code");
}

int PMPIX_Delete_error_string(int errorcode)
{
	return delete_locked(delete_string, errorcode, "MPIX_Delete_error_string");
}

int MPIX_Delete_error_class(int errorclass) __attribute__((weak, alias("PMPIX_Delete_error_class")));
int MPIX_Delete_error_code(int errorcode) __attribute__((weak, alias("PMPIX_Delete_error_code")));
int MPIX_Delete_error_string(int errorcode) __attribute__((weak, alias("PMPIX_Delete_error_string")));

static int errhandler_ok(MPI_Errhandler eh)
{
	return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN ||
	       eh == MPI_ERRORS_ABORT ||
	       michi_obj_check((uint32_t)eh, MICHI_KIND_ERRHANDLER) != NULL;
}

/* Communicators hold a reference on user error handlers. */
void michi_errhandler_ref(MPI_Errhandler eh, int delta)
{
	struct michi_errhandler *e = michi_obj_check((uint32_t)eh, MICHI_KIND_ERRHANDLER);

	if (!e)
		return;
	e->h.refs += (uint32_t)delta;
	if (e->h.refs == 0)
		michi_obj_free(MICHI_KIND_ERRHANDLER, e);
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
	struct michi_comm *c;

	MICHI_CHECK_INIT("MPI_Comm_set_errhandler");
	c = michi_comm_get(comm);
	if (!c)
		return michi_check_comm_slow(comm, "MPI_Comm_set_errhandler");
	if (ERRCHK && !errhandler_ok(errhandler))
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler",
				     "(errhandler=0x%x): not a valid error handler",
				     (unsigned)errhandler);
	michi_errhandler_ref(errhandler, 1);
	michi_errhandler_ref(c->errhandler, -1);
	c->errhandler = errhandler;
	if (c == &michi_comm_self)
		self_eh_set = 1;
	return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	struct michi_comm *c;

	MICHI_CHECK_INIT("MPI_Comm_get_errhandler");
	c = michi_comm_get(comm);
	if (!c)
		return michi_check_comm_slow(comm, "MPI_Comm_get_errhandler");
	if (ERRCHK && !errhandler)
		return michi_mpi_err(c, MPI_ERR_ARG, "MPI_Comm_get_errhandler",
				     "(errhandler=NULL): output pointer is NULL");
	/* a new reference, which the caller frees (MPI 3.1 section 8.3) */
	michi_errhandler_ref(c->errhandler, 1);
	*errhandler = c->errhandler;
	return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
	struct michi_errhandler *e;

	MICHI_CHECK_INIT("MPI_Comm_create_errhandler");
	if (ERRCHK && (!fn || !errhandler))
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Comm_create_errhandler",
				     "(function=%p, errhandler=%p): NULL pointer",
				     (void *)fn, (void *)errhandler);
	e = michi_obj_alloc(MICHI_KIND_ERRHANDLER);
	if (!e)
		return michi_mpi_err(NULL, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler",
				     ": %s", michi_err_msg());
	e->fn = fn;
	*errhandler = (MPI_Errhandler)michi_p2h(e);
	return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
	struct michi_errhandler *e;

	MICHI_CHECK_INIT("MPI_Errhandler_free");
	if (ERRCHK && !errhandler)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Errhandler_free",
				     "(errhandler=NULL): NULL pointer");
	if (*errhandler == MPI_ERRORS_ARE_FATAL || *errhandler == MPI_ERRORS_RETURN ||
	    *errhandler == MPI_ERRORS_ABORT) {
		*errhandler = MPI_ERRHANDLER_NULL;
		return MPI_SUCCESS;
	}
	e = michi_obj_check((uint32_t)*errhandler, MICHI_KIND_ERRHANDLER);
	if (!e)
		return michi_mpi_err(NULL, MPI_ERR_ARG, "MPI_Errhandler_free",
				     "(errhandler=0x%x): not a valid error handler",
				     (unsigned)*errhandler);
	/* Communicators still using it keep a valid handle: objects of this
	 * kind are only recycled once no communicator refers to them. */
	if (--e->h.refs == 0)
		michi_obj_free(MICHI_KIND_ERRHANDLER, e);
	*errhandler = MPI_ERRHANDLER_NULL;
	return MPI_SUCCESS;
}

/* The MPI-1 names MPI-3 removed (MPICH still has them): the communicator
 * calls under their old names; a bad argument is reported by the new name. */
int PMPI_Errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
	return PMPI_Comm_create_errhandler(fn, errhandler);
}

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
	return PMPI_Comm_set_errhandler(comm, errhandler);
}

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
	return PMPI_Comm_get_errhandler(comm, errhandler);
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
	struct michi_comm *c;
	const char *m;

	MICHI_CHECK_INIT("MPI_Comm_call_errhandler");
	c = michi_comm_get(comm);
	if (!c)
		return michi_check_comm_slow(comm, "MPI_Comm_call_errhandler");
	m = code_msg(errorcode);
	call_handler(c, errorcode, m ? m : "user error");
	return MPI_SUCCESS;
}

/* ---- argument errors (cold), shared by every family ---------------------- */

int michi_err_count(struct michi_comm *c, const char *fname, MPI_Count count)
{
	return michi_mpi_err(c, MPI_ERR_COUNT, fname, "(count=%lld): count is negative",
			     (long long)count);
}

int michi_err_rank(struct michi_comm *c, const char *fname, const char *arg, int rank)
{
	return michi_mpi_err(c, MPI_ERR_RANK, fname,
			     "(%s=%d): rank out of range, communicator has %d ranks",
			     arg, rank, c->size);
}

int michi_err_tag(struct michi_comm *c, const char *fname, int tag, int recv)
{
	return michi_mpi_err(c, MPI_ERR_TAG, fname,
			     "(tag=%d): tag must be in 0..%d%s", tag, michi_state.tag_ub,
			     recv ? " or MPI_ANY_TAG" : "");
}

int michi_err_type(struct michi_comm *c, const char *fname, MPI_Datatype dt)
{
	if (dt == MPI_DATATYPE_NULL)
		return michi_mpi_err(c, MPI_ERR_TYPE, fname,
				     "(datatype=MPI_DATATYPE_NULL): null datatype");
	if (michi_dt_get(dt))
		return michi_mpi_err(c, MPI_ERR_TYPE, fname,
				     "(datatype=0x%x): datatype not committed (MPI_Type_commit)",
				     (unsigned)dt);
	return michi_mpi_err(c, MPI_ERR_TYPE, fname,
			     "(datatype=0x%x): not a valid datatype", (unsigned)dt);
}

int michi_err_buf(struct michi_comm *c, const char *fname, MPI_Count count)
{
	return michi_mpi_err(c, MPI_ERR_BUFFER, fname,
			     "(buf=NULL, count=%lld): NULL buffer with a positive count",
			     (long long)count);
}

int michi_err_null(struct michi_comm *c, const char *fname, const char *arg)
{
	return michi_mpi_err(c, MPI_ERR_ARG, fname, "(%s=NULL): NULL pointer", arg);
}

int michi_err_request(const char *fname, const char *arg, MPI_Request h)
{
	if (h == MPI_REQUEST_NULL)
		return michi_mpi_err(NULL, MPI_ERR_REQUEST, fname,
				     "(%s=MPI_REQUEST_NULL): null request", arg);
	return michi_mpi_err(NULL, MPI_ERR_REQUEST, fname,
			     "(%s=0x%x): not a valid request", arg, (unsigned)h);
}

int michi_err_nomem(struct michi_comm *c, const char *fname)
{
	int code = michi_mpi_err(c, MPI_ERR_NO_MEM, fname, ": %s", michi_err_msg());

	michi_err_clear();
	return code;
}

/* An MTMI completion error as an MPI error code with a sentence; no
 * handler is called yet. */
static int mtmi_error_code(const struct mtmi_req *m, const char *fname)
{
	if (m->error == MICHI_ERR_TRUNCATE)
		return michi_mpi_err_code(MPI_ERR_TRUNCATE, fname,
					  ": message truncated: %zu-byte message from rank %d (tag %d)"
					  " into a %zu-byte buffer", m->msg_len, m->source, m->tag,
					  m->len);
	return michi_mpi_status_code(m->error, fname);
}

int michi_mtmi_error(struct michi_comm *c, const struct mtmi_req *m, const char *fname)
{
	return michi_mpi_err_raise(c, mtmi_error_code(m, fname));
}

/* Multi-completion calls (quiet) put the code in the status and raise
 * MPI_ERR_IN_STATUS once themselves. */
int michi_req_error(struct michi_request *r, const char *fname, int quiet)
{
	int code = mtmi_error_code(&r->m, fname);

	return quiet ? code : michi_mpi_err_raise(r->comm, code);
}

int michi_start_error(struct michi_comm *c, michi_status_t st, const char *fname)
{
	if (st == MICHI_ERR_NOMEM)
		return michi_err_nomem(c, fname);
	return michi_mpi_err_status(c, st, fname);
}
