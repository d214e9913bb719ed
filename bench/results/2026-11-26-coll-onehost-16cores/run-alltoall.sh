#!/bin/bash
# device check: small alltoall on one host with a core per rank, Bruck
# (the choice from 8 ranks up to 256-byte blocks) against scattered,
# 8 and 16 ranks on 16 cores, 5 interleaved runs each
cd "$(dirname "$0")/../.."   # the repository root, from build/devrun (it ran as build/devrun/a2a16.sh)
export LD_LIBRARY_PATH=$PWD/build/devrun/lib:$PWD/build/install/lib
export MICHI_PROXY=$PWD/build/install/bin/michi-proxy
out=${OUT:-/tmp}
run=build/install/bin/mpirun
for n in 8 16; do
for i in 1 2 3 4 5; do
	for a in bruck scattered; do
		echo "n=$n $a $(MICHI_COLL_ALLTOALL_ALGORITHM=$a timeout 60 $run -n $n build/devrun/oversub -t alltoall -s 0.2 -m 8,64,256 2>&1 | grep -v '^#' | tr '\n' ' ')"
	done
done
done | tee $out/a2a16.txt
