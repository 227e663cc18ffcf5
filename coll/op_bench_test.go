package coll

import (
	"strconv"
	"testing"
)

// scalarSum is Sum's element loop (op.go) without the vector fold of
// fold.go: what the vector fold is measured against.
func scalarSum[T Number]() Op {
	return NewOp("sum", true, func(in, inout []T) {
		n := len(inout)
		in = in[:n]
		i := 0
		for ; i+4 <= n; i += 4 {
			a, b := in[i:i+4:i+4], inout[i:i+4:i+4]
			b[0] = a[0] + b[0]
			b[1] = a[1] + b[1]
			b[2] = a[2] + b[2]
			b[3] = a[3] + b[3]
		}
		for ; i < n; i++ {
			inout[i] = in[i] + inout[i]
		}
	})
}

// BenchmarkApply times the predefined operators' folds on vectors that
// stay in cache (32 KiB) and that do not (1 MiB): bytes/s of inout.
func BenchmarkApply(b *testing.B) {
	ops := []struct {
		name string
		op   Op
	}{
		{"sum_float32", Sum[float32]()},
		{"sum_float64", Sum[float64]()},
		{"sum_int32", Sum[int32]()},
		{"max_float64", Max[float64]()},
		{"max_int32", Max[int32]()},
		{"scalar_sum_float32", scalarSum[float32]()},
		{"scalar_sum_float64", scalarSum[float64]()},
	}
	for _, o := range ops {
		for _, size := range []int{4 << 10, 32 << 10, 1 << 20} {
			b.Run(o.name+"/"+strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
				in, inout := make([]byte, size), make([]byte, size)
				b.SetBytes(int64(size))
				for b.Loop() {
					o.op.Apply(in, inout)
				}
			})
		}
	}
	b.Run("memcpy/32KiB", func(b *testing.B) {
		in, out := make([]byte, 32<<10), make([]byte, 32<<10)
		b.SetBytes(32 << 10)
		for b.Loop() {
			copy(out, in)
		}
	})
	b.Run("memcpy/1024KiB", func(b *testing.B) {
		in, out := make([]byte, 1<<20), make([]byte, 1<<20)
		b.SetBytes(1 << 20)
		for b.Loop() {
			copy(out, in)
		}
	})
}
