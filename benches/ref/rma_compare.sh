#!/usr/bin/env bash
# rma_compare.sh: the same-host latency points of rma.sh and window creation
# at n = 8, for several builds of `benches` side by side with
# benches/ref/osu_rma.c over Open MPI (osc/sm), alternating all of them in
# every repetition. Prints one Markdown row per point: the median of each
# build, then Open MPI's, each followed by every run's figure.
#
#   benches/ref/rma_compare.sh REPS BENCHES... (DIR holds golaunch and osu_rma;
#   ONLY=lat or ONLY=create runs one half)
set -uo pipefail
reps=$1
shift
bins=("$@")
d=${DIR:?DIR must hold golaunch and osu_rma (see rma.sh)}
mpirun=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun+=(--allow-run-as-root)
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
point() {
	local n=$1
	shift
	declare -A gs
	local cs="" osc=()
	[[ " $* " == *" -w allocate "* ]] && osc=(--mca osc sm)
	for _ in $(seq "$reps"); do
		for b in "${bins[@]}"; do
			gs[$b]+=" $("$d/golaunch" -n "$n" "$b" osu "$@" --format csv 2>/dev/null | tail -1 | cut -d, -f6)"
		done
		cs+=" $("${mpirun[@]}" "${osc[@]}" -n "$n" "$d/osu_rma" "$@" 2>/dev/null | tail -1 | cut -d, -f6)"
	done
	local line="| $* | $n"
	for b in "${bins[@]}"; do line+=" | $(echo "${gs[$b]}" | median) ($(echo ${gs[$b]}))"; done
	echo "$line | $(echo "$cs" | median) ($(echo $cs)) |"
}
lat=(--iters 10000 --skip 100)
if [ "${ONLY:-lat}" = lat ]; then
	for op in put_latency get_latency acc_latency; do point 2 --op $op -w allocate -s flush --sizes 8 "${lat[@]}"; done
	for op in fop_latency cas_latency; do point 2 --op $op -w allocate -s flush "${lat[@]}"; done
fi
if [ "${ONLY:-create}" = create ]; then
	point 8 --op win_create -w allocate --sizes 4096 --iters 20 --skip 2
fi
