/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_iface.c: which local IPv4 addresses this rank
 * advertises in its business card.
 *
 * The choice is util/netif.c's, whose one knob is MICHI_TCP_IF: a comma
 * list of interface names or CIDR blocks, or by default every up IPv4
 * address but loopback, link-local and bridges. Each address goes with
 * its prefix length ("a.b.c.d/len:port"), from which a peer pair works
 * out the networks both are on, its rails (tcp_stripe.c). When
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

/* One address of a card, "a.b.c.d[/len]:port": 1 when it parses (a
 * missing /len is 32). */
int tcp_iface_parse(const char *s, struct sockaddr_in *sa, int *prefix)
{
	char ip[INET_ADDRSTRLEN + 4], *slash, *end;
	const char *colon = strrchr(s, ':');
	long port, pre = 32;

	if (!colon || (size_t)(colon - s) >= sizeof(ip))
		return 0;
	memcpy(ip, s, (size_t)(colon - s));
	ip[colon - s] = '\0';
	slash = strchr(ip, '/');
	if (slash) {
		*slash = '\0';
		pre = strtol(slash + 1, &end, 10);
		if (end == slash + 1 || *end || pre < 0 || pre > 32)
			return 0;
	}
	port = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || port <= 0 || port > 65535)
		return 0;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, ip, &sa->sin_addr) != 1)
		return 0;
	*prefix = (int)pre;
	return 1;
}

/* Write "addr/len:port[,addr/len:port...]" for the business card; keep
 * the addresses for the rails. */
michi_status_t tcp_iface_card(uint16_t port, int all_local, char *card, size_t len)
{
	char seen[256], ip[INET_ADDRSTRLEN];
	size_t n = 0;
	int count, k;

	card[0] = '\0';
	tcp.nlocal = 0;
	if (!tcp_iface_forced() && all_local) {
		snprintf(card, len, "127.0.0.1/8:%u", port);
		return MICHI_OK;
	}
	count = michi_netif_list(tcp.local, tcp.local_prefix, tcp.local_if, TCP_MAX_ADDRS,
				 seen, sizeof(seen));
	if (count < 0)
		return michi_err(MICHI_ERR_IO, "tcp: cannot list network interfaces: %m");
	tcp.nlocal = count;
	for (k = 0; k < count; k++) {
		inet_ntop(AF_INET, &tcp.local[k], ip, sizeof(ip));
		n += (size_t)snprintf(card + n, n < len ? len - n : 0, "%s%s/%d:%u",
				      k ? "," : "", ip, tcp.local_prefix[k], port);
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
	snprintf(card, len, "127.0.0.1/8:%u", port);
	return MICHI_OK;
}

/* Listen on loopback only when nobody elsewhere needs to reach us. */
michi_status_t tcp_iface_bind_addr(int all_local, struct in_addr *addr)
{
	addr->s_addr = htonl(!tcp_iface_forced() && all_local ? INADDR_LOOPBACK : INADDR_ANY);
	return MICHI_OK;
}
