package osu

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

func TestBlockSize(t *testing.T) {
	for _, tt := range []struct{ size, n, want int }{
		{8, 2, 4},      // one float each
		{8, 8, 4},      // at least one float
		{1024, 8, 128}, // an even split
		{1000, 3, 332}, // rounded down to whole floats
		{1 << 20, 8, 131072},
	} {
		if got := BlockSize(tt.size, tt.n); got != tt.want {
			t.Errorf("BlockSize(%d, %d) = %d, want %d", tt.size, tt.n, got, tt.want)
		}
	}
}

func TestUniform(t *testing.T) {
	counts, displs := uniform(3, 5)
	for i := range 3 {
		if counts[i] != 5 || displs[i] != 5*i {
			t.Fatalf("uniform(3, 5) = %v, %v", counts, displs)
		}
	}
}

func TestSummarize(t *testing.T) {
	var s Samples
	s.reset(1000)
	for i := range 1000 {
		us := 1.0
		switch {
		case i == 10:
			us = 100 // one call over 20 µs
		case i%100 == 5:
			us = 6 // ten calls over 5 µs
		}
		s.add(float64(i), us)
	}
	d := s.Summarize(5, 3)
	if d.Iters != 1000 || d.P50 != 1 || d.P90 != 1 || d.P99 != 6 || d.P999 != 6 || d.Max != 100 {
		t.Errorf("quantiles: %+v", d)
	}
	if d.Over5 != 11 || d.Over20 != 1 {
		t.Errorf("over5 %d over20 %d, want 11 and 1", d.Over5, d.Over20)
	}
	if want := (10*5 + 99) / 1000.0; d.Excess != want {
		t.Errorf("excess %v, want %v", d.Excess, want)
	}
	if len(d.Slow) != 3 || d.Slow[0] != [2]float64{5, 6} || d.Slow[1] != [2]float64{10, 100} {
		t.Errorf("slow %v: want the first three calls over 5 µs", d.Slow)
	}
	if want := (999*1.0 + 10*5 + 100) / 1000; d.Mean-want > 1e-9 || want-d.Mean > 1e-9 {
		t.Errorf("mean %v, want %v", d.Mean, want)
	}
	if e := (&Samples{}).Summarize(5, 3); e.Iters != 0 || e.Max != 0 {
		t.Errorf("empty: %+v", e)
	}
}

func TestSnapThreads(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a := SnapThreads()
	x := 0
	for i := range 10_000_000 {
		x += i
	}
	_ = x
	b := SnapThreads()
	if len(a) == 0 {
		t.Skip("no /proc/self/task")
	}
	if _, ok := a[unix.Gettid()]; !ok {
		t.Errorf("the calling thread %d is not in %v", unix.Gettid(), a)
	}
	for _, d := range b.Since(a) {
		if d.RunUs < 0 || d.Slices < 0 || d.Vcsw < 0 || d.Ivcsw < 0 || d.Comm == "" {
			t.Errorf("thread: %+v", d)
		}
	}
}
