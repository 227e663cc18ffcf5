//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"testing"
)

// TestCMAReduceByBlocks: Reduce on three ranks or more where the root's
// landing buffer would be too large (reduceGatherMax), by blocks on every
// rank, against the reference (TestCMAReductions runs cmaReduceGather).
func TestCMAReduceByBlocks(t *testing.T) {
	defer func(v int) { reduceGatherMax = v }(reduceGatherMax)
	reduceGatherMax = 0
	for _, n := range []int{3, 4, 5, 8, 17} {
		for _, m := range []int{1, 13, 1000} {
			t.Run(fmt.Sprintf("n=%d/m=%d", n, m), func(t *testing.T) {
				checkReductions(t, n, m, "cma", sumInt32)
				checkReductions(t, n, m, "cma", composeCase)
			})
		}
	}
}

// TestCMAReductionWriteFails: a write that fails after the ranks agreed on
// single copy (the pushing Allreduce and Reduce, shmcoll_cmared_push.go)
// gives an error on every rank, not a hang or a wrong result.
func TestCMAReductionWriteFails(t *testing.T) {
	defer func(f func(int, []byte, uint64) error) { writeRemote = f }(writeRemote)
	writeRemote = func(int, []byte, uint64) error { return errors.New("failed for the test") }
	for _, n := range []int{2, 3, 4} {
		for _, op := range []string{"allreduce", "reduce0", "reduce1", "reduce0-blocks"} {
			failed := make(chan error, n)
			saved := reduceGatherMax
			if op == "reduce0-blocks" {
				reduceGatherMax = 0
			}
			err := Run(n, func(c *Comm) error {
				in, out := make([]int32, 40000), make([]int32, 40000)
				with := WithAlgorithm("cma")
				var err error
				switch op {
				case "allreduce":
					err = Allreduce(c, in, out, Sum[int32](), with)
				case "reduce0":
					err = Reduce(c, in, out, Sum[int32](), 0, with)
				case "reduce1":
					err = Reduce(c, in, out, Sum[int32](), 1, with)
				case "reduce0-blocks": // reduceGatherMax lowered below
					err = Reduce(c, in, out, Sum[int32](), 0, with)
				}
				failed <- err
				return nil
			})
			reduceGatherMax = saved
			if err != nil {
				t.Fatal(err)
			}
			close(failed)
			k := 0
			for err := range failed {
				if err != nil {
					k++
				}
			}
			if k != n {
				t.Errorf("%s on %d ranks: %d of %d ranks reported the failed write, want all", op, n, k, n)
			}
		}
	}
}
