package systest

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/plot"
)

// Test 2: one thread writes a block of k bytes sequentially, k from
// --min-block to --max-block, times --block-factor. Each measurement rewrites the same
// block (so a block that fits a cache is written into that cache, as in
// lmbench's bw_mem or pmbw); a measurement of a small block writes it
// several times and gives the time per write. Three writers side by side:
//   - go-loop: a Go loop of 8-byte stores;
//   - go-clear: Go's clear() (the runtime's vectorised memclr);
//   - c-store: the same loop in C (csrc/memwrite.c) compiled -O2;
//   - c-memset: the C library's memset, the counterpart of go-clear.
//
// The seed wrote blocks of k MB through one array of 80 % of memory; we
// rewrite one block in place so that the caches show, and keep the largest
// block to --mem-share of available memory (see docs/SYSTEST.md).

func blockSizes(lo, hi, factor int64) []int64 {
	var s []int64
	for k := lo; k <= hi; k *= factor {
		s = append(s, k)
	}
	return s
}

// repsFor is how many writes of a block make one measurement of at least
// about 1 MiB written, so that small blocks are timed over many microseconds.
func repsFor(size int64) int { return int(max(1, (1<<20)/size)) }

func runMemWrite(e *env) error {
	sizes := blockSizes(e.cfg.MinBlock, e.cfg.MaxBlock, e.cfg.BlockFactor)
	buf, err := unix.Mmap(-1, 0, int(e.cfg.MaxBlock), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return fmt.Errorf("mapping %s: %w", params.FormatSize(e.cfg.MaxBlock), err)
	}
	defer unix.Munmap(buf)
	clear(buf) // first touch, outside the timing
	words := unsafeWords(buf)
	cb := e.cRefs()
	var cl []string
	for _, c := range caches(e.topo) {
		cl = append(cl, fmt.Sprintf("%s %s", c.name, params.FormatSize(c.size)))
	}
	fmt.Fprintf(e.out, "blocks %s to %s; caches (per core, from %s): %v\n", params.FormatSize(sizes[0]), params.FormatSize(sizes[len(sizes)-1]), cacheSource(e), cl)
	for _, size := range sizes {
		reps := repsFor(size)
		b := buf[:size]
		w := words[:size/8]
		setting := params.FormatSize(size)
		for _, impl := range []string{"go-loop", "go-clear"} {
			var pass uint64
			_, err := e.measure(Row{Test: "memwrite", Case: "block " + setting, Impl: impl, Bytes: float64(size)}, func() (float64, error) {
				t0 := time.Now()
				for range reps {
					pass++
					if impl == "go-loop" {
						storeWords(w, pass)
					} else {
						clear(b)
					}
				}
				return time.Since(t0).Seconds() / float64(reps), nil
			})
			if err != nil {
				return err
			}
		}
		if _, ok := cb.bins["memwrite"]; !ok {
			continue
		}
		for _, mode := range []string{"store", "memset"} {
			_, err := e.measureRounds(Row{Test: "memwrite", Case: "block " + setting, Impl: "c-" + mode, Bytes: float64(size)}, func(k int, deadline time.Time) ([]float64, error) {
				return cb.run("memwrite", mode, strconv.FormatInt(size, 10), strconv.Itoa(reps), strconv.Itoa(k), limitArg(deadline))
			})
			if err != nil {
				return err
			}
		}
	}
	e.memRatios()
	return e.memPlots()
}

func cacheSource(e *env) string {
	if c := caches(e.topo); len(c) > 0 {
		return c[0].source
	}
	return "nowhere: unknown"
}

// storeWords is the Go store loop, unrolled by eight.
func storeWords(w []uint64, v uint64) {
	i := 0
	for ; i+8 <= len(w); i += 8 {
		w[i], w[i+1], w[i+2], w[i+3] = v, v, v, v
		w[i+4], w[i+5], w[i+6], w[i+7] = v, v, v, v
	}
	for ; i < len(w); i++ {
		w[i] = v
	}
}

// cCounterpart pairs each Go writer with the C one that does the same.
var cCounterpart = map[string]string{"go-loop": "c-store", "go-clear": "c-memset"}

// memRatios prints Go/C bandwidth per block size (above 1: Go faster).
func (e *env) memRatios() {
	type key struct{ block, impl string }
	c := map[key]Row{}
	for _, r := range e.rows {
		if r.Test == "memwrite" && strings.HasPrefix(r.Impl, "c-") && r.Res.OK() {
			c[key{r.Case, r.Impl}] = r
		}
	}
	if len(c) == 0 {
		return
	}
	fmt.Fprintf(e.out, "\nGo / C bandwidth, of the means and of the medians (above 1: Go faster; the target is 0.9 or more), rows accepted by both only:\n")
	tb := newRatioTable("case", "go", "c")
	for _, r := range e.rows {
		if cr, ok := c[key{r.Case, cCounterpart[r.Impl]}]; ok && r.Test == "memwrite" && r.Res.OK() {
			tb.add(r.GBps()/cr.GBps(), cr.Median()/r.Median(), r.Case, r.Impl, cr.Impl)
		}
	}
	tb.write(e.out)
}

// memPlots draws time per block and bandwidth against block size, log-log,
// with the cache sizes as vertical lines. The points are the rows' medians:
// on a busy machine a few preempted measurements make the means jump from
// one block size to the next and hide the caches' steps.
func (e *env) memPlots() error {
	if e.cfg.PlotDir == "" {
		return nil
	}
	series := map[string]*[2]plot.Series{}
	var order []string
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, r := range e.rows {
		if r.Test != "memwrite" {
			continue
		}
		s, ok := series[r.Impl]
		if !ok {
			s = &[2]plot.Series{{Name: r.Impl}, {Name: r.Impl}}
			series[r.Impl] = s
			order = append(order, r.Impl)
		}
		for i, y := range []float64{r.Median(), r.rate(r.Median())} {
			s[i].X = append(s[i].X, r.Bytes)
			s[i].Y = append(s[i].Y, y)
			lo[i], hi[i] = math.Min(lo[i], y), math.Max(hi[i], y)
		}
	}
	if len(order) == 0 {
		return nil
	}
	for i, f := range []struct{ file, ylabel, title string }{
		{"memwrite-time.svg", "seconds per block (log)", "Test 2: time to write one block (medians)"},
		{"memwrite-rate.svg", "GB/s (log)", "Test 2: single-thread write bandwidth (medians)"},
	} {
		p := &plot.Plot{Title: f.title, XLabel: "block size (log)", YLabel: f.ylabel, XScale: plot.Log2, YScale: plot.Log,
			XFormat: func(v float64) string { return params.FormatSize(int64(v)) }}
		for _, name := range order {
			p.Series = append(p.Series, series[name][i])
		}
		for _, c := range caches(e.topo) {
			p.Series = append(p.Series, plot.Series{Name: fmt.Sprintf("%s %s", c.name, params.FormatSize(c.size)),
				X: []float64{float64(c.size), float64(c.size)}, Y: []float64{lo[i], hi[i]}, Mode: plot.Lines})
		}
		if err := e.writePlot(f.file, p); err != nil {
			return err
		}
	}
	return nil
}
