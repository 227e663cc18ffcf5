package test

import (
	"strings"
	"testing"
)

// TestPointToPointSizesAcrossProcesses runs the conformance suite's
// point-to-point cases that straddle the fast box's and the cells' bounds
// (inline records up to 1 KiB always and to 2 KiB when the ring has room,
// cells, the single copy) on two real processes, where the box is a ring in
// the shared segment between two address spaces.
func TestPointToPointSizesAcrossProcesses(t *testing.T) {
	conf := buildConformance(t)
	cases := "BoxRecordSizes|BlockingRecvKeepsMatchingOrder|PingPongSizes|FloodWhileReceiverBusy|TruncationLeavesNextMessageIntact|MatchByTagKeepsUnexpected|Probe|PersistentRequests"
	r := launchWith(t, "", nil, "-n", "2", conf, "--run", cases, "--timeout", "1m", "-v")
	if r.code != 0 || !strings.Contains(r.stdout, " 0 failed") || !strings.Contains(r.stdout, "ok    BoxRecordSizes") || !strings.Contains(r.stdout, "ok    BlockingRecvKeepsMatchingOrder") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
