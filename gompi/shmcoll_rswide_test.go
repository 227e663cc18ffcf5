//go:build !mpi && !mpich

package gompi_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/internal/shm"
)

// The reduce-scatters on two ranks with parts up to shm.PairWideData bytes
// beside the arrival words (shmcoll_line.go, lineWide): Reduce_scatter and
// Reduce_scatter_block against the reference with a non-commutative
// operator (horner), counts on both sides of the line pair's bound
// (PairLineData), of the whole block's (PairWideData) and of the staging
// buffer's, uneven and zero parts, in place and not, through "shm" and the
// default selection, back to back so that both parities of the lines serve
// and stale data would show; and the same calls on 1..17 ranks, where the
// lines do not apply.

// rsElem is element i of rank r's vector in call it.
func rsElem(it, r, i int) float64 { return float64((r*7 + i + it) % 5) }

// rsCheck runs one Reduce_scatter (block false: counts as given) or
// Reduce_scatter_block (block true: counts[0] for every rank) and checks
// this rank's part.
func rsCheck(c *gompi.Comm, it int, counts []int, block, inPlace bool, opt []gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	total, off := 0, 0
	for r, x := range counts {
		if r < me {
			off += x
		}
		total += x
	}
	send := make([]byte, total)
	for i := range total / 8 {
		binary.LittleEndian.PutUint64(send[8*i:], math.Float64bits(rsElem(it, me, i)))
	}
	recv := make([]byte, counts[me])
	if inPlace {
		recv, send = send, gompi.InPlace[byte]()
	}
	var err error
	name := "reduce_scatter"
	if block {
		name = "reduce_scatter_block"
		err = c.ReduceScatterBlock(send, recv, horner, opt...)
	} else {
		err = c.ReduceScatter(send, recv, counts, horner, opt...)
	}
	if err != nil {
		return fmt.Errorf("%s call %d, counts %v: %w", name, it, counts, err)
	}
	for k := range counts[me] / 8 {
		i := off/8 + k
		want := rsElem(it, n-1, i)
		for r := n - 2; r >= 0; r-- {
			want = 3*rsElem(it, r, i) + want
		}
		if got := math.Float64frombits(binary.LittleEndian.Uint64(recv[8*k:])); got != want {
			return fmt.Errorf("%s call %d, counts %v, in place %v: rank %d element %d: got %v, want %v", name, it, counts, inPlace, me, i, got, want)
		}
	}
	return nil
}

// rsWideSizes are per-rank parts in bytes (whole float64s) around the
// bounds: the word's line pair (120), the whole block (376) and beyond.
var rsWideSizes = []int{0, 8, 56, 64, 120, 128, 248, 256, 368, 376, 384, 512, 752, 760}

func TestShmReduceScatterWideTwoRanks(t *testing.T) {
	if shm.PairWideData != 376 || shm.PairLineData != 120 {
		t.Fatalf("the sizes of this test assume PairLineData 120 and PairWideData 376, not %d and %d", shm.PairLineData, shm.PairWideData)
	}
	for _, opt := range [][]gompi.CollOption{{gompi.WithAlgorithm("shm")}, nil} {
		name := "default"
		if opt != nil {
			name = "shm"
		}
		t.Run(name, func(t *testing.T) {
			run(t, 2, func(c *gompi.Comm) error {
				for it := range 12 {
					inPlace := it%3 == 1
					for _, a := range rsWideSizes {
						// Equal parts, uneven parts both ways, and the block form.
						for _, counts := range [][]int{{a, a}, {a, a + 8}, {a + 8, a}, {a, 0}, {0, a}} {
							if err := rsCheck(c, it, counts, false, inPlace, opt); err != nil {
								return err
							}
						}
						if err := rsCheck(c, it, []int{a, a}, true, inPlace, opt); err != nil {
							return err
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

// TestShmReduceScatterWideRanks: the same calls on 1..17 ranks (the lines
// are for two ranks only; the others take the scratch half as before).
func TestShmReduceScatterWideRanks(t *testing.T) {
	for _, n := range []int{1, 3, 4, 5, 7, 8, 9, 16, 17} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				for it := range 3 {
					for _, a := range []int{8, 256, 376, 384} {
						counts := make([]int, n)
						for r := range counts {
							counts[r] = a + 8*(r%2)
						}
						for _, inPlace := range []bool{false, true} {
							for _, opt := range [][]gompi.CollOption{{gompi.WithAlgorithm("shm")}, nil} {
								if err := rsCheck(c, it, counts, false, inPlace, opt); err != nil {
									return err
								}
								equal := make([]int, n)
								for r := range equal {
									equal[r] = a
								}
								if err := rsCheck(c, it, equal, true, inPlace, opt); err != nil {
									return err
								}
							}
						}
					}
				}
				return nil
			})
		})
	}
}
