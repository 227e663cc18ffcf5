//go:build !mpi && !mpich

package gompi_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi"
)

// Scatterv pushed into the readers' own lines (shmcoll_push.go), "push", the
// table's choice on 3 or more ranks: against the blocks computed here on
// 1..17 ranks, every root, in place, zero counts, blocks up to a line's 616
// bytes and beyond (the call then goes through the slotted form), many
// calls in a row with no step between them (the root reuses a line once it
// is acknowledged) and between other collectives, communicators made and
// freed (a new owner of the slot finds the old owner's lines), and counts
// that disagree.

// pushCount is the bytes rank src's Scatterv sends rank dst in round k:
// 0..104, some blocks of 616 (a line's whole room), and with big one block
// of 617 in some rounds.
func pushCount(k, src, dst int, big bool) int {
	c := (src*13 + dst*7 + k*5) % 14 * 8 // 0..104
	if (src+dst+k)%5 == 1 {
		c = 616
	}
	if big && (src+dst+k)%4 == 0 {
		c = 617
	}
	return c
}

// checkPushScatterv runs one Scatterv from root with the counts of round k
// and checks the block that arrived.
func checkPushScatterv(c *gompi.Comm, k, root int, big, inPlace bool, opts ...gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	block := func(r int) []byte {
		b := make([]byte, pushCount(k, root, r, big))
		for i := range b {
			b[i] = byte(k*7 + r*31 + i + root)
		}
		return b
	}
	want := block(me)
	recv := make([]byte, len(want))
	var send []byte
	var counts, displs []int
	if me == root {
		var size int
		counts, displs, size = rootLayout(n, func(r int) int { return pushCount(k, root, r, big) })
		send = make([]byte, size)
		for r := range n {
			copy(send[displs[r]:], block(r))
		}
		if inPlace {
			recv = gompi.InPlace[byte]()
		}
	}
	if err := c.Scatterv(send, counts, displs, recv, root, opts...); err != nil {
		return fmt.Errorf("scatterv %d from %d: %w", k, root, err)
	}
	if me == root && inPlace {
		return nil
	}
	if string(recv) != string(want) {
		return fmt.Errorf("scatterv %d from %d: rank %d got %v, want %v", k, root, me, recv, want)
	}
	return nil
}

// pushRounds runs 40 Scattervs from rotating roots: the first 20 back to
// back, the others after a Barrier, a Bcast or an Allreduce each.
func pushRounds(c *gompi.Comm, big, inPlace bool, opts ...gompi.CollOption) error {
	n := c.Size()
	for k := range 40 {
		if k >= 20 {
			var err error
			switch k % 3 {
			case 0:
				err = c.Barrier()
			case 1:
				err = c.Bcast(make([]byte, 16), k%n)
			case 2:
				err = c.Allreduce([]byte{1, 2, 3, 4, 5, 6, 7, 8}, make([]byte, 8), gompi.Sum[int64]())
			}
			if err != nil {
				return err
			}
		}
		if err := checkPushScatterv(c, k, (k*3+1)%n, big, inPlace, opts...); err != nil {
			return err
		}
	}
	return nil
}

func TestPushScattervAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		for _, big := range []bool{false, true} {
			for _, inPlace := range []bool{false, true} {
				t.Run(fmt.Sprintf("n=%d/big=%v/inplace=%v", n, big, inPlace), func(t *testing.T) {
					run(t, n, func(c *gompi.Comm) error {
						if err := pushRounds(c, big, inPlace); err != nil { // the table's choice
							return err
						}
						if n < 3 {
							return nil
						}
						return pushRounds(c, big, inPlace, gompi.WithAlgorithm("push"))
					})
				})
			}
		}
	}
}

// dupCallsFree makes and frees four communicators one after the other, each
// a Dup of c that runs call for k = 0..4+i (odd and even counts of calls:
// both parities of the lines left written for the next one).
func dupCallsFree(c *gompi.Comm, call func(d *gompi.Comm, k int) error) error {
	for i := range 4 {
		d, err := c.Dup()
		if err != nil {
			return err
		}
		for k := range 5 + i {
			if err := call(d, k); err != nil {
				return fmt.Errorf("communicator %d: %w", i, err)
			}
		}
		if err := d.Free(); err != nil {
			return err
		}
	}
	return nil
}

// TestPushScattervSlotReused: communicators made and freed one after the
// other take the same slot; each new one's calls find the lines as the old
// one left them and must not take them for their own.
func TestPushScattervSlotReused(t *testing.T) {
	for _, n := range []int{3, 4, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				if err := dupCallsFree(c, func(d *gompi.Comm, k int) error {
					return checkPushScatterv(d, k, k%n, false, false)
				}); err != nil {
					return err
				}
				// Two communicators at once, calls interleaved.
				a, err := c.Dup()
				if err != nil {
					return err
				}
				b, err := c.Split(c.Rank()%2, c.Rank())
				if err != nil {
					return err
				}
				for k := range 10 {
					if err := checkPushScatterv(a, k, k%n, k%3 == 0, false); err != nil {
						return err
					}
					if err := checkPushScatterv(b, k, k%b.Size(), false, k%2 == 0); err != nil {
						return err
					}
				}
				if err := b.Free(); err != nil {
					return err
				}
				return a.Free()
			})
		})
	}
}

// TestPushScattervMismatch: a count that disagrees with the reader's, within
// a line and beyond it, gives the reader ErrMismatch; nobody hangs and the
// calls after it work.
func TestPushScattervMismatch(t *testing.T) {
	for _, extra := range []int{8, 1000} {
		t.Run(fmt.Sprintf("extra=%d", extra), func(t *testing.T) {
			run(t, 4, func(c *gompi.Comm) error {
				me := c.Rank()
				for range 3 {
					// The root (2) sends rank 0 more than it expects.
					scounts := []int{8 + extra, 8, 8, 8}
					sdispls := []int{0, 8 + extra, 16 + extra, 24 + extra}
					err := c.Scatterv(make([]byte, 32+extra), scounts, sdispls, make([]byte, 8), 2)
					if me == 0 {
						if !errors.Is(err, gompi.ErrMismatch) {
							return fmt.Errorf("scatterv at rank 0: want ErrMismatch, got %v", err)
						}
					} else if err != nil {
						return fmt.Errorf("scatterv: %w", err)
					}
				}
				return pushRounds(c, true, false)
			})
		})
	}
}

// TestPushChosen: the table runs "push" for Scatterv on 3 or more ranks.
func TestPushChosen(t *testing.T) {
	for _, n := range []int{3, 4, 8, 17} {
		if got := coll.Select(coll.OpScatterv, n, 0); got != "push" {
			t.Errorf("scatterv on %d ranks: the table gives %q, want push", n, got)
		}
	}
	if got := coll.Select(coll.OpScatterv, 2, 0); got == "push" {
		t.Errorf("scatterv on 2 ranks: the table gives push")
	}
}
