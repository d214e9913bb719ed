#!/bin/sh
# SPDX-License-Identifier: MIT
# Two jobs, started by two mpiruns, meet with MPI_Open_port,
# MPI_Comm_accept and MPI_Comm_connect (the port name passed in a file):
# each rank of one talks to each rank of the other, they merge and
# reduce (test/launch/dynjobs_prog.c), over shm-less tcp between the jobs
# whatever device each job uses inside. Their job keys differ: the ranks
# admit the other job's processes by (key, rank) once connected. While
# the jobs are linked, a stranger connects to every port the server's
# ranks listen on and sends a tcp hello with a random key: every such
# connection is refused (a reply with status BADKEY, or closed, or no
# answer), never accepted. Both jobs must then end with " No Errors".
. "$(dirname "$0")/common.sh"

command -v python3 >/dev/null || skip "python3 is missing"
: "${top_srcdir:=$(dirname "$0")/../..}"
PROG=$WORK/${UNIQ}_dyn
build_prog "$PROG" "$top_srcdir/test/launch/dynjobs_prog.c"
PORTF=$WORK/port

for dev in "" tcp; do
	rm -f "$PORTF" "$PORTF.go"
	MICHI_DEVICE=$dev timeout 60 "$MPIRUN" -n 2 "$PROG" server "$PORTF" \
		>"$WORK/server.out" 2>"$WORK/server.err" &
	S=$!
	MICHI_DEVICE=$dev timeout 60 "$MPIRUN" -n 3 "$PROG" client "$PORTF" \
		>"$WORK/client.out" 2>"$WORK/client.err" &
	C=$!
	i=0
	while [ "$(grep -c '^linked server' "$WORK/server.out")" -lt 2 ]; do
		i=$((i + 1))
		[ $i -gt 300 ] && fail "device '${dev:-auto}': the jobs did not link:" \
			"$(cat "$WORK/server.out" "$WORK/server.err" "$WORK/client.out" "$WORK/client.err")"
		sleep 0.1
	done
	PIDS=$(sed -n 's/^linked server rank [0-9]* pid \([0-9]*\)$/\1/p' "$WORK/server.out" | tr '\n' ' ')
	cat >"$WORK/stranger.py" <<'EOS'
import os, socket, struct, sys

sys.path.insert(0, os.environ["LISTENING_PY_DIR"])
from listening import listening  # noqa: E402

targets = []
for pid in sys.argv[1:]:
    targets += listening(int(pid))
if len(targets) < len(sys.argv) - 1:
    sys.exit("stranger: expected a listening port per rank, found %r" % targets)
badkey = 0
for ip, port in targets:
    for rank in (0, 1, 2):
        s = socket.socket()
        s.settimeout(2)
        s.connect((ip, port))
        # struct tcp_hello: magic[6] version u16 bom u32 key[16] rank i32 slot u32
        # resume u32 read u64
        s.sendall(b"MICHI\0" + struct.pack("=HI", int(os.environ["TCP_VERSION"]), 0x01020304) +
                  os.urandom(16) + struct.pack("=iIIQ", rank, 0, 0, 0))
        try:
            r = s.recv(16)
        except socket.timeout:
            r = b""
        s.close()
        if len(r) >= 12:
            status = struct.unpack("=i", r[8:12])[0]
            if status == 0:
                sys.exit("stranger: %s:%d accepted a hello with a random key" % (ip, port))
            badkey += status == 2
        elif r[:2] == b"OK":
            sys.exit("stranger: %s:%d accepted" % (ip, port))
if badkey < 3 * (len(sys.argv) - 1):
    sys.exit("stranger: expected every rank's tcp port to answer BADKEY, got %d" % badkey)
print("stranger refused on %d ports" % len(targets))
EOS
	# shellcheck disable=SC2086 # a list of pids
	TCP_VERSION=$(sed -n 's/^#define TCP_VERSION *\([0-9]*\).*/\1/p' "$top_srcdir/devices/tcp/tcp.h") \
	LISTENING_PY_DIR=$(cd "$(dirname "$0")" && pwd) python3 "$WORK/stranger.py" $PIDS >"$WORK/stranger.out" 2>&1 || {
		touch "$PORTF.go"; fail "device '${dev:-auto}': $(cat "$WORK/stranger.out")"; }
	touch "$PORTF.go"
	wait $S || fail "device '${dev:-auto}': server job failed: $(cat "$WORK/server.out" "$WORK/server.err")"
	wait $C || fail "device '${dev:-auto}': client job failed: $(cat "$WORK/client.out" "$WORK/client.err")"
	grep -q '^ No Errors' "$WORK/server.out" || fail "server: $(cat "$WORK/server.out")"
	grep -q '^ No Errors' "$WORK/client.out" || fail "client: $(cat "$WORK/client.out")"
	grep -q 'dropped' "$WORK/server.err" ||
		fail "device '${dev:-auto}': the server's ranks did not log the stranger"
done
echo "PASS: two mpirun jobs linked by accept/connect (shm and tcp inside), strangers refused"
