package test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTransfersProgressWhileRanksCompute: a 1 MiB Isend/Irecv pair (the
// rendezvous, a single copy over shared memory, RTS/CTS/data over TCP, and
// the pipelined copy without cross-memory attach) completes while both
// ranks compute and only look at Request.Done (rankprog's progress mode).
func TestTransfersProgressWhileRanksCompute(t *testing.T) {
	for _, tc := range []struct{ name, transport, env string }{
		{"shm", "auto", ""}, {"tcp", "tcp", ""}, {"shm-pipelined", "auto", "GOMPI_SHM_CMA=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-n", "2", "--transport", tc.transport}
			if tc.env != "" {
				args = append(args, "-x", tc.env)
			}
			args = append(args, filepath.Join(bin, "rankprog"), "--mode", "progress")
			r := golaunch(t, "", args...)
			if r.code != 0 || strings.Count(r.stdout, "completed during the computation") != 2 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
		})
	}
}
