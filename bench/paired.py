#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-round ratios of Michi to the better peer, from a compare.sh CSV.

compare.sh interleaves the implementations round by round, so the fairest
figure on a machine whose speed drifts is the ratio inside each round.
usage: paired.py CSV lower|higher [SIZE]
  lower: smaller values are better (latency, us); higher: bandwidth.
Prints one Markdown paragraph: every round's Michi/better-peer ratio, their
median, and in how many rounds Michi was better.
"""
import csv
import statistics
import sys


def main():
    if len(sys.argv) < 3 or sys.argv[2] not in ("lower", "higher"):
        sys.exit(__doc__)
    lower = sys.argv[2] == "lower"
    size = sys.argv[3] if len(sys.argv) > 3 else None
    rounds = {}
    with open(sys.argv[1]) as f:
        for row in csv.DictReader(f):
            if size is not None and row["size"] != size:
                continue
            rounds.setdefault((row["size"], row["round"]), {})[row["impl"]] = float(row["value"])
    ratios = []
    for key in sorted(rounds, key=lambda k: (int(k[0]), int(k[1]))):
        r = rounds[key]
        peers = [r[p] for p in ("mpich", "openmpi") if p in r]
        if "michi" not in r or not peers:
            continue
        best = min(peers) if lower else max(peers)
        ratios.append(r["michi"] / best)
    if not ratios:
        sys.exit("paired.py: no round with Michi and a peer")
    better = sum(1 for x in ratios if (x < 1 if lower else x > 1))
    what = "time" if lower else "bandwidth"
    print("Per round, Michi's %s divided by the better peer's in the same round:" % what)
    print(" ".join("%.2f" % x for x in ratios) + ";")
    print("median %.3f, Michi better in %d of %d rounds." %
          (statistics.median(ratios), better, len(ratios)))


if __name__ == "__main__":
    main()
