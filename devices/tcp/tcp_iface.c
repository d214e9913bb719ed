/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_iface.c: which local IPv4 addresses this rank
 * advertises in its business card.
 *
 * One knob, tcp_if (MICHI_TCP_IF, shared with the launcher): a comma list
 * of interface names (eth0) or CIDR blocks (10.0.0.0/8). Without it,
 * every up IPv4 address except loopback, link-local (169.254/16) and
 * container bridges, whose addresses mean nothing on another host. When
 * every rank runs on this host, loopback alone is advertised: it is the
 * fastest path and reaches everyone. Connectors never use a loopback
 * address from a card of a rank on another host (tcp_conn.c).
 */
#include "config.h"
#include "tcp.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *tcp_if = "";
MICHI_TUNABLE(tcp_if, "tcp_if", MICHI_T_STRING, "", MICHI_LEVEL_USER,
	      "interfaces for tcp: comma list of names (eth0) or CIDR (10.0.0.0/8); "
	      "default: all but loopback, link-local and container bridges");

int tcp_iface_forced(void)
{
	return tcp_if && *tcp_if;
}

int tcp_iface_is_loopback(struct in_addr a)
{
	return (ntohl(a.s_addr) >> 24) == 127;
}

static int tcp_iface_is_bridge(const char *name)
{
	static const char *const prefixes[] = { "docker", "br-", "virbr", "cni", "veth",
						"flannel", "podman" };
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

/* Does one item of tcp_if (a name or a CIDR block) select this address? */
static int tcp_iface_item_match(const char *item, size_t len, const char *name,
				struct in_addr a)
{
	char buf[64];
	const char *slash;
	struct in_addr net;
	int bits = 32;
	uint32_t mask;

	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, item, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	if (slash) {
		bits = atoi(slash + 1);
		buf[slash - buf] = '\0';
		if (bits < 0 || bits > 32)
			return 0;
	}
	if (inet_pton(AF_INET, buf, &net) != 1)
		return !slash && strcmp(buf, name) == 0;
	mask = bits ? htonl(~0u << (32 - bits)) : 0;
	return (a.s_addr & mask) == (net.s_addr & mask);
}

static int tcp_iface_selected(const char *name, struct in_addr a, unsigned flags)
{
	const char *s = tcp_if, *comma;

	if (!tcp_iface_forced()) {
		uint32_t h = ntohl(a.s_addr);

		if ((flags & IFF_LOOPBACK) || tcp_iface_is_loopback(a))
			return 0;
		if ((h >> 16) == ((169u << 8) | 254u))
			return 0;
		return !tcp_iface_is_bridge(name);
	}
	for (;;) {
		comma = strchr(s, ',');
		if (tcp_iface_item_match(s, comma ? (size_t)(comma - s) : strlen(s), name, a))
			return 1;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

/* Write "addr:port[,addr:port...]" for the business card. */
michi_status_t tcp_iface_card(uint16_t port, int all_local, char *card, size_t len)
{
	struct ifaddrs *ifa, *i;
	char seen[256] = "";
	size_t n = 0, sl = 0;
	int count = 0;

	card[0] = '\0';
	if (!tcp_iface_forced() && all_local) {
		snprintf(card, len, "127.0.0.1:%u", port);
		return MICHI_OK;
	}
	if (getifaddrs(&ifa) != 0)
		return michi_err(MICHI_ERR_IO, "tcp: cannot list network interfaces: %m");
	for (i = ifa; i && count < TCP_MAX_ADDRS; i = i->ifa_next) {
		struct in_addr a;
		char ip[INET_ADDRSTRLEN];

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
			continue;
		a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
		inet_ntop(AF_INET, &a, ip, sizeof(ip));
		if (sl < sizeof(seen))
			sl += (size_t)snprintf(seen + sl, sizeof(seen) - sl, "%s%s %s",
					       sl ? ", " : "", i->ifa_name, ip);
		if (!tcp_iface_selected(i->ifa_name, a, i->ifa_flags))
			continue;
		n += (size_t)snprintf(card + n, n < len ? len - n : 0, "%s%s:%u",
				      count ? "," : "", ip, port);
		count++;
	}
	freeifaddrs(ifa);
	if (n >= len)
		return michi_err(MICHI_ERR_INTERN, "tcp: business card longer than %zu bytes", len);
	if (count)
		return MICHI_OK;
	if (tcp_iface_forced())
		return michi_err(MICHI_ERR_INVAL,
				 "MICHI_TCP_IF=%s selects no up IPv4 interface on %s (have: %s)",
				 tcp_if, michi_hostname(), seen[0] ? seen : "none");
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
