//go:build !mpi && !mpich

package gompi_test

import (
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// The pairwise single copy with blocks that fit the wide slots of 3 and 4
// ranks (internal/shm/collslot_pairs.go: a 32 KiB slot per pair) and not
// the slots of the half's usable length: 1..17 ranks, blocks of 12000 (over
// the old 11 KiB slot) to 32 KiB and just over, Alltoall and Allgather (in
// place on odd calls), Alltoallv/w (not in place: the algorithm needs a send
// buffer, hasSend) with counts that differ per pair, on the
// world and on communicators that Dup takes and Free gives back (the next
// Dup reuses the slot), with other algorithms' steps in between.

func pwWideCounts(src, dst, m int) int { return (m - (src*5+dst*3)%7*1000) &^ 7 }

func checkPairwiseWide(c *gompi.Comm, k int) error {
	for _, m := range []int{12000, 20000, 32768, 32769} {
		if err := checkPairwiseHalves(c, k, m); err != nil {
			return err
		}
		k += 2
		if err := c.Barrier(); err != nil {
			return err
		}
		count := func(src, dst int) int { return pwWideCounts(src, dst, m) }
		block := func(src, dst int) []byte {
			b := make([]byte, count(src, dst))
			for i := range b {
				b[i] = pwFill(k, src, dst, i)
			}
			return b
		}
		if err := alltoallvBoth(c, count, block, false, pairwise, fmt.Sprintf(" of about %d", m)); err != nil {
			return err
		}
		if err := c.Allreduce(make([]byte, 64), make([]byte, 64), gompi.Sum[int64]()); err != nil {
			return err
		}
	}
	return nil
}

func TestPairwiseWideSlots(t *testing.T) {
	for _, n := range vRanks() {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				if err := checkPairwiseWide(c, 0); err != nil {
					return fmt.Errorf("world: %w", err)
				}
				for round := range 2 {
					d, err := c.Dup()
					if err != nil {
						return err
					}
					if err := checkPairwiseWide(d, 10+round); err != nil {
						return fmt.Errorf("dup %d: %w", round, err)
					}
					if err := d.Free(); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}
