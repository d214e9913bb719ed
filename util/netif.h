/* SPDX-License-Identifier: MIT */
/*
 * util/netif.h: which local IPv4 interfaces Michi uses for traffic between
 * ranks on different hosts. One knob, tcp_if (MICHI_TCP_IF), chooses the
 * addresses in a rank's business card (tcp device). mpirun only orders
 * its own addresses by it: remote proxies try all of them, since the
 * launch host need not be on the ranks' network.
 */
#ifndef MICHI_NETIF_H
#define MICHI_NETIF_H

#include <netinet/in.h>
#include <stddef.h>

/* 1 when MICHI_TCP_IF names interfaces or CIDR blocks. */
int michi_netif_forced(void);
const char *michi_netif_spec(void);
int michi_netif_is_loopback(struct in_addr a);
/*
 * Is this up IPv4 address selected? With MICHI_TCP_IF: when its interface
 * name or a CIDR block of the list matches. Without: every address but
 * loopback, link-local (169.254/16) and container bridges (docker*, br-*,
 * virbr*, cni*, veth*, ...), whose addresses mean nothing on another host.
 */
int michi_netif_selected(const char *ifname, struct in_addr a, unsigned ifflags);
/*
 * The selected addresses of this host, in interface order: writes up to
 * max of them and returns how many, or -1 (errno set) when the interfaces
 * cannot be listed. prefix (may be NULL) gets each one's prefix length,
 * names (may be NULL) its interface's name (IF_NAMESIZE bytes each). seen
 * (may be NULL) gets "name addr, ..." of every up IPv4 address, for
 * messages.
 */
int michi_netif_list(struct in_addr *out, int *prefix, char (*names)[16], int max,
		     char *seen, size_t seenlen);

#endif
