//go:build !amd64

package gompi

// ntCopy is copy where there are no non-temporal stores here.
func ntCopy(dst, src []byte) { copy(dst, src) }
