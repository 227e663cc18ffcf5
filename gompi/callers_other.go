//go:build !amd64

package gompi

import "runtime"

// callers fills pcs with the return addresses of the calling goroutine's
// frames, starting with the one into callers' caller (see callers_amd64.go).
func callers(pcs []uintptr) int { return runtime.Callers(2, pcs) }
