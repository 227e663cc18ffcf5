package shm

import "sync/atomic"

// ArriveOpen is Arrive for a rank that does not wait for the step
// (core.Comm.ShmPost, ShmArrive): it does not read the peer's word, which a
// two-rank Arrive reads to report whether it was the last. That load is a
// cache miss whenever the peer has just arrived (its store took the line),
// and a rank that arrives and leaves had to wait for it before its next
// ordered instruction (the clock's LFENCE, in a timed loop).
func (c *CollCtl) ArriveOpen(k uint64, n, rank int) {
	if n != 2 {
		c.arriveCount(k, n)
		return
	}
	c.storeArrival(k, rank)
}

// storeArrival stores rank's arrival at step k in its own word of a
// two-rank slot and wakes the peer if it sleeps on that word.
func (c *CollCtl) storeArrival(k uint64, rank int) {
	w := c.word(rank, k)
	if plainArrive { // no full fence: see arrive.go
		StoreRelease32(&w.seq, uint32(k+1))
	} else {
		atomic.StoreUint32(&w.seq, uint32(k+1))
	}
	if atomic.LoadInt32(&w.sleepers) != 0 {
		futexWake(&w.seq)
	}
}
