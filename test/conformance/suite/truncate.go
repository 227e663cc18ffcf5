package suite

import (
	"errors"
	"fmt"

	"github.com/gompi/gompi/gompi"
)

// Truncation with the Go heap intact: a receive into a slice shorter than
// the message must store what fits and nothing beyond the slice, whatever
// the protocol that carries the message (eager, rendezvous, a library's
// single-copy path), and return ErrTruncate. The slices here are the head
// of a larger allocation whose tail, the guard, holds a known pattern: a
// library that wrote past the slice would change it (where it would
// otherwise corrupt whatever the Go heap holds next).
var truncateCases = []Case{
	{"TruncateKeepsGuardIntact", []int{2, 3}, truncateKeepsGuardIntact},
	{"PostedReceiveMatchesWhileBlockedInSsend", []int{2, 4}, postedReceiveMatchesWhileBlocked},
}

// postedReceiveMatchesWhileBlocked: pairs post a receive, then each Ssends to
// the other. Each Ssend completes only once the other's receive has matched,
// while that rank's only goroutine is blocked in its own Ssend: receives
// must match without anyone waiting on them (under MPI, the backend's
// matching of queued receives must go on by itself).
func postedReceiveMatchesWhileBlocked(c *gompi.Comm) error {
	me := c.Rank()
	peer := me ^ 1
	for _, n := range []int{8, 100000} {
		buf := make([]byte, n)
		r, err := c.Irecv(buf, peer, 3)
		if err != nil {
			return err
		}
		if err := c.Ssend(pattern(n, byte(me)), peer, 3); err != nil {
			return err
		}
		if _, err := r.Wait(); err != nil {
			return err
		}
		if string(buf) != string(pattern(n, byte(peer))) {
			return fmt.Errorf("%d bytes from %d: wrong contents", n, peer)
		}
	}
	return nil
}

// guardSizes are message sizes on both sides of the protocol boundaries of
// the pure-Go runtime and of Open MPI (eager below 4 KiB on shared memory,
// 64 KiB on TCP; single copy and RDMA above).
var guardSizes = []int{16, 4095, 4096, 5000, 65536, 1 << 20}

const (
	guardHead = 8 // the receive slice
	guardByte = 0xA5
)

func truncateKeepsGuardIntact(c *gompi.Comm) error {
	// Ranks other than 0 and the last take no part: odd sizes check that
	// AnySource still finds the one sender.
	last := c.Size() - 1
	kinds := []string{"Recv", "Recv AnySource", "Irecv", "RecvInit", "Sendrecv"}
	switch c.Rank() {
	case 0:
		for _, n := range guardSizes {
			for range kinds {
				if err := c.Send(pattern(n, byte(n)), last, 7); err != nil {
					return err
				}
			}
		}
	case last:
		// Every message is received even after a failure, so that the
		// sender is not left blocked.
		var first error
		mem := make([]byte, guardHead+(1<<20)+4096)
		for _, n := range guardSizes {
			for _, kind := range kinds {
				if err := receiveIntoGuarded(c, kind, n, mem); err != nil && first == nil {
					first = err
				}
			}
		}
		if first != nil {
			return first
		}
	}
	return c.Barrier()
}

// receiveIntoGuarded receives the n-byte message into the head of mem and
// checks the guard behind it.
func receiveIntoGuarded(c *gompi.Comm, kind string, n int, mem []byte) error {
	for i := range mem {
		mem[i] = guardByte
	}
	buf := mem[:guardHead:guardHead]
	st, err := receiveAs(c, kind, buf)
	if !errors.Is(err, gompi.ErrTruncate) {
		return fmt.Errorf("%s of %d bytes into %d: want ErrTruncate, got %v", kind, n, guardHead, err)
	}
	if st.Count != guardHead || st.Source != 0 || st.Tag != 7 {
		return fmt.Errorf("%s of %d bytes into %d: status %+v, want %d bytes from 0 tag 7", kind, n, guardHead, st, guardHead)
	}
	for i, b := range mem[guardHead:] {
		if b != guardByte {
			return fmt.Errorf("%s of %d bytes into %d: byte %d past the slice was written (the Go heap would be corrupted)",
				kind, n, guardHead, i)
		}
	}
	if string(buf) != string(pattern(n, byte(n))[:guardHead]) {
		return fmt.Errorf("%s of %d bytes into %d: stored %x, want the message's first bytes", kind, n, guardHead, buf)
	}
	return nil
}

// receiveAs receives from rank 0, tag 7, by the named call.
func receiveAs(c *gompi.Comm, kind string, buf []byte) (gompi.Status, error) {
	switch kind {
	case "Recv AnySource":
		return c.Recv(buf, gompi.AnySource, gompi.AnyTag)
	case "Irecv":
		r, err := c.Irecv(buf, 0, 7)
		if err != nil {
			return gompi.Status{}, err
		}
		return r.Wait()
	case "RecvInit":
		r, err := c.RecvInit(buf, 0, 7)
		if err != nil {
			return gompi.Status{}, err
		}
		if err := r.Start(); err != nil {
			return gompi.Status{}, err
		}
		return r.Wait()
	case "Sendrecv":
		return c.Sendrecv(nil, gompi.ProcNull, 0, buf, 0, 7)
	}
	return c.Recv(buf, 0, 7)
}
