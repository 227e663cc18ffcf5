#!/usr/bin/env bash
# The Performance Expert experiment (docs/EXPERT.md): for each rank count,
# run both versions of jacobi REPS times, alternating, and take medians; then
# trace one run of each and report the naive one's late sender and late
# receiver shares and the gain the what-if replay predicts for them, next to
# the gain measured by the overlap version, and the overlap version's late
# sender share (blocking and nonblocking receives together).
#
#	examples/jacobi/experiment.sh 2 4 8
#	N=2000 ITER=100 REPS=5 TRANSPORT=tcp examples/jacobi/experiment.sh 2 4
#	HOSTS=nsA,nsB AGENT='ip netns exec' examples/jacobi/experiment.sh 2 4
#
# With HOSTS (two host names) the ranks are split in halves over them, the
# first half on the first host (see examples/jacobi/netns.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/golaunch" ./launcher/golaunch
go build -o "$bin/jacobi" ./examples/jacobi
go build -o "$bin/goexpert" ./expert/goexpert
N=${N:-480} ITER=${ITER:-500} REPS=${REPS:-3}
launch=("$bin/golaunch")
[ -n "${TRANSPORT:-}" ] && launch+=(--transport "$TRANSPORT")
[ -n "${AGENT:-}" ] && launch+=(--launch-agent "$AGENT")
# ranks p: the golaunch arguments that place p ranks.
ranks() {
	if [ -n "${HOSTS:-}" ]; then
		echo "-H ${HOSTS%,*}:$(($1 / 2)),${HOSTS#*,}:$(($1 - $1 / 2))"
	else
		echo "-n $1"
	fi
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
seconds() { awk '/^jacobi/ {print $(NF-1)}'; }
echo "grid ${N}x${N}, $ITER iterations, medians of $REPS runs${TRANSPORT:+, transport $TRANSPORT}${HOSTS:+, hosts $HOSTS}"
echo
echo "| ranks | naive (s) | overlap (s) | speedup | late sender | late receiver | predicted gain: late sender | late receiver | measured gain | overlap: late sender |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for p in "${@:-2 4}"; do
	naive=() overlap=()
	for _ in $(seq "$REPS"); do
		naive+=("$("${launch[@]}" $(ranks "$p") "$bin/jacobi" --variant naive --n "$N" --iterations "$ITER" | seconds)")
		overlap+=("$("${launch[@]}" $(ranks "$p") "$bin/jacobi" --variant overlap --n "$N" --iterations "$ITER" | seconds)")
	done
	tn=$(printf '%s\n' "${naive[@]}" | median)
	to=$(printf '%s\n' "${overlap[@]}" | median)
	"${launch[@]}" --trace "$bin/t$p" $(ranks "$p") "$bin/jacobi" --variant naive --n "$N" --iterations "$ITER" >/dev/null
	"$bin/goexpert" report "$bin/t$p" --format json >"$bin/r$p.json"
	"${launch[@]}" --trace "$bin/o$p" $(ranks "$p") "$bin/jacobi" --variant overlap --n "$N" --iterations "$ITER" >/dev/null
	"$bin/goexpert" report "$bin/o$p" --format json >"$bin/o$p.json"
	pct() { jq -r --arg n "$1" '[.problems[]? | select(.name == $n) | .'"$2"'] | (first // 0) | . * 100 | round / 100' "${3:-$bin/r$p.json}"; }
	late=$(jq -r '[.problems[]? | select((.name | startswith("Late sender (")) or .name == "Late sender") | .percent] | add // 0 | . * 100 | round / 100' "$bin/o$p.json")
	echo "| $p | $tn | $to | $(awk -v a="$tn" -v b="$to" 'BEGIN {printf "%.2fx", a/b}') |" \
		"$(pct "Late sender" percent) % | $(pct "Late receiver" percent) % |" \
		"$(pct "Late sender" predicted_gain_percent) % | $(pct "Late receiver" predicted_gain_percent) % |" \
		"$(awk -v a="$tn" -v b="$to" 'BEGIN {printf "%.1f %%", 100*(a-b)/a}') | $late % |"
done
