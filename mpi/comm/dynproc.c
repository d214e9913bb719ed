/* SPDX-License-Identifier: MIT */
/*
 * mpi/comm/dynproc.c: MPI's process creation and management: ports,
 * MPI_Comm_accept/connect, MPI_Comm_join, MPI_Comm_spawn(_multiple),
 * MPI_Comm_get_parent, MPI_Comm_disconnect and the name service.
 *
 * Everything meets in one step, dyn_link: two groups of processes, each
 * with a root that holds a connected socket to the other root, become an
 * intercommunicator. The roots swap one record per member (its job key,
 * its rank in its job, its host and its tcp card), every member learns
 * the other group's records (a broadcast in its group) and makes each
 * process of another job a peer through MTMI (mtmi_peer_add: the tcp
 * device admits their hellos from then on); a process of our own job is its
 * world rank. A context id free on both sides comes from the usual
 * agreement (mpi/comm/comm_create.c), the roots trading their maps over the same
 * socket.
 *
 * - A port (MPI_Open_port) is a listening socket of the process that
 *   opened it; its name carries that host's addresses and a random tag
 *   that a connector must present, so a stray connection is refused.
 * - MPI_Comm_join runs dyn_link over the user's socket, each side a group
 *   of one.
 * - MPI_Comm_spawn: the root opens a private port and starts Michi's
 *   mpirun (the one beside this library, or $MICHI_MPIRUN) for the new
 *   job, passing the port in MICHI_PARENT_PORT; the children connect to it
 *   from MPI_Init (michi_dyn_init) and the root accepts, watching the
 *   launcher so that one that fails (a missing program, a bad host) ends
 *   the spawn with MPI_ERR_SPAWN instead of a wait. A singleton spawns
 *   the same way; under another process manager (Hydra, Slurm), whose
 *   jobs Michi cannot extend, spawn fails with MPI_ERR_SPAWN saying so.
 * - The name service is the process manager's (PMI-1 publish_name,
 *   lookup_name, unpublish_name; Michi's mpirun keeps the table).
 *
 * Processes of another job are reached over tcp only (also on the same
 * host: shm segments are per job).
 */
#include "mpiimpl.h"
#include "mtmi.h"
#include "pmi.h"
#include "pt2pt.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static double dyn_timeout = 600.0;
MICHI_TUNABLE(dyn_timeout, "dyn_timeout", MICHI_T_DOUBLE, "600", MICHI_LEVEL_USER,
	      "seconds MPI_Comm_accept, _connect, _join and _spawn wait for the other side");

#define DYN_MAGIC "MICHIDYN1"
#define DYN_TAG_LEN 32            /* hex digits of a port's tag */
#define DYN_CARD_MAX 512

/* What one process tells the other group about itself. */
struct dyn_rec {
	uint8_t key[16];
	int32_t rank;
	char host[256];
	char card[DYN_CARD_MAX];
};

/* ---- sockets with deadlines that keep MPI progressing ---------------- */

/* Wait until fd is ready for `events` or the deadline passes: 1 ready, 0
 * timed out, -1 error. Makes MTMI progress meanwhile (a peer of ours may
 * need it to finish a send before it reaches the collective we wait in). */
static int dyn_wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int n;

		if (michi_wtime() > deadline)
			return 0;
		n = poll(&p, 1, 1);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return -1;
		if (michi_state.active)
			mtmi_progress();
	}
}

/* Write and read at once (both sides may write first): out of n bytes,
 * in of m; 0 or an errno value (ETIMEDOUT, ECONNRESET for an EOF). */
static int dyn_swap(int fd, const void *out, size_t n, void *in, size_t m, double deadline)
{
	size_t w = 0, r = 0;

	while (w < n || r < m) {
		struct pollfd p = { .fd = fd, .events = (short)((w < n ? POLLOUT : 0) |
								 (r < m ? POLLIN : 0)) };
		ssize_t k;
		int e;

		if (michi_wtime() > deadline)
			return ETIMEDOUT;
		e = poll(&p, 1, 1);
		if (e < 0 && errno != EINTR)
			return errno;
		if (e <= 0) {
			if (michi_state.active)
				mtmi_progress();
			continue;
		}
		if (w < n && (p.revents & (POLLOUT | POLLERR | POLLHUP))) {
			k = send(fd, (const char *)out + w, n - w, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (k < 0 && errno != EAGAIN && errno != EINTR)
				return errno;
			if (k > 0)
				w += (size_t)k;
		}
		if (r < m && (p.revents & (POLLIN | POLLERR | POLLHUP))) {
			k = recv(fd, (char *)in + r, m - r, MSG_DONTWAIT);
			if (k == 0)
				return ECONNRESET;
			if (k < 0 && errno != EAGAIN && errno != EINTR)
				return errno;
			if (k > 0)
				r += (size_t)k;
		}
	}
	return 0;
}

/* ---- linking two groups ----------------------------------------------- */

static int dyn_next_peer;         /* next free peer index for another job's process */

static int dyn_err(struct michi_comm *c, int cls, const char *fname, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int dyn_err(struct michi_comm *c, int cls, const char *fname, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return michi_mpi_err(c, cls, fname, "%s", msg);
}

/* This process's record. */
static int dyn_my_rec(struct dyn_rec *r)
{
	struct michi_job *job = michi_job_get();
	michi_status_t st;

	memset(r, 0, sizeof(*r));
	memcpy(r->key, job->key, 16);
	r->rank = job->rank;
	snprintf(r->host, sizeof(r->host), "%s", job->hostname);
	st = mtmi_peer_card(job, r->card, sizeof(r->card));
	return st < 0 ? (int)st : 0;
}

/* The peer index of the process rec describes, adding it when new. */
static michi_status_t dyn_peer_of(const struct dyn_rec *rec, int *index)
{
	struct michi_job *job = michi_job_get();
	michi_status_t st;
	int i, *hosts;

	if (memcmp(rec->key, job->key, 16) == 0) {
		if (rec->rank < 0 || rec->rank >= job->size)
			return michi_err(MICHI_ERR_PEER, "the other group names rank %d of this "
					 "job, which has %d", (int)rec->rank, job->size);
		*index = rec->rank;
		return MICHI_OK;
	}
	i = mtmi_peer_find(rec->key, rec->rank);
	if (i >= 0) {
		*index = i;
		return MICHI_OK;
	}
	if (!dyn_next_peer)
		dyn_next_peer = job->size;
	i = dyn_next_peer;
	/* host indices of other jobs' processes: this host's for ours,
	 * else one of their own (the collectives only group by them) */
	hosts = realloc(job->host_of, (size_t)(i + 1) * sizeof(int));
	if (!hosts)
		return michi_err(MICHI_ERR_NOMEM, "no memory for peer %d", i);
	job->host_of = hosts;
	michi_state.host_of = hosts;
	/* (below npeers, as the arrays indexed by host ids need) */
	hosts[i] = strcmp(rec->host, job->hostname) == 0 ? hosts[job->rank] : i;
	if (hosts[i] != hosts[job->rank])
		michi_state.single_host = 0;
	st = mtmi_peer_add(job, i, rec->key, rec->rank, rec->host, rec->card);
	if (st < 0)
		return st;
	dyn_next_peer = i + 1;
	michi_state.npeers = dyn_next_peer;
	*index = i;
	return MICHI_OK;
}

/* The context agreement's swap: the roots over their socket, then the
 * other group's map to every member. */
struct dyn_swap_arg {
	struct michi_comm *lc;
	int root, fd;
	double deadline;
};

static int dyn_swap_maps(void *arg, const uint32_t *mine, uint32_t *theirs, size_t n)
{
	struct dyn_swap_arg *x = arg;
	int bad = 0;

	if (x->lc->rank == x->root && dyn_swap(x->fd, mine, n, theirs, n, x->deadline))
		bad = 1;
	if (bad)
		memset(theirs, 0, n);
	return PMPI_Bcast(theirs, (int)n, MPI_BYTE, x->root, x->lc->handle) || bad ?
		MPI_ERR_OTHER : MPI_SUCCESS;
}

/*
 * Make the intercommunicator between lc's group and the group behind the
 * socket fd (valid at lc's root; the other side runs the same). `low`: this
 * group comes first in a merge where both pass the same `high`.
 * Collective over lc. Returns an MPI error code (the error already
 * raised on lc) or MPI_SUCCESS.
 */
static int dyn_link(struct michi_comm *lc, int root, int fd, int low, double deadline,
		    const char *fname, MPI_Comm *newcomm)
{
	struct dyn_rec me, *mine = NULL, *theirs = NULL;
	int32_t nmine = lc->size, ntheirs = 0, hdr[2];
	int *remote = NULL, err, i, e = 0;
	struct dyn_swap_arg x = { lc, root, fd, deadline };
	char why[256] = "";
	michi_status_t st;
	MPI_Comm local = MPI_COMM_NULL;
	uint32_t ctx;

	st = dyn_my_rec(&me);
	if (st < 0)
		snprintf(why, sizeof(why), "%s", michi_err_msg());
	if (lc->rank == root && !(mine = malloc(sizeof(*mine) * (size_t)nmine)))
		return michi_err_nomem(lc, fname);
	err = PMPI_Gather(&me, (int)sizeof(me), MPI_BYTE, mine, (int)sizeof(me), MPI_BYTE, root,
			  lc->handle);
	if (err) {
		free(mine);
		return err;
	}
	/* the roots trade counts, then records; ntheirs < 0 tells the
	 * members that the link failed */
	if (lc->rank == root) {
		int32_t out[2] = { nmine, st < 0 ? -1 : 0 };

		e = dyn_swap(fd, out, sizeof(out), hdr, sizeof(hdr), deadline);
		ntheirs = e ? -1 : hdr[1] < 0 ? -2 : hdr[0];
		if (ntheirs > 0 && ntheirs < (1 << 20) &&
		    (theirs = malloc(sizeof(*theirs) * (size_t)ntheirs)))
			e = dyn_swap(fd, mine, sizeof(*mine) * (size_t)nmine, theirs,
				     sizeof(*theirs) * (size_t)ntheirs, deadline);
		else if (ntheirs > 0)
			ntheirs = -1;
		if (e)
			ntheirs = -1;
		if (ntheirs == -1 && !why[0])
			snprintf(why, sizeof(why), "the link to the other group's root broke: %s",
				 strerror(e ? e : ENOMEM));
		if (ntheirs == -2 && !why[0])
			snprintf(why, sizeof(why), "the other group could not set up its side "
				 "(its error says why)");
	}
	free(mine);
	err = PMPI_Bcast(&ntheirs, 1, MPI_INT, root, lc->handle);
	if (!err && ntheirs < 0) {
		PMPI_Bcast(why, (int)sizeof(why), MPI_CHAR, root, lc->handle);
		free(theirs);
		return dyn_err(lc, MPI_ERR_OTHER, fname, "(): %s", why);
	}
	if (!err && lc->rank != root && !(theirs = malloc(sizeof(*theirs) * (size_t)ntheirs)))
		err = michi_err_nomem(lc, fname);
	if (!err)
		err = PMPI_Bcast(theirs, (int)(sizeof(*theirs) * (size_t)ntheirs), MPI_BYTE, root,
				 lc->handle);
	if (err) {
		free(theirs);
		return err;
	}
	remote = malloc(sizeof(int) * (size_t)ntheirs);
	if (!remote) {
		free(theirs);
		return michi_err_nomem(lc, fname);
	}
	for (i = 0; i < ntheirs; i++) {
		theirs[i].host[sizeof(theirs[i].host) - 1] = '\0';
		theirs[i].card[sizeof(theirs[i].card) - 1] = '\0';
		st = dyn_peer_of(&theirs[i], &remote[i]);
		if (st < 0)
			break;
	}
	free(theirs);
	if (st < 0) {
		/* erroneous from here: the other group goes on (as MPICH) */
		free(remote);
		return michi_mpi_err_status(lc, st, fname);
	}
	/* the local half first: its id must not come from the map offered */
	err = PMPI_Comm_dup(lc->handle, &local);
	if (!err)
		err = michi_ctx_agree(lc, (uint64_t)lc->ctx << 32 | 0xfffffffeu, dyn_swap_maps, &x,
				      &ctx);
	if (err) {
		if (local != MPI_COMM_NULL)
			PMPI_Comm_free(&local);
		free(remote);
		return err;
	}
	err = michi_inter_make(lc, remote, ntheirs, lc->rank, ctx, local, newcomm, fname);
	free(remote);
	if (!err)
		michi_comm_get(*newcomm)->dyn_order = low ? 1 : 2;
	return err;
}

int michi_dyn_members(struct michi_comm *lc, int local_leader, MPI_Comm peer_comm,
		      int remote_leader, int tag, int *remote, int nremote, const char *fname)
{
	struct dyn_rec me, *mine = NULL, *theirs;
	michi_status_t st;
	int err, i, lead = lc->rank == local_leader;

	st = dyn_my_rec(&me);
	if (st < 0)
		return michi_mpi_err_status(lc, st, fname);
	theirs = malloc(sizeof(*theirs) * (size_t)nremote);
	if (lead)
		mine = malloc(sizeof(*mine) * (size_t)lc->size);
	if (!theirs || (lead && !mine)) {
		free(theirs);
		free(mine);
		return michi_err_nomem(lc, fname);
	}
	err = PMPI_Gather(&me, (int)sizeof(me), MPI_BYTE, mine, (int)sizeof(me), MPI_BYTE,
			  local_leader, lc->handle);
	if (!err && lead)
		err = PMPI_Sendrecv(mine, (int)(sizeof(*mine) * (size_t)lc->size), MPI_BYTE,
				    remote_leader, tag, theirs,
				    (int)(sizeof(*theirs) * (size_t)nremote), MPI_BYTE,
				    remote_leader, tag, peer_comm, MPI_STATUS_IGNORE);
	free(mine);
	if (!err)
		err = PMPI_Bcast(theirs, (int)(sizeof(*theirs) * (size_t)nremote), MPI_BYTE,
				 local_leader, lc->handle);
	for (i = 0; !err && i < nremote; i++) {
		theirs[i].host[sizeof(theirs[i].host) - 1] = '\0';
		theirs[i].card[sizeof(theirs[i].card) - 1] = '\0';
		st = dyn_peer_of(&theirs[i], &remote[i]);
		if (st < 0)
			err = michi_mpi_err_status(lc, st, fname);
	}
	free(theirs);
	return err;
}

/* ---- ports ------------------------------------------------------------ */

struct dyn_port {
	struct dyn_port *next;
	int fd;
	char name[MPI_MAX_PORT_NAME];
};
static struct dyn_port *dyn_ports;

/*
 * Port names: "michi-port:<tag>:<host>:<ip:port>,<ip:port>..." (as many
 * addresses of this host's tcp card as fit), tag 32 hex digits.
 */
static michi_status_t dyn_port_open(char *name)
{
	struct michi_job *job = michi_job_get();
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
	socklen_t sl = sizeof(sa);
	char card[DYN_CARD_MAX], *s, *save = NULL;
	uint8_t tag[16];
	struct dyn_port *p;
	size_t n;
	int fd, one = 1, naddr = 0;
	michi_status_t st;

	st = mtmi_peer_card(job, card, sizeof(card));
	if (st < 0)
		return st;
	if (getrandom(tag, sizeof(tag), 0) != (ssize_t)sizeof(tag))
		return michi_err(MICHI_ERR_IO, "getrandom failed for a port's tag");
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return michi_err(MICHI_ERR_IO, "socket: %m");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 64) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
		st = michi_err(MICHI_ERR_IO, "cannot listen for a port: %m");
		close(fd);
		return st;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		close(fd);
		return michi_err(MICHI_ERR_NOMEM, "no memory for a port");
	}
	n = (size_t)snprintf(p->name, sizeof(p->name), "michi-port:");
	michi_hex_encode(tag, 16, p->name + n);
	n += DYN_TAG_LEN;
	n += (size_t)snprintf(p->name + n, sizeof(p->name) - n, ":%.64s:", job->hostname);
	/* the card's addresses with the port's own port number */
	for (s = strtok_r(card, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(s, ':'), *slash, a[80];
		int k;

		if (colon)
			*colon = '\0';
		/* the card's "/prefix" (the tcp device's rails) is not the port's */
		slash = strchr(s, '/');
		if (slash)
			*slash = '\0';
		k = snprintf(a, sizeof(a), "%s%s:%u", naddr ? "," : "", s, ntohs(sa.sin_port));
		if (n + (size_t)k >= sizeof(p->name))
			break;
		memcpy(p->name + n, a, (size_t)k + 1);
		n += (size_t)k;
		naddr++;
	}
	if (!naddr) {
		snprintf(p->name + n, sizeof(p->name) - n, "127.0.0.1:%u", ntohs(sa.sin_port));
	}
	p->fd = fd;
	p->next = dyn_ports;
	dyn_ports = p;
	strcpy(name, p->name);
	return MICHI_OK;
}

static struct dyn_port *dyn_port_find(const char *name)
{
	struct dyn_port *p;

	for (p = dyn_ports; p; p = p->next)
		if (strcmp(p->name, name) == 0)
			return p;
	return NULL;
}

static void dyn_port_close(struct dyn_port *p)
{
	struct dyn_port **pp;

	for (pp = &dyn_ports; *pp != p; pp = &(*pp)->next)
		;
	*pp = p->next;
	close(p->fd);
	free(p);
}

/* Split a port name into tag, host and addresses (in place); 0 or -1. */
static int dyn_port_parse(char *s, char **tag, char **host, char **addrs)
{
	char *c;

	if (strncmp(s, "michi-port:", 11) != 0)
		return -1;
	*tag = s + 11;
	if (strlen(*tag) < DYN_TAG_LEN + 1 || (*tag)[DYN_TAG_LEN] != ':')
		return -1;
	(*tag)[DYN_TAG_LEN] = '\0';
	*host = *tag + DYN_TAG_LEN + 1;
	c = strchr(*host, ':');
	if (!c)
		return -1;
	*c = '\0';
	*addrs = c + 1;
	return **addrs ? 0 : -1;
}

/* The greeting a connector sends: magic and the port's tag. */
struct dyn_hello {
	char magic[10];
	char tag[DYN_TAG_LEN];
};

/*
 * Root of MPI_Comm_accept: the next connection to the port that presents
 * its tag (others are dropped with a warning), within the deadline; with
 * a watched child (spawn's mpirun), its exit ends the wait. Returns the
 * socket, or -1 with why filled.
 */
static int dyn_accept_one(struct dyn_port *p, pid_t watch, double deadline, char *why,
			  size_t wl)
{
	const char *tag = strchr(p->name, ':') + 1;

	for (;;) {
		struct dyn_hello h;
		int fd, r, status;

		if (watch > 0 && waitpid(watch, &status, WNOHANG) == watch) {
			if (WIFEXITED(status))
				snprintf(why, wl, "the launcher of the new processes exited with "
					 "status %d before they connected (its messages above say "
					 "why)", WEXITSTATUS(status));
			else
				snprintf(why, wl, "the launcher of the new processes died of signal "
					 "%d before they connected", WTERMSIG(status));
			return -1;
		}
		r = dyn_wait_fd(p->fd, POLLIN, watch > 0 && michi_wtime() + 0.1 < deadline ?
				michi_wtime() + 0.1 : deadline);
		if (r < 0) {
			snprintf(why, wl, "poll on the port: %s", strerror(errno));
			return -1;
		}
		if (r == 0) {
			if (michi_wtime() > deadline) {
				snprintf(why, wl, "nobody connected within %g s (tunable "
					 "MICHI_DYN_TIMEOUT)", dyn_timeout);
				return -1;
			}
			continue;
		}
		fd = accept4(p->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		memset(&h, 0, sizeof(h));
		if (dyn_swap(fd, NULL, 0, &h, sizeof(h), michi_wtime() + 10.0) ||
		    memcmp(h.magic, DYN_MAGIC, sizeof(DYN_MAGIC)) != 0 ||
		    memcmp(h.tag, tag, DYN_TAG_LEN) != 0) {
			michi_warn("MPI_Comm_accept: a connection to port %.60s... dropped: it did "
				   "not present the port's tag", p->name);
			close(fd);
			continue;
		}
		if (dyn_swap(fd, "OK", 2, NULL, 0, deadline)) {
			close(fd);
			continue;
		}
		return fd;
	}
}

/* Root of MPI_Comm_connect: a socket to the port's owner that it accepted. */
static int dyn_connect_one(const char *port, double deadline, char *why, size_t wl)
{
	char buf[MPI_MAX_PORT_NAME + 1], *tag, *host, *addrs, *s, *save = NULL;
	struct sockaddr_in sa[8];
	int n = 0, i, refused_rounds = 0;

	snprintf(buf, sizeof(buf), "%s", port);
	if (dyn_port_parse(buf, &tag, &host, &addrs) < 0) {
		snprintf(why, wl, "'%.80s' is not a port name of Michi's MPI_Open_port", port);
		return -1;
	}
	for (s = strtok_r(addrs, ",", &save); s && n < 8; s = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(s, ':');

		if (!colon)
			continue;
		*colon = '\0';
		memset(&sa[n], 0, sizeof(sa[n]));
		sa[n].sin_family = AF_INET;
		sa[n].sin_port = htons((uint16_t)atoi(colon + 1));
		if (inet_pton(AF_INET, s, &sa[n].sin_addr) == 1)
			n++;
	}
	/* the same host: loopback first */
	if (n && strcmp(host, michi_hostname()) == 0 && n < 8) {
		memmove(&sa[1], &sa[0], sizeof(sa[0]) * (size_t)n);
		sa[0].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		n++;
	}
	if (!n) {
		snprintf(why, wl, "port name '%.80s' has no address", port);
		return -1;
	}
	for (;;) {
		int refused = 0;

		for (i = 0; i < n; i++) {
			struct dyn_hello h;
			char ok[2];
			int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), e = 0;
			socklen_t el = sizeof(e);
			double until = michi_wtime() + 5.0;

			if (fd < 0)
				break;
			/* an address that does not answer costs at most 5 s */
			if (connect(fd, (struct sockaddr *)&sa[i], sizeof(sa[i])) != 0 &&
			    (errno != EINPROGRESS ||
			     dyn_wait_fd(fd, POLLOUT, until < deadline ? until : deadline) != 1 ||
			     getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0 || e)) {
				refused += e == ECONNREFUSED || errno == ECONNREFUSED;
				close(fd);
				continue;
			}
			memcpy(h.magic, DYN_MAGIC, sizeof(DYN_MAGIC));
			memcpy(h.tag, tag, DYN_TAG_LEN);
			errno = 0;
			e = dyn_swap(fd, &h, sizeof(h), ok, 2, deadline);
			if (!e && memcmp(ok, "OK", 2) == 0)
				return fd;
			close(fd);
			if (e == ETIMEDOUT) {
				snprintf(why, wl, "port %.80s on host %s did not accept within %g s "
					 "(tunable MICHI_DYN_TIMEOUT)", port, host, dyn_timeout);
				return -1;
			}
		}
		/* a closed port refuses at once: a few tries cover a listener
		 * that is just being replaced, then the port is gone */
		if (refused == n && ++refused_rounds >= 20) {
			snprintf(why, wl, "no port %.80s on host %s (closed, or its process "
				 "ended)", port, host);
			return -1;
		}
		if (michi_wtime() > deadline) {
			snprintf(why, wl, "cannot reach port %.80s on host %s within %g s", port,
				 host, dyn_timeout);
			return -1;
		}
		usleep(50000);
	}
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
	static const char fname[] = "MPI_Open_port";
	michi_status_t st;

	MICHI_CHECK_INIT(fname);
	if (!port_name)
		return michi_err_null(NULL, fname, "port_name");
	(void)info;
	st = dyn_port_open(port_name);
	if (st < 0)
		return dyn_err(NULL, MPI_ERR_PORT, fname, "(): cannot open a port: %s",
			       michi_err_msg());
	return MPI_SUCCESS;
}

int PMPI_Close_port(const char *port_name)
{
	static const char fname[] = "MPI_Close_port";
	struct dyn_port *p;

	MICHI_CHECK_INIT(fname);
	if (!port_name)
		return michi_err_null(NULL, fname, "port_name");
	p = dyn_port_find(port_name);
	if (!p)
		return dyn_err(NULL, MPI_ERR_PORT, fname, "(port_name=%.80s): not a port this "
			       "process opened (or closed already)", port_name);
	dyn_port_close(p);
	return MPI_SUCCESS;
}

/* The arguments accept, connect and spawn share: an intracommunicator, a
 * root in it, and the new communicator's handle (out, named outname), which
 * reads MPI_COMM_NULL until the call succeeds. */
static int dyn_comm_arg(const char *fname, MPI_Comm comm, int root, MPI_Comm *out,
			const char *outname, struct michi_comm **c)
{
	MICHI_CHECK_INIT(fname);
	*c = michi_comm_get(comm);
	if (!*c)
		return michi_check_comm_slow(comm, fname);
	if ((*c)->local)
		return dyn_err(*c, MPI_ERR_COMM, fname, "(comm): an intercommunicator; accept, "
			       "connect and spawn take an intracommunicator");
	if ((unsigned)root >= (unsigned)(*c)->size)
		return michi_err_rank(*c, fname, "root", root);
	if (!out)
		return michi_err_null(*c, fname, outname);
	*out = MPI_COMM_NULL;
	return MPI_SUCCESS;
}

/* Accept on a port this process opened (root) for lc's group; watch: a
 * launcher whose exit ends the wait (spawn). */
static int dyn_accept(struct michi_comm *lc, const char *port, int root, pid_t watch,
		      const char *fname, MPI_Comm *newcomm)
{
	double deadline = michi_wtime() + dyn_timeout;
	char why[512] = "";
	int fd = -1, ok = 1, err;

	if (lc->rank == root) {
		struct dyn_port *p = dyn_port_find(port);

		if (!p)
			snprintf(why, sizeof(why), "port_name %.80s is not a port that the root "
				 "(rank %d) opened with MPI_Open_port", port, root);
		else
			fd = dyn_accept_one(p, watch, deadline, why, sizeof(why));
		ok = fd >= 0;
	}
	err = PMPI_Bcast(&ok, 1, MPI_INT, root, lc->handle);
	if (!err && !ok) {
		PMPI_Bcast(why, (int)sizeof(why), MPI_CHAR, root, lc->handle);
		return dyn_err(lc, watch > 0 ? MPI_ERR_SPAWN : MPI_ERR_PORT, fname, "(): %s", why);
	}
	if (!err)
		err = dyn_link(lc, root, fd, 1, deadline, fname, newcomm);
	if (fd >= 0)
		close(fd);
	return err;
}

static int dyn_connect(struct michi_comm *lc, const char *port, int root, const char *fname,
		       MPI_Comm *newcomm)
{
	double deadline = michi_wtime() + dyn_timeout;
	char why[512] = "";
	int fd = -1, ok = 1, err;

	if (lc->rank == root) {
		fd = port ? dyn_connect_one(port, deadline, why, sizeof(why)) : -1;
		if (!port)
			snprintf(why, sizeof(why), "port_name is NULL at the root");
		ok = fd >= 0;
	}
	err = PMPI_Bcast(&ok, 1, MPI_INT, root, lc->handle);
	if (!err && !ok) {
		PMPI_Bcast(why, (int)sizeof(why), MPI_CHAR, root, lc->handle);
		return dyn_err(lc, MPI_ERR_PORT, fname, "(): %s", why);
	}
	if (!err)
		err = dyn_link(lc, root, fd, 0, deadline, fname, newcomm);
	if (fd >= 0)
		close(fd);
	return err;
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
		     MPI_Comm *newcomm)
{
	static const char fname[] = "MPI_Comm_accept";
	struct michi_comm *c;
	int err = dyn_comm_arg(fname, comm, root, newcomm, "newcomm", &c);

	if (err)
		return err;
	(void)info;
	return dyn_accept(c, c->rank == root && port_name ? port_name : "", root, 0, fname,
			  newcomm);
}

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
		      MPI_Comm *newcomm)
{
	static const char fname[] = "MPI_Comm_connect";
	struct michi_comm *c;
	int err = dyn_comm_arg(fname, comm, root, newcomm, "newcomm", &c);

	if (err)
		return err;
	(void)info;
	return dyn_connect(c, c->rank == root ? port_name : NULL, root, fname, newcomm);
}

/* ---- join --------------------------------------------------------------- */

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
	static const char fname[] = "MPI_Comm_join";
	struct michi_job *job;
	struct { char magic[10]; uint8_t key[16]; int32_t rank; } me, them;
	int e, low, k;
	struct stat sb;

	MICHI_CHECK_INIT(fname);
	if (!intercomm)
		return michi_err_null(NULL, fname, "intercomm");
	*intercomm = MPI_COMM_NULL;
	if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISSOCK(sb.st_mode))
		return dyn_err(&michi_comm_self, MPI_ERR_ARG, fname, "(fd=%d): not a socket", fd);
	job = michi_job_get();
	/* who comes first in a merge: the lower (job key, rank), both sides
	 * compute it alike */
	memset(&me, 0, sizeof(me));
	memcpy(me.magic, DYN_MAGIC, sizeof(DYN_MAGIC));
	memcpy(me.key, job->key, 16);
	me.rank = job->rank;
	e = dyn_swap(fd, &me, sizeof(me), &them, sizeof(them), michi_wtime() + dyn_timeout);
	if (e)
		return dyn_err(&michi_comm_self, MPI_ERR_OTHER, fname, "(fd=%d): the other "
			       "process did not answer: %s", fd, strerror(e));
	if (memcmp(them.magic, DYN_MAGIC, sizeof(DYN_MAGIC)) != 0)
		return dyn_err(&michi_comm_self, MPI_ERR_OTHER, fname, "(fd=%d): the other end "
			       "is not in MPI_Comm_join of a Michi process", fd);
	k = memcmp(me.key, them.key, 16);
	if (k == 0 && me.rank == them.rank)
		return dyn_err(&michi_comm_self, MPI_ERR_ARG, fname, "(fd=%d): the socket "
			       "leads back to this process", fd);
	low = k < 0 || (k == 0 && me.rank < them.rank);
	return dyn_link(&michi_comm_self, 0, fd, low, michi_wtime() + dyn_timeout, fname,
			intercomm);
}

/* ---- parent, disconnect ------------------------------------------------- */

static MPI_Comm dyn_parent = MPI_COMM_NULL;

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
	MICHI_CHECK_INIT("MPI_Comm_get_parent");
	if (!parent)
		return michi_err_null(NULL, "MPI_Comm_get_parent", "parent");
	*parent = dyn_parent;
	return MPI_SUCCESS;
}

void michi_dyn_comm_freed(MPI_Comm comm)
{
	if (comm == dyn_parent)
		dyn_parent = MPI_COMM_NULL;
}

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
	static const char fname[] = "MPI_Comm_disconnect";
	struct michi_comm *c;
	int err;

	MICHI_CHECK_INIT(fname);
	if (!comm)
		return michi_err_null(NULL, fname, "comm");
	c = michi_comm_get(*comm);
	if (!c)
		return michi_check_comm_slow(*comm, fname);
	if (c == &michi_comm_world || c == &michi_comm_self)
		return dyn_err(c, MPI_ERR_COMM, fname, "(comm=%s): a predefined communicator "
			       "cannot be disconnected", c->name);
	/* MPI: the communication pending on comm completes first, on both
	 * sides; a barrier over it is that, since every send a member made
	 * before it has matched when the other side leaves it */
	err = PMPI_Barrier(*comm);
	if (err)
		return err;
	return PMPI_Comm_free(comm);
}

/* ---- spawn -------------------------------------------------------------- */

/* The launchers this process started, reaped at finalize. */
static pid_t *dyn_children;
static int dyn_nchildren;

/* Michi's mpirun: $MICHI_MPIRUN, else the one installed beside this
 * library (<prefix>/lib/libmpi.so -> <prefix>/bin/mpirun). */
static int dyn_mpirun_path(char *path, size_t len)
{
	const char *e = getenv("MICHI_MPIRUN");
	Dl_info di;

	if (e && *e) {
		snprintf(path, len, "%s", e);
		return access(path, X_OK) == 0 ? 0 : -1;
	}
	if (dladdr((void *)dyn_mpirun_path, &di) && di.dli_fname) {
		char *slash;

		snprintf(path, len, "%s", di.dli_fname);
		slash = strrchr(path, '/');
		if (slash) {
			*slash = '\0';
			slash = strrchr(path, '/');
			if (slash) {
				*slash = '\0';
				if (strlen(path) + 12 < len) {
					strcat(path, "/bin/mpirun");
					if (access(path, X_OK) == 0)
						return 0;
				}
			}
		}
	}
	return -1;
}

static int dyn_info_get(MPI_Info info, const char *key, char *val, int len)
{
	int flag = 0;

	if (info == MPI_INFO_NULL)
		return 0;
	if (PMPI_Info_get(info, key, len - 1, val, &flag) != MPI_SUCCESS)
		return 0;
	return flag;
}

/* Where command runs from: path (the info key "path", a ':' list, else
 * $PATH) for a name without '/', relative names against wdir. 0 and the
 * path, or -1. */
static int dyn_resolve(const char *cmd, const char *wdir, const char *path, char *out,
		       size_t len)
{
	char *list, *dir, *save = NULL;

	if (strchr(cmd, '/')) {
		int k = cmd[0] == '/' || !wdir || !*wdir ? snprintf(out, len, "%s", cmd) :
			snprintf(out, len, "%s/%s", wdir, cmd);

		return k < (int)len && access(out, X_OK) == 0 ? 0 : -1;
	}
	list = strdup(path && *path ? path : getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	if (!list)
		return -1;
	for (dir = strtok_r(list, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		struct stat sb;
		int k = dir[0] != '/' && wdir && *wdir ?
			snprintf(out, len, "%s/%s/%s", wdir, dir, cmd) :
			snprintf(out, len, "%s/%s", *dir ? dir : ".", cmd);

		if (k < (int)len && access(out, X_OK) == 0 && stat(out, &sb) == 0 &&
		    S_ISREG(sb.st_mode)) {
			free(list);
			return 0;
		}
	}
	free(list);
	return -1;
}

struct dyn_argv {
	char **v;
	int n, cap;
};

static int dyn_argv_add(struct dyn_argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		int cap = a->cap ? 2 * a->cap : 32;
		char **v = realloc(a->v, sizeof(char *) * (size_t)cap);

		if (!v)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	if (!(a->v[a->n] = strdup(s)))
		return -1;
	a->v[++a->n] = NULL;
	return 0;
}

static void dyn_argv_free(struct dyn_argv *a)
{
	int i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* The soft key ("1:4,8", "2:8:2"): the largest count it allows that is
 * at most maxprocs, or maxprocs when absent; 0 when it allows none. */
static int dyn_soft(const char *soft, int maxprocs)
{
	char *s = strdup(soft), *t, *save = NULL;
	int best = 0;

	if (!s)
		return maxprocs;
	for (t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int a = 0, b = 0, step = 1, k = sscanf(t, "%d:%d:%d", &a, &b, &step), v;

		if (k == 1)
			b = a;
		if (k < 1 || a < 0 || b < a || step < 1)
			continue;
		for (v = a; v <= b; v += step)
			if (v <= maxprocs && v > best)
				best = v;
	}
	free(s);
	return best;
}

/*
 * The root's part of a spawn: the argv of mpirun for the commands, after
 * checking that each exists. 0, or an MPI error class with why filled.
 */
static int dyn_spawn_argv(int count, char *cmds[], char **argvs[], const int maxprocs[],
			  const MPI_Info infos[], const char *port, struct dyn_argv *a,
			  int *total, char *why, size_t wl)
{
	char mpirun[PATH_MAX], exe[PATH_MAX], host[1024], wdir[PATH_MAX], path[4096], soft[256];
	int i, j, n;

	if (dyn_mpirun_path(mpirun, sizeof(mpirun)) < 0) {
		snprintf(why, wl, "Michi's mpirun is neither beside this library (<prefix>/bin) "
			 "nor named by MICHI_MPIRUN%s%s", getenv("MICHI_MPIRUN") ? ": " : "",
			 getenv("MICHI_MPIRUN") ? getenv("MICHI_MPIRUN") : "");
		return MPI_ERR_SPAWN;
	}
	if (dyn_argv_add(a, mpirun) || dyn_argv_add(a, "-genv") ||
	    dyn_argv_add(a, "MICHI_PARENT_PORT") || dyn_argv_add(a, port))
		goto nomem;
	*total = 0;
	for (i = 0; i < count; i++) {
		MPI_Info in = infos ? infos[i] : MPI_INFO_NULL;
		int have_wdir = dyn_info_get(in, "wdir", wdir, sizeof(wdir));
		int have_path = dyn_info_get(in, "path", path, sizeof(path));

		n = maxprocs[i];
		if (dyn_info_get(in, "soft", soft, sizeof(soft)))
			n = dyn_soft(soft, n);
		if (!cmds[i] || dyn_resolve(cmds[i], have_wdir ? wdir : NULL,
					    have_path ? path : NULL, exe, sizeof(exe)) < 0) {
			snprintf(why, wl, "command %d '%.200s' is not an executable file%s%s%s", i,
				 cmds[i] ? cmds[i] : "(null)",
				 cmds[i] && !strchr(cmds[i], '/') ? " in " : "",
				 cmds[i] && !strchr(cmds[i], '/') ?
				 (have_path ? "the info key path" : "$PATH") : "",
				 have_wdir ? " (wdir given)" : "");
			return MPI_ERR_SPAWN;
		}
		if (n == 0)
			continue;
		if (*total && dyn_argv_add(a, ":"))
			goto nomem;
		if (dyn_argv_add(a, "-n"))
			goto nomem;
		snprintf(soft, sizeof(soft), "%d", n);
		if (dyn_argv_add(a, soft))
			goto nomem;
		if (dyn_info_get(in, "host", host, sizeof(host)) &&
		    (dyn_argv_add(a, "-host") || dyn_argv_add(a, host)))
			goto nomem;
		/* mpirun's -wdir is one for all its commands; each command's own
		 * goes in its environment, and its processes move there in
		 * MPI_Init (michi_dyn_init) */
		if (have_wdir) {
			struct stat sb;

			if (stat(wdir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
				snprintf(why, wl, "info key wdir of command %d: '%.200s' is not a "
					 "directory", i, wdir);
				return MPI_ERR_SPAWN;
			}
			if (dyn_argv_add(a, "-env") || dyn_argv_add(a, "MICHI_SPAWN_WDIR") ||
			    dyn_argv_add(a, wdir))
				goto nomem;
		}
		if (dyn_argv_add(a, exe))
			goto nomem;
		for (j = 0; argvs && argvs[i] && argvs[i][j]; j++)
			if (dyn_argv_add(a, argvs[i][j]))
				goto nomem;
		*total += n;
	}
	return MPI_SUCCESS;
nomem:
	snprintf(why, wl, "out of memory");
	return MPI_ERR_NO_MEM;
}

/* Start mpirun with argv a; its stdin is /dev/null, nothing else of ours
 * leaks into it (the PMI socket above all). */
static pid_t dyn_spawn_start(struct dyn_argv *a, char *why, size_t wl)
{
	static const char *const drop[] = {
		"PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT", "PMI_ID", "MPI_LOCALRANKID",
		"MPI_LOCALNRANKS", "MICHI_HOST_CPUS", "MICHI_PARENT_PORT", "MICHI_SPAWN_WDIR",
		"PMIX_RANK",
		"PMIX_NAMESPACE", "PMI_SPAWNED", NULL,
	};
	pid_t ppid = getpid(), pid;
	int i;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(why, wl, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);

		/* a launcher whose parent died takes its job down (SIGTERM:
		 * mpirun then ends its ranks) */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != ppid)
			_exit(127);
		if (fd >= 0 && fd != 0) {
			dup2(fd, 0);
			close(fd);
		}
#ifdef SYS_close_range
		syscall(SYS_close_range, 3, ~0u, 0);
#else
		for (fd = 3; fd < 1024; fd++)
			close(fd);
#endif
		for (i = 0; drop[i]; i++)
			unsetenv(drop[i]);
		execv(a->v[0], a->v);
		fprintf(stderr, "MPI_Comm_spawn: cannot run %s: %s\n", a->v[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static int dyn_spawn(const char *fname, int count, char *cmds[], char **argvs[],
		     const int maxprocs[], const MPI_Info infos[], int root, MPI_Comm comm,
		     MPI_Comm *intercomm, int errcodes[])
{
	struct michi_comm *c;
	char why[768] = "", port[MPI_MAX_PORT_NAME] = "";
	int err = dyn_comm_arg(fname, comm, root, intercomm, "intercomm", &c);
	int cls = MPI_SUCCESS, total = 0, slots = 0, i, outcome[3];
	struct dyn_argv a = { 0 };
	pid_t pid = -1;

	if (err)
		return err;
	if (c->rank == root) {
		int kind = michi_launcher_kind();

		if (count <= 0) {
			cls = MPI_ERR_ARG;
			snprintf(why, sizeof(why), "count=%d: at least one command", count);
		}
		for (i = 0; !cls && i < count; i++)
			if (!maxprocs || maxprocs[i] < 0) {
				cls = MPI_ERR_ARG;
				snprintf(why, sizeof(why), "maxprocs[%d]=%d: must be >= 0", i,
					 maxprocs ? maxprocs[i] : -1);
			}
		if (!cls && kind == 2) {
			cls = MPI_ERR_SPAWN;
			snprintf(why, sizeof(why), "this job was started by a process manager "
				 "other than Michi's mpirun (MPICH's mpiexec/Hydra, Slurm's srun), "
				 "which cannot start processes for Michi; run it with Michi's "
				 "mpirun, or as a singleton");
		}
		if (!cls && dyn_port_open(port) < 0) {
			cls = MPI_ERR_SPAWN;
			snprintf(why, sizeof(why), "cannot open a port for the new processes: %s",
				 michi_err_msg());
		}
		if (!cls)
			cls = dyn_spawn_argv(count, cmds, argvs, maxprocs, infos, port, &a, &total,
					     why, sizeof(why));
		if (!cls && total == 0) {
			cls = MPI_ERR_SPAWN;
			snprintf(why, sizeof(why), "no process to start (maxprocs and soft allow "
				 "none)");
		}
		if (!cls && (pid = dyn_spawn_start(&a, why, sizeof(why))) < 0)
			cls = MPI_ERR_SPAWN;
		dyn_argv_free(&a);
		for (i = 0; maxprocs && i < count; i++)
			slots += maxprocs[i] > 0 ? maxprocs[i] : 0;
		if (pid > 0) {
			pid_t *nc = realloc(dyn_children, sizeof(pid_t) * (size_t)(dyn_nchildren + 1));

			if (nc) {
				dyn_children = nc;
				dyn_children[dyn_nchildren++] = pid;
			}
		}
	}
	/* the outcome, the processes started and the slots asked for: every
	 * rank fills array_of_errcodes, not the root alone (the root's
	 * maxprocs are the only ones that count, so the others learn how many
	 * entries there are from it), as MPICH and Open MPI do */
	outcome[0] = cls, outcome[1] = total, outcome[2] = slots;
	err = PMPI_Bcast(outcome, 3, MPI_INT, root, c->handle);
	if (err)
		return err;
	cls = outcome[0], total = outcome[1], slots = outcome[2];
	if (cls) {
		struct dyn_port *p = c->rank == root && port[0] ? dyn_port_find(port) : NULL;

		if (p)
			dyn_port_close(p);
		PMPI_Bcast(why, (int)sizeof(why), MPI_CHAR, root, c->handle);
		/* every slot failed: none was started */
		for (i = 0; errcodes && i < slots; i++)
			errcodes[i] = cls;
		return dyn_err(c, cls, fname, "(): %s", why);
	}
	err = dyn_accept(c, port, root, c->rank == root ? pid : 0, fname, intercomm);
	if (c->rank == root) {
		struct dyn_port *p = dyn_port_find(port);

		if (p)
			dyn_port_close(p);
	}
	for (i = 0; errcodes && i < total; i++)
		errcodes[i] = err ? MPI_ERR_SPAWN : MPI_SUCCESS;
	return err;
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
		    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
	char *cmds[1] = { (char *)command };
	char **argvs[1] = { argv };

	return dyn_spawn("MPI_Comm_spawn", 1, cmds, argv ? argvs : NULL, &maxprocs, &info, root,
			 comm, intercomm, array_of_errcodes);
}

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
			     const int array_of_maxprocs[], const MPI_Info array_of_info[],
			     int root, MPI_Comm comm, MPI_Comm *intercomm,
			     int array_of_errcodes[])
{
	return dyn_spawn("MPI_Comm_spawn_multiple", count, array_of_commands, array_of_argv,
			 array_of_maxprocs, array_of_info, root, comm, intercomm,
			 array_of_errcodes);
}

int michi_dyn_init(void)
{
	const char *e = getenv("MICHI_PARENT_PORT");
	char port[MPI_MAX_PORT_NAME];
	int err;

	const char *wdir = getenv("MICHI_SPAWN_WDIR");

	if (!e || !*e)
		return MPI_SUCCESS;
	if (wdir && *wdir && chdir(wdir) != 0)
		return dyn_err(&michi_comm_world, MPI_ERR_SPAWN, "MPI_Init", "(): cannot move to "
			       "the working directory %.200s that MPI_Comm_spawn's info key wdir "
			       "gave: %s", wdir, strerror(errno));
	unsetenv("MICHI_SPAWN_WDIR");
	snprintf(port, sizeof(port), "%s", e);
	/* our own spawns pass theirs explicitly; nothing we start inherits it */
	unsetenv("MICHI_PARENT_PORT");
	err = dyn_connect(&michi_comm_world, port, 0, "MPI_Init", &dyn_parent);
	if (!err)
		snprintf(michi_comm_get(dyn_parent)->name, MPI_MAX_OBJECT_NAME, "MPI_COMM_PARENT");
	return err;
}

void michi_dyn_finalize(void)
{
	int i;

	while (dyn_ports)
		dyn_port_close(dyn_ports);
	/* Wait for the jobs this process spawned to end, making progress
	 * (their finalize may wait for our goodbye), as MPICH's parent job
	 * lasts until its children are done: the launcher dies with us
	 * (PR_SET_PDEATHSIG), and its output goes through our stdout. */
	for (i = 0; i < dyn_nchildren; i++) {
		double deadline = michi_wtime() + dyn_timeout;

		while (waitpid(dyn_children[i], NULL, WNOHANG) == 0) {
			if (michi_wtime() > deadline) {
				michi_warn("MPI_Finalize: the job spawned by launcher pid %d is "
					   "still running after %g s; leaving it",
					   (int)dyn_children[i], dyn_timeout);
				break;
			}
			if (mtmi_progress() <= 0)
				usleep(1000);
		}
	}
	free(dyn_children);
	dyn_children = NULL;
	dyn_nchildren = 0;
}

/* ---- name service ------------------------------------------------------- */

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
	static const char fname[] = "MPI_Publish_name";
	michi_status_t st;

	MICHI_CHECK_INIT(fname);
	if (!service_name)
		return michi_err_null(NULL, fname, "service_name");
	if (!port_name)
		return michi_err_null(NULL, fname, "port_name");
	(void)info;
	st = pmi_publish(service_name, port_name);
	if (st < 0)
		return dyn_err(NULL, MPI_ERR_SERVICE, fname, "(service_name=%.80s): %s",
			       service_name, michi_err_msg());
	return MPI_SUCCESS;
}

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
	static const char fname[] = "MPI_Unpublish_name";
	michi_status_t st;

	MICHI_CHECK_INIT(fname);
	if (!service_name)
		return michi_err_null(NULL, fname, "service_name");
	(void)info;
	(void)port_name;
	st = pmi_unpublish(service_name);
	if (st < 0)
		return dyn_err(NULL, MPI_ERR_SERVICE, fname, "(service_name=%.80s): %s",
			       service_name, michi_err_msg());
	return MPI_SUCCESS;
}

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
	static const char fname[] = "MPI_Lookup_name";
	michi_status_t st;

	MICHI_CHECK_INIT(fname);
	if (!service_name)
		return michi_err_null(NULL, fname, "service_name");
	if (!port_name)
		return michi_err_null(NULL, fname, "port_name");
	(void)info;
	st = pmi_lookup(service_name, port_name, MPI_MAX_PORT_NAME);
	if (st < 0)
		return dyn_err(NULL, MPI_ERR_NAME, fname, "(service_name=%.80s): %s",
			       service_name, michi_err_msg());
	return MPI_SUCCESS;
}
