//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi"
)

// The single-copy forms of the collectives with per-rank counts
// (shmcoll_cmav.go), named "cma", against the results shmcoll_v_test.go
// computes: 1..17 ranks, counts that differ per pair (zero included),
// blocks within their slots and beyond them (those go by single copy),
// roots, in place (Alltoallv/w in place: "cma" is unavailable and the
// default selection runs "shm"), reads and writes the kernel refuses, and
// counts that disagree.

func cmavChecks() []func(*gompi.Comm, int, bool, bool, gompi.CollOption) error {
	return []func(*gompi.Comm, int, bool, bool, gompi.CollOption) error{
		checkGatherv, checkScatterv, checkAlltoallv, checkAllgatherv,
	}
}

// cmavRound runs every check once with "cma" named (the default selection
// for Alltoallv/w in place).
func cmavRound(c *gompi.Comm, round int, big, inPlace bool) error {
	n := c.Size()
	root := (round + n/2) % n
	for i, f := range cmavChecks() {
		opt := gompi.WithAlgorithm("cma")
		if i == 2 && inPlace {
			opt = gompi.CollOption{}
		}
		if err := f(c, root, big, inPlace, opt); err != nil {
			return fmt.Errorf("round %d, root %d: %w", round, root, err)
		}
	}
	return nil
}

func TestCMAvAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		for _, big := range []bool{false, true} {
			for _, inPlace := range []bool{false, true} {
				t.Run(fmt.Sprintf("n=%d/big=%v/inplace=%v", n, big, inPlace), func(t *testing.T) {
					run(t, n, func(c *gompi.Comm) error {
						for round := range 3 { // both scratch halves, several roots
							if err := cmavRound(c, round, big, inPlace); err != nil {
								return err
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
	}
}

// TestCMAvRefused: reads and writes refused after the ranks agreed (every
// one, every other one, the first only) are repaired by messages.
func TestCMAvRefused(t *testing.T) {
	refusedRounds(t, func(c *gompi.Comm) error { return cmavRound(c, 0, true, false) }, func(c *gompi.Comm, round int) error {
		if err := cmavRound(c, round, true, round%2 == 1); err != nil {
			return err
		}
		return checkAlltoallSlots(c, round, 1000+20000*(round%2))
	})
}

// refusedRounds runs, on 2, 3, 5 and 8 ranks and for each way of refusing
// (every read, every other one, the first only), agree (a call after which
// the ranks have agreed on single copy), then has rank 0 refuse its reads
// and writes and runs rounds 1 to 4, whose refused copies must be repaired
// by messages.
func refusedRounds(t *testing.T, agree func(c *gompi.Comm) error, round func(c *gompi.Comm, k int) error) {
	t.Helper()
	for _, mode := range []int32{1, 2, 3} {
		for _, n := range []int{2, 3, 5, 8} {
			t.Run(fmt.Sprintf("mode-%d/%d-ranks", mode, n), func(t *testing.T) {
				defer gompi.SetCMARefuse(0)
				run(t, n, func(c *gompi.Comm) error {
					if err := agree(c); err != nil {
						return err
					}
					if !gompi.CMAOn(c) {
						t.Skip("single copy is off here")
					}
					if err := refuseFromRank0(c, mode); err != nil {
						return err
					}
					for k := 1; k < 5; k++ {
						if err := round(c, k); err != nil {
							return err
						}
					}
					return c.Barrier()
				})
			})
		}
	}
}

// TestCMAvMismatch: a count that disagrees with the receiver's gives
// ErrMismatch where the slotted form gives it, within a slot and beyond
// it, and nobody hangs.
func TestCMAvMismatch(t *testing.T) {
	for _, extra := range []int{8, 50000} {
		t.Run(fmt.Sprintf("extra=%d", extra), func(t *testing.T) {
			run(t, 3, func(c *gompi.Comm) error {
				if err := vMismatches(c, extra, gompi.WithAlgorithm("cma")); err != nil {
					return err
				}
				// The calls after it work.
				return cmavRound(c, 0, true, false)
			})
		})
	}
}

// TestCMAvChosen: the table runs "cma" first for the forms of size 0 and
// for large Allgatherv (on 3+ ranks "cma_pairwise" from 256 KiB up to
// 1 MiB), "shm" for small Allgatherv.
func TestCMAvChosen(t *testing.T) {
	for op, size := range map[coll.Operation]int{coll.OpGatherv: 0, coll.OpScatterv: 0, coll.OpAlltoallv: 0,
		coll.OpAlltoallw: 0, coll.OpAllgatherv: 1 << 20} {
		for _, n := range []int{2, 4, 8} {
			want := "cma"
			if n > 2 && (op == coll.OpAlltoallv || op == coll.OpAlltoallw) {
				want = "cma_pairwise" // shmcoll_pairwise.go
			}
			if n == 2 && (op == coll.OpGatherv || op == coll.OpScatterv) {
				want = "cma_split" // shmcoll_split2.go, which passes small blocks to cma
			}
			if n > 2 && op == coll.OpScatterv {
				want = "push" // shmcoll_push.go, which passes calls with larger blocks to cma
			}
			if n > 2 && op == coll.OpGatherv {
				want = "push" // shmcoll_pushgv.go
			}
			if got := coll.Select(op, n, size); got != want {
				t.Errorf("%s of size %d on %d ranks: the table gives %q, want %s", op, size, n, got, want)
			}
		}
	}
	for _, p := range []struct{ n, size int }{{2, 4096}, {2, 16384}} {
		if got := coll.Select(coll.OpAlltoall, p.n, p.size); got != "cma_slots" {
			t.Errorf("alltoall of %d bytes on %d ranks: the table gives %q, want cma_slots", p.size, p.n, got)
		}
	}
	// On 3 to 8 ranks the pairs' 32 KiB slots (internal/shm/collslot_pairs.go)
	// take Alltoall's blocks of 4-32 KiB.
	for _, p := range []struct{ n, size int }{{3, 4096}, {4, 4096}, {5, 16384}, {8, 32768}} {
		if got := coll.Select(coll.OpAlltoall, p.n, p.size); got != "cma_pairwise" {
			t.Errorf("alltoall of %d bytes on %d ranks: the table gives %q, want cma_pairwise", p.size, p.n, got)
		}
	}
	for _, n := range []int{3, 4, 8} {
		if got := coll.Select(coll.OpAllgatherv, n, 256<<10); got != "cma_pairwise" {
			t.Errorf("allgatherv of 256 KiB on %d ranks: the table gives %q, want cma_pairwise", n, got)
		}
	}
	if got := coll.Select(coll.OpAllgatherv, 4, 16); got != "shm" {
		t.Errorf("allgatherv of 16 bytes: the table gives %q, want shm", got)
	}
}

// TestCMASlotsAlltoall: Alltoall through "cma_slots" against the
// reference, blocks within their slots and beyond, several calls.
func TestCMASlotsAlltoall(t *testing.T) {
	for _, n := range vRanks() {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				for k, m := range []int{0, 8, 1000, 4096, 20000, 40000} {
					if err := checkAlltoallSlots(c, k, m); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

func checkAlltoallSlots(c *gompi.Comm, k, m int) error {
	n, me := c.Size(), c.Rank()
	send, recv := make([]byte, n*m), make([]byte, n*m)
	for j := range n {
		for b := range m {
			send[j*m+b] = vByte(me, j, b+k)
		}
	}
	if err := c.Alltoall(send, recv, gompi.WithAlgorithm("cma_slots")); err != nil {
		return fmt.Errorf("alltoall of %d: %w", m, err)
	}
	for i := range n {
		for b := range m {
			if recv[i*m+b] != vByte(i, me, b+k) {
				return fmt.Errorf("alltoall of %d: rank %d's byte %d from rank %d is wrong", m, me, b, i)
			}
		}
	}
	return nil
}

// refuseFromRank0 makes rank 0's single-copy reads or writes refused (mode
// as SetCMARefuse) from the same call on every rank: a Barrier before and
// after rank 0 sets it.
func refuseFromRank0(c *gompi.Comm, mode int32) error {
	if err := c.Barrier(); err != nil {
		return err
	}
	if c.Rank() == 0 {
		gompi.SetCMARefuse(mode)
	}
	return c.Barrier()
}
