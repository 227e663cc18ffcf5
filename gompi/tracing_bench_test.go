//go:build !mpi && !mpich

package gompi

import (
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/gompi/gompi/rdtsc"
)

// countingClock is a clock that costs one atomic add to read: a nanosecond a
// reading.
type countingClock struct {
	rdtsc.Clock
	n atomic.Int64
}

func (c *countingClock) Now() float64 { return float64(c.n.Add(1)) * 1e-9 }

// The overhead of tracing (docs/PERFORMANCE.md, "Tracing"):
//
//	go test -run '^$' -bench 'Trac' -benchmem -count 5 ./gompi
//
// BenchmarkTracingOff compares a call with its untraced inner path (the
// difference is the interposition point: one atomic load and a branch);
// BenchmarkTracingOn records every call into a trace file (ns/op over the
// untraced call is the cost per event, allocs/op must be 0);
// BenchmarkTracedPingPong runs an 8-byte ping-pong with tracing off and on.

// traceBench runs f as rank 0 of a one-rank Run, with tracing on into a
// temporary directory when on is set.
func traceBench(b *testing.B, on bool, f func(c *Comm)) {
	if on {
		b.Setenv("GOMPI_TRACE", benchDir(b))
	} else {
		b.Setenv("GOMPI_TRACE", "")
	}
	defer SetTracer(nil)
	if err := Run(1, func(c *Comm) error { f(c); return nil }); err != nil {
		b.Fatal(err)
	}
}

// cpuNanos is the CPU time this process has used (every goroutine: the
// caller's and the trace writer's), in nanoseconds. On a loaded machine the
// wall time per operation mostly measures waiting for a CPU; the CPU time per
// operation is what the operation costs.
func cpuNanos() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadNanos is the CPU time of the calling thread, in nanoseconds.
func threadNanos() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return float64(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f b.N times (b.Loop) and reports the CPU time per call: of the
// whole process (cpu-ns/op: the caller and the trace writer's goroutine,
// which writes the file on another core), and of the calling thread alone
// (caller-cpu-ns/op: what the call itself costs).
func loop(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	t0, c0 := cpuNanos(), threadNanos()
	for b.Loop() {
		f()
	}
	b.ReportMetric((threadNanos()-c0)/float64(b.N), "caller-cpu-ns/op")
	b.ReportMetric((cpuNanos()-t0)/float64(b.N), "cpu-ns/op")
}

// benchDir is a directory for the trace files in memory (/dev/shm) where
// there is one, so that the benchmarks measure recording, not the disk.
func benchDir(b *testing.B) string {
	dir, err := os.MkdirTemp("/dev/shm", "tracebench-")
	if err != nil {
		return b.TempDir()
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func BenchmarkTracingOff(b *testing.B) {
	b.Run("Iprobe", func(b *testing.B) {
		traceBench(b, false, func(c *Comm) {
			loop(b, func() { c.Iprobe(0, 0) })
		})
	})
	b.Run("Iprobe-untraced-path", func(b *testing.B) {
		traceBench(b, false, func(c *Comm) {
			loop(b, func() { c.c.Iprobe(0, 0) })
		})
	})
	b.Run("Send-ProcNull", func(b *testing.B) {
		traceBench(b, false, func(c *Comm) {
			loop(b, func() { c.Send(nil, ProcNull, 0) })
		})
	})
	b.Run("Send-ProcNull-untraced-path", func(b *testing.B) {
		traceBench(b, false, func(c *Comm) {
			loop(b, func() { c.send("Send", nil, ProcNull, 0, 0) })
		})
	})
}

func BenchmarkTracingOn(b *testing.B) {
	b.Run("Send-ProcNull", func(b *testing.B) {
		traceBench(b, true, func(c *Comm) {
			for i := 0; i < 10000; i++ { // warm: sites resolved, buffers cycled once
				c.Send(nil, ProcNull, 0)
			}
			loop(b, func() { c.Send(nil, ProcNull, 0) })
		})
	})
	// The recorder's own cost: the same with a clock that costs nothing to
	// read (on a virtual machine a clock read can cost 100 ns or more;
	// rdtsc's benchmarks measure it).
	b.Run("Send-ProcNull-freeclock", func(b *testing.B) {
		traceBench(b, true, func(c *Comm) {
			theRec.setClock(&countingClock{Clock: theRec.clk})
			for i := 0; i < 10000; i++ {
				c.Send(nil, ProcNull, 0)
			}
			loop(b, func() { c.Send(nil, ProcNull, 0) })
		})
	})
	b.Run("Iprobe", func(b *testing.B) {
		traceBench(b, true, func(c *Comm) {
			for i := 0; i < 10000; i++ {
				c.Iprobe(0, 0)
			}
			loop(b, func() { c.Iprobe(0, 0) })
		})
	})
}

func BenchmarkTracedPingPong(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			if on {
				b.Setenv("GOMPI_TRACE", benchDir(b))
			} else {
				b.Setenv("GOMPI_TRACE", "")
			}
			defer SetTracer(nil)
			var t0 float64
			err := Run(2, func(c *Comm) error {
				buf := make([]byte, 8)
				me := c.Rank()
				if err := c.Barrier(); err != nil {
					return err
				}
				if me == 0 {
					b.ResetTimer()
					t0 = cpuNanos()
				}
				for i := 0; i < b.N; i++ {
					if me == 0 {
						if err := c.Send(buf, 1, 0); err != nil {
							return err
						}
						if _, err := c.Recv(buf, 1, 0); err != nil {
							return err
						}
					} else {
						if _, err := c.Recv(buf, 0, 0); err != nil {
							return err
						}
						if err := c.Send(buf, 0, 0); err != nil {
							return err
						}
					}
				}
				if me == 0 {
					b.StopTimer()
					b.ReportMetric((cpuNanos()-t0)/float64(b.N), "cpu-ns/round-trip")
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/one-way")
		})
	}
}

var sinkBox *tracerBox

// BenchmarkInterposition is what tracing costs a call when it is off: the
// load of the tracer and the branch every public operation does.
func BenchmarkInterposition(b *testing.B) {
	SetTracer(nil)
	n := 0
	b.Run("load-and-branch", func(b *testing.B) {
		loop(b, func() {
			if t := tracer.Load(); t != nil {
				sinkBox = t
			}
			n++
		})
	})
	b.Run("empty", func(b *testing.B) { loop(b, func() { n++ }) }) // the loop alone
}
