package test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFloodOfSendsToAComputingRank: rank 0 posts 10,000 Isends and a Bsend
// to rank 1, which computes without calling gompi until they have all
// returned (rankprog's flood mode says how); every message must then
// arrive, in order. Over shared memory and over TCP.
func TestFloodOfSendsToAComputingRank(t *testing.T) {
	for _, transport := range []string{"auto", "tcp"} {
		t.Run(transport, func(t *testing.T) {
			gate := filepath.Join(t.TempDir(), "posted")
			r := golaunch(t, "", "-n", "2", "--transport", transport, filepath.Join(bin, "rankprog"),
				"--mode", "flood", "--arg", "200", "--path", gate)
			if r.code != 0 || !strings.Contains(r.stdout, "all 10001 messages arrived in order") {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			for _, l := range strings.Split(r.stdout, "\n") {
				if strings.HasPrefix(l, "flood: posted") {
					t.Log(l)
				}
			}
		})
	}
}
