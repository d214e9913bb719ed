/* SPDX-License-Identifier: MIT */
/*
 * devices/fast.h: the devices' inline fast paths, as data for device.h.
 *
 * Most devices need nothing here: MTMI reaches them through their ops
 * table (devices/devices.def is the one list of devices). A device whose
 * send must cost no call (docs/design.md §2) adds its header here and names
 * itself in one of the slots below; device.h compiles the slots into
 * michi_dev_send(), the in-place frames and michi_tag_send/recv():
 *
 *   MICHI_FAST_SEND_1, _2   byte devices tried in this order by
 *                           michi_dev_send: <name>_send_fast(peer, iov,
 *                           iovcnt, cookie) when d == &michi_device_<name>
 *   MICHI_FAST_FRAMES       the device with in-place frames
 *                           (MICHI_DEV_FRAMES): <name>_frame_begin, _end,
 *                           _wake, asked for every peer
 *   MICHI_FAST_TAG_1, _2    matching devices: <name>_send_fast(peer, buf,
 *                           len, tag, ctx) and <name>_recv_fast(peer, buf,
 *                           len, tag, ignore, ctx) when michi_tag_inline
 *                           is <name>_TAG_INLINE (the device's tag_inline)
 *
 * tcp is tried first: a caller that passes &michi_device_tcp gets its
 * path alone (MTMI's shm sends go in place; shm's send is its fallback).
 */
#ifndef MICHI_DEVICES_FAST_H
#define MICHI_DEVICES_FAST_H

#include "tcp/tcp_fast.h"
#include "shm/shm_fast.h"
#define MICHI_FAST_SEND_1 tcp
#define MICHI_FAST_SEND_2 shm
#define MICHI_FAST_FRAMES shm

/* The values of michi_tag_inline (0 is MICHI_TAG_INLINE_NONE): mpi/'s
 * native point-to-point is compiled once per value. */
#define MICHI_TAG_INLINE_UCX 1
#define MICHI_TAG_INLINE_OFI 2
#ifdef HAVE_UCX
#include "ucx/ucx_fast.h"
#define ucx_TAG_INLINE MICHI_TAG_INLINE_UCX
#define MICHI_FAST_TAG_1 ucx
#endif
#ifdef HAVE_OFI
#include "ofi/ofi_fast.h"
#define ofi_TAG_INLINE MICHI_TAG_INLINE_OFI
#define MICHI_FAST_TAG_2 ofi
#endif

#endif
