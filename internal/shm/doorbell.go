package shm

import (
	"sync/atomic"
	"time"
)

// Each rank has a doorbell: a futex word that every wake-up bumps, and a count
// of its threads that are asleep on it. A producer rings only when the count
// is non-zero, so a rank that is spinning costs its peers nothing; the
// sleeper announces itself before its last look at the queue, and the
// producer publishes its cell before it reads the count, so with sequentially
// consistent atomics one of the two always sees the other and no wake-up is
// lost.

// Sleep blocks the calling thread on local rank r's doorbell until it rings or
// d passes. ready is checked after the thread is counted as a sleeper; if it
// reports work, Sleep returns at once.
func (s *Segment) Sleep(r int, d time.Duration, ready func() bool) {
	rb := s.ranks[r]
	seq := atomic.LoadUint32(&rb.bell)
	atomic.AddInt32(&rb.sleepers, 1)
	if !ready() {
		futexWait(&rb.bell, seq, d)
	}
	atomic.AddInt32(&rb.sleepers, -1)
}

// Ring wakes local rank r if any of its threads sleeps on its doorbell.
func (s *Segment) Ring(r int) {
	rb := s.ranks[r]
	if atomic.LoadInt32(&rb.sleepers) != 0 {
		s.wake(rb)
	}
}

// Sleepers reports whether any thread of local rank r sleeps on its doorbell.
func (s *Segment) Sleepers(r int) bool { return atomic.LoadInt32(&s.ranks[r].sleepers) != 0 }

// RingIfStarved wakes local rank r only if it is waiting for its cells to come
// back. Returning a plain cell uses it, so that returns do not wake a rank
// that sleeps for some other reason.
func (s *Segment) RingIfStarved(r int) {
	rb := s.ranks[r]
	if atomic.LoadUint32(&rb.starved) != 0 && atomic.LoadInt32(&rb.sleepers) != 0 {
		s.wake(rb)
	}
}

// SetStarved marks whether local rank r waits for returned cells.
func (s *Segment) SetStarved(r int, starved bool) {
	v := uint32(0)
	if starved {
		v = 1
	}
	atomic.StoreUint32(&s.ranks[r].starved, v)
}

func (s *Segment) wake(rb *rankBlock) {
	atomic.AddUint32(&rb.bell, 1)
	futexWake(&rb.bell)
}

// SetBoxFull marks whether local rank r waits for room in one of its boxes.
func (s *Segment) SetBoxFull(r int, full bool) {
	v := uint32(0)
	if full {
		v = 1
	}
	atomic.StoreUint32(&s.ranks[r].boxFull, v)
}

// RingIfBoxFull wakes local rank r if it waits for room in a box: readers
// call it after consuming records.
func (s *Segment) RingIfBoxFull(r int) {
	rb := s.ranks[r]
	if atomic.LoadUint32(&rb.boxFull) != 0 && atomic.LoadInt32(&rb.sleepers) != 0 {
		s.wake(rb)
	}
}
