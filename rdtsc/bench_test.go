package rdtsc

import (
	"testing"
	"time"
)

// Read overhead per source: go test -run '^$' -bench . ./rdtsc
// Each benchmark reports ns/read; the loop body is one read. BenchmarkTSCNow
// calls the concrete type (inlined around the assembly); BenchmarkClockNow
// goes through the Clock interface, as code that picks a clock by name does.

var sinkU uint64
var sinkF float64
var sinkI int64

func BenchmarkStart(b *testing.B) {
	var s uint64
	for b.Loop() {
		s += Start()
	}
	sinkU = s
	report(b)
}

func BenchmarkEnd(b *testing.B) {
	var s uint64
	for b.Loop() {
		s += End()
	}
	sinkU = s
	report(b)
}

func BenchmarkTSCNow(b *testing.B) {
	c, err := TSC()
	if err != nil {
		b.Skip(err)
	}
	var s float64
	for b.Loop() {
		s += c.Now()
	}
	sinkF = s
	report(b)
}

// BenchmarkClockNow reads each source through the Clock interface, as code
// that selects a clock by name does.
func BenchmarkClockNow(b *testing.B) {
	for _, name := range Names() {
		c, err := ByName(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			var s float64
			for b.Loop() {
				s += c.Now()
			}
			sinkF = s
			report(b)
		})
	}
}

// BenchmarkRawNanos is the CLOCK_MONOTONIC_RAW system call that calibration
// reads (no vDSO path in Go for it).
func BenchmarkRawNanos(b *testing.B) {
	var s float64
	for b.Loop() {
		s += rawNanos()
	}
	sinkF = s
	report(b)
}

// BenchmarkTimeNow is time.Now, which reads both the wall and the monotonic
// clock, for comparison.
func BenchmarkTimeNow(b *testing.B) {
	var s int64
	for b.Loop() {
		s += time.Now().UnixNano()
	}
	sinkI = s
	report(b)
}

func report(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/read")
}
