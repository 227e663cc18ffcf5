package test

import (
	"path/filepath"
	"strings"
	"testing"
)

// The engine's promises, end to end, on every transport: sends return
// whatever the receiver does, transfers progress while ranks compute, and a
// lost peer fails every request that involves it. The rank side of each
// test is a mode of test/rankprog (flood, progress, lost).

// rankprogJob runs rankprog's mode (with progArgs) on two ranks, golaunch
// given launchArgs too, fails the test unless stdout contains want count
// times, and logs the lines the mode prints about itself.
func rankprogJob(t *testing.T, mode, want string, count int, launchArgs []string, progArgs ...string) {
	t.Helper()
	args := append([]string{"-n", "2"}, launchArgs...)
	args = append(append(args, filepath.Join(bin, "rankprog"), "--mode", mode), progArgs...)
	r := golaunch(t, "", args...)
	if strings.Count(r.stdout, want) != count {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, mode+":") {
			t.Log(l)
		}
	}
}

// TestFloodOfSendsToAComputingRank: rank 0 posts 10,000 Isends and a Bsend
// to rank 1, which computes without calling gompi until they have all
// returned; every message must then arrive, in order.
func TestFloodOfSendsToAComputingRank(t *testing.T) {
	for _, transport := range []string{"auto", "tcp"} {
		t.Run(transport, func(t *testing.T) {
			gate := filepath.Join(t.TempDir(), "posted")
			rankprogJob(t, "flood", "all 10001 messages arrived in order", 1,
				[]string{"--transport", transport}, "--arg", "200", "--path", gate)
		})
	}
}

// TestTransfersProgressWhileRanksCompute: a 1 MiB Isend/Irecv pair (the
// single copy over shared memory, the pipelined copy without cross-memory
// attach, RTS/CTS/data over TCP) completes while both ranks compute and
// only look at Request.Done.
func TestTransfersProgressWhileRanksCompute(t *testing.T) {
	for _, tc := range []struct{ name, transport, env string }{
		{"shm", "auto", "GOMPI_SHM_CMA=1"}, {"tcp", "tcp", "GOMPI_SHM_CMA=1"}, {"shm-pipelined", "auto", "GOMPI_SHM_CMA=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rankprogJob(t, "progress", "completed during the computation", 2, []string{"--transport", tc.transport, "-x", tc.env})
		})
	}
}

// TestLostPeerFailsEveryPendingRequest: when rank 1 dies, every request of
// rank 0 that involves it (receives by tag and from AnySource, a rendezvous
// send, a synchronous send) completes with ErrPeerLost without rank 0
// calling gompi.
func TestLostPeerFailsEveryPendingRequest(t *testing.T) {
	for _, transport := range []string{"auto", "tcp"} {
		t.Run(transport, func(t *testing.T) {
			rankprogJob(t, "lost", "all 7 requests failed with ErrPeerLost", 1, []string{"--transport", transport})
		})
	}
}
