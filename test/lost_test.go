package test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLostPeerFailsEveryPendingRequest: when rank 1 dies, every request of
// rank 0 that involves it (receives by tag and from AnySource, a rendezvous
// send, a synchronous send) completes with ErrPeerLost without rank 0
// calling gompi (rankprog's lost mode).
func TestLostPeerFailsEveryPendingRequest(t *testing.T) {
	for _, transport := range []string{"auto", "tcp"} {
		t.Run(transport, func(t *testing.T) {
			r := golaunch(t, "", "-n", "2", "--transport", transport, filepath.Join(bin, "rankprog"), "--mode", "lost")
			if !strings.Contains(r.stdout, "all 7 requests failed with ErrPeerLost") || !strings.Contains(r.stderr, "rank 1") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			for _, l := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(l, "lost:") {
					t.Log(l)
				}
			}
		})
	}
}
