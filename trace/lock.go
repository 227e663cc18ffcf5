package trace

import (
	"runtime"
	"sync/atomic"
)

// spinLock guards a Writer's buffer. Taking it is one compare-and-swap and
// releasing it, where the processor keeps stores in order (amd64), a plain
// store: one atomic read-modify-write per record where sync.Mutex costs two
// (its Unlock is an atomic add), about 9 ns of a traced call on the
// development VM. It is held for the copy of one record, or to hand a full
// buffer to the flusher; a goroutine that finds it held spins a little, then
// yields its processor (runtime.Gosched) until it is free.
type spinLock struct{ v uint32 }

func (l *spinLock) lock() {
	if !atomic.CompareAndSwapUint32(&l.v, 0, 1) {
		l.lockSlow()
	}
}

func (l *spinLock) lockSlow() {
	for i := 0; ; i++ {
		if atomic.LoadUint32(&l.v) == 0 && atomic.CompareAndSwapUint32(&l.v, 0, 1) {
			return
		}
		if i >= 16 {
			runtime.Gosched()
		}
	}
}

func (l *spinLock) unlock() { storeRelease(&l.v, 0) }
