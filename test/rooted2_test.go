package test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRootedTwoRanksBackToBack: two processes run Reduce, Gather and
// Gatherv back to back with changing roots and sizes, mixed with other
// collectives (rankprog --mode rooted2), and agree on every result.
func TestRootedTwoRanksBackToBack(t *testing.T) {
	r := golaunch(t, "", "-n", "2", filepath.Join(bin, "rankprog"), "--mode", "rooted2")
	if r.code != 0 || strings.Count(r.stdout, "rooted2 agreed") != 2 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
