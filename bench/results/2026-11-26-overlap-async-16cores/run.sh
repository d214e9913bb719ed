#!/bin/bash
# device check (issue 5): overlap of a 1 MiB MPI_Iallreduce with work on a
# 16-core machine, with the progress thread of mpi/async.c (the default,
# MICHI_ASYNC_PROGRESS=auto) and without it (off), interleaved. It ran as
# build/devrun/run.sh: bench/overlap.c and test/mpi/async_progress.c built
# with build/install/bin/mpicc, libmpi's libraries copied to build/devrun/lib.
cd "$(dirname "$0")/../.."   # the repository root, from build/devrun
export LD_LIBRARY_PATH=$PWD/build/devrun/lib:$PWD/build/install/lib
export MICHI_PROXY=$PWD/build/install/bin/michi-proxy
out=${OUT:-/tmp}
run=build/install/bin/mpirun
{ nproc; lscpu | grep -E "Model name|^CPU\(s\)|NUMA node\(s\)|Thread\(s\) per core|Core\(s\) per socket"; uname -r; } > $out/machine.txt
MICHI_LOG=debug timeout 60 $run -n 4 build/devrun/overlap -i 3 2>&1 | grep "async progress" | head -4 >> $out/machine.txt
for n in 2 4 8; do
	for i in 1 2 3; do
		for mode in auto off; do
			echo "== overlap n=$n run $i MICHI_ASYNC_PROGRESS=$mode" | tee -a $out/overlap-n$n.txt
			MICHI_ASYNC_PROGRESS=$mode timeout 60 $run -n $n build/devrun/overlap -i 21 2>&1 |
				tee -a $out/overlap-n$n.txt | grep -E "t_overlap /|slices"
		done
	done
done
for n in 2 4 8; do
	echo "== async_progress n=$n (auto, must finish while rank 0 is away)" | tee -a $out/tests.txt
	MTEST_ASYNC_EXPECT=1 timeout 60 $run -n $n build/devrun/async_progress 2>&1 | tail -3 | tee -a $out/tests.txt
done
