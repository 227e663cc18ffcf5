// Package osu times collectives the way the OSU Micro-Benchmarks do: for
// each size, skip a few calls, then time each call on its own with a
// barrier between calls (back-to-back barriers for Barrier itself), and
// report the average, minimum and maximum over ranks of each rank's mean
// time per call. It exists to compare gompi with an MPI library side by
// side: benches/ref/osu_coll.c does exactly the same over MPI.
//
// The method has the systematic errors the mpiperf suite is built to avoid
// (see docs/MPIPERF.md); it is here because it is what everyone reports.
package osu

import (
	"fmt"

	"github.com/gompi/gompi/gompi"
)

// Config is one run's parameters.
type Config struct {
	Op          string // one of Ops
	Sizes       []int  // bytes: see Ops for what the size of each operation is
	Iters, Skip int    // calls timed and skipped per size, up to LargeSize
	ItersLarge  int    // the same above LargeSize
	SkipLarge   int
	LargeSize   int
	// WarmupMS, when above 0, makes untimed calls of the first size for
	// this many milliseconds (rank 0's clock) before its skipped calls:
	// a Go process's first milliseconds are noisier than its steady state
	// (the runtime's monitor thread wakes every 20 µs at first), and the
	// small sizes, measured first, would time the start of the process.
	// benches/ref/osu_coll.c's --warmup-ms does the same.
	WarmupMS  float64
	Algorithm string // a coll algorithm name, "" for the default choice
	Coll      string // overlap only: one of OverlapColls, "" for point-to-point
	// Dist, when set, gets every rank's timed calls after each size
	// (Barrier then times each call on its own too, not the loop).
	Dist Recorder
}

// Defaults are OSU 7.4's.
func Defaults() Config {
	return Config{Op: "bcast", Iters: 1000, Skip: 200, ItersLarge: 100, SkipLarge: 10, LargeSize: 8192}
}

// Point is one measured size.
type Point struct {
	Op   string
	N    int
	Size int
	Avg  float64 // µs: mean over ranks of each rank's mean time per call
	Min  float64
	Max  float64
	// Loop is µs: rank 0's wall time per timed iteration of the whole
	// loop, the call and the barrier after it (for Barrier, the same as
	// its mean). The OSU figure (Avg) times the call alone, so a program
	// whose ranks wait in the barrier instead of in the call looks faster
	// there than it is; Loop is what a program of back-to-back calls
	// separated by barriers pays per iteration.
	Loop  float64
	Iters int
}

// Ops lists the operations Run knows: the collectives of MPI 2.2, in the
// order of its chapter 5. The size of a point is, as in the OSU tests, the
// message (bcast), the float32 vector (reduce, allreduce, scan, exscan),
// one rank's block (the gathers, scatters and all-to-alls; the v and w
// forms with every count equal), or the whole float32 vector that the
// reduce-scatters split into n blocks of BlockSize bytes.
// benches/ref/osu_coll.c knows the same names.
var Ops = []string{
	"barrier", "bcast", "gather", "gatherv", "scatter", "scatterv",
	"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw",
	"reduce", "allreduce", "reduce_scatter", "reduce_scatter_block", "scan", "exscan",
}

// BlockSize is each rank's part, in bytes, of a reduce-scatter of size
// bytes over n ranks: size/n rounded down to whole float32s, at least one.
func BlockSize(size, n int) int {
	return max(4, size/n&^3)
}

// uniform returns n counts of block and their displacements, back to back.
func uniform(n, block int) (counts, displs []int) {
	counts, displs = make([]int, n), make([]int, n)
	for i := range counts {
		counts[i], displs[i] = block, i*block
	}
	return counts, displs
}

// Run measures cfg.Op at every size on c; rank 0 gets the points.
func Run(c *gompi.Comm, cfg Config, emit func(Point) error) error {
	call, err := operation(c, cfg)
	if err != nil {
		return err
	}
	sizes := cfg.Sizes
	if cfg.Op == "barrier" {
		sizes = []int{0}
	}
	first := cfg.WarmupMS > 0
	for _, size := range sizes {
		iters, skip := cfg.Iters, cfg.Skip
		if size > cfg.LargeSize {
			iters, skip = cfg.ItersLarge, cfg.SkipLarge
		}
		run := call(size)
		if first {
			if err := warmUp(c, cfg, run); err != nil {
				return err
			}
			first = false
		}
		var total, loop float64
		var rec *Samples
		if cfg.Dist != nil {
			rec = new(Samples)
			rec.reset(iters)
			cfg.Dist.Begin(size)
		}
		if cfg.Op == "barrier" && rec != nil {
			for i := 0; i < skip; i++ {
				if err := run(); err != nil {
					return err
				}
			}
			start := gompi.Wtime()
			for i := 0; i < iters; i++ {
				t := gompi.Wtime()
				if err := run(); err != nil {
					return err
				}
				d := gompi.Wtime() - t
				total += d
				rec.add(t, d*1e6)
			}
			loop = gompi.Wtime() - start
		} else if cfg.Op == "barrier" {
			for i := 0; i < skip; i++ {
				if err := run(); err != nil {
					return err
				}
			}
			t := gompi.Wtime()
			for i := 0; i < iters; i++ {
				if err := run(); err != nil {
					return err
				}
			}
			total = gompi.Wtime() - t
			loop = total
		} else {
			var start float64
			for i := 0; i < skip+iters; i++ {
				t := gompi.Wtime()
				if i == skip {
					start = t
				}
				if err := run(); err != nil {
					return err
				}
				if i >= skip {
					d := gompi.Wtime() - t
					total += d
					if rec != nil {
						rec.add(t, d*1e6)
					}
				}
				if err := c.Barrier(); err != nil {
					return err
				}
			}
			loop = gompi.Wtime() - start
		}
		mean := total * 1e6 / float64(iters)
		if rec != nil {
			if err := cfg.Dist.End(size, rec); err != nil {
				return err
			}
		}
		var lo, hi, sum [1]float64
		if err := gompi.Reduce(c, []float64{mean}, lo[:], gompi.Min[float64](), 0); err != nil {
			return err
		}
		if err := gompi.Reduce(c, []float64{mean}, hi[:], gompi.Max[float64](), 0); err != nil {
			return err
		}
		if err := gompi.Reduce(c, []float64{mean}, sum[:], gompi.Sum[float64](), 0); err != nil {
			return err
		}
		if c.Rank() == 0 {
			p := Point{Op: cfg.Op, N: c.Size(), Size: size, Avg: sum[0] / float64(c.Size()), Min: lo[0], Max: hi[0], Loop: loop * 1e6 / float64(iters), Iters: iters}
			if err := emit(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// warmUp makes untimed calls (each followed by a Barrier, as the timed
// ones) in rounds of 100 until cfg.WarmupMS have passed on rank 0, which
// tells the others when to stop.
func warmUp(c *gompi.Comm, cfg Config, run func() error) error {
	start := gompi.Wtime()
	for more := []int32{1}; more[0] == 1; {
		for range 100 {
			if err := run(); err != nil {
				return err
			}
			if cfg.Op != "barrier" {
				if err := c.Barrier(); err != nil {
					return err
				}
			}
		}
		more[0] = 0
		if (gompi.Wtime()-start)*1e3 < cfg.WarmupMS {
			more[0] = 1
		}
		if err := gompi.Bcast(c, more, 0); err != nil {
			return err
		}
	}
	return nil
}

// operation returns, for the configured operation, a function that makes
// the call for one size (buffers allocated once per size).
func operation(c *gompi.Comm, cfg Config) (func(size int) func() error, error) {
	var opts []gompi.CollOption
	if cfg.Algorithm != "" {
		opts = append(opts, gompi.WithAlgorithm(cfg.Algorithm))
	}
	n := c.Size()
	switch cfg.Op {
	case "barrier":
		return func(int) func() error { return func() error { return c.Barrier(opts...) } }, nil
	case "bcast":
		return func(size int) func() error {
			buf := make([]byte, size)
			return func() error { return c.Bcast(buf, 0, opts...) }
		}, nil
	case "allreduce", "reduce":
		return func(size int) func() error {
			in, out := make([]float32, size/4), make([]float32, size/4)
			sum := gompi.Sum[float32]() // made once: the timed call is the collective alone
			if cfg.Op == "reduce" {
				return func() error { return gompi.Reduce(c, in, out, sum, 0, opts...) }
			}
			return func() error { return gompi.Allreduce(c, in, out, sum, opts...) }
		}, nil
	case "allgather", "allgatherv":
		return func(size int) func() error {
			in, out := make([]byte, size), make([]byte, size*n)
			if cfg.Op == "allgatherv" {
				counts, displs := uniform(n, size)
				return func() error { return c.Allgatherv(in, out, counts, displs, opts...) }
			}
			return func() error { return c.Allgather(in, out, opts...) }
		}, nil
	case "alltoall", "alltoallv", "alltoallw":
		return func(size int) func() error {
			in, out := make([]byte, size*n), make([]byte, size*n)
			counts, displs := uniform(n, size)
			switch cfg.Op {
			case "alltoallv":
				return func() error { return c.Alltoallv(in, counts, displs, out, counts, displs, opts...) }
			case "alltoallw":
				return func() error { return c.Alltoallw(in, counts, displs, out, counts, displs, opts...) }
			}
			return func() error { return c.Alltoall(in, out, opts...) }
		}, nil
	case "gather", "gatherv":
		return func(size int) func() error {
			in, out := make([]byte, size), make([]byte, size*n)
			if cfg.Op == "gatherv" {
				counts, displs := uniform(n, size)
				return func() error { return c.Gatherv(in, out, counts, displs, 0, opts...) }
			}
			return func() error { return c.Gather(in, out, 0, opts...) }
		}, nil
	case "scatter", "scatterv":
		return func(size int) func() error {
			in, out := make([]byte, size*n), make([]byte, size)
			if cfg.Op == "scatterv" {
				counts, displs := uniform(n, size)
				return func() error { return c.Scatterv(in, counts, displs, out, 0, opts...) }
			}
			return func() error { return c.Scatter(in, out, 0, opts...) }
		}, nil
	case "scan", "exscan":
		return func(size int) func() error {
			in, out := make([]float32, size/4), make([]float32, size/4)
			sum := gompi.Sum[float32]()
			if cfg.Op == "exscan" {
				return func() error { return gompi.Exscan(c, in, out, sum, opts...) }
			}
			return func() error { return gompi.Scan(c, in, out, sum, opts...) }
		}, nil
	case "reduce_scatter", "reduce_scatter_block":
		return func(size int) func() error {
			block := BlockSize(size, n) / 4
			in, out := make([]float32, block*n), make([]float32, block)
			sum := gompi.Sum[float32]()
			if cfg.Op == "reduce_scatter" {
				counts, _ := uniform(n, block)
				return func() error { return gompi.ReduceScatter(c, in, out, counts, sum, opts...) }
			}
			return func() error { return gompi.ReduceScatterBlock(c, in, out, sum, opts...) }
		}, nil
	}
	return nil, fmt.Errorf("--op %q: not one of %v", cfg.Op, Ops)
}
