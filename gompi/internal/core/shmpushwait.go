package core

import (
	"sync/atomic"
	"unsafe"

	"github.com/gompi/gompi/rdtsc"
)

// pushPolls is how many times ShmAwaitPushed loads a pushed line's tag
// before it waits as every wait does (about 2.5 µs on the 2-CPU VM of
// docs/PERFORMANCE.md, "Scatterv on the kept path, and readers that poll
// before they yield").
const pushPolls = 4096

// crossPolls is how many times a reader of a pushed line whose root runs
// on another CPU loads the tag before it waits as every wait does, where
// ranks are few per CPU (fewPerCPU): about 1.2 µs, a switch on the root's
// CPU and its writes.
const crossPolls = 2048

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
//
// Without the order, where ranks are few per CPU (fewPerCPU: 3 and 4 ranks
// on 2 CPUs), cpuWord holds the CPU the root last wrote from, plus one (0:
// unknown; ShmNoteCPU), read only if the line is not there at once. A
// reader on another CPU than its root polls crossPolls times first: its
// CPU holds only other readers, which have nothing to do before the root
// has written either, so a yield there would hand the CPU to one of them
// and back (two switches, 1-1.5 µs each) for a write due within a
// microsecond. A reader on its root's CPU yields as before: the root runs
// only once it does.
func (c *Comm) ShmAwaitPushed(w unsafe.Pointer, v uint32, cpuWord unsafe.Pointer) error {
	p := (*uint32)(w)
	if atomic.LoadUint32(p) == v {
		return nil
	}
	polls := 0
	if c.size > 2 && c.p.opts.Oversubscribed && c.p.opts.LedBarriers {
		polls = pushPolls
	} else if c.fewPerCPU() {
		if root := int(atomic.LoadUint32((*uint32)(cpuWord))) - 1; root >= 0 {
			if me := rdtsc.CPU(); me >= 0 && me != root {
				polls = crossPolls
			}
		}
	}
	for i := polls; i > 0; i-- {
		if atomic.LoadUint32(p) == v {
			return nil
		}
	}
	return c.ShmAwaitWord(w, v)
}

// ShmNoteCPU stores the CPU this rank runs on, plus one, into the word at w
// where ranks are few per CPU and it moved (a root of a push, for its
// readers' ShmAwaitPushed).
func (c *Comm) ShmNoteCPU(w unsafe.Pointer) {
	if !c.fewPerCPU() {
		return
	}
	p, cpu := (*uint32)(w), uint32(rdtsc.CPU()+1)
	if atomic.LoadUint32(p) != cpu {
		atomic.StoreUint32(p, cpu)
	}
}
