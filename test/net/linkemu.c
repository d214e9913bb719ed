// SPDX-License-Identifier: MIT
/*
 * test/net/linkemu.c: a user-space WAN link emulator for the grid tests.
 *
 * The kernels Michi is tested on have no netem and no fq, so delay must be
 * added in user space (GRID.md section 0). One linkemu process carries the
 * frames of one or more paths; a path is a pair of TAP devices, A and B,
 * which it creates in two network namespaces. Each direction (ab: read from
 * A, written to B; ba: the reverse) is a FIFO with a one-way propagation
 * delay, a serialization rate, a drop-tail limit on the frames still being
 * serialized and an optional seeded random loss:
 *
 *   departure = max(arrival, previous departure) + 8 * wire bytes / rate
 *   delivery  = max(departure + delay, previous delivery)      (no reorder)
 *
 * in integer nanoseconds on CLOCK_MONOTONIC. Frames are read straight into
 * a per-direction byte ring allocated at setup (grown only by a `set` that
 * needs more), so nothing is allocated per frame. The event loop waits in
 * epoll_pwait2 with a nanosecond timeout and a timer slack of 1 ns until a
 * little before the earliest delivery (by the wake-up lateness it has
 * seen), then polls the TAPs until the delivery is due, so frames leave at
 * their time and never before it.
 *
 * Speed: the TAPs use IFF_VNET_HDR and TUNSETOFFLOAD, so the kernel hands
 * over TCP segmentation-offload superframes (up to 64 KiB) with their
 * virtio_net_hdr, which is passed unchanged to the other TAP; the receiving
 * stack takes them like GRO frames. The rate is charged on the bytes the
 * frame would occupy on an Ethernet of the sender's segment size (each
 * segment repeats the headers), and the packet limit and the counters count
 * those wire frames. A direction with loss turns the offloads of its source
 * TAP off, so loss is drawn per wire frame as on a real link.
 *
 * Interface (agreed with test/net/grid): see usage() below. The stats file
 * gets one CSV line per path and direction every interval:
 *   t_ns,path,dir,bytes,frames,drop_queue,drop_loss,drop_cut,early,max_late_ns
 * A control socket takes set / cut / restore / show / stats / quit lines.
 * `linkemu --ctl SOCK --command 'LINE'` is a client for scripts.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#define TUN_F_USO6 0x40
#endif
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif

/* the virtio_net_hdr every frame carries in front (no mergeable buffers) */
#define LE_VNET_HDR ((int)sizeof(struct virtio_net_hdr))
/* largest read: the header, a 64 KiB GSO frame, Ethernet and VLAN headers */
#define LE_FRAME_MAX (LE_VNET_HDR + 65536 + 64)
/* frames read from one TAP before the loop looks at its deadlines again */
#define LE_READ_BATCH 64
/* the smallest ring of a direction, and the largest that sizing from the
 * parameters makes (--buffer overrides the smallest) */
#define LE_RING_MIN (4u << 20)
#define LE_RING_AUTO_MAX (256u << 20)
/* with rate 0 the ring is sized for this input rate times the delay */
#define LE_RATE0_SIZING 2000000000ull
/* bytes a packet of a packet limit is assumed to take in the ring */
#define LE_PKT_SIZING 1600u
#define LE_CLIENTS_MAX 16
#define LE_LINE_MAX 1024
#define LE_NS 1000000000ull

/* ring record: header, then the bytes read (virtio_net_hdr + frame) */
struct le_rec {
	uint64_t arrive;  /* read from the source TAP */
	uint64_t depart;  /* serialization done */
	uint64_t deliver; /* due at the destination TAP */
	uint64_t due_min; /* arrive + own serialization + delay, for `early` */
	uint32_t len;     /* bytes read */
	uint32_t wire;    /* bytes on the emulated wire */
	uint32_t segs;    /* wire frames */
	uint32_t lost;    /* drawn lost: serialized, then not delivered */
};

struct le_params {
	uint64_t delay_ns;
	uint64_t rate_bps;    /* 0: no serialization */
	uint64_t limit_bytes; /* one of the two limits is 0 */
	uint64_t limit_pkts;
	uint32_t loss_ppb;    /* parts per 10^9 */
	uint64_t seed;
};

struct le_count {
	uint64_t bytes, frames, drop_queue, drop_loss, drop_cut, early, max_late_ns;
};

struct le_path;

struct le_dir {
	struct le_path *path;
	const char *name; /* "ab" or "ba" */
	int in_fd, out_fd;
	struct le_params p;
	uint64_t rng;
	int offload; /* offloads of in_fd are on */
	/* the ring: records from head to tail, count of them; ser is the first
	 * record still being serialized, q_* sum the records from ser on */
	uint8_t *buf;
	size_t cap, head, tail, ser;
	uint64_t count, q_recs, q_bytes, q_segs;
	uint64_t last_depart, last_deliver;
	struct le_count iv, tot;
	int werr; /* errno of the last failed write, logged once */
};

/* what an epoll event points at */
enum le_kind { LE_EV_TAP, LE_EV_LISTEN, LE_EV_CLIENT };
struct le_ev {
	enum le_kind kind;
	struct le_dir *dir;       /* LE_EV_TAP: the direction it feeds */
	struct le_client *client; /* LE_EV_CLIENT */
};

struct le_path {
	char name[64];
	char ns[2][256];
	char ifname[2][IFNAMSIZ];
	int fd[2];
	int cut;
	struct le_dir d[2]; /* ab, ba */
	struct le_ev ev[2];
};

struct le_client {
	int fd;
	size_t n;
	char line[LE_LINE_MAX];
	struct le_ev ev;
};

static struct le_path *le_paths;
static int le_npaths;
static struct le_client *le_clients[LE_CLIENTS_MAX];
static int le_epfd = -1;
static int le_listen_fd = -1;
static struct le_ev le_listen_ev = { LE_EV_LISTEN, NULL, NULL };
static const char *le_ctl_path;
static size_t le_buffer_min = LE_RING_MIN;
static FILE *le_stats;       /* owned by the writer thread */
static int le_stats_pipe = -1; /* the loop's end of the pipe to it */
static pthread_t le_stats_thread;
static uint64_t le_stats_lost;
static uint64_t le_interval_ns = 100 * 1000000ull;
static volatile sig_atomic_t le_stop;
/* SCHED_FIFO priority of the process, 0 for none (--rt-prio) */
static int le_rt = 10;
/* the earliest delivery due, over all directions (the loop's wait) */
static uint64_t le_due = UINT64_MAX;
/* A timed wake-up (epoll_pwait2's timeout) comes late by the time the
 * kernel takes to fire the timer and switch to the loop: 10-40 us on a
 * loaded machine, per pass, which on paths of a few 100 us adds up to more
 * than the delay's own tolerance. So the loop aims its wake-up early by an
 * estimate of that lateness, the mean plus twice the mean deviation of the
 * past wake-ups (EWMAs with gains 1/8 and 1/4, as TCP's RTO), and from then
 * until the deadline it polls the TAPs without sleeping: the frame leaves at
 * its deadline, still never before (each write compares it with the
 * clock). The lead is capped, so the polling costs at most
 * LE_SPIN_MAX_NS of CPU per deadline. */
#define LE_SPIN_MAX_NS 60000ull
static uint64_t le_wake_mean = 20000, le_wake_dev = 10000;
/* Where deliveries come closer together than the lead (a 1 Gbit/s flow)
 * the loop would poll all the time: polling is held to LE_POLL_SHARE_PCT
 * percent of a core over LE_POLL_BURST_NS (a token bucket); beyond it the
 * loop sleeps until the deadline, as without a lead. */
#define LE_POLL_SHARE_PCT 20
#define LE_POLL_BURST_NS 2000000ll
static int64_t le_poll_tokens = LE_POLL_BURST_NS;
static uint8_t le_scratch[LE_FRAME_MAX];

static void le_log(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("linkemu: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static uint64_t le_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * LE_NS + (uint64_t)ts.tv_nsec;
}

/* splitmix64: small, seedable, good enough for loss draws */
static uint64_t le_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ---- parsing of parameter values ---- */

struct le_unit {
	const char *name;
	uint64_t mult;
};

static const struct le_unit le_units_time[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", LE_NS }, { NULL, 0 }
};
static const struct le_unit le_units_rate[] = {
	{ "", 1 }, { "bit", 1 }, { "kbit", 1000 }, { "mbit", 1000000 },
	{ "gbit", 1000000000ull }, { "tbit", 1000000000000ull }, { NULL, 0 }
};
static const struct le_unit le_units_bytes[] = {
	{ "b", 1 }, { "kb", 1024 }, { "mb", 1024 * 1024 }, { NULL, 0 }
};
/* loss in percent, kept in parts per 10^9 */
static const struct le_unit le_units_loss[] = { { "%", 10000000 }, { NULL, 0 } };

/* "D[.D]UNIT" -> value * unit, exactly in integers (a fraction below one
 * base unit is cut). A bare 0 is accepted whatever the units. Returns the
 * unit's index, or -1. */
static int le_parse_scaled(const char *s, const struct le_unit *units, uint64_t *out)
{
	uint64_t ip = 0, fp = 0, fscale = 1;
	int nd = 0;
	const char *p = s;
	while (isdigit((unsigned char)*p)) {
		if (ip > (UINT64_MAX - 9) / 10)
			return -1;
		ip = ip * 10 + (uint64_t)(*p++ - '0');
		nd++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (fscale < 1000000000000000000ull) {
				fp = fp * 10 + (uint64_t)(*p - '0');
				fscale *= 10;
			}
			p++;
			nd++;
		}
	}
	if (nd == 0)
		return -1;
	if (*p == '\0' && ip == 0 && fp == 0) {
		*out = 0;
		return 0;
	}
	for (int i = 0; units[i].name; i++) {
		if (strcasecmp(p, units[i].name) != 0)
			continue;
		uint64_t m = units[i].mult;
		if (ip != 0 && m > UINT64_MAX / ip)
			return -1;
		unsigned __int128 v = (unsigned __int128)ip * m + (unsigned __int128)fp * m / fscale;
		if (v > UINT64_MAX)
			return -1;
		*out = (uint64_t)v;
		return i;
	}
	return -1;
}

/* applies "key=val" to *p; on error writes the reason to err */
static int le_param_apply(struct le_params *p, const char *kv, char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	uint64_t v;
	if (!eq) {
		snprintf(err, errlen, "'%s' is not key=value", kv);
		return -1;
	}
	size_t kl = (size_t)(eq - kv);
	const char *val = eq + 1;
	if (kl == 5 && strncmp(kv, "delay", 5) == 0) {
		if (le_parse_scaled(val, le_units_time, &v) < 0) {
			snprintf(err, errlen, "delay '%s': give ns, us, ms or s (e.g. delay=5ms)", val);
			return -1;
		}
		p->delay_ns = v;
	} else if (kl == 4 && strncmp(kv, "rate", 4) == 0) {
		if (le_parse_scaled(val, le_units_rate, &v) < 0) {
			snprintf(err, errlen, "rate '%s': give bit, kbit, mbit, gbit or tbit per second (e.g. rate=100mbit, 0 = unlimited)", val);
			return -1;
		}
		p->rate_bps = v;
	} else if (kl == 5 && strncmp(kv, "limit", 5) == 0) {
		size_t n = strlen(val);
		if (n > 1 && (val[n - 1] == 'p' || val[n - 1] == 'P')) {
			char num[64];
			char *end;
			if (n >= sizeof(num))
				goto bad_limit;
			memcpy(num, val, n - 1);
			num[n - 1] = '\0';
			errno = 0;
			unsigned long long pk = strtoull(num, &end, 10);
			if (errno || *end || end == num || pk == 0 || !isdigit((unsigned char)num[0]))
				goto bad_limit;
			p->limit_pkts = pk;
			p->limit_bytes = 0;
		} else {
			if (le_parse_scaled(val, le_units_bytes, &v) < 0 || v == 0)
				goto bad_limit;
			p->limit_bytes = v;
			p->limit_pkts = 0;
		}
	} else if (kl == 4 && strncmp(kv, "loss", 4) == 0) {
		if (le_parse_scaled(val, le_units_loss, &v) < 0 || v > 1000000000ull) {
			snprintf(err, errlen, "loss '%s': give a percentage from 0%% to 100%% (e.g. loss=0.5%%)", val);
			return -1;
		}
		p->loss_ppb = (uint32_t)v;
	} else if (kl == 4 && strncmp(kv, "seed", 4) == 0) {
		char *end;
		errno = 0;
		unsigned long long s = strtoull(val, &end, 0);
		if (errno || *end || end == val || !isdigit((unsigned char)val[0])) {
			snprintf(err, errlen, "seed '%s': give an unsigned integer", val);
			return -1;
		}
		p->seed = s;
	} else {
		snprintf(err, errlen, "unknown parameter '%.*s' (delay, rate, limit, loss, seed)", (int)kl, kv);
		return -1;
	}
	return 0;
bad_limit:
	snprintf(err, errlen, "limit '%s': give packets (1000p) or bytes (b, kb, mb; e.g. limit=256kb), above 0", val);
	return -1;
}

/* ---- the ring ---- */

static size_t le_rec_size(uint32_t len)
{
	return sizeof(struct le_rec) + (((size_t)len + 7) & ~(size_t)7);
}

static struct le_rec *le_rec_at(struct le_dir *d, size_t off)
{
	return (struct le_rec *)(d->buf + off);
}

static size_t le_ring_next(struct le_dir *d, size_t off)
{
	off += le_rec_size(le_rec_at(d, off)->len);
	return off >= d->cap ? 0 : off;
}

/* A record starts below cap and may run into the slack of LE_FRAME_MAX +
 * header bytes past it; the next one then starts at 0. */
static int le_ring_room(struct le_dir *d)
{
	size_t need = sizeof(struct le_rec) + LE_FRAME_MAX;
	if (d->count == 0) {
		d->head = d->tail = d->ser = 0;
		return 1;
	}
	if (d->tail > d->head)
		return 1;
	return d->tail + need <= d->head;
}

/* ring bytes the parameters call for: what is in flight over the delay at
 * the rate, plus the queue limit, plus a few largest frames */
static size_t le_ring_need(const struct le_params *p)
{
	uint64_t rate = p->rate_bps ? p->rate_bps : LE_RATE0_SIZING;
	unsigned __int128 fl = (unsigned __int128)rate * p->delay_ns / 8 / LE_NS;
	fl += fl / 8; /* record headers, padding */
	fl += p->limit_bytes ? (unsigned __int128)p->limit_bytes
			     : (unsigned __int128)p->limit_pkts * LE_PKT_SIZING;
	fl += 4 * (sizeof(struct le_rec) + LE_FRAME_MAX);
	if (fl > LE_RING_AUTO_MAX)
		fl = LE_RING_AUTO_MAX;
	return fl < le_buffer_min ? le_buffer_min : (size_t)fl;
}

/* (re)allocates the ring for cap bytes, moving the queued records; only at
 * setup and on `set`, never per frame */
static int le_ring_grow(struct le_dir *d, size_t cap)
{
	size_t slack = sizeof(struct le_rec) + LE_FRAME_MAX, used = 0, off = d->head;
	/* the queued records (which may reach into the old slack) must fit
	 * below the new cap with room for one more frame */
	for (uint64_t i = 0; i < d->count; i++, off = le_ring_next(d, off))
		used += le_rec_size(le_rec_at(d, off)->len);
	if (cap < used + 2 * slack)
		cap = used + 2 * slack;
	uint8_t *nb = malloc(cap + slack);
	if (!nb)
		return -1;
	size_t w = 0, ser = 0;
	off = d->head;
	uint64_t before_ser = d->count - d->q_recs;
	for (uint64_t i = 0; i < d->count; i++) {
		size_t sz = le_rec_size(le_rec_at(d, off)->len);
		if (i == before_ser)
			ser = w;
		memcpy(nb + w, d->buf + off, sz);
		w += sz;
		off = le_ring_next(d, off);
	}
	free(d->buf);
	d->buf = nb;
	d->cap = cap;
	d->head = 0;
	d->tail = w;
	d->ser = d->q_recs ? ser : d->tail;
	return 0;
}

/* frames whose serialization has ended leave the queue the limit counts */
static void le_ser_advance(struct le_dir *d, uint64_t now)
{
	while (d->q_recs) {
		struct le_rec *r = le_rec_at(d, d->ser);
		if (r->depart > now)
			break;
		d->q_bytes -= r->wire;
		d->q_segs -= r->segs;
		d->q_recs--;
		d->ser = le_ring_next(d, d->ser);
	}
}

static void le_ring_pop(struct le_dir *d)
{
	d->head = le_ring_next(d, d->head);
	d->count--;
}

/* drops every queued frame (a cut) */
static void le_ring_flush(struct le_dir *d)
{
	while (d->count) {
		struct le_rec *r = le_rec_at(d, d->head);
		d->iv.drop_cut += r->segs;
		d->tot.drop_cut += r->segs;
		le_ring_pop(d);
	}
	d->head = d->tail = d->ser = 0;
	d->q_recs = d->q_bytes = d->q_segs = 0;
	d->last_depart = d->last_deliver = 0;
}

/* ---- frames ---- */

/* The bytes and frames a (GSO) frame takes on the wire: a superframe of n
 * segments repeats its Ethernet/IP/L4 headers n times. */
static void le_frame_wire(const uint8_t *f, size_t n, uint32_t *wire, uint32_t *segs)
{
	const struct virtio_net_hdr *h = (const struct virtio_net_hdr *)f;
	const uint8_t *e = f + LE_VNET_HDR;
	size_t len = n - LE_VNET_HDR, hl;
	*wire = (uint32_t)len;
	*segs = 1;
	uint8_t type = h->gso_type & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	uint16_t gso = h->gso_size, l4 = h->csum_start;
	if (type == VIRTIO_NET_HDR_GSO_NONE || gso == 0 || !(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return;
	if (type == VIRTIO_NET_HDR_GSO_TCPV4 || type == VIRTIO_NET_HDR_GSO_TCPV6) {
		if ((size_t)l4 + 13 > len)
			return;
		hl = l4 + (size_t)(e[l4 + 12] >> 4) * 4;
	} else if (type == VIRTIO_NET_HDR_GSO_UDP || type == VIRTIO_NET_HDR_GSO_UDP_L4) {
		hl = (size_t)l4 + 8;
	} else {
		return;
	}
	if (hl >= len)
		return;
	size_t ns = (len - hl + gso - 1) / gso;
	*segs = (uint32_t)ns;
	*wire = (uint32_t)(len + (ns - 1) * hl);
}

static void le_offload_set(struct le_dir *d, int on)
{
	unsigned all = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN;
	if (d->offload == on)
		return;
	if (on) {
		if (ioctl(d->in_fd, TUNSETOFFLOAD, all | TUN_F_USO4 | TUN_F_USO6) < 0 &&
		    ioctl(d->in_fd, TUNSETOFFLOAD, all) < 0) {
			le_log("path %s %s: TUNSETOFFLOAD on: %m", d->path->name, d->name);
			return;
		}
	} else if (ioctl(d->in_fd, TUNSETOFFLOAD, 0) < 0) {
		le_log("path %s %s: TUNSETOFFLOAD off: %m", d->path->name, d->name);
		return;
	}
	d->offload = on;
}

/* a frame of n bytes was read to the ring's tail at time now */
static void le_frame_arrive(struct le_dir *d, size_t n, uint64_t now)
{
	struct le_rec *r = le_rec_at(d, d->tail);
	uint8_t *f = (uint8_t *)(r + 1);
	uint32_t wire, segs;
	le_frame_wire(f, n, &wire, &segs);
	if (d->path->cut) {
		d->iv.drop_cut += segs;
		d->tot.drop_cut += segs;
		return;
	}
	le_ser_advance(d, now);
	if (d->q_recs &&
	    (d->p.limit_bytes ? d->q_bytes + wire > d->p.limit_bytes
			      : d->q_segs + segs > d->p.limit_pkts)) {
		d->iv.drop_queue += segs;
		d->tot.drop_queue += segs;
		return;
	}
	uint64_t tx = d->p.rate_bps
		? (uint64_t)((unsigned __int128)wire * 8 * LE_NS / d->p.rate_bps) : 0;
	uint64_t start = now > d->last_depart ? now : d->last_depart;
	r->arrive = now;
	r->depart = start + tx;
	r->deliver = r->depart + d->p.delay_ns;
	r->due_min = now + tx + d->p.delay_ns;
	if (r->deliver < d->last_deliver)
		r->deliver = d->last_deliver; /* a shorter delay must not reorder */
	r->len = (uint32_t)n;
	r->wire = wire;
	r->segs = segs;
	/* a lost frame still occupies the link; one draw per wire frame */
	r->lost = 0;
	if (d->p.loss_ppb)
		for (uint32_t i = 0; i < segs && !r->lost; i++)
			r->lost = ((le_rand(&d->rng) >> 32) * 1000000000ull >> 32) < d->p.loss_ppb;
	d->last_depart = r->depart;
	d->last_deliver = r->deliver;
	if (d->count == 0 && r->deliver < le_due)
		le_due = r->deliver;
	if (d->q_recs == 0)
		d->ser = d->tail;
	d->q_recs++;
	d->q_bytes += wire;
	d->q_segs += segs;
	d->count++;
	size_t next = d->tail + le_rec_size(r->len);
	d->tail = next >= d->cap ? 0 : next;
}

/* reads what the source TAP has, up to a batch, or until a delivery is due:
 * a batch of 64 KiB superframes takes a millisecond to copy */
static void le_dir_read(struct le_dir *d)
{
	for (int k = 0; k < LE_READ_BATCH; k++) {
		if (k && le_now() >= le_due)
			return;
		int room = le_ring_room(d);
		uint8_t *dst = room ? (uint8_t *)(le_rec_at(d, d->tail) + 1) : le_scratch;
		ssize_t n = read(d->in_fd, dst, LE_FRAME_MAX);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN) {
				/* the device is gone (its namespace deleted, say):
				 * stop polling it rather than spin on the error */
				le_log("path %s %s: read from %s: %m; no longer carried", d->path->name,
				       d->name, d->path->ifname[d == &d->path->d[0] ? 0 : 1]);
				epoll_ctl(le_epfd, EPOLL_CTL_DEL, d->in_fd, NULL);
			}
			return;
		}
		if (n <= LE_VNET_HDR)
			continue;
		if (!room) {
			/* the ring is full: the emulated buffer overflows */
			uint32_t wire, segs;
			le_frame_wire(dst, (size_t)n, &wire, &segs);
			if (d->path->cut) {
				d->iv.drop_cut += segs;
				d->tot.drop_cut += segs;
			} else {
				d->iv.drop_queue += segs;
				d->tot.drop_queue += segs;
			}
			continue;
		}
		le_frame_arrive(d, (size_t)n, le_now());
	}
}

/* writes the frames that are due; returns the next deadline (0: none) */
static uint64_t le_dir_deliver(struct le_dir *d)
{
	while (d->count) {
		struct le_rec *r = le_rec_at(d, d->head);
		uint64_t now = le_now();
		if (r->deliver > now)
			return r->deliver;
		le_ser_advance(d, now);
		if (r->lost) {
			d->iv.drop_loss += r->segs;
			d->tot.drop_loss += r->segs;
		} else if (write(d->out_fd, r + 1, r->len) == (ssize_t)r->len) {
			uint64_t late = now - r->deliver;
			if (now < r->due_min) {
				d->iv.early++;
				d->tot.early++;
			}
			d->iv.bytes += r->wire;
			d->tot.bytes += r->wire;
			d->iv.frames += r->segs;
			d->tot.frames += r->segs;
			if (late > d->iv.max_late_ns)
				d->iv.max_late_ns = late;
			if (late > d->tot.max_late_ns)
				d->tot.max_late_ns = late;
			d->werr = 0;
		} else if (errno != d->werr) {
			/* typically EIO: the destination TAP is down; the frame is
			 * lost as at a NIC that is off */
			d->werr = errno;
			le_log("path %s %s: write to %s: %m (frames dropped until it works)",
			       d->path->name, d->name, d->path->ifname[d == &d->path->d[0] ? 1 : 0]);
		}
		le_ring_pop(d);
	}
	return 0;
}

/* how early the loop aims a timed wake-up: see le_wake_mean */
static uint64_t le_wake_lead(void)
{
	uint64_t l = le_wake_mean + 2 * le_wake_dev, cap = LE_SPIN_MAX_NS;
	return l < cap ? l : cap;
}

/* a timed wake-up came late ns after the time it was set for */
static void le_wake_note(uint64_t late)
{
	if (late > 4 * LE_SPIN_MAX_NS)
		late = 4 * LE_SPIN_MAX_NS; /* one preemption must not swamp the mean */
	int64_t e = (int64_t)late - (int64_t)le_wake_mean;
	le_wake_mean = (uint64_t)((int64_t)le_wake_mean + e / 8);
	uint64_t a = (uint64_t)(e < 0 ? -e : e);
	le_wake_dev = (uint64_t)((int64_t)le_wake_dev + ((int64_t)a - (int64_t)le_wake_dev) / 4);
}

/* ---- stats ---- */

static const char le_stats_header[] =
	"t_ns,path,dir,bytes,frames,drop_queue,drop_loss,drop_cut,early,max_late_ns\n";

static int le_count_fmt(char *s, size_t n, uint64_t t, const struct le_dir *d,
			const struct le_count *c)
{
	return snprintf(s, n, "%" PRIu64 ",%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		   ",%" PRIu64 ",%" PRIu64 "\n",
		t, d->path->name, d->name, c->bytes, c->frames, c->drop_queue, c->drop_loss,
		c->drop_cut, c->early, c->max_late_ns);
}

/* The file is written by a thread of normal priority: a write to a file
 * can wait for the disk for many milliseconds, which the loop must not.
 * The loop hands it lines through a pipe, never blocking: lines that do
 * not fit are counted and reported. */
static void *le_stats_writer(void *arg)
{
	char buf[65536];
	ssize_t n;
	while ((n = read(*(int *)arg, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (le_stats && (fwrite(buf, 1, (size_t)n, le_stats) != (size_t)n || fflush(le_stats) != 0)) {
			le_log("stats file: %m; no more stats written");
			fclose(le_stats);
			le_stats = NULL;
		}
	}
	return NULL;
}

static int le_stats_start(const char *path)
{
	static int rfd;
	int pfd[2];
	le_stats = fopen(path, "a");
	if (!le_stats) {
		le_log("stats file %s: %m", path);
		return -1;
	}
	struct stat st;
	if (fstat(fileno(le_stats), &st) == 0 && st.st_size == 0)
		fputs(le_stats_header, le_stats);
	fflush(le_stats);
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		le_log("stats pipe: %m");
		return -1;
	}
	fcntl(pfd[1], F_SETFL, O_NONBLOCK);
	/* a second of lines of many paths fits (1 MiB is the default maximum) */
	fcntl(pfd[1], F_SETPIPE_SZ, 1 << 20);
	rfd = pfd[0];
	le_stats_pipe = pfd[1];
	/* normal scheduling, not the loop's SCHED_FIFO it would inherit */
	pthread_attr_t at;
	struct sched_param sp = { .sched_priority = 0 };
	pthread_attr_init(&at);
	pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&at, SCHED_OTHER);
	pthread_attr_setschedparam(&at, &sp);
	int e = pthread_create(&le_stats_thread, &at, le_stats_writer, &rfd);
	pthread_attr_destroy(&at);
	if (e) {
		errno = e;
		le_log("stats writer thread: %m");
		return -1;
	}
	return 0;
}

static void le_stats_stop(void)
{
	if (le_stats_pipe < 0)
		return;
	close(le_stats_pipe);
	le_stats_pipe = -1;
	pthread_join(le_stats_thread, NULL);
	if (le_stats)
		fclose(le_stats);
	if (le_stats_lost)
		le_log("%" PRIu64 " stats lines lost: the stats file was too slow", le_stats_lost);
}

static void le_stats_emit(uint64_t t)
{
	for (int i = 0; i < le_npaths; i++)
		for (int k = 0; k < 2; k++) {
			struct le_dir *d = &le_paths[i].d[k];
			char line[256];
			if (le_stats_pipe >= 0) {
				/* one line is below PIPE_BUF, so it goes whole or not */
				int n = le_count_fmt(line, sizeof(line), t, d, &d->iv);
				if (write(le_stats_pipe, line, (size_t)n) != n)
					le_stats_lost++;
			}
			memset(&d->iv, 0, sizeof(d->iv));
		}
}

/* ---- commands ---- */

static struct le_path *le_path_find(const char *name)
{
	for (int i = 0; i < le_npaths; i++)
		if (strcmp(le_paths[i].name, name) == 0)
			return &le_paths[i];
	return NULL;
}

static void le_param_format(char *s, size_t n, const struct le_dir *d)
{
	const struct le_params *p = &d->p;
	char lim[48];
	if (p->limit_bytes)
		snprintf(lim, sizeof(lim), "%" PRIu64 "b", p->limit_bytes);
	else
		snprintf(lim, sizeof(lim), "%" PRIu64 "p", p->limit_pkts);
	snprintf(s, n, "%s delay=%" PRIu64 "ns rate=%" PRIu64 "bit limit=%s loss=%u.%07u%% seed=%" PRIu64,
		 d->name, p->delay_ns, p->rate_bps, lim, p->loss_ppb / 10000000u,
		 p->loss_ppb % 10000000u, p->seed);
}

/* set PATH DIR key=val...: all or nothing */
static int le_cmd_set(int argc, char **argv, char *out, size_t n)
{
	if (argc < 4) {
		snprintf(out, n, "err usage: set PATH ab|ba|both key=val...");
		return -1;
	}
	struct le_path *p = le_path_find(argv[1]);
	if (!p) {
		snprintf(out, n, "err no path '%s'", argv[1]);
		return -1;
	}
	int lo, hi;
	if (strcmp(argv[2], "ab") == 0)
		lo = hi = 0;
	else if (strcmp(argv[2], "ba") == 0)
		lo = hi = 1;
	else if (strcmp(argv[2], "both") == 0)
		lo = 0, hi = 1;
	else {
		snprintf(out, n, "err direction '%s': ab, ba or both", argv[2]);
		return -1;
	}
	struct le_params np[2] = { p->d[0].p, p->d[1].p };
	int seeded = 0;
	char why[256];
	for (int k = lo; k <= hi; k++)
		for (int i = 3; i < argc; i++) {
			if (le_param_apply(&np[k], argv[i], why, sizeof(why)) < 0) {
				snprintf(out, n, "err %s", why);
				return -1;
			}
			if (strncmp(argv[i], "seed=", 5) == 0)
				seeded = 1;
		}
	for (int k = lo; k <= hi; k++) {
		struct le_dir *d = &p->d[k];
		size_t need = le_ring_need(&np[k]);
		if (need > d->cap && le_ring_grow(d, need) < 0) {
			snprintf(out, n, "err path %s %s: no memory for a %zu-byte ring", p->name, d->name, need);
			return -1;
		}
	}
	for (int k = lo; k <= hi; k++) {
		struct le_dir *d = &p->d[k];
		d->p = np[k];
		if (seeded)
			d->rng = d->p.seed;
		le_offload_set(d, d->p.loss_ppb == 0);
	}
	snprintf(out, n, "ok");
	return 0;
}

static void le_reply(struct le_client *c, const char *s)
{
	size_t len = strlen(s);
	if (send(c->fd, s, len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)len)
		le_log("control: reply not sent whole: %m");
}

/* one command line; returns 1 after quit */
static int le_cmd(struct le_client *c, char *line)
{
	char *argv[64];
	int argc = 0;
	char out[2048];
	for (char *t = strtok(line, " \t\r"); t && argc < 64; t = strtok(NULL, " \t\r"))
		argv[argc++] = t;
	if (argc == 0)
		return 0;
	struct le_path *p = argc > 1 ? le_path_find(argv[1]) : NULL;
	if (strcmp(argv[0], "set") == 0) {
		le_cmd_set(argc, argv, out, sizeof(out));
	} else if (strcmp(argv[0], "cut") == 0 || strcmp(argv[0], "restore") == 0 ||
		   strcmp(argv[0], "show") == 0 || strcmp(argv[0], "stats") == 0) {
		if (argc != 2 || !p) {
			snprintf(out, sizeof(out), argc != 2 ? "err usage: %s PATH" : "err no path '%s'",
				 argc != 2 ? argv[0] : argv[1]);
		} else if (argv[0][0] == 'c') {
			p->cut = 1;
			le_ring_flush(&p->d[0]);
			le_ring_flush(&p->d[1]);
			snprintf(out, sizeof(out), "ok cut %s t_ns=%" PRIu64, p->name, le_now());
		} else if (argv[0][0] == 'r') {
			p->cut = 0;
			snprintf(out, sizeof(out), "ok restore %s t_ns=%" PRIu64, p->name, le_now());
		} else if (argv[0][1] == 'h') {
			char a[512], b[512];
			le_param_format(a, sizeof(a), &p->d[0]);
			le_param_format(b, sizeof(b), &p->d[1]);
			snprintf(out, sizeof(out), "ok %s cut=%d %s %s", p->name, p->cut, a, b);
		} else {
			uint64_t t = le_now();
			int w = snprintf(out, sizeof(out), "ok\n%s", le_stats_header);
			for (int k = 0; k < 2; k++)
				w += le_count_fmt(out + w, sizeof(out) - (size_t)w, t, &p->d[k], &p->d[k].tot);
			snprintf(out + w, sizeof(out) - (size_t)w, ".");
		}
	} else if (strcmp(argv[0], "quit") == 0) {
		le_reply(c, "ok\n");
		return 1;
	} else {
		snprintf(out, sizeof(out), "err unknown command '%s' (set, cut, restore, show, stats, quit)", argv[0]);
	}
	strcat(out, "\n");
	le_reply(c, out);
	return 0;
}

static void le_client_close(struct le_client *c)
{
	epoll_ctl(le_epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	for (int i = 0; i < LE_CLIENTS_MAX; i++)
		if (le_clients[i] == c)
			le_clients[i] = NULL;
	free(c);
}

static void le_client_read(struct le_client *c)
{
	for (;;) {
		ssize_t r = recv(c->fd, c->line + c->n, sizeof(c->line) - 1 - c->n, MSG_DONTWAIT);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;
		if (r <= 0) {
			/* EOF: a last line without newline still counts */
			if (r == 0 && c->n) {
				c->line[c->n] = '\0';
				c->n = 0;
				if (le_cmd(c, c->line))
					le_stop = 1;
			}
			le_client_close(c);
			return;
		}
		c->n += (size_t)r;
		char *nl;
		while ((nl = memchr(c->line, '\n', c->n))) {
			*nl = '\0';
			size_t used = (size_t)(nl - c->line) + 1;
			int q = le_cmd(c, c->line);
			memmove(c->line, c->line + used, c->n - used);
			c->n -= used;
			if (q) {
				le_stop = 1;
				le_client_close(c);
				return;
			}
		}
		if (c->n == sizeof(c->line) - 1) {
			le_reply(c, "err line too long\n");
			le_client_close(c);
			return;
		}
	}
}

static void le_accept(void)
{
	for (;;) {
		int fd = accept4(le_listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		int slot = -1;
		for (int i = 0; i < LE_CLIENTS_MAX; i++)
			if (!le_clients[i]) {
				slot = i;
				break;
			}
		struct le_client *c = slot >= 0 ? calloc(1, sizeof(*c)) : NULL;
		if (!c) {
			static const char busy[] = "err too many control clients\n";
			send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->ev.kind = LE_EV_CLIENT;
		c->ev.client = c;
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &c->ev };
		if (epoll_ctl(le_epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			continue;
		}
		le_clients[slot] = c;
	}
}

/* ---- setup ---- */

static int le_tap_open(const char *ns, const char *ifname, int self_ns)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	int nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0) {
		le_log("network namespace %s (%s): %m", ns, path);
		return -1;
	}
	if (setns(nsfd, CLONE_NEWNET) < 0) {
		le_log("setns into %s: %m", ns);
		close(nsfd);
		return -1;
	}
	close(nsfd);
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int err = errno;
	if (fd >= 0) {
		struct ifreq ifr;
		memset(&ifr, 0, sizeof(ifr));
		ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
		int hs = LE_VNET_HDR;
		if (ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETVNETHDRSZ, &hs) < 0) {
			err = errno;
			close(fd);
			fd = -1;
		}
	}
	/* back home before anything else: later TAPs and the socket need it */
	if (setns(self_ns, CLONE_NEWNET) < 0) {
		le_log("setns back to the own network namespace: %m");
		exit(1);
	}
	if (fd < 0) {
		errno = err;
		le_log("TAP %s in %s: %m", ifname, ns);
	}
	return fd;
}

/* NAME=NETNS_A/IF_A,NETNS_B/IF_B */
static int le_path_parse(struct le_path *p, const char *spec)
{
	const char *eq = strchr(spec, '=');
	const char *comma = eq ? strchr(eq, ',') : NULL;
	if (!eq || !comma || eq == spec || (size_t)(eq - spec) >= sizeof(p->name))
		goto bad;
	memset(p, 0, sizeof(*p));
	memcpy(p->name, spec, (size_t)(eq - spec));
	const char *side[2] = { eq + 1, comma + 1 };
	size_t slen[2] = { (size_t)(comma - eq - 1), strlen(comma + 1) };
	for (int k = 0; k < 2; k++) {
		const char *sl = memchr(side[k], '/', slen[k]);
		if (!sl || sl == side[k])
			goto bad;
		size_t nl = (size_t)(sl - side[k]), il = slen[k] - nl - 1;
		if (nl >= sizeof(p->ns[k]) || il == 0 || il >= IFNAMSIZ)
			goto bad;
		memcpy(p->ns[k], side[k], nl);
		memcpy(p->ifname[k], sl + 1, il);
		if (strchr(p->ns[k], '/') || strchr(p->ifname[k], '/'))
			goto bad;
	}
	for (const char *c = p->name; *c; c++)
		if (isspace((unsigned char)*c) || *c == ',')
			goto bad;
	return 0;
bad:
	le_log("bad path '%s': NAME=NETNS_A/IFNAME_A,NETNS_B/IFNAME_B (interface names under %d characters)",
	       spec, IFNAMSIZ);
	return -1;
}

static int le_listen(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(a.sun_path)) {
		le_log("control socket path %s is longer than %zu", path, sizeof(a.sun_path) - 1);
		return -1;
	}
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		le_log("control socket: %m");
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
		goto bound;
	if (errno == EADDRINUSE) {
		/* a socket file left by a dead run is replaced; a live one is not */
		int t = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int refused = t >= 0 && connect(t, (struct sockaddr *)&a, sizeof(a)) < 0 &&
			      errno == ECONNREFUSED;
		if (t >= 0)
			close(t);
		if (refused && unlink(path) == 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			goto bound;
		if (!refused)
			errno = EADDRINUSE;
	}
	le_log("control socket %s: bind: %m", path);
	close(fd);
	return -1;
bound:
	if (listen(fd, 16) < 0) {
		le_log("control socket %s: listen: %m", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* client mode: one command, its reply to stdout; exit 0 when it is `ok` */
static int le_client_main(const char *path, const char *cmd)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	if (strlen(path) >= sizeof(a.sun_path)) {
		le_log("control socket path %s is too long", path);
		return 2;
	}
	strcpy(a.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		le_log("control socket %s: connect: %m", path);
		return 2;
	}
	size_t len = strlen(cmd);
	if (send(fd, cmd, len, MSG_NOSIGNAL) != (ssize_t)len || send(fd, "\n", 1, MSG_NOSIGNAL) != 1) {
		le_log("control socket %s: send: %m", path);
		return 2;
	}
	shutdown(fd, SHUT_WR);
	char buf[4096];
	int first = -1;
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		int r = poll(&pf, 1, 5000);
		if (r == 0) {
			le_log("control socket %s: no reply in 5 s", path);
			return 2;
		}
		ssize_t n = r > 0 ? read(fd, buf, sizeof(buf)) : -1;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (first < 0)
			first = n >= 2 && buf[0] == 'o' && buf[1] == 'k';
		fwrite(buf, 1, (size_t)n, stdout);
	}
	return first == 1 ? 0 : 1;
}

static void le_usage(FILE *f)
{
	fprintf(f,
		"usage: linkemu --ctl SOCKPATH [--stats CSVFILE] [--interval-ms 100] [--pidfile F]\n"
		"               [--buffer SIZE] [--rt-prio 10] [--set 'PATH DIR key=val ...']... PATHSPEC...\n"
		"       linkemu --ctl SOCKPATH --command 'LINE'\n"
		"  PATHSPEC    NAME=NETNS_A/IFNAME_A,NETNS_B/IFNAME_B: two TAPs, created DOWN\n"
		"              in /run/netns/NETNS_A and NETNS_B; ab carries A to B, ba back\n"
		"  key=val     delay=5ms|250us|1500ns rate=100mbit|0 limit=1000p|256kb\n"
		"              loss=0.5%% seed=N   (defaults: 0, 0 = unlimited, 1000p, 0%%)\n"
		"  --buffer    the smallest ring per direction (default 4mb; grown as the\n"
		"              parameters need, up to 256mb)\n"
		"  --rt-prio   SCHED_FIFO priority where allowed (default 10; 0: none)\n"
		"  control     set PATH ab|ba|both key=val..., cut PATH, restore PATH,\n"
		"              show PATH, stats PATH, quit\n"
		"  Prints 'ready' when every TAP exists and the socket listens.\n");
}

static void le_on_signal(int sig)
{
	(void)sig;
	le_stop = 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ctl", required_argument, NULL, 'c' },
		{ "stats", required_argument, NULL, 's' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "pidfile", required_argument, NULL, 'p' },
		{ "set", required_argument, NULL, 'S' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "command", required_argument, NULL, 'C' },
		{ "rt-prio", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *stats_path = NULL, *pidfile = NULL, *command = NULL;
	char **sets = calloc((size_t)argc + 1, sizeof(char *));
	int nsets = 0, o;
	uint64_t v;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'c': le_ctl_path = optarg; break;
		case 's': stats_path = optarg; break;
		case 'p': pidfile = optarg; break;
		case 'S': sets[nsets++] = optarg; break;
		case 'C': command = optarg; break;
		case 'i': {
			char *end;
			unsigned long ms = strtoul(optarg, &end, 10);
			if (*end || ms == 0 || ms > 3600000) {
				le_log("--interval-ms '%s': give 1 to 3600000", optarg);
				return 2;
			}
			le_interval_ns = ms * 1000000ull;
			break;
		}
		case 'b':
			if (le_parse_scaled(optarg, le_units_bytes, &v) < 0 || v < 1024 * 1024 ||
			    v > (1ull << 34)) {
				le_log("--buffer '%s': give 1mb to 16384mb (b, kb, mb)", optarg);
				return 2;
			}
			le_buffer_min = (size_t)v;
			break;
		case 'r': {
			char *end;
			long pr = strtol(optarg, &end, 10);
			if (*end || end == optarg || pr < 0 || pr > 99) {
				le_log("--rt-prio '%s': give 0 (normal scheduling) to 99", optarg);
				return 2;
			}
			le_rt = (int)pr;
			break;
		}
		case 'h': le_usage(stdout); return 0;
		default: le_usage(stderr); return 2;
		}
	}
	if (!le_ctl_path) {
		le_log("--ctl SOCKPATH is required");
		le_usage(stderr);
		return 2;
	}
	if (command)
		return le_client_main(le_ctl_path, command);
	if (optind >= argc) {
		le_log("no PATHSPEC given");
		le_usage(stderr);
		return 2;
	}

	le_npaths = argc - optind;
	le_paths = calloc((size_t)le_npaths, sizeof(*le_paths));
	if (!le_paths)
		return 1;
	for (int i = 0; i < le_npaths; i++) {
		if (le_path_parse(&le_paths[i], argv[optind + i]) < 0)
			return 2;
		for (int j = 0; j < i; j++)
			if (strcmp(le_paths[j].name, le_paths[i].name) == 0) {
				le_log("path %s given twice", le_paths[i].name);
				return 2;
			}
	}

	signal(SIGPIPE, SIG_IGN);
	/* frames leave at their nanosecond deadline, not 50 us later */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	/* Like a hardware emulator, the wire should not wait behind the hosts'
	 * processes on a loaded machine: a real-time priority where allowed
	 * (the loop sleeps whenever nothing is due, so it cannot starve them). */
	if (le_rt) {
		struct sched_param sp = { .sched_priority = le_rt };
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			le_log("SCHED_FIFO %d: %m; running at normal priority", le_rt);
	}

	int self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_ns < 0) {
		le_log("/proc/self/ns/net: %m");
		return 1;
	}
	le_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (le_epfd < 0) {
		le_log("epoll_create1: %m");
		return 1;
	}
	for (int i = 0; i < le_npaths; i++) {
		struct le_path *p = &le_paths[i];
		for (int k = 0; k < 2; k++) {
			p->fd[k] = le_tap_open(p->ns[k], p->ifname[k], self_ns);
			if (p->fd[k] < 0)
				return 1;
		}
		for (int k = 0; k < 2; k++) {
			struct le_dir *d = &p->d[k];
			d->path = p;
			d->name = k == 0 ? "ab" : "ba";
			d->in_fd = p->fd[k];
			d->out_fd = p->fd[1 - k];
			d->p.limit_pkts = 1000;
			d->p.seed = 1 + (uint64_t)i * 2 + (uint64_t)k;
			d->rng = d->p.seed;
			if (le_ring_grow(d, le_ring_need(&d->p)) < 0) {
				le_log("path %s: no memory for its rings", p->name);
				return 1;
			}
			d->offload = -1;
			le_offload_set(d, 1);
			p->ev[k].kind = LE_EV_TAP;
			p->ev[k].dir = d;
			struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &p->ev[k] };
			if (epoll_ctl(le_epfd, EPOLL_CTL_ADD, p->fd[k], &ev) < 0) {
				le_log("epoll_ctl: %m");
				return 1;
			}
		}
	}
	close(self_ns);
	for (int i = 0; i < nsets; i++) {
		char line[LE_LINE_MAX + 8], out[512];
		char *av[64];
		int ac = 0;
		snprintf(line, sizeof(line), "set %s", sets[i]);
		for (char *t = strtok(line, " \t"); t && ac < 64; t = strtok(NULL, " \t"))
			av[ac++] = t;
		if (le_cmd_set(ac, av, out, sizeof(out)) < 0) {
			le_log("--set '%s': %s", sets[i], out + 4);
			return 2;
		}
	}
	free(sets);
	/* SIGTERM and SIGINT are taken only inside epoll_pwait2 (and never by
	 * the stats thread, which inherits the mask) */
	sigset_t block, waitmask;
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	struct sigaction sa = { .sa_handler = le_on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	if (stats_path) {
		if (le_stats_start(stats_path) < 0)
			return 1;
	}
	le_listen_fd = le_listen(le_ctl_path);
	if (le_listen_fd < 0)
		return 1;
	struct epoll_event lev = { .events = EPOLLIN, .data.ptr = &le_listen_ev };
	epoll_ctl(le_epfd, EPOLL_CTL_ADD, le_listen_fd, &lev);
	if (pidfile) {
		FILE *pf = fopen(pidfile, "w");
		if (!pf || fprintf(pf, "%d\n", (int)getpid()) < 0 || fclose(pf) != 0) {
			le_log("pidfile %s: %m", pidfile);
			unlink(le_ctl_path);
			return 1;
		}
	}

	printf("ready\n");
	fflush(stdout);

	uint64_t next_stats = le_now() + le_interval_ns;
	uint64_t last_top = le_now();
	int polled = 0;
	struct epoll_event evs[64];
	while (!le_stop) {
		/* the poll budget: refilled with time, charged with the time
		 * of the iterations that polled rather than slept */
		uint64_t top = le_now();
		int64_t dt = (int64_t)(top - last_top);
		le_poll_tokens += polled ? -dt * (100 - LE_POLL_SHARE_PCT) / 100
					 : dt * LE_POLL_SHARE_PCT / 100;
		if (le_poll_tokens > LE_POLL_BURST_NS)
			le_poll_tokens = LE_POLL_BURST_NS;
		last_top = top;
		uint64_t deadline = next_stats;
		le_due = UINT64_MAX;
		for (int i = 0; i < le_npaths; i++)
			for (int k = 0; k < 2; k++) {
				uint64_t t = le_dir_deliver(&le_paths[i].d[k]);
				if (t && t < le_due)
					le_due = t;
			}
		if (le_due < deadline)
			deadline = le_due;
		uint64_t now = le_now();
		if (now >= next_stats) {
			while (next_stats <= now) {
				le_stats_emit(next_stats);
				next_stats += le_interval_ns;
			}
			continue;
		}
		/* a delivery: wake up early by the expected lateness and poll
		 * the TAPs (epoll with no timeout) from then until it is due */
		uint64_t target = deadline;
		if (deadline == le_due && le_poll_tokens > 0) {
			uint64_t lead = le_wake_lead();
			target = deadline > lead ? deadline - lead : 0;
		}
		uint64_t wait = target > now ? target - now : 0;
		polled = wait == 0 && now < deadline;
		struct timespec to = { (time_t)(wait / LE_NS), (long)(wait % LE_NS) };
		int n = epoll_pwait2(le_epfd, evs, 64, &to, &waitmask);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			le_log("epoll_pwait2: %m");
			break;
		}
		if (n == 0 && wait) {
			uint64_t t = le_now();
			le_wake_note(t > target ? t - target : 0);
		}
		for (int i = 0; i < n; i++) {
			struct le_ev *e = evs[i].data.ptr;
			if (e->kind == LE_EV_TAP)
				le_dir_read(e->dir);
			else if (e->kind == LE_EV_LISTEN)
				le_accept();
		}
		/* clients last: a client closed here may be in this batch above */
		for (int i = 0; i < n; i++) {
			struct le_ev *e = evs[i].data.ptr;
			if (e->kind != LE_EV_CLIENT)
				continue;
			int alive = 0;
			for (int j = 0; j < LE_CLIENTS_MAX; j++)
				alive |= le_clients[j] == e->client;
			if (alive)
				le_client_read(e->client);
		}
	}
	le_stats_emit(le_now());
	le_stats_stop();
	unlink(le_ctl_path);
	if (pidfile)
		unlink(pidfile);
	return 0;
}
