//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// Alltoallv/w through "cma_pairwise" where a rank's blocks all fit the
// pairs' slots (shmcoll_pairwise.go, allSlots): the rank waits for the
// step's release and copies its column, outside the pairwise loop. Small
// calls on 1..17 ranks with counts per pair (zeros, a rank that sends
// nothing at all, one that receives nothing), mixed with calls in which
// some ranks have a block too large for a slot and others do not, on both
// scratch halves and with other algorithms' steps in between; and ranks
// whose counts disagree with a slot-only rank, in every direction, and a
// rank that runs another algorithm: ErrMismatch where the API promises it,
// nobody hangs, and the next call works.

// pwSmallCount is the bytes rank src sends rank dst in pattern k: small,
// zero for some pairs, rank 1 sends nothing (k odd) and rank 2 receives
// nothing (k even); with big, rank 0's block to the last rank is larger
// than any slot, so that those two run the pairwise loop and the others
// their slot-only path in one call.
func pwSmallCount(k, n, src, dst int, big bool) int {
	switch {
	case big && src == 0 && dst == n-1 && n > 1:
		return 40000
	case k%2 == 1 && src == 1, k%2 == 0 && dst == 2:
		return 0
	}
	return (src*5 + dst*3 + k) % 9 * 57
}

func TestPairwiseSlotsAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				for k := range 8 {
					big := k%4 == 3
					count := func(src, dst int) int { return pwSmallCount(k, n, src, dst, big) }
					block := func(src, dst int) []byte {
						b := make([]byte, count(src, dst))
						for i := range b {
							b[i] = pwFill(k, src, dst, i)
						}
						return b
					}
					if err := alltoallvBoth(c, count, block, false, pairwise, fmt.Sprintf(", pattern %d", k)); err != nil {
						return err
					}
					if k%3 == 2 { // another algorithm's step in between
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

// TestPairwiseSlotsMismatch: on 3..17 ranks, all other blocks small, rank
// 2's block to rank 1 disagrees with what rank 1 expects: 8 bytes more
// (both within a slot), a block too large for a slot sent to a rank that
// expects a small one, a small one sent to a rank that expects a large
// one; and rank 2 running "cma" for the call. The rank that receives the
// wrong block (or rank 2, for the other algorithm) gets ErrMismatch, every
// other error is ErrMismatch, and the next call works.
func TestPairwiseSlotsMismatch(t *testing.T) {
	cases := []struct {
		name       string
		sent, want int // rank 2's block to rank 1: sent by 2, expected by 1
		other      bool
	}{
		{"small-more", 16, 8, false},
		{"large-to-small", 40000, 8, false},
		{"small-to-large", 8, 40000, false},
		{"cma", 8, 8, true},
	}
	for _, n := range vRanks() {
		if n < 3 {
			continue
		}
		for _, tc := range cases {
			t.Run(fmt.Sprintf("n=%d/%s", n, tc.name), func(t *testing.T) {
				run(t, n, func(c *gompi.Comm) error {
					me := c.Rank()
					count := func(src, dst int) int { return pwSmallCount(0, n, src, dst, false) }
					block := func(src, dst int) []byte { return make([]byte, count(src, dst)) }
					if err := alltoallvBoth(c, count, block, false, pairwise, ", before"); err != nil { // agree first
						return err
					}
					for _, w := range []bool{false, true} {
						sc, rc := make([]int, n), make([]int, n)
						for j := range n {
							sc[j], rc[j] = 8, 8
						}
						if me == 2 {
							sc[1] = tc.sent
						}
						if me == 1 {
							rc[2] = tc.want
						}
						sd, ss := layoutOf(sc)
						rd, rs := layoutOf(rc)
						alg := pairwise
						if tc.other && me == 2 {
							alg = gompi.WithAlgorithm("cma")
						}
						call := c.Alltoallv
						if w {
							call = c.Alltoallw
						}
						err := call(make([]byte, ss), sc, sd, make([]byte, rs), rc, rd, alg)
						if (me == 1 && !tc.other || me == 2 && tc.other) && !errors.Is(err, gompi.ErrMismatch) {
							return fmt.Errorf("alltoall w=%v, rank %d: %v, want ErrMismatch", w, me, err)
						}
						if err != nil && !errors.Is(err, gompi.ErrMismatch) {
							return fmt.Errorf("alltoall w=%v, rank %d: %v", w, me, err)
						}
						if err := alltoallvBoth(c, count, block, false, pairwise, ", after"); err != nil {
							return err
						}
					}
					return nil
				})
			})
		}
	}
}
