package core

import (
	"sync/atomic"
	"unsafe"
)

// pushPolls is how many times ShmAwaitPushed loads a pushed line's tag
// before it waits as every wait does (about 2.5 µs on the 2-CPU VM of
// docs/PERFORMANCE.md, "Scatterv on the kept path, and readers that poll
// before they yield").
const pushPolls = 4096

// ShmAwaitPushed is ShmAwaitWord for a reader of a pushed line (Scatterv's
// push, gompi/shmcoll_push.go). When ranks outnumber CPUs every wait gives
// the CPU away after its first few polls; but the root of a push has led
// the barrier before it (it left first, and is running), and it stores the
// tag a few hundred nanoseconds after the reader on the other CPU starts
// looking. A yield there hands the CPU to another waiting rank and costs
// two context switches (some 13 µs) for a write that was due within a
// microsecond. So the reader polls for a couple of microseconds first.
//
// Only where the root leads the barrier (Options.LedBarriers, off by
// default): without the leave order the root may not be running, and the
// poll measured no better (docs/PERFORMANCE.md, "The leave orders measured
// as a whole loop").
func (c *Comm) ShmAwaitPushed(w unsafe.Pointer, v uint32) error {
	p := (*uint32)(w)
	if c.size > 2 && c.p.opts.Oversubscribed && c.p.opts.LedBarriers {
		for i := pushPolls; i > 0; i-- {
			if atomic.LoadUint32(p) == v {
				return nil
			}
		}
	}
	return c.ShmAwaitWord(w, v)
}
