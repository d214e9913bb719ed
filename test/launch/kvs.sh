#!/bin/sh
# SPDX-License-Identifier: MIT
# Key-value exchange through mpirun's PMI server at 1, 2, 4 and 8 ranks:
# every rank reads every other rank's key after a fence, values of the
# longest allowed size pass and longer ones are refused, and all ranks
# see the same 32-hex-digit job key.
. "$(dirname "$0")/common.sh"

for n in 1 2 4 8; do
	timeout 60 "$MPIRUN" -n $n "$PROG" --bigval --jobkey --info >"$WORK/out" 2>"$WORK/err"
	rc=$?
	[ $rc -eq 0 ] || { cat "$WORK/err" >&2; fail "$n ranks: mpirun exited $rc"; }
	[ "$(grep -c ' ok$' "$WORK/out")" -eq $n ] || fail "$n ranks: not every rank reported ok"
	[ "$(grep '^jobkey ' "$WORK/out" | sort -u | wc -l)" -eq 1 ] || fail "$n ranks: job keys differ"
	for r in $(seq 0 $((n - 1))); do
		grep -q "^info rank=$r size=$n appnum=0 local_rank=$r local_size=$n " "$WORK/out" ||
			fail "$n ranks: rank $r got wrong PMI info"
	done
done
# no process manager at all: a singleton with a local key-value space
env -u PMI_FD -u PMI_PORT -u PMI_ID timeout 30 "$PROG" --bigval --info >"$WORK/out" 2>"$WORK/err" ||
	fail "singleton failed: $(cat "$WORK/err")"
grep -q '^info rank=0 size=1 .*singleton=1$' "$WORK/out" || fail "singleton info wrong"
exit 0
