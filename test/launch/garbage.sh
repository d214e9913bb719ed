#!/bin/sh
# SPDX-License-Identifier: MIT
# The proxy's PMI server against a broken client: lines without '=',
# without cmd, with NUL bytes, overlong lines, unknown commands and
# mcmd=spawn each get an error answer, and the same connection then still
# works (init, put, fence, get, finalize), with no effect on other ranks.
. "$(dirname "$0")/common.sh"

command -v python3 >/dev/null || skip "python3 is missing"
cat >"$WORK/bad_rank.py" <<'EOS'
import os, socket, sys
fd = int(os.environ["PMI_FD"])
rank = int(os.environ["PMI_RANK"])
s = socket.socket(fileno=fd)
f = s.makefile("rwb", buffering=0)
def ask(line):
    s.sendall(line)
    return f.readline().decode()
bad = [b"cmd=put key\n", b"key=a value=b\n", b"cmd=put key=a\x00b value=c\n",
       b"cmd=put key=a key=b\n", b"cmd=frobnicate\n", b"mcmd=spawn\n",
       b"cmd=get key=" + b"x" * 10000 + b"\n", b"=\n"]
for line in bad:
    r = ask(line)
    if not r.startswith("cmd=error rc=-1"):
        sys.exit("rank %d: no error for %r: %r" % (rank, line[:40], r))
r = ask(b"cmd=init pmi_version=1 pmi_subversion=1\n")
assert r.startswith("cmd=response_to_init") and "rc=0" in r, r
r = ask(b"cmd=get_my_kvsname\n")
kvs = r.split("kvsname=")[1].split()[0]
r = ask(("cmd=put kvsname=%s key=py%d value=ok%d\n" % (kvs, rank, rank)).encode())
assert "rc=0" in r, r
r = ask(b"cmd=put kvsname=%s key=big value=%s\n" % (kvs.encode(), b"v" * 2000))
assert "rc=-1" in r, r
r = ask(b"cmd=barrier_in\n")
assert r.startswith("cmd=barrier_out"), r
other = 1 - rank
r = ask(("cmd=get kvsname=%s key=py%d\n" % (kvs, other)).encode())
assert ("value=ok%d" % other) in r, r
r = ask(b"cmd=finalize\n")
assert r.startswith("cmd=finalize_ack"), r
print("rank %d survived" % rank)
EOS
timeout 60 "$MPIRUN" -n 2 python3 "$WORK/bad_rank.py" >"$WORK/out" 2>"$WORK/err"
rc=$?
[ $rc -eq 0 ] || fail "exit $rc: $(cat "$WORK/err")"
[ "$(grep -c 'survived' "$WORK/out")" -eq 2 ] || fail "not both ranks survived: $(cat "$WORK/out" "$WORK/err")"
exit 0
