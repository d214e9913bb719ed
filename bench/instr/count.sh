#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Counts the user-mode instructions one MPI_Isend, MPI_Irecv and MPI_Wait
# of a 4-byte message cost in one MPI implementation (BENCH.md,
# "Instruction counts"), and one MPI_Test that finds a receive from
# MPI_ANY_SOURCE still pending (the idle poll of a test loop). It builds
# isend_loop.c, runs 2 ranks with rank 0 under callgrind (collecting only
# instr_loop() and instr_test_idle(), after a warm-up), takes
# each function's inclusive count from `callgrind_annotate --inclusive=yes`
# and divides it by the number of calls read from the callgrind.out file's
# calls= lines. The same file is also summed independently as a check.
# Michi is run from the binary built by mpicc.mpich with LD_LIBRARY_PATH
# pointing at $MICHI_PREFIX/lib, as users of the MPICH ABI would.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
iters=20000
transport=
mode=completed
out=
keep=0

usage() {
	cat <<EOF
usage: $0 [-d tcp|shm] [-n iters] [-p] [-o file] [-k] michi|mpich|openmpi
  -d  transport (default: tcp for michi, shm for mpich and openmpi)
      michi: MICHI_DEVICE=<transport>, or a matching device:
      ofi-tcp, ofi-shm (FI_PROVIDER), ucx-tcp, ucx-sm (UCX_TLS=<x>,self),
      which also prints Michi's share (native_share.py);
      mpich tcp: UCX_TLS=tcp,self;
      openmpi tcp: --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo
  -n  measured iterations (default 20000)
  -p  plain waits: MPI_Wait also pays for the progress of the receive
      (default: every MPI_Wait is on an already completed request)
  -o  results file (default $here/results-<impl>-<transport>[-plain].txt)
  -k  keep the scratch directory (callgrind.out, annotate output)
Michi needs MICHI_PREFIX (bin/mpirun, lib/libmpich.so.12 or libmpi.so.12).
EOF
	exit 2
}

while getopts "d:n:po:kh" opt; do
	case $opt in
	d) transport=$OPTARG ;;
	n) iters=$OPTARG ;;
	p) mode=plain ;;
	o) out=$OPTARG ;;
	k) keep=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
impl=$1
[[ $iters =~ ^[1-9][0-9]*$ ]] || { echo "count.sh: -n needs a positive integer" >&2; exit 2; }

for tool in valgrind callgrind_annotate mpicc.mpich; do
	command -v $tool >/dev/null || { echo "count.sh: $tool not found" >&2; exit 1; }
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/michi-instr.XXXXXX")
cleanup() { [ $keep = 1 ] && echo "count.sh: kept $scratch" >&2 || rm -rf "$scratch"; }
trap cleanup EXIT

declare -a launch envs
case $impl in
mpich)
	transport=${transport:-shm}
	mpicc.mpich -O2 -g -std=gnu11 -o "$scratch/isend_loop" "$here/isend_loop.c"
	launch=(mpiexec.mpich -n 2)
	case $transport in
	tcp) envs=(UCX_TLS=tcp,self) ;;
	shm) envs=() ;;
	*) echo "count.sh: mpich transports are tcp and shm" >&2; exit 2 ;;
	esac
	;;
openmpi)
	transport=${transport:-shm}
	mpicc.openmpi -O2 -g -std=gnu11 -o "$scratch/isend_loop" "$here/isend_loop.c"
	envs=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
	launch=(mpirun.openmpi -n 2)
	case $transport in
	tcp) launch+=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo) ;;
	shm) ;;
	*) echo "count.sh: openmpi transports are tcp and shm" >&2; exit 2 ;;
	esac
	;;
michi)
	transport=${transport:-tcp}
	if [ -z "${MICHI_PREFIX:-}" ] || [ ! -x "$MICHI_PREFIX/bin/mpirun" ]; then
		echo "count.sh: set MICHI_PREFIX to an installed Michi (bin/mpirun)" >&2
		exit 1
	fi
	mpicc.mpich -O2 -g -std=gnu11 -o "$scratch/isend_loop" "$here/isend_loop.c"
	# The binary needs libmpich.so.12 (Debian's soname); Michi installs
	# libmpi.so.12, possibly without the alias.
	libpath=$MICHI_PREFIX/lib
	if [ ! -e "$libpath/libmpich.so.12" ] && [ -e "$libpath/libmpi.so.12" ]; then
		mkdir "$scratch/lib"
		ln -s "$libpath/libmpi.so.12" "$scratch/lib/libmpich.so.12"
		libpath=$scratch/lib:$libpath
	fi
	libpath=$libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	if ! LD_LIBRARY_PATH=$libpath ldd "$scratch/isend_loop" |
		grep -q "libmpich.so.12 => \($MICHI_PREFIX\|$scratch\)/"; then
		echo "count.sh: the binary would not load Michi from $MICHI_PREFIX/lib" >&2
		exit 1
	fi
	launch=("$MICHI_PREFIX/bin/mpirun" -n 2)
	# the matching devices: ofi-<libfabric provider>, ucx-<UCX_TLS=x,self>
	case $transport in
	ofi-*) envs=(MICHI_DEVICE=ofi FI_PROVIDER=${transport#ofi-}) ;;
	ucx-*) envs=(MICHI_DEVICE=ucx UCX_TLS=${transport#ucx-},self) ;;
	*) envs=(MICHI_DEVICE=$transport) ;;
	esac
	envs+=("LD_LIBRARY_PATH=$libpath")
	;;
*)
	usage
	;;
esac

# The launcher starts the same command for both ranks; this wrapper puts
# only rank 0 under callgrind. Rank variables: PMI_RANK (Hydra, Michi's
# PMI-1 launcher), OMPI_COMM_WORLD_RANK (Open MPI), PMIX_RANK (PMIx).
cat >"$scratch/rank0-callgrind" <<EOF
#!/bin/sh
rank=\${PMI_RANK:-\${OMPI_COMM_WORLD_RANK:-\${PMIX_RANK:-}}}
if [ -z "\$rank" ]; then
	echo "rank0-callgrind: no PMI_RANK/OMPI_COMM_WORLD_RANK/PMIX_RANK" >&2
	exit 1
fi
if [ "\$rank" = 0 ]; then
	exec valgrind -q --tool=callgrind --collect-atstart=no \\
		--toggle-collect=instr_loop --toggle-collect=instr_test_idle \\
		--dump-instr=no \\
		--callgrind-out-file="$scratch/callgrind.out" "\$@"
fi
exec "\$@"
EOF
chmod +x "$scratch/rank0-callgrind"

args=(-n "$iters")
[ $mode = plain ] && args+=(-p)
# Ranks can outlive a killed launcher (Open MPI's do); every process of
# this run names the private scratch directory on its command line.
end_leftovers() {
	local d pid
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ "$pid" = $$ ] && continue
		tr '\0' ' ' 2>/dev/null <"$d/cmdline" | grep -qF "$scratch/" || continue
		kill -KILL "$pid" 2>/dev/null || true
	done
}

# Rank 0 runs some 50 times slower under valgrind; the limit only stops a
# hung job.
set +e
env "${envs[@]}" timeout -k 10 600 "${launch[@]}" \
	"$scratch/rank0-callgrind" "$scratch/isend_loop" "${args[@]}" \
	>"$scratch/run.log" 2>&1
rc=$?
set -e
end_leftovers
if [ $rc -ne 0 ] || [ ! -s "$scratch/callgrind.out" ]; then
	echo "count.sh: run failed (exit $rc); log:" >&2
	cat "$scratch/run.log" >&2
	exit 1
fi

callgrind_annotate --inclusive=yes --threshold=100 --auto=no "$scratch/callgrind.out" \
	>"$scratch/annotate.txt"

# Inclusive counts come from the annotate listing, calls from the
# callgrind.out file: the calls= lines on the edges out of the measured
# code (instr_loop for Isend and Irecv, instr_wait_send/_recv for the two
# waits), since callgrind also counts calls made while collection is off.
# The edge costs in the file must add up to the annotate figures; a gap
# means the library called an MPI function itself, or a parse went wrong.
# An MPI function may be named by its PMPI_ alias.
awk -v iters="$iters" -v annot="$scratch/annotate.txt" '
function mpi(name) { return name ~ /^P?MPI_(Isend|Irecv|Wait|Test)$/ }
function base(name) { sub(/^P/, "", name); return name }
function edge(from, fn,    e) {
	for (e in ecalls) {
		split(e, k, SUBSEP)
		if (k[1] == from && base(k[2]) == fn) return e
	}
	return ""
}
BEGIN {
	while ((getline line < annot) > 0) {
		if (!match(line, /:P?MPI_(Isend|Irecv|Wait|Test) \[/))
			continue
		name = substr(line, RSTART + 1, RLENGTH - 3)
		split(line, f, " ")
		gsub(/,/, "", f[1])
		ann[base(name)] += f[1]
	}
	npos = 1
}
/^positions:/ { npos = NF - 1 }
/^c?fn=\(/ {
	key = $0; sub(/^c?fn=/, "", key)
	id = key; sub(/\).*/, ")", id)
	nm = key; sub(/^\([0-9]+\) ?/, "", nm)
	if (nm != "")
		names[id] = nm
	if ($0 ~ /^fn=/) fn = names[id]
	else cfn = names[id]
	next
}
/^calls=/ { split($0, c, /[= ]/); pending = c[2]; next }
/^[0-9+*-]/ {
	if (pending != "") {
		# The cost line after calls=: positions, then inclusive Ir.
		ecalls[fn, cfn] += pending
		ecost[fn, cfn] += $(npos + 1)
		pending = ""
	}
	next
}
END {
	site["MPI_Isend"] = "instr_loop"; site["MPI_Irecv"] = "instr_loop"
	site["MPI_Wait(send)"] = "instr_wait_send"
	site["MPI_Wait(recv)"] = "instr_wait_recv"
	site["MPI_Test(idle)"] = "instr_test_idle"
	for (s in site) {
		fn = s; sub(/\(.*/, "", fn)
		e = edge(site[s], fn)
		if (e == "" || ecalls[e] == 0) {
			printf "count.sh: no calls from %s to %s in the profile\n",
				site[s], fn > "/dev/stderr"
			exit 1
		}
		if (ecalls[e] != iters)
			printf "count.sh: warning: %s called %d times from %s, expected %d\n",
				fn, ecalls[e], site[s], iters > "/dev/stderr"
		n[s] = ecalls[e]; cost[s] = ecost[e]
		ncalls[fn] += ecalls[e]; sum[fn] += ecost[e]
	}
	for (fn in sum) {
		d = ann[fn] - sum[fn]; if (d < 0) d = -d
		if (d > ann[fn] / 1000)
			printf "count.sh: note: %s inclusive %d (annotate listing) vs %d (call edges, used)\n",
				fn, ann[fn], sum[fn] > "/dev/stderr"
	}
	# The call edges are the figure: with inlining, callgrind_annotate
	# splits one function into per-source-file entries, so its listing
	# can show only part of the inclusive cost of a function.
	printf "MPI_Isend,%.1f\n", sum["MPI_Isend"] / ncalls["MPI_Isend"]
	printf "MPI_Irecv,%.1f\n", sum["MPI_Irecv"] / ncalls["MPI_Irecv"]
	printf "MPI_Wait,%.1f\n", sum["MPI_Wait"] / ncalls["MPI_Wait"]
	printf "MPI_Wait(send),%.1f\n", cost["MPI_Wait(send)"] / n["MPI_Wait(send)"]
	printf "MPI_Wait(recv),%.1f\n", cost["MPI_Wait(recv)"] / n["MPI_Wait(recv)"]
	printf "MPI_Test(idle),%.1f\n", cost["MPI_Test(idle)"] / n["MPI_Test(idle)"]
}' "$scratch/callgrind.out" >"$scratch/counts.csv"

suffix=$impl-$transport
[ $mode = plain ] && suffix=$suffix-plain
out=${out:-$here/results-$suffix.txt}
{
	echo "# $impl, transport $transport, $mode waits, $iters iterations," \
		"4-byte messages, $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "# $(grep -m1 '^isend_loop:' "$scratch/run.log" || true)"
	echo "function,instructions_per_call"
	cat "$scratch/counts.csv"
	# over a matching device: what is Michi's own (issue 7), the
	# inclusive count less the libfabric or UCX calls under it
	case $transport in
	ofi-*|ucx-*)
		echo "# Michi's share of the native path (bench/instr/native_share.py)"
		python3 "$here/native_share.py" "$scratch/callgrind.out"
		;;
	esac
} >"$out"
cat "$out"
