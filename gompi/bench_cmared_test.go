//go:build !mpi && !mpich

package gompi_test

import (
	"testing"

	"github.com/gompi/gompi/gompi"
)

// largeReductions are the reductions whose large-vector paths
// BenchmarkLargeReduction times, each as one call on a vector of float32.
var largeReductions = map[string]func(c *gompi.Comm, in, out []float32, with gompi.CollOption) error{
	"reduce": func(c *gompi.Comm, in, out []float32, with gompi.CollOption) error {
		return gompi.Reduce(c, in, out, gompi.Sum[float32](), 0, with)
	},
	"allreduce": func(c *gompi.Comm, in, out []float32, with gompi.CollOption) error {
		return gompi.Allreduce(c, in, out, gompi.Sum[float32](), with)
	},
	"scan": func(c *gompi.Comm, in, out []float32, with gompi.CollOption) error {
		return gompi.Scan(c, in, out, gompi.Sum[float32](), with)
	},
	"exscan": func(c *gompi.Comm, in, out []float32, with gompi.CollOption) error {
		return gompi.Exscan(c, in, out, gompi.Sum[float32](), with)
	},
	"reduce_scatter_block": func(c *gompi.Comm, in, out []float32, with gompi.CollOption) error {
		return gompi.ReduceScatterBlock(c, in, out[:len(in)/c.Size()], gompi.Sum[float32](), with)
	},
}

// p2pReduction is the point-to-point algorithm the selection table gives
// each large reduction where "cma" is not preferred (coll/table.go).
var p2pReduction = map[string]string{
	"reduce": "rabenseifner", "allreduce": "rabenseifner", "scan": "recursive_doubling",
	"exscan": "recursive_doubling", "reduce_scatter_block": "recursive_halving",
}

// BenchmarkLargeReduction times the large reductions (128 KiB and 1 MiB of
// float32) between in-process ranks the OSU way (each call followed by a
// barrier), with the single-copy shared-memory algorithm "cma" and with the
// point-to-point one ("p2p", p2pReduction): what the single copy buys, and
// (with -benchmem) what the paths still allocate per call. ns/op is one call
// and its barrier, on rank 0.
func BenchmarkLargeReduction(b *testing.B) {
	for _, n := range []int{2, 4} {
		for _, size := range []int{128 << 10, 1 << 20} {
			for _, op := range []string{"reduce", "allreduce", "scan", "exscan", "reduce_scatter_block"} {
				for _, alg := range []string{"p2p", "cma"} {
					name := alg
					if alg == "p2p" {
						alg = p2pReduction[op]
					}
					b.Run(op+"/"+name+"/n="+itoa(n)+"/"+itoa(size>>10)+"KiB", func(b *testing.B) {
						benchReduction(b, n, size, op, alg)
					})
				}
			}
		}
	}
}

func benchReduction(b *testing.B, n, size int, op, alg string) {
	b.ReportAllocs()
	b.SetBytes(int64(size))
	err := gompi.Run(n, func(c *gompi.Comm) error {
		with := gompi.WithAlgorithm(alg)
		in, out := make([]float32, size/4), make([]float32, size/4)
		for i := range in {
			in[i] = float32(c.Rank() + i%7)
		}
		call := largeReductions[op]
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		for i := 0; i < b.N; i++ {
			if err := call(c, in, out, with); err != nil {
				return err
			}
			if err := c.Barrier(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
