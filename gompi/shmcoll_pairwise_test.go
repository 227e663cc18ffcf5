//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// The pairwise single copy ("cma_pairwise", shmcoll_pairwise.go) against
// references computed here: 1..17 ranks, blocks of 0 bytes to more than a
// scratch half, Allgather in place, Alltoallv/w with counts that differ per
// pair (zero included), calls of other algorithms in between (the pairwise
// form leaves its step open from the start), reads the kernel refuses,
// single copy turned off, and ranks that disagree.

var pairwise = gompi.WithAlgorithm("cma_pairwise")

// pwFill is byte j of the block rank src sends rank dst in call k.
func pwFill(k, src, dst, j int) byte { return byte(j*29 + src*11 + dst*5 + k*3 + j>>9) }

// checkPairwise runs Alltoall and Allgather (in place on odd k) with
// blocks of m bytes, named "cma_pairwise", and checks the results.
func checkPairwise(c *gompi.Comm, k, m int) error {
	n, me := c.Size(), c.Rank()
	send, recv := make([]byte, n*m), make([]byte, n*m)
	for j := range send {
		send[j] = pwFill(k, me, j/m, j%m)
	}
	if err := c.Alltoall(send, recv, pairwise); err != nil {
		return fmt.Errorf("alltoall of %d, call %d: %w", m, k, err)
	}
	for j := range recv {
		if want := pwFill(k, j/m, me, j%m); recv[j] != want {
			return fmt.Errorf("alltoall of %d on %d ranks, call %d: byte %d is %d on rank %d, want %d", m, n, k, j, recv[j], me, want)
		}
	}
	own := make([]byte, m)
	for j := range own {
		own[j] = pwFill(k, me, 0, j)
	}
	recv = make([]byte, n*m)
	send = own
	if k%2 == 1 {
		copy(recv[me*m:], own)
		send = gompi.InPlace[byte]()
	}
	if err := c.Allgather(send, recv, pairwise); err != nil {
		return fmt.Errorf("allgather of %d, call %d: %w", m, k, err)
	}
	for j := range recv {
		if want := pwFill(k, j/m, 0, j%m); recv[j] != want {
			return fmt.Errorf("allgather of %d on %d ranks, call %d: byte %d is %d on rank %d, want %d", m, n, k, j, recv[j], me, want)
		}
	}
	return nil
}

func pwSizes(n int) []int {
	if n > 8 {
		return []int{0, 1, 1000, 9000}
	}
	return []int{0, 1, 1000, 40000, 300 << 10}
}

// checkPairwiseHalves runs calls k and k+1 of m bytes, one on each
// scratch half.
func checkPairwiseHalves(c *gompi.Comm, k, m int) error {
	for i := range 2 {
		if err := checkPairwise(c, k+i, m); err != nil {
			return err
		}
	}
	return nil
}

func TestPairwiseAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				k := 0
				for _, m := range pwSizes(n) {
					if err := checkPairwiseHalves(c, k, m); err != nil {
						return err
					}
					k += 2
					// Another algorithm's steps between two pairwise calls.
					if err := c.Barrier(); err != nil {
						return err
					}
					if err := checkPairwise(c, k, m); err != nil {
						return err
					}
					k++
					if err := c.Allreduce(make([]byte, 64), make([]byte, 64), gompi.Sum[int64]()); err != nil {
						return err
					}
				}
				for round := range 3 {
					for _, big := range []bool{false, true} {
						if err := checkAlltoallv(c, round, big, false, pairwise); err != nil {
							return fmt.Errorf("round %d: %w", round, err)
						}
					}
				}
				if n > 1 && !gompi.CMAOn(c) {
					return errors.New("single copy not agreed on")
				}
				return nil
			})
		})
	}
}

// TestPairwiseRefused: reads refused after the ranks agreed (every one,
// every other one, the first only) are repaired by messages.
func TestPairwiseRefused(t *testing.T) {
	refusedRounds(t, func(c *gompi.Comm) error { return checkPairwise(c, 0, 100) }, func(c *gompi.Comm, k int) error {
		if err := checkPairwise(c, k, 5000+k); err != nil {
			return err
		}
		return checkAlltoallv(c, k, true, false, pairwise)
	})
}

// TestPairwiseDisabled: with GOMPI_SHM_CMA_COLL=0 the first call named
// "cma_pairwise" runs what selection picks without single copy, and the
// name is then unavailable.
func TestPairwiseDisabled(t *testing.T) {
	t.Setenv("GOMPI_SHM_CMA_COLL", "0")
	run(t, 4, func(c *gompi.Comm) error {
		n, me, m := c.Size(), c.Rank(), 50000
		send, recv := make([]byte, n*m), make([]byte, n*m)
		for j := range send {
			send[j] = pwFill(0, me, j/m, j%m)
		}
		if err := c.Alltoall(send, recv, pairwise); err != nil {
			return err
		}
		for j := range recv {
			if want := pwFill(0, j/m, me, j%m); recv[j] != want {
				return fmt.Errorf("byte %d is %d on rank %d, want %d", j, recv[j], me, want)
			}
		}
		if gompi.CMAOn(c) {
			return errors.New("single copy on with GOMPI_SHM_CMA_COLL=0")
		}
		err := c.Alltoall(make([]byte, 4096), make([]byte, 4096), pairwise)
		if !errors.Is(err, gompi.ErrArg) {
			return fmt.Errorf("naming cma_pairwise once single copy is off: %v, want ErrArg", err)
		}
		return nil
	})
}

// TestPairwiseMismatch: a rank with another size (the same algorithm, or
// "cma" where the others run "cma_pairwise") gets ErrMismatch, so do the
// ranks that read it, nobody hangs, and the calls after it work.
func TestPairwiseMismatch(t *testing.T) {
	for _, other := range []string{"cma_pairwise", "cma", "cma_slots"} {
		t.Run(other, func(t *testing.T) {
			run(t, 4, func(c *gompi.Comm) error {
				if err := checkPairwise(c, 0, 10); err != nil { // agree first
					return err
				}
				for _, op := range []string{"alltoall", "allgather", "alltoallv"} {
					m, alg := 70<<10, pairwise
					if c.Rank() == 2 {
						m, alg = m+8, gompi.WithAlgorithm(other)
					}
					var err error
					switch op {
					case "alltoall":
						err = c.Alltoall(make([]byte, 4*m), make([]byte, 4*m), alg)
					case "allgather":
						if other == "cma_slots" {
							alg = gompi.WithAlgorithm("cma")
						}
						err = c.Allgather(make([]byte, m), make([]byte, 4*m), alg)
					case "alltoallv": // rank 2 sends rank 1 more than it expects
						if other != "cma_pairwise" {
							alg = gompi.WithAlgorithm("cma")
						}
						b := 70 << 10
						counts, displs := []int{b, b, b, b}, []int{0, b, 2 * b, 3 * b}
						sc, sd := counts, displs
						if c.Rank() == 2 {
							sc, sd = []int{b, b + 8, b, b}, []int{0, b, 2*b + 8, 3*b + 8}
						}
						err = c.Alltoallv(make([]byte, 4*b+8), sc, sd, make([]byte, 4*b), counts, displs, alg)
						if c.Rank() == 1 && !errors.Is(err, gompi.ErrMismatch) {
							return fmt.Errorf("alltoallv, %s, rank 1 sent too much: %v, want ErrMismatch", other, err)
						}
					}
					if c.Rank() == 2 && op != "alltoallv" && !errors.Is(err, gompi.ErrMismatch) {
						return fmt.Errorf("%s, %s on rank 2 with another size: %v, want ErrMismatch", op, other, err)
					}
					if err != nil && !errors.Is(err, gompi.ErrMismatch) {
						return fmt.Errorf("%s, %s: %v on rank %d", op, other, err, c.Rank())
					}
					if err := checkPairwise(c, 3, 100); err != nil {
						return fmt.Errorf("after the %s mismatch: %w", op, err)
					}
				}
				return nil
			})
		})
	}
}
