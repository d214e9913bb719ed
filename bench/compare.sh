#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Side-by-side comparison runner (BENCH.md). It builds each benchmark
# (pingpong.c, oversub.c for collectives and runs with more ranks than
# cores, dtype.c for derived datatypes, overlap.c for a nonblocking
# allreduce behind computation) once with mpicc.mpich, runs that one
# binary on MPICH and on Michi (through
# LD_LIBRARY_PATH=$MICHI_PREFIX/lib and Michi's mpirun), and an Open MPI
# build on Open MPI; rounds are interleaved A,B,C,A,B,C so that drift hits
# every implementation alike. It serializes with other runs through
# /tmp/michi-bench.lock, watches the CPU time other processes take during
# each batch, reruns a disturbed batch and leaves it out of the medians if
# it stays disturbed, ends ranks that outlive a killed launcher, and
# writes CSV, summary CSV, PNG plots, machine.txt and summary.md into
# bench/results/<date>-<name>/.

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
benches=lat,bw
transports=tcp,shm
rounds=5
ranks=2
name=
outroot=$here/results
iters=
sizes=
budget=
timeout_s=600
foreign_max=0.30
retries=1
placement=
lock=/tmp/michi-bench.lock

usage() {
	cat <<EOF
usage: $0 -N name [options]
  -N name     results go to <outroot>/<YYYY-MM-DD>-<name>/
  -b list     benchmarks, comma-separated (default $benches):
              lat  pingpong latency, half round trip (us)
              bw   pingpong bandwidth, window 64 (MB/s)
              ring       blocking Send/Recv around all ranks, us per full
                         lap (0 -> 1 -> ... -> n-1 -> 0)
              allreduce  MPI_Allreduce MPI_SUM of size/4 ints, back to
                         back (us per call, slowest rank)
              allreduce-osu  the same with a barrier after each call, only
                         the calls timed, mean over ranks (OSU's method)
              barrier bcast reduce gather scatter allgather alltoall
                         that collective back to back (us per call,
                         slowest rank; MPI_INT, MPI_SUM, root 0); size =
                         bytes per rank, per block for gather, scatter,
                         allgather, alltoall; barrier runs once, size 0
              bcast-osu reduce-osu gather-osu scatter-osu allgather-osu
              alltoall-osu  the same with a barrier after each call
                         (OSU's method, as allreduce-osu)
              overlap    MPI_Iallreduce of 1 MiB of doubles with work and
                         MPI_Test every 100 us: t_overlap / max(t_comm,
                         t_work), 1 = full overlap, 2 = none; ignores -m
              vector     ping-pong of MPI_Type_vector(n, 1, 2, MPI_DOUBLE),
                         us per one-way transfer; size = packed bytes
              indexed    the same with an MPI_Type_indexed of n doubles
                         (blocks 1..8, gaps 1..3 doubles)
              pack       MPI_Pack on rank 0 alone of a vector of B-byte
                         blocks at stride 2B, 8 MiB packed (MB/s); size = B
              memcpy     one memcpy of 8 MiB on rank 0 alone, pack's
                         reference (MB/s), printed at the same B
              packratio  the two in alternating pairs on rank 0 alone:
                         memcpy's time over MPI_Pack's (MPI_Pack's
                         bandwidth as a share of memcpy's); size = B
  -d list     transports (default $transports): tcp = MPICH UCX_TLS=tcp,self,
              Open MPI ob1 + btl tcp,self on lo, Michi MICHI_DEVICE=tcp;
              shm = each implementation's default on one host;
              ucx-sm, ucx-tcp = UCX with UCX_TLS=sm,self or tcp,self for
              all three (Michi MICHI_DEVICE=ucx, MPICH's own ch4:ucx,
              Open MPI --mca pml ucx);
              ofi-tcp, ofi-shm = libfabric's tcp or shm provider
              (FI_PROVIDER) for Michi (MICHI_DEVICE=ofi) and Open MPI
              (--mca pml cm --mca mtl ofi); MPICH, which has no
              libfabric in Debian, runs UCX_TLS=tcp,self or its default
  -r rounds   interleaved rounds, at least 5 for results (default $rounds)
  -n ranks    rank count (default $ranks; more than the cores oversubscribes)
  -i iters    iterations passed to the benchmark (its -i; for ring, the
              collectives, pack, memcpy and packratio the most timed iterations per
              size; for overlap its repetitions, default 21)
  -m min:max  sizes passed to the benchmark (its -m; ring and the
              collectives default to 4:4 and also take a list s1,s2,...;
              vector and indexed take n in doubles,
              default 1048576:1048576; pack, memcpy, packratio B in bytes, default
              8:4096): one -m goes to every benchmark of the run but
              overlap
  -s secs     ring, the collectives: timed seconds per size (default 1),
              after a warm-up about half as long; pack, memcpy, packratio: timed
              seconds per size (default 0.2)
  -p core|none|default  placement: core pins rank r to CPU r mod cores for
              every implementation (default up to one rank per core);
              none leaves all unbound; default binds nothing and lets each
              implementation behave as its defaults do when oversubscribed
              (default above one rank per core)
  -o dir      results root (default $outroot)
  -T secs     time limit of one run (default $timeout_s)
  -F frac     foreign CPU (cores busy with other processes, averaged over
              a batch) above which a batch is disturbed (default $foreign_max)
  -R n        reruns of a disturbed batch before it is discarded (default $retries)
Michi runs when MICHI_PREFIX holds bin/mpirun and lib/; otherwise only
the peers run, and summary.md says so.
EOF
	exit 2
}

while getopts "N:b:d:r:n:i:m:s:p:o:T:F:R:h" opt; do
	case $opt in
	N) name=$OPTARG ;;
	b) benches=$OPTARG ;;
	d) transports=$OPTARG ;;
	r) rounds=$OPTARG ;;
	n) ranks=$OPTARG ;;
	i) iters=$OPTARG ;;
	m) sizes=$OPTARG ;;
	s) budget=$OPTARG ;;
	p) placement=$OPTARG ;;
	o) outroot=$OPTARG ;;
	T) timeout_s=$OPTARG ;;
	F) foreign_max=$OPTARG ;;
	R) retries=$OPTARG ;;
	*) usage ;;
	esac
done
[ -n "$name" ] && [ $OPTIND -gt $# ] || usage
[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || { echo "compare.sh: -N takes letters, digits, . _ -" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: -r needs a positive integer" >&2; exit 2; }
[[ $ranks =~ ^[1-9][0-9]*$ && $ranks -ge 2 ]] || { echo "compare.sh: -n needs 2 ranks or more" >&2; exit 2; }
[[ -z $placement || $placement =~ ^(core|none|default)$ ]] || usage
[[ -z $budget || $budget =~ ^[0-9]*\.?[0-9]+$ ]] || usage
[[ $retries =~ ^[0-9]+$ ]] || usage
[[ $foreign_max =~ ^[0-9]*\.?[0-9]+$ ]] || usage
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || usage
IFS=, read -r -a bench_list <<<"$benches"
IFS=, read -r -a transport_list <<<"$transports"
colls="barrier|bcast|reduce|allreduce|gather|scatter|allgather|alltoall"
seen=,
for b in "${bench_list[@]}"; do
	case $seen in *,$b,*) echo "compare.sh: benchmark $b named twice" >&2; exit 2 ;; esac
	seen=$seen$b,
	if [[ $b =~ ^(ring|$colls)$ || ( $b =~ ^($colls)-osu$ && $b != barrier-osu ) ]]; then
		continue
	fi
	case $b in
	lat|bw|vector|indexed|pack|memcpy|packratio)
		# Only oversub.c reads a list of sizes.
		if [[ $sizes == *,* ]]; then
			echo "compare.sh: $b takes -m min:max, not a list" >&2
			exit 2
		fi
		;;
	overlap) ;;
	*) echo "compare.sh: unknown benchmark $b" >&2; exit 2 ;;
	esac
done
for t in "${transport_list[@]}"; do
	case $t in tcp|shm|ucx-sm|ucx-tcp|ofi-tcp|ofi-shm) ;;
	*) echo "compare.sh: unknown transport $t" >&2; exit 2 ;; esac
done
for tool in mpicc.mpich mpiexec.mpich mpicc.openmpi mpirun.openmpi gnuplot flock taskset; do
	command -v $tool >/dev/null || { echo "compare.sh: $tool not found" >&2; exit 1; }
done

ncores=$(nproc)
clk_tck=$(getconf CLK_TCK)
oversub=0
[ $ranks -gt $ncores ] && oversub=1
# Pinning two ranks to one core would measure the pinning, not the
# implementation: oversubscribed runs keep each one's own defaults.
if [ -z "$placement" ]; then
	placement=core
	[ $oversub = 1 ] && placement=default
fi
impls=(mpich openmpi)
michi_note="Michi was not run: MICHI_PREFIX is unset or has no bin/mpirun."
if [ -n "${MICHI_PREFIX:-}" ] && [ -x "$MICHI_PREFIX/bin/mpirun" ]; then
	impls=(michi mpich openmpi)
	michi_note="Michi: $MICHI_PREFIX, launched by its mpirun, running the mpicc.mpich binary."
fi

outdir=$outroot/$(date +%F)-$name
if [ -e "$outdir" ]; then
	echo "compare.sh: $outdir exists; pick another -N" >&2
	exit 2
fi

exec 9>"$lock"
if ! flock -w 3600 9; then
	echo "compare.sh: $lock held for an hour by another run; giving up" >&2
	exit 1
fi

build=$(mktemp -d "${TMPDIR:-/tmp}/michi-compare.XXXXXX")
trap 'end_leftovers; rm -rf "$build"' EXIT
mkdir -p "$outdir"
log=$outdir/runs.log
: >"$log"

# --- processes --------------------------------------------------------

# Every process of a run names the private build directory on its command
# line (the binary path), so leftovers are found by pid without touching
# anyone else's processes. Open MPI's ranks outlive a killed mpirun.
end_leftovers() {
	local d pid
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ "$pid" = $$ ] && continue
		tr '\0' ' ' 2>/dev/null <"$d/cmdline" | grep -qF "$build/" || continue
		echo "compare.sh: ending leftover pid $pid" >>"$log"
		kill -KILL "$pid" 2>/dev/null || true
	done
}

# The launcher starts the same command for every rank; pinning through a
# wrapper gives all implementations the same placement whatever their
# own binding defaults are.
cat >"$build/place" <<'EOF'
#!/bin/sh
rank=${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-}}}
if [ "$MICHI_BENCH_PLACE" = core ] && [ -n "$rank" ]; then
	exec taskset -c $((rank % $(nproc))) "$@"
fi
exec "$@"
EOF
chmod +x "$build/place"

# --- build ------------------------------------------------------------

for prog in pingpong oversub dtype overlap; do
	mpicc.mpich -O2 -std=gnu11 -o "$build/$prog.mpich" "$here/$prog.c"
	mpicc.openmpi -O2 -std=gnu11 -o "$build/$prog.openmpi" "$here/$prog.c"
done

# The mpicc.mpich binary needs libmpich.so.12 (Debian's soname); Michi
# installs libmpi.so.12, possibly without the alias.
michi_libpath=
if [ ${#impls[@]} = 3 ]; then
	michi_libpath=$MICHI_PREFIX/lib
	if [ ! -e "$michi_libpath/libmpich.so.12" ] && [ -e "$michi_libpath/libmpi.so.12" ]; then
		mkdir "$build/lib"
		ln -s "$michi_libpath/libmpi.so.12" "$build/lib/libmpich.so.12"
		michi_libpath=$build/lib:$michi_libpath
	fi
	michi_libpath=$michi_libpath${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	if ! LD_LIBRARY_PATH=$michi_libpath ldd "$build/pingpong.mpich" |
		grep -q "libmpich.so.12 => \($MICHI_PREFIX\|$build\)/"; then
		echo "compare.sh: the binary would not load Michi from $MICHI_PREFIX/lib" >&2
		exit 1
	fi
fi

# Prints the benchmark's binary suffix-free name and arguments.
bench_args() {
	local a=() m=$sizes
	case $1 in
	lat) a=(pingpong -t lat) ;;
	bw) a=(pingpong -t bw) ;;
	*-osu)
		a=(oversub -t ${1%-osu} -b)
		[ -n "$budget" ] && a+=(-s "$budget")
		;;
	vector|indexed) a=(dtype -t $1) ;;
	pack|memcpy|packratio)
		a=(dtype -t $1)
		[ -n "$budget" ] && a+=(-s "$budget")
		;;
	# Issue 5's figure is at 1 MiB; a sweep's sizes are not its.
	overlap) a=(overlap); m= ;;
	*)
		a=(oversub -t $1)
		[ -n "$budget" ] && a+=(-s "$budget")
		;;
	esac
	[ -n "$iters" ] && a+=(-i "$iters")
	[ -n "$m" ] && a+=(-m "$m")
	echo "${a[@]}"
}

# Sets cmd (array) for implementation $1, transport $2, benchmark $3.
make_cmd() {
	local impl=$1 tr=$2 args prog
	read -r -a args <<<"$(bench_args "$3")"
	prog=${args[0]}
	args=("${args[@]:1}")
	case $impl in
	mpich)
		cmd=(env MICHI_BENCH_PLACE=$placement)
		case $tr in
		tcp|ucx-tcp|ofi-tcp) cmd+=(UCX_TLS=tcp,self) ;;
		ucx-sm) cmd+=(UCX_TLS=sm,self) ;;
		esac
		cmd+=(mpiexec.mpich -n $ranks "$build/place" "$build/$prog.mpich")
		;;
	michi)
		cmd=(env MICHI_BENCH_PLACE=$placement "LD_LIBRARY_PATH=$michi_libpath")
		case $tr in
		tcp) cmd+=(MICHI_DEVICE=tcp) ;;
		ucx-sm) cmd+=(MICHI_DEVICE=ucx UCX_TLS=sm,self) ;;
		ucx-tcp) cmd+=(MICHI_DEVICE=ucx UCX_TLS=tcp,self) ;;
		ofi-tcp) cmd+=(MICHI_DEVICE=ofi FI_PROVIDER=tcp) ;;
		ofi-shm) cmd+=(MICHI_DEVICE=ofi FI_PROVIDER=shm) ;;
		esac
		cmd+=("$MICHI_PREFIX/bin/mpirun" -n $ranks "$build/place" "$build/$prog.mpich")
		;;
	openmpi)
		cmd=(env MICHI_BENCH_PLACE=$placement OMPI_ALLOW_RUN_AS_ROOT=1
		     OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun.openmpi -n $ranks)
		# Its own policy binds nothing once oversubscribed.
		[ $placement = default ] || cmd+=(--bind-to none)
		[ $oversub = 1 ] && cmd+=(--oversubscribe)
		case $tr in
		tcp) cmd+=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo) ;;
		# Open MPI 4.1's pml ucx takes only InfiniBand-class devices
		# and its ofi mtl skips the tcp and shm providers unless told
		ucx-sm) cmd+=(-x UCX_TLS=sm,self --mca pml ucx --mca pml_ucx_tls any
			      --mca pml_ucx_devices any) ;;
		ucx-tcp) cmd+=(-x UCX_TLS=tcp,self --mca pml ucx --mca pml_ucx_tls any
			       --mca pml_ucx_devices any) ;;
		ofi-tcp) cmd+=(-x FI_PROVIDER=tcp --mca pml cm --mca mtl ofi
			       --mca mtl_ofi_provider_exclude none) ;;
		ofi-shm) cmd+=(-x FI_PROVIDER=shm --mca pml cm --mca mtl ofi
			       --mca mtl_ofi_provider_exclude none) ;;
		esac
		cmd+=("$build/place" "$build/$prog.openmpi")
		;;
	esac
	cmd+=("${args[@]}")
}

# --- load -------------------------------------------------------------

# Busy jiffies of the whole machine (steal included: a stolen vCPU
# disturbs a ping-pong as much as a neighbour does).
busy_jiffies() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat
}

# CPU seconds of this shell's waited-for children (the launcher and,
# through it, the ranks). The times builtin must run in this shell, not
# in a command substitution, which would report its own children.
children_cpu() {
	times >"$build/times"
	awk 'NR == 2 {
		n = split($1 " " $2, t, " ")
		s = 0
		for (i = 1; i <= n; i++) {
			split(t[i], p, "m"); sub(/s$/, "", p[2])
			s += p[1] * 60 + p[2]
		}
		printf "%.3f\n", s
	}' "$build/times"
}

# Runs cmd once; writes the value lines to $1 and sets run_ok, run_foreign,
# run_secs, load_before, load_after.
run_batch() {
	local out=$1 b0 b1 c0 c1 t0 t1 rc
	load_before=$(cut -d' ' -f1 /proc/loadavg)
	children_cpu >"$build/c0"
	b0=$(busy_jiffies); t0=$(date +%s.%N)
	set +e
	timeout -k 5 "$timeout_s" "${cmd[@]}" >"$out.raw" 2>>"$log"
	rc=$?
	set -e
	t1=$(date +%s.%N); b1=$(busy_jiffies)
	children_cpu >"$build/c1"
	c0=$(cat "$build/c0"); c1=$(cat "$build/c1")
	load_after=$(cut -d' ' -f1 /proc/loadavg)
	end_leftovers
	run_secs=$(awk -v t0=$t0 -v t1=$t1 'BEGIN { printf "%.1f\n", t1 - t0 }')
	run_foreign=$(awk -v b0=$b0 -v b1=$b1 -v c0=$c0 -v c1=$c1 \
		-v t0=$t0 -v t1=$t1 -v hz=$clk_tck 'BEGIN {
		f = ((b1 - b0) / hz - (c1 - c0)) / (t1 - t0)
		printf "%.2f\n", f < 0 ? 0 : f }')
	cat "$out.raw" >>"$log"
	grep -E '^[0-9]+,[0-9.eE+-]+$' "$out.raw" >"$out" || true
	# overlap.c's three times behind its ratio.
	sed -n 's/^# times,//p' "$out.raw" >"$out.times"
	run_ok=1
	if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
		echo "compare.sh: run failed (exit $rc): ${cmd[*]}" | tee -a "$log" >&2
		run_ok=0
	fi
}

# --- runs -------------------------------------------------------------

echo "impl,transport,bench,round,attempt,seconds,load_before,load_after,foreign_cpu,status" >"$outdir/load.csv"
for tr in "${transport_list[@]}"; do
	for b in "${bench_list[@]}"; do
		csv=$outdir/$b-$tr.csv
		echo "impl,round,size,value" >"$csv"
		for ((r = 1; r <= rounds; r++)); do
			for impl in "${impls[@]}"; do
				make_cmd $impl $tr $b
				echo "== $impl $tr $b round $r: ${cmd[*]}" >>"$log"
				for ((a = 1; a <= retries + 1; a++)); do
					run_batch "$build/run"
					status=ok
					[ $run_ok = 1 ] || status=failed
					if [ $run_ok = 1 ] && awk -v f=$run_foreign -v m=$foreign_max 'BEGIN { exit !(f > m) }'; then
						status=disturbed
					fi
					echo "$impl,$tr,$b,$r,$a,$run_secs,$load_before,$load_after,$run_foreign,$status" >>"$outdir/load.csv"
					[ $status = disturbed ] || break
					sleep 5
				done
				printf '%-8s %s %-3s round %d: %s (load %s -> %s, foreign cpu %s)\n' \
					$impl $tr $b $r $status $load_before $load_after $run_foreign
				[ $run_ok = 1 ] || continue
				dest=$csv
				[ $status = ok ] || dest=$outdir/$b-$tr-discarded.csv
				[ -e "$dest" ] || echo "impl,round,size,value" >"$dest"
				awk -v i=$impl -v r=$r -F, '{ print i "," r "," $1 "," $2 }' \
					"$build/run" >>"$dest"
				[ -s "$build/run.times" ] || continue
				dest=${dest%.csv}-times.csv
				[ -e "$dest" ] || echo "impl,round,size,t_comm,t_work,t_overlap" >"$dest"
				awk -v i=$impl -v r=$r '{ print i "," r "," $0 }' \
					"$build/run.times" >>"$dest"
			done
		done
	done
done

# --- summaries ----------------------------------------------------------

# Batches still disturbed after their reruns went to <id>-discarded.csv
# and are not summarized, unless an implementation has no other batch:
# then its discarded ones are, and it is named in the file $3.
summarize() {
	local csv=$1 disc=$2 fb=$3
	: >"$fb"
	[ -e "$disc" ] || disc=/dev/null
	echo "impl,size,median,min,max"
	awk -F, -v fb="$fb" '
	FNR == 1 { file++; next }
	file == 1 { have[$1] = 1; print $1 "," $3 "," $4; next }
	!($1 in have) { print $1 "," $3 "," $4; if (!($1 in told)) print $1 > fb; told[$1] = 1 }
	' "$csv" "$disc" |
	sort -t, -k1,1 -k2,2n -k3,3g |
	awk -F, '
	function flush() {
		if (cnt == 0) return
		med = cnt % 2 ? v[(cnt + 1) / 2] : (v[cnt / 2] + v[cnt / 2 + 1]) / 2
		printf "%s,%s,%.3f,%.3f,%.3f\n", ki, ks, med, v[1], v[cnt]
		cnt = 0
	}
	{ if ($1 != ki || $2 != ks) { flush(); ki = $1; ks = $2 } v[++cnt] = $3 + 0 }
	END { flush() }'
}

# One size only: a bar per implementation, a single point per line
# would hide the comparison.
plot_bars() {
	local sum=$1 png=$2 title=$3 ylabel=$4 dat=$build/plot.dat i=0 impl size
	# Size 0 is barrier's: no data at all.
	size=$(awk -F, 'NR == 2 { print $2; exit }' "$sum")
	[ "$size" = 0 ] || title="$title, $size B"
	: >"$dat"
	for impl in "${impls[@]}"; do
		grep -q "^$impl," "$sum" || continue
		awk -F, -v i=$i -v n=$impl '$1 == n { print i, n, $3, $4, $5 }' "$sum" >>"$dat"
		i=$((i + 1))
	done
	[ $i -gt 0 ] || return 0
	gnuplot <<EOF
set terminal pngcairo noenhanced size 900,600 font ",11"
set output '$png'
set title "$title"
set logscale y
set ylabel "$ylabel"
set grid ytics
set style fill solid 0.5 border -1
set boxwidth 0.6
set xrange [-0.6:$i - 0.4]
unset key
plot '$dat' using 1:3:xtic(2) with boxes lc rgb "#4477aa", \\
     '' using 1:3:4:5 with yerrorbars lc rgb "black" pt 0 lw 1.5, \\
     '' using 1:5:(\$3 >= 100 ? sprintf("%.0f", \$3) : sprintf("%.3g", \$3)) with labels offset 0,1
EOF
}

# One line per implementation; with a second summary CSV ($6, named $7)
# also its lines, dashed, in the same colours (pack's memcpy reference;
# the bar chart of a single size leaves it to the summary's table).
plot() {
	local sum=$1 png=$2 title=$3 ylabel=$4 xlabel=$5 ref=${6:-} ref_name=${7:-}
	local dat=$build/plot.dat i=0 c=0 impl
	local -a parts=()
	if [ "$(awk -F, 'NR > 1 { print $2 }' "$sum" | sort -u | wc -l)" = 1 ]; then
		plot_bars "$sum" "$png" "$title" "$ylabel"
		return
	fi
	if [ -n "$ref" ]; then
		title="$title (dashed: $ref_name)"
	fi
	: >"$dat"
	for impl in "${impls[@]}"; do
		c=$((c + 1))
		if grep -q "^$impl," "$sum"; then
			awk -F, -v i=$impl '$1 == i { print $2, $3, $4, $5 }' "$sum" >>"$dat"
			printf '\n\n' >>"$dat"
			parts+=("'$dat' index $i using 1:2:3:4 with yerrorlines lw 2 lt $c title '$impl'")
			i=$((i + 1))
		fi
		if [ -n "$ref" ] && grep -q "^$impl," "$ref"; then
			awk -F, -v i=$impl '$1 == i { print $2, $3, $4, $5 }' "$ref" >>"$dat"
			printf '\n\n' >>"$dat"
			parts+=("'$dat' index $i using 1:2:3:4 with yerrorlines lw 1 lt $c dt 2 title '$impl $ref_name'")
			i=$((i + 1))
		fi
	done
	[ $i -gt 0 ] || return 0
	local IFS=,
	gnuplot <<EOF
set terminal pngcairo noenhanced size 900,600 font ",11"
set output '$png'
set title "$title"
set logscale x 2
set logscale y
set xtics 4
set format x "%.0b%BB"
set xlabel "$xlabel"
set ylabel "$ylabel"
set grid
set key top left
plot ${parts[*]}
EOF
}

# Michi's advantage over the better peer at each size (>1: Michi better),
# or MPICH's over Open MPI when Michi did not run.
ratio_table() {
	local sum=$1 lower_better=$2 label=${3:-size (B)}
	awk -F, -v lb=$lower_better -v nimpl=${#impls[@]} -v label="$label" '
	function better(a, b) { return lb ? (a < b ? a : b) : (a > b ? a : b) }
	function adv(x, ref) { return sprintf("%.2f", lb ? ref / x : x / ref) }
	NR > 1 { txt[$1, $2] = $3; m[$1, $2] = $3 + 0; sizes[$2 + 0] = 1 }
	END {
		if (!length(sizes)) {
			print "No data: every run failed (see runs.log)."
			exit
		}
		if (nimpl == 3) {
			print "| " label " | Michi | MPICH | Open MPI | Michi vs MPICH | Michi vs Open MPI | Michi vs better peer |"
			print "|---:|---:|---:|---:|---:|---:|---:|"
		} else {
			print "| " label " | MPICH | Open MPI | MPICH vs Open MPI |"
			print "|---:|---:|---:|---:|"
		}
		n = 0
		for (s in sizes) list[++n] = s + 0
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && list[j - 1] > list[j]; j--) {
				t = list[j]; list[j] = list[j - 1]; list[j - 1] = t
			}
		for (i = 1; i <= n; i++) {
			s = list[i]
			ha = (("mpich", s) in m) && m["mpich", s] > 0
			ho = (("openmpi", s) in m) && m["openmpi", s] > 0
			a = txt["mpich", s]; o = txt["openmpi", s]
			if (nimpl == 3) {
				hx = (("michi", s) in m) && m["michi", s] > 0
				r = ra = ro = "-"
				if (hx && ha) ra = adv(m["michi", s], m["mpich", s])
				if (hx && ho) ro = adv(m["michi", s], m["openmpi", s])
				if (hx && ha && ho) r = adv(m["michi", s], better(m["mpich", s], m["openmpi", s]))
				else if (hx && ha) r = ra
				else if (hx && ho) r = ro
				printf "| %d | %s | %s | %s | %s | %s | %s |\n", s, txt["michi", s], a, o, ra, ro, r
			} else {
				r = (ha && ho) ? adv(m["mpich", s], m["openmpi", s]) : "-"
				printf "| %d | %s | %s | %s |\n", s, a, o, r
			}
		}
	}' "$sum"
}

# MPI_Pack's bandwidth over memcpy's: each implementation's median pack
# figure divided by the median memcpy figure of its own runs at the same
# block size (same launcher, same process set-up), so that >= 0.8 reads
# as issue 4's goal met.
pack_ratio_table() {
	local pack=$1 ref=$2
	awk -F, -v order="${impls[*]}" '
	FNR == 1 { file++; next }
	file == 1 { p[$1, $2] = $3 + 0; sizes[$2 + 0] = 1; next }
	{ r[$1, $2] = $3 + 0 }
	END {
		if (!length(sizes)) {
			print "No data: every run failed (see runs.log)."
			exit
		}
		name["michi"] = "Michi"; name["mpich"] = "MPICH"; name["openmpi"] = "Open MPI"
		k = split(order, im, " ")
		hdr = "| block (B) |"; sep = "|---:|"
		for (j = 1; j <= k; j++) {
			hdr = hdr " " name[im[j]] " |"
			sep = sep "---:|"
		}
		print hdr
		print sep
		n = 0
		for (s in sizes) list[++n] = s + 0
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && list[j - 1] > list[j]; j--) {
				t = list[j]; list[j] = list[j - 1]; list[j - 1] = t
			}
		for (i = 1; i <= n; i++) {
			s = list[i]
			line = "| " s " |"
			for (j = 1; j <= k; j++) {
				v = "-"
				if (((im[j], s) in p) && ((im[j], s) in r) && r[im[j], s] > 0)
					v = sprintf("%.2f", p[im[j], s] / r[im[j], s])
				line = line " " v " |"
			}
			print line
		}
	}' "$pack" "$ref"
}

# overlap.c's medians over the repetitions of each run, then the median
# over the rounds of each implementation: what its ratio is made of. As
# in summarize, an implementation without an undisturbed batch ($1) is
# shown from its disturbed ones ($2).
overlap_times_table() {
	local main=$1 disc=$2
	# An empty file has no header line: the other one then counts as
	# the first, which is right when only one of them exists.
	[ -e "$main" ] || main=/dev/null
	[ -e "$disc" ] || disc=/dev/null
	awk -F, -v order="${impls[*]}" '
	function med(a, k, cnt,    i, j, t, v) {
		for (i = 1; i <= cnt; i++) v[i] = a[k, i] + 0
		for (i = 2; i <= cnt; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		return cnt % 2 ? v[(cnt + 1) / 2] : (v[cnt / 2] + v[cnt / 2 + 1]) / 2
	}
	FNR == 1 { file++; next }
	file == 1 { have[$1] = 1 }
	file == 2 && ($1 in have) { next }
	{ k = $1 SUBSEP $3; n[k]++; c[k, n[k]] = $4; w[k, n[k]] = $5
	  o[k, n[k]] = $6; sizes[$3 + 0] = 1 }
	END {
		if (!length(sizes)) exit
		name["michi"] = "Michi"; name["mpich"] = "MPICH"; name["openmpi"] = "Open MPI"
		print "| implementation | size (B) | t_comm (us) | t_work (us) | t_overlap (us) |"
		print "|---|---:|---:|---:|---:|"
		m = split(order, im, " ")
		for (s in sizes)
			for (j = 1; j <= m; j++) {
				k = im[j] SUBSEP s
				if (!(k in n)) continue
				printf "| %s | %d | %.1f | %.1f | %.1f |\n", name[im[j]], s,
					med(c, k, n[k]), med(w, k, n[k]), med(o, k, n[k])
			}
	}' "$main" "$disc"
}

{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "model: $("$here/cpu-id.sh")"
	echo "cores: $ncores ($(lscpu | sed -n 's/^Thread(s) per core: *//p') thread(s) per core)"
	echo "kernel: $(uname -sr)"
	echo "hypervisor: $(lscpu | sed -n 's/^Hypervisor vendor: *//p')"
	echo "mpich: $(mpiexec.mpich --version 2>/dev/null | sed -n 's/^ *Version: *//p' | head -1) ($(dpkg-query -W -f '${Version}' libmpich12 2>/dev/null || true))"
	echo "openmpi: $(mpirun.openmpi --version 2>/dev/null | head -1)"
	echo "michi: ${MICHI_PREFIX:-not run}"
	echo "tree: $(git -C "$here" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "ranks: $ranks, placement: $placement, rounds: $rounds$([ $oversub = 1 ] && echo ', oversubscribed')"
} >"$outdir/machine.txt"

{
	echo "# $name"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(sed -n 's/^model: //p' "$outdir/machine.txt"),"
	echo "$ncores cores, $(uname -r). $ranks ranks$([ $oversub = 1 ] && echo ' (oversubscribed)'),"
	echo "placement $placement, $rounds interleaved rounds; median (min-max in the CSVs)."
	echo "$michi_note"
	if [ $oversub = 1 ]; then
		echo
		echo "**Oversubscribed:** $ranks ranks share $ncores cores, so a rank that waits"
		echo "holds a core the rank it waits for may need."
		if [ $placement = default ]; then
			echo "No rank is bound; each implementation keeps its own defaults for"
			echo "oversubscription (Open MPI: \`--oversubscribe\`, with which it yields"
			echo "when idle; MPICH and Michi: none needed)."
		else
			echo "Placement $placement is the same for every implementation."
		fi
	fi
	echo
	echo "Ratios are of medians and read >1 = $([ ${#impls[@]} = 3 ] && echo 'Michi better (than MPICH, than Open MPI, than the better of the two)' || echo 'MPICH better than Open MPI')."
	disturbed=$(grep -c ',disturbed$' "$outdir/load.csv" || true)
	failed=$(grep -c ',failed$' "$outdir/load.csv" || true)
	echo "Disturbed batches (other processes took more than $foreign_max cores on"
	echo "average): $disturbed, each rerun up to $retries time(s), discarded if still"
	echo "disturbed; failed runs: $failed (see load.csv, runs.log)."
} >"$outdir/summary.md"

# All summaries first: pack's plot and table also read memcpy's.
for tr in "${transport_list[@]}"; do
	for b in "${bench_list[@]}"; do
		id=$b-$tr
		summarize "$outdir/$id.csv" "$outdir/$id-discarded.csv" \
			"$build/fallback-$id" >"$outdir/$id-summary.csv"
	done
done
for tr in "${transport_list[@]}"; do
	for b in "${bench_list[@]}"; do
		id=$b-$tr
		xlabel="message size (bytes)"
		label="size (B)"
		ref=
		case $b in
		lat) unit="half round trip (us)"; lb=1; what="latency"; title="pingpong latency" ;;
		bw) unit="bandwidth (MB/s)"; lb=0; what="bandwidth"; title="pingpong bandwidth" ;;
		ring) unit="us per full lap, $ranks hops"; lb=1; what="ring"
		      title="ring, blocking Send/Recv" ;;
		barrier) unit="us per call"; lb=1; what="barrier, back to back"
			 title="MPI_Barrier, back to back"; label="size (none)" ;;
		bcast|reduce|allreduce|gather|scatter|allgather|alltoall|*-osu)
			unit="us per call"; lb=1
			case ${b%-osu} in
			bcast) title="MPI_Bcast of ints from root 0" ;;
			reduce) title="MPI_Reduce MPI_SUM of ints to root 0" ;;
			allreduce) title="MPI_Allreduce MPI_SUM of ints" ;;
			gather) title="MPI_Gather of ints to root 0" ;;
			scatter) title="MPI_Scatter of ints from root 0" ;;
			allgather) title="MPI_Allgather of ints" ;;
			alltoall) title="MPI_Alltoall of ints" ;;
			esac
			case ${b%-osu} in
			gather|scatter|allgather)
				xlabel="block per rank (bytes)"; label="block (B)" ;;
			alltoall)
				xlabel="block per rank pair (bytes)"; label="block (B)" ;;
			esac
			if [ $b = ${b%-osu} ]; then
				what="$b, back to back"; title="$title, back to back"
			else
				what="${b%-osu}, barrier after each call"
				title="$title, barrier after each"
			fi
			;;
		overlap)
			unit="t_overlap / max(t_comm, t_work)"; lb=1
			what="MPI_Iallreduce overlapped with work, MPI_Test every 100 us"
			title="MPI_Iallreduce of doubles behind work (1 = full overlap, 2 = none)"
			;;
		vector|indexed)
			unit="us per one-way transfer (half round trip)"; lb=1
			xlabel="packed size (bytes)"; label="packed (B)"
			if [ $b = vector ]; then
				what="strided vector ping-pong"
				title="ping-pong of MPI_Type_vector(n, 1, 2, MPI_DOUBLE)"
			else
				what="indexed ping-pong"
				title="ping-pong of MPI_Type_indexed, blocks 1..8, gaps 1..3 doubles"
			fi
			;;
		pack)
			unit="MB/s of packed data"; lb=0; what="MPI_Pack, rank 0 alone"
			title="MPI_Pack of a vector of B-byte blocks at stride 2B, 8 MiB packed"
			xlabel="block size B (bytes)"; label="block (B)"
			if [ -e "$outdir/memcpy-$tr-summary.csv" ]; then
				ref=$outdir/memcpy-$tr-summary.csv
			fi
			;;
		packratio)
			unit="memcpy time / MPI_Pack time"; lb=0
			what="MPI_Pack over memcpy in alternating pairs, rank 0 alone"
			title="MPI_Pack of B-byte blocks at stride 2B against memcpy, 8 MiB, paired"
			xlabel="block size B (bytes)"; label="block (B)"
			;;
		memcpy)
			unit="MB/s"; lb=0; what="memcpy of 8 MiB, rank 0 alone (MPI_Pack's reference)"
			title="memcpy of 8 MiB, contiguous, at each B of the pack run"
			xlabel="block size B of the pack run (bytes)"; label="block (B)"
			;;
		esac
		plot "$outdir/$id-summary.csv" "$outdir/$id.png" \
			"$title, $tr, $ranks ranks$([ $oversub = 1 ] && echo " on $ncores cores (oversubscribed)")" \
			"$unit" "$xlabel" "$ref" memcpy
		{
			echo
			echo "## $what, $tr ($unit)"
			echo
			echo "![$id]($id.png)"
			echo
			if [ -s "$build/fallback-$id" ]; then
				echo "Only disturbed batches for: $(paste -sd, "$build/fallback-$id" | sed 's/,/, /g');"
				echo "their figures below are not reliable."
				echo
			fi
			ratio_table "$outdir/$id-summary.csv" $lb "$label"
			if [ -n "$ref" ]; then
				echo
				echo "MPI_Pack over memcpy (issue 4 asks for at least 0.80 from"
				echo "256-byte blocks up): each implementation's median MPI_Pack MB/s"
				echo "divided by the median memcpy MB/s of its own runs at the same B"
				echo "(one memcpy of the same 8 MiB, contiguous)."
				echo
				pack_ratio_table "$outdir/$id-summary.csv" "$ref"
			fi
			if [ $b = overlap ] && { [ -e "$outdir/$id-times.csv" ] ||
			   [ -e "$outdir/$id-discarded-times.csv" ]; }; then
				echo
				echo "t_comm: MPI_Iallreduce then MPI_Wait; t_work: the work alone,"
				echo "calibrated to about t_comm; t_overlap: both, MPI_Test after each"
				echo "slice; each from the first rank's start to the last rank's end,"
				echo "median over the run's repetitions, then over the rounds."
				echo
				overlap_times_table "$outdir/$id-times.csv" \
					"$outdir/$id-discarded-times.csv"
			fi
		} >>"$outdir/summary.md"
	done
done
# Results are committed: no path of this machine in them. The scratch
# directory, Michi's prefix and the repository become placeholders.
repo=$(cd "$here/.." && pwd)
for f in "$outdir"/runs.log "$outdir"/machine.txt "$outdir"/summary.md; do
	[ -f "$f" ] || continue
	sed -i -e "s|$build|<scratch>|g" \
		${MICHI_PREFIX:+-e "s|$MICHI_PREFIX|<michi-prefix>|g"} \
		-e "s|$repo|<repo>|g" "$f"
done
echo "compare.sh: results in $outdir"
