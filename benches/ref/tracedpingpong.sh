#!/bin/sh
# Traced against untraced ping-pong of 8 bytes over shared memory, side by
# side: examples/pingpong on 2 ranks under golaunch, without and with
# --trace, alternating in each round so that the machine's drift in load
# hits both alike. Each run measures 5 times (iterations calibrated to
# 0.05 s each); per round it prints the median and the best (min) of the
# 5 one-way latencies, in µs, and at the end the medians over the rounds
# of both, and their ratio on/off. On a loaded machine the best of each run
# is the figure to read: the median then mostly measures waiting for a CPU.
#
#	benches/ref/tracedpingpong.sh [ROUNDS]     # from the repository root; default 7
#
# DIR (default /tmp/tracedpp) holds the binaries and the last trace. BASE,
# if set, is a directory holding golaunch and pingpong of another build (say
# the main branch's, `go build -o BASE/ ./launcher/golaunch
# ./examples/pingpong` there): each round then runs it too, off and on,
# right after this build, and the summary gives both.
set -eu
rounds=${1:-7}
dir=${DIR:-/tmp/tracedpp}
base=${BASE:-}
mkdir -p "$dir"
go build -o "$dir/" ./launcher/golaunch ./examples/pingpong
# lat prints "median min" of a run's JSON line.
lat() { sed -n 's/.*"latency_min_us":\([0-9.e+-]*\).*"latency_us":\([0-9.e+-]*\).*/\2 \1/p'; }
# offon prints "off MEDIAN MIN on MEDIAN MIN" for the binaries in $1.
offon() {
	off=$("$1/golaunch" -n 2 "$1/pingpong" --min 8 --max 8 --format json | lat)
	rm -rf "$dir/trace"
	on=$("$1/golaunch" -n 2 --trace "$dir/trace" "$1/pingpong" --min 8 --max 8 --format json | lat)
	echo "off $off on $on"
}
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	if [ -n "$base" ]; then
		echo "round $i $(offon "$dir") base $(offon "$base")"
	else
		echo "round $i $(offon "$dir")"
	fi
done | tee "$dir/rounds.txt"
summary() {
	awk -v c="$1" -v what="$2" '{offm[NR] = $(c); offb[NR] = $(c+1); onm[NR] = $(c+3); onb[NR] = $(c+4)}
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
END {
	a = median(offm, NR); b = median(onm, NR); c = median(offb, NR); d = median(onb, NR)
	printf "%smedian over %d rounds of the runs'"'"' medians: off %.3f µs, on %.3f µs, on/off %.2f\n", what, NR, a, b, b / a
	printf "%smedian over %d rounds of the runs'"'"' best:    off %.3f µs, on %.3f µs, on/off %.2f\n", what, NR, c, d, d / c
}' "$dir/rounds.txt"
}
if [ -n "$base" ]; then
	summary 4 "this build: "
	summary 11 "BASE:       "
else
	summary 4 ""
fi
