//go:build !mpi && !mpich

package gompi_test

import (
	"testing"

	"github.com/gompi/gompi/gompi"
)

// BenchmarkPairV: the per-count forms and their fixed-count siblings on two
// in-process ranks at 8 B per block, default selection, back to back (no
// barrier between calls): the calls' own cost on the lines.
func BenchmarkPairV(b *testing.B) {
	const m = 8
	counts, displs := []int{m, m}, []int{0, m}
	ops := []struct {
		name string
		call func(c *gompi.Comm, send, recv []byte) error
	}{
		{"gather", func(c *gompi.Comm, send, recv []byte) error { return c.Gather(send[:m], recv, 0) }},
		{"gatherv", func(c *gompi.Comm, send, recv []byte) error { return c.Gatherv(send[:m], recv, counts, displs, 0) }},
		{"scatter", func(c *gompi.Comm, send, recv []byte) error { return c.Scatter(send, recv[:m], 0) }},
		{"scatterv", func(c *gompi.Comm, send, recv []byte) error { return c.Scatterv(send, counts, displs, recv[:m], 0) }},
		{"allgather", func(c *gompi.Comm, send, recv []byte) error { return c.Allgather(send[:m], recv) }},
		{"allgatherv", func(c *gompi.Comm, send, recv []byte) error { return c.Allgatherv(send[:m], recv, counts, displs) }},
		{"alltoall", func(c *gompi.Comm, send, recv []byte) error { return c.Alltoall(send, recv) }},
		{"alltoallv", func(c *gompi.Comm, send, recv []byte) error {
			return c.Alltoallv(send, counts, displs, recv, counts, displs)
		}},
		{"alltoallw", func(c *gompi.Comm, send, recv []byte) error {
			return c.Alltoallw(send, counts, displs, recv, counts, displs)
		}},
		{"barrier", func(c *gompi.Comm, send, recv []byte) error { return c.Barrier() }},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			b.ReportAllocs()
			err := gompi.Run(2, func(c *gompi.Comm) error {
				send, recv := make([]byte, 2*m), make([]byte, 2*m)
				if c.Rank() == 0 {
					b.ResetTimer()
				}
				for i := 0; i < b.N; i++ {
					if err := op.call(c, send, recv); err != nil {
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
