#!/bin/sh
# SPDX-License-Identifier: MIT
# Which device and which large-message path a job takes: shm is the default
# between ranks of one host and MICHI_DEVICE=tcp still forces tcp; with
# MICHI_SHM_CMA=on the receiver pulls large messages with process_vm_readv
# (skipped where the kernel forbids it), with MICHI_SHM_CMA=off they stream
# through the rings. Each run is test/mpi/msgsizes (sizes across every
# protocol switch, payloads checked), and the debug log says the path.
. "$(dirname "$0")/common.sh"

: "${top_srcdir:=$(dirname "$0")/../..}"
SRC=$top_srcdir/test/mpi/msgsizes.c
EXE=$WORK/${UNIQ}_msgsizes
build_prog "$EXE" "$SRC" -I"$top_srcdir/test/mpi"

# run ENV...: msgsizes on 2 ranks with MICHI_LOG=debug, must pass
run() {
	env MICHI_LOG=debug "$@" timeout 120 "$MPIRUN" -n 2 "$EXE" >"$WORK/out" 2>"$WORK/err" ||
		fail "$*: exit $?: $(tail -5 "$WORK/err")"
	grep -q " No Errors" "$WORK/out" || fail "$*: no ' No Errors': $(tail -5 "$WORK/out")"
}

run MICHI_SHM_CMA=auto
grep -q "shm: created" "$WORK/err" || fail "default: shm did not serve the job"

run MICHI_DEVICE=tcp
grep -q "shm: created\|shm: attached" "$WORK/err" && fail "MICHI_DEVICE=tcp still started shm"

run MICHI_SHM_CMA=off
grep -q "pipelined two-copy" "$WORK/err" || fail "CMA off: no two-copy line"
grep -q "single-copy CMA pull in use" "$WORK/err" && fail "CMA off but CMA used"

run MICHI_SHM_CMA=on
if grep -q "process_vm_readv is not permitted" "$WORK/err"; then
	echo "CMA not permitted on this machine: single-copy path not tested" >&2
	exit 77
fi
grep -q "single-copy CMA pull in use" "$WORK/err" || fail "CMA on: the pull was not used"
exit 0
