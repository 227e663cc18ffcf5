//go:build !linux

package shm

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Without futexes a sleeper polls its word in short naps: correct, slower.
func futexWait(addr *uint32, val uint32, d time.Duration) {
	deadline := time.Now().Add(d)
	for atomic.LoadUint32(addr) == val && time.Now().Before(deadline) {
		time.Sleep(50 * time.Microsecond)
	}
}

func futexWaitRaw(addr *uint32, val uint32, d time.Duration) { futexWait(addr, val, d) }

func futexWake(addr *uint32) {}

// Yield lets other goroutines run.
func Yield() { runtime.Gosched() }
