package shm

import (
	"sync/atomic"
	"unsafe"
)

func unsafePointer(p *uint8) unsafe.Pointer { return unsafe.Pointer(p) }

func atomicLoadKind(s *Segment, off int64) uint32 {
	return atomic.LoadUint32((*uint32)(unsafePointer(&s.CellAt(off).Kind)))
}

func storeKind(s *Segment, off int64, v uint32) {
	atomic.StoreUint32((*uint32)(unsafePointer(&s.CellAt(off).Kind)), v)
}
