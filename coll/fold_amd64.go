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

// useAVX2 is false to time or test the scalar loops (export_test.go).
var useAVX2 = cpu.X86.HasAVX2

// vectorKernel returns the AVX2 fold of the predefined operator name over
// elements of kind (size bytes), or nil.
func vectorKernel(name string, kind reflect.Kind, size int) foldKernel {
	if !useAVX2 {
		return nil
	}
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
	pick := func(k8, k16, k32, k64 foldKernel) foldKernel {
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
		return pick(nil, nil, addF32AVX2, addF64AVX2)
	case name == "prod" && float:
		return pick(nil, nil, mulF32AVX2, mulF64AVX2)
	case name == "sum" && integer:
		return pick(addI8AVX2, addI16AVX2, addI32AVX2, addI64AVX2)
	case name == "prod" && integer:
		return pick(nil, mulI16AVX2, mulI32AVX2, nil)
	case name == "band" && integer:
		return andAVX2
	case name == "bor" && integer:
		return orAVX2
	case name == "bxor" && integer:
		return xorAVX2
	case name == "min" && signed:
		return pick(minI8AVX2, minI16AVX2, minI32AVX2, nil)
	case name == "min" && unsigned:
		return pick(minU8AVX2, minU16AVX2, minU32AVX2, nil)
	case name == "max" && signed:
		return pick(maxI8AVX2, maxI16AVX2, maxI32AVX2, nil)
	case name == "max" && unsigned:
		return pick(maxU8AVX2, maxU16AVX2, maxU32AVX2, nil)
	}
	return nil
}
