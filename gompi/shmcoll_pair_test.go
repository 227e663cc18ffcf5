//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"testing"
)

// TestShmReductions: the shared-memory reductions against the reference on
// 1..5 ranks, with Scan and Exscan rooted at rank 0 on two ranks
// (shmcoll_pair.go), predefined and non-commutative operators, in place and
// not.
func TestShmReductions(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for _, m := range []int{1, 13, 100} {
			t.Run(fmt.Sprintf("n=%d/m=%d", n, m), func(t *testing.T) {
				checkReductions(t, n, m, "shm", sumInt32)
				checkReductions(t, n, m, "shm", composeCase)
				checkReductions(t, n, m, "shm", maxFloat64)
				checkReductions(t, n, m, "shm", bandUint8)
			})
		}
	}
}

// TestShmScanTwoRanksInterleaved: rank 0 leaves a two-rank Scan or Exscan
// step open; calls of every kind after it, and back to back, still see the
// right data (the next step waits for the open one).
func TestShmScanTwoRanksInterleaved(t *testing.T) {
	err := Run(2, func(c *Comm) error {
		shm := WithAlgorithm("shm")
		me := int64(c.Rank())
		for i := int64(0); i < 200; i++ {
			in, out := []int64{10*i + me + 1}, []int64{-1}
			if err := Scan(c, in, out, Sum[int64](), shm); err != nil {
				return err
			}
			want := 10*i + 1
			if me == 1 {
				want = 20*i + 3
			}
			if out[0] != want {
				return fmt.Errorf("call %d: Scan on rank %d gave %d, want %d", i, me, out[0], want)
			}
			if err := Exscan(c, in, out, Sum[int64](), shm); err != nil {
				return err
			}
			if me == 1 && out[0] != 10*i+1 {
				return fmt.Errorf("call %d: Exscan on rank 1 gave %d, want %d", i, out[0], 10*i+1)
			}
			switch i % 3 {
			case 0:
				if err := c.Barrier(shm); err != nil {
					return err
				}
			case 1:
				sum := []int64{me}
				if err := Allreduce(c, InPlace[int64](), sum, Sum[int64](), shm); err != nil {
					return err
				}
				if sum[0] != 1 {
					return fmt.Errorf("call %d: Allreduce after Scan gave %d", i, sum[0])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestShmScanTwoRanksMismatch: rank 1 checks its signature against rank
// 0's; a disagreeing size gives it ErrMismatch, and the calls after it
// still work.
func TestShmScanTwoRanksMismatch(t *testing.T) {
	err := Run(2, func(c *Comm) error {
		shm := WithAlgorithm("shm")
		m := 4
		if c.Rank() == 1 {
			m = 5
		}
		err := Scan(c, make([]int32, m), make([]int32, m), Sum[int32](), shm)
		if c.Rank() == 1 && !errors.Is(err, ErrMismatch) {
			return fmt.Errorf("rank 1 should see the mismatch, got %v", err)
		}
		if err != nil && !errors.Is(err, ErrMismatch) {
			return err
		}
		return c.Barrier(shm)
	})
	if err != nil {
		t.Fatal(err)
	}
}
