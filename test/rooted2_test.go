package test

import (
	"strings"
	"testing"
)

// TestRootedTwoRanksBackToBack: two processes run the conformance case
// RootedTwoRanksBackToBack (Reduce, Gather and Gatherv back to back with
// changing roots and sizes, mixed with other collectives), where the
// contributor's open arrival crosses two address spaces.
func TestRootedTwoRanksBackToBack(t *testing.T) {
	conf := buildConformance(t)
	r := launchWith(t, "", nil, "-n", "2", conf, "--run", "RootedTwoRanksBackToBack", "--timeout", "1m", "-v")
	if r.code != 0 || !strings.Contains(r.stdout, " 0 failed") || !strings.Contains(r.stdout, "ok    RootedTwoRanksBackToBack") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
