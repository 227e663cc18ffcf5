//go:build !linux

package shm

// Without membarrier(2) every arrival keeps its full fence.
func setupArrivals() {}

func fenceSleeper() bool { return true }

func registerPlain() bool { return false }
