package core

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// Per-rank words in the scratch area (see shm.CollCtl.SetWord): a step in
// which each rank waits only for the ranks it reads from. The rank calls
// ShmBegin, writes its part into ShmScratch and sets its word with
// ShmSetWord (a value that names the step, from ShmSeq, so that what an
// earlier step left in the half never matches); its readers wait for that
// word with ShmAwaitWord, read, and every rank then arrives with ShmArrive,
// which leaves the step open until all have read.

// ShmSeq returns the number of c's next shared-memory step (call ShmBegin
// first).
func (c *Comm) ShmSeq() uint64 { return c.shmSeq }

// ShmSetWord stores v into the word at w, which must lie in ShmScratch, and
// wakes the ranks waiting for it.
func (c *Comm) ShmSetWord(w unsafe.Pointer, v uint32) {
	c.p.seg.CollCtlAt(c.slot).SetWord((*uint32)(w), v)
}

// ShmAwaitWord waits until the word at w (in ShmScratch) holds v, with the
// spin, yield and sleep of every wait; it fails if the job aborts or a
// member is gone.
func (c *Comm) ShmAwaitWord(w unsafe.Pointer, v uint32) error {
	p := (*uint32)(w)
	if atomic.LoadUint32(p) == v {
		return nil
	}
	ctl := c.p.seg.CollCtlAt(c.slot)
	return c.shmWait(func() bool { return atomic.LoadUint32(p) == v }, func(d time.Duration) {
		if x := atomic.LoadUint32(p); x != v {
			ctl.SleepWord(p, x, d)
		}
	})
}

// ShmAwaitCount waits until the counter at w (in ShmScratch, set with
// ShmSetWord) has reached v: it holds v or a later count (counts compared
// as ShmSeq's steps are, robust to wrap-around).
func (c *Comm) ShmAwaitCount(w unsafe.Pointer, v uint32) error {
	p := (*uint32)(w)
	reached := func() bool { return int32(atomic.LoadUint32(p)-v) >= 0 }
	if reached() {
		return nil
	}
	ctl := c.p.seg.CollCtlAt(c.slot)
	return c.shmWait(reached, func(d time.Duration) {
		if x := atomic.LoadUint32(p); int32(x-v) < 0 {
			ctl.SleepWord(p, x, d)
		}
	})
}
