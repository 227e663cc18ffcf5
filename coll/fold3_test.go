package coll

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// allBuiltins is every predefined operator over every element type it takes.
func allBuiltins() []Op {
	var ops []Op
	add := func(o ...Op) { ops = append(ops, o...) }
	real := func(sum, prod, mn, mx, land, lor, lxor, minloc, maxloc Op) {
		add(sum, prod, mn, mx, land, lor, lxor, minloc, maxloc)
	}
	integer := func(and, or, xor Op) { add(and, or, xor) }
	real(Sum[float32](), Prod[float32](), Min[float32](), Max[float32](), LAnd[float32](), LOr[float32](), LXor[float32](), MinLoc[float32](), MaxLoc[float32]())
	real(Sum[float64](), Prod[float64](), Min[float64](), Max[float64](), LAnd[float64](), LOr[float64](), LXor[float64](), MinLoc[float64](), MaxLoc[float64]())
	real(Sum[int8](), Prod[int8](), Min[int8](), Max[int8](), LAnd[int8](), LOr[int8](), LXor[int8](), MinLoc[int8](), MaxLoc[int8]())
	real(Sum[uint8](), Prod[uint8](), Min[uint8](), Max[uint8](), LAnd[uint8](), LOr[uint8](), LXor[uint8](), MinLoc[uint8](), MaxLoc[uint8]())
	real(Sum[int16](), Prod[int16](), Min[int16](), Max[int16](), LAnd[int16](), LOr[int16](), LXor[int16](), MinLoc[int16](), MaxLoc[int16]())
	real(Sum[uint16](), Prod[uint16](), Min[uint16](), Max[uint16](), LAnd[uint16](), LOr[uint16](), LXor[uint16](), MinLoc[uint16](), MaxLoc[uint16]())
	real(Sum[int32](), Prod[int32](), Min[int32](), Max[int32](), LAnd[int32](), LOr[int32](), LXor[int32](), MinLoc[int32](), MaxLoc[int32]())
	real(Sum[uint32](), Prod[uint32](), Min[uint32](), Max[uint32](), LAnd[uint32](), LOr[uint32](), LXor[uint32](), MinLoc[uint32](), MaxLoc[uint32]())
	real(Sum[int64](), Prod[int64](), Min[int64](), Max[int64](), LAnd[int64](), LOr[int64](), LXor[int64](), MinLoc[int64](), MaxLoc[int64]())
	real(Sum[uint64](), Prod[uint64](), Min[uint64](), Max[uint64](), LAnd[uint64](), LOr[uint64](), LXor[uint64](), MinLoc[uint64](), MaxLoc[uint64]())
	real(Sum[int](), Prod[int](), Min[int](), Max[int](), LAnd[int](), LOr[int](), LXor[int](), MinLoc[int](), MaxLoc[int]())
	real(Sum[uint](), Prod[uint](), Min[uint](), Max[uint](), LAnd[uint](), LOr[uint](), LXor[uint](), MinLoc[uint](), MaxLoc[uint]())
	real(Sum[uintptr](), Prod[uintptr](), Min[uintptr](), Max[uintptr](), LAnd[uintptr](), LOr[uintptr](), LXor[uintptr](), MinLoc[uintptr](), MaxLoc[uintptr]())
	integer(BAnd[int8](), BOr[int8](), BXor[int8]())
	integer(BAnd[uint8](), BOr[uint8](), BXor[uint8]())
	integer(BAnd[int16](), BOr[int16](), BXor[int16]())
	integer(BAnd[uint16](), BOr[uint16](), BXor[uint16]())
	integer(BAnd[int32](), BOr[int32](), BXor[int32]())
	integer(BAnd[uint32](), BOr[uint32](), BXor[uint32]())
	integer(BAnd[int64](), BOr[int64](), BXor[int64]())
	integer(BAnd[uint64](), BOr[uint64](), BXor[uint64]())
	integer(BAnd[int](), BOr[int](), BXor[int]())
	integer(BAnd[uint](), BOr[uint](), BXor[uint]())
	integer(BAnd[uintptr](), BOr[uintptr](), BXor[uintptr]())
	add(Sum[complex64](), Prod[complex64](), Sum[complex128](), Prod[complex128]())
	// Not predefined: a user operator, not commutative (ApplyTo's fallback).
	add(NewOp("affine", false, func(in, inout [][2]float64) {
		for i := range inout {
			a, b := in[i], inout[i]
			inout[i] = [2]float64{a[0] * b[0], a[0]*b[1] + a[1]}
		}
	}))
	return ops
}

// randomBytes is n random bytes: any bits, NaNs included, since ApplyTo and
// copy+Apply run the same instructions in the same operand order.
func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestApplyToMatchesCopyApply(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, op := range allBuiltins() {
		size := op.ElemSize
		for _, count := range []int{0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 127, 129, 257, 1001, 4099} {
			n := count * size
			for _, shift := range []int{0, 1} {
				in := randomBytes(r, n+shift)[shift:]
				inout := randomBytes(r, n+shift)[shift:]
				want := make([]byte, n)
				copy(want, inout)
				op.Apply(append([]byte(nil), in...), want)
				name := op.Name + "/" + strconv.Itoa(count) + "/" + strconv.Itoa(shift)

				out := make([]byte, n+shift)[shift:]
				i0, o0 := append([]byte(nil), in...), append([]byte(nil), inout...)
				op.ApplyTo(out, in, inout)
				if !bytes.Equal(out, want) || !bytes.Equal(in, i0) || !bytes.Equal(inout, o0) {
					t.Fatalf("%s: ApplyTo into a third buffer is not copy+Apply (or changed an operand)", name)
				}
				a, b := append([]byte(nil), in...), append([]byte(nil), inout...)
				op.ApplyTo(a, a, b) // out == in
				if !bytes.Equal(a, want) || !bytes.Equal(b, o0) {
					t.Fatalf("%s: ApplyTo with out == in is not copy+Apply", name)
				}
				a, b = append([]byte(nil), in...), append([]byte(nil), inout...)
				op.ApplyTo(b, a, b) // out == inout
				if !bytes.Equal(b, want) || !bytes.Equal(a, i0) {
					t.Fatalf("%s: ApplyTo with out == inout is not copy+Apply", name)
				}
			}
		}
	}
}

// TestApplyToKernels: the operators with a vector Apply have a vector
// ApplyTo, and those without (float min and max) do not.
func TestApplyToKernels(t *testing.T) {
	if k, _ := vectorKernel("sum", Sum[float64]().ElemKind, 8); k == nil {
		t.Skip("no vector kernels on this machine")
	}
	if _, k3 := vectorKernel("sum", Sum[float64]().ElemKind, 8); k3 == nil {
		t.Fatal("sum[float64] has no three-operand kernel")
	}
	if Sum[float64]().apply3 == nil || Max[int32]().apply3 == nil {
		t.Fatal("the vectorized operators have no ApplyTo kernel")
	}
	if Max[float64]().apply3 != nil {
		t.Fatal("float max has a vector ApplyTo (NaN and -0 would differ)")
	}
}

func TestApplyToPanics(t *testing.T) {
	op := Sum[int32]()
	buf := make([]byte, 64)
	for _, c := range []struct {
		name           string
		out, in, inout []byte
	}{
		{"lengths", buf[:8], make([]byte, 8), make([]byte, 12)},
		{"partial overlap", buf[4:36], buf[0:32], make([]byte, 32)},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			op.ApplyTo(c.out, c.in, c.inout)
		}()
	}
}

// BenchmarkApplyTo times out = in ∘ inout by ApplyTo and by the copy and
// Apply it replaces, in cache (32 KiB) and not (1 MiB): bytes/s of out.
func BenchmarkApplyTo(b *testing.B) {
	ops := []struct {
		name string
		op   Op
	}{
		{"sum_float32", Sum[float32]()},
		{"sum_float64", Sum[float64]()},
		{"max_int32", Max[int32]()},
		{"max_float64", Max[float64]()}, // no vector kernel: the fallback
	}
	for _, o := range ops {
		for _, size := range []int{32 << 10, 1 << 20} {
			in, inout, out := make([]byte, size), make([]byte, size), make([]byte, size)
			kib := strconv.Itoa(size>>10) + "KiB"
			b.Run(o.name+"/applyto/"+kib, func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					o.op.ApplyTo(out, in, inout)
				}
			})
			b.Run(o.name+"/copy+apply/"+kib, func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					copy(out, inout)
					o.op.Apply(in, out)
				}
			})
		}
	}
}
