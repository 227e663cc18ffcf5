package coll

import "sync"

// Temporary buffers of the algorithms come from a pool: a large collective
// would otherwise allocate, and zero, as much again as its data on every
// call (for a 1 MiB Allreduce on two ranks that was a tenth of the time).
// A buffer goes back to the pool only when the call succeeded: after a
// failure (a peer lost, a timeout) a receive into it may still be posted, so
// it is left to the garbage collector. Pooled buffers are not zeroed: an
// algorithm writes (or receives into) what it later reads.
var scratchPool sync.Pool // of *[]byte

// getScratch returns a buffer of n bytes, of unspecified contents.
func getScratch(n int) []byte {
	if v, ok := scratchPool.Get().(*[]byte); ok && cap(*v) >= n {
		return (*v)[:n]
	}
	return make([]byte, n)
}

// putScratch gives b back to the pool if the call has not failed. The
// caller must not touch b again.
func (p *proc) putScratch(b []byte) {
	if cap(b) == 0 || p.err != nil {
		return
	}
	scratchPool.Put(&b)
}
