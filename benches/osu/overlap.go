package osu

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/gompi"
)

// OverlapColls are the nonblocking collectives the overlap benchmark can
// time instead of point-to-point (Config.Coll). The size is, as for the
// blocking ones in Ops, the float32 vector (iallreduce), the message
// (ibcast) or one rank's block (iallgather, ialltoall); ibarrier has none.
var OverlapColls = []string{"iallreduce", "ibcast", "iallgather", "ialltoall", "ibarrier"}

// OverlapPoint is one measured size of the overlap benchmark.
type OverlapPoint struct {
	Op      string // "overlap" (point-to-point) or the collective of Config.Coll
	N, Size int
	Pure    float64 // µs: Isend/Irecv then Wait, nothing in between
	Compute float64 // µs: the computation alone (as long as Pure)
	Total   float64 // µs: Isend/Irecv, the computation, then Wait
	Overlap float64 // %: how much of the transfer hid behind the computation
	Iters   int
}

// RunOverlap measures how much a nonblocking transfer overlaps computation,
// the way OSU's nonblocking benchmarks do (osu_ialltoall and kin), for
// point-to-point: ranks pair up (0 with 1, 2 with 3, …); the even rank of a
// pair Isends Size bytes, the odd one Irecvs them, both compute for the
// time the bare transfer takes, then Wait. With t_pure the bare transfer,
// t_comp the computation alone and t_total the whole,
//
//	overlap = 100 × (1 − (t_total − t_comp) / t_pure), clamped to 0..100
//
// 100 % means the transfer finished entirely during the computation: the
// engine's progress moved it while the program computed without calling
// gompi. 0 % means nothing moved until Wait. Each call is timed on its own,
// with a barrier between calls; the figures are medians over calls (OSU
// takes means; medians keep a call that lost its CPU on a loaded machine
// from deciding the result), then means over ranks.
//
// With Config.Coll set, every rank starts that nonblocking collective
// instead (osu_iallreduce and kin: the same three timings, the same
// formula), and any number of ranks may run.
func RunOverlap(c *gompi.Comm, cfg Config, emit func(OverlapPoint) error) error {
	if cfg.Coll != "" && !slices.Contains(OverlapColls, cfg.Coll) {
		return fmt.Errorf("osu --op overlap --coll %q: not one of %v", cfg.Coll, OverlapColls)
	}
	if cfg.Coll == "" && c.Size()%2 != 0 {
		return errors.New("osu --op overlap: run an even number of ranks (they pair up)")
	}
	op := cfg.Coll
	if op == "" {
		op = "overlap"
	}
	for _, size := range cfg.Sizes {
		iters, skip := cfg.Iters, cfg.Skip
		if size > cfg.LargeSize {
			iters, skip = cfg.ItersLarge, cfg.SkipLarge
		}
		start := overlapStarter(c, cfg.Coll, size)
		transfer := func(work time.Duration) (float64, error) {
			if err := c.Barrier(); err != nil {
				return 0, err
			}
			t := gompi.Wtime()
			r, err := start()
			if err != nil {
				return 0, err
			}
			compute(work)
			if _, err := r.Wait(); err != nil {
				return 0, err
			}
			return gompi.Wtime() - t, nil
		}
		// The bare transfer's time, from the warm-up calls, sets the
		// computation's length: every rank computes for the slowest rank's.
		var warm []float64
		for i := 0; i < max(skip, 3); i++ {
			d, err := transfer(0)
			if err != nil {
				return err
			}
			warm = append(warm, d)
		}
		var slowest [1]float64
		if err := gompi.Allreduce(c, []float64{median(warm)}, slowest[:], gompi.Max[float64]()); err != nil {
			return err
		}
		work := time.Duration(slowest[0] * 1e9)
		// The three measurements alternate call by call, so that the
		// machine's changing load hits them alike, and the medians keep a
		// call that lost its CPU from weighing on the result.
		pures, comps, totals := make([]float64, iters), make([]float64, iters), make([]float64, iters)
		for i := 0; i < iters; i++ {
			var err error
			if pures[i], err = transfer(0); err != nil {
				return err
			}
			t := gompi.Wtime()
			compute(work)
			comps[i] = gompi.Wtime() - t
			if totals[i], err = transfer(work); err != nil {
				return err
			}
		}
		pure, comp, total := median(pures), median(comps), median(totals)
		overlap := 100 * (1 - (total-comp)/pure)
		overlap = max(0, min(100, overlap))
		mine := []float64{pure, comp, total, overlap}
		sums := make([]float64, len(mine))
		if err := gompi.Reduce(c, mine, sums, gompi.Sum[float64](), 0); err != nil {
			return err
		}
		if c.Rank() == 0 {
			n := float64(c.Size())
			p := OverlapPoint{Op: op, N: c.Size(), Size: size, Pure: sums[0] / n * 1e6, Compute: sums[1] / n * 1e6,
				Total: sums[2] / n * 1e6, Overlap: sums[3] / n, Iters: iters}
			if err := emit(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// overlapStarter returns what one timed call of the overlap benchmark
// starts: an Isend or Irecv between pairs of ranks (coll ""), or the
// nonblocking collective coll, over buffers of the given size made once.
func overlapStarter(c *gompi.Comm, coll string, size int) func() (*gompi.Request, error) {
	n := c.Size()
	fill := func(b []byte) []byte {
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}
	switch coll {
	case "iallreduce":
		in, out := make([]float32, size/4), make([]float32, size/4)
		sum := gompi.Sum[float32]()
		return func() (*gompi.Request, error) { return gompi.Iallreduce(c, in, out, sum) }
	case "ibcast":
		buf := fill(make([]byte, size))
		return func() (*gompi.Request, error) { return c.Ibcast(buf, 0) }
	case "iallgather":
		in, out := fill(make([]byte, size)), make([]byte, size*n)
		return func() (*gompi.Request, error) { return c.Iallgather(in, out) }
	case "ialltoall":
		in, out := fill(make([]byte, size*n)), make([]byte, size*n)
		return func() (*gompi.Request, error) { return c.Ialltoall(in, out) }
	case "ibarrier":
		return func() (*gompi.Request, error) { return c.Ibarrier() }
	}
	buf := fill(make([]byte, size))
	peer := c.Rank() ^ 1
	if c.Rank()%2 == 0 {
		return func() (*gompi.Request, error) { return c.Isend(buf, peer, 7) }
	}
	return func() (*gompi.Request, error) { return c.Irecv(buf, peer, 7) }
}

// compute keeps the CPU busy for d without calling gompi: the stand-in for
// the program's own work.
func compute(d time.Duration) {
	if d <= 0 {
		return
	}
	end := time.Now().Add(d)
	x := 1.0
	for time.Now().Before(end) {
		for k := 0; k < 200; k++ {
			x = x*1.0000001 + 1e-9
		}
	}
	sink.Store(math.Float64bits(x))
}

// sink keeps compute's result, so that its loop is not optimized away; it
// is atomic because ranks run as goroutines of one process under gompi.Run.
var sink atomic.Uint64

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
