//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/coll"
)

// Two-rank Gatherv and Scatterv with blocks from vShm2Min up to a slot
// through the scratch half (shmcoll_vshm2.go): against results computed
// here (both roots, in place and not, blocks around both bounds, on two
// ranks and, where the branch does not apply, on 1..9 ranks), and ranks
// that decide differently.

// vShm2Sizes are block sizes around vShm2Min and the slot's bound (splitCheck
// gives rank r a block of m+8r bytes).
func vShm2Sizes(c *Comm) []int {
	slot := rootedSlotBytes(c.c.ShmCapacity()-2*sigSize, 2) - hdrSize
	return []int{vShm2Min - 8, vShm2Min - 1, vShm2Min, 20000, 32 << 10, slot - 8, slot - 7, slot, slot + 1, 100 << 10}
}

// TestVShm2: the default selection on 1..9 ranks (two ranks: through the
// half between the bounds, cma outside; the others: the rest of the table).
func TestVShm2(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 9} {
		t.Run(fmt.Sprintf("%d-ranks", n), func(t *testing.T) {
			runCMATest(t, n, func(c *Comm) error {
				for i, m := range vShm2Sizes(c) {
					for k := 2 * i; k < 2*i+2+n%2; k++ { // odd n: a third root
						if err := splitCheck(c, k, m); err != nil {
							return err
						}
					}
				}
				return nil
			})
		})
	}
}

// TestVShm2Chosen: the branch takes blocks between the bounds on two ranks
// only.
func TestVShm2Chosen(t *testing.T) {
	runCMATest(t, 2, func(c *Comm) error {
		x := &collComm{c: c}
		slot := rootedSlotBytes(c.c.ShmCapacity()-2*sigSize, 2) - hdrSize
		for _, o := range []coll.Operation{coll.OpGatherv, coll.OpScatterv} {
			op := string(o)
			for _, m := range []int{vShm2Min, 32 << 10, slot} {
				if s := vShm2(x, o, m); s == nil || s.op != o {
					return fmt.Errorf("%s, block %d: not through the half", op, m)
				}
			}
			for _, m := range []int{0, vShm2Min - 1, slot + 1, splitMin} {
				if vShm2(x, o, m) != nil {
					return fmt.Errorf("%s, block %d: through the half", op, m)
				}
			}
		}
		return nil
	})
}

// TestVShm2Mismatch: a root whose block for rank 1 goes through the half and
// a rank 1 whose buffer is below vShm2Min (it runs cma): ErrMismatch on
// rank 1, nobody hangs, and later calls work.
func TestVShm2Mismatch(t *testing.T) {
	for _, op := range []string{"scatterv", "gatherv"} {
		t.Run(op, func(t *testing.T) {
			runCMATest(t, 2, func(c *Comm) error {
				if err := splitCheck(c, 0, 20000); err != nil { // agree first
					return err
				}
				m, mine := 20000, 20000
				if c.Rank() == 1 {
					mine = 5000
				}
				var err error
				if op == "scatterv" {
					err = c.Scatterv(make([]byte, 2*m), []int{m, m}, []int{0, m}, make([]byte, mine), 0)
				} else {
					err = c.Gatherv(make([]byte, mine), make([]byte, 2*m), []int{m, m}, []int{0, m}, 0)
				}
				if c.Rank() == 1 && !errors.Is(err, ErrMismatch) || err != nil && !errors.Is(err, ErrMismatch) {
					return fmt.Errorf("%s: %v on rank %d, want ErrMismatch", op, err, c.Rank())
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				return splitCheck(c, 3, 20000)
			})
		})
	}
}
