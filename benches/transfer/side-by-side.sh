#!/bin/sh
# side-by-side.sh runs the five MSU transfer tests over each transport,
# REPEATS times in turn (so that every transport meets the same load on a
# shared machine), and prints one Markdown table: a row per size, a column
# per test and transport, MB/sec of the median run (the latency in µs for
# size 0), the median over the repeats; then the fits of T(L) = s + L/R,
# the median and range over the repeats. It is how docs/BENCHMARKS.md's
# transfer table is made.
#
#   benches/transfer/side-by-side.sh [transfer flags]        e.g. --max 1M --reps 10
#
# Environment: BENCHES and GOLAUNCH name the two commands (default: benches
# and golaunch in PATH); TRANSPORTS lists the transports (default "shm tcp";
# tcp runs with GOMPI_TRANSPORT=tcp, which forces TCP between the ranks of
# one host); REPEATS (default 3); BEFORE, a command run before each run
# (say, one that waits until the machine is idle).
set -eu
benches=${BENCHES:-benches}
golaunch=${GOLAUNCH:-golaunch}
transports=${TRANSPORTS:-shm tcp}
repeats=${REPEATS:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

r=1
while [ "$r" -le "$repeats" ]; do
	for n in 1 2 3 4 5; do
		for tr in $transports; do
			env=
			[ "$tr" = shm ] || env="GOMPI_TRANSPORT=$tr"
			out=$dir/$n-$tr-$r
			${BEFORE:-true}
			if ! "$golaunch" ${env:+-x "$env"} -n 2 "$benches" transfer --test "$n" --format csv "$@" >"$out.csv" 2>"$out.err"; then
				cat "$out.err" >&2
				exit 1
			fi
		done
	done
	r=$((r + 1))
done

# The CSV's columns: test,size,reps,iters,mbps,mbps_min,mbps_max,latency_us,...
# A file n-tr-r.csv is column "transf<n> <tr>", repeat r; its .err has the fit.
awk -F, -v transports="$transports" '
function median(list, a, k, i, j, t) {
	k = split(list, a, " ")
	for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function key(file, p, n) { n = split(file, p, "/"); split(p[n], p, "-"); return "transf" p[1] " " p[2] }
FNR == 1 { col = key(FILENAME); if (!(col in known)) { known[col] = 1; cols[++ncols] = col }; isfit = FILENAME ~ /\.err$/ }
isfit && /^transf/ {
	match($0, /s = [-0-9.]+/); s[col] = s[col] " " substr($0, RSTART + 4, RLENGTH - 4)
	if (match($0, /R = [-0-9.]+/)) r[col] = r[col] " " substr($0, RSTART + 4, RLENGTH - 4)
	next
}
isfit || FNR == 1 { next }
{
	if (!($2 in seen)) { seen[$2] = 1; sizes[++nsizes] = $2 }
	v[$2, col] = v[$2, col] " " ($2 == 0 ? $8 : $5)
}
END {
	line = "| size |"; rule = "| ---: |"
	for (c = 1; c <= ncols; c++) { line = line " " cols[c] " |"; rule = rule " ---: |" }
	print line; print rule
	for (i = 1; i <= nsizes; i++) {
		line = "| " sizes[i] " |"
		for (c = 1; c <= ncols; c++)
			line = line " " (sizes[i] == 0 ? sprintf("%.3f µs", median(v[sizes[i], cols[c]])) : sprintf("%.1f", median(v[sizes[i], cols[c]]))) " |"
		print line
	}
	print ""
	print "| T(L) = s + L/R | s, µs: median (range) | R, MB/sec: median (range) |"
	print "| --- | ---: | ---: |"
	for (c = 1; c <= ncols; c++) {
		ks = split(s[cols[c]], a, " "); kr = split(r[cols[c]], b, " ")
		lo = hi = a[1]; for (i = 1; i <= ks; i++) { if (a[i] + 0 < lo + 0) lo = a[i]; if (a[i] + 0 > hi + 0) hi = a[i] }
		rs = "-"
		if (kr > 0) {
			rlo = rhi = b[1]; for (i = 1; i <= kr; i++) { if (b[i] + 0 < rlo + 0) rlo = b[i]; if (b[i] + 0 > rhi + 0) rhi = b[i] }
			rs = sprintf("%.0f (%.0f–%.0f)", median(r[cols[c]]), rlo, rhi)
		}
		printf "| %s | %.2f (%.2f–%.2f) | %s |\n", cols[c], median(s[cols[c]]), lo, hi, rs
	}
}' $(ls "$dir"/*.csv "$dir"/*.err | sort)
