//go:build amd64 && !purego

package coll

import (
	"reflect"

	"golang.org/x/sys/cpu"
)

// The AVX2 kernels of fold_amd64.s: out = a ∘ b. The two-operand fold
// (inout = in ∘ inout) is the same kernel with out = inout.
func addF32AVX2x3(a, b, out *byte, n int)
func addF64AVX2x3(a, b, out *byte, n int)
func mulF32AVX2x3(a, b, out *byte, n int)
func mulF64AVX2x3(a, b, out *byte, n int)
func addI8AVX2x3(a, b, out *byte, n int)
func addI16AVX2x3(a, b, out *byte, n int)
func addI32AVX2x3(a, b, out *byte, n int)
func addI64AVX2x3(a, b, out *byte, n int)
func mulI16AVX2x3(a, b, out *byte, n int)
func mulI32AVX2x3(a, b, out *byte, n int)
func andAVX2x3(a, b, out *byte, n int)
func orAVX2x3(a, b, out *byte, n int)
func xorAVX2x3(a, b, out *byte, n int)
func minI8AVX2x3(a, b, out *byte, n int)
func minI16AVX2x3(a, b, out *byte, n int)
func minI32AVX2x3(a, b, out *byte, n int)
func minU8AVX2x3(a, b, out *byte, n int)
func minU16AVX2x3(a, b, out *byte, n int)
func minU32AVX2x3(a, b, out *byte, n int)
func maxI8AVX2x3(a, b, out *byte, n int)
func maxI16AVX2x3(a, b, out *byte, n int)
func maxI32AVX2x3(a, b, out *byte, n int)
func maxU8AVX2x3(a, b, out *byte, n int)
func maxU16AVX2x3(a, b, out *byte, n int)
func maxU32AVX2x3(a, b, out *byte, n int)

// useAVX2 is false to time or test the scalar loops (export_test.go).
var useAVX2 = cpu.X86.HasAVX2

// vectorKernel returns the AVX2 folds of the predefined operator name over
// elements of kind (size bytes), two- and three-operand, or nils.
func vectorKernel(name string, kind reflect.Kind, size int) (foldKernel, foldKernel3) {
	if !useAVX2 {
		return nil, nil
	}
	k3 := vectorFoldKernel3(name, kind, size)
	if k3 == nil {
		return nil, nil
	}
	// The kernel loads in, then inout, and stores to out: with out =
	// inout it is the two-operand fold, operand for operand.
	return func(in, inout *byte, n int) { k3(in, inout, inout, n) }, k3
}

func vectorFoldKernel3(name string, kind reflect.Kind, size int) foldKernel3 {
	signed, unsigned, float := false, false, false
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		signed = true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		unsigned = true
	case reflect.Float32, reflect.Float64:
		float = true
	default:
		return nil
	}
	integer := signed || unsigned
	pick := func(k8, k16, k32, k64 foldKernel3) foldKernel3 {
		switch size {
		case 1:
			return k8
		case 2:
			return k16
		case 4:
			return k32
		case 8:
			return k64
		}
		return nil
	}
	switch {
	case name == "sum" && float:
		return pick(nil, nil, addF32AVX2x3, addF64AVX2x3)
	case name == "prod" && float:
		return pick(nil, nil, mulF32AVX2x3, mulF64AVX2x3)
	case name == "sum" && integer:
		return pick(addI8AVX2x3, addI16AVX2x3, addI32AVX2x3, addI64AVX2x3)
	case name == "prod" && integer:
		return pick(nil, mulI16AVX2x3, mulI32AVX2x3, nil)
	case name == "band" && integer:
		return andAVX2x3
	case name == "bor" && integer:
		return orAVX2x3
	case name == "bxor" && integer:
		return xorAVX2x3
	case name == "min" && signed:
		return pick(minI8AVX2x3, minI16AVX2x3, minI32AVX2x3, nil)
	case name == "min" && unsigned:
		return pick(minU8AVX2x3, minU16AVX2x3, minU32AVX2x3, nil)
	case name == "max" && signed:
		return pick(maxI8AVX2x3, maxI16AVX2x3, maxI32AVX2x3, nil)
	case name == "max" && unsigned:
		return pick(maxU8AVX2x3, maxU16AVX2x3, maxU32AVX2x3, nil)
	}
	return nil
}
