package suite

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gompi/gompi/gompi"
)

func init() {
	p2pCases = append(p2pCases, Case{"BlockingRecvKeepsMatchingOrder", []int{2}, blockingRecvKeepsMatchingOrder})
}

// blockingRecvKeepsMatchingOrder checks MPI's matching rules around a
// blocking receive from a named source once the pair talks often (over the
// pure-Go runtime, when the source writes to the receiver's fast box and
// the receive may take the box's next record without posting): receives
// posted earlier take the first matching messages, unexpected messages are
// taken first, records of another tag or communicator, synchronous sends
// and messages longer than the buffer are handled as always, probes and
// AnyTag see the same order, nonblocking receives posted earlier complete
// while the thread blocks in a later one, and two threads receiving on
// different tags at once each get their tag's messages in order.
func blockingRecvKeepsMatchingOrder(c *gompi.Comm) error {
	me, peer := c.Rank(), 1-c.Rank()
	dup, err := c.Dup()
	if err != nil {
		return err
	}
	defer dup.Free()
	msg := func(i int) []byte { return boxMsg(i, 8+i%40) }
	send := func(cm *gompi.Comm, i, tag int) error { return cm.Send(msg(i), peer, tag) }
	recv := func(cm *gompi.Comm, i, src, tag int) error {
		buf := make([]byte, 64)
		st, err := cm.Recv(buf, src, tag)
		if err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		if st.Count != len(msg(i)) || !bytes.Equal(buf[:st.Count], msg(i)) || (tag >= 0 && st.Tag != tag) || st.Source != peer {
			return fmt.Errorf("message %d (tag %d): got %d bytes, status %+v", i, tag, st.Count, st)
		}
		return nil
	}
	check := func(r *gompi.Request, buf []byte, i int) error {
		st, err := r.Wait()
		if err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
		if st.Count != len(msg(i)) || !bytes.Equal(buf[:st.Count], msg(i)) {
			return fmt.Errorf("nonblocking receive of message %d: %d bytes, wrong content", i, st.Count)
		}
		return nil
	}
	// Warm up both directions past the fast box's threshold.
	for i := 0; i < 40; i++ {
		if me == 0 {
			if err := send(c, i, 1); err != nil {
				return err
			}
			if err := recv(c, i, peer, 1); err != nil {
				return err
			}
		} else {
			if err := recv(c, i, peer, 1); err != nil {
				return err
			}
			if err := send(c, i, 1); err != nil {
				return err
			}
		}
	}
	sleep := func() { time.Sleep(5 * time.Millisecond) }
	if me == 0 {
		// 1: two messages on tag 7; 2: tag 8 then any; 3: tags 3, 4, 3.
		for i := 100; i < 104; i++ {
			if err := send(c, i, 7+(i-100)/2); err != nil {
				return err
			}
		}
		if err := send(c, 104, 3); err != nil {
			return err
		}
		if err := send(c, 105, 4); err != nil {
			return err
		}
		if _, err := c.Recv(make([]byte, 1), peer, 40); err != nil {
			return err
		}
		if err := send(c, 115, 3); err != nil {
			return err
		}
		// 4: world tag 5, then the duplicate's tag 5.
		if err := send(c, 106, 5); err != nil {
			return err
		}
		if err := send(dup, 107, 5); err != nil {
			return err
		}
		// 5: a synchronous send between two standard ones, same tag.
		if err := send(c, 108, 6); err != nil {
			return err
		}
		if err := c.Ssend(msg(109), peer, 6); err != nil {
			return err
		}
		if err := send(c, 110, 6); err != nil {
			return err
		}
		// 6: a message longer than the buffer, then one that fits.
		if err := c.Send(make([]byte, 48), peer, 11); err != nil {
			return err
		}
		if err := send(c, 111, 11); err != nil {
			return err
		}
		// 7: probed, then received.
		if err := send(c, 112, 12); err != nil {
			return err
		}
		// 8: tag 31 answers the blocking receive; tag 30 then fills the
		// nonblocking receive posted before it.
		if err := send(c, 113, 31); err != nil {
			return err
		}
		sleep()
		if err := send(c, 114, 30); err != nil {
			return err
		}
		// 9: two threads on tags 20 and 21, interleaved sends.
		for i := 0; i < 200; i++ {
			if err := send(c, 200+i, 20+i%2); err != nil {
				return err
			}
		}
		return c.Barrier()
	}
	// 1: a nonblocking receive posted first takes the first message.
	b1 := make([]byte, 64)
	r1, err := c.Irecv(b1, peer, 7)
	if err != nil {
		return err
	}
	sleep()
	if err := recv(c, 101, peer, 7); err != nil {
		return err
	}
	if err := check(r1, b1, 100); err != nil {
		return err
	}
	// 2: an AnySource, AnyTag receive posted first takes the first
	// message even though a blocking receive names its tag.
	b2 := make([]byte, 64)
	r2, err := c.Irecv(b2, gompi.AnySource, gompi.AnyTag)
	if err != nil {
		return err
	}
	if err := recv(c, 103, peer, 8); err != nil {
		return err
	}
	if err := check(r2, b2, 102); err != nil {
		return err
	}
	// 3: tag 4 first: the first tag 3 record comes before it in the box,
	// is kept as unexpected, and the next receive of tag 3 takes it, not
	// the second tag 3 record, sent once the first receive is done and
	// next in the box.
	sleep()
	if err := recv(c, 105, peer, 4); err != nil {
		return err
	}
	if err := c.Send([]byte{1}, peer, 40); err != nil {
		return err
	}
	sleep()
	if err := recv(c, 104, peer, 3); err != nil {
		return err
	}
	if err := recv(c, 115, peer, 3); err != nil {
		return err
	}
	// 4: the duplicate's message first: the world's record comes first.
	if err := recv(dup, 107, peer, 5); err != nil {
		return err
	}
	if err := recv(c, 106, peer, 5); err != nil {
		return err
	}
	// 5: by AnyTag, in order across the synchronous send.
	for i := 108; i <= 110; i++ {
		if err := recv(c, i, peer, gompi.AnyTag); err != nil {
			return err
		}
	}
	// 6: truncation, then the next message whole.
	small := make([]byte, 16)
	if _, err := c.Recv(small, peer, 11); !errors.Is(err, gompi.ErrTruncate) {
		return fmt.Errorf("48 bytes into 16: got %v, want ErrTruncate", err)
	}
	if err := recv(c, 111, peer, 11); err != nil {
		return err
	}
	// 7: a probe sees the message a receive then takes.
	st, err := c.Probe(peer, gompi.AnyTag)
	if err != nil {
		return err
	}
	if st.Tag != 12 || st.Count != len(msg(112)) {
		return fmt.Errorf("probe: status %+v", st)
	}
	if err := recv(c, 112, peer, 12); err != nil {
		return err
	}
	// 8: a nonblocking receive pending while the thread blocks in another.
	b8 := make([]byte, 64)
	r8, err := c.Irecv(b8, peer, 30)
	if err != nil {
		return err
	}
	if err := recv(c, 113, peer, 31); err != nil {
		return err
	}
	if err := check(r8, b8, 114); err != nil {
		return err
	}
	// 9: two threads.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for t := 0; t < 2; t++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := t; i < 200; i += 2 {
				if err := recv(c, 200+i, peer, 20+t); err != nil {
					errs[t] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return c.Barrier()
}
