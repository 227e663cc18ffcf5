#!/bin/sh
# side-by-side.sh runs the five MSU transfer tests over each transport and
# prints one Markdown table: a row per size, a column per test and
# transport, MB/sec of the median run (the latency in µs for size 0), then
# each run's fit of T(L) = s + L/R. It is how docs/BENCHMARKS.md's transfer
# table is made.
#
#   benches/transfer/side-by-side.sh [transfer flags]        e.g. --max 1M --reps 10
#
# Environment: BENCHES and GOLAUNCH name the two commands (default: benches
# and golaunch in PATH); TRANSPORTS lists the transports (default "shm tcp";
# tcp runs with GOMPI_TRANSPORT=tcp, which forces TCP between the ranks of
# one host).
set -eu
benches=${BENCHES:-benches}
golaunch=${GOLAUNCH:-golaunch}
transports=${TRANSPORTS:-shm tcp}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

files=
for n in 1 2 3 4 5; do
	for tr in $transports; do
		env=
		[ "$tr" = shm ] || env="GOMPI_TRANSPORT=$tr"
		out=$dir/$n-$tr
		if ! "$golaunch" ${env:+-x "$env"} -n 2 "$benches" transfer --test "$n" --format csv "$@" >"$out.csv" 2>"$out.err"; then
			cat "$out.err" >&2
			exit 1
		fi
		files="$files $out.csv"
	done
done

# Columns of the CSV: test,size,reps,iters,mbps,mbps_min,mbps_max,latency_us,...
# shellcheck disable=SC2086
awk -F, '
FNR == 1 { split(FILENAME, p, "/"); col = p[length(p)]; sub(/\.csv$/, "", col); cols[++ncols] = col; next }
{
	if (!($2 in seen)) { seen[$2] = 1; sizes[++nsizes] = $2 }
	v[$2, col] = ($2 == 0) ? sprintf("%.3f µs", $8) : sprintf("%.1f", $5)
}
END {
	line = "| size |"; rule = "| ---: |"
	for (c = 1; c <= ncols; c++) {
		split(cols[c], p, "-"); line = line " transf" p[1] " " p[2] " |"; rule = rule " ---: |"
	}
	print line; print rule
	for (s = 1; s <= nsizes; s++) {
		line = "| " sizes[s] " |"
		for (c = 1; c <= ncols; c++) line = line " " ((sizes[s], cols[c]) in v ? v[sizes[s], cols[c]] : "") " |"
		print line
	}
}' $files

echo
for n in 1 2 3 4 5; do
	for tr in $transports; do
		printf '%s, ' "$tr"
		grep '^transf' "$dir/$n-$tr.err" || echo "transf$n: no fit"
	done
done
