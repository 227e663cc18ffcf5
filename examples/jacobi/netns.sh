#!/usr/bin/env bash
# The Jacobi experiment between two "hosts": network namespaces gx-a and
# gx-b of this machine joined by a veth pair on 10.233.1.0/24, each
# direction shaped to 1 Gbit/s with a token bucket (tc tbf), ranks split in
# halves over them (shared memory within a namespace, TCP between). Needs
# root and iproute2; removes the namespaces when it ends.
#
#	examples/jacobi/netns.sh 2 4 8          (arguments as experiment.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
a=gx-a b=gx-b
cleanup() {
	ip netns del "$a" 2>/dev/null || true
	ip netns del "$b" 2>/dev/null || true
	ip link del gx-va 2>/dev/null || true
}
trap cleanup EXIT
cleanup
ip netns add "$a"
ip netns add "$b"
ip link add gx-va type veth peer name gx-vb
ip link set gx-va netns "$a"
ip link set gx-vb netns "$b"
ip -n "$a" addr add 10.233.1.1/24 dev gx-va
ip -n "$b" addr add 10.233.1.2/24 dev gx-vb
for ns in "$a" "$b"; do ip -n "$ns" link set lo up; done
ip -n "$a" link set gx-va up
ip -n "$b" link set gx-vb up
ip netns exec "$a" tc qdisc add dev gx-va root tbf rate 1gbit burst 256kbit latency 50ms
ip netns exec "$b" tc qdisc add dev gx-vb root tbf rate 1gbit burst 256kbit latency 50ms
HOSTS="$a,$b" AGENT="ip netns exec" examples/jacobi/experiment.sh "$@"
