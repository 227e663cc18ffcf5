package coll

import (
	"strconv"
	"testing"
)

// scalarSum is Sum without the vector fold of fold_amd64.go: the baseline
// the benchmark compares it with.
func scalarSum[T Number]() Op { return NewOp("sum", true, sumLoop[T]) }

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
