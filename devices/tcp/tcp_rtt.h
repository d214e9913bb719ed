/* SPDX-License-Identifier: MIT */
/* devices/tcp/tcp_rtt.h: the kernel's smallest round trip on a socket. */
#ifndef MICHI_TCP_RTT_H
#define MICHI_TCP_RTT_H

/* seconds; 0 when the kernel does not say (no sample yet, old kernel) */
double tcp_sock_min_rtt(int fd);

#endif
