//go:build amd64 && !purego

package coll

import (
	"reflect"

	"golang.org/x/sys/cpu"
)

// The AVX2 kernels of fold_amd64.s.
func addF32AVX2(in, inout *byte, n int)
func addF64AVX2(in, inout *byte, n int)
func mulF32AVX2(in, inout *byte, n int)
func mulF64AVX2(in, inout *byte, n int)
func addI8AVX2(in, inout *byte, n int)
func addI16AVX2(in, inout *byte, n int)
func addI32AVX2(in, inout *byte, n int)
func addI64AVX2(in, inout *byte, n int)
func mulI16AVX2(in, inout *byte, n int)
func mulI32AVX2(in, inout *byte, n int)
func andAVX2(in, inout *byte, n int)
func orAVX2(in, inout *byte, n int)
func xorAVX2(in, inout *byte, n int)
func minI8AVX2(in, inout *byte, n int)
func minI16AVX2(in, inout *byte, n int)
func minI32AVX2(in, inout *byte, n int)
func minU8AVX2(in, inout *byte, n int)
func minU16AVX2(in, inout *byte, n int)
func minU32AVX2(in, inout *byte, n int)
func maxI8AVX2(in, inout *byte, n int)
func maxI16AVX2(in, inout *byte, n int)
func maxI32AVX2(in, inout *byte, n int)
func maxU8AVX2(in, inout *byte, n int)
func maxU16AVX2(in, inout *byte, n int)
func maxU32AVX2(in, inout *byte, n int)

// The three-operand kernels of fold3_amd64.s: out = a ∘ b.
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

// kernels pairs each two-operand kernel with its three-operand form.
type kernels struct {
	k2 foldKernel
	k3 foldKernel3
}

// vectorKernel returns the AVX2 folds of the predefined operator name over
// elements of kind (size bytes), two- and three-operand, or nils.
func vectorKernel(name string, kind reflect.Kind, size int) (foldKernel, foldKernel3) {
	if !useAVX2 {
		return nil, nil
	}
	k := vectorKernels(name, kind, size)
	return k.k2, k.k3
}

func vectorKernels(name string, kind reflect.Kind, size int) kernels {
	signed, unsigned, float := false, false, false
	switch kind {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		signed = true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		unsigned = true
	case reflect.Float32, reflect.Float64:
		float = true
	default:
		return kernels{}
	}
	integer := signed || unsigned
	pick := func(k8, k16, k32, k64 kernels) kernels {
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
		return kernels{}
	}
	switch {
	case name == "sum" && float:
		return pick(kernels{}, kernels{}, kernels{addF32AVX2, addF32AVX2x3}, kernels{addF64AVX2, addF64AVX2x3})
	case name == "prod" && float:
		return pick(kernels{}, kernels{}, kernels{mulF32AVX2, mulF32AVX2x3}, kernels{mulF64AVX2, mulF64AVX2x3})
	case name == "sum" && integer:
		return pick(kernels{addI8AVX2, addI8AVX2x3}, kernels{addI16AVX2, addI16AVX2x3}, kernels{addI32AVX2, addI32AVX2x3}, kernels{addI64AVX2, addI64AVX2x3})
	case name == "prod" && integer:
		return pick(kernels{}, kernels{mulI16AVX2, mulI16AVX2x3}, kernels{mulI32AVX2, mulI32AVX2x3}, kernels{})
	case name == "band" && integer:
		return kernels{andAVX2, andAVX2x3}
	case name == "bor" && integer:
		return kernels{orAVX2, orAVX2x3}
	case name == "bxor" && integer:
		return kernels{xorAVX2, xorAVX2x3}
	case name == "min" && signed:
		return pick(kernels{minI8AVX2, minI8AVX2x3}, kernels{minI16AVX2, minI16AVX2x3}, kernels{minI32AVX2, minI32AVX2x3}, kernels{})
	case name == "min" && unsigned:
		return pick(kernels{minU8AVX2, minU8AVX2x3}, kernels{minU16AVX2, minU16AVX2x3}, kernels{minU32AVX2, minU32AVX2x3}, kernels{})
	case name == "max" && signed:
		return pick(kernels{maxI8AVX2, maxI8AVX2x3}, kernels{maxI16AVX2, maxI16AVX2x3}, kernels{maxI32AVX2, maxI32AVX2x3}, kernels{})
	case name == "max" && unsigned:
		return pick(kernels{maxU8AVX2, maxU8AVX2x3}, kernels{maxU16AVX2, maxU16AVX2x3}, kernels{maxU32AVX2, maxU32AVX2x3}, kernels{})
	}
	return kernels{}
}
