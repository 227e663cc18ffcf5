package main

import (
	"fmt"
	"os"
	"time"

	"github.com/gompi/gompi/benches/internal/params"
	"github.com/gompi/gompi/benches/internal/report"
	"github.com/gompi/gompi/benches/internal/tty"
	"github.com/gompi/gompi/benches/osu"
	"github.com/gompi/gompi/gompi"
)

func init() {
	register("osu", "collectives and one-sided operations timed the OSU way, for side-by-side runs with MPI", runOSU)
}

func runOSU(args []string) error {
	fs := newFlags("osu", "--op OP [flags]   (under golaunch)")
	cfg := osu.Defaults()
	fs.StringVar(&cfg.Op, "op", cfg.Op, fmt.Sprintf("operation: %v, or overlap (nonblocking point-to-point overlapped with computation, in pairs of ranks), or one-sided: %v", osu.Ops, osu.OneSidedOps))
	rma := osu.OneSidedDefaults()
	fs.StringVarP(&rma.Win, "win", "w", rma.Win, fmt.Sprintf("one-sided: how the window is made: %v", osu.WinKinds))
	fs.StringVarP(&rma.Sync, "sync", "s", rma.Sync, fmt.Sprintf("one-sided: synchronization: %v", osu.SyncKinds))
	fs.IntVar(&rma.WindowSize, "window-size", rma.WindowSize, "one-sided bandwidth: operations per synchronization")
	sizes := params.Sizes{8, 1 << 10, 64 << 10, 1 << 20}
	fs.Var(&sizes, "sizes", "message sizes in bytes (list, or a progression such as 8..1M)")
	fs.IntVar(&cfg.Iters, "iters", cfg.Iters, "timed calls per size up to --large")
	fs.IntVar(&cfg.Skip, "skip", cfg.Skip, "untimed calls per size up to --large")
	fs.IntVar(&cfg.ItersLarge, "iters-large", cfg.ItersLarge, "timed calls per size above --large")
	fs.IntVar(&cfg.SkipLarge, "skip-large", cfg.SkipLarge, "untimed calls per size above --large")
	fs.IntVar(&cfg.LargeSize, "large", cfg.LargeSize, "bytes above which the -large counts apply")
	fs.Float64Var(&cfg.WarmupMS, "warmup-ms", 0, "untimed calls of the first size for this many milliseconds before its skipped calls (a Go process's first milliseconds are noisier than its steady state)")
	fs.StringVar(&cfg.Algorithm, "alg", "", "collective algorithm (default: gompi's selection)")
	fs.StringVar(&cfg.Coll, "coll", "", fmt.Sprintf("overlap: time this nonblocking collective instead of point-to-point: %v", osu.OverlapColls))
	format := report.Text
	fs.Var(&format, "format", "output: text, csv or json")
	distPrefix := fs.String("dist", "", "also write each rank's distribution of its timed calls per size (quantiles, calls over 5 and 20 µs, the slow calls with their CLOCK_MONOTONIC start) as JSON lines into PREFIX.RANK.jsonl (Barrier then times each call)")
	distSlow := fs.Float64("dist-slow", 5, "--dist: list the calls slower than this many µs")
	settle := fs.Duration("settle", 0, "spin this long after Init (no calls, no system calls) before the first size: to tell the process's age from warm-up calls")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	for _, s := range sizes {
		cfg.Sizes = append(cfg.Sizes, int(s))
	}
	initStart := time.Now()
	if err := gompi.Init(); err != nil {
		return err
	}
	initTook := time.Since(initStart)
	defer gompi.Finalize()
	c := gompi.World()
	if cfg.Op == "overlap" {
		return runOverlap(c, cfg, format)
	}
	if osu.IsOneSided(cfg.Op) {
		rma.Op, rma.Sizes = cfg.Op, cfg.Sizes
		set := func(name string, v *int, from int) {
			if fs.Changed(name) {
				*v = from
			}
		}
		set("iters", &rma.Iters, cfg.Iters)
		set("skip", &rma.Skip, cfg.Skip)
		set("iters-large", &rma.ItersLarge, cfg.ItersLarge)
		set("skip-large", &rma.SkipLarge, cfg.SkipLarge)
		set("large", &rma.LargeSize, cfg.LargeSize)
		return runOSUOneSided(c, rma, format)
	}
	if *settle > 0 {
		for t := time.Now(); time.Since(t) < *settle; {
		}
		if err := c.Barrier(); err != nil {
			return err
		}
	}
	if *distPrefix != "" {
		w, err := newDistWriter(*distPrefix, c, cfg.Op, *distSlow)
		if err != nil {
			return err
		}
		defer w.close()
		w.initMs = float64(initTook.Microseconds()) / 1e3
		cfg.Dist = w
	}
	// loop_us: rank 0's wall time per iteration of the whole timed loop,
	// the barrier between calls included (osu.Point.Loop).
	t := report.NewTable("op", "n", "size", "avg_us", "min_us", "max_us", "iters", "loop_us")
	t.SetVerb("avg_us", "%.2f")
	t.SetVerb("min_us", "%.2f")
	t.SetVerb("max_us", "%.2f")
	t.SetVerb("loop_us", "%.2f")
	// A line per size on stderr when a person watches it (rank 0).
	progress := c.Rank() == 0 && tty.Is(os.Stderr)
	err := osu.Run(c, cfg, func(p osu.Point) error {
		t.Add(p.Op, p.N, p.Size, p.Avg, p.Min, p.Max, p.Iters, p.Loop)
		if progress {
			fmt.Fprintf(os.Stderr, "osu: %s n=%d size=%s: %.2f µs\n", p.Op, p.N, params.FormatSize(int64(p.Size)), p.Avg)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.Rank() == 0 {
		return t.Write(os.Stdout, format)
	}
	return nil
}

// runOverlap runs and reports osu --op overlap.
func runOverlap(c *gompi.Comm, cfg osu.Config, format report.Format) error {
	t := report.NewTable("op", "n", "size", "pure_us", "compute_us", "total_us", "overlap_pct", "iters")
	for _, col := range []string{"pure_us", "compute_us", "total_us", "overlap_pct"} {
		t.SetVerb(col, "%.1f")
	}
	err := osu.RunOverlap(c, cfg, func(p osu.OverlapPoint) error {
		t.Add(p.Op, p.N, p.Size, p.Pure, p.Compute, p.Total, p.Overlap, p.Iters)
		return nil
	})
	if err != nil || c.Rank() != 0 {
		return err
	}
	return t.Write(os.Stdout, format)
}

// runOSUOneSided runs and reports the one-sided tests of osu.
func runOSUOneSided(c *gompi.Comm, cfg osu.OneSided, format report.Format) error {
	t := report.NewTable("op", "win", "sync", "n", "size", "value", "unit", "iters")
	t.SetVerb("value", "%.2f")
	err := osu.RunOneSided(c, cfg, func(p osu.RMAPoint) error {
		t.Add(p.Op, p.Win, p.Sync, p.N, p.Size, p.Value, p.Unit, p.Iters)
		return nil
	})
	if err != nil {
		return err
	}
	if c.Rank() == 0 {
		return t.Write(os.Stdout, format)
	}
	return nil
}
