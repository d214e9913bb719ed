/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_fast.h: the tcp device's send fast path, inline.
 *
 * docs/design.md asks that a small message reach its device with no function
 * pointer when one device serves the peer: devices/device.h's
 * michi_dev_send() inlines this for tcp peers. The path is one sendmsg()
 * of header and payload straight from the caller's buffers, taken when the
 * connection is up and nothing is queued (tcp_fast_fd[peer] >= 0);
 * everything else is out of line in tcp_send.c.
 */
#ifndef MICHI_TCP_FAST_H
#define MICHI_TCP_FAST_H

#include <errno.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "michi.h"

/* hidden: device.h's inline send compares with its address, which must
 * not go through the GOT */
extern struct michi_device michi_device_tcp MICHI_HIDDEN;

/* Per world rank: the socket when up with an empty queue, else -1. */
extern int *tcp_fast_fd MICHI_HIDDEN;
/* A message header whose unused fields stay zero, so a send writes only
 * the iovec fields. sendmsg() reads it before returning; with
 * MPI_THREAD_MULTIPLE this must become per thread. */
extern struct msghdr tcp_fast_msg MICHI_HIDDEN;

michi_status_t tcp_send_slow(int peer, const struct iovec *iov, int iovcnt, void *cookie)
	__attribute__((noinline));
michi_status_t tcp_send_partial(int peer, const struct iovec *iov, int iovcnt, void *cookie,
				ssize_t n) __attribute__((noinline, cold));

/* sendmsg(2) without libc's wrapper (its cancellation bookkeeping is
 * most of the cost of a small send's path) where the system call
 * convention is known; errno as libc would set it. */
static inline __attribute__((always_inline)) ssize_t
tcp_sendmsg(int fd, const struct msghdr *m, int flags)
{
#if defined(__x86_64__) && defined(__linux__)
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_sendmsg), "D"((long)fd), "S"(m), "d"((long)flags)
			 : "rcx", "r11", "memory");
	if (unlikely(ret < 0)) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
#else
	return sendmsg(fd, m, flags);
#endif
}

static inline __attribute__((always_inline)) michi_status_t tcp_send_fast(int peer, const struct iovec *iov, int iovcnt,
					   void *cookie)
{
	int fd = tcp_fast_fd[peer];
	size_t total;
	ssize_t n;

	if (unlikely(fd < 0))
		return tcp_send_slow(peer, iov, iovcnt, cookie);
	tcp_fast_msg.msg_iov = (struct iovec *)iov;
	tcp_fast_msg.msg_iovlen = (size_t)iovcnt;
	/* the frame is the 48-byte header plus the length its first word says */
	total = iov[0].iov_len + *(const uint64_t *)iov[0].iov_base;
	/* MSG_NOSIGNAL: a closed peer gives EPIPE, not SIGPIPE */
	n = tcp_sendmsg(fd, &tcp_fast_msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (likely((size_t)n == total))
		return MICHI_OK;
	return tcp_send_partial(peer, iov, iovcnt, cookie, n);
}

#endif
