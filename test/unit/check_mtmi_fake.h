/* SPDX-License-Identifier: MIT */
/*
 * test/unit/check_mtmi_fake.h: a loopback byte device for MTMI's unit
 * tests. Every frame sent to peer p comes back to this process as a frame
 * from p, through the same upcalls a real device makes, from
 * michi_devices_progress(). Knobs make it hold frames, split header and
 * payload over two progress calls, queue sends (MICHI_INPROGRESS, payload
 * read only at delivery) and fail a peer.
 */
#ifndef CHECK_MTMI_FAKE_H
#define CHECK_MTMI_FAKE_H

#include "device.h"
#include "mtmi.h"
#include "mtmi_hdr.h"

extern int fake_hold;          /* progress delivers nothing */
extern int fake_split;         /* header and payload in separate progress calls */
extern int fake_inprogress;    /* payload frames: send returns MICHI_INPROGRESS */
extern unsigned fake_sent[16]; /* frames sent, by mtmi_frame_type */
extern uint64_t fake_last_len[16]; /* payload length of the last frame of each type */
extern unsigned fake_blocks;   /* michi_devices_block() calls */

void fake_setup(int nranks, size_t eager_limit);
void fake_teardown(void);
size_t fake_queued(void);
/* progress until no frame is queued (bounded); returns rounds used */
int fake_drain(void);
/* progress until r completes (bounded); returns r->done */
int fake_wait(struct mtmi_req *r);
/* peer's connection breaks: its queued frames vanish, then the upcall */
void fake_fail(int peer);

#endif
