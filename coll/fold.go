package coll

import (
	"fmt"
	"reflect"
	"unsafe"
)

// Vector folds. The predefined operators' element loops are plain Go,
// which the compiler does not vectorize: Sum[float32] folds 8–10 GB/s on
// the development machine, a third of a memory copy, and at 1 MiB the fold
// costs as much as reading a peer's vector does. Where the CPU allows
// (fold_amd64.go), the predefined operators whose operation is exact per
// element (integer arithmetic, bitwise, IEEE add and multiply, integer
// min and max) fold with vector instructions instead; the result has the
// same bits as the scalar loop's. Float min and max keep the scalar loop
// (Go's min propagates NaN and orders −0 below +0; the vector
// instructions do neither).

// foldKernel sets inout = in ∘ inout over n bytes, n a multiple of
// foldGrain; in and inout do not overlap.
type foldKernel func(in, inout *byte, n int)

// foldKernel3 sets out = a ∘ b over n bytes, n a multiple of foldGrain; out
// is a, b, or overlaps neither (fold3.go).
type foldKernel3 func(a, b, out *byte, n int)

// foldGrain is the bytes a kernel takes at a time; a multiple of every
// element size that has a kernel.
const foldGrain = 32

// vectorized returns op's Apply with the fold of a kernel for op's name and
// element kind (vectorKernel), the scalar Apply doing what is left below a
// grain; op itself where there is no kernel.
func vectorized(op Op, name string, kind reflect.Kind) Op {
	k, k3 := vectorKernel(name, kind, op.ElemSize)
	if k == nil {
		return op
	}
	scalar, size := op.Apply, op.ElemSize
	op.Apply = func(in, inout []byte) {
		if len(in) != len(inout) || len(inout)%size != 0 {
			panic(fmt.Sprintf("coll: %s applied to %d and %d bytes (element size %d)", op.Name, len(in), len(inout), size))
		}
		n := len(inout) &^ (foldGrain - 1)
		if n > 0 {
			k(unsafe.SliceData(in), unsafe.SliceData(inout), n)
		}
		if n < len(inout) {
			scalar(in[n:], inout[n:])
		}
	}
	if k3 != nil {
		op.apply3 = vectorized3(op.Name, k3, scalar, size)
	}
	return op
}
