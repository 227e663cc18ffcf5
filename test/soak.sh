#!/usr/bin/env bash
# Soak: N ranks (64) for S seconds (600) on this machine, whatever its cores,
# passing messages round a ring, in Allreduce and between random pairs, with
# every payload checked (test/rankprog's soak mode). Afterwards nothing may
# be left: no rank process, no /dev/shm/gompi* file.
#
#	test/soak.sh [ranks] [seconds]     (from the repository root)
set -euo pipefail
n=${1:-64}
secs=${2:-600}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/" ./launcher/golaunch ./test/rankprog
echo "soak: $n ranks for $secs s on $(nproc) cores"
start=$(date +%s)
"$dir/golaunch" -n "$n" "$dir/rankprog" --mode soak --arg "$secs" | tee "$dir/out" | grep --line-buffered '^soak:'
echo "soak: the job took $(($(date +%s) - start)) s"
# The ranks printed their pids; none may outlive the job.
left=""
for pid in $(sed -n 's/^pid=\([0-9]*\) .*/\1/p' "$dir/out"); do
	if [ -e "/proc/$pid" ] && ! grep -q '^[^)]*) Z' "/proc/$pid/stat" 2>/dev/null; then
		left="$left $pid"
	fi
done
shmleft=$(ls /dev/shm 2>/dev/null | grep '^gompi' || true)
if [ -n "$left" ] || [ -n "$shmleft" ]; then
	echo "soak: FAIL: left behind: processes [$left] /dev/shm [$shmleft]"
	exit 1
fi
echo "soak: nothing left behind ($(sed -n 's/^pid=//p' "$dir/out" | wc -l) rank processes gone, no /dev/shm/gompi* file)"
