#!/bin/bash
# cmacall.sh: the time of each process_vm_readv in the shared-memory
# ping-pong, gompi against Open MPI, from strace -T (percentiles over every
# call of the run). Both copy a large message with one process_vm_readv, so
# this separates the copy itself from the handshake around it.
#
#   benches/ref/cmacall.sh DIR SIZE [ROUNDS]
#
# DIR holds golaunch, pingpong (examples/pingpong) and pingpong_c
# (mpicc -O2 benches/ref/pingpong.c), as benches/ref/sidebyside builds them
# into its --dir. Run it under the measurement lock.
set -eu
dir=$1 size=$2 rounds=${3:-2}
args="--min $size --max $size --reps 3 --time 0.1"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
pct() {
	grep -o '<[0-9.]*>' "$out" | tr -d '<>' | sort -n |
		awk -v s="$1" '{a[NR]=$1} END {if (NR) printf "%-8s calls %5d  p10 %8.1f  p50 %8.1f  p90 %8.1f us\n", s, NR, a[int(NR*0.1)+1]*1e6, a[int(NR*0.5)+1]*1e6, a[int(NR*0.9)]*1e6}'
}
for _ in $(seq "$rounds"); do
	strace -f --seccomp-bpf -T -e trace=process_vm_readv -o "$out" "$dir/golaunch" -n 2 "$dir/pingpong" $args >/dev/null
	pct gompi
	strace -f --seccomp-bpf -T -e trace=process_vm_readv -o "$out" mpirun --allow-run-as-root --oversubscribe -n 2 "$dir/pingpong_c" $args >/dev/null
	pct openmpi
done
