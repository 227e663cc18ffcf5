//go:build !mpi && !mpich

package gompi_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// Two-rank Scatter with the peer's block beside the arrival word up to
// shm.PairBlockData (632) bytes (issue 18, branch two9): every operation of
// lineCalls at block sizes around that bound (so that the halves, the
// lines' parities and the staging buffer all serve calls on and off the
// lines back to back), roots 0 and 1, in place; then Scatter with the
// default selection against the reference on 1..17 ranks, on the world and
// on duplicates that reuse a freed slot.

// scatterBlockSizes are blocks in bytes around the bounds: the word's pair
// of lines (120), the reduce-scatters' part (376), the whole block (632),
// and the staging buffer (2*632 of 1504).
var scatterBlockSizes = []int{8, 120, 121, 376, 377, 504, 512, 631, 632, 633, 752, 1024}

func TestShmScatterBlockTwoRanks(t *testing.T) {
	run(t, 2, func(c *gompi.Comm) error {
		for it := range 24 {
			for _, m := range scatterBlockSizes {
				if err := lineCalls(c, it, m); err != nil {
					return err
				}
			}
			if it%5 == 0 {
				if err := c.Barrier(); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// scatterCheck runs one Scatter of m-byte blocks from root (in place at the
// root where inPlace) with opts and checks this rank's block.
func scatterCheck(c *gompi.Comm, it, m, root int, inPlace bool, opts ...gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	var send []byte
	recv := make([]byte, m)
	if me == root {
		for r := range n {
			send = append(send, lineBlock(it, r, m)...)
		}
		if inPlace {
			recv = gompi.InPlace[byte]()
		}
	}
	if err := c.Scatter(send, recv, root, opts...); err != nil {
		return err
	}
	got := recv
	if me == root && inPlace {
		got = send[me*m : (me+1)*m]
	}
	if want := lineBlock(it, me, m); !bytes.Equal(got, want) {
		return fmt.Errorf("Scatter call %d, %d B, root %d, in place %v, rank %d of %d: got %v, want %v", it, m, root, inPlace, me, n, got, want)
	}
	return nil
}

func TestShmScatterBlockRanks(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(world *gompi.Comm) error {
				loop := func(c *gompi.Comm, calls int) error {
					for it := range calls {
						root := it % n
						for _, m := range []int{120, 512, 632, 633} {
							for _, opts := range [][]gompi.CollOption{nil, {gompi.WithAlgorithm("shm")}} {
								if err := scatterCheck(c, it, m, root, it%3 == 1, opts...); err != nil {
									return err
								}
							}
						}
						// A Barrier after the post (the two-rank root's
						// barrier ahead), and a Bcast on the lines between.
						if it%2 == 0 {
							if err := c.Barrier(); err != nil {
								return err
							}
						}
						buf := make([]byte, 64)
						if c.Rank() == root {
							copy(buf, lineBlock(it, root, 64))
						}
						if err := c.Bcast(buf, root); err != nil {
							return err
						}
						if !bytes.Equal(buf, lineBlock(it, root, 64)) {
							return fmt.Errorf("Bcast call %d: got %v", it, buf)
						}
					}
					return nil
				}
				if err := loop(world, 6); err != nil {
					return err
				}
				for d := range 2 {
					dup, err := world.Dup()
					if err != nil {
						return err
					}
					if err := loop(dup, 4); err != nil {
						return fmt.Errorf("duplicate %d: %w", d, err)
					}
					if err := dup.Free(); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}
