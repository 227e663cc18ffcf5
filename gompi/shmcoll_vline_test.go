//go:build !mpi && !mpich

package gompi_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// The two-rank per-count forms on the arrival words' lines
// (shmcoll_vline.go, and Allgatherv and ReduceScatter through
// shmcoll_line.go): counts on both sides of the line's bound (116 bytes
// with the count), zeros, roots 0 and 1, in place, through the default
// selection, "shm" and "cma", back to back so that both parities of the
// lines serve; and counts that disagree within the bound and across it.

// vlCount is the bytes rank src sends rank dst in a call of about m bytes.
func vlCount(src, dst, m int) int {
	if m == 0 {
		return 0
	}
	return max(m+(src*5+dst*3)%7-3, 0)
}

func vlBlock(it, src, dst, m int) []byte {
	b := make([]byte, vlCount(src, dst, m))
	for i := range b {
		b[i] = byte(it*13) + vByte(src, dst, i)
	}
	return b
}

func vlCalls(c *gompi.Comm, it, m int, inPlace bool, opt gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	for root := range n {
		// Gatherv
		send := vlBlock(it, me, root, m)
		var recv []byte
		var counts, displs []int
		if me == root {
			var size int
			counts, displs, size = rootLayout(n, func(r int) int { return vlCount(r, root, m) })
			recv = make([]byte, size)
			if inPlace {
				copy(recv[displs[me]:], send)
				send = gompi.InPlace[byte]()
			}
		}
		if err := c.Gatherv(send, recv, counts, displs, root, opt); err != nil {
			return fmt.Errorf("gatherv m=%d root %d: %w", m, root, err)
		}
		if me == root {
			for r := range n {
				if !bytes.Equal(recv[displs[r]:][:counts[r]], vlBlock(it, r, root, m)) {
					return fmt.Errorf("gatherv m=%d root %d: the block of rank %d is wrong", m, root, r)
				}
			}
		}
		// Scatterv
		recv = make([]byte, vlCount(root, me, m))
		send = nil
		if me == root {
			var size int
			counts, displs, size = rootLayout(n, func(r int) int { return vlCount(root, r, m) })
			send = make([]byte, size)
			for r := range n {
				copy(send[displs[r]:], vlBlock(it, root, r, m))
			}
			if inPlace {
				recv = gompi.InPlace[byte]()
			}
		}
		if err := c.Scatterv(send, counts, displs, recv, root, opt); err != nil {
			return fmt.Errorf("scatterv m=%d root %d: %w", m, root, err)
		}
		if !(me == root && inPlace) && !bytes.Equal(recv, vlBlock(it, root, me, m)) {
			return fmt.Errorf("scatterv m=%d root %d: rank %d's block is wrong", m, root, me)
		}
	}
	// Alltoallv and Alltoallw; in place the counts are symmetric.
	count := func(src, dst int) int {
		if inPlace {
			return vlCount(min(src, dst), max(src, dst), m)
		}
		return vlCount(src, dst, m)
	}
	block := func(src, dst int) []byte {
		b := make([]byte, count(src, dst))
		for i := range b {
			b[i] = byte(it*13) + vByte(src, dst, i)
		}
		return b
	}
	if err := alltoallvBoth(c, count, block, inPlace, opt, fmt.Sprintf(" m=%d", m)); err != nil {
		return err
	}
	// Allgatherv
	counts := make([]int, n)
	for r := range counts {
		counts[r] = vlCount(r, 0, m)
	}
	displs, size := layoutOf(counts)
	send, recv := vlBlock(it, me, 0, m), make([]byte, size)
	if inPlace {
		copy(recv[displs[me]:], send)
		send = gompi.InPlace[byte]()
	}
	if err := c.Allgatherv(send, recv, counts, displs, opt); err != nil {
		return fmt.Errorf("allgatherv m=%d: %w", m, err)
	}
	for r := range n {
		if !bytes.Equal(recv[displs[r]:][:counts[r]], vlBlock(it, r, 0, m)) {
			return fmt.Errorf("allgatherv m=%d: rank %d's copy of rank %d's block is wrong", m, me, r)
		}
	}
	return nil
}

func TestShmVLineTwoRanks(t *testing.T) {
	sizes := []int{0, 1, 8, 64, 112, 116, 117, 119, 120, 121, 128, 300, 5000}
	for _, tc := range []struct {
		name string
		opt  gompi.CollOption
	}{{"default", gompi.CollOption{}}, {"shm", gompi.WithAlgorithm("shm")}, {"cma", gompi.WithAlgorithm("cma")}} {
		for _, inPlace := range []bool{false, true} {
			if inPlace && tc.name == "cma" {
				continue // cma's Alltoallv takes no in place call
			}
			t.Run(fmt.Sprintf("%s/inplace=%v", tc.name, inPlace), func(t *testing.T) {
				run(t, 2, func(c *gompi.Comm) error {
					for it := range 12 {
						for _, m := range sizes {
							if err := vlCalls(c, it, m, inPlace, tc.opt); err != nil {
								return fmt.Errorf("round %d: %w", it, err)
							}
							if tc.name == "shm" { // ReduceScatter has no cma form
								if err := checkReduceScatter(c, 0, it%2 == 1, inPlace, tc.opt); err != nil {
									return fmt.Errorf("round %d: %w", it, err)
								}
							}
						}
						if it%4 == 0 {
							if err := c.Barrier(); err != nil {
								return err
							}
						}
					}
					return nil
				})
			})
		}
	}
}

// TestShmVLineMismatch: counts that disagree within the line's bound and
// across it give ErrMismatch where the slotted forms give it (or on both
// sides, where the ranks took different forms), nobody hangs, and the calls
// after it still work.
func TestShmVLineMismatch(t *testing.T) {
	for _, tc := range []struct{ want, sent int }{{8, 16}, {16, 8}, {116, 117}, {117, 116}, {8, 5000}, {5000, 8}} {
		t.Run(fmt.Sprintf("%d-%d", tc.want, tc.sent), func(t *testing.T) {
			run(t, 2, func(c *gompi.Comm) error {
				me := c.Rank()
				ok := func(err error) error {
					if err != nil && !errors.Is(err, gompi.ErrMismatch) {
						return err
					}
					return nil
				}
				// Gatherv rooted at 0: rank 1 sends tc.sent, the root expects tc.want.
				send := make([]byte, tc.want)
				if me == 1 {
					send = make([]byte, tc.sent)
				}
				err := c.Gatherv(send, make([]byte, 2*tc.want), []int{tc.want, tc.want}, []int{0, tc.want}, 0)
				if me == 0 && !errors.Is(err, gompi.ErrMismatch) {
					return fmt.Errorf("gatherv: the root should see the mismatch, got %v", err)
				}
				if err := ok(err); err != nil {
					return err
				}
				// Scatterv rooted at 0: it sends rank 1 tc.sent, rank 1 expects tc.want.
				err = c.Scatterv(make([]byte, tc.want+tc.sent), []int{tc.want, tc.sent}, []int{0, tc.want}, make([]byte, tc.want), 0)
				if me == 1 && !errors.Is(err, gompi.ErrMismatch) {
					return fmt.Errorf("scatterv: rank 1 should see the mismatch, got %v", err)
				}
				if err := ok(err); err != nil {
					return err
				}
				// Alltoallv: rank 1 sends rank 0 tc.sent, rank 0 expects tc.want.
				sc := []int{tc.want, tc.want}
				if me == 1 {
					sc[0] = tc.sent
				}
				err = c.Alltoallv(make([]byte, sc[0]+sc[1]), sc, []int{0, sc[0]}, make([]byte, 2*tc.want), []int{tc.want, tc.want}, []int{0, tc.want})
				if me == 0 && !errors.Is(err, gompi.ErrMismatch) {
					return fmt.Errorf("alltoallv: rank 0 should see the mismatch, got %v", err)
				}
				if err := ok(err); err != nil {
					return err
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				return vlCalls(c, 1, 8, false, gompi.CollOption{})
			})
		})
	}
}
