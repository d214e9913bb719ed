/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_dyn.c: peers from other jobs (MPI-2 dynamic processes).
 *
 * MPI_Comm_connect/accept, MPI_Comm_spawn and MPI_Comm_join join two
 * jobs, each with its own 128-bit key. The MPI layer (mpi/comm/dynproc.c)
 * swaps every member's key, rank and tcp card over the port's socket and
 * hands them here: each such process becomes one more peer index above
 * the world's (tcp_dyn_add), and from then on its hello is admitted.
 *
 * The handshake stays what it is (tcp.h): the connector sends its own
 * job's key and its own rank there. The acceptor admits a hello whose key
 * is its job's (a rank of the world), or whose (key, rank) pair is a peer
 * added here; anything else is a stranger and is refused as before, so a
 * connected pair of jobs talks and a third process still cannot. The
 * reply carries the acceptor's rank in its own job, which the connector
 * checks against the rank it was told (tcp_peer_wire_rank).
 *
 * Simultaneous connects are settled as within a job, "the lower one's
 * connection wins", over a total order of (job key, rank) that both sides
 * compute alike (tcp_peer_above). Rail connections are not opened to such peers.
 *
 * A process that had no tcp device (a singleton, a job on one host) starts
 * one here (tcp_dyn_start), listening on every interface so that a job on
 * another host can reach it.
 */
#include "config.h"
#include "tcp.h"

#include <stdlib.h>
#include <string.h>

/* Index of the peer added for rank `rank` of the job with key `key`, or -1. */
int tcp_dyn_find(const uint8_t key[16], int rank)
{
	int i;

	for (i = tcp.job ? tcp.job->size : 0; i < tcp.size; i++) {
		const struct tcp_peer *p = &tcp.peers[i];

		if (p->dyn && p->dyn_rank == rank && memcmp(p->dyn_key, key, 16) == 0)
			return i;
	}
	return -1;
}

/* The rank peer's hellos and replies carry: its rank in its own job. */
int tcp_peer_wire_rank(int peer)
{
	const struct tcp_peer *p = &tcp.peers[peer];

	return p->dyn ? p->dyn_rank : peer;
}

/* 1 when peer comes after this process in the order that settles a
 * simultaneous connect: world ranks by rank, other jobs by key first. */
int tcp_peer_above(int peer)
{
	const struct tcp_peer *p = &tcp.peers[peer];
	int k;

	if (!p->dyn)
		return peer > tcp.rank;
	k = memcmp(p->dyn_key, tcp.job->key, 16);
	return k > 0 || (k == 0 && p->dyn_rank > tcp.rank);
}

michi_status_t tcp_dyn_start(struct michi_job *job)
{
	if (tcp.inited)
		return MICHI_OK;
	/* every interface: the other job may run on another host */
	return tcp_open(job, 0, 0);
}

michi_status_t tcp_dyn_card(char *card, size_t len)
{
	if (!tcp.inited)
		return michi_err(MICHI_ERR_INVAL, "tcp: no card before the device started");
	return tcp_iface_card(tcp.port, tcp.all_local, card, len);
}

michi_status_t tcp_dyn_add(int index, const uint8_t key[16], int rank, const char *host,
			   const char *card)
{
	struct tcp_peer *p;
	int i;

	if (index >= tcp.size) {
		struct tcp_peer *np = realloc(tcp.peers, (size_t)(index + 1) * sizeof(*np));
		int *nf;

		if (!np)
			return michi_err(MICHI_ERR_NOMEM, "tcp: no memory for peer %d", index);
		tcp.peers = np;
		nf = realloc(tcp_fast_fd, (size_t)(index + 1) * sizeof(*nf));
		if (!nf)
			return michi_err(MICHI_ERR_NOMEM, "tcp: no memory for peer %d", index);
		tcp_fast_fd = nf;
		for (i = tcp.size; i <= index; i++) {
			memset(&tcp.peers[i], 0, sizeof(tcp.peers[i]));
			tcp_fast_fd[i] = -1;
		}
		tcp.size = index + 1;
	}
	p = &tcp.peers[index];
	p->dyn_card = strdup(card);
	p->dyn_host = strdup(host);
	if (!p->dyn_card || !p->dyn_host) {
		free(p->dyn_card);
		free(p->dyn_host);
		p->dyn_card = p->dyn_host = NULL;
		return michi_err(MICHI_ERR_NOMEM, "tcp: no memory for peer %d", index);
	}
	memcpy(p->dyn_key, key, 16);
	p->dyn_rank = rank;
	p->dyn = 1;
	p->stripe_off = 1;
	michi_debug("tcp: peer %d is rank %d of another job on %s (%s)", index, rank, host, card);
	return MICHI_OK;
}

void tcp_dyn_free(void)
{
	int i;

	for (i = 0; i < tcp.size; i++) {
		free(tcp.peers[i].dyn_card);
		free(tcp.peers[i].dyn_host);
	}
}
