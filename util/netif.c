/* SPDX-License-Identifier: MIT */
/*
 * util/netif.c: interface selection of the tcp device, which mpirun also
 * uses to order the addresses it gives remote proxies (see netif.h). Linked into both through libmichiutil, so the tunable is
 * declared here once.
 */
#include "config.h"
#include "michi.h"
#include "netif.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *netif_spec = "";
MICHI_TUNABLE(netif_spec, "tcp_if", MICHI_T_STRING, "", MICHI_LEVEL_USER,
	      "interfaces for the ranks' traffic between hosts (tcp device): comma list of "
	      "names (eth0) or CIDR (10.0.0.0/8); default: all but loopback, link-local "
	      "and container bridges");

int michi_netif_forced(void)
{
	return netif_spec && *netif_spec;
}

const char *michi_netif_spec(void)
{
	return netif_spec ? netif_spec : "";
}

int michi_netif_is_loopback(struct in_addr a)
{
	return (ntohl(a.s_addr) >> 24) == 127;
}

static int netif_is_bridge(const char *name)
{
	static const char *const prefixes[] = { "docker", "br-", "virbr", "cni", "veth",
						"flannel", "podman" };
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

/* Does one item of the list (a name or a CIDR block) select this address? */
static int netif_item_match(const char *item, size_t len, const char *name, struct in_addr a)
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

int michi_netif_selected(const char *name, struct in_addr a, unsigned flags)
{
	const char *s = netif_spec, *comma;

	if (!michi_netif_forced()) {
		uint32_t h = ntohl(a.s_addr);

		if ((flags & IFF_LOOPBACK) || michi_netif_is_loopback(a))
			return 0;
		if ((h >> 16) == ((169u << 8) | 254u))
			return 0;
		return !netif_is_bridge(name);
	}
	for (;;) {
		comma = strchr(s, ',');
		if (netif_item_match(s, comma ? (size_t)(comma - s) : strlen(s), name, a))
			return 1;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

int michi_netif_list(struct in_addr *out, int *prefix, char (*names)[16], int max,
		     char *seen, size_t seenlen)
{
	struct ifaddrs *ifa, *i;
	size_t sl = 0;
	int count = 0;

	if (seen && seenlen)
		seen[0] = '\0';
	if (getifaddrs(&ifa) != 0)
		return -1;
	for (i = ifa; i; i = i->ifa_next) {
		struct in_addr a;
		char ip[INET_ADDRSTRLEN];

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
			continue;
		a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
		inet_ntop(AF_INET, &a, ip, sizeof(ip));
		if (seen && sl < seenlen)
			sl += (size_t)snprintf(seen + sl, seenlen - sl, "%s%s %s",
					       sl ? ", " : "", i->ifa_name, ip);
		if (count < max && michi_netif_selected(i->ifa_name, a, i->ifa_flags)) {
			if (prefix) {
				uint32_t m = i->ifa_netmask ?
					ntohl(((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr) : 0;
				int bits = 0;

				while (bits < 32 && (m & (0x80000000u >> bits)))
					bits++;
				prefix[count] = bits;
			}
			if (names)
				snprintf(names[count], 16, "%s", i->ifa_name);
			out[count++] = a;
		}
	}
	freeifaddrs(ifa);
	return count;
}
