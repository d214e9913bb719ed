#!/bin/sh
# SPDX-License-Identifier: MIT
# Ranks of one host whose wait settings differ (here an MPMD program with
# its own MICHI_WAIT_POLICY): a rank that may sleep sleeps only where
# every local peer wakes sleepers. Otherwise it would sleep through each
# message of a peer that never wakes it, up to wait_block_ms every time;
# it warns once and yields instead. Checked through MPI_T's shm_sleeps:
# above 0 on rank 0 when both ranks may sleep, 0 on the rank that may
# sleep when its peer does not wake it, whichever rank that is.
. "$(dirname "$0")/common.sh"

: "${top_srcdir:=$(dirname "$0")/../..}"
unset MICHI_WAIT_POLICY MICHI_WAIT_SPIN MICHI_WAIT_YIELD MICHI_DEVICE
EXE=$WORK/${UNIQ}_prog
build_prog "$EXE" "$top_srcdir/test/launch/wait_mismatch_prog.c"
WARN="does not wake sleeping peers"

# run NAME MPIRUN-ARGS...: the job must pass, both ranks print ok
run() {
	_name=$1
	shift
	timeout 60 "$MPIRUN" "$@" >"$WORK/out" 2>"$WORK/err" ||
		fail "$_name: exit $?: $(tail -5 "$WORK/err")"
	[ "$(grep -c '^ok$' "$WORK/out")" = 2 ] ||
		fail "$_name: not 2 ranks ok: $(cat "$WORK/out") $(tail -5 "$WORK/err")"
}
sleeps() { sed -n "s/^sleeps rank=$1 n=//p" "$WORK/out"; }

run "both block" -genv MICHI_WAIT_POLICY block -n 2 "$EXE"
n=$(sleeps 0)
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "both block: rank 0 never slept (shm_sleeps '$n')"
grep -q "$WARN" "$WORK/err" && fail "both block: a warning: $(grep "$WARN" "$WORK/err")"

run "rank 0 blocks" -n 1 -env MICHI_WAIT_POLICY block "$EXE" : -n 1 "$EXE"
[ "$(sleeps 0)" = 0 ] || fail "rank 0 blocks: it slept $(sleeps 0) times though rank 1 does not wake it"
[ "$(grep -c "$WARN" "$WORK/err")" = 1 ] || fail "rank 0 blocks: not one warning: $(cat "$WORK/err")"
grep "$WARN" "$WORK/err" | grep -q "rank 0 on .*world rank 1" ||
	fail "rank 0 blocks: the warning names the wrong ranks: $(grep "$WARN" "$WORK/err")"

run "rank 1 blocks" -n 1 "$EXE" : -n 1 -env MICHI_WAIT_POLICY block "$EXE"
[ "$(sleeps 1)" = 0 ] || fail "rank 1 blocks: it slept $(sleeps 1) times though rank 0 does not wake it"
[ "$(grep -c "$WARN" "$WORK/err")" = 1 ] || fail "rank 1 blocks: not one warning: $(cat "$WORK/err")"
exit 0
