#!/usr/bin/env bash
# startup.sh: job start-up and memory of many ranks on one host, side by side
# with Open MPI.
#
#   benches/ref/startup.sh [N] [ROUNDS]     (defaults: 64 ranks, 5 rounds)
#
# Per round, alternately (which one goes first alternates too):
#   golaunch -n N hello       vs  mpirun -n N --oversubscribe hello.c
# then golaunch -n N ring (the 64-ranks-on-2-cores check of the runtime issue),
# then, alternately again, each job's start-up up to Init: from just before
# the launch to the moment the LAST rank got past Init (test/rankprog --mode
# inittime and hello.c --init-time print that moment; the same clock),
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

nice -n 19 go build -o "$work/" ./launcher/golaunch ./examples/hello ./examples/ring ./test/rankprog
nice -n 19 mpicc -O2 -o "$work/hello_mpi" benches/ref/hello.c
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)

# Only gompi's own segments are counted: other users' MPI jobs may come and
# go in /dev/shm meanwhile (Open MPI's vader_segment.* files).
gompi_shm() { ls /dev/shm | grep -c '^gompi' || true; }
shm_before=$(gompi_shm)
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
	s=$(gompi_shm)
	[ -z "$p" ] || { echo "left behind: processes $p" >&2; exit 1; }
	[ "$s" -le "$shm_before" ] || { echo "left behind: /dev/shm/gompi* files" >&2; ls /dev/shm >&2; exit 1; }
}

# initms CMD...: runs CMD, which prints "last past Init at unix-us=T", and
# prints T minus the launch time in milliseconds.
initms() {
	local t0 t
	t0=$(date +%s%6N)
	t=$("$@" | sed -n 's/.*last past Init at unix-us=\([0-9]*\).*/\1/p')
	awk -v a="$t0" -v b="$t" 'BEGIN { printf "%.1f\n", (b - a) / 1000 }'
}

declare -a g m r gi mi
# gompi_round and mpi_round: one hello job and one Init-time job of each.
gompi_round() {
	g+=("$(wall "$work/golaunch" -n "$n" "$work/hello")"); leftovers
	gi+=("$(initms "$work/golaunch" -n "$n" "$work/rankprog" --mode inittime)"); leftovers
}
mpi_round() {
	m+=("$(wall "${mpirun[@]}" -n "$n" "$work/hello_mpi")"); leftovers
	mi+=("$(initms "${mpirun[@]}" -n "$n" "$work/hello_mpi" --init-time)"); leftovers
}
for ((i = 0; i < rounds; i++)); do
	if ((i % 2 == 0)); then
		gompi_round; mpi_round
	else
		mpi_round; gompi_round
	fi
	r+=("$(wall "$work/golaunch" -n "$n" "$work/ring")"); leftovers
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "# $n ranks on $(nproc) CPUs, $rounds rounds; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "golaunch hello s: ${g[*]}  median $(median "${g[@]}")"
echo "mpirun hello s:   ${m[*]}  median $(median "${m[@]}")"
echo "golaunch ring s:  ${r[*]}  median $(median "${r[@]}")"
echo "golaunch launch to all past Init ms: ${gi[*]}  median $(median "${gi[@]}")"
echo "mpirun launch to all past Init ms:   ${mi[*]}  median $(median "${mi[@]}")"
"$work/golaunch" -n "$n" "$work/rankprog" --mode rss | grep "^ranks="
leftovers
echo "nothing left behind (processes, /dev/shm)"
