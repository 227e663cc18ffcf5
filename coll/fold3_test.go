package coll

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// realOps is every predefined operator over the real type T.
func realOps[T Real]() []Op {
	return []Op{Sum[T](), Prod[T](), Min[T](), Max[T](), LAnd[T](), LOr[T](), LXor[T](), MinLoc[T](), MaxLoc[T]()}
}

// intOps is every predefined operator over the integer type T.
func intOps[T interface {
	Integer
	Real
}]() []Op {
	return append(realOps[T](), BAnd[T](), BOr[T](), BXor[T]())
}

// allBuiltins is every predefined operator over every element type it takes.
func allBuiltins() []Op {
	var ops []Op
	add := func(o ...Op) { ops = append(ops, o...) }
	add(realOps[float32]()...)
	add(realOps[float64]()...)
	add(intOps[int8]()...)
	add(intOps[uint8]()...)
	add(intOps[int16]()...)
	add(intOps[uint16]()...)
	add(intOps[int32]()...)
	add(intOps[uint32]()...)
	add(intOps[int64]()...)
	add(intOps[uint64]()...)
	add(intOps[int]()...)
	add(intOps[uint]()...)
	add(intOps[uintptr]()...)
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
