#!/bin/bash
# device check: overlap of a 1 MiB MPI_Iallreduce with work where cores are spare (issue 5)
# it ran as build/devrun/run.sh (overlap and oversub built there with
# build/install/bin/mpicc, libmpi's libraries copied to build/devrun/lib)
cd "$(dirname "$0")/../../.."   # the repository root, from this copy
export LD_LIBRARY_PATH=$PWD/build/devrun/lib:$PWD/build/install/lib
export MICHI_PROXY=$PWD/build/install/bin/michi-proxy
nproc; lscpu | grep -E "Model name|^CPU\(s\)|NUMA node\(s\)"
out=${OUT:-/tmp}
for n in 2 4 8; do
	for i in 1 2 3; do
		echo "== overlap n=$n run $i"
		timeout 60 build/install/bin/mpirun -n $n build/devrun/overlap -i 21 2>&1 | tee -a $out/overlap-n$n.txt | tail -3
	done
done
for n in 4 8; do
	echo "== allreduce n=$n"
	timeout 60 build/install/bin/mpirun -n $n build/devrun/oversub -t allreduce -m 8:1048576 2>&1 | tail -6
done
