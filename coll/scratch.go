package coll

import "sync"

// Temporary buffers of the algorithms come from a pool: a large collective
// would otherwise allocate, and zero, as much again as its data on every
// call (for a 1 MiB Allreduce on two ranks that was a tenth of the time; for
// a 128 KiB Reduce on two ranks of this VM, whose page faults are costly,
// four fifths: 400 against 79 µs).
// A buffer goes back to the pool only when the call succeeded: after a
// failure (a peer lost, a timeout) a receive into it may still be posted, so
// it is left to the garbage collector. Pooled buffers are not zeroed: an
// algorithm writes (or receives into) what it later reads.
var scratchPool sync.Pool // of *scratch

// scratch holds a pooled buffer; the holder goes back with it, so that
// putting a buffer back allocates nothing.
type scratch struct{ b []byte }

// getScratch returns a holder of a buffer of n bytes, of unspecified
// contents.
func getScratch(n int) *scratch {
	s, _ := scratchPool.Get().(*scratch)
	if s == nil {
		s = new(scratch)
	}
	if cap(s.b) < n {
		s.b = make([]byte, n)
	}
	s.b = s.b[:n]
	return s
}

// putScratch gives s back to the pool if the call has not failed (nil: no
// buffer, nothing to do). The caller must not touch s.b again.
func (p *proc) putScratch(s *scratch) {
	if s == nil || p.err != nil {
		return
	}
	scratchPool.Put(s)
}
