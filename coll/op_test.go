package coll_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/gompi/gompi/coll"
)

// bytesOf views a slice of plain data as bytes, as the runtime does.
func bytesOf[T any](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// checkOp applies op to in and inout as bytes, at an aligned and at an
// unaligned address, and compares with f applied element by element.
func checkOp[T comparable](t *testing.T, op coll.Op, in, inout []T, f func(a, b T) T) {
	t.Helper()
	want := make([]T, len(inout))
	for i := range want {
		want[i] = f(in[i], inout[i])
	}
	size := int(unsafe.Sizeof(in[0]))
	if op.ElemSize != size {
		t.Fatalf("%s: ElemSize %d, want %d", op.Name, op.ElemSize, size)
	}
	for _, shift := range []int{0, 1, 3} { // unaligned copies of the same data
		a := make([]byte, len(in)*size+shift)[shift:]
		b := make([]byte, len(in)*size+shift)[shift:]
		copy(a, bytesOf(in))
		copy(b, bytesOf(inout))
		op.Apply(a, b)
		got := make([]T, len(inout))
		copy(bytesOf(got), b)
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s (shift %d): element %d is %v, want %v", op.Name, shift, i, got[i], want[i])
				break
			}
		}
	}
}

func truth[T coll.Real](b bool) T {
	if b {
		return 1
	}
	return 0
}

// testReal checks every operator defined on ordered numbers.
func testReal[T coll.Real](t *testing.T, in, inout []T) {
	checkOp(t, coll.Sum[T](), in, inout, func(a, b T) T { return a + b })
	checkOp(t, coll.Prod[T](), in, inout, func(a, b T) T { return a * b })
	checkOp(t, coll.Min[T](), in, inout, func(a, b T) T { return min(a, b) })
	checkOp(t, coll.Max[T](), in, inout, func(a, b T) T { return max(a, b) })
	checkOp(t, coll.LAnd[T](), in, inout, func(a, b T) T { return truth[T](a != 0 && b != 0) })
	checkOp(t, coll.LOr[T](), in, inout, func(a, b T) T { return truth[T](a != 0 || b != 0) })
	checkOp(t, coll.LXor[T](), in, inout, func(a, b T) T { return truth[T]((a != 0) != (b != 0)) })
	vin, vinout := make([]coll.ValueIndex[T], len(in)), make([]coll.ValueIndex[T], len(in))
	for i := range in {
		vin[i], vinout[i] = coll.ValueIndex[T]{Value: in[i], Index: i % 3}, coll.ValueIndex[T]{Value: inout[i], Index: i % 5}
	}
	checkOp(t, coll.MinLoc[T](), vin, vinout, func(a, b coll.ValueIndex[T]) coll.ValueIndex[T] {
		if a.Value < b.Value || a.Value == b.Value && a.Index < b.Index {
			return a
		}
		return b
	})
	checkOp(t, coll.MaxLoc[T](), vin, vinout, func(a, b coll.ValueIndex[T]) coll.ValueIndex[T] {
		if a.Value > b.Value || a.Value == b.Value && a.Index < b.Index {
			return a
		}
		return b
	})
}

func testInteger[T coll.Integer](t *testing.T, in, inout []T) {
	testReal(t, in, inout)
	checkOp(t, coll.BAnd[T](), in, inout, func(a, b T) T { return a & b })
	checkOp(t, coll.BOr[T](), in, inout, func(a, b T) T { return a | b })
	checkOp(t, coll.BXor[T](), in, inout, func(a, b T) T { return a ^ b })
}

// sample returns 37 values of T from small integers and equal pairs.
func sample[T coll.Real](seed int) []T {
	out := make([]T, 37)
	for i := range out {
		out[i] = T((i*seed + seed) % 7)
	}
	return out
}

func TestOps(t *testing.T) {
	testInteger(t, sample[int8](3), sample[int8](5))
	testInteger(t, sample[int16](3), sample[int16](5))
	testInteger(t, sample[int32](3), sample[int32](5))
	testInteger(t, sample[int64](3), sample[int64](5))
	testInteger(t, sample[int](3), sample[int](5))
	testInteger(t, sample[uint8](3), sample[uint8](5))
	testInteger(t, sample[uint16](3), sample[uint16](5))
	testInteger(t, sample[uint32](3), sample[uint32](5))
	testInteger(t, sample[uint64](3), sample[uint64](5))
	testReal(t, sample[float32](3), sample[float32](5))
	testReal(t, sample[float64](3), sample[float64](5))
	c := []complex128{1 + 2i, -3, 0.5i}
	d := []complex128{2, 1 - 1i, 4 + 4i}
	checkOp(t, coll.Sum[complex128](), c, d, func(a, b complex128) complex128 { return a + b })
	checkOp(t, coll.Prod[complex128](), c, d, func(a, b complex128) complex128 { return a * b })
	c9 := []complex128{1, 2i, 3 - 1i, -4, 5i, 6, 7 + 7i, -8i, 9} // through the unrolled loop and its tail
	checkOp(t, coll.Prod[complex128](), c9, c9, func(a, b complex128) complex128 { return a * b })
	checkOp(t, coll.Sum[complex128](), c9, c9, func(a, b complex128) complex128 { return a + b })
	c64 := []complex64{1 + 2i, -3}
	checkOp(t, coll.Prod[complex64](), c64, c64, func(a, b complex64) complex64 { return a * b })
}

func TestOpNames(t *testing.T) {
	for op, want := range map[*coll.Op]string{
		ptr(coll.Sum[int32]()):                           "sum[int32]",
		ptr(coll.MinLoc[float64]()):                      "minloc[coll.ValueIndex[float64]]",
		ptr(coll.NewOp("matmul", false, matMul)):         "matmul[coll_test.mat]",
		ptr(coll.NewOp("f", true, func(a, b []byte) {})): "f[uint8]",
	} {
		if op.Name != want {
			t.Errorf("name %q, want %q", op.Name, want)
		}
	}
	if coll.NewOp("matmul", false, matMul).Commutative {
		t.Error("a non-commutative op says it commutes")
	}
}

func ptr[T any](v T) *T { return &v }

// TestUserOpOrder: Apply's first argument is the left operand.
func TestUserOpOrder(t *testing.T) {
	concat := coll.NewOp("concat", false, func(in, inout []uint64) { // digits: base-10 concatenation of 1-digit numbers
		for i := range inout {
			inout[i] = in[i]*10 + inout[i]
		}
	})
	in, inout := []uint64{1}, []uint64{2}
	concat.Apply(bytesOf(in), bytesOf(inout))
	if inout[0] != 12 {
		t.Errorf("in ∘ inout = %d, want 12", inout[0])
	}
}

func TestApplyLengthMismatchPanics(t *testing.T) {
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "element size 4") {
			t.Errorf("panic %v", p)
		}
	}()
	coll.Sum[int32]().Apply(make([]byte, 6), make([]byte, 6))
}

func TestNaNMax(t *testing.T) {
	in, inout := []float64{math.NaN()}, []float64{1}
	coll.Max[float64]().Apply(bytesOf(in), bytesOf(inout))
	if !math.IsNaN(inout[0]) {
		t.Errorf("max(NaN, 1) = %v, want NaN (Go's max)", inout[0])
	}
}
