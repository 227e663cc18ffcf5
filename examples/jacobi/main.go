// Command jacobi solves the Laplace equation on a square (the Dirichlet
// problem: u fixed on the border, here 1 on the top edge and 0 on the
// others) by Jacobi iteration: every interior point becomes the mean of its
// four neighbours. The rows are split in strips across the ranks, and each
// iteration exchanges the edge rows with the neighbours (halo exchange).
//
// Two versions, as in the Performance Expert experiment:
//
//	naive    compute the strip, then send the edges and receive the
//	         neighbours' edges (send up and receive from below, then send
//	         down and receive from above)
//	overlap  the expert's advice: post the receives and send the edges
//	         first, compute the interior while they travel, then receive
//	         and compute the edge rows
//
//	golaunch -n 4 ./examples/jacobi --variant naive --n 1024 --iterations 200
//	golaunch --trace t -n 4 ./examples/jacobi --variant naive && goexpert report t
//
// --check compares the result with a sequential solve on rank 0.
package main

import (
	"errors"
	"fmt"
	"log"
	"math"
	"os"

	"github.com/gompi/gompi/gompi"
	"github.com/spf13/pflag"
)

// config is one run's parameters.
type config struct {
	n          int    // interior points per side
	iterations int    // Jacobi sweeps
	variant    string // naive or overlap
}

func main() {
	var cfg config
	pflag.IntVar(&cfg.n, "n", 480, "interior grid points per side (the grid is n x n)")
	pflag.IntVar(&cfg.iterations, "iterations", 500, "Jacobi iterations")
	pflag.StringVar(&cfg.variant, "variant", "naive", "naive or overlap")
	check := pflag.Bool("check", false, "compare the result with a sequential solve on rank 0")
	pflag.Parse()
	if err := gompi.Init(); err != nil {
		log.Fatal(err)
	}
	defer gompi.Finalize()
	w := gompi.World()
	if err := run(w, cfg, *check); err != nil {
		fmt.Fprintf(os.Stderr, "jacobi: rank %d: %v\n", w.Rank(), err)
		gompi.Abort(1)
	}
}

func run(w *gompi.Comm, cfg config, check bool) error {
	if cfg.variant != "naive" && cfg.variant != "overlap" {
		return fmt.Errorf("--variant %q: expected naive or overlap", cfg.variant)
	}
	if cfg.n < w.Size() {
		return fmt.Errorf("--n %d: need at least one row per rank (%d ranks)", cfg.n, w.Size())
	}
	if err := gompi.Barrier(w); err != nil {
		return err
	}
	t0 := gompi.Wtime()
	s, err := solve(w, cfg)
	if err != nil {
		return err
	}
	if err := gompi.Barrier(w); err != nil {
		return err
	}
	el := gompi.Wtime() - t0
	if w.Rank() == 0 {
		fmt.Printf("jacobi %s: %dx%d grid, %d iterations, %d ranks: %.6f s\n", cfg.variant, cfg.n, cfg.n, cfg.iterations, w.Size(), el)
	}
	if !check {
		return nil
	}
	full, err := s.collect(w)
	if err != nil || w.Rank() != 0 {
		return err
	}
	want := sequential(cfg.n, cfg.iterations)
	d := maxDiff(full, want)
	fmt.Printf("check against a sequential solve: max difference %.3g\n", d)
	if d > 1e-12 {
		return errors.New("the parallel result differs from the sequential one")
	}
	return nil
}

// strip is one rank's rows of the grid: local row 0 and rows+1 are the
// halos (the neighbours' edge rows, or the border).
type strip struct {
	n        int // interior points per side
	lo, rows int // first global row owned (1-based) and how many
	old, new []float64
	up, down int // neighbour ranks, -1 at the border
}

const (
	tagUp   = 1 // an edge row travelling to the rank above
	tagDown = 2 // to the rank below
)

func newStrip(w *gompi.Comm, n int) *strip {
	p, r := w.Size(), w.Rank()
	rows := n / p
	lo := 1 + r*rows + min(r, n%p)
	if r < n%p {
		rows++
	}
	s := &strip{n: n, lo: lo, rows: rows, up: r - 1, down: r + 1}
	if s.down == p {
		s.down = -1
	}
	stride := n + 2
	s.old = make([]float64, (rows+2)*stride)
	s.new = make([]float64, (rows+2)*stride)
	for _, g := range [][]float64{s.old, s.new} {
		border(g, n, lo-1, rows+2)
	}
	return s
}

// border sets the Dirichlet values on the rows [first, first+count) of the
// global grid held in g (global row first is g's row 0).
func border(g []float64, n, first, count int) {
	stride := n + 2
	for i := 0; i < count; i++ {
		if first+i == 0 {
			for j := 0; j < stride; j++ {
				g[i*stride+j] = 1
			}
		}
	}
}

func (s *strip) row(g []float64, i int) []float64 {
	stride := s.n + 2
	return g[i*stride : (i+1)*stride]
}

// sweep computes local rows [from, to] of new from old.
func (s *strip) sweep(from, to int) {
	stride := s.n + 2
	for i := from; i <= to; i++ {
		up, mid, down, out := s.old[(i-1)*stride:], s.old[i*stride:], s.old[(i+1)*stride:], s.new[i*stride:]
		for j := 1; j <= s.n; j++ {
			out[j] = 0.25 * (up[j] + down[j] + mid[j-1] + mid[j+1])
		}
	}
}

func solve(w *gompi.Comm, cfg config) (*strip, error) {
	s := newStrip(w, cfg.n)
	if cfg.variant == "naive" {
		// The naive version computes the whole strip at once, so its
		// halos must be there before the first iteration.
		if err := s.exchangeNaive(w, s.old); err != nil {
			return nil, err
		}
	}
	for it := 0; it < cfg.iterations; it++ {
		var err error
		if cfg.variant == "naive" {
			err = s.iterateNaive(w)
		} else {
			err = s.iterateOverlap(w)
		}
		if err != nil {
			return nil, err
		}
		s.old, s.new = s.new, s.old
	}
	return s, nil
}

// iterateNaive: compute the whole strip, then exchange its edges.
func (s *strip) iterateNaive(w *gompi.Comm) error {
	s.sweep(1, s.rows)
	return s.exchangeNaive(w, s.new)
}

// exchangeNaive sends g's edge rows to the neighbours and receives theirs
// into g's halos: first up (send up, receive from below), then down.
func (s *strip) exchangeNaive(w *gompi.Comm, g []float64) error {
	if s.up >= 0 {
		if err := gompi.Send(w, s.row(g, 1), s.up, tagUp); err != nil {
			return err
		}
	}
	if s.down >= 0 {
		if _, err := gompi.Recv(w, s.row(g, s.rows+1), s.down, tagUp); err != nil {
			return err
		}
		if err := gompi.Send(w, s.row(g, s.rows), s.down, tagDown); err != nil {
			return err
		}
	}
	if s.up >= 0 {
		if _, err := gompi.Recv(w, s.row(g, 0), s.up, tagDown); err != nil {
			return err
		}
	}
	return nil
}

// iterateOverlap follows the expert's advice: send the edge rows first
// (and post the receives of the halos), compute the interior rows while the
// messages travel, then wait for the halos and compute the edge rows.
func (s *strip) iterateOverlap(w *gompi.Comm) error {
	reqs := make([]*gompi.Request, 0, 4)
	post := func(r *gompi.Request, err error) error {
		if err == nil {
			reqs = append(reqs, r)
		}
		return err
	}
	if s.up >= 0 {
		if err := post(gompi.Irecv(w, s.row(s.old, 0), s.up, tagDown)); err != nil {
			return err
		}
		if err := post(gompi.Isend(w, s.row(s.old, 1), s.up, tagUp)); err != nil {
			return err
		}
	}
	if s.down >= 0 {
		if err := post(gompi.Irecv(w, s.row(s.old, s.rows+1), s.down, tagUp)); err != nil {
			return err
		}
		if err := post(gompi.Isend(w, s.row(s.old, s.rows), s.down, tagDown)); err != nil {
			return err
		}
	}
	s.sweep(2, s.rows-1) // the interior: needs no halo
	if err := gompi.Waitall(reqs, nil); err != nil {
		return err
	}
	s.sweep(1, 1)
	if s.rows > 1 {
		s.sweep(s.rows, s.rows)
	}
	return nil
}

// collect gathers the strips on rank 0 into the full (n+2)x(n+2) grid.
func (s *strip) collect(w *gompi.Comm) ([]float64, error) {
	stride := s.n + 2
	mine := s.old[stride : (s.rows+1)*stride]
	if w.Rank() != 0 {
		meta := []int64{int64(s.lo), int64(s.rows)}
		if err := gompi.Send(w, meta, 0, 3); err != nil {
			return nil, err
		}
		return nil, gompi.Send(w, mine, 0, 4)
	}
	full := make([]float64, stride*stride)
	border(full, s.n, 0, stride)
	copy(full[s.lo*stride:], mine)
	for r := 1; r < w.Size(); r++ {
		meta := make([]int64, 2)
		if _, err := gompi.Recv(w, meta, r, 3); err != nil {
			return nil, err
		}
		if _, err := gompi.Recv(w, full[int(meta[0])*stride:int(meta[0]+meta[1])*stride], r, 4); err != nil {
			return nil, err
		}
	}
	return full, nil
}

// sequential is the reference: the same sweeps on the whole grid.
func sequential(n, iterations int) []float64 {
	stride := n + 2
	old, new := make([]float64, stride*stride), make([]float64, stride*stride)
	border(old, n, 0, stride)
	border(new, n, 0, stride)
	for it := 0; it < iterations; it++ {
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				new[i*stride+j] = 0.25 * (old[(i-1)*stride+j] + old[(i+1)*stride+j] + old[i*stride+j-1] + old[i*stride+j+1])
			}
		}
		old, new = new, old
	}
	return old
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
