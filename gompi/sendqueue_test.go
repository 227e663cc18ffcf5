//go:build !mpi && !mpich

package gompi_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gompi/gompi/gompi"
)

// floodCase: rank 0 posts many nonblocking sends and a buffered one to rank
// 1, which does not call gompi until rank 0 says it has posted them all.
// Were any call to wait for the receiver, rank 1 would never hear it and the
// run would hang (and fail at run's deadline). Then everything must arrive,
// in order, intact.
func floodCase(t *testing.T, count int, sizes []int) func(c *gompi.Comm) error {
	posted := make(chan struct{})
	return func(c *gompi.Comm) error {
		switch c.Rank() {
		case 0:
			reqs := make([]*gompi.Request, 0, count+2)
			for i := 0; i < count; i++ {
				buf := make([]byte, sizes[i%len(sizes)])
				binary.LittleEndian.PutUint32(buf, uint32(i))
				var r *gompi.Request
				var err error
				switch i % 7 {
				case 3:
					r, err = c.Issend(buf, 1, 0)
				case 5:
					r, err = c.SendInit(buf, 1, 0)
					if err == nil {
						err = r.Start()
					}
				default:
					r, err = c.Isend(buf, 1, 0)
				}
				if err != nil {
					return fmt.Errorf("send %d: %w", i, err)
				}
				reqs = append(reqs, r)
			}
			if err := c.BufferAttach(make([]byte, 64<<10)); err != nil {
				return err
			}
			last := make([]byte, 1000)
			binary.LittleEndian.PutUint32(last, uint32(count))
			if err := c.Bsend(last, 1, 0); err != nil {
				return err
			}
			close(posted)
			if err := gompi.Waitall(reqs, nil); err != nil {
				return err
			}
			_, err := c.BufferDetach()
			return err
		case 1:
			// Computing, as far as gompi can tell. (The guard only turns a
			// hang into a failure: the sender is blocked if it never posts.)
			select {
			case <-posted:
			case <-time.After(30 * time.Second):
				return errors.New("rank 0 never finished posting: a send waited for the receiver")
			}
			for i := 0; i <= count; i++ {
				buf := make([]byte, 128<<10)
				st, err := c.Recv(buf, 0, 0)
				if err != nil {
					return fmt.Errorf("receive %d: %w", i, err)
				}
				want := 1000
				if i < count {
					want = sizes[i%len(sizes)]
				}
				if got := binary.LittleEndian.Uint32(buf); got != uint32(i) || st.Count != want {
					return fmt.Errorf("receive %d: message %d of %d bytes, want %d bytes", i, got, st.Count, want)
				}
			}
		}
		return nil
	}
}

func TestSendsNeverWaitForTheReceiver(t *testing.T) {
	for _, tc := range []struct {
		name  string
		count int
		sizes []int
	}{
		{"10000x1KiB", 10000, []int{1024}},
		// inline box records, cells, rendezvous and empty messages mixed
		{"mixed", 2000, []int{4, 1024, 2000, 5000, 70000, 8}},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, 2, floodCase(t, tc.count, tc.sizes)) })
	}
}
