package osu

import (
	"errors"
	"sort"
	"time"

	"github.com/gompi/gompi/gompi"
)

// OverlapPoint is one measured size of the overlap benchmark.
type OverlapPoint struct {
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
func RunOverlap(c *gompi.Comm, cfg Config, emit func(OverlapPoint) error) error {
	if c.Size()%2 != 0 {
		return errors.New("osu --op overlap: run an even number of ranks (they pair up)")
	}
	peer := c.Rank() ^ 1
	for _, size := range cfg.Sizes {
		iters, skip := cfg.Iters, cfg.Skip
		if size > cfg.LargeSize {
			iters, skip = cfg.ItersLarge, cfg.SkipLarge
		}
		buf := make([]byte, size)
		for i := range buf {
			buf[i] = byte(i)
		}
		transfer := func(work time.Duration) (float64, error) {
			if err := c.Barrier(); err != nil {
				return 0, err
			}
			t := gompi.Wtime()
			var r *gompi.Request
			var err error
			if c.Rank()%2 == 0 {
				r, err = c.Isend(buf, peer, 7)
			} else {
				r, err = c.Irecv(buf, peer, 7)
			}
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
			p := OverlapPoint{N: c.Size(), Size: size, Pure: sums[0] / n * 1e6, Compute: sums[1] / n * 1e6,
				Total: sums[2] / n * 1e6, Overlap: sums[3] / n, Iters: iters}
			if err := emit(p); err != nil {
				return err
			}
		}
	}
	return nil
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
	sink = x
}

var sink float64

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
