//go:build !mpi && !mpich

package gompi_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// Allgatherv by the pairwise single copy (shmcoll_pairwise_allgatherv.go)
// against references computed here: 1..17 ranks, counts that differ per
// rank (zero included), blocks of up to 300 KiB on up to 8 ranks, in place
// and not, both scratch halves, other algorithms' steps in between, on the
// world and on communicators Dup takes and Free gives back; ranks whose
// counts disagree get ErrMismatch.

// pwAgvCheck runs Allgatherv with rank r's block of count(r) bytes.
func pwAgvCheck(c *gompi.Comm, k int, inPlace bool, count func(r int) int) error {
	n, me := c.Size(), c.Rank()
	counts := make([]int, n)
	for r := range counts {
		counts[r] = count(r)
	}
	// Gaps between the blocks, which nobody may write.
	displs, size := make([]int, n), 0
	for r := range n {
		displs[r] = size + 8
		size = displs[r] + counts[r]
	}
	block := func(r int) []byte {
		b := make([]byte, counts[r])
		for j := range b {
			b[j] = pwFill(k, r, 0, j)
		}
		return b
	}
	recv := bytes.Repeat([]byte{0xee}, size)
	send := block(me)
	if inPlace {
		copy(recv[displs[me]:], send)
		send = gompi.InPlace[byte]()
	}
	if err := c.Allgatherv(send, recv, counts, displs, pairwise); err != nil {
		return fmt.Errorf("allgatherv call %d: %w", k, err)
	}
	for r := range n {
		if !bytes.Equal(recv[displs[r]:][:counts[r]], block(r)) {
			return fmt.Errorf("allgatherv call %d on %d ranks: rank %d's copy of rank %d's block is wrong", k, n, me, r)
		}
		if g := recv[displs[r]-8 : displs[r]]; !bytes.Equal(g, bytes.Repeat([]byte{0xee}, 8)) {
			return fmt.Errorf("allgatherv call %d: rank %d's gap before block %d was written", k, me, r)
		}
	}
	return nil
}

func pwAgvAll(c *gompi.Comm, k0 int) error {
	n := c.Size()
	ms := []int{0, 1, 1000, 40000}
	if n <= 8 {
		ms = append(ms, 300<<10)
	}
	k := k0
	for _, m := range ms {
		count := func(r int) int { return max(0, m-(r*7919)%(m/3+1)) }
		for _, inPlace := range []bool{false, true, false} {
			if err := pwAgvCheck(c, k, inPlace, count); err != nil {
				return err
			}
			k++
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		for _, big := range []bool{false, true} {
			if err := checkAllgatherv(c, 0, big, big, pairwise); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestPairwiseAllgathervAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				if err := pwAgvAll(c, 0); err != nil {
					return fmt.Errorf("world: %w", err)
				}
				for round := range 2 {
					d, err := c.Dup()
					if err != nil {
						return err
					}
					if err := pwAgvAll(d, 100*(round+1)); err != nil {
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

// TestPairwiseAllgathervMismatch: rank 1 counts its own block 8 bytes
// longer than the others count it; every rank that sees it reports
// ErrMismatch, and the next call works.
func TestPairwiseAllgathervMismatch(t *testing.T) {
	for _, n := range []int{2, 3, 4, 7} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				me := c.Rank()
				counts, displs := make([]int, n), make([]int, n)
				for r := range n {
					counts[r], displs[r] = 50000, r*60000
				}
				if me == 1 {
					counts[1] += 8
				}
				err := c.Allgatherv(make([]byte, counts[me]), make([]byte, n*60000), counts, displs, pairwise)
				if err != nil && !errors.Is(err, gompi.ErrMismatch) {
					return fmt.Errorf("rank %d: %w, want ErrMismatch", me, err)
				}
				sawMismatch := []byte{0}
				if err != nil {
					sawMismatch[0] = 1
				}
				any := make([]byte, 1)
				if err := c.Allreduce(sawMismatch, any, gompi.Max[uint8]()); err != nil {
					return err
				}
				if any[0] == 0 {
					return errors.New("nobody saw the counts disagree")
				}
				return pwAgvCheck(c, 7, false, func(int) int { return 50000 })
			})
		})
	}
}
