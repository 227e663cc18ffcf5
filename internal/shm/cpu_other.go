//go:build !amd64

package shm

// CPU returns -1: the calling thread's CPU is not read on this platform
// (see cpu_amd64.go).
func CPU() int { return -1 }
