#!/usr/bin/env bash
# startup.sh: job start-up and memory of many ranks on one host, side by side
# with Open MPI.
#
#   benches/ref/startup.sh [N] [ROUNDS]     (defaults: 64 ranks, 5 rounds)
#
# Per round, alternately (which one goes first alternates too):
#   golaunch -n N hello       vs  mpirun -n N --oversubscribe hello.c
# then golaunch -n N ring (the 64-ranks-on-2-cores check of the runtime issue)
# and, once, the ranks' resident memory (test/rankprog --mode rss: rank 0
# prints the mean over ranks of VmRSS and its anonymous, file and shared
# parts, after some collectives and a ring of Sendrecv). Prints every wall
# time, then the median of each. Binaries are built first and not timed.
# After every job it checks that no rank process and no /dev/shm file is
# left. Needs go, mpicc/mpirun (Open MPI), GNU date.
set -euo pipefail
n=${1:-64}
rounds=${2:-5}
cd "$(dirname "$0")/../.."
work=$(mktemp -d /tmp/gompi-startup-XXXXXX)
trap 'rm -rf "$work"' EXIT

go build -o "$work/" ./launcher/golaunch ./examples/hello ./examples/ring ./test/rankprog
mpicc -O2 -o "$work/hello_mpi" benches/ref/hello.c
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)

shm_before=$(ls /dev/shm | wc -l)
# wall CMD...: runs CMD with its output discarded, prints its wall seconds.
wall() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
leftovers() {
	local p s
	p=$(pgrep -f "$work/" || true)
	s=$(ls /dev/shm | wc -l)
	[ -z "$p" ] || { echo "left behind: processes $p" >&2; exit 1; }
	[ "$s" -le "$shm_before" ] || { echo "left behind: /dev/shm files" >&2; ls /dev/shm >&2; exit 1; }
}

declare -a g m r
for ((i = 0; i < rounds; i++)); do
	if ((i % 2 == 0)); then
		g+=("$(wall "$work/golaunch" -n "$n" "$work/hello")"); leftovers
		m+=("$(wall "${mpirun[@]}" -n "$n" "$work/hello_mpi")"); leftovers
	else
		m+=("$(wall "${mpirun[@]}" -n "$n" "$work/hello_mpi")"); leftovers
		g+=("$(wall "$work/golaunch" -n "$n" "$work/hello")"); leftovers
	fi
	r+=("$(wall "$work/golaunch" -n "$n" "$work/ring")"); leftovers
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "# $n ranks on $(nproc) CPUs, $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "golaunch hello s: ${g[*]}  median $(median "${g[@]}")"
echo "mpirun hello s:   ${m[*]}  median $(median "${m[@]}")"
echo "golaunch ring s:  ${r[*]}  median $(median "${r[@]}")"
"$work/golaunch" -n "$n" "$work/rankprog" --mode rss | grep "^ranks="
leftovers
echo "nothing left behind (processes, /dev/shm)"
