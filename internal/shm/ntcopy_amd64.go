package shm

import "unsafe"

// ntCopy64 copies n bytes (n > 0, a multiple of 64) from src to dst
// (16-byte aligned) with non-temporal stores and a store fence
// (ntcopy_amd64.s).
//
//go:noescape
func ntCopy64(dst, src unsafe.Pointer, n int)

// CopyNT copies src into dst (min of the lengths, as copy) with
// non-temporal stores for the 64-byte body: the lines go to memory and
// the copies other CPUs hold are invalidated, without the writer first
// taking each line back from the reader's cache. The head up to dst's
// 16-byte alignment and the tail are plain stores; all of it is visible
// to every CPU before any store that follows.
func CopyNT(dst, src []byte) int {
	n := min(len(dst), len(src))
	head := min(int(-uintptr(unsafe.Pointer(unsafe.SliceData(dst))))&15, n)
	copy(dst[:head], src[:head])
	body := (n - head) &^ 63
	if body > 0 {
		ntCopy64(unsafe.Pointer(&dst[head]), unsafe.Pointer(&src[head]), body)
	}
	copy(dst[head+body:n], src[head+body:n])
	return n
}
