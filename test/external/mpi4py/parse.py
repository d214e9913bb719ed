# SPDX-License-Identifier: MIT
#
# test/external/mpi4py/parse.py: reads the unittest logs of one rank count
# that `run` keeps (RESULTS/npN: rank-R.log of the last attempt, all.log of
# every attempt, "#### rank-R.log (run A)" opening each rank's part;
# known.tsv, the known failures that apply) and answers `run`:
#   unfinished DIR   the tests the last attempt's ranks were in when it
#                    ended early (a rank log without unittest's "Ran N
#                    tests" line), one id a line
#   done DIR         the tests that have a result, as --xfile patterns
#   report DIR N SECONDS EXIT
#                    the failures, the known failures that passed, and a
#                    last line "P passed, F failed, K known failures, S skipped"
# A test id is unittest's module.Class.method. On N ranks a test failed
# when it failed or erred on any rank, or a run ended in it; it passed
# when it passed on every rank that ran it.
import fnmatch
import os
import re
import sys

START = re.compile(r"^(\w+) \(((?:[\w]+\.)+\w+)\)(.*)$")
RESULT = re.compile(r"(?:^|\.\.\. )(ok|FAIL|ERROR|skipped.*|expected failure|unexpected success)$")
SECTION = re.compile(r"^(FAIL|ERROR): \w+ \(((?:[\w]+\.)+\w+)\)")


def parse_rank(lines):
    """(results {id: word}, current test or None, finished, reasons {id: text})"""
    results, reasons = {}, {}
    current, finished = None, False
    section, last = None, ""
    for line in lines:
        line = line.rstrip("\n")
        m = START.match(line)
        if m and section is None:
            current = m.group(2)
            r = RESULT.search(m.group(3))
            if r:
                results[current] = r.group(1)
            continue
        s = SECTION.match(line)
        if s:
            if section and last:
                reasons.setdefault(section, last)
            section, last = s.group(2), ""
            continue
        if line.startswith("Ran ") and " test" in line:
            finished = True
            if section and last:
                reasons.setdefault(section, last)
            section = None
            continue
        if section is not None:
            if line.strip() and not line.startswith(("---", "===", "Traceback", "  ")):
                last = line.strip()
            continue
        r = RESULT.search(line.strip())
        if r and current and current not in results:
            results[current] = r.group(1)
    if section and last:
        reasons.setdefault(section, last)
    return results, (None if current in results else current), finished, reasons


def rank_logs(d):
    return sorted(f for f in os.listdir(d) if re.match(r"rank-\d+\.log$", f))


def attempts(d):
    """[(rank, attempt, lines)] from all.log"""
    out, cur = [], None
    path = os.path.join(d, "all.log")
    if not os.path.exists(path):
        return out
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^#### rank-(\d+)\.log \(run (\d+)\)$", line.rstrip("\n"))
            if m:
                cur = (int(m.group(1)), int(m.group(2)), [])
                out.append(cur)
            elif cur is not None:
                cur[2].append(line)
    return out


def unfinished(d):
    seen = set()
    for f in rank_logs(d):
        with open(os.path.join(d, f), errors="replace") as fh:
            _, cur, finished, _ = parse_rank(fh)
        if not finished and cur and cur not in seen:
            seen.add(cur)
            print(cur)


def done(d):
    ids = set()
    for _, _, lines in attempts(d):
        ids.update(parse_rank(lines)[0])
    for t in sorted(ids):
        print("*" + t)


def known(d):
    out = []
    path = os.path.join(d, "known.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 3:
                    out.append(parts)
    return out


def report(d, n, secs, rc):
    per = {}        # id -> set of words over ranks and attempts
    why = {}        # id -> a reason
    last_attempt = max((a for _, a, _ in attempts(d)), default=0)
    ended_early = []
    bad_logs = []
    for rank, att, lines in attempts(d):
        res, cur, finished, reasons = parse_rank(lines)
        if att == last_attempt and any(l.startswith("FAILED (") for l in lines):
            bad_logs.append(rank)
        for t, w in res.items():
            per.setdefault(t, set()).add(w.split()[0])
        for t, r in reasons.items():
            why.setdefault(t, "rank %d: %s" % (rank, r))
        if not finished and cur:
            per.setdefault(cur, set()).add("ENDED")
            why.setdefault(cur, "the run ended in this test on rank %d (crash, abort "
                                "or time limit; see all.log)" % rank)
        if not finished and att == last_attempt:
            ended_early.append((rank, cur))
    kn = known(d)

    def known_reason(t):
        for pat, _, reason in kn:
            if t == pat or fnmatch.fnmatchcase(t, pat):
                return reason
        return None

    passed = failed = known_n = skipped = 0
    fails, known_passed = [], []
    for t in sorted(per):
        words = per[t]
        bad = words & {"FAIL", "ERROR", "ENDED", "unexpected"}
        kr = known_reason(t)
        if bad:
            if kr is not None:
                known_n += 1
            else:
                failed += 1
                fails.append((t, why.get(t, "/".join(sorted(bad)))))
        elif words <= {"skipped"}:
            skipped += 1
        else:
            passed += 1
            if kr is not None:
                known_passed.append(t)
    # tests the known-failures file keeps from running
    for pat, skip, reason in kn:
        if skip == "skip" and not any(fnmatch.fnmatchcase(t, "*" + pat) for t in per):
            known_n += 1
    extra = ""
    # mpi4py's runner ends a run whose unittest result is FAILED with
    # MPI_Abort (exit 1), known failures or not: only an exit that the
    # logs do not explain is a failure of its own
    explained = bool(bad_logs) or bool(ended_early)
    if rc != 0 and not explained and not fails:
        failed += 1
        extra = "the run exited with code %d after its tests (see launcher.log)" % rc
    # the last attempt is resumed unless the time limit or the resumes are
    # spent: one that ended early left the tests after it unrun, which no
    # count shows (a 2-rank run of many hangs once covered 1202 tests where
    # 1 rank covered 1482)
    if ended_early:
        failed += 1
        extra = ("the run stopped early and was not resumed (the --timeout limit or the "
                 "resumes were spent): the tests after %s did not run; see %s/all.log"
                 % (", ".join(sorted({"%s on rank %d" % (t or "the start", r)
                                      for r, t in ended_early})), d))
    if not per:
        failed += 1
        extra = "no test ran (exit code %d); see %s/all.log" % (rc, d)
    print("-- np=%s: %d passed, %d failed, %d known failures, %d skipped (%s s)"
          % (n, passed, failed, known_n, skipped, secs))
    # every failure in DIR/failures.txt; here grouped by cause, a few each
    causes = {}
    with open(os.path.join(d, "failures.txt"), "w") as f:
        for t, r in fails:
            f.write("%s\t%s\n" % (t, r))
            c = re.sub(r"^rank \d+: ", "", r)
            c = re.sub(r" \(rank \d+ on host [^)]*\)", "", c)
            c = re.sub(r" \(see the status table in (?:README|docs/status)\.md\)", "", c)
            c = re.sub(r"0x[0-9a-f]+", "0x...", c)
            causes.setdefault(c[:200], []).append(t)
    for c, ts in sorted(causes.items(), key=lambda x: (-len(x[1]), x[0])):
        more = " and %d more" % (len(ts) - 3) if len(ts) > 3 else ""
        print("  FAIL np=%s, %d test%s: %s\n    %s%s" % (n, len(ts), "s" [:len(ts) > 1], c,
                                                   ", ".join(ts[:3]), more))
    if extra:
        print("  FAIL np=%s: %s" % (n, extra))
    for t in known_passed:
        print("  np=%s %s passes now: remove it from known-failures" % (n, t))
    print("%d passed, %d failed, %d known failures, %d skipped" % (passed, failed, known_n,
                                                                   skipped))


def main(argv):
    if len(argv) >= 3 and argv[1] == "unfinished":
        unfinished(argv[2])
    elif len(argv) >= 3 and argv[1] == "done":
        done(argv[2])
    elif len(argv) >= 6 and argv[1] == "report":
        report(argv[2], argv[3], argv[4], int(argv[5]))
    else:
        sys.stderr.write("usage: parse.py unfinished|done DIR | report DIR N SECONDS EXIT\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
