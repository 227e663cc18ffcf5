//go:build !mpi && !mpich

package gompi_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// TestShmReduceScatterBlock: the shm Reduce_scatter_block against the
// reference, with a non-commutative operator (horner: rank order shows), in
// place and not, on 1..17 ranks (odd, even, powers of two and not), with
// blocks on the two-rank lines (8 B) and in the scratch area (64 B, 800 B),
// chosen and then kept.
func TestShmReduceScatterBlock(t *testing.T) {
	shm := gompi.WithAlgorithm("shm")
	for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17} {
		for _, m := range []int{8, 64, 800} {
			for _, inPlace := range []bool{false, true} {
				t.Run(fmt.Sprintf("n=%d/m=%d/inplace=%v", n, m, inPlace), func(t *testing.T) {
					err := gompi.Run(n, func(c *gompi.Comm) error {
						me := c.Rank()
						elem := func(r, i int) float64 { return float64((r*7 + i) % 5) }
						for it := range 3 { // chosen, then kept
							send := make([]byte, n*m)
							for i := range n * m / 8 {
								binary.LittleEndian.PutUint64(send[8*i:], math.Float64bits(elem(me+it, i)))
							}
							recv := make([]byte, m)
							if inPlace {
								recv, send = send, gompi.InPlace[byte]()
							}
							if err := c.ReduceScatterBlock(send, recv, horner, shm); err != nil {
								return err
							}
							for k := range m / 8 {
								i := me*m/8 + k
								want := elem(n-1+it, i)
								for r := n - 2; r >= 0; r-- {
									want = 3*elem(r+it, i) + want
								}
								if got := math.Float64frombits(binary.LittleEndian.Uint64(recv[8*k:])); got != want {
									return fmt.Errorf("call %d: rank %d element %d: got %v, want %v", it, me, i, got, want)
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
	}
}
