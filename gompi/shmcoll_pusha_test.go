//go:build !mpi && !mpich

package gompi_test

import (
	"fmt"
	"testing"

	"github.com/gompi/gompi/gompi"
)

// Alltoall and Allgather pushed into the readers' own lines
// (shmcoll_pusha.go), forced with WithAlgorithm("push") where a reader's
// blocks fit a line: against the blocks computed here on 1..17 ranks, in
// place and not, back to back (a writer reuses a line once its reader has
// acknowledged), mixed with the pushed Scatter, Gather and Bcast on the same
// lines and masks, and with shared-memory steps between.

// pushABlock is the block size of call k on n ranks: up to what fits a
// line (616/n), sometimes 0, sometimes beyond (the table's forms).
func pushABlock(k, n int) int {
	fit := 616 / n
	return []int{8, 0, fit, 1, fit + 1, 3, 64}[k%7]
}

func pushAData(k, src, dst, m int) []byte {
	b := make([]byte, m)
	for i := range b {
		b[i] = byte(k*7 + src*31 + dst*13 + i)
	}
	return b
}

// pushAGatherOpts forces the pushed Gather where it fits and runs (2 or
// more ranks).
func pushAGatherOpts(k, n int) []gompi.CollOption {
	if n < 2 {
		return nil
	}
	return pushIfFits(k)
}

func pushAOpts(k, n int) []gompi.CollOption {
	if n*pushABlock(k, n) <= 616 && n >= 2 {
		return []gompi.CollOption{gompi.WithAlgorithm("push")}
	}
	return nil
}

// checkPushAlltoall runs one Alltoall of call k and checks every block.
func checkPushAlltoall(c *gompi.Comm, k int, inPlace bool, opts ...gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	m := pushABlock(k, n)
	var send, want []byte
	for r := range n {
		send = append(send, pushAData(k, me, r, m)...)
		want = append(want, pushAData(k, r, me, m)...)
	}
	recv := make([]byte, n*m)
	if inPlace {
		copy(recv, send)
		send = gompi.InPlace[byte]()
	}
	if err := c.Alltoall(send, recv, opts...); err != nil {
		return fmt.Errorf("alltoall %d (%d B blocks): %w", k, m, err)
	}
	if string(recv) != string(want) {
		return fmt.Errorf("alltoall %d (%d B blocks): rank %d got %v, want %v", k, m, me, recv, want)
	}
	return nil
}

// checkPushAllgather runs one Allgather of call k and checks every block.
func checkPushAllgather(c *gompi.Comm, k int, inPlace bool, opts ...gompi.CollOption) error {
	n, me := c.Size(), c.Rank()
	m := pushABlock(k+3, n)
	var want []byte
	for r := range n {
		want = append(want, pushAData(k, r, -1, m)...)
	}
	send := pushAData(k, me, -1, m)
	recv := make([]byte, n*m)
	if inPlace {
		copy(recv[me*m:], send)
		send = gompi.InPlace[byte]()
	}
	if err := c.Allgather(send, recv, opts...); err != nil {
		return fmt.Errorf("allgather %d (%d B blocks): %w", k, m, err)
	}
	if string(recv) != string(want) {
		return fmt.Errorf("allgather %d (%d B blocks): rank %d got %v, want %v", k, m, me, recv, want)
	}
	return nil
}

// pushARounds runs 60 rounds of Alltoall and Allgather, with a pushed
// Scatter, Gather or Bcast between them (each parity of the lines sees
// every order of the forms) and, from round 30 on, a step before each.
func pushARounds(c *gompi.Comm, inPlace bool) error {
	n := c.Size()
	for k := range 60 {
		if err := stepsBetween(c, k); err != nil {
			return err
		}
		if err := checkPushAlltoall(c, k, inPlace, pushAOpts(k, n)...); err != nil {
			return err
		}
		root := (k*5 + 2) % n
		switch k % 4 {
		case 1:
			if err := checkPushGather(c, k, root, inPlace, pushAGatherOpts(k, n)...); err != nil {
				return err
			}
		case 2:
			if err := checkPushScatter(c, k, root, false); err != nil {
				return err
			}
		case 3:
			if err := checkPushBcast(c, k, root); err != nil {
				return err
			}
		}
		if err := checkPushAllgather(c, k, inPlace, pushAOpts(k+3, n)...); err != nil {
			return err
		}
		if k%5 == 0 {
			if err := checkPushGather(c, k+1, (root+1)%n, false, pushAGatherOpts(k+1, n)...); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestPushAlltoallAllgatherAgainstReference(t *testing.T) {
	for _, n := range vRanks() {
		for _, inPlace := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/inplace=%v", n, inPlace), func(t *testing.T) {
				run(t, n, func(c *gompi.Comm) error {
					return pushARounds(c, inPlace)
				})
			})
		}
	}
}

// TestPushAlltoallAllgatherSlotReused: communicators made and freed one
// after the other take the same slot and find the lines and masks as the
// old one left them.
func TestPushAlltoallAllgatherSlotReused(t *testing.T) {
	for _, n := range []int{3, 4, 8} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			run(t, n, func(c *gompi.Comm) error {
				return dupCallsFree(c, func(d *gompi.Comm, k int) error {
					if err := checkPushAlltoall(d, k, false, pushAOpts(k, n)...); err != nil {
						return err
					}
					if err := checkPushGather(d, k, k%n, false, pushAGatherOpts(k, n)...); err != nil {
						return err
					}
					return checkPushAllgather(d, k+1, k%2 == 0, pushAOpts(k+4, n)...)
				})
			})
		})
	}
}
