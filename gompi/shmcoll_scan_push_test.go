//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestChainPush: the single-copy chain with the push (rank r writes its
// prefix into rank r+1's receive buffer) and without, against the
// reference on odd, even, power-of-two and other rank counts, in place
// (no push) and not, Scan (commutative: pushed; non-commutative: read)
// and Exscan, vectors of one batch and of several; the writes are counted
// to show the push ran (one rank has no chain, hence 2..17).
func TestChainPush(t *testing.T) {
	if refused() {
		t.Skip("this kernel refuses single-copy reads")
	}
	var writes atomic.Int64
	defer func(f func(int, []byte, uint64) error) { writeRemote = f }(writeRemote)
	real := writeRemote
	writeRemote = func(pid int, src []byte, addr uint64) error {
		writes.Add(1)
		return real(pid, src, addr)
	}
	ranks := []int{2, 3, 4, 7, 8, 16, 17}
	if testing.Short() {
		ranks = []int{2, 5}
	}
	for _, on := range []bool{true, false} {
		for _, n := range ranks {
			t.Run(fmt.Sprintf("push=%v/n=%d", on, n), func(t *testing.T) {
				defer func(v bool) { chainPushOn = v }(chainPushOn)
				chainPushOn = on
				writes.Store(0)
				checkScans(t, n, 40<<10/4+3, 2, "chain", sumInt32)
				checkScans(t, n, chainBatch*chainChunk/4+chainChunk/4+7, 2, "chain", sumInt32)
				checkScans(t, n, 70<<10/8, 2, "chain", maxFloat64)
				checkScans(t, n, 3*chainChunk/12+5, 2, "chain", composeCase)
				// (two ranks run their own split form, which writes too)
				if got := writes.Load(); on && got == 0 {
					t.Errorf("no prefix was pushed")
				} else if !on && n > 2 && got != 0 {
					t.Errorf("%d writes with the push off", got)
				}
			})
		}
	}
}

// TestChainPushFails: a write the kernel refuses leaves the transfer to the
// reader, and every rank's result is right.
func TestChainPushFails(t *testing.T) {
	if refused() {
		t.Skip("this kernel refuses single-copy reads")
	}
	defer func(f func(int, []byte, uint64) error) { writeRemote = f }(writeRemote)
	var writes atomic.Int64
	writeRemote = func(int, []byte, uint64) error {
		writes.Add(1)
		return errors.New("refused for the test")
	}
	for _, n := range []int{2, 4, 9} {
		checkScans(t, n, 40<<10/4+3, 2, "chain", sumInt32)
		checkScans(t, n, 3*chainChunk/12+5, 2, "chain", composeCase)
	}
	if writes.Load() == 0 {
		t.Errorf("no write was tried")
	}
}
