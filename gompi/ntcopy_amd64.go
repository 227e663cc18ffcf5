package gompi

import "unsafe"

// ntCopy64 copies n bytes (n > 0, a multiple of 64) from src to dst
// (16-byte aligned) with non-temporal stores and a store fence
// (ntcopy_amd64.s).
//
//go:noescape
func ntCopy64(dst, src unsafe.Pointer, n int)

// ntCopy copies src into dst (min of the lengths, as copy) with
// non-temporal stores where the block is large enough (see ntCopyMin),
// else as copy.
func ntCopy(dst, src []byte) {
	n := min(len(dst), len(src))
	if n < ntCopyMin {
		copy(dst, src)
		return
	}
	head := int(-uintptr(unsafe.Pointer(unsafe.SliceData(dst)))) & 15
	copy(dst[:head], src[:head])
	body := (n - head) &^ 63
	ntCopy64(unsafe.Pointer(&dst[head]), unsafe.Pointer(&src[head]), body)
	copy(dst[head+body:n], src[head+body:n])
}
