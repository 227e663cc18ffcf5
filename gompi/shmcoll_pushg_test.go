//go:build !mpi && !mpich

package gompi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi"
)

// Gather, Gatherv and Reduce pushed into the contributors' own lines
// (shmcoll_pushg.go), "push", the table's choice on 3 or more ranks for
// Gather and Reduce up to 616 bytes (Gatherv's, forced here, sends its
// blocks over a line point to point): against the results computed here on 1..17 ranks,
// rotating roots, in place, sizes from 0 to a line's 616 bytes and beyond,
// back to back (a contributor rewrites its line once the last reader of it
// has acknowledged), mixed with Scatter's, Bcast's and Scatterv's push on
// the same lines and with other collectives, and on communicators that
// take a freed one's slot.

// firstNonZero is associative and not commutative: the result is the first
// rank's non-zero byte, so a fold out of rank order shows.
var firstNonZero = gompi.NewOp("first_nonzero", false, func(in, inout []byte) {
	for i, v := range in {
		if v != 0 {
			inout[i] = v
		}
	}
})

// pushGSize is the block (vector) size of call k: 0..616, some over a line.
func pushGSize(k int) int {
	return []int{8, 0, 64, 616, 1, 512, 617, 40, 4096, 100}[k%10]
}

// pushGData is rank r's block of call k; a third of the bytes are zero.
func pushGData(k, root, r, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		v := byte(k*5 + r*29 + i + root*3)
		if (i+r+k)%3 == 0 {
			v = 0
		}
		b[i] = v
	}
	return b
}

func checkPushGather(c *gompi.Comm, k, root int, inPlace bool, opts ...gompi.CollOption) error {
	n, me, size := c.Size(), c.Rank(), pushGSize(k)
	send := pushGData(k, root, me, size)
	var recv, want []byte
	if me == root {
		for r := range n {
			want = append(want, pushGData(k, root, r, size)...)
		}
		recv = make([]byte, n*size)
		if inPlace {
			copy(recv[me*size:], send)
			send = gompi.InPlace[byte]()
		}
	}
	if err := c.Gather(send, recv, root, opts...); err != nil {
		return fmt.Errorf("gather %d (%d B) to %d: %w", k, size, root, err)
	}
	if me == root && string(recv) != string(want) {
		return fmt.Errorf("gather %d (%d B) to %d on %d ranks: got %v, want %v", k, size, root, n, recv, want)
	}
	return nil
}

// checkPushGatherv: rank r sends pushGSize(k+r) bytes (placed as
// checkPushGvCounts places them).
func checkPushGatherv(c *gompi.Comm, k, root int, inPlace bool, opts ...gompi.CollOption) error {
	return checkPushGvCounts(c, k, root, inPlace, func(r int) int { return pushGSize(k + r) }, opts...)
}

func checkPushReduce(c *gompi.Comm, k, root int, inPlace bool, opts ...gompi.CollOption) error {
	n, me, size := c.Size(), c.Rank(), pushGSize(k)
	send := pushGData(k, root, me, size)
	var recv []byte
	want := make([]byte, size)
	nonZero := k%2 == 0
	for r := n - 1; r >= 0; r-- {
		d := pushGData(k, root, r, size)
		for i, v := range d {
			if nonZero {
				if v != 0 {
					want[i] = v
				}
			} else {
				want[i] += v
			}
		}
	}
	if me == root {
		recv = make([]byte, size)
		if inPlace {
			copy(recv, send)
			send = gompi.InPlace[byte]()
		}
	}
	var op gompi.AnyOp = gompi.Sum[uint8]()
	if nonZero {
		op = firstNonZero
	}
	if err := c.Reduce(send, recv, op, root, opts...); err != nil {
		return fmt.Errorf("reduce %d (%d B) to %d: %w", k, size, root, err)
	}
	if me == root && string(recv) != string(want) {
		return fmt.Errorf("reduce %d (%d B, first-non-zero %v) to %d on %d ranks: got %v, want %v", k, size, nonZero, root, n, recv, want)
	}
	return nil
}

// pushGRounds runs 60 rounds of Gather, Gatherv and Reduce from rotating
// roots, with a pushed Bcast and Scatter every other round and, from round
// 30 on, a Barrier or an Allreduce before each.
func pushGRounds(c *gompi.Comm, inPlace, forced bool) error {
	n := c.Size()
	for k := range 60 {
		root := (k*3 + 1) % n
		if err := stepsBetween(c, k); err != nil {
			return err
		}
		var opts, optsV []gompi.CollOption
		if forced {
			optsV = append(optsV, gompi.WithAlgorithm("push"))
			if pushGSize(k) <= 616 {
				opts = append(opts, gompi.WithAlgorithm("push"))
			}
		}
		if err := checkPushGather(c, k, root, inPlace, opts...); err != nil {
			return err
		}
		if err := checkPushGatherv(c, k, (root+1)%n, inPlace, optsV...); err != nil {
			return err
		}
		if err := checkPushReduce(c, k, (root+2)%n, inPlace, opts...); err != nil {
			return err
		}
		if k%2 == 1 {
			if err := checkPushBcast(c, k, root); err != nil {
				return err
			}
			if err := checkPushScatter(c, k, (root+1)%n, false); err != nil {
				return err
			}
		}
		if k%5 == 0 {
			if err := checkPushReduce(c, k+1, root, false); err != nil {
				return err
			}
			if err := checkPushGather(c, k+2, root, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// pushIfFits forces push for call k where its vector fits a line (Reduce's
// push is the table's choice only from 4 ranks).
func pushIfFits(k int) []gompi.CollOption {
	if pushGSize(k) <= 616 {
		return []gompi.CollOption{gompi.WithAlgorithm("push")}
	}
	return nil
}

func TestPushGatherReduceAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		for _, inPlace := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/inplace=%v", n, inPlace), func(t *testing.T) {
				run(t, n, func(c *gompi.Comm) error {
					if err := pushGRounds(c, inPlace, false); err != nil { // the table's choice
						return err
					}
					if n < 2 {
						return nil
					}
					return pushGRounds(c, inPlace, true) // forced: on 2 ranks too
				})
			})
		}
	}
}

// TestPushGatherReduceSlotReused: communicators made and freed one after
// the other take the same slot and find the lines as the old one left them.
func TestPushGatherReduceSlotReused(t *testing.T) {
	for _, n := range []int{3, 4, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				return dupCallsFree(c, func(d *gompi.Comm, k int) error {
					if err := checkPushGather(d, k, k%n, false); err != nil {
						return err
					}
					if err := checkPushReduce(d, k+1, (k+1)%n, false, pushIfFits(k+1)...); err != nil {
						return err
					}
					if err := checkPushGatherv(d, k+2, (k+2)%n, false, gompi.WithAlgorithm("push")); err != nil {
						return err
					}
					return checkPushScatter(d, k+3, (k+2)%n, false)
				})
			})
		})
	}
}

// TestPushGChosen: the table runs "push" up to 616 bytes for Gather on 3 or
// more ranks and for Reduce on 4 or more, not beyond and not on fewer.
func TestPushGChosen(t *testing.T) {
	for _, op := range []coll.Operation{coll.OpGather, coll.OpReduce} {
		from := 3
		if op == coll.OpReduce {
			from = gompi.PushReduceMinRanks
		}
		for _, n := range []int{2, 3, 4, 6, 7, 8, 17} {
			for _, size := range []int{0, 8, 616} {
				got := coll.Select(op, n, size)
				if want := n >= from; (got == "push") != want {
					t.Errorf("%s on %d ranks, %d B: the table gives %q, push wanted: %v", op, n, size, got, want)
				}
			}
			if got := coll.Select(op, n, 617); got == "push" {
				t.Errorf("%s on %d ranks, 617 B: the table gives push", op, n)
			}
		}
	}
	// Gatherv: TestPushGvChosen (shmcoll_pushgv_test.go).
}

// TestPushGatherThenEnd: contributors that leave a pushed Gather, Gatherv
// or Reduce and end at once must not make a late root fail with a peer
// gone: the end waits for the roots to have read their lines.
func TestPushGatherThenEnd(t *testing.T) {
	for _, n := range []int{3, 4} {
		for i, op := range []string{"gather", "gatherv", "reduce", "gather2"} {
			t.Run(fmt.Sprintf("n=%d/%s", n, op), func(t *testing.T) {
				run(t, n, func(c *gompi.Comm) error {
					root := i % n
					if c.Rank() == root {
						time.Sleep(30 * time.Millisecond) // the contributors end first
					}
					switch op {
					case "gather":
						return checkPushGather(c, 0, root, false)
					case "gatherv":
						return checkPushGatherv(c, 0, root, false, gompi.WithAlgorithm("push"))
					case "reduce": // forced: the table runs it from 4 ranks
						return checkPushReduce(c, 0, root, false, pushIfFits(0)...)
					}
					// Two calls of both parities, the first one's root late.
					if err := checkPushGather(c, 0, root, false); err != nil {
						return err
					}
					return checkPushReduce(c, 2, (root+1)%n, false, pushIfFits(2)...)
				})
			})
		}
	}
}
