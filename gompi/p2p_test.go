//go:build !mpi && !mpich

package gompi_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gompi/gompi/gompi"
)

// The cases every backend must pass are in test/conformance/suite, and
// conformance_test.go runs them here under gompi.Run. This file keeps what
// only the in-process mode can show (a rank leaving the job, Abort, the run's
// context) and the pure-Go runtime's own protocol variants.

// run runs fn on n in-process ranks and fails the test on error; a hang turns
// into a failure after a minute instead of stalling the suite.
func run(t *testing.T, n int, fn func(c *gompi.Comm) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := gompi.RunContext(ctx, n, fn); err != nil {
		t.Fatal(err)
	}
}

// TestPingPongWithoutCMA runs the ping-pong case with cross-memory attach
// off: large messages then take the pipelined copy through the segment.
func TestPingPongWithoutCMA(t *testing.T) {
	t.Setenv("GOMPI_SHM_CMA", "0")
	run(t, 2, caseNamed(t, "PingPongSizes").Run)
}

// TestPersistentWithoutCMA: persistent requests whose messages take the
// pipelined path run many times (each run starts its fragments afresh).
func TestPersistentWithoutCMA(t *testing.T) {
	t.Setenv("GOMPI_SHM_CMA", "0")
	run(t, 2, caseNamed(t, "PersistentRequests").Run)
}

// TestProgressWithoutCMA: with cross-memory attach off, a large receive
// that matches a message already there is fed by fragments, which must
// progress while the rank computes.
func TestProgressWithoutCMA(t *testing.T) {
	t.Setenv("GOMPI_SHM_CMA", "0")
	run(t, 2, caseNamed(t, "ProgressWhileComputing").Run)
}

func TestPeerLost(t *testing.T) {
	run(t, 2, func(c *gompi.Comm) error {
		if c.Rank() == 1 {
			return nil // leaves without sending
		}
		_, err := c.Recv(make([]byte, 8), 1, 0)
		if !errors.Is(err, gompi.ErrPeerLost) {
			return fmt.Errorf("want ErrPeerLost, got %v", err)
		}
		if _, err := c.Recv(make([]byte, 8), gompi.AnySource, 0); !errors.Is(err, gompi.ErrPeerLost) {
			return fmt.Errorf("AnySource with every peer gone: want ErrPeerLost, got %v", err)
		}
		if err := c.Send(make([]byte, 1<<20), 1, 0); !errors.Is(err, gompi.ErrPeerLost) {
			return fmt.Errorf("send to a gone peer: want ErrPeerLost, got %v", err)
		}
		return nil
	})
}

func TestMessagesSentBeforeLeavingArrive(t *testing.T) {
	run(t, 2, func(c *gompi.Comm) error {
		if c.Rank() == 1 {
			return c.Send([]byte("bye"), 0, 3)
		}
		time.Sleep(20 * time.Millisecond) // let rank 1 finish first
		b := make([]byte, 3)
		if _, err := c.Recv(b, 1, 3); err != nil || string(b) != "bye" {
			return fmt.Errorf("message from a finished rank: %q, %v", b, err)
		}
		return nil
	})
}

func TestAbortInRun(t *testing.T) {
	err := gompi.Run(3, func(c *gompi.Comm) error {
		if c.Rank() == 2 {
			c.Abort(7)
		}
		_, err := c.Recv(nil, 2, 0)
		return err
	})
	if !errors.Is(err, gompi.ErrAborted) {
		t.Fatalf("want ErrAborted, got %v", err)
	}
}

func TestRunContextDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := gompi.RunContext(ctx, 2, func(c *gompi.Comm) error {
		_, err := c.Recv(nil, 1-c.Rank(), 0) // both receive: a deadlock
		return err
	})
	if !errors.Is(err, gompi.ErrTimeout) {
		t.Fatalf("want ErrTimeout, got %v", err)
	}
}
