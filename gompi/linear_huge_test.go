//go:build !mpi && !mpich

package gompi

import (
	"fmt"
	"testing"
)

// TestLinearHugeRoot: Bcast of 256-512 KiB and Scatter of 128-512 KiB
// blocks on 4 to 8 ranks (linear, whose root collapses its buffer's pages
// at the buffer's second call: noteLinearRoot), at every root, several
// calls on the same buffers with new contents, on a Dup of the
// communicator too, against the expected bytes; 9 ranks beside them.
func TestLinearHugeRoot(t *testing.T) {
	ranks := []int{4, 5, 8, 9}
	if testing.Short() {
		ranks = []int{4}
	}
	for _, n := range ranks {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			err := Run(n, func(c *Comm) error {
				me := c.Rank()
				for _, size := range []int{256 << 10, 300<<10 + 12, 512 << 10} {
					bbuf := make([]byte, size)
					send := make([]byte, n*(size/2))
					recv := make([]byte, size/2)
					for k := range 2 * n {
						cc := c
						if k%4 == 3 {
							d, err := c.Dup()
							if err != nil {
								return err
							}
							cc = d
						}
						root := k % n
						val := func(i int) byte { return byte(i*7 + k*13 + size) }
						if me == root {
							for i := range bbuf {
								bbuf[i] = val(i)
							}
							for i := range send {
								send[i] = val(i + 1)
							}
						}
						if err := cc.Bcast(bbuf, root); err != nil {
							return err
						}
						for i := range bbuf {
							if bbuf[i] != val(i) {
								return fmt.Errorf("Bcast %d bytes from %d, call %d, rank %d: byte %d is %d, want %d", size, root, k, me, i, bbuf[i], val(i))
							}
						}
						if err := cc.Scatter(send, recv, root); err != nil {
							return err
						}
						for i := range recv {
							if want := val(me*len(recv) + i + 1); recv[i] != want {
								return fmt.Errorf("Scatter %d-byte blocks from %d, call %d, rank %d: byte %d is %d, want %d", len(recv), root, k, me, i, recv[i], want)
							}
						}
						if cc != c {
							if err := cc.Free(); err != nil {
								return err
							}
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
