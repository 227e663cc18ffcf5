//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi"
)

// Gatherv's push with blocks over a line written straight into the root's
// buffer (shmcoll_pushgv.go): against the results computed here on 1..17
// ranks, with counts that mix blocks in the line (0..616 bytes), blocks
// copied once (617 bytes up to 1 MiB) and, where single copy is off or
// refused, blocks sent point to point, in one call; rotating roots, in
// place at the root, all counts zero, slots reused by Dup and Free, and
// contributors that end before a late root.

// pushGvCount is rank r's count in call k: every kind of block, mixed.
func pushGvCount(k, r int) int {
	return []int{8, 0, 70000, 616, 617, 1, 4096, 40, 33000, 0, 262144}[(k+3*r)%11]
}

// checkPushGvCounts runs one Gatherv to root with count(r) bytes from rank
// r, placed in reverse rank order with a gap of 5 bytes before each, and
// compares the root's buffer, gaps included, with the reference.
func checkPushGvCounts(c *gompi.Comm, k, root int, inPlace bool, count func(r int) int, opts ...gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	counts, displs := make([]int, n), make([]int, n)
	total := 0
	for r := n - 1; r >= 0; r-- {
		counts[r] = count(r)
		displs[r] = total + 5
		total += 5 + counts[r]
	}
	send := pushGData(k, root, me, counts[me])
	var recv, want []byte
	if me == root {
		recv, want = make([]byte, total), make([]byte, total)
		for i := range recv {
			recv[i], want[i] = 0xee, 0xee // the gaps stay as they are
		}
		for r := range n {
			copy(want[displs[r]:], pushGData(k, root, r, counts[r]))
		}
		if inPlace {
			copy(recv[displs[me]:], send)
			send = gompi.InPlace[byte]()
		}
	}
	if err := c.Gatherv(send, recv, counts, displs, root, opts...); err != nil {
		return fmt.Errorf("gatherv %d to %d: %w", k, root, err)
	}
	if me == root && string(recv) != string(want) {
		return fmt.Errorf("gatherv %d to %d on %d ranks (counts %v): wrong result", k, root, n, counts)
	}
	return nil
}

// pushGvRounds runs 24 Gathervs of mixed counts from rotating roots, with
// a pushed Gather or Scatter between some (the same lines) and, from round
// 12 on, a Barrier or an Allreduce before each.
func pushGvRounds(c *gompi.Comm, inPlace bool, opts ...gompi.CollOption) error {
	n := c.Size()
	for k := range 24 {
		root := (k*5 + 2) % n
		if err := stepsBetween(c, k+18); err != nil {
			return err
		}
		if err := checkPushGvCounts(c, k, root, inPlace, func(r int) int { return pushGvCount(k, r) }, opts...); err != nil {
			return err
		}
		switch k % 3 {
		case 1:
			if err := checkPushGather(c, k, (root+1)%n, false); err != nil {
				return err
			}
		case 2:
			if err := checkPushScatter(c, k, (root+1)%n, false); err != nil {
				return err
			}
		}
	}
	// All counts zero, then one large block among zeros, then the root's
	// own block the only large one.
	for i, count := range []func(r int) int{
		func(int) int { return 0 },
		func(r int) int { return map[bool]int{true: 5000}[r == n-1] },
		func(r int) int { return map[bool]int{true: 100000}[r == 0] },
	} {
		if err := checkPushGvCounts(c, 100+i, 0, inPlace, count, opts...); err != nil {
			return err
		}
	}
	return nil
}

func TestPushGathervMixedAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		for _, inPlace := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/inplace=%v", n, inPlace), func(t *testing.T) {
				run(t, n, func(c *gompi.Comm) error {
					if err := pushGvRounds(c, inPlace); err != nil { // the table's choice
						return err
					}
					if n < 2 {
						return nil
					}
					return pushGvRounds(c, inPlace, gompi.WithAlgorithm("push")) // forced: on 2 ranks too
				})
			})
		}
	}
}

// TestPushGathervOneMiB: blocks of 1 MiB beside small ones.
func TestPushGathervOneMiB(t *testing.T) {
	for _, n := range []int{3, 4, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				for k := range 4 {
					count := func(r int) int { return []int{1 << 20, 8, 616, 617}[(r+k)%4] }
					if err := checkPushGvCounts(c, k, k%n, k%2 == 1, count, gompi.WithAlgorithm("push")); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// TestPushGathervWithoutSingleCopy: with single copy off in the
// environment the large blocks go point to point.
func TestPushGathervWithoutSingleCopy(t *testing.T) {
	t.Setenv("GOMPI_SHM_CMA_COLL", "0")
	for _, n := range []int{3, 5, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error { return pushGvRounds(c, false, gompi.WithAlgorithm("push")) })
		})
	}
}

// TestPushGathervRefused: writes refused (always, every other one, the
// first only) send those blocks point to point, in the same call, and the
// contributor sends its later ones so too.
func TestPushGathervRefused(t *testing.T) {
	for _, mode := range []int32{1, 2, 3} {
		for _, n := range []int{3, 4, 8} {
			t.Run(fmt.Sprintf("mode-%d/%d-ranks", mode, n), func(t *testing.T) {
				defer gompi.SetCMARefuse(0)
				run(t, n, func(c *gompi.Comm) error {
					if err := refuseFromRank0(c, mode); err != nil {
						return err
					}
					return pushGvRounds(c, false, gompi.WithAlgorithm("push"))
				})
			})
		}
	}
}

// TestPushGathervMismatch: a large block whose count the root does not
// expect gives ErrMismatch at the root, nothing is written outside the
// root's ranges, nobody hangs, and the calls after it work.
func TestPushGathervMismatch(t *testing.T) {
	for _, cma := range []string{"1", "0"} {
		t.Run("cma="+cma, func(t *testing.T) {
			t.Setenv("GOMPI_SHM_CMA_COLL", cma)
			run(t, 4, func(c *gompi.Comm) error {
				n, me := c.Size(), c.Rank()
				counts, displs := []int{5000, 5000, 5000, 5000}, []int{0, 5000, 10000, 15000}
				send := make([]byte, 5000)
				if me == 2 {
					send = make([]byte, 6000) // the root expects 5000
				}
				var recv []byte
				if me == 0 {
					recv = make([]byte, 20000)
				}
				err := c.Gatherv(send, recv, counts, displs, 0, gompi.WithAlgorithm("push"))
				if me == 0 && !errors.Is(err, gompi.ErrMismatch) {
					return fmt.Errorf("root: want ErrMismatch, got %v", err)
				}
				if me != 0 && err != nil {
					return fmt.Errorf("rank %d: %w", me, err)
				}
				for k := range 4 {
					if err := checkPushGvCounts(c, k, (k+1)%n, false, func(r int) int { return pushGvCount(k, r) }, gompi.WithAlgorithm("push")); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// TestPushGathervSlotReused: communicators made and freed one after the
// other take the same slot and find the lines, the roots' tables among
// them, as the old one left them.
func TestPushGathervSlotReused(t *testing.T) {
	for _, n := range []int{3, 4, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				return dupCallsFree(c, func(d *gompi.Comm, k int) error {
					if err := checkPushGvCounts(d, k, k%n, false, func(r int) int { return pushGvCount(k, r) }, gompi.WithAlgorithm("push")); err != nil {
						return err
					}
					return checkPushGather(d, k+1, (k+1)%n, false)
				})
			})
		})
	}
}

// TestPushGathervThenEnd: contributors of small blocks leave and end at
// once, one of a large block writes it and ends; the late root must not
// find a peer gone.
func TestPushGathervThenEnd(t *testing.T) {
	for _, n := range []int{3, 4, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				root := n - 1
				if c.Rank() == root {
					time.Sleep(30 * time.Millisecond) // the contributors end first
				}
				count := func(r int) int { return []int{8, 70000, 616}[r%3] }
				return checkPushGvCounts(c, 0, root, false, count, gompi.WithAlgorithm("push"))
			})
		})
	}
}

// TestPushGvChosen: the table runs "push" for Gatherv on 3 to 8 ranks.
func TestPushGvChosen(t *testing.T) {
	for _, n := range []int{2, 3, 4, 8, 9, 17} {
		got := coll.Select(coll.OpGatherv, n, 0)
		if want := n >= 3 && n <= gompi.PushGvTableMaxRanks; (got == "push") != want {
			t.Errorf("gatherv on %d ranks: the table gives %q, push wanted: %v", n, got, want)
		}
	}
}
