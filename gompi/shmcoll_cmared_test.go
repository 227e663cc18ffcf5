//go:build !mpi && !mpich

package gompi

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/coll"
)

// affine is an element whose operator is not commutative: (A, B) is the map
// x → A·x + B, and in ∘ inout applies in first; C is a plain sum. 12 bytes,
// so that blocks are cut on boundaries that are not powers of two.
type affine struct{ A, B, C int32 }

var composeAffine = NewOp("compose", false, func(in, inout []affine) {
	for i := range inout {
		f, g := in[i], inout[i]
		inout[i] = affine{g.A * f.A, g.A*f.B + g.B, f.C + g.C}
	}
})

// composeRef is the reference's f ∘ g.
func composeRef(f, g affine) affine { return affine{g.A * f.A, g.A*f.B + g.B, f.C + g.C} }

// reductionCase is one operation checked against a reference computed
// from every rank's input in rank order.
type reductionCase[T any] struct {
	op    Op[T]
	apply func(a, b T) T // a ∘ b, a from the lower rank
	input func(rank, i int) T
}

// checkReductions runs Allreduce, Reduce (every root), Scan, Exscan,
// Reduce_scatter_block and Reduce_scatter (unequal counts), each also in
// place, with algorithm alg on n ranks and m elements, against the
// reference.
func checkReductions[T comparable](t *testing.T, n, m int, alg string, rc reductionCase[T]) {
	t.Helper()
	with := WithAlgorithm(alg)
	inputs := make([][]T, n)
	for r := range inputs {
		inputs[r] = make([]T, m)
		for i := range inputs[r] {
			inputs[r][i] = rc.input(r, i)
		}
	}
	prefix := func(hi, i int) T { // v₀[i] ∘ … ∘ v_{hi−1}[i]
		acc := inputs[0][i]
		for r := 1; r < hi; r++ {
			acc = rc.apply(acc, inputs[r][i])
		}
		return acc
	}
	all := make([]T, m)
	for i := range all {
		all[i] = prefix(n, i)
	}
	counts := make([]int, n) // unequal: rank r gets about 2r+1 shares
	shares := n * n
	for r := range counts {
		counts[r] = m * (2*r + 1) / shares
	}
	counts[n-1] += m - sum(counts)
	err := Run(n, func(c *Comm) error {
		me := c.Rank()
		in := func() []T { return slices.Clone(inputs[me]) }
		want := func(name string, got, want []T) error {
			if !slices.Equal(got, want) {
				i := 0
				for i < len(got) && got[i] == want[i] {
					i++
				}
				return fmt.Errorf("%s on rank %d of %d, %d elements: first difference at %d of %d", name, me, n, m, i, len(got))
			}
			return nil
		}
		for _, inPlace := range []bool{false, true} {
			tag := map[bool]string{false: "", true: " in place"}[inPlace]
			send := func(buf []T) []T {
				if inPlace {
					return InPlace[T]()
				}
				return buf
			}
			// Allreduce.
			out, src := make([]T, m), in()
			if inPlace {
				out = src
			}
			if err := Allreduce(c, send(src), out, rc.op, with); err != nil {
				return err
			}
			if err := want("Allreduce"+tag, out, all); err != nil {
				return err
			}
			// Reduce, at every root.
			for root := range n {
				src, out := in(), []T(nil)
				if me == root {
					out = make([]T, m)
					if inPlace {
						out = src
					}
				}
				s := src
				if me == root {
					s = send(src)
				}
				if err := Reduce(c, s, out, rc.op, root, with); err != nil {
					return err
				}
				if me == root {
					if err := want(fmt.Sprintf("Reduce to %d%s", root, tag), out, all); err != nil {
						return err
					}
				}
			}
			// Scan and Exscan.
			for _, inclusive := range []bool{true, false} {
				src, out := in(), make([]T, m)
				if inPlace {
					out = src
				}
				name, call, hi := "Scan", Scan[T], me+1
				if !inclusive {
					name, call, hi = "Exscan", Exscan[T], me
				}
				before := slices.Clone(out)
				if err := call(c, send(src), out, rc.op, with); err != nil {
					return err
				}
				exp := before // Exscan on rank 0 leaves recv as it was
				if hi > 0 {
					exp = make([]T, m)
					for i := range exp {
						exp[i] = prefix(hi, i)
					}
				}
				if err := want(name+tag, out, exp); err != nil {
					return err
				}
			}
			// Reduce_scatter_block, on the first n·⌊m/n⌋ elements.
			b := m / n
			src = in()[:n*b]
			out = make([]T, b)
			if inPlace {
				out = src
			}
			if err := ReduceScatterBlock(c, send(src), out, rc.op, with); err != nil {
				return err
			}
			if err := want("Reduce_scatter_block"+tag, out[:b], all[me*b:(me+1)*b]); err != nil {
				return err
			}
			// Reduce_scatter with unequal counts.
			lo := sum(counts[:me])
			src, out = in(), make([]T, counts[me])
			if inPlace {
				out = src
			}
			if err := ReduceScatter(c, send(src), out, counts, rc.op, with); err != nil {
				return err
			}
			if err := want("Reduce_scatter"+tag, out[:counts[me]], all[lo:lo+counts[me]]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

var (
	sumInt32 = reductionCase[int32]{op: Sum[int32](), apply: func(a, b int32) int32 { return a + b },
		input: func(r, i int) int32 { return int32(r*1000003 + i*7) }}
	maxFloat64 = reductionCase[float64]{op: Max[float64](), apply: func(a, b float64) float64 { return max(a, b) },
		input: func(r, i int) float64 { return float64((r*31+i*17)%101) - 50.5 }}
	bandUint8 = reductionCase[uint8]{op: BAnd[uint8](), apply: func(a, b uint8) uint8 { return a & b },
		input: func(r, i int) uint8 { return ^uint8(1 << ((r + i) % 8)) }}
	composeCase = reductionCase[affine]{op: composeAffine, apply: composeRef,
		input: func(r, i int) affine { return affine{int32(r + 2), int32(i%5 - r), int32(r * i)} }}
)

// TestCMAReductions: the single-copy reductions against the reference on
// 2..17 ranks (odd, even, powers of two and not), with predefined and
// non-commutative user operators, element sizes 1, 4, 8 and 12, vectors
// shorter than the rank count, not a multiple of it, and longer than a
// fold piece (redPiece), in place and not.
func TestCMAReductions(t *testing.T) {
	ranks := []int{2, 3, 4, 5, 7, 8, 9, 16, 17}
	if testing.Short() {
		ranks = []int{2, 3, 4, 7, 8, 17}
	}
	for _, n := range ranks {
		ms := []int{1, 13, 1000}
		if n >= 16 { // shorter than n, and a few elements per rank
			ms = []int{13, 40}
		}
		for _, m := range ms {
			t.Run(fmt.Sprintf("n=%d/m=%d", n, m), func(t *testing.T) {
				checkReductions(t, n, m, "cma", sumInt32)
				checkReductions(t, n, m, "cma", composeCase)
				checkReductions(t, n, m, "cma", maxFloat64)
				checkReductions(t, n, m, "cma", bandUint8)
			})
		}
	}
	// Larger than a fold piece: pieces, and blocks not a multiple of them.
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("n=%d/large", n), func(t *testing.T) {
			checkReductions(t, n, 3*redPiece/12+5, "cma", composeCase)
			checkReductions(t, n, 3*redPiece/4+3, "cma", sumInt32)
		})
	}
}

// TestCMAReductionsDefaultSelection: the default selection (which picks
// "cma" for large vectors) gives the reference's results on 1..5 ranks.
func TestCMAReductionsDefaultSelection(t *testing.T) {
	for n := 1; n <= 5; n++ {
		checkReductions(t, n, 64<<10/4+3, "", sumInt32)
	}
}

// TestCMAReductionsRefused: where the ranks cannot read each other's memory
// (GOMPI_SHM_CMA_COLL=0, or reads refused by the kernel), the calls that
// the default selection gives "cma" run another algorithm and still give
// the right results (a call that names "cma" gets an error from then on).
func TestCMAReductionsRefused(t *testing.T) {
	t.Run("turned off", func(t *testing.T) {
		t.Setenv("GOMPI_SHM_CMA_COLL", "0")
		checkReductions(t, 3, 70000, "", sumInt32)
		checkReductions(t, 4, 20000, "", composeCase)
	})
	t.Run("refused", func(t *testing.T) {
		defer func(f func(int, []byte, uint64) error) { readRemote = f }(readRemote)
		readRemote = func(int, []byte, uint64) error { return errors.New("refused for the test") }
		checkReductions(t, 3, 70000, "", sumInt32)
		checkReductions(t, 5, 20000, "", composeCase)
	})
}

// TestCMAReductionReadFails: a read that fails after the ranks agreed on
// single copy gives an error on every rank, not a hang or a wrong result.
func TestCMAReductionReadFails(t *testing.T) {
	defer func(f func(int, []byte, uint64) error) { readRemote = f }(readRemote)
	defer func(v int) { reduceGatherMax = v }(reduceGatherMax)
	reduceGatherMax = 0 // Reduce by blocks, which reads (cmaReduceGather only writes)
	real := readRemote
	var calls atomic.Int32
	readRemote = func(pid int, dst []byte, addr uint64) error {
		if len(dst) > 8 && calls.Add(1) == 3 { // not the agreement's probe
			return errors.New("failed for the test")
		}
		return real(pid, dst, addr)
	}
	for _, op := range []string{"allreduce", "reduce", "scan", "exscan", "reduce_scatter_block"} {
		calls.Store(0)
		var failed atomic.Int32
		err := Run(4, func(c *Comm) error {
			in, out := make([]int32, 4000), make([]int32, 4000)
			with := WithAlgorithm("cma")
			var err error
			switch op {
			case "allreduce":
				err = Allreduce(c, in, out, Sum[int32](), with)
			case "reduce":
				err = Reduce(c, in, out, Sum[int32](), 1, with)
			case "scan":
				err = Scan(c, in, out, Sum[int32](), with)
			case "exscan":
				err = Exscan(c, in, out, Sum[int32](), with)
			case "reduce_scatter_block":
				err = ReduceScatterBlock(c, in, out[:1000], Sum[int32](), with)
			}
			if err != nil {
				failed.Add(1)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if failed.Load() != 4 {
			t.Errorf("%s: %d of 4 ranks reported the failed read, want 4", op, failed.Load())
		}
	}
}

// TestCMAReductionsPreferred: the selection table tries "cma" from 16 KiB
// on three ranks or more and on two from 64 KiB (the reduce-scatters: 32
// KiB), right after "shm" (which runs where the call fits its scratch
// area), and leaves smaller calls to the algorithms they had.
func TestCMAReductionsPreferred(t *testing.T) {
	for _, s := range redAlgs {
		two := s.minBytes2
		if s.op == coll.OpReduceScatter || s.op == coll.OpReduceScatterBlock {
			if two != 32<<10 {
				t.Errorf("%s: cma from %d bytes on two ranks, want 32 KiB", s.op, two)
			}
		} else if two != 64<<10 {
			t.Errorf("%s: cma from %d bytes on two ranks, want 64 KiB", s.op, two)
		}
		for _, c := range []struct {
			n, bytes int
			cma      bool
		}{
			{2, 8, false}, {2, 16 << 10, false}, {2, two - 1, false}, {2, two, true}, {2, 1 << 20, true},
			{3, 16<<10 - 1, false}, {3, 16 << 10, true}, {8, 16 << 10, true}, {8, 8 << 20, true}, {8, 1 << 10, false},
		} {
			got := firstBeyondShm(s.op, c.n, c.bytes)
			if (got == "cma") != c.cma {
				t.Errorf("%s on %d ranks, %d bytes: selection tries %q first after shm", s.op, c.n, c.bytes, got)
			}
		}
	}
}

// firstBeyondShm returns the first algorithm other than "shm" (and Scan's
// "chain", shmcoll_scan.go) of the rules that selection matches for op on n
// ranks and bytes (a rule whose algorithms cannot run a call passes it on to
// the next rule that matches).
func firstBeyondShm(op coll.Operation, n, bytes int) string {
	for _, r := range coll.Table(op) {
		if !r.Matches(n, bytes) {
			continue
		}
		for _, name := range r.Use {
			if name != "shm" && name != "chain" {
				return name
			}
		}
	}
	return ""
}
