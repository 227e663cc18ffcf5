//go:build !mpi && !mpich

package gompi_test

import (
	"fmt"
	"testing"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi"
)

// Scatter and Bcast pushed into the readers' own lines (shmcoll_pushb.go),
// "push", the table's choice on 3 or more ranks up to 616 bytes: against the
// blocks computed here on 1..17 ranks, rotating roots, Scatter in place,
// sizes from 0 to a line's 616 bytes and beyond it (the table's other
// forms), back to back (the root reuses a line once it is acknowledged),
// mixed with Scatterv's push on the same lines and with other collectives.

// pushBSize is the block size of call k: 0..616, some over a line.
func pushBSize(k int) int {
	return []int{8, 0, 64, 616, 1, 512, 617, 40, 4096, 100}[k%10]
}

func pushBData(k, root, r, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(k*5 + r*29 + i + root*3)
	}
	return b
}

// checkPushBcast runs one Bcast of call k from root and checks the buffer.
func checkPushBcast(c *gompi.Comm, k, root int, opts ...gompi.CollOption) error {
	size := pushBSize(k)
	want := pushBData(k, root, -1, size)
	buf := make([]byte, size)
	if c.Rank() == root {
		copy(buf, want)
	}
	if err := c.Bcast(buf, root, opts...); err != nil {
		return fmt.Errorf("bcast %d (%d B) from %d: %w", k, size, root, err)
	}
	if string(buf) != string(want) {
		return fmt.Errorf("bcast %d (%d B) from %d: rank %d got %v, want %v", k, size, root, c.Rank(), buf, want)
	}
	return nil
}

// checkPushScatter runs one Scatter of call k from root and checks the
// block that arrived.
func checkPushScatter(c *gompi.Comm, k, root int, inPlace bool, opts ...gompi.CollOption) error {
	n, me, size := c.Size(), c.Rank(), pushBSize(k)
	want := pushBData(k, root, me, size)
	recv := make([]byte, size)
	var send []byte
	if me == root {
		for r := range n {
			send = append(send, pushBData(k, root, r, size)...)
		}
		if inPlace {
			recv = gompi.InPlace[byte]()
		}
	}
	if err := c.Scatter(send, recv, root, opts...); err != nil {
		return fmt.Errorf("scatter %d (%d B) from %d: %w", k, size, root, err)
	}
	if me == root && inPlace {
		if string(send[me*size:(me+1)*size]) != string(want) {
			return fmt.Errorf("scatter %d in place: the root's block changed", k)
		}
		return nil
	}
	if string(recv) != string(want) {
		return fmt.Errorf("scatter %d (%d B) from %d: rank %d got %v, want %v", k, size, root, me, recv, want)
	}
	return nil
}

// stepsBetween runs, before round k from 30 on, a Barrier (even k) or an
// Allreduce (odd k): another algorithm's shared-memory steps between the
// pushed calls (pushBRounds, pushGRounds).
func stepsBetween(c *gompi.Comm, k int) error {
	if k < 30 {
		return nil
	}
	if k%2 == 0 {
		return c.Barrier()
	}
	return c.Allreduce([]byte{1, 2, 3, 4, 5, 6, 7, 8}, make([]byte, 8), gompi.Sum[int64]())
}

// pushBRounds runs 60 Bcasts and Scatters from rotating roots, with a
// pushed Scatterv every third call and, from call 30 on, a Barrier or an
// Allreduce before each.
func pushBRounds(c *gompi.Comm, inPlace, forced bool) error {
	n := c.Size()
	for k := range 60 {
		root := (k*3 + 1) % n
		if err := stepsBetween(c, k); err != nil {
			return err
		}
		var opts []gompi.CollOption
		if forced && pushBSize(k) <= 616 {
			opts = append(opts, gompi.WithAlgorithm("push"))
		}
		if err := checkPushBcast(c, k, root, opts...); err != nil {
			return err
		}
		if err := checkPushScatter(c, k, (root+1)%n, inPlace, opts...); err != nil {
			return err
		}
		if k%3 == 0 {
			if err := checkPushScatterv(c, k, root, false, false); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestPushBcastScatterAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		for _, inPlace := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/inplace=%v", n, inPlace), func(t *testing.T) {
				run(t, n, func(c *gompi.Comm) error {
					if err := pushBRounds(c, inPlace, false); err != nil { // the table's choice
						return err
					}
					if n < 2 {
						return nil
					}
					return pushBRounds(c, inPlace, true) // forced: on 2 ranks too, where the table does not choose it
				})
			})
		}
	}
}

// TestPushBcastScatterSlotReused: communicators made and freed one after the
// other take the same slot and find the lines as the old one left them.
func TestPushBcastScatterSlotReused(t *testing.T) {
	for _, n := range []int{3, 4, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				return dupCallsFree(c, func(d *gompi.Comm, k int) error {
					if err := checkPushBcast(d, k, k%n); err != nil {
						return err
					}
					return checkPushScatter(d, k+1, (k+2)%n, false)
				})
			})
		})
	}
}

// TestPushBChosen: the table runs "push" for Scatter and Bcast on 3 or more
// ranks up to 616 bytes, not beyond and not on 2 ranks.
func TestPushBChosen(t *testing.T) {
	for _, op := range []coll.Operation{coll.OpScatter, coll.OpBcast} {
		for _, n := range []int{3, 4, 8, 17} {
			for _, size := range []int{0, 8, 616} {
				if got := coll.Select(op, n, size); got != "push" {
					t.Errorf("%s on %d ranks, %d B: the table gives %q, want push", op, n, size, got)
				}
			}
			if got := coll.Select(op, n, 617); got == "push" {
				t.Errorf("%s on %d ranks, 617 B: the table gives push", op, n)
			}
		}
		if got := coll.Select(op, 2, 8); got == "push" {
			t.Errorf("%s on 2 ranks: the table gives push", op)
		}
	}
}
