package shm

import "sync/atomic"

// AddWord adds d to w, a word in one of the slot's scratch halves, and
// wakes the ranks asleep on it (SleepWord): an event counter that several
// ranks bump and one waits on for any change.
func (c *CollCtl) AddWord(w *uint32, d uint32) {
	atomic.AddUint32(w, d)
	if atomic.LoadInt32(&c.wsleep) != 0 {
		futexWake(w)
	}
}
