//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/internal/shm"
)

// checkScans runs Scan and Exscan with algorithm alg on n ranks and m
// elements, rounds times with inputs that change each round (so that a
// vector left in the scratch area by an earlier call would show), each in
// place and not, between other shared-memory collectives, against the
// reference.
func checkScans[T comparable](t *testing.T, n, m, rounds int, alg string, rc reductionCase[T]) {
	t.Helper()
	with := WithAlgorithm(alg)
	input := func(k, r, i int) T { return rc.input(r+k, i+3*k) }
	err := Run(n, func(c *Comm) error {
		me := c.Rank()
		for k := range rounds {
			for _, inPlace := range []bool{false, true} {
				for _, inclusive := range []bool{true, false} {
					src := make([]T, m)
					for i := range src {
						src[i] = input(k, me, i)
					}
					out := make([]T, m)
					send := src
					if inPlace {
						out, send = src, InPlace[T]()
					}
					before := slices.Clone(out)
					name, call, hi := "Scan", Scan[T], me+1
					if !inclusive {
						name, call, hi = "Exscan", Exscan[T], me
					}
					if err := call(c, send, out, rc.op, with); err != nil {
						return err
					}
					exp := before // Exscan on rank 0 leaves recv as it was
					if hi > 0 {
						exp = make([]T, m)
						for i := range exp {
							acc := input(k, 0, i)
							for r := 1; r < hi; r++ {
								acc = rc.apply(acc, input(k, r, i))
							}
							exp[i] = acc
						}
					}
					if !slices.Equal(out, exp) {
						return fmt.Errorf("%s (in place %v) round %d on rank %d of %d, %d elements: got %v, want %v",
							name, inPlace, k, me, n, m, out[:min(m, 4)], exp[:min(m, 4)])
					}
				}
			}
			// Something else through the same scratch halves.
			if k%3 == 1 {
				if err := c.Barrier(); err != nil {
					return err
				}
			}
			if k%3 == 2 {
				buf := make([]byte, 100)
				if err := c.Bcast(buf, k%n, WithAlgorithm("shm")); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestChainScan: "chain" against the reference on 1..17 ranks (odd, even,
// powers of two and not), predefined and non-commutative operators, element
// sizes 1, 4, 8 and 12, in place and not, many calls in a row.
func TestChainScan(t *testing.T) {
	ranks := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17}
	if testing.Short() {
		ranks = []int{1, 2, 3, 4, 8, 17}
	}
	for _, n := range ranks {
		for _, m := range []int{1, 13, 200} {
			t.Run(fmt.Sprintf("n=%d/m=%d", n, m), func(t *testing.T) {
				checkScans(t, n, m, 5, "chain", sumInt32)
				checkScans(t, n, m, 5, "chain", composeCase)
				checkScans(t, n, m, 3, "chain", maxFloat64)
				checkScans(t, n, m, 3, "chain", bandUint8)
			})
		}
	}
}

// TestChainScanOversubscribed: many calls with more ranks than Ps, so that
// ranks sleep on the flags and the scratch halves are reused while slow
// ranks still read.
func TestChainScanOversubscribed(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	checkScans(t, 6, 77, 200, "chain", composeCase)
}

// TestChainScanDefaultSelection: the default selection gives the
// reference's results where it picks "chain" and around its bounds.
func TestChainScanDefaultSelection(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 8} {
		for _, m := range []int{2, 1000, 64<<10/4 + 1} {
			checkScans(t, n, m, 2, "", sumInt32)
		}
	}
}

// TestChainScanMismatch: ranks that disagree on the size or the operation
// (Scan against Exscan) get ErrMismatch where they see it, and nobody hangs.
func TestChainScanMismatch(t *testing.T) {
	with := WithAlgorithm("chain")
	err := Run(4, func(c *Comm) error {
		m := 10
		if c.Rank() == 1 {
			m = 11
		}
		in, out := make([]int32, m), make([]int32, m)
		err := Scan(c, in, out, Sum[int32](), with)
		if c.Rank() >= 2 && !errors.Is(err, ErrMismatch) { // they read rank 1's vector
			return fmt.Errorf("rank %d: want ErrMismatch, got %v", c.Rank(), err)
		}
		var err2 error
		if c.Rank() == 0 {
			err2 = Exscan(c, in, out, Sum[int32](), with)
		} else {
			err2 = Scan(c, in[:10], out[:10], Sum[int32](), with)
		}
		if c.Rank() >= 1 && !errors.Is(err2, ErrMismatch) {
			return fmt.Errorf("Scan against Exscan, rank %d: want ErrMismatch, got %v", c.Rank(), err2)
		}
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestChainScanPeerLost: a rank that leaves instead of calling Scan makes
// the ranks that read its vector fail with ErrPeerLost, not hang.
func TestChainScanPeerLost(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, gone := range []int{0, 2} {
		err := Run(4, func(c *Comm) error {
			if c.Rank() == gone {
				return nil
			}
			in, out := make([]float64, 8), make([]float64, 8)
			err := Scan(c, in, out, Sum[float64](), WithAlgorithm("chain"))
			switch {
			case c.Rank() > gone && !errors.Is(err, ErrPeerLost):
				return fmt.Errorf("rank %d (rank %d gone): want ErrPeerLost, got %v", c.Rank(), gone, err)
			case c.Rank() < gone && err != nil:
				return fmt.Errorf("rank %d (rank %d gone): %v", c.Rank(), gone, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestChainPreferred: the selection table tries "chain" first for Scan and
// Exscan where chainPreferred says, and not elsewhere.
func TestChainPreferred(t *testing.T) {
	for _, op := range []coll.Operation{coll.OpScan, coll.OpExscan} {
		for _, c := range []struct {
			n, bytes int
			chain    bool
		}{
			{1, 8, false}, {1, 1 << 20, false}, {2, 16 << 10, true}, {2, 32 << 10, false},
			{2, 64<<10 - 1, false}, {2, 64 << 10, true}, {2, 1 << 20, true}, {4, 8, true}, {4, 32 << 10, true},
			{4, 1 << 20, true}, {8, 512, true}, {16, 8 << 20, true},
			// Two ranks: vectors on the lines run shm (minLine2).
			{2, 8, false}, {2, shm.PairLineData, false}, {2, shm.PairLineData + 1, true}, {2, 512, true}, {3, 8, true},
		} {
			// Exscan: every size on two ranks but those on the lines.
			want := c.chain || op == coll.OpExscan && c.n == 2 && c.bytes > shm.PairLineData
			if got := coll.Select(op, c.n, c.bytes) == "chain"; got != want || chainFirst(op, c.n, c.bytes) != want {
				t.Errorf("%s on %d ranks, %d bytes: chain first %v, want %v", op, c.n, c.bytes, got, want)
			}
		}
	}
}

// TestChainScanCMA: the chain by single copy (vectors larger than the
// scratch area) against the reference on 2..17 ranks, a vector of one
// chunk or less and of several chunks not a multiple of it, element sizes
// 1, 4, 8 and 12, a non-commutative operator, in place and not.
func TestChainScanCMA(t *testing.T) {
	if refused() {
		t.Skip("this kernel refuses single-copy reads")
	}
	ranks := []int{2, 3, 4, 5, 8, 9, 17}
	if testing.Short() {
		ranks = []int{2, 3, 8}
	}
	for _, n := range ranks {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			checkScans(t, n, 40<<10/4+3, 3, "chain", sumInt32)           // one chunk
			checkScans(t, n, 3*chainChunk/12+5, 3, "chain", composeCase) // pieces of 12-byte elements
			checkScans(t, n, 70<<10/8, 2, "chain", maxFloat64)
			checkScans(t, n, 100<<10+1, 2, "chain", bandUint8)
		})
	}
}

// TestChainScanCMARefused: where single copy is off or refused, the chain's
// large form runs another algorithm and the result stays right (a later
// call that names "chain" for a large vector gets an error).
func TestChainScanCMARefused(t *testing.T) {
	check := func(t *testing.T, n, m int) {
		err := Run(n, func(c *Comm) error {
			in, out := make([]int32, m), make([]int32, m)
			for i := range in {
				in[i] = int32(c.Rank()*7 + i)
			}
			if err := Scan(c, in, out, Sum[int32](), WithAlgorithm("chain")); err != nil {
				return err
			}
			for i := range out {
				want := int32(0)
				for r := 0; r <= c.Rank(); r++ {
					want += int32(r*7 + i)
				}
				if out[i] != want {
					return fmt.Errorf("rank %d: element %d is %d, want %d", c.Rank(), i, out[i], want)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Run("turned off", func(t *testing.T) {
		t.Setenv("GOMPI_SHM_CMA_COLL", "0")
		check(t, 3, 70000)
	})
	t.Run("refused", func(t *testing.T) {
		defer func(f func(int, []byte, uint64) error) { readRemote = f }(readRemote)
		readRemote = func(int, []byte, uint64) error { return errors.New("refused for the test") }
		check(t, 4, 20000)
	})
}

// TestChainScanCMAReadFails: a read that fails after the ranks agreed on
// single copy fails the rank that read and every rank after it, and
// nobody hangs; the ranks before it have their results.
func TestChainScanCMAReadFails(t *testing.T) {
	if refused() {
		t.Skip("this kernel refuses single-copy reads")
	}
	defer func(f func(int, []byte, uint64) error) { readRemote = f }(readRemote)
	defer func(on bool) { chainPushOn = on }(chainPushOn)
	chainPushOn = false // rank 0 would write its vector into rank 1 instead (TestChainPushFails)
	real := readRemote
	var lo, hi atomic.Uint64 // rank 0's vector: rank 1's reads of it fail
	readRemote = func(pid int, dst []byte, addr uint64) error {
		if addr >= lo.Load() && addr < hi.Load() {
			return errors.New("failed for the test")
		}
		return real(pid, dst, addr)
	}
	for _, inclusive := range []bool{true, false} {
		err := Run(4, func(c *Comm) error {
			in, out := make([]int32, 40000), make([]int32, 40000)
			with := WithAlgorithm("chain")
			if err := Scan(c, in, out, Sum[int32](), with); err != nil { // agree first
				return err
			}
			if c.Rank() == 0 {
				base := uint64(uintptr(unsafe.Pointer(&in[0])))
				lo.Store(base)
				hi.Store(base + 4*40000)
			}
			if err := c.Barrier(); err != nil {
				return err
			}
			call := Scan[int32]
			if !inclusive {
				call = Exscan[int32]
			}
			err := call(c, in, out, Sum[int32](), with)
			if c.Rank() >= 1 && err == nil {
				return fmt.Errorf("rank %d: no error after rank 1's read failed", c.Rank())
			}
			if c.Rank() < 1 && err != nil {
				return fmt.Errorf("rank %d: %v", c.Rank(), err)
			}
			runtime.KeepAlive(in)
			return c.Barrier()
		})
		lo.Store(0)
		hi.Store(0)
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestChainScanCMAPeerLost: a rank that leaves instead of calling makes the
// ranks around it fail with ErrPeerLost, not hang.
func TestChainScanCMAPeerLost(t *testing.T) {
	if refused() {
		t.Skip("this kernel refuses single-copy reads")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	err := Run(4, func(c *Comm) error {
		with := WithAlgorithm("chain")
		in, out := make([]float64, 20000), make([]float64, 20000)
		if err := Scan(c, in, out, Sum[float64](), with); err != nil { // agree first
			return err
		}
		if c.Rank() == 2 {
			return nil
		}
		err := Scan(c, in, out, Sum[float64](), with)
		if c.Rank() != 0 && !errors.Is(err, ErrPeerLost) { // rank 1 waits for rank 2 to read its buffer
			return fmt.Errorf("rank %d: want ErrPeerLost, got %v", c.Rank(), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestChainScanCMAApplyTo: the single-copy chain's folds into a third
// buffer (Exscan's published prefix, Scan's non-commutative form) on the
// rank counts TestChainScanCMA leaves out, with vectors of several batches
// whose length is not a multiple of the vector kernels' grain, a predefined
// operator with a vector fold and one without, and a non-commutative one.
func TestChainScanCMAApplyTo(t *testing.T) {
	if refused() {
		t.Skip("this kernel refuses single-copy reads")
	}
	ranks := []int{6, 7, 16}
	if testing.Short() {
		ranks = []int{7}
	}
	for _, n := range ranks {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			m := chainBatch*chainChunk/4 + chainChunk/4 + 7 // two batches and an odd tail
			checkScans(t, n, m, 2, "chain", sumInt32)
			checkScans(t, n, m/2+1, 2, "chain", maxFloat64)
			checkScans(t, n, m/3+1, 2, "chain", composeCase)
		})
	}
}

// TestScanNTCopy: Scan and Exscan whose writers copy their vectors into
// the scratch half with non-temporal stores (two ranks, from scanNTMin
// bytes: the chain and the two-rank shm form) against the reference, at
// lengths around the bound and up to what the half holds on two and
// three ranks (two vectors of 34000 bytes and their signatures),
// element sizes 1, 4 and 12 (tails that are not whole 64-byte lines), in
// place and not, many calls in a row so that both halves are written
// again; and on 1 and 3 ranks, which copy as before.
func TestScanNTCopy(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		for _, alg := range []string{"chain", "shm"} {
			for _, bytes := range []int{scanNTMin - 1, scanNTMin, scanNTMin + 61, 32 << 10, 34000} {
				t.Run(fmt.Sprintf("n=%d/%s/%d", n, alg, bytes), func(t *testing.T) {
					checkScans(t, n, bytes, 4, alg, bandUint8)
					checkScans(t, n, bytes/4, 4, alg, sumInt32)
					checkScans(t, n, bytes/12, 4, alg, composeCase)
				})
			}
		}
	}
}

// TestScanScratchCopy: scanScratchCopy copies like copy at every length
// and alignment, on two ranks (from scanNTMin: non-temporal, plain, or
// plain and timed, over more than two probes) and more.
func TestScanScratchCopy(t *testing.T) {
	src := make([]byte, scanNTMin+200)
	for i := range src {
		src[i] = byte(i*7 + 1)
	}
	defer scanCopy.plain.Store(scanCopy.plain.Load())
	for _, plain := range []bool{false, true} {
		for _, n := range []int{2, 4} {
			for _, size := range []int{1, 4095, scanNTMin - 1, scanNTMin, scanNTMin + 63} {
				for _, off := range []int{0, 1, 15, 16, 63} {
					for k := range 2*scanProbeEvery + 1 {
						scanCopy.plain.Store(plain)
						dst := make([]byte, size+off+64)
						scanScratchCopy(n, dst[off:off+size], src[3+k%5:3+k%5+size])
						if !slices.Equal(dst[off:off+size], src[3+k%5:3+k%5+size]) || slices.ContainsFunc(dst[:off], func(b byte) bool { return b != 0 }) ||
							slices.ContainsFunc(dst[off+size:], func(b byte) bool { return b != 0 }) {
							t.Fatalf("plain %v, n=%d size %d offset %d copy %d: copy differs or wrote outside dst", plain, n, size, off, k)
						}
					}
				}
			}
		}
	}
}
