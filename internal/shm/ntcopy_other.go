//go:build !amd64

package shm

// CopyNT is copy where there are no non-temporal stores.
func CopyNT(dst, src []byte) int { return copy(dst, src) }
