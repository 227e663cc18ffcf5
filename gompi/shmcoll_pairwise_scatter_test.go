//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// The pairwise Scatter ("cma_pairwise", shmcoll_pairwise_scatter.go)
// against references computed here: 1..17 ranks, every root, blocks of 0
// bytes to more than a scratch slot, in place at the root on odd calls,
// other algorithms' steps in between, reads the kernel refuses, and ranks
// that disagree.

// checkPairwiseScatter runs Scatter from root with blocks of m bytes,
// named "cma_pairwise" (in place at the root on odd k), and checks it.
func checkPairwiseScatter(c *gompi.Comm, k, m, root int) error {
	n, me := c.Size(), c.Rank()
	var send []byte
	recv := make([]byte, m)
	for j := range recv {
		recv[j] = 0xEE
	}
	if me == root {
		send = make([]byte, n*m)
		for j := range send {
			send[j] = pwFill(k, root, j/m, j%m)
		}
		if k%2 == 1 {
			recv = gompi.InPlace[byte]()
		}
	}
	if err := c.Scatter(send, recv, root, pairwise); err != nil {
		return fmt.Errorf("scatter of %d from %d, call %d: %w", m, root, k, err)
	}
	if me == root && k%2 == 1 {
		for j := range send { // in place: the root's buffer untouched
			if want := pwFill(k, root, j/m, j%m); send[j] != want {
				return fmt.Errorf("scatter in place of %d on %d ranks, call %d: root's byte %d is %d, want %d", m, n, k, j, send[j], want)
			}
		}
		return nil
	}
	for j := range recv {
		if want := pwFill(k, root, me, j); recv[j] != want {
			return fmt.Errorf("scatter of %d on %d ranks from %d, call %d: byte %d is %d on rank %d, want %d", m, n, root, k, j, recv[j], me, want)
		}
	}
	return nil
}

func pwScatterSizes(n int) []int {
	if n > 8 {
		return []int{0, 1, 1000, 50000}
	}
	return []int{0, 1, 1000, 40000, 300 << 10}
}

func TestPairwiseScatterAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				k := 0
				for _, m := range pwScatterSizes(n) {
					for root := range n {
						for range 2 { // both scratch halves, in place and not
							if err := checkPairwiseScatter(c, k, m, root); err != nil {
								return err
							}
							k++
						}
					}
					// Other algorithms' steps between pairwise calls.
					if err := c.Barrier(); err != nil {
						return err
					}
					if err := checkPairwiseScatter(c, k, m, n-1); err != nil {
						return err
					}
					k++
					if err := checkPairwise(c, k, m/n); err != nil { // Alltoall and Allgather, pairwise
						return err
					}
					k++
					if err := checkPairwiseScatter(c, k, m, 0); err != nil {
						return err
					}
					k++
				}
				if n > 1 && !gompi.CMAOn(c) {
					return errors.New("single copy not agreed on")
				}
				return nil
			})
		})
	}
}

// TestPairwiseScatterRefused: copies refused after the ranks agreed are
// repaired by messages.
func TestPairwiseScatterRefused(t *testing.T) {
	refusedRounds(t, func(c *gompi.Comm) error { return checkPairwiseScatter(c, 0, 100, 0) }, func(c *gompi.Comm, k int) error {
		for _, root := range []int{0, c.Size() - 1} {
			if err := checkPairwiseScatter(c, k, 70000+k, root); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestPairwiseScatterMismatch: a rank with another block size or root
// gets ErrMismatch (or the ranks that see it do), nobody hangs, and the
// calls after it work.
func TestPairwiseScatterMismatch(t *testing.T) {
	for _, what := range []string{"size", "root", "cma", "rootcma"} {
		t.Run(what, func(t *testing.T) {
			run(t, 4, func(c *gompi.Comm) error {
				if err := checkPairwiseScatter(c, 0, 10, 0); err != nil { // agree first
					return err
				}
				m, root, alg := 70<<10, 1, pairwise
				if c.Rank() == 2 {
					switch what {
					case "size":
						m += 8
					case "root":
						root = 3
					case "cma":
						m, alg = m+8, gompi.WithAlgorithm("cma")
					}
				}
				if what == "rootcma" && c.Rank() == root { // the root runs the rooted "cma"
					alg = gompi.WithAlgorithm("cma")
				}
				var send []byte
				if c.Rank() == root {
					send = make([]byte, 4*m)
				}
				err := c.Scatter(send, make([]byte, m), root, alg)
				if c.Rank() == 2 && what != "root" && what != "rootcma" && !errors.Is(err, gompi.ErrMismatch) {
					return fmt.Errorf("%s: rank 2 got %v, want ErrMismatch", what, err)
				}
				if err != nil && !errors.Is(err, gompi.ErrMismatch) {
					return fmt.Errorf("%s: %v on rank %d", what, err, c.Rank())
				}
				for k := 1; k < 4; k++ {
					if err := checkPairwiseScatter(c, k, 100, k%4); err != nil {
						return fmt.Errorf("after the %s mismatch: %w", what, err)
					}
				}
				return nil
			})
		})
	}
}
