package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gompi/gompi/gompi"
)

func init() {
	modes["lost"] = lost
}

// lost: rank 0 starts receives from rank 1 (by tag and from AnySource), a
// large send (its rendezvous unanswered) and a synchronous send to it; rank
// 1 says goodbye and exits with status 7 without Finalize. Rank 0 then only
// looks at Done (which makes no progress) until every request has completed,
// and checks that each failed with ErrPeerLost, and that receives posted
// after that fail at once. It ignores SIGTERM so that
// it can report before golaunch stops it.
func lost(c *gompi.Comm, _ int) error {
	switch c.Rank() {
	case 1:
		// Goodbye, and wait for rank 0 to have it: over TCP, a socket closed
		// with unread bytes is reset, and the reset can take unread bytes at
		// the other end with it.
		if err := c.Send(nil, 0, 99); err != nil {
			return err
		}
		if _, err := c.Recv(nil, 0, 98); err != nil {
			return err
		}
		os.Exit(7)
	case 0:
		signal.Ignore(syscall.SIGTERM)
		var reqs []*gompi.Request
		add := func(r *gompi.Request, err error) error {
			reqs = append(reqs, r)
			return err
		}
		for tag := 0; tag < 4; tag++ {
			if err := add(c.Irecv(make([]byte, 64), 1, tag)); err != nil {
				return err
			}
		}
		if err := add(c.Irecv(make([]byte, 64), gompi.AnySource, 5)); err != nil {
			return err
		}
		if err := add(c.Isend(make([]byte, 1<<20), 1, 6)); err != nil {
			return err
		}
		if err := add(c.Issend(make([]byte, 8), 1, 7)); err != nil {
			return err
		}
		if _, err := c.Recv(nil, 1, 99); err != nil {
			return err
		}
		if err := c.Send(nil, 1, 98); err != nil {
			return err
		}
		start := time.Now()
		for {
			left := 0
			for _, r := range reqs {
				if !r.Done() {
					left++
				}
			}
			if left == 0 {
				break
			}
			if time.Since(start) > 10*time.Second {
				return fmt.Errorf("lost: %d of %d requests still pending 10 s after the peer left", left, len(reqs))
			}
			time.Sleep(100 * time.Microsecond)
		}
		took := time.Since(start)
		for i, r := range reqs {
			if _, err := r.Wait(); !errors.Is(err, gompi.ErrPeerLost) {
				return fmt.Errorf("lost: request %d ended with %v, want ErrPeerLost", i, err)
			}
		}
		// Receives posted once the loss is known, by source and from
		// AnySource (rank 1 was the only other member), fail at once.
		for _, src := range []int{1, gompi.AnySource} {
			r, err := c.Irecv(make([]byte, 8), src, 8)
			if err != nil {
				return err
			}
			if !r.Done() {
				return fmt.Errorf("lost: a receive from %d posted after the loss is still pending", src)
			}
			if _, err := r.Wait(); !errors.Is(err, gompi.ErrPeerLost) {
				return fmt.Errorf("lost: a receive from %d posted after the loss ended with %v, want ErrPeerLost", src, err)
			}
		}
		fmt.Printf("lost: all %d requests failed with ErrPeerLost %v after the peer's goodbye\n", len(reqs), took.Round(time.Microsecond))
		gompi.Finalize()
		os.Exit(0)
	}
	return nil
}
