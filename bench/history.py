#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/history.py: the key figures of benchmark runs as rows of
bench/results/history.csv, so that runs removed from the tree (they stay
in git history) can still be compared at a glance.

    bench/history.py bench/results/DATE-NAME ...           # print the rows
    bench/history.py --append bench/results/DATE-NAME      # add them to history.csv

One row per figure a run's own summary files give: each compare.sh
`*-summary.csv` (impl,size,median,min,max), hpcc.sh's `summary.csv`
(ranks,metric,impl,median,min,max,n), startup.sh's `startup.csv` (rounds:
the median, min and max per launcher and rank count are computed here),
count.sh's `instr.csv`, grid-fidelity's `all.csv`, and overlap runs'
`ratios.dat`. A run with none of these gets one row whose note says where
its figures are. Columns:

    date,family,folder,commit,figure,param,impl,median,min,max,note

family is the folder's name less its date and a trailing -runN or
-after-COMMIT; commit is the last commit that touched the folder, so that
`git show COMMIT:bench/results/FOLDER/summary.md` or
`git checkout COMMIT -- bench/results/FOLDER` brings a removed run back.
"""
import csv
import glob
import os
import re
import statistics
import subprocess
import sys

COLUMNS = ["date", "family", "folder", "commit", "figure", "param", "impl",
           "median", "min", "max", "note"]


def family(folder):
    m = re.match(r"(\d{4}-\d\d-\d\d)-(.*)$", folder)
    if not m:
        return "", folder
    date, rest = m.groups()
    rest = re.sub(r"-after-[0-9a-f]+$", "", rest)
    rest = re.sub(r"-run\d+$", "", rest)
    return date, rest


def last_commit(path):
    try:
        out = subprocess.check_output(["git", "log", "-1", "--format=%h", "--", path],
                                      stderr=subprocess.DEVNULL)
        return out.decode().strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def rows_of(path):
    folder = os.path.basename(os.path.normpath(path))
    date, fam = family(folder)
    base = {"date": date, "family": fam, "folder": folder,
            "commit": last_commit(path)}
    out = []

    def add(figure, param, impl, med, lo="", hi="", note=""):
        r = dict(base)
        r.update(figure=figure, param=param, impl=impl, median=med,
                 min=lo, max=hi, note=note)
        out.append(r)

    for f in sorted(glob.glob(os.path.join(path, "*-summary.csv"))):
        fig = os.path.basename(f)[:-len("-summary.csv")]
        with open(f) as fh:
            for r in csv.DictReader(fh):
                # summaries of several operations name each row's in `op`
                add(fig + ("-" + r["op"] if r.get("op") else ""), r.get("size", r.get("P", "")),
                    r.get("impl", "P=" + r.get("P", "")), r["median"], r["min"], r["max"])
    f = os.path.join(path, "summary.csv")
    if os.path.exists(f):
        with open(f) as fh:
            for r in csv.DictReader(fh):
                add("hpcc-" + r["metric"], "np=" + r["ranks"], r["impl"],
                    r["median"], r["min"], r["max"], "n=" + r.get("n", ""))
    f = os.path.join(path, "startup.csv")
    if os.path.exists(f):
        runs = {}
        with open(f) as fh:
            for r in csv.DictReader(fh):
                if r["status"] == "ok":
                    runs.setdefault((r["impl"], int(r["ranks"])), []).append(float(r["seconds"]))
        for (impl, n), v in sorted(runs.items(), key=lambda x: (x[0][1], x[0][0])):
            add("startup-s", "np=%d" % n, impl, "%.3f" % statistics.median(v),
                "%.3f" % min(v), "%.3f" % max(v), "n=%d" % len(v))
    f = os.path.join(path, "instr.csv")
    if os.path.exists(f):
        with open(f) as fh:
            for r in csv.DictReader(fh):
                impl = r.pop("impl")
                for fn, v in r.items():
                    add("instructions-" + fn, "4", impl, v)
    f = os.path.join(path, "all.csv")
    if os.path.exists(f):
        with open(f) as fh:
            for r in csv.DictReader(fh):
                p = "%s/%s %s-%s" % (r["spec"], r["class"], r["src"], r["dst"])
                add("rtt-ms", p, "emulated", r["rtt_median_ms"], r["rtt_min_ms"], "",
                    "configured " + r["rtt_cfg_ms"])
                add("flow1-mbps", p, "emulated", r["flow1_mbps"], "", "",
                    "configured " + r["flow1_cfg_mbps"])
    f = os.path.join(path, "ratios.dat")
    if os.path.exists(f) and not os.path.exists(os.path.join(path, "summary.csv")):
        with open(f) as fh:
            for line in fh:
                v = line.split()
                if len(v) == 7 and not line.startswith("#"):
                    add("overlap-ratio", "np=" + v[0], "michi-async-auto", v[1], v[2], v[3])
                    add("overlap-ratio", "np=" + v[0], "michi-async-off", v[4], v[5], v[6])
    if not out:
        where = [os.path.basename(x) for x in sorted(glob.glob(os.path.join(path, "*")))
                 if re.search(r"(summary\.md|README\.txt)$", x)]
        add("", "", "", "", note="no summary CSV; figures in " + (", ".join(where) or "its files"))
    return out


def main(argv):
    append = False
    if argv and argv[0] == "--append":
        append, argv = True, argv[1:]
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    rows = [r for p in argv for r in rows_of(p)]
    if append:
        hist = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "history.csv")
        new = not os.path.exists(hist)
        with open(hist, "a", newline="") as fh:
            w = csv.DictWriter(fh, COLUMNS, lineterminator="\n")
            if new:
                w.writeheader()
            w.writerows(rows)
    else:
        w = csv.DictWriter(sys.stdout, COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
