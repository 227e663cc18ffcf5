#!/usr/bin/env bash
# tcp.sh: gompi's TCP transport side by side with Open MPI's (btl tcp,self),
# by the same ping-pong (examples/pingpong and benches/ref/pingpong.c, the
# same method and output), alternating the two ROUNDS times and reporting
# per size the median over rounds of each one's median and the ratios.
#
#   benches/ref/tcp.sh loopback [ROUNDS]   both stacks over 127.0.0.1
#   benches/ref/tcp.sh netns [ROUNDS]      two network namespaces joined by a
#                                          veth pair shaped to 1 Gbit/s (tbf)
#
# Needs go, mpicc/mpirun (Open MPI 4.1), python3; netns needs root and
# iproute2 (ip, tc). Namespaces, links and files it makes are removed on exit.
# Extra pingpong arguments can be given in PP_ARGS (default: --max 4M
# --reps 5 --time 0.05).
set -euo pipefail
mode=${1:-loopback}
rounds=${2:-5}
pp_args=${PP_ARGS:---max 4M --reps 5 --time 0.05}
cd "$(dirname "$0")/../.."
work=$(mktemp -d /tmp/gompi-tcpbench-XXXXXX)
nsa=gompi-bench-$$-a
nsb=gompi-bench-$$-b
cleanup() {
	if [ "$mode" = netns ]; then
		ip netns del "$nsa" 2>/dev/null || true
		ip netns del "$nsb" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/" ./launcher/golaunch ./examples/pingpong
mpicc -O2 -o "$work/pingpong_ompi" benches/ref/pingpong.c
ompi_common=(--allow-run-as-root -np 2 --bind-to none --mca pml ob1 --mca btl tcp,self)

case "$mode" in
loopback)
	run_gompi() { GOMPI_TRANSPORT=tcp "$work/golaunch" -n 2 "$work/pingpong" --format json $pp_args; }
	run_ompi() { mpirun "${ompi_common[@]}" --mca btl_tcp_if_include lo "$work/pingpong_ompi" --format json $pp_args; }
	;;
netns)
	net=10.231.250
	ip netns add "$nsa"
	ip netns add "$nsb"
	ip link add gbench$$a type veth peer name gbench$$b
	ip link set gbench$$a netns "$nsa"
	ip link set gbench$$b netns "$nsb"
	ip -n "$nsa" addr add $net.1/24 dev gbench$$a
	ip -n "$nsb" addr add $net.2/24 dev gbench$$b
	for ns in "$nsa" "$nsb"; do ip -n "$ns" link set lo up; done
	ip -n "$nsa" link set gbench$$a up
	ip -n "$nsb" link set gbench$$b up
	# 1 Gbit/s each way: a token bucket on the egress of both ends.
	tc -n "$nsa" qdisc add dev gbench$$a root tbf rate 1gbit burst 128kb latency 10ms
	tc -n "$nsb" qdisc add dev gbench$$b root tbf rate 1gbit burst 128kb latency 10ms
	# Open MPI starts its daemons through an rsh agent: this one runs the
	# command line in the namespace named as the host, with a session
	# directory of its own (both "hosts" share /tmp and the host name).
	printf '#!/bin/sh\nhost=$1; shift\nmkdir -p "%s/tmp-$host"\nOMPI_MCA_orte_tmpdir_base="%s/tmp-$host" exec ip netns exec "$host" sh -c "$*"\n' "$work" "$work" >"$work/nsrsh"
	chmod +x "$work/nsrsh"
	run_gompi() {
		"$work/golaunch" -H "$nsa:1,$nsb:1" --launch-agent 'ip netns exec' "$work/pingpong" --format json $pp_args
	}
	run_ompi() {
		ip netns exec "$nsa" mpirun "${ompi_common[@]}" -H "$nsa:1,$nsb:1" --mca plm_rsh_agent "$work/nsrsh" \
			--mca btl_tcp_if_include $net.0/24 --mca oob_tcp_if_include $net.0/24 "$work/pingpong_ompi" --format json $pp_args
	}
	;;
*)
	echo "usage: $0 loopback|netns [ROUNDS]" >&2
	exit 2
	;;
esac

# retry runs a measurement again if it fails (Open MPI's daemons crash in
# hwloc now and then on this machine), three tries in all.
retry() {
	"$@" || { echo "# $1 failed, again" >&2; "$@"; } || { echo "# $1 failed, again" >&2; "$@"; }
}

echo "# $mode, $rounds rounds, pingpong $pp_args; $(date -u +%FT%TZ), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq 1 "$rounds"); do
	# Alternate which goes first, so that drift in the machine's load does
	# not favour one.
	if [ $((i % 2)) = 1 ]; then
		retry run_gompi >"$work/gompi.$i.json"
		retry run_ompi >"$work/ompi.$i.json"
	else
		retry run_ompi >"$work/ompi.$i.json"
		retry run_gompi >"$work/gompi.$i.json"
	fi
	echo "# round $i done" >&2
done
python3 - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
def load(name):
    per = {}
    for i in range(1, rounds + 1):
        for line in open(f"{work}/{name}.{i}.json"):
            line = line.strip()
            if line.startswith("{"):
                d = json.loads(line)
                per.setdefault(d["size"], []).append((d["latency_us"], d["bandwidth_MBps"]))
    return per
g, o = load("gompi"), load("ompi")
print(f"{'size(B)':>9} {'gompi lat(us)':>14} {'ompi lat(us)':>13} {'lat g/o':>8} {'gompi MB/s':>11} {'ompi MB/s':>10} {'bw g/o':>7}")
for s in sorted(g):
    if s not in o:
        continue
    gl = statistics.median(x[0] for x in g[s]); ol = statistics.median(x[0] for x in o[s])
    gb = statistics.median(x[1] for x in g[s]); ob = statistics.median(x[1] for x in o[s])
    print(f"{s:>9} {gl:>14.2f} {ol:>13.2f} {gl/ol:>8.2f} {gb:>11.1f} {ob:>10.1f} {(gb/ob if ob else 0):>7.2f}")
print()
print("spread over rounds (min..max of each round's median):")
for s in (1, 65536, 1048576, 4194304):
    if s in g and s in o:
        print(f"{s:>9}  gompi {min(x[0] for x in g[s]):.2f}..{max(x[0] for x in g[s]):.2f} us, "
              f"{min(x[1] for x in g[s]):.0f}..{max(x[1] for x in g[s]):.0f} MB/s;  "
              f"ompi {min(x[0] for x in o[s]):.2f}..{max(x[0] for x in o[s]):.2f} us, "
              f"{min(x[1] for x in o[s]):.0f}..{max(x[1] for x in o[s]):.0f} MB/s")
PY
