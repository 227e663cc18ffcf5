package suite

import (
	"bytes"
	"fmt"
	"time"

	"github.com/gompi/gompi/gompi"
)

func init() {
	p2pCases = append(p2pCases, Case{"BoxRecordSizes", []int{2}, boxRecordSizes})
}

// boxSizes straddle the pure-Go runtime's bounds for a message in its fast
// box (one cache line: 32 B of payload; always inline: 1 KiB; inline when
// the ring has room: 2 KiB) and in one cell (4032 B).
var boxSizes = []int{0, 1, 31, 32, 33, 64, 1023, 1024, 1025, 2047, 2048, 2049, 4031, 4032, 4033}

// boxMsg is message i of n bytes: a pattern with i in its first bytes.
func boxMsg(i, n int) []byte {
	m := pattern(n, byte(i*7))
	for k := 0; k < 3 && k < n; k++ {
		m[k] = byte(i >> (8 * k))
	}
	return m
}

// boxRecordSizes sends messages of every size around those bounds: echoed
// (blocking Send and Recv, first through the queue, then through the box
// the sender gets after 16 messages), then in bursts that fill the box's
// ring while the receiver sleeps, so that sends fall back from inline
// records to cells and to the send queue. Every message must arrive whole,
// in order per tag, whatever path it took; receives by tag, by AnyTag and
// by AnySource.
func boxRecordSizes(c *gompi.Comm) error {
	peer := 1 - c.Rank()
	// Echo, three rounds.
	for round := 0; round < 3; round++ {
		for i, n := range boxSizes {
			want := boxMsg(round*100+i, n)
			buf := make([]byte, n)
			if c.Rank() == 0 {
				if err := c.Send(want, peer, 5); err != nil {
					return err
				}
				st, err := c.Recv(buf, peer, 6)
				if err != nil {
					return err
				}
				if st.Count != n || st.Source != peer || st.Tag != 6 || !bytes.Equal(buf, want) {
					return fmt.Errorf("echo round %d, %d bytes: differs (status %+v)", round, n, st)
				}
			} else {
				if _, err := c.Recv(buf, peer, 5); err != nil {
					return err
				}
				if err := c.Send(buf, peer, 6); err != nil {
					return err
				}
			}
		}
	}
	// A burst of nonblocking sends, three tags, while the receiver sleeps.
	const burst = 300
	size := func(i int) int { return boxSizes[i%len(boxSizes)] }
	if c.Rank() == 0 {
		reqs := make([]*gompi.Request, 0, burst)
		for i := 0; i < burst; i++ {
			r, err := c.Isend(boxMsg(i, size(i)), peer, i%3)
			if err != nil {
				return err
			}
			reqs = append(reqs, r)
		}
		if err := gompi.Waitall(reqs, nil); err != nil {
			return err
		}
	} else {
		time.Sleep(30 * time.Millisecond)
		buf := make([]byte, 4096)
		// Tag 2 first (the others wait as unexpected messages), then the
		// rest by AnyTag, which must take them in the order they were sent.
		for i := 2; i < burst; i += 3 {
			st, err := c.Recv(buf, peer, 2)
			if err != nil {
				return err
			}
			if st.Count != size(i) || !bytes.Equal(buf[:st.Count], boxMsg(i, size(i))) {
				return fmt.Errorf("burst message %d (tag 2): %d bytes, wrong content or order", i, st.Count)
			}
		}
		for i := 0; i < burst; i++ {
			if i%3 == 2 {
				continue
			}
			st, err := c.Recv(buf, peer, gompi.AnyTag)
			if err != nil {
				return err
			}
			if st.Tag != i%3 || st.Count != size(i) || !bytes.Equal(buf[:st.Count], boxMsg(i, size(i))) {
				return fmt.Errorf("burst message %d: tag %d, %d bytes, wrong content or order", i, st.Tag, st.Count)
			}
		}
	}
	// A burst of blocking sends between 1 and 2 KiB, received by AnySource
	// after a sleep: the ring fills and the sends take cells.
	const blocking = 100
	bsize := func(i int) int { return 1025 + (i*97)%1024 }
	if c.Rank() == 0 {
		for i := 0; i < blocking; i++ {
			if err := c.Send(boxMsg(i, bsize(i)), peer, 9); err != nil {
				return err
			}
		}
	} else {
		time.Sleep(30 * time.Millisecond)
		buf := make([]byte, 2048)
		for i := 0; i < blocking; i++ {
			st, err := c.Recv(buf, gompi.AnySource, 9)
			if err != nil {
				return err
			}
			if st.Source != peer || st.Count != bsize(i) || !bytes.Equal(buf[:st.Count], boxMsg(i, bsize(i))) {
				return fmt.Errorf("blocking burst message %d: %d bytes, wrong content or order", i, st.Count)
			}
		}
	}
	return c.Barrier()
}
