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
# DIR (default /tmp/tracedpp) holds the binaries and the last trace.
set -eu
rounds=${1:-7}
dir=${DIR:-/tmp/tracedpp}
mkdir -p "$dir"
go build -o "$dir/" ./launcher/golaunch ./examples/pingpong
# lat prints "median min" of a run's JSON line.
lat() { sed -n 's/.*"latency_min_us":\([0-9.e+-]*\).*"latency_us":\([0-9.e+-]*\).*/\2 \1/p'; }
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	off=$("$dir/golaunch" -n 2 "$dir/pingpong" --min 8 --max 8 --format json | lat)
	rm -rf "$dir/trace"
	on=$("$dir/golaunch" -n 2 --trace "$dir/trace" "$dir/pingpong" --min 8 --max 8 --format json | lat)
	echo "round $i off $off on $on"
done | tee "$dir/rounds.txt"
awk '{offm[NR] = $4; offb[NR] = $5; onm[NR] = $7; onb[NR] = $8}
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
END {
	a = median(offm, NR); b = median(onm, NR); c = median(offb, NR); d = median(onb, NR)
	printf "median over %d rounds of the runs'"'"' medians: off %.3f µs, on %.3f µs, on/off %.2f\n", NR, a, b, b / a
	printf "median over %d rounds of the runs'"'"' best:    off %.3f µs, on %.3f µs, on/off %.2f\n", NR, c, d, d / c
}' "$dir/rounds.txt"
