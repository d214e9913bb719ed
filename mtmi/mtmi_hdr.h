/* SPDX-License-Identifier: MIT */
/*
 * mtmi/mtmi_hdr.h: the wire header of MTMI's own-queue engine.
 *
 * Every frame a byte device carries starts with this 48-byte header. The
 * device reads only `len`; the rest is MTMI's protocol: the frame type,
 * the matching triple (ctx, src_rank, tag), a per-peer sequence number
 * that every frame to a peer takes (so a lost or reordered frame is
 * noticed), and two 64-bit ids naming the requests a rendezvous, an
 * acknowledgement or a cancel refers to. Ids are request addresses: both
 * ends belong to one job, authenticated by the device's handshake.
 */
#ifndef MICHI_MTMI_HDR_H
#define MICHI_MTMI_HDR_H

#include <stdint.h>

#include "device.h"

enum mtmi_frame_type {
	MTMI_F_EAGER = 1,      /* payload is the message */
	MTMI_F_EAGER_SYNC,     /* same, sender waits for SYNC_ACK (sid) */
	MTMI_F_RTS,            /* rendezvous offer: aux = message size, sid; over a
				* device that can pull, an 8-byte payload with
				* the sender's buffer address */
	MTMI_F_CTS,            /* receiver matched: sid, aux = rid, size = bytes wanted */
	MTMI_F_DATA,           /* rendezvous payload: aux = rid */
	MTMI_F_SYNC_ACK,       /* an EAGER_SYNC message matched: sid */
	MTMI_F_CANCEL_REQ,     /* withdraw message aux (its seq) of request sid */
	MTMI_F_CANCEL_ACK,     /* flags = 1 withdrawn, 0 too late: sid */
	MTMI_F_FIN,            /* receiver pulled the RTS's data itself: sid,
				* size = bytes taken; flags = 1: the part it
				* pulled after a PUSH failed */
	MTMI_F_PUSH,           /* receiver pulls the first part, asks the sender
				* to write the rest: sid, aux = where (receiver's
				* address), size = bytes, off = from where */
	MTMI_F_PUSHED,         /* sender wrote it (flags 0) or could not (1): sid */
};

struct mtmi_hdr {
	uint64_t len;          /* payload bytes: the only field devices read */
	uint8_t type;          /* enum mtmi_frame_type */
	uint8_t flags;
	uint16_t rsvd;
	uint32_t seq;          /* per-peer frame number, from 0 */
	union {
		struct {
			uint32_t ctx;
			int32_t src_rank;
		};
		uint64_t size;     /* CTS: bytes the receiver takes */
	};
	union {
		struct {
			int32_t tag;
			uint32_t rsvd2;
		};
		uint64_t off;      /* PUSH: offset in the send buffer */
	};
	uint64_t sid;          /* sender's request */
	uint64_t aux;          /* RTS: message size; CTS/DATA: receiver's request;
				* CANCEL_REQ: seq of the message to withdraw */
};

_Static_assert(sizeof(struct mtmi_hdr) == MICHI_FRAME_HDR_SIZE,
	       "mtmi header fills exactly the device frame header");

#endif
