package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/gompi/gompi/gompi"
)

func init() {
	modes["flood"] = flood
}

// flood: rank 0 posts 10,000 Isends of 1 KiB and a Bsend to rank 1, which
// computes (without calling gompi) for at least arg milliseconds and until
// rank 0 has created the file --path, that is, until every call has
// returned. Were a call to wait for the receiver, rank 0 would never create
// the file and rank 1 would give up. Then rank 1 checks that every message
// arrived in order. Rank 0 reports how long the posting took and what it
// cost in resident memory beyond the send buffers, which are allocated and
// touched first (the buffers are the program's; the rest is the engine's).
func flood(c *gompi.Comm, arg int) error {
	const count, size = 10000, 1024
	switch c.Rank() {
	case 0:
		bufs := make([]byte, count*size)
		for i := 0; i < count; i++ {
			binary.LittleEndian.PutUint32(bufs[i*size:], uint32(i))
		}
		if err := c.BufferAttach(make([]byte, 2*size+gompi.BsendOverhead)); err != nil {
			return err
		}
		last := make([]byte, size)
		binary.LittleEndian.PutUint32(last, count)
		reqs := make([]*gompi.Request, 0, count)
		rss0 := statusKB("VmRSS")
		start := time.Now()
		var slowest time.Duration
		for i := 0; i < count; i++ {
			t0 := time.Now()
			r, err := c.Isend(bufs[i*size:(i+1)*size], 1, 0)
			if err != nil {
				return err
			}
			slowest = max(slowest, time.Since(t0))
			reqs = append(reqs, r)
		}
		t0 := time.Now()
		if err := c.Bsend(last, 1, 0); err != nil {
			return err
		}
		bsend := time.Since(t0)
		took := time.Since(start)
		rss1 := statusKB("VmRSS")
		if err := os.WriteFile(path, nil, 0o600); err != nil {
			return err
		}
		fmt.Printf("flood: posted %d Isends of %d B and a Bsend in %v (slowest Isend %v, Bsend %v); RSS +%d KiB\n",
			count, size, took.Round(time.Microsecond), slowest.Round(time.Microsecond), bsend.Round(time.Microsecond), rss1-rss0)
		if err := gompi.Waitall(reqs, nil); err != nil {
			return err
		}
		_, err := c.BufferDetach()
		return err
	case 1:
		start := time.Now()
		x := 1.0
		for time.Since(start) < time.Duration(arg)*time.Millisecond || !exists(path) {
			for k := 0; k < 100000; k++ { // compute
				x = x*1.0000001 + 1e-9
			}
			if time.Since(start) > time.Minute {
				return errors.New("flood: rank 0 never finished posting: a send waited for the receiver")
			}
		}
		buf := make([]byte, size)
		for i := 0; i <= count; i++ {
			st, err := c.Recv(buf, 0, 0)
			if err != nil {
				return fmt.Errorf("receive %d: %w", i, err)
			}
			if got := binary.LittleEndian.Uint32(buf); got != uint32(i) || st.Count != size {
				return fmt.Errorf("receive %d: got message %d of %d bytes (x=%g)", i, got, st.Count, x)
			}
		}
		fmt.Printf("flood: all %d messages arrived in order\n", count+1)
	}
	return nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
