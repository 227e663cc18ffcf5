package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/gompi/gompi/benches/osu"
	"github.com/gompi/gompi/gompi"
	"golang.org/x/sys/unix"
)

// distWriter writes benches osu --dist: one JSON line per size into
// PREFIX.RANK.jsonl, the slow calls' starts on CLOCK_MONOTONIC (seconds),
// the clock perf record -k mono stamps its events with.
type distWriter struct {
	f      *os.File
	w      *bufio.Writer
	op     string
	n      int
	rank   int
	slowUs float64
	offset float64 // CLOCK_MONOTONIC - gompi.Wtime, in seconds
	before osu.ThreadSnap
	began  time.Time // the size's Begin
	initMs float64   // how long gompi.Init took
}

// processStart is about when this process started: its package
// initialization (--dist reports each size's start and Init's length from
// it, to place them in the Go runtime's first milliseconds).
var processStart = time.Now()

func newDistWriter(prefix string, c *gompi.Comm, op string, slowUs float64) (*distWriter, error) {
	f, err := os.Create(fmt.Sprintf("%s.%d.jsonl", prefix, c.Rank()))
	if err != nil {
		return nil, err
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		f.Close()
		return nil, err
	}
	off := float64(ts.Nano())*1e-9 - gompi.Wtime()
	return &distWriter{f: f, w: bufio.NewWriter(f), op: op, n: c.Size(), rank: c.Rank(), slowUs: slowUs, offset: off}, nil
}

func (d *distWriter) Begin(int) {
	d.before = osu.SnapThreads()
	d.began = time.Now()
}

func (d *distWriter) End(size int, s *osu.Samples) error {
	threads := osu.SnapThreads().Since(d.before)
	ds := s.Summarize(d.slowUs, 2000)
	ds.Threads = threads
	ds.BeginMs = float64(d.began.Sub(processStart).Microseconds()) / 1e3
	ds.InitMs = d.initMs
	ds.Op, ds.N, ds.Size, ds.Rank = d.op, d.n, size, d.rank
	for i := range ds.Slow {
		ds.Slow[i][0] += d.offset
	}
	b, err := json.Marshal(ds)
	if err != nil {
		return err
	}
	d.w.Write(b)
	return d.w.WriteByte('\n')
}

func (d *distWriter) close() {
	d.w.Flush()
	d.f.Close()
}
