/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_iface.c: which local IPv4 addresses this rank
 * advertises in its business card.
 *
 * The choice is util/netif.c's, whose one knob is MICHI_TCP_IF: a comma
 * list of interface names or CIDR blocks, or by default every up IPv4
 * address but loopback, link-local and bridges. When
 * every rank runs on this host, loopback alone is advertised: it is the
 * fastest path and reaches everyone. Connectors never use a loopback
 * address from a card of a rank on another host (tcp_conn.c).
 */
#include "config.h"
#include "tcp.h"
#include "netif.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tcp_iface_forced(void)
{
	return michi_netif_forced();
}

int tcp_iface_is_loopback(struct in_addr a)
{
	return michi_netif_is_loopback(a);
}

/* Write "addr:port[,addr:port...]" for the business card. */
michi_status_t tcp_iface_card(uint16_t port, int all_local, char *card, size_t len)
{
	struct in_addr addrs[TCP_MAX_ADDRS];
	char seen[256], ip[INET_ADDRSTRLEN];
	size_t n = 0;
	int count, k;

	card[0] = '\0';
	if (!tcp_iface_forced() && all_local) {
		snprintf(card, len, "127.0.0.1:%u", port);
		return MICHI_OK;
	}
	count = michi_netif_list(addrs, TCP_MAX_ADDRS, seen, sizeof(seen));
	if (count < 0)
		return michi_err(MICHI_ERR_IO, "tcp: cannot list network interfaces: %m");
	for (k = 0; k < count; k++) {
		inet_ntop(AF_INET, &addrs[k], ip, sizeof(ip));
		n += (size_t)snprintf(card + n, n < len ? len - n : 0, "%s%s:%u",
				      k ? "," : "", ip, port);
	}
	if (n >= len)
		return michi_err(MICHI_ERR_INTERN, "tcp: business card longer than %zu bytes", len);
	if (count)
		return MICHI_OK;
	if (tcp_iface_forced())
		return michi_err(MICHI_ERR_INVAL,
				 "MICHI_TCP_IF=%s selects no up IPv4 interface on %s (have: %s)",
				 michi_netif_spec(), michi_hostname(), seen[0] ? seen : "none");
	michi_warn("tcp: no usable network interface on %s (have: %s); advertising "
		   "127.0.0.1, reachable from this host only", michi_hostname(), seen);
	snprintf(card, len, "127.0.0.1:%u", port);
	return MICHI_OK;
}

/* Listen on loopback only when nobody elsewhere needs to reach us. */
michi_status_t tcp_iface_bind_addr(int all_local, struct in_addr *addr)
{
	addr->s_addr = htonl(!tcp_iface_forced() && all_local ? INADDR_LOOPBACK : INADDR_ANY);
	return MICHI_OK;
}
