package shm

import (
	"runtime"
	"sync/atomic"
)

// The inbound queue of each rank is an intrusive multi-producer,
// single-consumer FIFO of cells (the scheme of Open MPI's vader transport):
// a producer swaps its cell into the tail and then links it behind the
// previous tail, or makes it the head if the queue was empty. Pushes of one
// producer are therefore seen in the order made, which is what MPI's
// non-overtaking rule needs. Offset 0 (the header) serves as nil.

// Push appends the cell at off to local rank r's queue. Any process may call
// it. The caller has filled the cell; the swap publishes it.
func (s *Segment) Push(r int, off int64) {
	atomic.StoreInt64(&s.CellAt(off).Next, 0)
	rb := s.ranks[r]
	prev := atomic.SwapInt64(&rb.tail, off)
	if prev == 0 {
		atomic.StoreInt64(&rb.head, off)
	} else {
		atomic.StoreInt64(&s.CellAt(prev).Next, off)
	}
}

// Pop removes the oldest cell of local rank r's queue and returns its offset,
// or 0 if the queue is empty. Only rank r calls it, one thread at a time.
func (s *Segment) Pop(r int) int64 {
	rb := s.ranks[r]
	off := atomic.LoadInt64(&rb.head)
	if off == 0 {
		return 0
	}
	s.TouchCell(off)
	c := s.CellAt(off)
	if next := atomic.LoadInt64(&c.Next); next != 0 {
		atomic.StoreInt64(&rb.head, next)
		return off
	}
	// off looks like the last cell. Empty the queue unless a producer has
	// already swapped itself in behind it.
	atomic.StoreInt64(&rb.head, 0)
	if atomic.CompareAndSwapInt64(&rb.tail, off, 0) {
		return off
	}
	// A producer holds the tail but has not linked its cell yet: it will in a
	// few instructions, unless it was descheduled or killed in between. Wait
	// a little, then leave the queue as it was and report it empty for now:
	// the caller comes back (and, if the producer died, learns so from its
	// state), so a dead producer cannot hold a reader here for ever.
	for i := 0; i < popPatience; i++ {
		if next := atomic.LoadInt64(&c.Next); next != 0 {
			atomic.StoreInt64(&rb.head, next)
			return off
		}
		if i > 100 {
			runtime.Gosched()
		}
	}
	// Only the consumer writes head while the tail is not 0, so putting off
	// back is safe: the next Pop looks at its link again.
	atomic.StoreInt64(&rb.head, off)
	return 0
}

// popPatience is how many looks Pop takes at a cell being linked before it
// gives up for now: the first hundred spin, the rest yield the processor.
const popPatience = 2000

// Empty reports whether local rank r's queue holds nothing, not even a cell
// being pushed right now.
func (s *Segment) Empty(r int) bool {
	rb := s.ranks[r]
	return atomic.LoadInt64(&rb.head) == 0 && atomic.LoadInt64(&rb.tail) == 0
}

// HeadReady reports whether a cell can be popped now: the cheapest poll.
func (s *Segment) HeadReady(r int) bool {
	return atomic.LoadInt64(&s.ranks[r].head) != 0
}
