/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_rtt.c: the smallest round-trip time the kernel has
 * measured on a TCP socket (TCP_INFO's tcpi_min_rtt, Linux 4.6 and
 * later). Apart from the rest of the device because glibc's
 * <netinet/tcp.h> has no tcpi_min_rtt and cannot be included with
 * <linux/tcp.h>, which has it.
 */
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

#include "tcp_rtt.h"

double tcp_sock_min_rtt(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
	    len < offsetof(struct tcp_info, tcpi_min_rtt) + sizeof(ti.tcpi_min_rtt) ||
	    ti.tcpi_min_rtt == 0 || ti.tcpi_min_rtt == ~0u)
		return 0;
	return ti.tcpi_min_rtt * 1e-6;
}
