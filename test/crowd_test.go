package test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCrowdedCollectives: 20 ranks whose slot waits are crowded (forced by
// GOMPI_SHM_SLEEP_FROM, as on a host of 2-4 CPUs without it) sleep at once,
// raw (gompi/internal/core/crowded.go). 300 rounds of Barrier, Bcast,
// Allreduce and Allgather agree; then a rank killed while the others sleep
// in a barrier makes each of them fail with ErrPeerLost, not hang.
func TestCrowdedCollectives(t *testing.T) {
	const n = 20
	env := []string{"GOMPI_SHM_SLEEP_FROM=16", "GOMPI_SHM_RAW_SLEEP=1"}
	prog := filepath.Join(bin, "rankprog")
	r := launchWith(t, "", env, "-n", "20", prog, "--mode", "crowd")
	if r.code != 0 || strings.Count(r.stdout, "300 rounds agreed") != n {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = launchWith(t, "", env, "-n", "20", prog, "--mode", "crowd", "--arg", "6")
	if strings.Count(r.stdout, "peer lost") != n-1 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
