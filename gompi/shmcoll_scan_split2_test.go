//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
)

// Exscan on two ranks with both copying (shmcoll_scan_split2.go) against
// the reference: "chain" named on two ranks (in place and not, vectors whose halves fall
// on and off 4 KiB bounds, 1-, 4- and 12-byte elements, a non-commutative
// operator), through the default selection on 1..17 ranks around splitMin,
// copies the kernel refuses, and sizes that disagree.

// exscanSplitCheck runs one Exscan of m elements in call k (in place when
// inPlace) with opts and checks it: rank 1 gets rank 0's input, rank 0's
// receive buffer stays as it was; on more ranks the reference's prefix.
func exscanSplitCheck[T comparable](c *Comm, k, m int, inPlace bool, rc reductionCase[T], opts ...CollOption) error {
	me, n := c.Rank(), c.Size()
	input := func(r, i int) T { return rc.input(r+k, i+3*k) }
	src := make([]T, m)
	for i := range src {
		src[i] = input(me, i)
	}
	out := make([]T, m)
	for i := range out {
		out[i] = input(me+n, i) // something other than any rank's input
	}
	send := src
	if inPlace {
		copy(out, src)
		send = InPlace[T]()
	}
	before := slices.Clone(out)
	if err := Exscan(c, send, out, rc.op, opts...); err != nil {
		return fmt.Errorf("exscan call %d (in place %v), %d elements, rank %d of %d: %w", k, inPlace, m, me, n, err)
	}
	want := before
	if me > 0 {
		want = make([]T, m)
		for i := range want {
			acc := input(0, i)
			for r := 1; r < me; r++ {
				acc = rc.apply(acc, input(r, i))
			}
			want[i] = acc
		}
	}
	for i := range out {
		if out[i] != want[i] {
			return fmt.Errorf("exscan call %d (in place %v), %d elements, rank %d of %d: element %d is %v, want %v",
				k, inPlace, m, me, n, i, out[i], want[i])
		}
	}
	return nil
}

// TestSplitExscanNamed: "chain" named on two ranks, below and above
// exscanSplitMin.
func TestSplitExscanNamed(t *testing.T) {
	runCMATest(t, 2, func(c *Comm) error {
		split := WithAlgorithm("chain")
		for k, m := range []int{0, 1, 1000, 70 << 10, splitMin + 12345, 1 << 20} {
			for _, inPlace := range []bool{false, true} {
				if err := exscanSplitCheck(c, k, m, inPlace, bandUint8, split); err != nil {
					return err
				}
				if err := exscanSplitCheck(c, k, m/4+1, inPlace, sumInt32, split); err != nil {
					return err
				}
				if err := exscanSplitCheck(c, k, m/12+3, inPlace, composeCase, split); err != nil {
					return err
				}
			}
		}
		if st := c.cma.Load(); st != cmaOn && !refusedHere(t) {
			return fmt.Errorf("single copy not agreed on (state %d)", st)
		}
		return nil
	})
}

// TestSplitExscanSelected: the default selection on 1..17 ranks below,
// at and above exscanSplitMin (the split form on two ranks from there on).
func TestSplitExscanSelected(t *testing.T) {
	ranks := []int{1, 2, 3, 4, 5, 8, 9, 16, 17}
	if testing.Short() {
		ranks = []int{1, 2, 3, 17}
	}
	for _, n := range ranks {
		t.Run(fmt.Sprintf("%d-ranks", n), func(t *testing.T) {
			runCMATest(t, n, func(c *Comm) error {
				for k, m := range []int{100, splitMin/4 - 1, splitMin / 4, splitMin/4 + 1001, 1 << 18} {
					if n > 4 && m > 1000 {
						continue // keep many ranks' buffers small
					}
					if err := exscanSplitCheck(c, k, m, k%2 == 1, sumInt32); err != nil {
						return err
					}
					if err := exscanSplitCheck(c, k, m, k%2 == 0, composeCase); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// TestSplitExscanRefused: writes the kernel refuses after the ranks agreed
// are made up by rank 1's read (the result stays right); reads it refuses
// fail the call on rank 1 (as in the chain) without a hang, and later
// calls work.
func TestSplitExscanRefused(t *testing.T) {
	if refusedHere(t) {
		t.Skip("process_vm_readv refused here")
	}
	for _, what := range []string{"write", "read"} {
		t.Run(what, func(t *testing.T) {
			defer func(r, w func(int, []byte, uint64) error) { readRemote, writeRemote = r, w }(readRemote, writeRemote)
			realRead, realWrite := readRemote, writeRemote
			var refuse atomic.Bool
			refusing := func(int, []byte, uint64) error { return errors.New("refused for the test") }
			readRemote = func(pid int, b []byte, addr uint64) error {
				if refuse.Load() && what == "read" {
					return refusing(pid, b, addr)
				}
				return realRead(pid, b, addr)
			}
			writeRemote = func(pid int, b []byte, addr uint64) error {
				if refuse.Load() && what == "write" {
					return refusing(pid, b, addr)
				}
				return realWrite(pid, b, addr)
			}
			runCMATest(t, 2, func(c *Comm) error {
				m := (splitMin + 1000) / 4
				if err := exscanSplitCheck(c, 0, m, false, sumInt32); err != nil { // agree first
					return err
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				if c.Rank() == 0 {
					refuse.Store(true)
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				for k := 1; k < 5; k++ {
					err := exscanSplitCheck(c, k, m+k, k%2 == 0, sumInt32)
					switch {
					case what == "write" || c.Rank() == 0:
						if err != nil {
							return err
						}
					case err == nil:
						return fmt.Errorf("call %d on rank 1 with reads refused: no error", k)
					}
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				if c.Rank() == 0 {
					refuse.Store(false)
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				return exscanSplitCheck(c, 9, m, true, sumInt32)
			})
		})
	}
}

// TestSplitExscanMismatch: vectors of different lengths give ErrMismatch on
// both ranks, also where one rank's is below exscanSplitMin (it runs the
// chain by single copy);
// nobody hangs, and later calls work.
func TestSplitExscanMismatch(t *testing.T) {
	for _, extra := range []int{4096, -(splitMin / 2)} {
		t.Run(fmt.Sprint(extra), func(t *testing.T) {
			runCMATest(t, 2, func(c *Comm) error {
				m := splitMin + 1000
				if err := exscanSplitCheck(c, 0, m, false, bandUint8); err != nil { // agree first
					return err
				}
				if c.Rank() == 1 {
					m += extra
				}
				err := Exscan(c, make([]uint8, m), make([]uint8, m), BAnd[uint8]())
				if !errors.Is(err, ErrMismatch) {
					return fmt.Errorf("exscan with rank 1's size %+d: %v on rank %d, want ErrMismatch", extra, err, c.Rank())
				}
				return exscanSplitCheck(c, 3, splitMin+1000, true, bandUint8)
			})
		})
	}
}
