# SPDX-License-Identifier: MIT
"""test/launch/listening.py: the IPv4 TCP ports a process listens on, read
from /proc (its socket inodes, matched against /proc/PID/net/tcp), for
the tests that knock on a job's ports from outside it (rogue.sh: garbage
and wrong keys; dynjobs.sh: a stranger to two linked jobs)."""
import os
import socket
import struct


def listening(pid):
    """(addr, port) pairs that pid listens on; 0.0.0.0 reads as 127.0.0.1."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            t = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if t.startswith("socket:["):
            inodes.add(t[8:-1])
    out = []
    with open("/proc/%d/net/tcp" % pid) as f:
        lines = f.readlines()[1:]
    for line in lines:
        f = line.split()
        if f[3] == "0A" and f[9] in inodes:
            a, p = f[1].split(":")
            ip = socket.inet_ntoa(struct.pack("<I", int(a, 16)))
            out.append(("127.0.0.1" if ip == "0.0.0.0" else ip, int(p, 16)))
    return out
