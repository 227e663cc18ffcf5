package sim_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/coll/sim"
)

func run(t *testing.T, n int, opt sim.Options, f func(c coll.Comm) error) []error {
	t.Helper()
	if opt.Timeout == 0 {
		opt.Timeout = time.Minute
	}
	return sim.New(n, opt).Run(f)
}

func noErrors(t *testing.T, errs []error) {
	t.Helper()
	for r, err := range errs {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// TestMatching: messages of one pair and tag arrive in order; tags keep
// streams apart, so a receive may name a later tag first.
func TestMatching(t *testing.T) {
	for _, eager := range []bool{false, true} {
		noErrors(t, run(t, 2, sim.Options{Eager: eager}, func(c coll.Comm) error {
			if c.Rank() == 0 {
				var reqs []coll.Request
				for i, tag := range []int{1, 1, 2} {
					req, err := c.Isend([]byte{byte(i)}, 1, tag)
					if err != nil {
						return err
					}
					reqs = append(reqs, req)
				}
				for _, r := range reqs {
					if _, err := r.Wait(); err != nil {
						return err
					}
				}
				return nil
			}
			got := make([]byte, 3)
			for i, tag := range []int{2, 1, 1} {
				if _, err := c.Recv(got[i:i+1], 0, tag); err != nil {
					return err
				}
			}
			if !bytes.Equal(got, []byte{2, 0, 1}) {
				t.Errorf("eager=%v: received %v, want [2 0 1]", eager, got)
			}
			return nil
		}))
	}
}

func TestTruncationAndShortMessages(t *testing.T) {
	errs := run(t, 2, sim.Options{}, func(c coll.Comm) error {
		if c.Rank() == 0 {
			if err := c.Send(make([]byte, 8), 1, 0); err != nil {
				return err
			}
			return c.Send(make([]byte, 2), 1, 0)
		}
		n, err := c.Recv(make([]byte, 4), 0, 0)
		if !errors.Is(err, sim.ErrTruncate) || n != 4 {
			t.Errorf("8 bytes into 4: n=%d, err %v", n, err)
		}
		n, err = c.Recv(make([]byte, 4), 0, 0)
		if err != nil || n != 2 {
			t.Errorf("2 bytes into 4: n=%d, err %v", n, err)
		}
		return nil
	})
	noErrors(t, errs)
}

// TestDeadlock: two ranks both receiving first, or both sending first with
// synchronous sends, are stuck; the simulator fails their waits.
func TestDeadlock(t *testing.T) {
	for _, sendFirst := range []bool{false, true} {
		errs := run(t, 2, sim.Options{}, func(c coll.Comm) error {
			peer := 1 - c.Rank()
			if sendFirst {
				if err := c.Send(nil, peer, 0); err != nil {
					return err
				}
			}
			_, err := c.Recv(nil, peer, 0)
			return err
		})
		for r, err := range errs {
			if !errors.Is(err, sim.ErrDeadlock) || !strings.Contains(err.Error(), "rank 0 waits to") {
				t.Errorf("sendFirst=%v rank %d: %v", sendFirst, r, err)
			}
		}
	}
	// With eager sends the send-first exchange completes.
	noErrors(t, run(t, 2, sim.Options{Eager: true}, func(c coll.Comm) error {
		peer := 1 - c.Rank()
		if err := c.Send(nil, peer, 0); err != nil {
			return err
		}
		_, err := c.Recv(nil, peer, 0)
		return err
	}))
	// A rank that returns while another waits for it.
	errs := run(t, 2, sim.Options{}, func(c coll.Comm) error {
		if c.Rank() == 1 {
			_, err := c.Recv(nil, 0, 0)
			return err
		}
		return nil
	})
	if errs[0] != nil || !errors.Is(errs[1], sim.ErrDeadlock) {
		t.Errorf("receive from a rank that returned: %v", errs)
	}
}

func TestBadPeersAndTags(t *testing.T) {
	noErrors(t, run(t, 2, sim.Options{}, func(c coll.Comm) error {
		if err := c.Send(nil, 2, 0); !errors.Is(err, sim.ErrRank) {
			t.Errorf("send to rank 2 of 2: %v", err)
		}
		if _, err := c.Recv(nil, -1, 0); !errors.Is(err, sim.ErrRank) {
			t.Errorf("receive from rank -1: %v", err)
		}
		if _, err := c.Isend(nil, 0, coll.MaxTag+1); !errors.Is(err, sim.ErrTag) {
			t.Errorf("tag MaxTag+1: %v", err)
		}
		return nil
	}))
}

func TestTimeoutAndPanic(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	errs := sim.New(2, sim.Options{Timeout: 50 * time.Millisecond}).Run(func(c coll.Comm) error {
		if c.Rank() == 0 {
			panic("boom")
		}
		<-block // stuck outside the simulator, where it cannot see it
		return nil
	})
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "panicked: boom") {
		t.Errorf("rank 0: %v", errs[0])
	}
	if !errors.Is(errs[1], sim.ErrTimeout) {
		t.Errorf("rank 1: %v", errs[1])
	}
}

// TestRounds: a chain 0 → 1 → 2 takes rounds 1 and 2; a rank's sends take
// successive rounds.
func TestRounds(t *testing.T) {
	w := sim.New(3, sim.Options{Record: true})
	noErrors(t, w.Run(func(c coll.Comm) error {
		switch c.Rank() {
		case 0:
			if err := c.Send(make([]byte, 5), 1, 0); err != nil {
				return err
			}
			return c.Send(nil, 2, 3)
		case 1:
			if _, err := c.Recv(make([]byte, 5), 0, 0); err != nil {
				return err
			}
			return c.Send(make([]byte, 5), 2, 0)
		}
		if _, err := c.Recv(nil, 0, 3); err != nil {
			return err
		}
		_, err := c.Recv(make([]byte, 5), 1, 0)
		return err
	}))
	var b strings.Builder
	w.Schedule().WriteText(&b)
	want := "round 1: 0 → 1 (5 B)\nround 2: 0 → 2 (0 B, tag 3)\nround 2: 1 → 2 (5 B)\n2 rounds, 3 messages, 10 bytes\n"
	if b.String() != want {
		t.Errorf("schedule:\n%s\nwant:\n%s", b.String(), want)
	}
}
