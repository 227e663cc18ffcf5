package coll_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/coll/sim"
)

// runRanks runs f on n simulated ranks with synchronous sends (the strictest
// transport: an algorithm that relies on buffering deadlocks) and a timeout,
// so that a hang fails the test instead of stalling it.
func runRanks(n int, f func(c coll.Comm) error) []error {
	return sim.New(n, sim.Options{Timeout: timeout}).Run(f)
}

// timeout bounds one simulated call in wall-clock time.
const timeout = 2 * time.Minute

// blk is the block of size bytes that rank from sends to rank to.
func blk(from, to, size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(from*37 + to*11 + i*7 + i>>8 + 1)
	}
	return b
}

// garbage is a buffer of size bytes the call is expected to overwrite.
func garbage(size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = 0xA5
	}
	return b
}

// gap is the filler between blocks of a scattered layout; it must survive.
const gap = 3

// kind is an element type and reduction operator to test with.
type kind struct {
	name  string
	op    coll.Op
	esize int
	// gen is rank's contribution of count elements.
	gen func(rank, count int) []byte
}

type mat [4]uint32 // a 2×2 matrix of integers mod 2^32, row-major

// matMul is the product over 2×2 matrices: associative, not commutative.
func matMul(in, inout []mat) {
	for i := range inout {
		a, b := in[i], inout[i]
		inout[i] = mat{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
	}
}

var kinds = []kind{
	{"int32_sum", coll.Sum[int32](), 4, func(r, n int) []byte {
		b := make([]byte, 4*n)
		for i := range n {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(r*7919+i*31)-1000))
		}
		return b
	}},
	{"float64_sum", coll.Sum[float64](), 8, func(r, n int) []byte { // small integers: exact in any order
		b := make([]byte, 8*n)
		for i := range n {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(float64((r*5+i*3)%17-8)))
		}
		return b
	}},
	{"uint8_bxor", coll.BXor[uint8](), 1, func(r, n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r*29 + i*13 + i>>8)
		}
		return b
	}},
	{"minloc_float64", coll.MinLoc[float64](), 16, func(r, n int) []byte { // few values: many ties
		b := make([]byte, 16*n)
		for i := range n {
			binary.LittleEndian.PutUint64(b[16*i:], math.Float64bits(float64((r*3+i)%4)))
			binary.LittleEndian.PutUint64(b[16*i+8:], uint64(r))
		}
		return b
	}},
	{"matrix_product", coll.NewOp("matmul", false, matMul), 16, func(r, n int) []byte {
		b := make([]byte, 16*n)
		for i := range n {
			for j := range 4 {
				binary.LittleEndian.PutUint32(b[16*i+4*j:], uint32((r*3+i*5+j*7)%9+1))
			}
		}
		return b
	}},
}

// prefixes are the serial reference: prefixes[r] = x₀∘x₁∘…∘x_r, each x_i the
// contribution of rank i (count elements of k).
func prefixes(k kind, n, count int) [][]byte {
	out := make([][]byte, n)
	acc := k.gen(0, count)
	out[0] = acc
	for r := 1; r < n; r++ {
		next := k.gen(r, count)
		k.op.Apply(acc, next) // next = acc ∘ x_r
		acc = next
		out[r] = acc
	}
	return out
}

// scattered lays out blocks of the given sizes in reverse rank order with
// gaps between them (filled with 0xEE) and returns the buffer and the
// displacements.
func scattered(counts []int) ([]byte, []int) {
	displs := make([]int, len(counts))
	pos := gap
	for i := len(counts) - 1; i >= 0; i-- {
		displs[i] = pos
		pos += counts[i] + gap
	}
	buf := make([]byte, pos)
	for i := range buf {
		buf[i] = 0xEE
	}
	return buf, displs
}

// packed lays out blocks one after the other in rank order.
func packed(counts []int) ([]byte, []int) {
	displs := make([]int, len(counts))
	pos := 0
	for i, c := range counts {
		displs[i] = pos
		pos += c
	}
	return make([]byte, pos), displs
}

// checkGaps verifies that the bytes of buf outside the blocks are untouched.
func checkGaps(buf []byte, counts, displs []int, packedLayout bool) error {
	if packedLayout {
		return nil
	}
	in := make([]bool, len(buf))
	for i := range counts {
		for j := displs[i]; j < displs[i]+counts[i]; j++ {
			in[j] = true
		}
	}
	for j, b := range buf {
		if !in[j] && b != 0xEE {
			return fmt.Errorf("byte %d outside every block was overwritten", j)
		}
	}
	return nil
}

func expectEqual(what string, got, want []byte) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d bytes, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("%s: byte %d of %d is %#x, want %#x", what, i, len(got), got[i], want[i])
		}
	}
	return nil
}

func firstErr(errs []error) error {
	for r, err := range errs {
		if err != nil {
			return fmt.Errorf("rank %d: %w", r, err)
		}
	}
	return nil
}

// builtins are the algorithms registered by the package itself, taken before
// any test registers more.
var builtins = func() []coll.Algorithm {
	var all []coll.Algorithm
	for _, op := range coll.Operations() {
		all = append(all, coll.Algorithms(op)...)
	}
	return all
}()

// eachAlgorithm runs test as a parallel subtest "op/name" for every built-in
// algorithm but the barriers, which move no data.
func eachAlgorithm(t *testing.T, test func(t *testing.T, alg coll.Algorithm)) {
	for _, alg := range builtins {
		if alg.Op == coll.OpBarrier {
			continue
		}
		t.Run(string(alg.Op)+"/"+alg.Name, func(t *testing.T) {
			t.Parallel()
			test(t, alg)
		})
	}
}

func builtinsOf(op coll.Operation) []coll.Algorithm {
	var out []coll.Algorithm
	for _, a := range builtins {
		if a.Op == op {
			out = append(out, a)
		}
	}
	return out
}
