#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/shm-placement.sh [-n ITERS] [-s BYTES] [-o DIR] [-- CFG=ENV ...]:
# shared-memory ping-pong latency at one size (default 4096), Michi beside
# MPICH and Open MPI (when mpirun.openmpi is there), in rapid alternation
# for ITERS rounds (default 400), each rank
# pinned to its own CPU, so that both see the same placement of the
# guest's vCPUs on the host (issue 32: on a VM the cost of moving a line
# between the two cores changes from minute to minute, by 3x and more).
# Each round runs every Michi configuration (default: `adaptive`, the
# library's defaults; `split`, MICHI_SHM_FAR_NS=0, frames of a few KiB
# always in two records; `whole`, MICHI_SHM_FAR_NS=1, always in one),
# MPICH and Open MPI once, 20000 iterations each. Writes
# DIR/placement.csv (round,cfg,us) and DIR/summary.md: the rounds split
# by MPICH's latency where it jumps (the largest gap between sorted
# values, when above 1.5x), medians per regime, and each Michi
# configuration over the better peer's median. Michi is MICHI_PREFIX
# (default build/install).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
iters=400 size=4096 out=
while getopts n:s:o: o; do
	case $o in
	n) iters=$OPTARG ;;
	s) size=$OPTARG ;;
	o) out=$OPTARG ;;
	*) sed -n '3,19p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
cfgs=("$@")
[ ${#cfgs[@]} -gt 0 ] || cfgs=("adaptive=" "split=MICHI_SHM_FAR_NS=0" "whole=MICHI_SHM_FAR_NS=1")
prefix=${MICHI_PREFIX:-$here/../build/install}
[ -x "$prefix/bin/mpirun" ] || { echo "shm-placement: no Michi at $prefix" >&2; exit 77; }
command -v mpicc.mpich >/dev/null || { echo "shm-placement: mpicc.mpich is missing" >&2; exit 77; }
out=${out:-$here/results/$(date -u +%Y-%m-%d)-shm-placement}
mkdir -p "$out"
work=$(mktemp -d /tmp/shm-placement.XXXXXX)
trap 'rm -rf "$work"' EXIT
mpicc.mpich -O2 -std=gnu11 -o "$work/pingpong" "$here/pingpong.c"
ompi=
if command -v mpirun.openmpi >/dev/null && command -v mpicc.openmpi >/dev/null; then
	mpicc.openmpi -O2 -std=gnu11 -o "$work/pingpong.openmpi" "$here/pingpong.c" && ompi=1
fi
cat >"$work/place" <<'PLACE'
#!/bin/sh
rank=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}
exec taskset -c $((rank % $(nproc))) "$@"
PLACE
chmod +x "$work/place"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "cpu: $("$here/cpu-id.sh")"
	echo "cores: $(nproc)"
	echo "kernel: $(uname -r)"
	echo "tree: $(git -C "$here" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "size: $size, rounds: $iters, configurations: ${cfgs[*]}"
	echo "mpich: $(mpiexec.mpich --version 2>/dev/null | sed -n 's/^ *Version: *//p' | head -1)"
	[ -z "$ompi" ] || echo "openmpi: $(mpirun.openmpi --version 2>/dev/null | head -1)"
} >"$out/machine.txt"
# one PROG LAUNCHER...: PROG's 4 KiB latency under the launcher
one() { p=$1; shift; "$@" "$work/place" "$p" -t lat -m "$size:$size" -i 20000 2>/dev/null |
	tail -n 1 | cut -d, -f2; }
echo "round,cfg,us" >"$out/placement.csv"
for r in $(seq 1 "$iters"); do
	for c in "${cfgs[@]}"; do
		name=${c%%=*} env=${c#*=}
		# shellcheck disable=SC2086
		v=$(one "$work/pingpong" env $env LD_LIBRARY_PATH="$prefix/lib" "$prefix/bin/mpirun" -n 2)
		echo "$r,$name,${v:-}" >>"$out/placement.csv"
	done
	echo "$r,mpich,$(one "$work/pingpong" mpiexec.mpich -n 2)" >>"$out/placement.csv"
	[ -z "$ompi" ] || echo "$r,openmpi,$(one "$work/pingpong.openmpi" env OMPI_ALLOW_RUN_AS_ROOT=1 \
		OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun.openmpi -n 2 --bind-to none)" >>"$out/placement.csv"
done
python3 - "$out" <<'PY'
import csv, os, statistics as st, sys
d = sys.argv[1]
rows = {}
for x in csv.DictReader(open(os.path.join(d, 'placement.csv'))):
    try:
        rows.setdefault(int(x['round']), {})[x['cfg']] = float(x['us'])
    except ValueError:
        pass
rows = {r: v for r, v in rows.items() if 'mpich' in v}
m = sorted(v['mpich'] for v in rows.values())
cut = None
if len(m) > 1:
    k = max(range(1, len(m)), key=lambda i: m[i] / m[i - 1])
    if m[k] / m[k - 1] > 1.5:
        cut = (m[k] + m[k - 1]) / 2
cfgs = [c for c in next(iter(rows.values()))] if rows else []
peers = [c for c in cfgs if c in ('mpich', 'openmpi')]
mine = [c for c in cfgs if c not in peers]
md = ['# Shared-memory latency by placement of the two cores', '',
      open(os.path.join(d, 'machine.txt')).read().strip().replace('\n', '; '), '',
      'Rounds split by MPICH\'s latency' +
      (f' at {cut:.3f} us (the largest jump between its sorted rounds)' if cut else
       ': no jump above 1.5x, one regime') + '; medians, us; each Michi configuration '
      'over the better peer:', '',
      '| regime | rounds | ' + ' | '.join(cfgs) + ' | ' +
      ' | '.join(f'{c} / better peer' for c in mine) + ' |',
      '|---|---:|' + '---:|' * (len(cfgs) + len(mine))]
for name, keep in (('near', lambda v: cut is None or v < cut), ('far', lambda v: cut is not None and v > cut)):
    sel = [v for v in rows.values() if keep(v['mpich'])]
    if not sel:
        continue
    med = {c: st.median(v[c] for v in sel if c in v) for c in cfgs}
    best = min(med[c] for c in peers)
    md.append(f'| {name} | {len(sel)} | ' + ' | '.join(f'{med[c]:.3f}' for c in cfgs) + ' | ' +
              ' | '.join(f'{med[c] / best:.2f}' for c in mine) + ' |')
open(os.path.join(d, 'summary.md'), 'w').write('\n'.join(md) + '\n')
print('\n'.join(md))
PY
