//go:build !mpi && !mpich

package gompi_test

import (
	"testing"

	"github.com/gompi/gompi/gompi"
)

// BenchmarkCallCode times the code of a small blocking collective call on
// one rank, where the step waits for nobody: what a call costs between its
// entry and its arrival, and after the release until it returns (the
// typed wrapper, the checks, the kept choice, the shm adapter). On two
// ranks every nanosecond of it is paid by both ranks in series with the
// hand-off (docs/PERFORMANCE.md, "Two ranks: less code per call").
func BenchmarkCallCode(b *testing.B) {
	for _, op := range []string{"barrier", "bcast", "allreduce-f64", "allreduce-i32", "allreduce-bytes", "scatter", "allgatherv", "alltoallv", "gatherv", "reduce-f32", "scan-f32", "exscan-f32", "reduce-scatter-f32", "reduce-scatter-block-f32"} {
		b.Run(op, func(b *testing.B) {
			b.ReportAllocs()
			err := gompi.Run(1, func(c *gompi.Comm) error {
				call := callCodeCall(c, op)
				for range 10 {
					if err := call(); err != nil {
						return err
					}
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := call(); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

func callCodeCall(c *gompi.Comm, op string) func() error {
	one, other := make([]byte, 8), make([]byte, 8)
	counts, displs := []int{8}, []int{0}
	f64in, f64out := []float64{1}, []float64{0}
	i32in, i32out := []int32{1, 2}, []int32{0, 0}
	sumF, sumI := gompi.Sum[float64](), gompi.Sum[int32]()
	f32in, f32out, sum32 := make([]float32, 16), make([]float32, 16), gompi.Sum[float32]()
	f32counts := []int{16}
	switch op {
	case "barrier":
		return func() error { return c.Barrier() }
	case "bcast":
		return func() error { return c.Bcast(one, 0) }
	case "allreduce-f64":
		return func() error { return gompi.Allreduce(c, f64in, f64out, sumF) }
	case "allreduce-i32":
		return func() error { return gompi.Allreduce(c, i32in, i32out, sumI) }
	case "allreduce-bytes":
		return func() error { return c.Allreduce(one, other, sumF) }
	case "scatter":
		return func() error { return c.Scatter(one, other, 0) }
	case "allgatherv":
		return func() error { return c.Allgatherv(one, other, counts, displs) }
	case "alltoallv":
		return func() error { return c.Alltoallv(one, counts, displs, other, counts, displs) }
	case "gatherv":
		return func() error { return c.Gatherv(one, other, counts, displs, 0) }
	case "reduce-f32": // 64 B, as the osu benchmark calls it
		return func() error { return gompi.Reduce(c, f32in, f32out, sum32, 0) }
	case "scan-f32":
		return func() error { return gompi.Scan(c, f32in, f32out, sum32) }
	case "exscan-f32":
		return func() error { return gompi.Exscan(c, f32in, f32out, sum32) }
	case "reduce-scatter-f32":
		return func() error { return gompi.ReduceScatter(c, f32in, f32out, f32counts, sum32) }
	case "reduce-scatter-block-f32":
		return func() error { return gompi.ReduceScatterBlock(c, f32in, f32out, sum32) }
	}
	panic("unknown op " + op)
}
