//go:build !mpi && !mpich

package gompi_test

import (
	"testing"

	"github.com/gompi/gompi/gompi"
)

// BenchmarkSmallColl times every collective with 8-byte blocks between
// in-process ranks, with the default selection, the OSU way (each call
// followed by a barrier): the per-call costs of the runtime and of coll
// (argument checks, selection, temporary buffers) weigh most at this size.
// allocs/op must stay 0 for the calls that run a shared-memory algorithm.
// ns/op is one call and its barrier, on rank 0.
func BenchmarkSmallColl(b *testing.B) {
	for _, n := range []int{2, 4} {
		for _, op := range smallCollOps {
			b.Run(op+"-8B/n="+itoa(n), func(b *testing.B) {
				b.ReportAllocs()
				err := gompi.Run(n, func(c *gompi.Comm) error {
					call := smallCall(c, op)
					for range 10 { // warm up: pools, the first step of each half
						if err := call(); err != nil {
							return err
						}
					}
					return osuLoop(b, c, call)
				})
				if err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// osuLoop times call on c the OSU way: each call followed by a barrier;
// rank 0 starts the timer.
func osuLoop(b *testing.B, c *gompi.Comm, call func() error) error {
	if c.Rank() == 0 {
		b.ResetTimer()
	}
	for i := 0; i < b.N; i++ {
		if err := call(); err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
	}
	return nil
}

var smallCollOps = []string{"bcast", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv",
	"alltoall", "alltoallv", "alltoallw", "reduce", "allreduce", "reduce_scatter", "reduce_scatter_block",
	"scan", "exscan"}

// smallCall returns one call of op with 8-byte blocks on c.
func smallCall(c *gompi.Comm, op string) func() error {
	n := c.Size()
	one, all := make([]byte, 8), make([]byte, 8*n)
	allOut := make([]byte, 8*n)
	counts, displs := make([]int, n), make([]int, n)
	for i := range counts {
		counts[i], displs[i] = 8, 8*i
	}
	in, out := []float64{1}, []float64{0}
	vin, ones := make([]float64, n), make([]int, n)
	for i := range ones {
		ones[i] = 1
	}
	sum := gompi.Sum[float64]()
	switch op {
	case "bcast":
		return func() error { return c.Bcast(one, 0) }
	case "gather":
		return func() error { return c.Gather(one, all, 0) }
	case "gatherv":
		return func() error { return c.Gatherv(one, all, counts, displs, 0) }
	case "scatter":
		return func() error { return c.Scatter(all, one, 0) }
	case "scatterv":
		return func() error { return c.Scatterv(all, counts, displs, one, 0) }
	case "allgather":
		return func() error { return c.Allgather(one, all) }
	case "allgatherv":
		return func() error { return c.Allgatherv(one, all, counts, displs) }
	case "alltoall":
		return func() error { return c.Alltoall(all, allOut) }
	case "alltoallv":
		return func() error { return c.Alltoallv(all, counts, displs, allOut, counts, displs) }
	case "alltoallw":
		return func() error { return c.Alltoallw(all, counts, displs, allOut, counts, displs) }
	case "reduce":
		return func() error { return gompi.Reduce(c, in, out, sum, 0) }
	case "allreduce":
		return func() error { return gompi.Allreduce(c, in, out, sum) }
	case "reduce_scatter":
		return func() error { return gompi.ReduceScatter(c, vin, out, ones, sum) }
	case "reduce_scatter_block":
		return func() error { return gompi.ReduceScatterBlock(c, vin, out, sum) }
	case "scan":
		return func() error { return gompi.Scan(c, in, out, sum) }
	case "exscan":
		return func() error { return gompi.Exscan(c, in, out, sum) }
	}
	panic("unknown op " + op)
}

// BenchmarkPredefinedOp: what naming an operator in the call costs
// (gompi.Sum[float64]() in every Allreduce): the common element types take
// an array slot, others (MaxLoc's pairs) a map look-up.
func BenchmarkPredefinedOp(b *testing.B) {
	b.Run("sum-float64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkOp = gompi.Sum[float64]()
		}
	})
	b.Run("maxloc-float64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sinkLoc = gompi.MaxLoc[float64]()
		}
	})
}

var (
	sinkOp  gompi.Op[float64]
	sinkLoc gompi.Op[gompi.ValueIndex[float64]]
)

// BenchmarkPooledTemporaries: point-to-point algorithms whose temporary
// buffers now come from coll's pool (a fresh 64 KiB buffer per call costs
// page faults, on this VM more than the copy): B/op is what is still
// allocated per call (all ranks together), a few hundred bytes of block
// lists instead of the blocks.
func BenchmarkPooledTemporaries(b *testing.B) {
	const n, m = 4, 64 << 10
	cases := []struct {
		name string
		call func(c *gompi.Comm, one, all, out []byte) error
	}{
		{"gather/binomial", func(c *gompi.Comm, one, all, _ []byte) error {
			return c.Gather(one, all, 0, gompi.WithAlgorithm("binomial"))
		}},
		{"scatter/binomial", func(c *gompi.Comm, one, all, _ []byte) error {
			return c.Scatter(all, one, 0, gompi.WithAlgorithm("binomial"))
		}},
		{"allgather/gather_bcast", func(c *gompi.Comm, one, all, _ []byte) error {
			return c.Allgather(one, all, gompi.WithAlgorithm("gather_bcast"))
		}},
		{"alltoall/bruck", func(c *gompi.Comm, _, all, out []byte) error {
			return c.Alltoall(all, out, gompi.WithAlgorithm("bruck"))
		}},
		{"alltoall/pairwise-in-place", func(c *gompi.Comm, _, _, out []byte) error {
			return c.Alltoall(gompi.InPlace[byte](), out, gompi.WithAlgorithm("pairwise"))
		}},
		{"bcast/chain", func(c *gompi.Comm, one, _, _ []byte) error {
			return c.Bcast(one[:m-100], 0, gompi.WithAlgorithm("chain"))
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name+"/64KiB/n=4", func(b *testing.B) {
			b.ReportAllocs()
			err := gompi.Run(n, func(c *gompi.Comm) error {
				one, all, out := make([]byte, m), make([]byte, n*m), make([]byte, n*m)
				for range 3 {
					if err := tc.call(c, one, all, out); err != nil {
						return err
					}
				}
				if c.Rank() == 0 {
					b.ResetTimer()
				}
				for i := 0; i < b.N; i++ {
					if err := tc.call(c, one, all, out); err != nil {
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
