#!/bin/sh
# SPDX-License-Identifier: MIT
# 1000 rogue connections during a running job do it no harm. Two proxies
# that connect back to mpirun over TCP (an exec template that runs them
# here under the host names ra and rb), two ranks each, tcp between the
# two "hosts" (test/net/failprog.c: allreduce and ring in a loop, sums
# checked). While it runs, a client opens 1000 connections (50 at a time)
# to mpirun's connect-back port and to every rank's tcp port: some close
# at once, some send a hello with a wrong job key or cookie, some random
# bytes, and some half a handshake and then stay silent until dropped,
# which must happen within the handshake timeout (5 s) plus 2 s. The job
# must end on time with every sum right, mpirun and the ranks must log the
# drops, rate-limited (far fewer lines than connections).
. "$(dirname "$0")/common.sh"

command -v python3 >/dev/null || skip "python3 is missing"
: "${top_srcdir:=$(dirname "$0")/../..}"
FP=$WORK/${UNIQ}_failprog
if [ -n "${MICHI_MPICC:-}" ]; then
	$MICHI_MPICC -o "$FP" "$top_srcdir/test/net/failprog.c" 2>"$WORK/err" ||
		fail "cannot build failprog: $(cat "$WORK/err")"
else
	[ -e "$top_builddir/.libs/libmpi.so" ] || fail "no libmpi.so in $top_builddir/.libs"
	LIBDIR=$(cd "$top_builddir/.libs" && pwd)
	${CC:-cc} -I"$top_srcdir/mpi/include" -o "$FP" "$top_srcdir/test/net/failprog.c" \
		-L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lmpi 2>"$WORK/err" ||
		fail "cannot build failprog: $(cat "$WORK/err")"
fi
# the template: drop the host name, run the proxy here
VIA=$WORK/${UNIQ}_via
printf '#!/bin/sh\nshift\nexec "$@"\n' >"$VIA"
chmod +x "$VIA"

SECS=15
: >"$WORK/out"   # grep below may run before the background job opens it
timeout 60 "$MPIRUN" --timeout 45 --launcher exec --launcher-exec "$VIA {host}" \
	--host ra:2,rb:2 -n 4 "$FP" $SECS 20 >"$WORK/out" 2>"$WORK/err" &
JOB=$!
i=0
while [ "$(grep -c '^failprog rank [0-9]* host .* pid [0-9]*$' "$WORK/out")" -lt 4 ]; do
	i=$((i + 1))
	[ $i -gt 300 ] && fail "the job did not start: $(cat "$WORK/err")"
	kill -0 $JOB 2>/dev/null || fail "the job ended early: $(cat "$WORK/out" "$WORK/err")"
	sleep 0.1
done
T0=$(now_ms)
MP=$(pgrep -P $JOB)
RANKS=$(sed -n 's/^failprog rank [0-9]* host .* pid \([0-9]*\)$/\1/p' "$WORK/out" | tr '\n' ' ')

cat >"$WORK/rogue.py" <<'EOS'
import os, random, socket, struct, sys, threading, time

sys.path.insert(0, os.environ["LISTENING_PY_DIR"])
from listening import listening  # noqa: E402

mpirun = int(sys.argv[1])
ranks = [int(x) for x in sys.argv[2:]]
targets = [("mpirun",) + a for a in listening(mpirun)]
for r in ranks:
    targets += [("rank",) + a for a in listening(r)]
nm = sum(1 for t in targets if t[0] == "mpirun")
nr = sum(1 for t in targets if t[0] == "rank")
if nm != 1 or nr < len(ranks):
    sys.exit("rogue: expected mpirun's port and one per rank, found %r" % targets)

def hello(key):
    # struct tcp_hello: magic[6] version u16 bom u32 key[16] rank i32 slot u32
    # resume u32 read u64
    return (b"MICHI\0" + struct.pack("=HI", int(os.environ["TCP_VERSION"]), 0x01020304) + key +
            struct.pack("=iIIQ", 0, 0, 0, 0))

lock = threading.Lock()
stats = {"done": 0, "held": 0, "held_late": 0, "errors": 0}
held_max = 0.0

def one(i):
    global held_max
    kind, ip, port = targets[i % len(targets)]
    what = (i // len(targets)) % 5
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect((ip, port))
        if what == 0:
            pass                                   # connect, close
        elif what == 1:                            # the wrong key or cookie
            s.sendall(hello(os.urandom(16)) if kind == "rank" else
                      b"cmd=hello cookie=%s:0 host=rogue\n" % os.urandom(16).hex().encode())
        elif what == 2:                            # random bytes
            s.sendall(os.urandom(random.randint(1, 3000)))
        elif what == 3:                            # looks right, is not
            s.sendall(b"MICHI\0\x07\x00" + os.urandom(40) if kind == "rank" else
                      b"cmd=hello\n" + os.urandom(100))
        elif i % 3 == 0:                           # half a handshake, then silence
            s.sendall(b"MICHI\0\x01" if kind == "rank" else b"cmd=hel")
            t0 = time.time()
            s.settimeout(9)
            try:
                while s.recv(100):
                    pass
            except (socket.timeout, ConnectionResetError):
                pass
            dt = time.time() - t0
            with lock:
                stats["held"] += 1
                held_max = max(held_max, dt)
                if dt > 7.0:
                    stats["held_late"] += 1
        else:
            s.sendall(b"\0" * 48)
    except OSError:
        with lock:
            stats["errors"] += 1
    finally:
        s.close()
        with lock:
            stats["done"] += 1

sem = threading.Semaphore(50)
def run(i):
    try:
        one(i)
    finally:
        sem.release()
threads = []
t0 = time.time()
for i in range(1000):
    sem.acquire()
    t = threading.Thread(target=run, args=(i,))
    t.start()
    threads.append(t)
for t in threads:
    t.join()
print("rogue: %d connections to %d ports in %.1f s, %d held silent (longest %.1f s, "
      "%d past 7 s), %d errors" % (stats["done"], len(targets), time.time() - t0, stats["held"],
                                   held_max, stats["held_late"], stats["errors"]))
if stats["done"] != 1000 or stats["held_late"] or stats["held"] == 0:
    sys.exit(1)
EOS
TCP_VERSION=$(sed -n 's/^#define TCP_VERSION *\([0-9]*\).*/\1/p' "$top_srcdir/devices/tcp/tcp.h") \
	LISTENING_PY_DIR=$(cd "$(dirname "$0")" && pwd) timeout 40 python3 "$WORK/rogue.py" "$MP" $RANKS >"$WORK/rogue" 2>&1 ||
	fail "rogue client: $(cat "$WORK/rogue")"
cat "$WORK/rogue" >&2
T1=$(now_ms)
kill -0 $JOB 2>/dev/null || fail "the job ended before the rogue connections did: $(cat "$WORK/err")"
wait $JOB
rc=$?
T2=$(now_ms)
[ $rc -eq 0 ] || fail "the job failed (exit $rc): $(tail -5 "$WORK/out") $(tail -5 "$WORK/err")"
[ "$(grep -c '^failprog rank [0-9]* ok [0-9]*$' "$WORK/out")" -eq 4 ] ||
	fail "not every rank's sums were right: $(grep -v 'pid' "$WORK/out")"
# the job's own time (SECS) from start plus init and finalize: the rogues
# did not hold it up
[ $((T2 - T0)) -lt $(((SECS + 6) * 1000)) ] || fail "the job took $((T2 - T0)) ms"
grep -q 'mpirun: rejected a connection from .*: wrong cookie' "$WORK/err" ||
	fail "mpirun logged no wrong cookie: $(head -5 "$WORK/err")"
grep -q 'mpirun: rejected a connection from .*: no hello within' "$WORK/err" ||
	grep -q 'newer connections are waiting' "$WORK/err" ||
	fail "mpirun logged no silent connection: $(grep mpirun "$WORK/err" | head -5)"
grep -q 'tcp: rank [0-9]*: connection from .* dropped: job key differs' "$WORK/err" ||
	fail "no rank logged a wrong job key: $(head -5 "$WORK/err")"
grep -q 'tcp: rank [0-9]*: connection from .* dropped: no handshake within' "$WORK/err" ||
	fail "no rank logged a silent connection: $(head -5 "$WORK/err")"
grep -q 'more dropped, not logged\|more rejected, not logged' "$WORK/err" ||
	fail "the drops were not rate-limited"
n=$(grep -c 'dropped\|rejected' "$WORK/err")
[ "$n" -lt 500 ] || fail "$n log lines for 1000 connections: not rate-limited"
echo "rogue: $n log lines, job done $((T2 - T1)) ms after the rogues" >&2
gone "$UNIQ" 30 || fail "processes left: $(pgrep -af "$UNIQ")"
exit 0
