#!/usr/bin/env bash
# rma.sh: the one-sided tests of `benches osu` (gompi, under golaunch) side by
# side with benches/ref/osu_rma.c (the same loops over the MPI library's
# windows, under mpirun), alternating the two for every repetition so that
# drift in the machine's load hits both alike. Prints a Markdown table of
# the medians and their ratio (gompi / MPI: below 1 is gompi faster for
# times, slower for bandwidths).
#
# Windows made by MPI_Win_allocate run on Open MPI's osc/sm (--mca osc sm:
# direct loads and stores, its fastest component; its default choice, rdma,
# crashes in MPI_Compare_and_swap on such windows with Open MPI 4.1.4);
# the others on its default choice.
#
#   benches/ref/rma.sh [reps]          (default 5; DIR= keeps the binaries)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${1:-5}
dir=${DIR:-$(mktemp -d)}
go build -o "$dir/benches" ./benches
go build -o "$dir/golaunch" ./launcher/golaunch
mpicc -O2 -o "$dir/osu_rma" benches/ref/osu_rma.c
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)

median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# point N ARGS...: one row.
point() {
	local n=$1
	shift
	local gs="" cs="" osc=()
	[[ " $* " == *" -w allocate "* ]] && osc=(--mca osc sm)
	for _ in $(seq "$reps"); do
		gs+=" $("$dir/golaunch" -n "$n" "$dir/benches" osu "$@" --format csv 2>/dev/null | tail -1 | cut -d, -f6 || true)"
		cs+=" $("${mpirun[@]}" "${osc[@]}" -n "$n" "$dir/osu_rma" "$@" 2>/dev/null | tail -1 | cut -d, -f6 || true)"
	done
	local g c
	g=$(echo "$gs" | median)
	c=$(echo "$cs" | median)
	echo "$* | $n | $g | $c" | awk -F' [|] ' '
		function f(v) { return v == "" ? "failed" : (v < 10 ? sprintf("%.3f", v) : sprintf("%.1f", v)) }
		{ r = ($3 != "" && $4 != "" && $4 > 0) ? sprintf("%.2f", $3 / $4) : "-"
		  printf "| %s | %d | %s | %s | %s |\n", $1, $2, f($3), f($4), r }'
}

echo "| benches osu / osu_rma arguments | n | gompi | Open MPI | ratio |"
echo "| --- | ---: | ---: | ---: | ---: |"
lat=(--iters 10000 --skip 100)
for op in put_latency get_latency acc_latency get_acc_latency; do
	point 2 --op "$op" -w allocate -s flush --sizes 8 "${lat[@]}"
done
for op in fop_latency cas_latency; do
	point 2 --op "$op" -w allocate -s flush "${lat[@]}"
done
for s in lock lock_all fence pscw; do
	point 2 --op put_latency -w allocate -s "$s" --sizes 8 --iters 2000 --skip 20
done
for w in create dynamic; do
	point 2 --op put_latency -w "$w" -s flush --sizes 8 --iters 2000 --skip 20
	point 2 --op fop_latency -w "$w" -s flush --iters 2000 --skip 20
done
big=(--sizes 4194304 --window-size 16 --iters-large 20 --skip-large 2)
for op in put_bw get_bw; do
	point 2 --op "$op" -w allocate -s flush "${big[@]}"
done
point 2 --op put_bibw -w allocate -s fence "${big[@]}"
point 2 --op put_bw -w create -s flush "${big[@]}"
for n in 2 4 8 16 32 64; do
	point "$n" --op win_create -w allocate --sizes 4096 --iters 20 --skip 2
done
