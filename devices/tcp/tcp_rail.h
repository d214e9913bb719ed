/* SPDX-License-Identifier: MIT */
/*
 * devices/tcp/tcp_rail.h: a peer pair's rails (the networks both hosts
 * are on) and how its traffic is shared among them, a pure module: no
 * sockets, no clock, no allocation, so that the tcp device and the unit
 * tests share one copy of the rules (issue 31; paper B, ../GRID.md
 * §2.3-2.4).
 *
 * Rails: each pair of a local and a peer address on one IPv4 subnet (the
 * shorter of the two prefixes), as Open MPI pairs interfaces; every
 * address in at most one rail, taken in the order of the lists (the
 * business cards' order, which MICHI_TCP_IF sets). Hosts with different
 * numbers of networks share the rails they have in common.
 *
 * Five rules give a weight per rail, for one peer:
 *   round-robin  every live rail alike (paper B's RI2N);
 *   links        inversely to how many peers use the receiver's link on
 *                that rail (RI2N+): the receiver reports the count;
 *   static       by the rails' line rates (Open MPI's way);
 *   feedback     (the device's default) RI2N++, counted in bytes over
 *                one feedback interval, with the rails' rates:
 *                  W_k = (R_k / b_k) * (R_k / R_jk) * A_k,
 *                  A_k = min(1, R_k / S_k)
 *                with S_k what this sender wrote to rail k, R_k what of
 *                it the receiver read, R_jk everything the receiver read
 *                on its link of rail k, b_k the part of the interval rail
 *                k had this sender's bytes to carry. In effect R_k^2 /
 *                (b_k R_jk): it pulls a sender toward the rail where it
 *                already has most of the link, which is what moves a
 *                dual client off a link a single one needs (d, h) and
 *                what lets three dual clients drift apart on two links
 *                (e, g), each then mostly on one, which costs nothing
 *                while all of them send: with every client sending
 *                without pause (paper B's measure) it led the paper
 *                rule in d, e and h (187 / 182 / 185 against 161 / 172
 *                / 177 Mb/s, round-robin 132 / 173 / 117). Timing a
 *                fixed amount per client instead, as we first did,
 *                charged the drift for the clients that finished late
 *                and had made paper the default for a while. A
 *                capacity that holds still in place of R_k / b_k (the
 *                decayed peak of R_jk / b_k) was tried: it stopped the
 *                drift no better and lost d's gain. The paper's
 *                W_k = (R_k / Q_k) * A_k, Q_k = R_jk / R_j, is R_j (the
 *                same for every rail) times our part of link k, R_k /
 *                R_jk, times A_k: its links were all alike and its
 *                senders never idle. Here the part is scaled by the
 *                rail's rate while it carried our bytes (R_k / b_k), so
 *                that rails of different rates get their due, and a rail
 *                whose part of a frame ended early is not taken for a
 *                slow one. When R_k is the same on every rail the two
 *                agree (the paper's worked examples). A rail the
 *                receiver's other traffic leaves idle gets more, one
 *                whose bytes stay in the sockets (A < 1) less.
 *   rate         the rail's rate while it carried this sender's bytes,
 *                W_k = (R_k / b_k) * A_k: each part in proportion to
 *                what its rail delivers, so that the parts of a frame
 *                end together. A rail that other senders share delivers
 *                less to us and its part ends late (b_k near 1) while a
 *                freer rail's ends early (b_k < 1), so the parts move
 *                toward the freer rail until they end together; unlike
 *                feedback's our-part-of-the-link factor, that has no
 *                pull toward the rail where we already send most.
 *   paper        RI2N++ as the paper has it, our part of each link,
 *                W_k = c_k * (R_k / R_jk) * A_k, which steers toward the
 *                receiver's less loaded link whatever our split; c_k is
 *                the rail's rate while busy (R_k / b_k) only where we
 *                have the receiver's link nearly to ourselves (our part
 *                at least 0.9: a pair alone on rails of unequal rates),
 *                elsewhere the mean of those rates, or 1 when there is
 *                none (every link shared: the paper's links alike).
 *                Its fixed point is wherever our share of a link is
 *                our part of it, so it moves a dual client off a link a
 *                single one needs only while that link is saturated; a
 *                sender that pauses between messages leaves it short of
 *                that (d: C kept a third of Network-0).
 * Guards of GRID.md §2.4: A at most 1; a rail with nothing sent or
 * nothing read gets the floor share, so that it is tried again and can
 * recover; the shares are smoothed between intervals (a moving average:
 * the paper's future work), so that one quiet interval does not undo
 * what the busy ones learned.
 *
 * The device gives each connection its share of a frame to the byte
 * (devices/tcp/tcp_stripe.c); paper B's burst rule, which deals one
 * stream's packets to the links in rounds, has no use over connections
 * that are streams of their own (its rounding cost 11 % on two equal
 * rails).
 */
#ifndef MICHI_TCP_WEIGHTS_H
#define MICHI_TCP_WEIGHTS_H

#include <stdint.h>

#define TCP_RAILS_MAX 8

/* An address of a business card: IPv4, network byte order, and its
 * prefix length (0..32). */
struct tcp_rail_addr {
	uint32_t addr;
	int prefix;
};

/* A rail: indices into the local and the peer's lists. */
struct tcp_rail_pair {
	int local, peer;
};

/* Pairs nl local and np peer addresses into at most max rails (greedy
 * in list order, each address once); returns the count (0: no subnet in
 * common, and the pair falls back to one connection by routing). */
int tcp_rails_pair(const struct tcp_rail_addr *l, int nl, const struct tcp_rail_addr *p,
		   int np, struct tcp_rail_pair *out, int max);

enum tcp_weight_rule {
	TCP_WEIGHTS_ROUND_ROBIN,
	TCP_WEIGHTS_LINKS,
	TCP_WEIGHTS_STATIC,
	TCP_WEIGHTS_FEEDBACK,
	TCP_WEIGHTS_RATE,
	TCP_WEIGHTS_PAPER,
};

/* What a receiver j reports to sender i for one interval, per rail k. */
struct tcp_rail_report {
	uint64_t arrive;        /* R_ijk: bytes from i read on rail k */
	uint64_t path_total;    /* R_jk: bytes from every peer read on j's link of rail k */
	uint64_t arrive_total;  /* R_j: bytes from every peer read on every link of j */
	uint32_t users;         /* peers that sent on j's link of rail k (RI2N+) */
	uint32_t busy;          /* b_k in millionths (0: unknown, taken as 1) */
};

/*
 * The raw weights of one rule for nrails rails into w (any scale;
 * 0: the rail gets nothing from this rule). Round-robin ignores the
 * inputs; links reads rep[k].users; static reads rate[k]; feedback
 * reads rep and sent (S_ijk, bytes written to rail k over the same
 * interval). Rails marked dead in live (0) get 0.
 */
void tcp_weights_raw(enum tcp_weight_rule rule, int nrails, const int *live,
		     const struct tcp_rail_report *rep, const uint64_t *sent, const double *rate,
		     double *w);

/*
 * Smooths raw weights into the shares in use: share_k (summing to 1 over
 * the live rails) moves to the raw share by the fraction beta (1: no
 * memory); a live rail below floor_share is raised to it and the others
 * make room (a floor above 1 / live rails gives equal shares), a dead
 * one gets 0. Raw weights that are all 0
 * leave the shares as they were (renormalised over the live rails; equal
 * where none was set).
 */
void tcp_weights_smooth(int nrails, const int *live, const double *raw, double beta,
			double floor_share, double *share);

#endif
