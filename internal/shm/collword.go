package shm

import (
	"sync/atomic"
	"time"
)

// Words in the scratch area: an algorithm may have a rank publish its part
// by setting a word of its own in the scratch half of the step (SetWord),
// and its readers wait for that word alone (SleepWord) instead of for the
// whole step, which the rank still arrives at (Arrive) once it has read
// what it needs, so that the half is reused only after every reader is done
// with it. The ranks asleep on any such word of a slot are counted in one
// counter (wsleep): a writer that finds it non-zero wakes the sleepers on
// its word; a spurious wake is harmless, as readers re-check.

// SetWord stores v into w, a word in one of the slot's scratch halves, and
// wakes the ranks asleep on it.
func (c *CollCtl) SetWord(w *uint32, v uint32) {
	atomic.StoreUint32(w, v)
	if atomic.LoadInt32(&c.wsleep) != 0 {
		futexWake(w)
	}
}

// SleepWord waits while the word w (in one of the slot's scratch halves)
// holds old, at most d.
func (c *CollCtl) SleepWord(w *uint32, old uint32, d time.Duration) {
	atomic.AddInt32(&c.wsleep, 1)
	collWait(w, old, d)
	atomic.AddInt32(&c.wsleep, -1)
}
