#!/bin/bash
# device check: the one-host choices of dc4ed3e (flat bcast from 16 KiB,
# recursive-doubling allgather at any size) with a core per rank, against
# the choices they replaced, 4 and 8 ranks on 16 cores, 5 interleaved runs each
cd "$(dirname "$0")/../.."   # the repository root, from build/devrun (it ran as build/devrun/coll16.sh)
export LD_LIBRARY_PATH=$PWD/build/devrun/lib:$PWD/build/install/lib
export MICHI_PROXY=$PWD/build/install/bin/michi-proxy
out=${OUT:-/tmp}
run=build/install/bin/mpirun
for n in 4 8; do
for i in 1 2 3 4 5; do
	for e in X=1 MICHI_COLL_BCAST_ALGORITHM=binomial; do
		echo "n=$n bcast $e $(env $e timeout 60 $run -n $n build/devrun/oversub -t bcast -s 0.2 -m 16384,65536,1048576 2>&1 | grep -v '^#' | tr '\n' ' ')"
	done
	for e in X=1 MICHI_COLL_ALLGATHER_ALGORITHM=ring; do
		echo "n=$n allgather $e $(env $e timeout 60 $run -n $n build/devrun/oversub -t allgather -s 0.2 -m 65536,1048576 2>&1 | grep -v '^#' | tr '\n' ' ')"
	done
done
done | tee $out/coll16.txt
