//go:build !mpi && !mpich

package gompi

import (
	"testing"
)

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
		b.Setenv("GOMPI_TRACE", b.TempDir())
	} else {
		b.Setenv("GOMPI_TRACE", "")
	}
	defer SetTracer(nil)
	if err := Run(1, func(c *Comm) error { f(c); return nil }); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkTracingOff(b *testing.B) {
	b.Run("Iprobe", func(b *testing.B) {
		traceBench(b, false, func(c *Comm) {
			b.ReportAllocs()
			for b.Loop() {
				c.Iprobe(0, 0)
			}
		})
	})
	b.Run("Iprobe-untraced-path", func(b *testing.B) {
		traceBench(b, false, func(c *Comm) {
			b.ReportAllocs()
			for b.Loop() {
				c.c.Iprobe(0, 0)
			}
		})
	})
	b.Run("Send-ProcNull", func(b *testing.B) {
		traceBench(b, false, func(c *Comm) {
			for b.Loop() {
				c.Send(nil, ProcNull, 0)
			}
		})
	})
	b.Run("Send-ProcNull-untraced-path", func(b *testing.B) {
		traceBench(b, false, func(c *Comm) {
			for b.Loop() {
				c.send("Send", nil, ProcNull, 0, 0)
			}
		})
	})
}

func BenchmarkTracingOn(b *testing.B) {
	b.Run("Send-ProcNull", func(b *testing.B) {
		traceBench(b, true, func(c *Comm) {
			for i := 0; i < 10000; i++ { // warm: sites resolved, buffers cycled once
				c.Send(nil, ProcNull, 0)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				c.Send(nil, ProcNull, 0)
			}
			b.ReportMetric(1, "events/op")
		})
	})
	b.Run("Iprobe", func(b *testing.B) {
		traceBench(b, true, func(c *Comm) {
			for i := 0; i < 10000; i++ {
				c.Iprobe(0, 0)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				c.Iprobe(0, 0)
			}
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
				b.Setenv("GOMPI_TRACE", b.TempDir())
			} else {
				b.Setenv("GOMPI_TRACE", "")
			}
			defer SetTracer(nil)
			err := Run(2, func(c *Comm) error {
				buf := make([]byte, 8)
				me := c.Rank()
				if err := c.Barrier(); err != nil {
					return err
				}
				if me == 0 {
					b.ResetTimer()
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
