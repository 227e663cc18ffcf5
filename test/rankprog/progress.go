package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/gompi/gompi/gompi"
)

func init() {
	modes["progress"] = progress
}

// progress: rank 1 posts a receive of arg bytes (1 MiB if 0), rank 0 sends
// them; then both compute without calling gompi and look only at their
// request's Done, which makes no progress itself, until it says complete.
// Only the engine's own progress can get them there.
func progress(c *gompi.Comm, arg int) error {
	size := arg
	if size == 0 {
		size = 1 << 20
	}
	buf := make([]byte, size)
	var r *gompi.Request
	var err error
	switch c.Rank() {
	case 0:
		for i := range buf {
			buf[i] = byte(i * 7)
		}
		if _, err := c.Recv(nil, 1, 1); err != nil { // rank 1 has posted
			return err
		}
		r, err = c.Isend(buf, 1, 2)
	case 1:
		r, err = c.Irecv(buf, 0, 2)
		if err == nil {
			err = c.Send(nil, 0, 1)
		}
	default:
		return nil
	}
	if err != nil {
		return err
	}
	start := time.Now()
	x := 1.0
	for !r.Done() {
		for k := 0; k < 10000; k++ { // compute
			x = x*1.0000001 + 1e-9
		}
		if time.Since(start) > 30*time.Second {
			return errors.New("progress: the transfer did not advance while this rank computed")
		}
	}
	took := time.Since(start)
	if _, err := r.Wait(); err != nil {
		return err
	}
	if c.Rank() == 1 {
		for i := range buf {
			if buf[i] != byte(i*7) {
				return fmt.Errorf("progress: byte %d is %d, want %d", i, buf[i], byte(i*7))
			}
		}
	}
	fmt.Printf("progress: rank %d: the %d-byte transfer completed during the computation, after %v (x=%.3g)\n",
		c.Rank(), size, took.Round(time.Microsecond), x)
	return nil
}
