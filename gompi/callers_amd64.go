package gompi

import "unsafe"

// framePointer returns the frame pointer of its caller.
//
//go:noescape
func framePointer() unsafe.Pointer

// callers fills pcs with the return addresses of the calling goroutine's
// frames, starting with the one into callers' caller (a pc in the function
// that called callers), by following the
// frame-pointer chain Go keeps on amd64 (as the runtime's execution tracer
// does): two loads per frame, where runtime.Callers costs a symbol-table
// walk per frame. It returns how many it stored. Not inlined: its frame is
// the one framePointer reads.
//
//go:nosplit
//go:noinline
func callers(pcs []uintptr) int {
	fp := framePointer() // callers' own frame
	n := 0
	for fp != nil && n < len(pcs) {
		// fp points at the saved frame pointer of the caller; the return
		// address into the caller is the word above it.
		ret := *(*uintptr)(unsafe.Add(fp, unsafe.Sizeof(uintptr(0))))
		fp = *(*unsafe.Pointer)(fp)
		if ret == 0 {
			break
		}
		pcs[n] = ret
		n++
	}
	return n
}
