#!/bin/sh
# wait-idle.sh [CMD ARGS...] waits until this machine's CPUs have been at
# least 90 % idle over 3 seconds (giving up after 20 minutes), says so on
# stderr with the load averages, then runs CMD. On a shared machine it keeps
# a benchmark from starting while others' jobs run; it cannot keep them out
# once it has started, so the benchmarks also report their spread.
#
#   benches/wait-idle.sh golaunch -n 2 benches transfer --test 1
#   BEFORE=benches/wait-idle.sh benches/transfer/side-by-side.sh
busy() { # percent of CPU time busy over the next 3 seconds, from /proc/stat
	# shellcheck disable=SC2046
	set -- $(head -1 /proc/stat)
	b0=$(($2 + $3 + $4 + $7 + $8)) t0=$(($2 + $3 + $4 + $5 + $6 + $7 + $8))
	sleep 3
	# shellcheck disable=SC2046
	set -- $(head -1 /proc/stat)
	b1=$(($2 + $3 + $4 + $7 + $8)) t1=$(($2 + $3 + $4 + $5 + $6 + $7 + $8))
	echo $((100 * (b1 - b0) / (t1 - t0)))
}
end=$(($(date +%s) + 1200))
while p=$(busy) && [ "$p" -gt 10 ]; do
	if [ "$(date +%s)" -ge "$end" ]; then
		echo "# $(date +%T) never idle in 20 minutes (last ${p}% busy); going on" >&2
		break
	fi
done
echo "# $(date +%T) ${p}% busy over 3 s; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
[ $# -eq 0 ] || exec "$@"
